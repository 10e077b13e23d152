#!/usr/bin/env python3
"""Markdown tables from glimpse trace files, for docs/results/ (reads the /summary table with h5py).

  tools/results_tables.py sensitivity FILE PARAM      metric mean (std) per value of PARAM (rows) and dataset (columns)
"""
import json
import sys

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        table = f["summary"][()]
        selection = f.attrs["selection_metric"]
    rows = []
    for r in table:
        rows.append({name: (r[name].decode() if isinstance(r[name], bytes) else r[name]) for name in table.dtype.names})
    return rows, selection


def sensitivity(path, param):
    rows, metric = load(path)
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    values = sorted({json.loads(r["params"])[param] for r in rows})
    print("| " + param + " | " + " | ".join(datasets) + " |")
    print("|---" * (len(datasets) + 1) + "|")
    for v in values:
        cells = []
        for d in datasets:
            xs = [r[metric] for r in rows if r["dataset"] == d and json.loads(r["params"])[param] == v]
            best = max(np.mean([r[metric] for r in rows if r["dataset"] == d and json.loads(r["params"])[param] == w])
                       for w in values)
            mean, std = 100 * np.mean(xs), 100 * np.std(xs, ddof=1)
            cell = f"{mean:.1f} ({std:.1f})"
            cells.append(f"**{cell}**" if abs(np.mean(xs) - best) < 1e-12 else cell)
        print(f"| {v:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "sensitivity":
        sensitivity(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
