#!/usr/bin/python3
"""What a protocol's grids would cost at other sizes, from the run times a trace file already holds: for every
(dataset, learner label) of FILE, the mean seconds of one run (one grid point on one seed, its cross-validation
folds included) times the grid points and seeds asked for.

  tools/grid_cost.py FILE --points LABEL=N [LABEL=N ...] --seeds S

For the PS3VT paper's full grids against a trace of table3.json (cut grids):
  tools/grid_cost.py runs/reproduce/full/semi_supervised/table3.h5 --seeds 30 \\
      --points linear_mc=50 lrc_mc=2750 ss_mc=550 ps3vt=30250

A run's time depends on its grid point (tau_S = 0 skips the SVD), so the estimate holds as far as the traced
points are typical of the grid. Prints a Markdown table: dataset, label, mean seconds of a run, runs, CPU hours;
then the total in CPU days. Needs python3-h5py and python3-numpy.
"""
import argparse
import collections

import h5py
import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--points", nargs="+", required=True, metavar="LABEL=N",
                        help="grid points per seed for each learner label")
    parser.add_argument("--seeds", type=int, required=True)
    args = parser.parse_args()
    points = {label: int(n) for label, n in (p.split("=", 1) for p in args.points)}
    seconds = collections.defaultdict(list)
    with h5py.File(args.file, "r") as f:
        for run in f["runs"].values():
            attrs = run.attrs
            if attrs.get("status", "complete") == "complete" and attrs["label"] in points:
                seconds[(attrs["dataset"], attrs["label"])].append(float(attrs["seconds"]))
    print("| dataset | learner | seconds per run | runs | CPU hours |")
    print("|---|---|---|---|---|")
    total = 0.0
    for (dataset, label), values in sorted(seconds.items()):
        runs = points[label] * args.seeds
        cost = float(np.mean(values)) * runs
        total += cost
        print(f"| {dataset} | {label} | {np.mean(values):.4f} | {runs:,} | {cost / 3600:.1f} |")
    print(f"\nTotal: {total / 86400:.1f} CPU days.")


if __name__ == "__main__":
    main()
