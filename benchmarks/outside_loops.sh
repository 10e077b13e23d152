#!/usr/bin/env bash
# How much of a sweep's wall time is spent outside its runs' round loops (issue #31): the whole process
# (start-up, preparing datasets, writing every run, assembling the output) against the runs' own seconds (each run's
# `seconds`: creating its plugins and its round loop) divided by the thread count. Runs the protocol REPEATS times
# and prints each repeat and the median share outside. Default: the 200 short runs of sweep_scaling.json
# (satimage and letter, 2-20 ms each; needs both installed) with "trace": "curves", 2 threads, 5 repeats.
#   benchmarks/outside_loops.sh [PROTOCOL] [REPEATS] [THREADS] [TRACE] [GLIMPSE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/sweep_timing.sh"
protocol=$(realpath "${1:-$here/protocols/sweep_scaling.json}")
repeats=${2:-5}
threads=${3:-2}
trace=${4:-curves}
glimpse=$(realpath "${5:-$here/../build/bin/glimpse}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
with_trace "$protocol" "$trace" > protocol.json
for ((i = 0; i < repeats; ++i)); do
  rm -f out.h5
  start=$(now)
  "$glimpse" run protocol.json -o out.h5 -j "$threads" --quiet > /dev/null 2> run.log || { cat run.log; exit 1; }
  wall=$(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')
  loops=$(loop_seconds "$glimpse" out.h5)
  awk -v w="$wall" -v l="$loops" -v t="$threads" \
    'BEGIN { printf "wall %.3f s, runs %.3f s / %d threads = %.3f s, outside %.1f%%\n", w, l, t, l / t, 100 * (1 - l / t / w) }' |
    tee -a shares.txt
done
echo "protocol: $protocol, trace $trace, $threads threads, $repeats repeats; $(nproc) cores"
awk '{ gsub("%", "", $NF); print $NF }' shares.txt | sort -g |
  awk '{ v[NR] = $1 } END { printf "median share outside the round loops: %.1f%%\n", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
