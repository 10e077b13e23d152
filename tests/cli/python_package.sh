#!/usr/bin/env bash
# The `glimpse` Python package (docs/python.md), from the build tree and from a clean install prefix: glimpse.run
# runs a protocol given as a dict, and the trace it returns holds what h5py reads from the file (summary, curves,
# a run's rounds and parameters); a protocol glimpse refuses raises CalledProcessError; the generated schema twin names
# everything the writer wrote.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cmake --install "$BUILD_DIR" --prefix "$work/prefix" > install.log
check() {  # PYTHONPATH to use
  env -u GLIMPSE PYTHONPATH="$1" /usr/bin/python3 - <<'PY'  # the package finds its own glimpse
import subprocess
import h5py
import numpy as np
import glimpse

protocol = {"name": "pkg", "datasets": [{"source": "gaussians", "params": {"n_per_class": 200}}],
            "oracle": {"name": "bandit"}, "learners": [{"name": "cspa", "grid": {"beta": [0.1, 0.3]}}],
            "metrics": [{"name": "online_accuracy"}], "seeds": 3}
trace = glimpse.run(protocol, output="pkg.h5", threads=2)
summary, curves = trace.summary, trace.curves
with h5py.File("pkg.h5", "r") as f:
    assert len(summary) == 6 and list(summary.columns) == list(f["summary"].dtype.names), summary.columns
    assert np.array_equal(summary["online_accuracy"].to_numpy(), f["summary"]["online_accuracy"])
    assert list(summary["run"]) == [x.decode() for x in f["summary"]["run"]]
    assert np.array_equal(curves["mean"].to_numpy(), f["curve_summary"]["mean"]) and curves["chosen"].sum() > 0
    rounds = trace.rounds("000004")
    assert set(rounds) == set(f["runs/000004/rounds"]) and len(rounds["y"]) == 800
    widest = {"row": np.int64, "y": np.int32, "predicted": np.int32, "proposed": np.int32, "correct": np.uint8,
              "queried": np.uint8}
    for name, values in rounds.items():  # the same values, in the schema's widest types (the file's may be narrower)
        assert np.array_equal(values, f["runs/000004/rounds"][name][()]), name
        assert values.dtype == widest[name], (name, values.dtype)
    assert f["runs/000004/rounds/y"].dtype == np.int8  # K = 4: labels stored in one byte
assert trace.params("000004")["beta"] == 0.3, trace.params("000004")
assert glimpse.open("pkg.h5").attrs["runs_complete"] == 6
# The generated twin of the schema's one declaration (glimpse.trace_schema) names what the writer wrote: its version,
# every root attribute and table column of this file, every attribute of a run (a learner's own results aside).
from glimpse import trace_schema as schema
declared = lambda namespace: {v for k, v in vars(namespace).items() if not k.startswith("_")}
with h5py.File("pkg.h5", "r") as f:
    assert f.attrs[schema.root.schema_version] == schema.version, f.attrs[schema.root.schema_version]
    assert set(f.attrs) <= declared(schema.root), set(f.attrs) - declared(schema.root)
    assert set(f) == {schema.root.protocol, schema.root.summary, schema.root.curve_summary, schema.root.runs}, set(f)
    identity = declared(schema.run) | {schema.table.run}
    assert [c for c in f[schema.root.summary].dtype.names if c != "online_accuracy"] == [
        c for c in f[schema.root.summary].dtype.names if c in identity]
    assert set(f[schema.root.curve_summary].dtype.names) <= declared(schema.run) | declared(schema.table)
    run = f[schema.root.runs]["000004"]
    assert set(run.attrs) <= declared(schema.run), set(run.attrs) - declared(schema.run)
    assert set(run) <= {schema.run.rounds_group, schema.run.curves_group, schema.run.matrices_group,
                        schema.run.summary_group}, set(run)
    assert set(run[schema.run.rounds_group]) == declared(schema.rounds)
try:
    glimpse.run({"name": "bad"}, output="bad.h5")
    raise SystemExit("a bad protocol did not raise")
except subprocess.CalledProcessError:
    pass
print("ok", glimpse.executable())
PY
}
check "$BUILD_DIR/lib/python" 2> build_tree.err | grep -q "^ok $BUILD_DIR/bin/glimpse$" || { cat build_tree.err; exit 1; }
check "$work/prefix/lib/glimpse/python" 2> install_tree.err | grep -q "^ok $work/prefix/bin/glimpse$" ||
  { cat install_tree.err; exit 1; }
echo "1 passed, 0 failed"
