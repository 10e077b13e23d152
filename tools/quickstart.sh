#!/usr/bin/env bash
# The README's first command: install, build, then run the embedded quickstart protocol
# (a results table on stdout, traces in runs/quickstart.h5).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh"
cd "$root"
exec "$root/build/bin/glimpse" run "$@"
