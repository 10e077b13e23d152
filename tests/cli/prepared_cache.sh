#!/usr/bin/env bash
# `glimpse run` hands the core its prepared-dataset cache (framework/cli/prepared_cache.hpp): a text file parsed and
# scaled once is kept, and the next sweep maps the kept result. Shown by changing the file's contents but not its
# size or modification time, which key the entry: a sweep with the cache still sees the old rows, one without it
# the new ones. `glimpse status` (listing the runs, which prepares the datasets) keeps its preparation too.
set -euo pipefail
. "$SOURCE_DIR/tests/cli/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GLIMPSE_DATA="$work/cache" GLIMPSE_PREPARED_CACHE=always
cd "$work"
printf '1 1:4 2:1\n2 1:1 2:3\n1 1:3 2:2\n2 1:2 2:4\n' > d.txt
cat > p.json <<'JSON'
{"datasets": [{"name": "d", "source": "libsvm", "params": {"path": "d.txt"}, "transforms": [{"name": "minmax_scale"}]}],
 "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}], "metrics": [{"name": "mistakes"}], "seeds": 2}
JSON
"$GLIMPSE" run p.json -o first.h5 --quiet
entries() { find "$GLIMPSE_DATA/prepared" -name '*.h5' | wc -l; }
[ "$(entries)" = 1 ] || fail "$(entries) prepared entries after the first sweep, expected 1"
cp -p d.txt before.txt
printf '2 1:4 2:1\n1 1:1 2:3\n1 1:3 2:2\n2 1:2 2:4\n' > d.txt  # other labels, the same size
touch -r before.txt d.txt
"$GLIMPSE" run p.json -o kept.h5 --quiet
same_runs first.h5 kept.h5 2
GLIMPSE_PREPARED_CACHE=off "$GLIMPSE" run p.json -o fresh.h5 --quiet
if h5diff first.h5 fresh.h5 /runs/000000/summary /runs/000000/summary > /dev/null; then
  fail "the new labels gave the same run: the test shows nothing"
fi
rm -r "$GLIMPSE_DATA/prepared"
"$GLIMPSE" status p.json kept.h5 > status.txt
grep -q "2 complete" status.txt || { cat status.txt; fail "status"; }
[ "$(entries)" = 1 ] || fail "$(entries) prepared entries after status, expected 1"
echo "1 passed, 0 failed"
