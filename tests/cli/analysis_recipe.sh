#!/usr/bin/env bash
# docs/analysis.md as a user follows it: the Python recipe (the block after "<!-- recipe: python -->") runs on a
# quickstart trace, and `glimpse report --out` writes the tables and figures it describes, with one shaded
# band (matplotlib's PolyCollection) per learner in each learning-curve SVG.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$GLIMPSE" run --quiet --output runs/quickstart.h5

awk '/<!-- recipe: python -->/ {on = 1; next} on && /^```python/ {inside = 1; next}
     inside && /^```/ {exit} inside {print}' "$SOURCE_DIR/docs/analysis.md" > recipe.py
[ -s recipe.py ] || fail "no Python recipe found in docs/analysis.md"
/usr/bin/python3 recipe.py > recipe.out || fail "the Python recipe failed"
grep -q "^selection: max online_accuracy" recipe.out || fail "recipe output: $(cat recipe.out)"
# 2 learners x their grid points, each with 5 seeds: every row of the table counts 5 runs
rows=$(awk '$NF == 5' recipe.out | wc -l)
[ "$rows" -ge 2 ] || fail "expected per-grid-point rows of 5 runs, got: $(cat recipe.out)"

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
