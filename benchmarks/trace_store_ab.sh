#!/usr/bin/env bash
# Two builds of libglimpse side by side on a cheap sweep (issue #31), alternated in one invocation so that the
# machine's drift falls on both alike: for each, the protocol with "trace": "rounds" and with "trace": "curves",
# whole process, and the share of the curves run's wall time spent outside its runs (their `seconds` divided by the
# thread count). The same binary and plugins run both; OLD_LIB is the folder of the other libglimpse.so.0
# (e.g. a build of an earlier commit: cmake -S WORKTREE -B DIR && make -C DIR glimpse_framework; DIR/lib).
# Default: the 200 runs of sweep_scaling.json (needs satimage and letter installed), 2 threads, 7 repeats.
#   benchmarks/trace_store_ab.sh OLD_LIB [PROTOCOL] [REPEATS] [THREADS] [GLIMPSE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/sweep_timing.sh"
old_lib=$(realpath "$1")
protocol=$(realpath "${2:-$here/protocols/sweep_scaling.json}")
repeats=${3:-7}
threads=${4:-2}
glimpse=$(realpath "${5:-$here/../build/bin/glimpse}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for trace in rounds curves; do
  with_trace "$protocol" "$trace" > "$trace.json"
done
for ((i = 0; i < repeats; ++i)); do
  for build in old new; do
    for trace in rounds curves; do
      rm -f out.h5
      library_path=$([ "$build" = old ] && echo "$old_lib" || echo "")
      start=$(now)
      LD_LIBRARY_PATH=$library_path "$glimpse" run "$trace.json" -o out.h5 -j "$threads" --quiet > /dev/null 2> run.log ||
        { cat run.log; exit 1; }
      wall=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')
      loops=$(loop_seconds "$glimpse" out.h5)
      echo "$build $trace $wall $loops $(stat -c %s out.h5)" >> times.txt
    done
  done
done
echo "protocol: $protocol, $threads threads, $repeats alternations; $(nproc) cores; old: $old_lib"
python3 - "$threads" << 'EOF'
import statistics, sys
threads = int(sys.argv[1])
rows = [line.split() for line in open("times.txt")]
for build in ("old", "new"):
    wall = {t: statistics.median(float(r[2]) for r in rows if r[:2] == [build, t]) for t in ("rounds", "curves")}
    outside = statistics.median(100 * (1 - float(r[3]) / threads / float(r[2])) for r in rows if r[:2] == [build, "curves"])
    size = max(int(r[4]) for r in rows if r[:2] == [build, "rounds"]) / 1e6
    print(f"{build}: rounds {wall['rounds']:.3f} s, curves {wall['curves']:.3f} s, per-round traces "
          f"{wall['rounds'] / wall['curves']:.3f}x (file {size:.1f} MB); curves run {outside:.1f}% outside the loops")
EOF
