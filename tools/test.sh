#!/usr/bin/env bash
# The README's second command: install, build with warnings as errors, run the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/build.sh" -DGLIMPSE_WARNINGS_AS_ERRORS=ON -DBUILD_TESTING=ON
cd "$root/build"
exec ctest --output-on-failure -j "$(nproc)" --timeout 900
