#!/usr/bin/env bash
# What each part of the reference arithmetic changes (issue #54, docs/reproducing.md "Builds and numbers"): builds the
# CLI and the plugins of benchmarks/protocols/arithmetic_*.json in variants of the build, runs the protocols with
# each, and compares every run with the reference build's round by round (the predicted label of every round) and by
# its final metrics. Variants:
#   reference  -march=x86-64-v3 -mtune=generic -ffp-contract=off (the default build; BUILD, when given, is used)
#   contract   the same with -ffp-contract=fast (GCC's default: the compiler fuses a * b + c where it likes)
#   native     -march=native (this machine's CPU, GCC's default contraction)
#   baseline   -march=x86-64 (SSE2 only: Eigen's kernels with 128-bit vectors and no FMA), no contraction
#   libm       the reference build run with glibc told the CPU has no AVX2 and no FMA (GLIBC_TUNABLES), so libm's
#              exp, log and pow take their SSE2 paths: what a CPU-dependent math-library path would move
#   intel      the reference build run under qemu-x86_64 (apt-get install qemu-user) emulating an Intel CPU (QEMU_INTEL,
#              default Skylake-Client: GenuineIntel, its family, model and cache sizes in CPUID): everything the
#              binary or a library decides from CPUID (glibc's and libm's variants, Eigen's blocking, oneTBB), and any
#              approximate instruction (rcpps, rsqrtps: QEMU computes them otherwise than either vendor's silicon)
#   benchmarks/arithmetic_variants.sh [--variants "contract native baseline libm intel"] [--reference BUILD] [--jobs N]
# Builds go to build-arith-VARIANT (about 5 minutes each on 2 cores); installed satimage needed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source_dir=$(cd "$here/.." && pwd)
variants="contract native baseline libm"
reference=""
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --variants) variants=$2; shift 2 ;;
    --reference) reference=$(realpath "$2"); shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "arithmetic_variants.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
case " $variants " in
  *" intel "*)
    command -v qemu-x86_64 > /dev/null || {
      echo "arithmetic_variants.sh: the intel variant needs qemu-x86_64 (apt-get install qemu-user)" >&2
      exit 2
    } ;;
esac
protocols="$here/protocols/arithmetic_bandit.json $here/protocols/arithmetic_selective.json"
plugins="installed minmax_scale bandit full cspa banditron bpa confidit newtron squarecb glm_mixture cs_selectron dgs bbq online_accuracy regret queries"
build() {  # build VARIANT CMAKE_OPTIONS...: the CLI and the protocols' plugins
  local dir="$source_dir/build-arith-$1"
  cmake -S "$source_dir" -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DGLIMPSE_BUILD_BENCHMARKS=OFF \
    -DGLIMPSE_WITH_MPI=OFF -DGLIMPSE_WITH_PYTHON=OFF "${@:2}" > "$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
  local targets=(glimpse)
  for p in $plugins; do targets+=("glimpse_plugin_$p"); done
  cmake --build "$dir" -j "$jobs" --target "${targets[@]}" > "$dir.build.log" 2>&1 || { tail -30 "$dir.build.log"; exit 1; }
  echo "$dir/bin/glimpse"
}
[ -n "$reference" ] || reference=$(dirname "$(dirname "$(build reference)")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run_all() {  # run_all NAME GLIMPSE [ENV...]
  mkdir -p "$work/$1"
  for protocol in $protocols; do
    env "${@:3}" GLIMPSE_PREPARED_CACHE=off "$2" run "$protocol" -o "$work/$1/$(basename "$protocol" .json).h5" -j "$jobs" --quiet
  done
  env "${@:3}" "$2" --version > "$work/$1/version.txt"
}
emulated() {  # emulated VARIANT QEMU_CPU: a glimpse that is the reference build under qemu-x86_64 emulating that CPU
  printf '#!/bin/sh\nexec qemu-x86_64 -cpu %s %s "$@"\n' "$2" "$reference/bin/glimpse" > "$work/glimpse-$1"
  chmod +x "$work/glimpse-$1"
  echo "$work/glimpse-$1"
}
run_all reference "$reference/bin/glimpse"
for variant in $variants; do
  case "$variant" in
    contract) run_all contract "$(build contract -DGLIMPSE_FP_CONTRACT=fast)" ;;
    native) run_all native "$(build native -DGLIMPSE_NATIVE_ARCH=ON)" ;;
    baseline) run_all baseline "$(build baseline -DGLIMPSE_ARCH=x86-64)" ;;
    libm) run_all libm "$reference/bin/glimpse" GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA,-AVX ;;
    intel) run_all intel "$(emulated intel "${QEMU_INTEL:-Skylake-Client}")" ;;
    *) echo "arithmetic_variants.sh: unknown variant $variant" >&2; exit 2 ;;
  esac
done
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'); reference: $(cat "$work/reference/version.txt")"
PYTHONPATH="$reference/lib/python${PYTHONPATH:+:$PYTHONPATH}" /usr/bin/python3 - "$work" $variants << 'PY'
import sys, pathlib
import numpy as np
import glimpse

work, variants = pathlib.Path(sys.argv[1]), sys.argv[2:]
print(f"{'variant':<9} {'protocol':<22} {'runs':>4} {'same rounds':>11} {'first differing round (median, min)':>36} "
      f"{'largest final-metric difference':>32}")
for variant in variants:
    for file in sorted((work / "reference").glob("*.h5")):
        ours, theirs = glimpse.open(file), glimpse.open(work / variant / file.name)
        a, b = ours.summary, theirs.summary
        metrics = [c for c in a.columns if c.startswith("final_") or c in ("online_accuracy", "regret", "queries")]
        same, first = 0, []
        for run in a["run"]:
            x, y = ours.rounds(run)["predicted"], theirs.rounds(run)["predicted"]
            differ = np.flatnonzero(x != y)
            if differ.size == 0:
                same += 1
            else:
                first.append(int(differ[0]) + 1)
        numeric = [c for c in a.columns if c not in ("run", "seed", "rounds", "seconds", "rounds_per_second", "peak_rss_mb",
                                                     "grid_point") and np.issubdtype(a[c].dtype, np.number)]
        largest = max((float(np.max(np.abs(a[c].to_numpy() - b[c].to_numpy()))), c) for c in numeric) if numeric else (0, "")
        where = f"{int(np.median(first))}, {min(first)}" if first else "-"
        print(f"{variant:<9} {file.stem:<22} {len(a):>4} {same:>11} {where:>36} {largest[0]:>24.4g} ({largest[1]})")
PY
for variant in $variants; do echo "$variant: $(cat "$work/$variant/version.txt")"; done
