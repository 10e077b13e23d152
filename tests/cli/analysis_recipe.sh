#!/usr/bin/env bash
# docs/analysis.md as a user follows it: the Python and R recipes (the blocks after "<!-- recipe: python -->" and
# "<!-- recipe: r -->") run on a quickstart trace and print the same numbers, and `glimpse report --out` writes the
# tables and figures it describes, with one shaded band (matplotlib's PolyCollection) per learner in each
# learning-curve SVG.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$GLIMPSE" run --quiet --output runs/quickstart.h5

recipe() {  # the fenced block of language $2 after the marker "<!-- recipe: $1 -->"
  awk -v marker="<!-- recipe: $1 -->" -v fence="^\`\`\`$2\$" '$0 == marker {on = 1; next}
       on && $0 ~ fence {inside = 1; next} inside && /^```/ {exit} inside {print}' "$SOURCE_DIR/docs/analysis.md"
}
recipe python python > recipe.py
[ -s recipe.py ] || fail "no Python recipe found in docs/analysis.md"
/usr/bin/python3 recipe.py > recipe.out || fail "the Python recipe failed"
grep -q "^selection: max online_accuracy" recipe.out || fail "recipe output: $(cat recipe.out)"
# 2 learners x their grid points, each with 5 seeds: every row of the table counts 5 runs
rows=$(awk '$NF == 5' recipe.out | wc -l)
[ "$rows" -ge 2 ] || fail "expected per-grid-point rows of 5 runs, got: $(cat recipe.out)"

recipe r r > recipe.R
[ -s recipe.R ] || fail "no R recipe found in docs/analysis.md"
command -v Rscript > /dev/null || fail "Rscript not found: tools/install-deps.sh installs r-cran-hdf5r"
Rscript recipe.R > recipe_r.out 2> recipe_r.err || fail "the R recipe failed: $(cat recipe_r.err)"
grep -q "^selection: max online_accuracy" recipe_r.out || fail "R recipe output: $(cat recipe_r.out)"
# The same run's accuracy and the same chosen curves' last values as the Python recipe printed.
python_run=$(grep "^run 000000:" recipe.out | awk '{print $NF}')
r_run=$(grep "^run 000000:" recipe_r.out | awk '{print $NF}')
[ -n "$python_run" ] && [ "$python_run" = "$r_run" ] || fail "run 000000 accuracy: Python $python_run, R $r_run"
# Any trace the schema allows: one that keeps only curves, and one whose first run failed (it keeps no rounds).
for case in curves failed_first; do
  mkdir -p "$case/runs"
  if [ "$case" = curves ]; then
    /usr/bin/python3 -c "import json, sys; p = json.load(open(sys.argv[1])); p['trace'] = 'curves'; json.dump(p, open(sys.argv[2], 'w'))" \
      "$SOURCE_DIR/protocols/quickstart.json" "$case/p.json"
    expected="no complete run kept its rounds"
  else
    cat > "$case/p.json" << 'JSON'
{"datasets": [{"source": "gaussians", "params": {"n_per_class": 50}}], "oracle": {"name": "full"},
 "learners": [{"name": "misbehaving", "params": {"fault": "throw"}}, {"name": "perceptron"}],
 "metrics": [{"name": "online_accuracy"}, {"name": "windowed_accuracy", "params": {"window": 20}}], "seeds": 2}
JSON
    expected="run 000002:"
  fi
  (cd "$case" && GLIMPSE_PLUGIN_PATH="$FIXTURE_DIR/misbehaving" "$GLIMPSE" run p.json -o runs/quickstart.h5 --quiet 2> run.log || true)
  (cd "$case" && /usr/bin/python3 ../recipe.py > python.out 2> python.err) || fail "Python recipe on a $case trace: $(cat "$case/python.err")"
  grep -q "^$expected" "$case/python.out" || fail "Python recipe on a $case trace: $(cat "$case/python.out")"
  (cd "$case" && Rscript ../recipe.R > r.out 2> r.err) || fail "R recipe on a $case trace: $(cat "$case/r.err")"
  grep -q "^$expected" "$case/r.out" || fail "R recipe on a $case trace: $(cat "$case/r.out")"
done
python_last=$(awk '/^perceptron|^spa/ {print $1, $2}' recipe.out)
r_last=$(awk '$1 == "perceptron" {getline v; split(v, a); print "perceptron", a[1]; print "spa", a[2]}' recipe_r.out)
[ "$python_last" = "$r_last" ] || fail "chosen curves' last values: Python [$python_last], R [$r_last]"
r_means=$(awk '/online_accuracy.mean/ {on = 1; next} on && NF == 4 {printf "%.4f\n", $2}' recipe_r.out)
python_means=$(awk '$NF == 5 {printf "%.4f\n", $(NF - 2)}' recipe.out)
[ -n "$r_means" ] && [ "$r_means" = "$python_means" ] || fail "grid-point means: Python [$python_means], R [$r_means]"

"$GLIMPSE" report runs/quickstart.h5 --out report > table.md 2> report.log || fail "report: $(cat report.log)"
for f in report.md report.tex report.csv curves_gaussians_windowed_accuracy.svg curves_gaussians_windowed_accuracy.png \
         curves_gaussians_online_accuracy.svg; do
  [ -s "report/$f" ] || fail "report/$f missing; written: $(ls report)"
done
cmp -s table.md report/report.md || fail "the table on standard output differs from report.md"
bands=$(grep -c '<g id="PolyCollection_' report/curves_gaussians_windowed_accuracy.svg)
[ "$bands" -eq 2 ] || fail "expected 2 bands (perceptron, spa) in the windowed_accuracy figure, got $bands"
grep -q '^| gaussians | \*\*' report/report.md || fail "no best cell in bold: $(cat report/report.md)"
echo "ok ($bands bands)"
