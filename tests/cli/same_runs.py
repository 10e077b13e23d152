"""Compares runs of two glimpse trace files, for common.sh's same_runs and same_present_runs: each run's rounds/,
curves/ and summary/ (their members, types, shapes, attributes and values, bit for bit) must be the same in both.

  same_runs.py A B RUNS   runs 000000..RUNS-1, each in both files
  same_runs.py A B        every run B holds (complete or not; a part B's run lacks is not compared); prints how
                          many runs B holds

One process for a whole comparison: an h5diff per run and part started about 200 processes per check, which made
the crash-injection test spend most of its minutes starting them. Exits 1 naming the first difference."""
import sys

import h5py
import numpy as np

PARTS = ("rounds", "curves", "summary")


def same_values(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.hasobject:  # variable-length strings
        return a.tolist() == b.tolist()
    return a.tobytes() == b.tobytes()  # bit for bit: determinism promises the same bits, NaN and -0 included


def difference(a, b):
    """The path of the first difference below objects a and b, or None."""
    if isinstance(a, h5py.Group) != isinstance(b, h5py.Group):
        return a.name
    if sorted(a.attrs) != sorted(b.attrs):
        return f"{a.name} (its attributes)"
    for key in a.attrs:
        if not same_values(a.attrs[key], b.attrs[key]):
            return f"{a.name} (attribute {key})"
    if isinstance(a, h5py.Group):
        if sorted(a) != sorted(b):
            return f"{a.name} (its members)"
        for key in a:
            found = difference(a[key], b[key])
            if found:
                return found
        return None
    return None if same_values(a[()], b[()]) else a.name


def main(first, second, runs=None):
    with h5py.File(first, "r") as a, h5py.File(second, "r") as b:
        if runs is None:
            ids = sorted(b["runs"]) if "runs" in b else []
        else:
            ids = [f"{i:06d}" for i in range(int(runs))]
        for run in ids:
            for part in PARTS:
                path = f"runs/{run}/{part}"
                if runs is None and path not in b:
                    continue
                if path not in a or path not in b:
                    sys.exit(f"FAILED: run {run} {part} is missing from {first if path not in a else second}")
                found = difference(a[path], b[path])
                if found:
                    sys.exit(f"FAILED: run {run} {part} differs between {first} and {second}: {found}")
    if runs is None:
        print(len(ids))


if __name__ == "__main__":
    main(*sys.argv[1:])
