#!/usr/bin/env bash
# docs/datasets.md's table of the catalog is the one tools/datasets_table.py generates from datasets/catalog.json
# and datasets/openml.json.
set -euo pipefail
/usr/bin/python3 "$SOURCE_DIR/tools/datasets_table.py" --check
