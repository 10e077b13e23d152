#!/usr/bin/env bash
# Installs glimpse into a scratch prefix, builds examples/first_plugin against it with find_package(glimpse),
# loads it through GLIMPSE_PLUGIN_PATH and runs it in a protocol with the installed CLI.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$BUILD_DIR" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$SOURCE_DIR/examples/first_plugin" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
test -f "$work/build/majority.so"
export GLIMPSE_PLUGIN_PATH="$work/build"
"$work/prefix/bin/glimpse" describe majority | grep "predicts the most frequent label seen so far" > /dev/null
cd "$work"
"$work/prefix/bin/glimpse" run "$SOURCE_DIR/examples/first_plugin/protocol.json" -o "$work/out.h5" --quiet
summary=$("$work/prefix/bin/glimpse" summary "$work/out.h5")
echo "$summary"
# 4 balanced classes in class order, shuffled: the majority baseline stays near 25%.
echo "$summary" | grep -E "majority +\{\"prior\":[0-9.]+\} +2 +(2[0-9]|3[0-3])\.[0-9]%" > /dev/null
echo "1 passed, 0 failed"
