#!/usr/bin/env bash
# A small run's whole process (issue #57): one banditron run over vehicle's 846 rows, curves only, one thread, as
# benchmarks/compare_vw.sh times glimpse beside VW, where start-up is most of the time. Runs it REPEATS times with the
# plugin index (only the libraries the protocol names are loaded) and without it (GLIMPSE_PLUGIN_INDEX=off: every
# plugin library loaded at start, as before the index), alternating, and prints each configuration's median; with a
# second binary OTHER, that binary's too (with an index of its own, and with it off), alternating with the others,
# for a before/after in one run (OTHER is split into words, so it may start with `env LD_LIBRARY_PATH=...`; GLIMPSE is
# then started through env too, so that both pay for that one exec).
#   benchmarks/start_up.sh [REPEATS] [GLIMPSE] [OTHER]     (needs: glimpse datasets install vehicle)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repeats=${1:-21}
glimpse=$(realpath "${2:-$here/../build/bin/glimpse}")
other=${3:-}
launcher=()
[[ "$other" == env\ * ]] && launcher=(env)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/protocol.json" << 'EOF'
{"name": "start_up", "datasets": [{"name": "vehicle"}], "order": "file", "oracle": {"name": "bandit"},
 "learners": [{"name": "banditron", "params": {"gamma": 0.2}}],
 "metrics": [{"name": "online_accuracy", "params": {"of": "proposed", "record_every": 0}}],
 "trace": "curves", "seeds": 1}
EOF
export GLIMPSE_PLUGIN_INDEX="$work/plugin-index"
one() {  # one run, its wall seconds
  local start end
  start=$(date +%s%N)
  "$@" run "$work/protocol.json" -o "$work/out.h5" --quiet --force -j 1 > /dev/null 2> "$work/run.log" ||
    { cat "$work/run.log" >&2; exit 1; }
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000 ))"
}
one "${launcher[@]}" "$glimpse" > /dev/null  # learns the index, and warms the page cache
# shellcheck disable=SC2086  # OTHER is a command line
[ -z "$other" ] || GLIMPSE_PLUGIN_INDEX="$work/plugin-index-other" one $other > /dev/null
for ((i = 0; i < repeats; ++i)); do
  one "${launcher[@]}" "$glimpse" >> "$work/index"
  GLIMPSE_PLUGIN_INDEX=off one "${launcher[@]}" "$glimpse" >> "$work/all"
  # shellcheck disable=SC2086  # OTHER is a command line
  [ -z "$other" ] || GLIMPSE_PLUGIN_INDEX=off one $other >> "$work/other"
  # shellcheck disable=SC2086
  [ -z "$other" ] || GLIMPSE_PLUGIN_INDEX="$work/plugin-index-other" one $other >> "$work/other_index"
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "whole process, median of $repeats ($(nproc) cores), $glimpse:"
echo "  plugin index (the libraries the protocol names): $(median "$work/index") us"
echo "  every plugin library loaded at start (GLIMPSE_PLUGIN_INDEX=off): $(median "$work/all") us"
[ -z "$other" ] || echo "  $other, its plugin index: $(median "$work/other_index") us"
[ -z "$other" ] || echo "  $other, every library at start: $(median "$work/other") us"
