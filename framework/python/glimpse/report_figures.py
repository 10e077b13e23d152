"""The figures of `glimpse report FILE... --out DIR`, drawn with matplotlib (Debian: python3-matplotlib,
python3-h5py), each written as PNG and SVG:

  curves_DATASET_CURVE       learning curves of the chosen grid points: mean over seeds, a band of one
                             standard deviation (from the file's /curve_summary); x = rounds, or queries
  sensitivity_LEARNER_PARAM  the selection metric against each numeric parameter that varies, one line per
                             dataset (the CSPA paper's noise levels are datasets): mean over seeds, the other
                             parameters at their best
  regret_ratio_DATASET       regret / regret of the passive run of the same dataset and seed, against the
                             number of queries (runs with the final metrics regret and queries, and a
                             learner labelled `passive`)

Prints one line per file written. The CLI runs it; it can also be run by hand:
  python3 -m glimpse.report_figures --out DIR [--x rounds|queries] [--passive LABEL] FILE...
"""
import argparse
import os
import re
import sys
from collections import OrderedDict

import h5py
import numpy as np

from glimpse.bandit import parse_params, read_bandit_runs, regret_ratio_groups, text
from glimpse.stats import mean_ci
from glimpse.trace_schema import root, run as run_fields, selection, status, table as columns

def table(f, name):
    """An HDF5 compound table as a list of dicts (bytes decoded)."""
    data = f[name][()]
    return [{k: (text(row[k]) if isinstance(row[k], bytes) else row[k]) for k in data.dtype.names} for row in data]


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


def labelled(label, path, paths):
    return label if len(paths) == 1 else f"{label} [{os.path.basename(path)}]"


def draw_regret_ratio(ax, groups, passive, trials=False):
    """On `ax`, for each learner label but the passive one: the mean regret ratio of each rule setting, with its 95%
    interval, at the setting's mean number of queries; with `trials`, also every run's own (queries, ratio), as the
    selective-sampling paper draws them. `groups`: (label, setting) -> {"ratio": [...], "queries": [...]}."""
    labels = [l for l in dict.fromkeys(l for l, _ in groups) if l != passive]
    for i, label in enumerate(labels):
        members = [g for (l, _), g in groups.items() if l == label]
        if trials:
            ax.scatter([q for g in members for q in g["queries"]], [r for g in members for r in g["ratio"]],
                       color=f"C{i}", s=6, alpha=0.3, linewidths=0)
        points = sorted((np.mean(g["queries"]), *mean_ci(g["ratio"])) for g in members)
        ax.errorbar([p[0] for p in points], [p[1] for p in points], yerr=[p[2] for p in points],
                    color=f"C{i}", marker="o", label=label, capsize=3, linewidth=1)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xlabel("queries")
    ax.set_ylabel("regret / passive regret")


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "glimpse"  # identical SVGs for identical data
    import matplotlib.pyplot as plt
    return plt


def save(fig, out, name):
    for extension in ("png", "svg"):
        path = os.path.join(out, f"{name}.{extension}")
        fig.savefig(path, dpi=120, metadata={"Date": None} if extension == "svg" else None)
        print(path)


def learning_curves(paths, out, x_axis):
    plt = pyplot()
    lines = OrderedDict()  # (dataset, curve) -> label -> (rounds, mean, std, queries or None)
    for path in paths:
        with h5py.File(path, "r") as f:
            if root.curve_summary not in f:
                continue
            rows = [r for r in table(f, root.curve_summary) if r[columns.chosen] == 1]
        by_point = OrderedDict()
        for r in rows:
            by_point.setdefault((r[run_fields.dataset], r[run_fields.label], r[columns.curve]), []).append(r)
        for (dataset, label, curve), points in by_point.items():
            if curve == "queries":
                continue
            points.sort(key=lambda r: r[columns.round])
            queries = by_point.get((dataset, label, "queries"))
            q = None
            if queries:
                at = {r[columns.round]: r[columns.mean] for r in queries}
                q = np.array([at.get(r[columns.round], np.nan) for r in points])
            lines.setdefault((dataset, curve), OrderedDict())[labelled(label, path, paths)] = (
                np.array([r[columns.round] for r in points]), np.array([r[columns.mean] for r in points]),
                np.array([r[columns.std_dev] for r in points]), q)
    for (dataset, curve), by_label in lines.items():
        fig, ax = plt.subplots(figsize=(6, 4))
        for i, (label, (rounds, mean, std, queries)) in enumerate(by_label.items()):
            x = queries if x_axis == "queries" and queries is not None else rounds
            if len(x) < 3:  # a batch run tested only at its end: points with error bars, not an invisible line
                ax.errorbar(x, mean, yerr=std, color=f"C{i}", label=label, marker="o", linestyle="none", capsize=4)
                continue
            ax.plot(x, mean, color=f"C{i}", label=label)
            ax.fill_between(x, mean - std, mean + std, color=f"C{i}", alpha=0.2, linewidth=0)
        ax.set_xlabel("number of queries" if x_axis == "queries" else "rounds")
        ax.set_ylabel(curve)
        ax.set_title(f"{dataset}: {curve} (mean and one std over seeds)")
        ax.legend(fontsize="small")
        fig.tight_layout()
        save(fig, out, f"curves_{safe(dataset)}_{safe(curve)}")
        plt.close(fig)


def sensitivity(paths, out):
    plt = pyplot()
    for path in paths:
        with h5py.File(path, "r") as f:
            metric = text(f.attrs[root.selection_metric])
            maximize = text(f.attrs[root.selection_goal]) == selection.maximize
            # files before schema 1.1 have no label column
            rows = [{**r, run_fields.label: r.get(run_fields.label, r[run_fields.learner])} for r in table(f, root.summary)
                    if r[run_fields.status] == status.complete]
        if not rows or metric not in rows[0]:
            continue
        best = max if maximize else min
        for label in dict.fromkeys(r[run_fields.label] for r in rows):
            mine = []
            for r in rows:
                if r[run_fields.label] == label:
                    variant, params = parse_params(r[run_fields.params])
                    # one line per dataset and dataset variant (the noise levels of the CSPA paper's figures)
                    mine.append(dict(r, p=params, line=f"{r[run_fields.dataset]} {variant}".strip()))
            keys = sorted({k for r in mine for k in r["p"]})
            for key in keys:
                values = sorted({r["p"][key] for r in mine if isinstance(r["p"].get(key), (int, float))
                                 and not isinstance(r["p"].get(key), bool)})
                if len(values) < 2:
                    continue
                fig, ax = plt.subplots(figsize=(6, 4))
                for i, line in enumerate(dict.fromkeys(r["line"] for r in mine)):
                    ys = []
                    for v in values:
                        # mean over seeds of each setting with this value, then the best of the other parameters
                        settings = OrderedDict()
                        for r in mine:
                            if r["line"] == line and r["p"].get(key) == v:
                                settings.setdefault(r[run_fields.params], []).append(r[metric])
                        ys.append(best(np.mean(s) for s in settings.values()) if settings else np.nan)
                    ax.plot(values, ys, marker="o", color=f"C{i}", label=line)
                if min(values) > 0 and max(values) / min(values) >= 100:
                    ax.set_xscale("log")
                ax.set_xlabel(key)
                ax.set_ylabel(f"{metric} (mean over seeds)")
                ax.set_title(labelled(label, path, paths))
                ax.legend(fontsize="small")
                fig.tight_layout()
                save(fig, out, f"sensitivity_{safe(labelled(label, path, paths))}_{safe(key)}")
                plt.close(fig)


def regret_ratios(paths, out, passive):
    plt = pyplot()
    for path in paths:
        runs = read_bandit_runs(path)
        if not runs or not any(r["label"] == passive for r in runs):
            continue
        groups = regret_ratio_groups(runs, passive)
        for dataset in dict.fromkeys(k[0] for k in groups):
            fig, ax = plt.subplots(figsize=(6, 4))
            draw_regret_ratio(ax, {(k[1], k[2]): g for k, g in groups.items() if k[0] == dataset}, passive)
            ax.set_title(f"{dataset} (mean, 95% interval over seeds)")
            ax.legend(fontsize="small")
            fig.tight_layout()
            save(fig, out, f"regret_ratio_{safe(labelled(dataset, path, paths))}")
            plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--x", choices=["rounds", "queries"], default="rounds")
    parser.add_argument("--passive", default="passive")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    learning_curves(args.files, args.out, args.x)
    sensitivity(args.files, args.out)
    regret_ratios(args.files, args.out, args.passive)


if __name__ == "__main__":
    try:
        main()
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"glimpse.report_figures: {e}")
