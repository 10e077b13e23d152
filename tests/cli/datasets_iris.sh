#!/usr/bin/env bash
# A real conversion: install iris from Debian's weka package (downloaded, not installed), check it against
# the catalog, list it, run a protocol on it, and see a second install do nothing.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export GLIMPSE_DATA="$work/cache"
cd "$work"
"$GLIMPSE" datasets install iris 2> install.txt || { cat install.txt; exit 1; }
grep -q "iris: 150 rows, 4 features, 3 classes; checked" install.txt
"$GLIMPSE" datasets list | grep -E "^iris +yes +150 +4 +3 +weka" > /dev/null
cat > p.json <<'JSON'
{"datasets": [{"name": "iris", "transforms": [{"name": "minmax_scale"}, {"name": "l2_normalize"}]}],
 "oracle": {"name": "full"}, "learners": [{"name": "spa"}], "metrics": [{"name": "online_accuracy"}], "seeds": 3}
JSON
"$GLIMPSE" run p.json -o p.h5 --quiet
"$GLIMPSE" summary p.h5 | grep -E "^iris +spa" > /dev/null
"$GLIMPSE" datasets install iris 2>&1 | grep "iris: already installed" > /dev/null
set +e; out=$("$GLIMPSE" datasets install nosuch 2>&1); status=$?; set -e
[ "$status" = 2 ] && grep -q "unknown dataset 'nosuch'; the catalog has: vehicle" <<< "$out"
echo "1 passed, 0 failed"
