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
python3-numpy (python3-scipy for exact t quantiles; otherwise 1.96).
"""
import argparse
import json
import math
import sys
from collections import OrderedDict

import h5py
import numpy as np


def t_quantile(df):
    try:
        from scipy.stats import t
        return float(t.ppf(0.975, df))
    except ImportError:
        return 1.96


def read_runs(path):
    runs = []
    with h5py.File(path, "r") as f:
        for run_id, group in f["runs"].items():
            attrs = group.attrs
            if attrs.get("status", "") != "complete" or "summary" not in group:
                continue
            summary = group["summary"].attrs
            if "regret" not in summary or "queries" not in summary:
                sys.exit(f"{path}: run {run_id} lacks the 'regret' or 'queries' metric")
            runs.append({
                "dataset": attrs["dataset"],
                "label": attrs["label"] if "label" in attrs else attrs["learner"],
                "rule": attrs["query_rule"],
                "setting": dict(json.loads(attrs["params"]),
                                **json.loads(attrs["query_rule_params"] or "{}")),
                "seed": int(attrs["seed"]),
                "rounds": int(attrs["rounds"]),
                "regret": float(summary["regret"]),
                "queries": float(summary["queries"]),
                "rounds_per_second": int(attrs["rounds"]) / float(attrs["seconds"]),
            })
    return runs


def compact(run, runs):
    """The learner and rule parameters that vary among the runs of this run's label, as a short JSON text."""
    same = [r["setting"] for r in runs if r["label"] == run["label"] and r["dataset"] == run["dataset"]]
    varying = {k: v for k, v in run["setting"].items() if any(s.get(k) != v for s in same)}
    return json.dumps(varying, separators=(",", ":")) if varying else ""


def settings(runs, passive):
    """(dataset, label, rule) -> ratios, queries, regrets; the passive runs keyed by (dataset, seed)."""
    reference = {(r["dataset"], r["seed"]): r for r in runs if r["label"] == passive}
    if not reference:
        sys.exit(f"no complete runs labelled '{passive}' (the passive reference); use --passive LABEL")
    groups = OrderedDict()
    for r in runs:
        base = reference.get((r["dataset"], r["seed"]))
        if base is None:
            sys.exit(f"no passive run for dataset '{r['dataset']}', seed {r['seed']}")
        g = groups.setdefault((r["dataset"], r["label"], r["rule"] + compact(r, runs)),
                              {"ratio": [], "queries": [], "regret": [], "passive": [], "speed": [],
                               "rounds": r["rounds"]})
        g["ratio"].append(r["regret"] / base["regret"] if base["regret"] > 0 else math.nan)
        g["queries"].append(r["queries"])
        g["regret"].append(r["regret"])
        g["passive"].append(base["regret"])
        g["speed"].append(r["rounds_per_second"])
    return groups


def mean_ci(values):
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return float(x.mean()), math.nan
    return float(x.mean()), t_quantile(len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--passive", default="passive")
    parser.add_argument("--plot")
    args = parser.parse_args()
    groups = settings(read_runs(args.file), args.passive)

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
