#!/usr/bin/env bash
# The sanitizer part of the test suite (tools/test.sh runs it after the normal build's tests): builds the
# `sanitize` preset (clang, AddressSanitizer + UndefinedBehaviorSanitizer, fuzz targets as libFuzzer
# programs) into build-sanitize/ and runs its tests: every unit test and the quick CLI scripts under the
# sanitizers (the slow process-killing scripts and the scripts of the Python page generators run in the normal
# build only), each fuzz target's corpus, and GLIMPSE_FUZZ_SECONDS (default 20) seconds of fuzzing per target (a
# fixed seed, so each run explores the same way: a regression check; long runs by hand, docs/reliability.md).
# Findings go to build-sanitize/tests/fuzz/findings/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/tools/install-deps.sh"
cd "$root"
mkdir -p build-sanitize
log=build-sanitize/build.log
cmake --preset sanitize -DGLIMPSE_FUZZ_SECONDS="${GLIMPSE_FUZZ_SECONDS:-20}" > "$log" 2>&1 || { cat "$log"; exit 1; }
cmake --build --preset sanitize -j "$(nproc)" >> "$log" 2>&1 || { tail -50 "$log"; exit 1; }
exec ctest --preset sanitize -j "$(nproc)"
