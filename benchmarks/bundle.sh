#!/usr/bin/env bash
# A self-contained copy of a glimpse build for measuring on another machine that has no build tools (issue #57):
# the executable, libglimpse, the plugins a protocol needs (or all), every shared library `ldd` names (the C library,
# libm and the loader too, so that it runs on an older Linux and computes with this machine's libm), and the
# installed datasets named, into one folder. Run it there through the wrapper the bundle holds:
#   GLIMPSE_DATA=BUNDLE/datasets BUNDLE/bin/glimpse-bundled ...
# (benchmarks/many_core_scaling.sh BUNDLE/bin/glimpse-bundled does the rest). The build should be the portable
# reference one (the default: -march=x86-64-v3), without MPI (-DGLIMPSE_WITH_MPI=OFF), so that it runs on any
# x86-64-v3 CPU.
#   benchmarks/bundle.sh BUILD_DIR OUT_DIR [--plugins "a b c"] [--datasets "satimage letter"]
set -euo pipefail
build=$(realpath "$1")
out=$2
shift 2
plugins=""
datasets="satimage letter"
while [ $# -gt 0 ]; do
  case "$1" in
    --plugins) plugins=$2; shift 2 ;;
    --datasets) datasets=$2; shift 2 ;;
    *) echo "bundle.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/glimpse/plugins" "$out/datasets"
cp "$build/bin/glimpse" "$out/bin/"
cp -P "$build"/lib/libglimpse*.so* "$out/lib/"
if [ -n "$plugins" ]; then
  for p in $plugins; do cp "$build/lib/glimpse/plugins/$p.so" "$out/lib/glimpse/plugins/"; done
else
  cp "$build"/lib/glimpse/plugins/*.so "$out/lib/glimpse/plugins/"
fi
# Every library the executable and the plugins load, the loader included.
for file in "$out/bin/glimpse" "$out"/lib/*.so* "$out"/lib/glimpse/plugins/*.so; do
  ldd "$file" | awk '/=> \// {print $3} /^\t\/[^ ]*ld-linux/ {print $1}'
done | sort -u | while read -r library; do
  [ -e "$out/lib/$(basename "$library")" ] || cp -L "$library" "$out/lib/"
done
loader=$(cd "$out/lib" && ls ld-linux*.so* | head -1)
cat > "$out/bin/glimpse-bundled" <<WRAPPER
#!/bin/sh
# glimpse with the bundle's own loader and libraries (benchmarks/bundle.sh).
bundle=\$(cd "\$(dirname "\$0")/.." && pwd)
GLIMPSE_PLUGIN_PATH=\$bundle/lib/glimpse/plugins exec "\$bundle/lib/$loader" --library-path "\$bundle/lib" "\$bundle/bin/glimpse" "\$@"
WRAPPER
chmod +x "$out/bin/glimpse-bundled"
data=${GLIMPSE_DATA:-$HOME/.cache/glimpse/datasets}
for d in $datasets; do cp "$data/$d.h5" "$out/datasets/"; done
du -sh "$out" | awk '{print "bundle: " $1}'
