#!/usr/bin/python3
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
  plot_report.py --out DIR [--x rounds|queries] [--passive LABEL] FILE...
"""
import argparse
import json
import math
import os
import re
import sys
from collections import OrderedDict

import h5py
import numpy as np


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def table(f, name):
    """An HDF5 compound table as a list of dicts (bytes decoded)."""
    data = f[name][()]
    return [{k: (text(row[k]) if isinstance(row[k], bytes) else row[k]) for k in data.dtype.names} for row in data]


def safe(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")


def parse_params(text_value):
    """A grid point's text as `glimpse summary` shows it: [dataset variant JSON] learner JSON [rule{JSON}].
    Returns the variant's text ("" when none) and the learner's parameters, with the query rule's named
    rule.name."""
    decoder = json.JSONDecoder()
    first, end = decoder.raw_decode(text_value)
    rest = text_value[end:].strip()
    variant = ""
    params = first
    if rest.startswith("{"):  # the first object was the dataset variant (a transform grid point)
        variant = text_value[:end]
        params, used = decoder.raw_decode(rest)
        rest = rest[used:].strip()
    if rest:
        brace = rest.index("{")
        rule, rule_params = rest[:brace], decoder.raw_decode(rest[brace:])[0]
        params.update({f"{rule}.{k}": v for k, v in rule_params.items()})
    return variant, params


def labelled(label, path, paths):
    return label if len(paths) == 1 else f"{label} [{os.path.basename(path)}]"


def t_quantile(df):
    try:
        from scipy.stats import t
        return float(t.ppf(0.975, df))
    except ImportError:
        return 1.96


def mean_ci(values):
    """Mean and half-width of its 95% Student-t interval (NaN for a single value)."""
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return float(x.mean()), math.nan
    return float(x.mean()), t_quantile(len(x) - 1) * float(x.std(ddof=1)) / math.sqrt(len(x))


def read_bandit_runs(path, curves=False):
    """Complete runs with the final metrics regret and queries (selective sampling), one dict each; with `curves`,
    also each run's cumulative regret and queries curves as "regret_curve" and "queries_curve": (rounds, values)."""
    runs = []
    with h5py.File(path, "r") as f:
        for run_id, group in f["runs"].items():
            attrs = group.attrs
            if attrs.get("status", "") != "complete" or "summary" not in group:
                continue
            summary = group["summary"].attrs
            if "regret" not in summary or "queries" not in summary:
                continue
            runs.append({
                "dataset": text(attrs["dataset"]),
                "label": text(attrs["label"] if "label" in attrs else attrs["learner"]),
                "rule": text(attrs["query_rule"]),
                "setting": dict(json.loads(attrs["params"]), **json.loads(attrs["query_rule_params"] or "{}")),
                "rule_params": json.loads(attrs["query_rule_params"] or "{}"),
                "seed": int(attrs["seed"]),
                "rounds": int(attrs["rounds"]),
                "regret": float(summary["regret"]),
                "queries": float(summary["queries"]),
                "rounds_per_second": int(attrs["rounds"]) / float(attrs["seconds"]),
                # CS-Selectron's safety switch: the round it switched at (0: never); None without the switch.
                "switch_round": (float(summary["learner_safety_switch_round"])
                                 if "learner_safety_switch_round" in summary else None),
            })
            if curves and "curves" in group and {"regret", "queries"} <= set(group["curves"]):
                for name in ("regret", "queries"):
                    curve = group["curves"][name]
                    runs[-1][name + "_curve"] = (curve["round"][:], curve["value"][:])
    return runs


def compact(run, runs):
    """The learner and rule parameters that vary among the runs of this run's label, as a short JSON text."""
    same = [r["setting"] for r in runs if r["label"] == run["label"] and r["dataset"] == run["dataset"]]
    varying = {k: v for k, v in run["setting"].items() if any(s.get(k) != v for s in same)}
    return json.dumps(varying, separators=(",", ":")) if varying else ""


def curve_at(run, name, t):
    """The run's curve `name` (regret or queries, cumulative) at round t: its last point at or before t (runs read
    with curves)."""
    rounds, values = run[name + "_curve"]
    i = int(np.searchsorted(rounds, t, side="right")) - 1
    if i < 0:
        raise ValueError(f"the {name} curve starts after round {t}")
    return float(values[i])


def regret_ratio_groups(runs, passive, at_rounds=()):
    """(dataset, label, rule setting) -> ratios, queries, regrets, each run paired with the passive run of its
    dataset and seed; with `at_rounds` (runs read with curves), also "ratio_at": round -> the ratios of the
    cumulative regrets up to that round, and "regret_at" and "queries_at": round -> the runs' cumulative regrets and
    labels there. Raises ValueError when a run has no passive partner."""
    reference = {(r["dataset"], r["seed"]): r for r in runs if r["label"] == passive}
    if not reference:
        raise ValueError(f"no complete runs labelled '{passive}' (the passive reference)")
    groups = OrderedDict()
    for r in runs:
        base = reference.get((r["dataset"], r["seed"]))
        if base is None:
            raise ValueError(f"no passive run for dataset '{r['dataset']}', seed {r['seed']}")
        g = groups.setdefault((r["dataset"], r["label"], r["rule"] + compact(r, runs)),
                              {"ratio": [], "queries": [], "regret": [], "passive": [], "speed": [],
                               "switch_rounds": [], "rule_params": r["rule_params"], "rounds": r["rounds"],
                               "ratio_at": {t: [] for t in at_rounds}, "regret_at": {t: [] for t in at_rounds},
                               "queries_at": {t: [] for t in at_rounds}})
        g["ratio"].append(r["regret"] / base["regret"] if base["regret"] > 0 else math.nan)
        g["queries"].append(r["queries"])
        g["regret"].append(r["regret"])
        g["passive"].append(base["regret"])
        g["speed"].append(r["rounds_per_second"])
        if r.get("switch_round") is not None:
            g["switch_rounds"].append(r["switch_round"])
        for t in at_rounds:
            regret, passive_regret = curve_at(r, "regret", t), curve_at(base, "regret", t)
            g["ratio_at"][t].append(regret / passive_regret if passive_regret > 0 else math.nan)
            g["regret_at"][t].append(regret)
            g["queries_at"][t].append(curve_at(r, "queries", t))
    return groups


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
            if "curve_summary" not in f:
                continue
            rows = [r for r in table(f, "curve_summary") if r["chosen"] == 1]
        by_point = OrderedDict()
        for r in rows:
            by_point.setdefault((r["dataset"], r["label"], r["curve"]), []).append(r)
        for (dataset, label, curve), points in by_point.items():
            if curve == "queries":
                continue
            points.sort(key=lambda r: r["round"])
            queries = by_point.get((dataset, label, "queries"))
            q = None
            if queries:
                at = {r["round"]: r["mean"] for r in queries}
                q = np.array([at.get(r["round"], np.nan) for r in points])
            lines.setdefault((dataset, curve), OrderedDict())[labelled(label, path, paths)] = (
                np.array([r["round"] for r in points]), np.array([r["mean"] for r in points]),
                np.array([r["std"] for r in points]), q)
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
            metric = text(f.attrs["selection_metric"])
            maximize = text(f.attrs["selection_goal"]) == "max"
            rows = [dict(r, label=r.get("label", r["learner"])) for r in table(f, "summary")
                    if r["status"] == "complete"]  # files before schema 1.1 have no label column
        if not rows or metric not in rows[0]:
            continue
        best = max if maximize else min
        for label in dict.fromkeys(r["label"] for r in rows):
            mine = []
            for r in rows:
                if r["label"] == label:
                    variant, params = parse_params(r["params"])
                    # one line per dataset and dataset variant (the noise levels of the CSPA paper's figures)
                    mine.append(dict(r, p=params, line=f"{r['dataset']} {variant}".strip()))
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
                                settings.setdefault(r["params"], []).append(r[metric])
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
        sys.exit(f"plot_report.py: {e}")
