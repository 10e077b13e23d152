#!/usr/bin/env bash
# benchmarks/compare_vw.sh on a tiny dataset: without VW it says so and prints glimpse's side; with a stand-in
# `vw` (which checks the file it is given: labels 1..K, features named as strings, read through a cache) the VW
# rows, the accuracy gaps and the speed ratios appear.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
mkdir -p "$work/data" "$work/bin"
/usr/bin/python3 - "$work/data/tiny.h5" << 'PY'
import sys, h5py, numpy as np
rng = np.random.default_rng(3)
y = np.arange(60) % 3 + 1
x = rng.normal(size=(60, 4)).astype(np.float32) + y[:, None]
with h5py.File(sys.argv[1], "w") as f:
    f["X"] = x
    f["y"] = y.astype(np.int32)
    f.attrs["K"] = 3
    f.attrs["d"] = 4
PY
export GLIMPSE_DATA="$work/data" REPEATS=2

PATH=/usr/bin:/bin VW= "$SOURCE_DIR/benchmarks/compare_vw.sh" tiny > without.txt
grep -q "skipping VW" without.txt || fail "no skip message: $(cat without.txt)"
for learner in cspa banditron bpa confidit "spa \\(full labels\\)"; do
  grep -qE "^tiny +glimpse $learner +[0-9.]+% +[0-9]+ +- +-$" without.txt || fail "no glimpse $learner row: $(cat without.txt)"
done

cat > "$work/bin/vw" << 'SH'
#!/usr/bin/env bash
# Stand-in for Vowpal Wabbit: refuses input the comparison must never write, then reports a fixed loss.
data="" cache=""
while [ $# -gt 0 ]; do
  case $1 in -d) data=$2; shift ;; --cache_file) cache=$2; shift ;; esac
  shift
done
[ -n "$cache" ] || { echo "no --cache_file" >&2; exit 1; }
grep -qvE '^[1-3] \| (f[0-9]+:[-0-9.e]+ ?)+$' "$data" && { echo "malformed line in $data" >&2; exit 1; }
echo "average loss = 0.250000" >&2
SH
chmod +x "$work/bin/vw"
VW="$work/bin/vw" "$SOURCE_DIR/benchmarks/compare_vw.sh" tiny > with.txt
for options in "--cbify 3" "--cbify 3 --cb_explore_adf --squarecb" "--oaa 3"; do
  grep -qE "^tiny +vw $options +75\.0% +[0-9]+ +\+0\.0 pt +[0-9.]+x$" with.txt || fail "no row for vw $options: $(cat with.txt)"
done
grep -qE "^tiny +glimpse cspa +[0-9.]+% +[0-9]+ +[-+][0-9.]+ pt +[0-9.]+x$" with.txt || fail "no ratios: $(cat with.txt)"

# TRANSFORMS reaches glimpse's protocol: a valid list runs, an unknown transform is glimpse's error.
PATH=/usr/bin:/bin VW= TRANSFORMS='[{"name": "bias", "params": {"value": 0.5}}]' \
  "$SOURCE_DIR/benchmarks/compare_vw.sh" tiny > transformed.txt
grep -qE "^tiny +glimpse cspa +[0-9.]+% +[0-9]+ +- +-$" transformed.txt || fail "no cspa row with TRANSFORMS: $(cat transformed.txt)"
if PATH=/usr/bin:/bin VW= TRANSFORMS='[{"name": "no_such_transform"}]' "$SOURCE_DIR/benchmarks/compare_vw.sh" tiny \
  > unknown.txt 2>&1; then
  fail "an unknown transform did not fail: $(cat unknown.txt)"
fi
grep -q "no_such_transform" unknown.txt || fail "the error does not name the transform: $(cat unknown.txt)"
