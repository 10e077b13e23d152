#!/usr/bin/env bash
# Configures and builds glimpse (Release) into build/ after installing what is missing. Extra arguments
# go to cmake's configure step.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release "$@" > "$root/build.log" 2>&1 || { cat "$root/build.log"; exit 1; }
cmake --build "$root/build" -j "$(nproc)" >> "$root/build.log" 2>&1 || { tail -50 "$root/build.log"; exit 1; }
