#!/usr/bin/env bash
# Configures and builds glimpse (Release) into build/ after installing what is missing. `--target NAME` builds that
# target only (tools/quickstart.sh: `quickstart`, the CLI and the plugins its protocol loads); other arguments go to
# cmake's configure step. Prints how long the build took (apt excluded) on standard error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=()
if [ "${1:-}" = "--target" ]; then
  target=(--target "$2")
  shift 2
fi
"$root/tools/install-deps.sh"
start=$(date +%s.%N)
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release "$@" > "$root/build.log" 2>&1 || { cat "$root/build.log"; exit 1; }
cmake --build "$root/build" -j "$(nproc)" "${target[@]}" >> "$root/build.log" 2>&1 || { tail -50 "$root/build.log"; exit 1; }
awk -v s="$start" -v e="$(date +%s.%N)" -v t="${target[*]:-everything}" \
  'BEGIN { printf "built %s in %.0f s (build.log)\n", t, e - s }' >&2
