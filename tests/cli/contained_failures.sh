#!/usr/bin/env bash
# A misbehaving learner in a sweep, from the command line: a throwing run is recorded as failed (exit 3,
# listed by summary and status) while the others finish; --fail-fast stops at it; a run that crashes the
# process (SIGSEGV) is named on the rerun as the run that was in flight.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
export GLIMPSE_PLUGIN_PATH="$BUILD_DIR/tests/fixture_plugins/misbehaving"
protocol() {  # protocol FAULT: perceptron, then the fixture failing with FAULT from round 3
  cat <<JSON
{"name": "faults", "datasets": [{"source": "gaussians", "params": {"n_per_class": 50}}],
 "oracle": {"name": "full"},
 "learners": [{"name": "perceptron"}, {"name": "misbehaving", "params": {"fault": "$1", "at_round": 3}}],
 "metrics": [{"name": "online_accuracy"}], "seeds": 2}
JSON
}
expect_status() {  # expect_status WANTED COMMAND...: runs COMMAND, output in out.txt, checks its exit status
  local wanted=$1 status=0
  shift
  "$@" > out.txt 2>&1 || status=$?
  [ "$status" = "$wanted" ] || { cat out.txt; fail "'$*' exited $status, expected $wanted"; }
}
expect_text() { grep -F -- "$1" out.txt > /dev/null || { cat out.txt; fail "no '$1' in the output"; }; }

protocol throw > throw.json
expect_status 3 "$GLIMPSE" run throw.json -o throw.h5 -j 1
expect_text "run 000002 (learner 'misbehaving', dataset 'gaussians', seed 0"
expect_text "failed: round 3: the fixture throws as told"
expect_text "throw.h5: 2 of 4 runs complete, 2 failed"
expect_text "2 run(s) failed"
expect_status 0 "$GLIMPSE" summary throw.h5
expect_text "failed runs (left out above; rerunning the protocol retries them):"
expect_status 3 "$GLIMPSE" status throw.json throw.h5
expect_text "4 runs: 2 complete, 2 failed, 0 in flight, 0 missing"
expect_text "failed in round 3: round 3: the fixture throws as told"

expect_status 2 "$GLIMPSE" run throw.json -o fast.h5 -j 1 --fail-fast
expect_text "(--fail-fast: stopping the sweep)"
expect_status 0 "$GLIMPSE" summary fast.h5
expect_text "fast.h5: 1 of 4 runs complete, 1 failed"  # runs go seed by seed: 000000, then 000002 fails

protocol segfault > crash.json
status=0
"$GLIMPSE" run crash.json -o crash.h5 -j 1 --quiet > out.txt 2>&1 || status=$?
[ "$status" -ge 128 ] || { cat out.txt; fail "the crashing run did not end the process ($status)"; }
expect_status 3 "$GLIMPSE" status crash.json crash.h5
expect_text "4 runs: 1 complete, 0 failed, 1 in flight, 2 missing"
status=0
"$GLIMPSE" run crash.json -o crash.h5 -j 1 --quiet > out.txt 2>&1 || status=$?
expect_text "crash.h5: run 000002 (learner 'misbehaving', dataset 'gaussians', seed 0"
expect_text "was in flight when an earlier sweep of this output was killed or crashed"
echo "1 passed, 0 failed"
