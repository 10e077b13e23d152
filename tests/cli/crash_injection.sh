#!/usr/bin/env bash
# Crash injection: SIGKILL a sweep at 20 random moments (while runs compute, while runs are appended to the parts
# log, while the output is assembled). After every kill the output and its parts must open, every run held there
# must equal the uninterrupted run's, and the final rerun must complete the sweep with identical results.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > sweep.json <<'JSON'
{"name": "crashy",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 30000, "sigma": 0.3}},
              {"name": "tiny", "source": "gaussians", "params": {"n_per_class": 100, "sigma": 0.5}}],
 "oracle": {"name": "bandit"},
 "learners": [{"name": "cspa", "grid": {"beta": [0.05, 0.3]}}, {"name": "banditron"}],
 "metrics": [{"name": "online_accuracy"}, {"name": "windowed_accuracy", "params": {"window": 500}}],
 "seeds": 6}
JSON
runs=36
"$GLIMPSE" run sweep.json -o reference.h5 --quiet -j 2
RANDOM=${GLIMPSE_SEED:-7}  # the kill moments are reproducible
landed=0 finished_sweeps=0 attempts=0
while [ "$landed" -lt 20 ]; do
  attempts=$((attempts + 1))
  [ "$attempts" -le 200 ] || fail "only $landed of 20 kills landed in 200 attempts"
  "$GLIMPSE" run sweep.json -o crashy.h5 --quiet -j 2 2> /dev/null &
  pid=$!
  sleep "0.$(printf "%03d" $((RANDOM % 700)))"  # the whole sweep takes about 0.8 s
  if kill -9 "$pid" 2> /dev/null; then landed=$((landed + 1)); fi
  wait "$pid" 2> /dev/null || true
  # Everything written so far opens (status reads the output and every part) and holds the reference's runs.
  set +e
  "$GLIMPSE" status sweep.json crashy.h5 > status.txt 2>&1
  status=$?
  set -e
  [ "$status" = 0 ] || [ "$status" = 3 ] || { cat status.txt; fail "what kill $landed left cannot be read"; }
  # The output and the logs' runs together (merge reads both; it needs an assembled file for the protocol).
  if [ -e crashy.h5 ]; then
    set +e
    "$GLIMPSE" merge merged.h5 crashy.h5 > merge.txt 2>&1
    merged=$?
    set -e
    [ "$merged" = 0 ] || [ "$merged" = 3 ] || { cat merge.txt; fail "what kill $landed left cannot be merged"; }
    same_present_runs reference.h5 merged.h5 > /dev/null
    rm -f merged.h5
  fi
  if [ "$status" = 0 ] && [ ! -d crashy.h5.parts ]; then  # the sweep ended before the kill: check it, start over
    finished_sweeps=$((finished_sweeps + 1))  # (its runs were all compared above)
    rm -rf crashy.h5 crashy.h5.parts
  fi
done
"$GLIMPSE" run sweep.json -o crashy.h5 --quiet -j 2 2> /dev/null
same_runs reference.h5 crashy.h5 "$runs"
echo "$landed kills landed ($attempts attempts, $finished_sweeps sweeps completed between kills); final rerun identical"
echo "1 passed, 0 failed"
