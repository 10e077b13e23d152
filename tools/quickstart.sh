#!/usr/bin/env bash
# The README's first command: install what is missing, build the CLI and the plugins the quickstart loads (the target
# `quickstart`, not the tests, benchmarks or other plugins: tools/test.sh builds those), then run the embedded
# quickstart protocol (a results table on stdout, traces in runs/quickstart.h5).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh" --target quickstart
cd "$root"
exec "$root/build/bin/glimpse" run "$@"
