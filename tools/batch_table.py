#!/usr/bin/python3
"""Batch (semi-supervised) results as in the PS3VT paper's Table 3: for every dataset and learner label of a
trace file, the test error (%) of the grid point that cross-validation chose on each split, mean ± std over the
splits; the best mean per dataset in bold, and every other learner marked with * when a paired t-test over the
shared splits finds it significantly worse at the 5% level (the paper's marking), optionally beside the paper's
numbers.

  tools/batch_table.py FILE [--paper] [--metric test_error] [--plot OUT.png]

  --paper          add the paper's Table 3 value under each measured one
  --metric NAME    the test metric (default test_error)
  --plot OUT.png   draw, per learner, the mean test error (and one standard deviation) over the fit's
                   iterations when the runs evaluated the test part more than once (P3 Figure 1 left), else
                   against the datasets in protocol order (Figure 1 right: one entry per labelled rate)

Selection per split: the run of least cv_error among the label's grid points (first one on ties); without
cv_error in the file, the grid point of least mean test error. Needs python3-h5py, python3-numpy and
python3-scipy.
"""
import argparse
import math
from collections import OrderedDict, defaultdict

import h5py
import numpy as np
from scipy import stats

PAPER = {  # P3 Table 3, test error %, mean ± std (as protocols/semi_supervised/paper.json has them)
    "iris": [(27.12, 5.36), (24.57, 6.13), (23.53, 5.04), (23.71, 5.22)],
    "wine": [(8.77, 3.22), (8.33, 5.22), (8.20, 4.12), (7.63, 3.88)],
    "glass": [(48.68, 5.32), (47.46, 5.40), (46.68, 4.83), (46.28, 5.18)],
    "vowel": [(47.40, 3.73), (47.05, 2.89), (46.66, 3.36), (45.74, 3.15)],
    "vehicle": [(33.78, 2.17), (29.74, 2.41), (29.67, 2.73), (28.53, 2.48)],
    "dna": [(8.83, 0.94), (8.69, 0.86), (8.56, 0.78), (8.56, 0.78)],
    "segment": [(26.69, 2.20), (26.84, 2.37), (26.28, 2.30), (26.09, 2.20)],
    "satimage": [(15.94, 0.83), (15.88, 0.83), (15.92, 0.87), (15.89, 0.82)],
    "letter": [(28.31, 0.54), (26.98, 0.49), (26.92, 0.52), (26.91, 0.48)],
    "shuttle": [(23.25, 0.32), (21.61, 0.31), (21.55, 0.28), (21.48, 0.28)],
}
PAPER_LABELS = ["linear_mc", "lrc_mc", "ss_mc", "ps3vt"]


def read(path, metric):
    """(dataset, label) -> seed -> list of (cv_error or nan, test metric, params)."""
    runs = OrderedDict()
    with h5py.File(path, "r") as f:
        for group in f["runs"].values():
            a = group.attrs
            if a.get("status", "") != "complete" or "summary" not in group:
                continue
            s = group["summary"].attrs
            key = (a["dataset"], a["label"] if "label" in a else a["learner"])
            runs.setdefault(key, defaultdict(list))[int(a["seed"])].append(
                (float(s.get("cv_error", math.nan)), float(s[metric]), a["params"]))
            curve = group.get(f"curves/{metric}")
            if curve is not None and len(curve["round"]) > 1:
                CURVES[key].append((curve["round"][()], 100 * curve["value"][()]))
    return runs


CURVES = defaultdict(list)  # (dataset, label) -> [(iterations, test error %)] of every run


def plot(path, runs, labels, datasets, errors_by_dataset):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 4))
    if CURVES:
        dataset = datasets[0]
        for label in labels:
            curves = CURVES.get((dataset, label))
            if not curves:
                continue
            x = curves[0][0]
            y = np.array([c[1] for c in curves if len(c[1]) == len(x)])
            ax.plot(x, y.mean(axis=0), label=label)
            ax.fill_between(x, y.mean(axis=0) - y.std(axis=0), y.mean(axis=0) + y.std(axis=0), alpha=0.15)
        ax.set_xlabel("iterations")
        ax.set_title(dataset)
    else:
        for label in labels:
            means = [errors_by_dataset[d][label].mean() for d in datasets if label in errors_by_dataset[d]]
            ax.plot(range(len(means)), means, marker="o", label=label)
        ax.set_xticks(range(len(datasets)))
        ax.set_xticklabels(datasets)
    ax.set_ylabel("test error (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def chosen(per_seed):
    """seed -> (test value, params) of the run cross-validation chose on that split."""
    has_cv = all(not math.isnan(r[0]) for runs in per_seed.values() for r in runs)
    if has_cv:
        return {seed: min(runs, key=lambda r: r[0])[1:] for seed, runs in per_seed.items()}
    means = defaultdict(list)
    for runs in per_seed.values():
        for _, value, params in runs:
            means[params].append(value)
    best = min(means, key=lambda p: np.mean(means[p]))
    return {seed: next((r[1], r[2]) for r in runs if r[2] == best) for seed, runs in per_seed.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--paper", action="store_true")
    parser.add_argument("--metric", default="test_error")
    parser.add_argument("--plot")
    args = parser.parse_args()
    runs = read(args.file, args.metric)
    datasets = list(OrderedDict.fromkeys(d for d, _ in runs))
    labels = list(OrderedDict.fromkeys(l for _, l in runs))
    print("| dataset | splits | " + " | ".join(labels) + " |")
    print("|---|---|" + "---|" * len(labels))
    errors_by_dataset = {}
    for dataset in datasets:
        picks = {l: chosen(runs[(dataset, l)]) for l in labels if (dataset, l) in runs}
        seeds = sorted(set.intersection(*(set(p) for p in picks.values())))
        errors = {l: 100 * np.array([picks[l][s][0] for s in seeds]) for l in picks}
        errors_by_dataset[dataset] = errors
        best = min(errors, key=lambda l: errors[l].mean())
        cells = []
        for label in labels:
            if label not in errors:
                cells.append("")
                continue
            e = errors[label]
            text = f"{e.mean():.2f}±{e.std(ddof=1) if len(e) > 1 else 0:.2f}"
            if label == best:
                text = f"**{text}**"
            elif len(e) > 1 and np.any(e != errors[best]):
                p = stats.ttest_rel(e, errors[best]).pvalue
                if p < 0.05 and e.mean() > errors[best].mean():
                    text += "*"
            if args.paper and dataset in PAPER and label in PAPER_LABELS:
                m, sd = PAPER[dataset][PAPER_LABELS.index(label)]
                text += f" (paper {m:.2f}±{sd:.2f})"
            cells.append(text)
        print(f"| {dataset} | {len(seeds)} | " + " | ".join(cells) + " |")
    print()
    print("Bold: the best mean; *: significantly worse than it (paired t-test over the splits, 5%).")
    if args.plot:
        plot(args.plot, runs, labels, datasets, errors_by_dataset)


if __name__ == "__main__":
    main()
