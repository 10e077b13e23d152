#!/usr/bin/python3
"""Selective-sampling results as in the CS-Selectron paper's Figures 2 and 3: for every (dataset, learner label,
query-rule setting) of a trace file, the mean number of queries and the mean over seeds of the regret ratio
R_T / R_T^passive, each run paired with the passive run of the same dataset and seed.

  tools/regret_ratio.py FILE [--passive LABEL] [--plot OUT.png]

  --passive LABEL   the learner label ("as") of the passive reference (default: passive)
  --plot OUT.png    also draw ratio against queries per dataset (needs python3-matplotlib)

Prints a Markdown table: dataset, label, rule setting, seeds, mean queries (share of rounds), mean ratio with
its 95% confidence interval (Student t over seeds), the mean absolute regrets, and the mean rounds per second
of one run (from the run's recorded seconds). Needs python3-h5py and
python3-numpy and python3-scipy (the t quantiles).
"""
import argparse
import os
import sys

import numpy as np

# The pairing with the passive runs is the report's (glimpse report draws the same figure). The package is the
# build's (beside $GLIMPSE, else build/): its trace_schema.py is generated there from the C++ header.
_glimpse = os.environ.get("GLIMPSE", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin",
                                                  "glimpse"))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(_glimpse)), "..", "lib", "python"))
from glimpse.bandit import read_bandit_runs, regret_ratio_groups  # noqa: E402
from glimpse.stats import mean_ci  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--passive", default="passive")
    parser.add_argument("--plot")
    args = parser.parse_args()
    runs = read_bandit_runs(args.file)
    if not runs:
        sys.exit(f"{args.file}: no complete run has the final metrics regret and queries")
    try:
        groups = regret_ratio_groups(runs, args.passive)
    except ValueError as e:
        sys.exit(f"{args.file}: {e}; use --passive LABEL")

    print("| dataset | learner | rule | seeds | queries (share) | R/R_passive (95% CI) | R_T | R_T passive | rounds/s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (dataset, label, rule), g in groups.items():
        ratio, half = mean_ci(g["ratio"])
        queries = float(np.mean(g["queries"]))
        print(f"| {dataset} | {label} | `{rule}` | {len(g['ratio'])} | {queries:.0f} ({100 * queries / g['rounds']:.1f}%) "
              f"| {ratio:.3f} ± {half:.3f} | {np.mean(g['regret']):.1f} | {np.mean(g['passive']):.1f} "
              f"| {np.mean(g['speed']):.0f} |")

    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        datasets = list(dict.fromkeys(k[0] for k in groups))
        fig, axes = plt.subplots(1, len(datasets), figsize=(5 * len(datasets), 4), squeeze=False)
        for ax, dataset in zip(axes[0], datasets):
            labels = list(dict.fromkeys(k[1] for k in groups if k[0] == dataset and k[1] != args.passive))
            for i, label in enumerate(labels):
                colour = f"C{i}"
                points = sorted((np.mean(g["queries"]), *mean_ci(g["ratio"]), g)
                                for k, g in groups.items() if k[0] == dataset and k[1] == label)
                xs = [p[0] for p in points]
                ax.errorbar(xs, [p[1] for p in points], yerr=[p[2] for p in points], color=colour, marker="o",
                            label=label, capsize=3)
                for p in points:  # individual trials
                    ax.scatter(p[3]["queries"], p[3]["ratio"], color=colour, s=4, alpha=0.3)
            ax.axhline(1.0, color="grey", linewidth=0.8)
            ax.set_title(dataset)
            ax.set_xlabel("number of queries")
            ax.set_ylabel("regret / passive regret")
            ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=120)


if __name__ == "__main__":
    main()
