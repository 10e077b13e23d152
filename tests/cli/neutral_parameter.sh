#!/usr/bin/env bash
# Declaring a new parameter whose default keeps a learner's behaviour leaves every trace identical: the learner's
# random stream is keyed by the parameters that differ from their defaults, not by the printed declaration. The same
# protocol runs with fixture_random built without `shift` and with it (default 0), and with "shift": 0 written out;
# a different shift does change the runs (so the comparison can fail).
set -euo pipefail
source "$SOURCE_DIR/tests/cli/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
protocol() {  # protocol PARAMS: the protocol, with the learner's params
  cat > p.json << JSON
{"name": "neutral", "datasets": [{"name": "g", "source": "gaussians", "params": {"n_per_class": 50, "seed": 3}}],
 "oracle": {"name": "bandit"}, "learners": [{"name": "fixture_random", "params": $1, "grid": {"epsilon": [0.1, 0.4]}}],
 "metrics": [{"name": "online_accuracy"}], "seeds": 3, "trace": "rounds"}
JSON
}
protocol '{}'
GLIMPSE_PLUGIN_PATH="$FIXTURE_DIR/random_0" "$GLIMPSE" run p.json -o before.h5 -q
GLIMPSE_PLUGIN_PATH="$FIXTURE_DIR/random_1" "$GLIMPSE" describe fixture_random | grep -q "^shift "
GLIMPSE_PLUGIN_PATH="$FIXTURE_DIR/random_1" "$GLIMPSE" run p.json -o after.h5 -q
same_runs before.h5 after.h5 6
protocol '{"shift": 0}'
GLIMPSE_PLUGIN_PATH="$FIXTURE_DIR/random_1" "$GLIMPSE" run p.json -o written_out.h5 -q
same_runs before.h5 written_out.h5 6
protocol '{"shift": 1}'
GLIMPSE_PLUGIN_PATH="$FIXTURE_DIR/random_1" "$GLIMPSE" run p.json -o shifted.h5 -q
if (same_runs before.h5 shifted.h5 6) > /dev/null; then fail "shift 1 gave the same runs"; fi
echo "1 passed, 0 failed"
