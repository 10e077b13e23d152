#!/usr/bin/env bash
# The reference build computes nothing with an approximate instruction. rcpps, rsqrtps and their kin (AVX-512's
# vrcp14ps, vrsqrt14ps, ...) return estimates whose bits the IEEE standard leaves to the CPU: Intel's and AMD's
# silicon give different ones (and QEMU, emulating either, the exact value), so a result built on one would differ
# between machines that run the same build. Neither GCC without -ffast-math nor the build's Eigen emit them today;
# this keeps it so for the CLI, its libraries and every plugin (docs/reproducing.md, "Builds and numbers").
set -euo pipefail
source "$(dirname "$0")/common.sh"
command -v objdump > /dev/null || { echo "objdump (binutils) not found: skipped"; exit 77; }
version=$("$GLIMPSE" --version)  # captured, not piped: grep -q exiting early would fail the pipeline
grep -q "(the reference arithmetic)" <<< "$version" ||
  { echo "not the reference build (its numbers are its own): skipped"; exit 77; }
approximate='\s(v?rcp(ps|ss)|v?rsqrt(ps|ss)|vrcp(14|28)(ps|pd|ss|sd)|vrsqrt(14|28)(ps|pd|ss|sd)|vrcpph|vrsqrtph|pfrcp|pfrsqrt)\s'
checked=0
while IFS= read -r -d '' file; do
  checked=$((checked + 1))
  found=$(objdump -d --no-show-raw-insn "$file" | grep -E "$approximate" || true)
  [ -z "$found" ] || fail "$file holds $(wc -l <<< "$found") approximate instruction(s), first: $(head -3 <<< "$found")"
done < <(elf_files "$BUILD_DIR/bin/glimpse" "$BUILD_DIR/lib")
[ "$checked" -ge 10 ] || fail "only $checked ELF files found (bin/glimpse and under lib)"
echo "$checked ELF files without an approximate instruction"
