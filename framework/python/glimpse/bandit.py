"""Selective-sampling runs read back from a trace: each run's final regret and queries, paired with the passive
learner's run of the same dataset and seed (the regret ratio of the selective-sampling paper), used by
`glimpse report`'s figures and by the results pages."""
import json
import math
from collections import OrderedDict

import numpy as np

from .trace_schema import curve as curve_fields, root, run as run_fields, status


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


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


def read_bandit_runs(path, curves=False):
    """Complete runs with the final metrics regret and queries (selective sampling), one dict each; with `curves`,
    also each run's cumulative regret and queries curves as "regret_curve" and "queries_curve": (rounds, values)."""
    import h5py

    runs = []
    with h5py.File(path, "r") as f:
        for run_id, group in f[root.runs].items():
            attrs = group.attrs
            if attrs.get(run_fields.status, "") != status.complete or run_fields.summary_group not in group:
                continue
            summary = group[run_fields.summary_group].attrs
            if "regret" not in summary or "queries" not in summary:
                continue
            switch_round = run_fields.learner_prefix + "safety_switch_round"
            rule_params = json.loads(attrs[run_fields.query_rule_params] or "{}")
            runs.append({
                "run": run_id,
                "dataset": text(attrs[run_fields.dataset]),
                "label": text(attrs[run_fields.label] if run_fields.label in attrs else attrs[run_fields.learner]),
                "rule": text(attrs[run_fields.query_rule]),
                "setting": dict(json.loads(attrs[run_fields.params]), **rule_params),
                "rule_params": rule_params,
                "seed": int(attrs[run_fields.seed]),
                "rounds": int(attrs[run_fields.rounds]),
                "regret": float(summary["regret"]),
                "queries": float(summary["queries"]),
                "rounds_per_second": int(attrs[run_fields.rounds]) / float(attrs[run_fields.seconds]),
                # CS-Selectron's safety switch: the round it switched at (0: never); None without the switch.
                "switch_round": float(summary[switch_round]) if switch_round in summary else None,
            })
            if curves and run_fields.curves_group in group and {"regret", "queries"} <= set(group[run_fields.curves_group]):
                for name in ("regret", "queries"):
                    values = group[run_fields.curves_group][name]
                    runs[-1][name + "_curve"] = (values[curve_fields.round][:], values[curve_fields.value][:])
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
    labels there; "seeds", "runs" and "passive_runs" name each ratio's trial and the two runs behind it. Raises
    ValueError when a run has no passive partner."""
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
                               "seeds": [], "runs": [], "passive_runs": [],
                               "switch_rounds": [], "rule_params": r["rule_params"], "rounds": r["rounds"],
                               "ratio_at": {t: [] for t in at_rounds}, "regret_at": {t: [] for t in at_rounds},
                               "queries_at": {t: [] for t in at_rounds}})
        g["ratio"].append(r["regret"] / base["regret"] if base["regret"] > 0 else math.nan)
        g["queries"].append(r["queries"])
        g["regret"].append(r["regret"])
        g["passive"].append(base["regret"])
        g["seeds"].append(r["seed"])
        g["runs"].append(r["run"])
        g["passive_runs"].append(base["run"])
        g["speed"].append(r["rounds_per_second"])
        if r.get("switch_round") is not None:
            g["switch_rounds"].append(r["switch_round"])
        for t in at_rounds:
            regret, passive_regret = curve_at(r, "regret", t), curve_at(base, "regret", t)
            g["ratio_at"][t].append(regret / passive_regret if passive_regret > 0 else math.nan)
            g["regret_at"][t].append(regret)
            g["queries_at"][t].append(curve_at(r, "queries", t))
    return groups


