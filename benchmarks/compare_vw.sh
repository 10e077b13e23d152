#!/usr/bin/env bash
# glimpse next to Vowpal Wabbit on the same file and row order (issue #13): accuracy of the proposed labels over
# one pass and rounds per second, side by side, with glimpse/VW ratios.
#
#   benchmarks/compare_vw.sh [DATASET...]      default: vehicle satimage shuttle segment fashion_mnist
#
# Each installed dataset (glimpse datasets install NAME) is written once by vw_input.py: features min-max
# scaled to [-1, 1], rows unit L2, rows shuffled with seed 1, features named f1, f2, ... (never bare integers:
# VW's cbify merges integer-named features into shared weights). VW reads that file through its binary cache
# (built by an untimed first run) with --cbify K, --cbify K --cb_explore_adf --squarecb, and --oaa K; glimpse
# reads the same file with the vw source in file order, as a bandit problem for cspa, banditron, bpa and
# confidit (each over its grid, best point reported, as VW's best setting is) and with full labels for spa.
# Without a vw binary (VW=/path/to/vw or vw on PATH) the VW columns are skipped with a message and glimpse's
# side is still printed. Environment: GLIMPSE (default build/bin/glimpse), REPEATS (VW runs timed; median, 5),
# GLIMPSE_DATA (dataset cache), BIAS=1 gives glimpse's learners a constant feature (the bias transform; VW
# adds one by default), TRANSFORMS='[...]' any list of transforms for glimpse's side instead (a protocol's JSON,
# e.g. '[{"name": "rbf_support", "params": {"size": 1000, "g": 0.05}}]' for a kernel map), KEEP=1 keeps the
# work folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
glimpse=$(realpath "${GLIMPSE:-$here/../build/bin/glimpse}")
python=/usr/bin/python3
repeats=${REPEATS:-5}
data=${GLIMPSE_DATA:-$HOME/.cache/glimpse/datasets}
vw=${VW:-$(command -v vw || true)}
if [ -z "$vw" ]; then
  echo "compare_vw.sh: no Vowpal Wabbit binary (vw on PATH or VW=...): skipping VW, printing glimpse's side only"
fi
datasets=("$@")
[ ${#datasets[@]} -gt 0 ] || datasets=(vehicle satimage shuttle segment fashion_mnist)
work=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] && echo "work folder: $work" || trap 'rm -rf "$work"' EXIT
transforms=${TRANSFORMS:-}
[ -z "$transforms" ] && [ "${BIAS:-0}" = 1 ] && transforms='[{"name": "bias"}]'

calc() { awk -v OFMT=%.10g "BEGIN { print $1 }"; }  # calc EXPRESSION: floating-point arithmetic and comparisons (1/0)
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
seconds_of() {  # seconds_of COMMAND...: wall time of one run, output discarded (stderr kept in $work/last.err)
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2> "$work/last.err"
  end=$(date +%s.%N)
  calc "$end - $start"
}

printf "%-14s %-40s %9s %12s %14s %14s\n" dataset "tool: learner" accuracy "rounds/s" "acc. - VW best" "speed / VW"
for name in "${datasets[@]}"; do
  if [ ! -f "$data/$name.h5" ]; then
    echo "$name: not installed (glimpse datasets install $name): skipped"
    continue
  fi
  read -r n d k < <("$python" "$here/vw_input.py" "$data/$name.h5" "$work/$name.vw")

  # VW: accuracy = 1 - average loss (cbify's loss is 1 for a wrong proposed label; oaa's the progressive error).
  vw_rows=()
  vw_best_accuracy=""
  vw_best_rate=""
  if [ -n "$vw" ]; then
    for options in "--cbify $k" "--cbify $k --cb_explore_adf --squarecb" "--oaa $k"; do
      # shellcheck disable=SC2086 # options are words
      "$vw" -d "$work/$name.vw" --cache_file "$work/$name.$k.cache" $options --quiet > /dev/null 2>&1 || true
      times=()
      for _ in $(seq "$repeats"); do
        # shellcheck disable=SC2086
        times+=("$(seconds_of "$vw" -d "$work/$name.vw" --cache_file "$work/$name.$k.cache" $options)")
      done
      loss=$(awk -F= '/average loss/ { gsub(/ /, "", $2); print $2 }' "$work/last.err")
      if [ -z "$loss" ]; then
        echo "$name: vw $options printed no 'average loss':"
        cat "$work/last.err"
        continue
      fi
      accuracy=$(calc "1 - $loss")
      rate=$(calc "$n / $(printf '%s\n' "${times[@]}" | median)")
      vw_rows+=("vw $options|$accuracy|$rate")
      if [[ $options == --cbify* ]] && { [ -z "$vw_best_accuracy" ] || (($(calc "$accuracy > $vw_best_accuracy"))); }; then
        vw_best_accuracy=$accuracy
      fi
      if [ -z "$vw_best_rate" ] || (($(calc "$rate > $vw_best_rate"))); then vw_best_rate=$rate; fi
    done
  fi

  # glimpse: one protocol, the same file, file order, one seed; per learner the best grid point.
  cat > "$work/$name.json" << JSON
{
  "name": "compare_vw_$name",
  "datasets": [{"name": "$name", "source": "vw", "params": {"path": "$work/$name.vw", "num_classes": $k}
                $([ -n "$transforms" ] && echo ", \"transforms\": $transforms")}],
  "order": "file",
  "oracle": {"name": "bandit"},
  "learners": [
    {"name": "cspa", "grid": {"beta": [0.1, 0.2, 0.3, 0.5, 0.7, 0.9, "1/(2*(K-1))"]}},
    {"name": "banditron", "grid": {"gamma": [0.001, 0.01, 0.05, 0.1, 0.2, 0.4]}},
    {"name": "bpa", "grid": {"gamma": [0.001, 0.01, 0.05, 0.1, 0.2, 0.4]}},
    {"name": "confidit", "grid": {"eta": [0.0001, 0.001, 0.01, 0.1, 1, 10, 100, 1000, 10000, 100000]}},
    {"name": "spa", "oracle": {"name": "full"}, "as": "spa (full labels)"}
  ],
  "metrics": [{"name": "online_accuracy", "params": {"of": "proposed", "record_every": 0}}],
  "trace": "curves",
  "seeds": 1,
  "selection": {"metric": "online_accuracy", "goal": "max"}
}
JSON
  "$glimpse" run "$work/$name.json" -o "$work/$name.h5" --quiet --force -j 1 > /dev/null 2> "$work/glimpse.err" ||
    { cat "$work/glimpse.err"; exit 1; }
  # Per learner label: the best run's accuracy and the rounds/s of its run (the round loop with the trace).
  mapfile -t glimpse_rows < <("$python" - "$work/$name.h5" << 'PY'
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    table = f["summary"][()]
best = {}
for row in table:
    label = row["label"].decode()
    accuracy, rate = float(row["online_accuracy"]), float(row["rounds_per_second"])
    if label not in best or accuracy > best[label][0]:
        best[label] = (accuracy, rate)
for label, (accuracy, rate) in best.items():
    print(f"glimpse {label}|{accuracy}|{rate}")
PY
)
  for row in "${vw_rows[@]}" "${glimpse_rows[@]}"; do
    IFS='|' read -r tool accuracy rate <<< "$row"
    gap="-"
    ratio="-"
    if [ -n "$vw_best_accuracy" ]; then
      gap=$(printf "%+.1f pt" "$(calc "100 * ($accuracy - $vw_best_accuracy)")")
      ratio=$(printf "%.1fx" "$(calc "$rate / $vw_best_rate")")
    fi
    printf "%-14s %-40s %8.1f%% %12.0f %14s %14s\n" "$name" "$tool" "$(calc "100 * $accuracy")" "$rate" "$gap" "$ratio"
  done
done
echo "accuracy: proposed labels over one pass; VW best = the better cbify setting; speed / VW: rounds/s over VW's fastest"
echo "setting. VW's rounds/s are whole-process (median of $repeats, from its binary cache); glimpse's are each run's"
echo "round loop as its trace file records it (rounds_per_second), excluding the text parse of the input."
