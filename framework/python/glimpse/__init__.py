"""glimpse from Python: read trace files as pandas objects and NumPy arrays, and run protocols.

    import glimpse
    trace = glimpse.run("protocols/quickstart.json", output="runs/quickstart.h5")  # or glimpse.open(path)
    trace.summary          # one row per run (pandas.DataFrame): identity, status, time, final metrics
    trace.curves           # learning curves averaged over seeds, long form; chosen == 1: the selection's curves
    trace.rounds("000003") # one run's per-round record: {"y": array, "predicted": array, ...}
    trace.params("000003") # its parameters, as a dict
    trace.select("online_accuracy", "max", seeds=[11, 12])  # the grid point the core's rule chooses on those seeds

Importable from the build tree (PYTHONPATH=build/lib/python) and the install tree (PREFIX/lib/glimpse/python).
Needs h5py and pandas (Debian: python3-h5py, python3-pandas). docs/python.md.
"""
import builtins
import json
import os
import shutil
import subprocess
import tempfile

from .trace_schema import root, rounds as round_columns, run as run_fields

__all__ = ["Trace", "open", "run", "executable"]


def _texts(frame):
    """HDF5 variable-length strings arrive as bytes."""
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].str.decode("utf-8")
    return frame


class Trace:
    """A glimpse trace file (docs/trace-schema.md), read on demand."""

    def __init__(self, path):
        import h5py

        self.path = os.fspath(path)
        with h5py.File(self.path, "r") as f:
            if root.schema_version not in f.attrs:
                raise ValueError(f"{self.path}: not a glimpse trace file (no {root.schema_version})")
            self.attrs = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in f.attrs.items()}

    def _table(self, name):
        import h5py
        import pandas as pd

        with h5py.File(self.path, "r") as f:
            if name not in f:
                raise KeyError(f"{self.path}: no /{name} table (is the sweep still running?)")
            return _texts(pd.DataFrame(f[name][()]))

    @property
    def summary(self):
        """One row per run: run, dataset, learner, label, params, seed, grid_point, status, rounds, seconds,
        rounds_per_second, peak_rss_mb, then one column per final metric."""
        return self._table(root.summary)

    @property
    def curves(self):
        """dataset, label, params, chosen, curve, round, runs, mean, std: curves averaged over seeds."""
        return self._table(root.curve_summary)

    def rounds(self, run):
        """A run's per-round record as NumPy arrays (row, y, predicted, proposed, correct, queried), in the schema's
        widest types (int64 rows, int32 labels, uint8 flags) whatever narrower type the file stores them in."""
        import h5py
        import numpy as np

        widest = {round_columns.row: np.int64, round_columns.y: np.int32, round_columns.predicted: np.int32,
                  round_columns.proposed: np.int32}

        with h5py.File(self.path, "r") as f:
            group = f"{root.runs}/{run}/{run_fields.rounds_group}"
            if group not in f:
                raise KeyError(f"{self.path}: no run '{run}' with per-round data")
            return {name: f[group][name][()].astype(widest.get(name, f[group][name].dtype), copy=False)
                    for name in f[group]}

    def params(self, run):
        """A run's parameters, as the protocol resolved them."""
        import h5py

        with h5py.File(self.path, "r") as f:
            return json.loads(f[f"{root.runs}/{run}"].attrs[run_fields.params])

    def select(self, metric, goal="max", seeds=None, per_seed=False):
        """The grid point of each (dataset, label) that the core's selection rule chooses (`glimpse select`, the rule
        `glimpse summary` applies): the best mean of `metric` (goal "max" or "min"), over `seeds` only when given (a
        point lacking one of them cannot be chosen), or with `per_seed` each seed's own best run. A list of
        {"dataset", "label", "params", "runs": [{"run", "seed", "params"}]}: the chosen runs."""
        command = [executable(), "select", self.path, "--metric", metric, "--goal", goal]
        if seeds is not None:
            command += ["--seeds", ",".join(str(s) for s in seeds)]
        if per_seed:
            command.append("--per-seed")
        out = subprocess.run(command, capture_output=True, text=True)
        if out.returncode != 0:
            raise ValueError(f"{' '.join(command)}: {out.stderr.strip()}")
        return [json.loads(line) for line in out.stdout.splitlines()]

    def __repr__(self):
        return (f"glimpse.Trace({self.path!r}: {self.attrs.get(root.runs_complete, '?')} of "
                f"{self.attrs.get(root.runs_total, '?')} runs complete)")


def open(path):  # noqa: A001 (the name users expect: glimpse.open)
    """The trace file at `path`."""
    return Trace(path)


def executable():
    """The glimpse command: $GLIMPSE, else the one beside this package (build or install tree), else PATH's."""
    if os.environ.get("GLIMPSE"):
        return os.environ["GLIMPSE"]
    here = os.path.dirname(os.path.abspath(__file__))
    for candidate in (os.path.join(here, "..", "..", "..", "bin", "glimpse"),        # build/lib/python/glimpse
                      os.path.join(here, "..", "..", "..", "..", "bin", "glimpse")):  # PREFIX/lib/glimpse/python/glimpse
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    found = shutil.which("glimpse")
    if not found:
        raise FileNotFoundError("glimpse not found: set $GLIMPSE or put it on PATH")
    return found


def run(protocol, output=None, threads=None, args=()):
    """Runs a protocol (a file's path, or the protocol itself as a dict) with `glimpse run` and returns its trace.
    Resumes like the command does; raises subprocess.CalledProcessError when glimpse fails (exit status 3, some
    runs failed, still writes the trace: catch it and open the file to see them)."""
    with tempfile.TemporaryDirectory() as folder:
        if isinstance(protocol, dict):
            path = os.path.join(folder, "protocol.json")
            with builtins.open(path, "w") as f:
                json.dump(protocol, f)
            protocol = path
        command = [executable(), "run", os.fspath(protocol), "--quiet"]
        if output is None:
            output = os.path.join(os.getcwd(), "runs", "python_run.h5")
        command += ["-o", os.fspath(output)]
        if threads:
            command += ["-j", str(threads)]
        subprocess.run(command + list(args), check=True)
    return Trace(output)

