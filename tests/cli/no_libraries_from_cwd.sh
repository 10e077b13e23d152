#!/usr/bin/env bash
# The build's programs and libraries never look for a shared library in the current directory. An empty entry in a
# RUNPATH (CMake pads the build tree's with ':' when it edits the installed copy in place) is read by the dynamic
# loader as the current directory, ahead of the system's folders: build/bin/glimpse started in a folder holding a file
# named libtbb.so.12 loaded that file (an empty one stopped it; a crafted one would run its code). So: every ELF file
# the build made has only absolute or $ORIGIN entries, and the CLI, with every plugin library loaded, starts in a
# folder of empty files named after every library it and its plugins need.
set -euo pipefail
source "$(dirname "$0")/common.sh"
command -v readelf > /dev/null || { echo "readelf (binutils) not found: skipped"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

checked=0
needed=""
while IFS= read -r -d '' file; do
  checked=$((checked + 1))
  paths=$(readelf -d "$file" | sed -n 's/.*(\(RUNPATH\|RPATH\)).*\[\(.*\)\]$/\2/p')
  if [ -n "$paths" ]; then
    if [[ "$paths" == :* || "$paths" == *: || "$paths" == *::* ]]; then
      fail "$file: its RUNPATH '$paths' has an empty entry (the current directory)"
    fi
    IFS=: read -r -a entries <<< "$paths"
    for entry in "${entries[@]}"; do
      # shellcheck disable=SC2016  # $ORIGIN is the loader's, not the shell's
      [ -z "$entry" ] || [[ "$entry" == /* ]] || [[ "$entry" == '$ORIGIN'* ]] ||
        fail "$file: its RUNPATH '$paths' has a relative entry '$entry' (read against the current directory)"
    done
  fi
  needed+=" $(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' ')"
done < <(elf_files "$BUILD_DIR/bin" "$BUILD_DIR/lib")
[ "$checked" -ge 10 ] || fail "only $checked ELF files found under $BUILD_DIR/bin and lib"

# A folder of decoys: an empty file for every library named, which the loader refuses ("file too short") if it
# ever opens one.
names=$(echo "$needed" | tr ' ' '\n' | grep . | sort -u)
for name in $names; do : > "$work/$name"; done
[ -e "$work/libtbb.so.12" ] || fail "the decoys lack libtbb.so.12 (the libraries' NEEDED entries were not read)"
cd "$work"
GLIMPSE_PLUGIN_INDEX=off "$GLIMPSE" --version > version.txt 2>&1 || fail "glimpse --version among decoys: $(cat version.txt)"
GLIMPSE_PLUGIN_INDEX=off "$GLIMPSE" plugins > plugins.txt 2>&1 || fail "glimpse plugins among decoys: $(cat plugins.txt)"
grep -q banditron plugins.txt || fail "glimpse plugins among decoys does not list banditron: $(head -5 plugins.txt)"
echo "$checked ELF files without an empty or relative RUNPATH entry; glimpse started among $(echo "$names" | wc -l) decoys"
