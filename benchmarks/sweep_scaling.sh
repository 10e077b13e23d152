#!/usr/bin/env bash
# Whole-sweep scaling on this machine (issue #9): the same protocol (default: 200 runs, needs satimage and
# letter installed) as one process with 1 and 2 threads, as 2 MPI ranks of 1 thread (when mpirun is there),
# and as 2 shards of 1 thread run side by side, then merged. Prints wall times, speed-up over 1 thread and
# efficiency (speed-up / 2), and the merge's time per GB of traces. All figures from this one invocation.
#   benchmarks/sweep_scaling.sh [PROTOCOL] [GLIMPSE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
protocol=$(realpath "${1:-$here/protocols/sweep_scaling.json}")
glimpse=$(realpath "${2:-$here/../build/bin/glimpse}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
now() { date +%s.%N; }
calc() { awk -v OFMT=%.10g "BEGIN { print $1 }"; }  # floating-point arithmetic without bc
timed() {  # timed NAME COMMAND...: runs COMMAND, records its wall time
  local start
  start=$(now)
  "${@:2}" > /dev/null 2> "$1.log" || { cat "$1.log"; exit 1; }
  echo "$1 $(calc "$(now) - $start")" >> times.txt
}
timed one_thread "$glimpse" run "$protocol" -o t1.h5 -j 1 --quiet
timed two_threads "$glimpse" run "$protocol" -o t2.h5 -j 2 --quiet
if command -v mpirun > /dev/null && "$glimpse" --version | grep -q "MPI built in"; then
  timed two_mpi_ranks mpirun --oversubscribe --allow-run-as-root -n 2 "$glimpse" run "$protocol" -o mpi.h5 --mpi -j 1 --quiet
fi
two_shards() {
  "$glimpse" run "$protocol" --shard 0/2 -o s0.h5 -j 1 --quiet &
  "$glimpse" run "$protocol" --shard 1/2 -o s1.h5 -j 1 --quiet &
  wait -n && wait -n
}
timed two_shards two_shards
timed merge "$glimpse" merge merged.h5 s0.h5 s1.h5
runs=$(h5dump -a /runs_total t1.h5 | awk '/\(0\):/ {print $2; exit}')
gb=$(calc "($(stat -c %s s0.h5) + $(stat -c %s s1.h5)) / 1e9")
one=$(awk '$1 == "one_thread" {print $2}' times.txt)
echo "protocol: $protocol ($runs runs), $(nproc) cores"
printf "%-14s %8s %9s %11s\n" configuration "wall s" speed-up efficiency
while read -r name seconds; do
  [ "$name" = merge ] && continue
  awk -v n="$name" -v s="$seconds" -v one="$one" \
    'BEGIN { printf "%-14s %8.2f %8.2fx %10.0f%%\n", n, s, one / s, (n == "one_thread" ? 100 : 100 * one / s / 2) }'
done < times.txt
merge=$(awk '$1 == "merge" {print $2}' times.txt)
awk -v s="$merge" -v gb="$gb" 'BEGIN { printf "merge of 2 shard files: %.2f s for %.3f GB = %.1f s/GB\n", s, gb, s / gb }'
