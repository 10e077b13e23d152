#!/usr/bin/env bash
# The Python bridge's cost, measured (docs/python.md): rounds/s of an empty Python learner (the bridge alone), of
# the NumPy Perceptron (examples/python) and of the C++ perceptron on the same rows; then a sweep of Python runs
# with 1 thread, 2 threads (the GIL lets one run's Python execute at a time) and 2 processes (`--processes 2`).
# Usage: benchmarks/python_bridge.sh [GLIMPSE]   (default build/bin/glimpse)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
glimpse=${1:-$root/build/bin/glimpse}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
learner_entry() { echo "{\"name\": \"$1\"${2:+, \"params\": $2}}"; }
protocol() {  # name, seeds, learner entries...
  local name=$1 seeds=$2
  shift 2
  local entries
  entries=$(IFS=,; echo "$*")
  cat > "$name.json" <<JSON
{"name": "$name",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 25000, "sigma": 1.0}}],
 "oracle": {"name": "full"}, "learners": [$entries], "metrics": [{"name": "online_accuracy"}],
 "trace": "curves", "seeds": $seeds}
JSON
}
rate() {  # the summary's rounds/s of a learner label
  "$glimpse" summary "$1" | awk -v l="$2" '$2 == l {print $(NF - 1)}'
}
empty="python:$root/benchmarks/python/empty_learner.py:Empty"
numpy_perceptron="python:$root/examples/python/perceptron.py:Perceptron"
protocol rates 2 "$(learner_entry "$empty")" "$(learner_entry "$numpy_perceptron")" \
  "$(learner_entry perceptron '{"precision": "double"}')"
"$glimpse" run rates.json -o rates.h5 -j 1 --quiet 2> /dev/null
echo "per-run rounds/s (100,000 rounds of d = 2, K = 4: the 2-D Gaussians; one thread):"
echo "  empty Python learner (the bridge alone): $(rate rates.h5 "$empty")"
echo "  NumPy Perceptron:                        $(rate rates.h5 "$numpy_perceptron")"
echo "  C++ perceptron (double):                 $(rate rates.h5 perceptron)"

protocol sweep 8 "$(learner_entry "$numpy_perceptron")"
seconds() { /usr/bin/time -f %e "$@" 2>&1 > /dev/null | tail -1; }
one=$(seconds "$glimpse" run sweep.json -o j1.h5 -j 1 --quiet)
two=$(seconds "$glimpse" run sweep.json -o j2.h5 -j 2 --quiet)
processes=$(seconds "$glimpse" run sweep.json -o p2.h5 --processes 2 --quiet)
echo "a sweep of 8 NumPy Perceptron runs, whole process:"
awk -v one="$one" -v two="$two" -v p="$processes" 'BEGIN {
  printf "  1 thread: %.2f s; 2 threads: %.2f s (%.2fx); 2 processes (--processes 2): %.2f s (%.2fx)\n",
         one, two, one / two, p, one / p}'
