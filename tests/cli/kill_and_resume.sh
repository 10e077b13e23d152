#!/usr/bin/env bash
# SIGKILL a sweep part-way, rerun it, and check the result equals an uninterrupted run: every run present
# once, with identical round data, curves and final metrics.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > sweep.json <<'JSON'
{"name": "killme",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 60000, "sigma": 0.3}}],
 "oracle": {"name": "full"},
 "learners": [{"name": "perceptron", "grid": {"eta": [0.1, 0.5, 1]}}, {"name": "spa"}],
 "metrics": [{"name": "online_accuracy"}, {"name": "mistakes"}],
 "seeds": 6}
JSON
"$GLIMPSE" run sweep.json -o reference.h5 --quiet -j 2 2> /dev/null
"$GLIMPSE" run sweep.json -o killed.h5 --quiet -j 2 2> /dev/null &
pid=$!
# Once some runs are finished (parts written), kill without warning.
stop_at_parts "glimpse run sweep.json -o killed.h5" killed.h5.parts 3
kill -9 "$pid" 2> /dev/null || true
wait "$pid" 2> /dev/null || true
finished=$(finished_parts killed.h5.parts)
echo "killed with $finished finished runs"
[ "$finished" -ge 1 ] && [ "$finished" -lt 24 ] || fail "the kill did not land part-way ($finished parts)"
# SIGKILL skips every clean-up: the lock file is left behind, stale. The kernel dropped its flock with the process,
# so the rerun takes it without a word.
[ -e killed.h5.lock ] || fail "expected the killed sweep's lock file to be left behind"
"$GLIMPSE" run sweep.json -o killed.h5 --quiet -j 2 2> resume.txt
grep -q "24 of 24 runs complete ($((24 - finished)) this time" resume.txt || { cat resume.txt; fail "resume did not redo exactly the missing runs"; }
same_runs reference.h5 killed.h5 24
[ ! -e killed.h5.lock ] || fail "the lock file is still there after the rerun finished"

# Ctrl-C (SIGINT): runs in flight are dropped, finished ones assembled into the output at once, exit 130.
"$GLIMPSE" run sweep.json -o interrupted.h5 --quiet -j 2 2> /dev/null &
pid=$!
stop_at_parts "glimpse run sweep.json -o interrupted.h5" interrupted.h5.parts 2
kill -INT "$pid"
resume_matching "glimpse run sweep.json -o interrupted.h5"
set +e; wait "$pid"; status=$?; set -e
[ "$status" = 130 ] || fail "SIGINT exit status $status, expected 130"
[ -f interrupted.h5 ] && [ ! -d interrupted.h5.parts ] || fail "SIGINT did not assemble the output"
"$GLIMPSE" summary interrupted.h5 | grep -E "^interrupted.h5: [0-9]+ of 24 runs complete" > /dev/null
"$GLIMPSE" run sweep.json -o interrupted.h5 --quiet -j 2 2>&1 | grep "24 of 24 runs complete" > /dev/null
echo "1 passed, 0 failed"
