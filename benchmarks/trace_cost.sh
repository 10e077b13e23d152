#!/usr/bin/env bash
# What per-round traces cost a sweep (issue #31): the same protocol with "trace": "rounds" and with
# "trace": "curves", whole process (load, runs, writing the file), alternated REPEATS times in this one
# invocation so that the machine's drift falls on both alike. Prints each side's median wall time, their
# ratio and the files' sizes. Default: the 200 cheap runs of sweep_scaling.json (satimage and letter, cspa
# and banditron, 10 passes; needs both installed), 2 threads, 5 repeats.
#   benchmarks/trace_cost.sh [PROTOCOL] [REPEATS] [THREADS] [GLIMPSE]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/sweep_timing.sh"
protocol=$(realpath "${1:-$here/protocols/sweep_scaling.json}")
repeats=${2:-5}
threads=${3:-2}
glimpse=$(realpath "${4:-$here/../build/bin/glimpse}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
for trace in rounds curves; do
  with_trace "$protocol" "$trace" > "$trace.json"
done
for ((i = 0; i < repeats; ++i)); do
  for trace in rounds curves; do
    rm -f "$trace.h5"
    start=$(now)
    "$glimpse" run "$trace.json" -o "$trace.h5" -j "$threads" --quiet > /dev/null 2> "$trace.log" || { cat "$trace.log"; exit 1; }
    echo "$trace $(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')" >> times.txt
  done
done
median() { awk -v t="$1" '$1 == t {print $2}' times.txt | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
with=$(median rounds)
without=$(median curves)
echo "protocol: $protocol, $threads threads, $repeats repeats of each, alternated; $(nproc) cores"
for trace in rounds curves; do
  printf '%-7s %s s (median; all: %s), file %.1f MB\n' "$trace" "$(median "$trace")" \
    "$(awk -v t="$trace" '$1 == t {printf "%s%.3f", sep, $2; sep = " "}' times.txt)" \
    "$(awk -v s="$(stat -c %s "$trace.h5")" 'BEGIN { print s / 1e6 }')"
done
awk -v a="$with" -v b="$without" 'BEGIN { printf "per-round traces: %.3fx the wall time without them (%+.1f%%)\n", a / b, 100 * (a / b - 1) }'
