#!/usr/bin/env bash
# Learners written in Python (docs/python.md), as a user runs them: examples/python/perceptron.py and cspa.py
# give the same traces as the C++ perceptron and cspa in double precision on the same protocol, on dense and
# sparse rows (every round of every run), whatever the thread count or the number of processes sharing the sweep;
# a declared parameter is described, validated and gridded like a C++ plugin's; a learner that raises fails its
# own runs only, with the Python error and line in the record; a killed helper process loses only its run in
# flight; bad names say what is wrong.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
[ -f "$BUILD_DIR/lib/glimpse/plugins/python.so" ] || { echo "python plugin not built (pybind11-dev)"; exit 77; }
perceptron="python:$SOURCE_DIR/examples/python/perceptron.py:Perceptron"
cspa="python:$SOURCE_DIR/examples/python/cspa.py:Cspa"

"$GLIMPSE" describe "$perceptron" > describe.txt
grep -q "^$perceptron (learner, version source [0-9a-f]\{12\}, arithmetic revision 1)" describe.txt &&
  grep -qE "^eta +real +1 +a number > 0 +step size" describe.txt || fail "describe: $(cat describe.txt)"

cat > same.json <<JSON
{"name": "same",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 400, "sigma": 0.8}}],
 "oracle": {"name": "full"},
 "learners": [{"name": "$perceptron", "grid": {"eta": [0.3, 1]}},
              {"name": "perceptron", "params": {"precision": "double"}, "grid": {"eta": [0.3, 1]}}],
 "metrics": [{"name": "online_accuracy"}, {"name": "mistakes"}],
 "seeds": 3}
JSON
cat > bandit.json <<JSON
{"name": "bandit",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 400, "sigma": 0.5}}],
 "oracle": {"name": "bandit"},
 "learners": [{"name": "$cspa", "grid": {"beta": [0.05, 0.3]}},
              {"name": "cspa", "params": {"precision": "double"}, "grid": {"beta": [0.05, 0.3]}}],
 "metrics": [{"name": "online_accuracy"}, {"name": "mistakes"}],
 "seeds": 3}
JSON
# Sparse rows (a LIBSVM file stored sparse) reach Python as (indices, values).
/usr/bin/python3 - <<'PY'
import random
random.seed(5)
with open("sparse.libsvm", "w") as f:
    for i in range(600):
        label = i % 3 + 1
        features = sorted(random.sample(range(1, 201), 8) + [label])
        f.write(f"{label} " + " ".join(f"{j}:{random.uniform(-1, 1) + (0.4 if j == label else 0):.4f}"
                                       for j in sorted(set(features))) + "\n")
PY
cat > sparse.json <<JSON
{"name": "sparse",
 "datasets": [{"source": "libsvm", "params": {"path": "sparse.libsvm", "layout": "sparse"}}],
 "oracle": {"name": "full"},
 "learners": [{"name": "$perceptron", "grid": {"eta": [0.3, 1]}},
              {"name": "perceptron", "params": {"precision": "double"}, "grid": {"eta": [0.3, 1]}}],
 "metrics": [{"name": "online_accuracy"}, {"name": "mistakes"}],
 "passes": 2,
 "seeds": 3}
JSON
"$GLIMPSE" run sparse.json -o sparse.h5 -j 2 --quiet 2> /dev/null
"$GLIMPSE" run same.json -o two.h5 -j 2 --quiet 2> /dev/null
"$GLIMPSE" run same.json -o one.h5 -j 1 --quiet 2> /dev/null
"$GLIMPSE" run bandit.json -o bandit.h5 -j 2 --quiet 2> /dev/null
# Two processes share the sweep (--processes): the same runs, bit for bit, in one file.
"$GLIMPSE" run same.json -o processes.h5 --processes 2 --quiet 2> processes.txt
grep -q "processes.h5: 12 of 12 runs complete (12 this time" processes.txt || fail "--processes: $(cat processes.txt)"
[ ! -e processes.h5.parts ] || fail "--processes left its parts folder"
/usr/bin/python3 - <<'PY' || fail "the Python perceptron's trace differs from the C++ perceptron's"
import json
import h5py
import numpy as np
for path, parameter in (("one.h5", "eta"), ("two.h5", "eta"), ("bandit.h5", "beta"), ("sparse.h5", "eta")):
    with h5py.File(path, "r") as f:
        pairs = {}
        for run in f["runs"].values():
            key = (json.loads(run.attrs["params"])[parameter], int(run.attrs["seed"]))
            pairs.setdefault(key, []).append(run)
        assert len(pairs) == 6 and all(len(p) == 2 for p in pairs.values()), pairs
        for key, (a, b) in pairs.items():
            for column in ("row", "y", "predicted", "proposed", "correct"):
                if not np.array_equal(a["rounds"][column][()], b["rounds"][column][()]):
                    raise SystemExit(f"{path}: {parameter}, seed {key}: {column} differs")
            assert a["summary"].attrs["mistakes"] == b["summary"].attrs["mistakes"]
with h5py.File("one.h5", "r") as one:  # -j 1, -j 2 and --processes 2 alike
    for other in ("two.h5", "processes.h5"):
        with h5py.File(other, "r") as f:
            assert sorted(f["runs"]) == sorted(one["runs"]), other
            for run in one["runs"]:
                for column in ("row", "predicted", "proposed"):
                    assert np.array_equal(one["runs"][run]["rounds"][column][()], f["runs"][run]["rounds"][column][()]), (other, run)
PY

# A learner that raises in learn() once eta is 0.5: those runs fail with the error and its line, the others finish.
cat > flaky.py <<'PY'
import numpy as np

class Flaky:
    """Fails on demand."""
    accepts = ["label"]
    params = {"eta": {"type": "real", "default": 1.0, "above": 0}}

    def __init__(self, params):
        self.eta = params["eta"]

    def reset(self, n, d, K, seed):
        self.K, self.rounds = K, 0

    def predict(self, x):
        return np.zeros(self.K)

    def learn(self, x, predicted, proposed, feedback):
        self.rounds += 1
        if self.eta == 0.5 and self.rounds == 7:
            raise ValueError("bad step at round %d" % self.rounds)
PY
cat > flaky.json <<'JSON'
{"name": "flaky",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 50}}],
 "oracle": {"name": "full"},
 "learners": [{"name": "python:flaky.py:Flaky", "grid": {"eta": [0.5, 1]}}],
 "metrics": [{"name": "online_accuracy"}],
 "seeds": 2}
JSON
set +e
"$GLIMPSE" run flaky.json -o flaky.h5 -j 2 --quiet 2> flaky.txt
status=$?
set -e
[ "$status" = 3 ] || fail "exit status $status, expected 3 (some runs failed): $(cat flaky.txt)"
[ "$(grep -c "failed: round 7: python: learn: ValueError: bad step at round 7 (at $work/flaky.py:20 in learn)" flaky.txt)" = 2 ] ||
  fail "messages: $(cat flaky.txt)"
status_text=$("$GLIMPSE" status flaky.json flaky.h5 || true)  # exit status 3: some runs failed
grep -q "4 runs: 2 complete, 2 failed" <<< "$status_text" || fail "status: $status_text"
# The same with two processes: the helper's failures reach the coordinator's report and exit status.
set +e
"$GLIMPSE" run flaky.json -o flaky2.h5 --processes 2 --quiet 2> flaky2.txt
status=$?
set -e
[ "$status" = 3 ] && grep -q "flaky2.h5: 2 of 4 runs complete" flaky2.txt &&
  grep -q "^2 run(s) failed" flaky2.txt || fail "--processes with failures: status $status, $(cat flaky2.txt)"

# A helper process killed mid-sweep: the coordinator says so and finishes the other runs, the output holds every
# run finished by either process, and the rerun does only what is missing.
cat > long.json <<JSON
{"name": "long", "datasets": [{"source": "gaussians", "params": {"n_per_class": 25000}}], "oracle": {"name": "full"},
 "learners": [{"name": "$perceptron", "grid": {"eta": [0.5, 1]}}], "metrics": [{"name": "online_accuracy"}],
 "trace": "curves", "seeds": 4}
JSON
"$GLIMPSE" run long.json -o long.h5 --processes 2 --quiet 2> long.txt &
coordinator=$!
# Stopped once a run is finished and the helper has begun a run of its own (its parts log is made by its first run's
# start record): killed while still starting (Python's start is slow on a busy machine), it held no run, the
# coordinator did all 8 and the sweep rightly ended complete (exit 0), which is not the case under test. Stopped, not
# merely polled, so the sweep cannot finish between the test seeing it part-way and the kill.
helper=""
helper_has_begun() {  # looks for the helper (by its environment) only until it is found: one helper per sweep
  local p
  if [ -z "$helper" ]; then
    for p in $(pgrep -f "glimpse run long.json -o long.h5"); do
      if tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -q "^GLIMPSE_PROCESS_HELPER="; then helper=$p; fi
    done
  fi
  [ -n "$helper" ] && parts_reached long.h5.parts 1 && ls long.h5.parts/"$helper"-*.log > /dev/null 2>&1
}
stop_when "glimpse run long.json -o long.h5" helper_has_begun ||
  fail "no helper process that had begun a run, with one run finished, within 60 s"
kill -9 "$helper" || fail "helper process $helper ended before it could be killed"
resume_matching "glimpse run long.json -o long.h5"
set +e; wait "$coordinator"; status=$?; set -e
[ "$status" = 130 ] && grep -q "long.h5: helper process $helper ended without reporting" long.txt ||
  fail "killed helper: status $status, $(cat long.txt)"
complete=$(sed -n 's/^long.h5: \([0-9]*\) of 8 runs complete.*/\1/p' long.txt)
[ -n "$complete" ] && [ "$complete" -lt 8 ] || fail "killed helper: $(cat long.txt)"
"$GLIMPSE" run long.json -o long.h5 --processes 2 --quiet 2> long_rerun.txt ||
  fail "rerun: $(cat long_rerun.txt)"
grep -q "long.h5: 8 of 8 runs complete ($((8 - complete)) this time" long_rerun.txt ||
  fail "the rerun did not do exactly the $((8 - complete)) missing runs: $(cat long_rerun.txt)"

# Bad names and values, refused before any run with what is wrong.
expect_error() {  # expected text, then the protocol's learner entry
  local expected=$1
  printf '{"name": "bad", "datasets": [{"source": "gaussians"}], "oracle": {"name": "full"}, "learners": [%s], "metrics": [{"name": "online_accuracy"}], "seeds": 1}' "$2" > bad.json
  if "$GLIMPSE" run bad.json -o bad.h5 --quiet 2> bad.txt; then fail "accepted: $2"; fi
  grep -qF -- "$expected" bad.txt || fail "expected '$expected', got: $(cat bad.txt)"
}
expect_error "learners[0].params.eta: expected a number > 0, got 0" "{\"name\": \"$perceptron\", \"params\": {\"eta\": 0}}"
expect_error "learners[0].name: python:flaky.py:Missing: no such member of the plugin family 'python': flaky.py: defines no class 'Missing'" \
  '{"name": "python:flaky.py:Missing"}'
expect_error "expected FILE.py:CLASS after 'python:', got 'flaky.py'" '{"name": "python:flaky.py"}'
expect_error "No such file or directory" '{"name": "python:nowhere.py:X"}'
echo "1 passed, 0 failed"
