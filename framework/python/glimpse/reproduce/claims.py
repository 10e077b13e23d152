"""The paper's computable statements, and the project's own checks beside them. A claim holds only when the data say
so: the direction it states, and a test over the reported trials significant at the page's level (glimpse.stats:
paired over the same trials, Welch otherwise). A direction the test cannot tell from noise is "tie: not reproduced";
a significant difference the other way "fails". A claim over several datasets (or learners, series, settings) holds
when at least `at_least` of them hold (default: all), fails when they cannot even counting the ties, and is a tie
otherwise.

Each check is a function check_NAME(page, spec) returning (verdict, text); a new kind of claim is one more."""
import json
import math

from ..stats import ALPHA, compare, holm_step_down, mean_ci, spread_comparison
from .verdicts import (FAILS, HOLDS, TIE, best_of, better, combine, interval_outcome, outcome, summary,
                       table_columns, value_text)


# ---------------------------------------------------------------- checks on tables

def check_best(page, spec):
    """`learner` is better than every other of `among` (default: the table's learners) on at least `at_least` of
    `datasets` (default: all): against the best of the others, in the table's goal, beyond noise."""
    t, means = table_columns(page, spec["table"], spec.get("procedure", "held_out"))
    learner = spec["learner"]
    outcomes, parts = [], []
    for dataset, by_learner in means.items():
        if learner not in by_learner or dataset not in spec.get("datasets", [dataset]):
            continue
        others = [n for n in spec.get("among", list(by_learner)) if n != learner]
        rival = best_of(t, by_learner, others)
        if rival is None:
            continue
        mine, theirs = by_learner[learner], by_learner[rival]
        c = compare(mine.values, theirs.values)
        result = outcome(better(t, mine.mean, theirs.mean), c)
        outcomes.append(result)
        parts.append(f"{dataset}: {learner} {value_text(t, mine.mean)} vs next best {rival} "
                     f"{value_text(t, theirs.mean)}, {c.text()} ({result})")
    need = spec.get("at_least", len(outcomes))
    return combine(outcomes, need), summary(outcomes, need, parts)


def check_group_better(page, spec):
    """The best of the `better` learners beats the best of the `worse` ones (the table's goal) on at least `at_least`
    of `datasets` (default: all), in each of `tables`, beyond noise."""
    outcomes, parts = [], []
    for table_id in spec["tables"]:
        t, means = table_columns(page, table_id, spec.get("procedure", "held_out"))
        for dataset, by_learner in means.items():
            if dataset not in spec.get("datasets", [dataset]):
                continue
            a, b = best_of(t, by_learner, spec["better"]), best_of(t, by_learner, spec["worse"])
            if a is None or b is None:
                continue
            c = compare(by_learner[a].values, by_learner[b].values)
            result = outcome(better(t, by_learner[a].mean, by_learner[b].mean), c)
            outcomes.append(result)
            parts.append(f"{table_id} {dataset}: {a} {value_text(t, by_learner[a].mean)} vs {b} "
                         f"{value_text(t, by_learner[b].mean)}, {c.text()} ({result})")
    need = spec.get("at_least", len(outcomes))
    return combine(outcomes, need), summary(outcomes, need, parts)


def check_fixed_point_better(page, spec):
    """`learner` beats `rival` at some fixed grid point, in each of `tables`: each of the learner's points against the
    rival's point with the same values of `shared` (e.g. both at the same mu), paired over the reported trials,
    whatever the table's selection chose; Holm's step-down over the learner's points keeps the many points tried from
    making one significant by chance. Per dataset: holds if a point is better beyond noise, fails if every point is
    worse beyond noise, a tie otherwise; on at least `at_least` of `datasets` (default: all)."""
    outcomes, parts = [], []
    for table_id in spec["tables"]:
        t = page.tables[table_id]
        report_seeds = page.paper.seeds(t["spec"], page.quick)[0]
        groups, scale = t["trace"].groups(t["metric"]), t["spec"].get("scale", 1)
        for dataset in t["spec"]["datasets"]:
            if dataset not in spec.get("datasets", [dataset]):
                continue
            result, text = fixed_point_outcome(t, spec, groups.get((dataset, spec["learner"]), {}),
                                               groups.get((dataset, spec["rival"]), {}), report_seeds, scale)
            if result:
                outcomes.append(result)
                parts.append(f"{table_id} {dataset}: {text}")
    need = spec.get("at_least", len(outcomes))
    return combine(outcomes, need), summary(outcomes, need, parts)


def fixed_point_outcome(t, spec, mine, theirs, report_seeds, scale):
    """check_fixed_point_better on one dataset: (outcome, text), or (None, None) when no point pairs."""
    def shared(params):
        return tuple(json.loads(params).get(name) for name in spec["shared"])

    rivals = {shared(params): by_seed for params, by_seed in theirs.items()}
    if len(rivals) != len(theirs):
        raise ValueError(f"claim '{spec['id']}': {spec['rival']} has several grid points with the same "
                         f"{', '.join(spec['shared'])}, so a point of {spec['learner']} has no one rival")
    comparisons = []  # (params, comparison, in the stated direction, widest per-trial difference)
    for params, by_seed in mine.items():
        rival = rivals.get(shared(params), {})
        seeds = [s for s in report_seeds if s in by_seed and s in rival]
        if len(seeds) < 2:
            continue
        a, b = {s: by_seed[s][0] for s in seeds}, {s: rival[s][0] for s in seeds}
        comparisons.append((params, compare(a, b), better(t, sum(a.values()), sum(b.values())),
                            max(abs(a[s] - b[s]) for s in seeds)))
    if not comparisons:
        return None, None
    decisions = holm_step_down([c.p for _, c, _, _ in comparisons])
    wins = sum(1 for (_, _, right, _), (_, rejected) in zip(comparisons, decisions) if rejected and right)
    losses = sum(1 for (_, _, right, _), (_, rejected) in zip(comparisons, decisions) if rejected and not right)
    result = HOLDS if wins else FAILS if losses == len(comparisons) else TIE
    # The point closest to holding: in the stated direction with the smallest p, else the other way with the largest.
    closest = min(range(len(comparisons)),
                  key=lambda i: (not comparisons[i][2], comparisons[i][1].p * (1 if comparisons[i][2] else -1)))
    params, c, _, _ = comparisons[closest]
    shown = ", ".join(f"{k} {v}" for k, v in json.loads(params).items() if k in spec.get("show", spec["shared"]))
    return result, (f"{len(comparisons)} points, {wins} better and {losses} worse after Holm; closest to holding "
                    f"({shown}): {c.difference * scale:+.2f}, {c.text()} (Holm "
                    f"threshold {decisions[closest][0]:.2g}); per-trial differences up to "
                    f"{max(w for *_, w in comparisons) * scale:.2f} ({result})")


def check_monotone(page, spec):
    """Each of `learners` has its value falling (`direction` "decreasing") or rising along `datasets`, in the order
    given, every step beyond noise."""
    t, means = table_columns(page, spec["table"], spec.get("procedure", "held_out"))
    falling = spec.get("direction", "decreasing") == "decreasing"
    outcomes, parts = [], []
    for learner in spec["learners"]:
        series = [means.get(d, {}).get(learner) for d in spec["datasets"]]
        if None in series:
            continue
        steps = []
        for a, b in zip(series, series[1:]):
            c = compare(b.values, a.values)
            steps.append((outcome((b.mean < a.mean) if falling else (b.mean > a.mean), c), c))
        results = [s for s, _ in steps]
        result = FAILS if FAILS in results else HOLDS if all(s == HOLDS for s in results) else TIE
        outcomes.append(result)
        parts.append(f"{learner}: " + (" > " if falling else " < ").join(value_text(t, c.mean) for c in series)
                     + " (steps: " + ", ".join(f"{c.text()}" for _, c in steps) + f"; {result})")
    need = spec.get("at_least", len(outcomes))
    return combine(outcomes, need), summary(outcomes, need, parts)


def curve_deviations(t, column, curve):
    """Per trial: the mean absolute distance of its curve from the trials' median curve (a learning-curve figure's
    band width, trial by trial)."""
    import numpy as np

    seeds = sorted(column.values)
    series = t["trace"].curves([column.runs[s] for s in seeds], curve)
    length = min(len(v) for _, v in series)
    values = np.array([v[:length] for _, v in series], dtype=float)
    middle = np.median(values, axis=0)
    return {s: float(np.mean(np.abs(values[i] - middle))) for i, s in enumerate(seeds)}


def check_most_stable(page, spec):
    """`learner` spreads less over trials than every other learner of the table on at least `at_least` datasets:
    against the one with the next smallest spread, by the Brown-Forsythe test on the final values, or with "curve"
    by comparing the trials' mean distances from the median curve (the width of a learning-curve figure's band)."""
    t, means = table_columns(page, spec["table"], spec.get("procedure", "held_out"))
    learner = spec["learner"]
    outcomes, parts = [], []
    for dataset, by_learner in means.items():
        if learner not in by_learner or len(by_learner) < 2 or dataset not in spec.get("datasets", [dataset]):
            continue
        if "curve" in spec:
            spread = {n: curve_deviations(t, c, spec["curve"]) for n, c in by_learner.items()}
            size = {n: sum(v.values()) / len(v) for n, v in spread.items()}
        else:
            spread = {n: c.values for n, c in by_learner.items()}
            size = {n: c.std for n, c in by_learner.items()}
        rival = min((n for n in by_learner if n != learner), key=lambda n: size[n])
        c = compare(spread[learner], spread[rival]) if "curve" in spec else spread_comparison(spread[learner],
                                                                                               spread[rival])
        result = outcome(size[learner] < size[rival], c)
        outcomes.append(result)
        scale = t["spec"].get("scale", 1)
        parts.append(f"{dataset}: {size[learner] * scale:.2f} vs next smallest {rival} {size[rival] * scale:.2f}, "
                     f"{c.text()} ({result})")
    need = spec.get("at_least", len(outcomes))
    return combine(outcomes, need), summary(outcomes, need, parts)


# ---------------------------------------------------------------- checks on a sensitivity figure's series

def figure_spec(page, figure_id):
    return next(f for f in page.paper.spec["figures"] if f["id"] == figure_id)


def best_at_level(by_value, maximize=True):
    """The parameter value with the best mean at one noise level, and its trials."""
    pick = max if maximize else min
    value = pick(by_value, key=lambda v: by_value[v]["mean"])
    return value, by_value[value]


def check_noise_lowers_accuracy(page, spec):
    """In every series, the best accuracy over the parameter falls as the noise grows, every step beyond noise."""
    outcomes, parts = [], []
    for figure_id in spec["figures"]:
        for name, (series, levels) in page.sensitivity(figure_spec(page, figure_id)).items():
            best = [best_at_level(by)[1] for _, by in levels if by]
            steps = [compare(b["values"], a["values"]) for a, b in zip(best, best[1:])]
            results = [outcome(b["mean"] < a["mean"], c) for a, b, c in zip(best, best[1:], steps)]
            result = FAILS if FAILS in results else HOLDS if all(r == HOLDS for r in results) else TIE
            outcomes.append(result)
            parts.append(f"{name}: " + " > ".join(f"{b['mean'] * 100:.1f}" for b in best)
                         + " (steps: " + ", ".join(c.text() for c in steps) + f"; {result})")
    return combine(outcomes), "best accuracy per noise level: " + summary(outcomes, len(outcomes), parts)


def region_outcome(by_value, inside):
    """Whether the best setting lies in a region of the parameter: the best inside against the best outside, beyond
    noise (holds: inside better; fails: outside better; no setting outside: holds)."""
    ins = {v: s for v, s in by_value.items() if inside(v)}
    outs = {v: s for v, s in by_value.items() if not inside(v)}
    if not ins:
        return FAILS, "no setting in the region"
    a_value, a = best_at_level(ins)
    if not outs:
        return HOLDS, f"every setting is in the region (best {a_value:g})"
    b_value, b = best_at_level(outs)
    c = compare(a["values"], b["values"])
    return outcome(a["mean"] > b["mean"], c), (f"best in the region {a_value:g} ({a['mean'] * 100:.1f}) vs outside "
                                               f"{b_value:g} ({b['mean'] * 100:.1f}), {c.text()}")


def check_smaller_parameter_under_noise(page, spec):
    """In every series the best parameter at the noisiest level is no larger than the best without noise and lies in
    the guaranteed range (0, bound): the best setting in that region beats the best outside it, beyond noise."""
    outcomes, parts = [], []
    for figure_id in spec["figures"]:
        for name, (series, levels) in page.sensitivity(figure_spec(page, figure_id)).items():
            kept = [by for _, by in levels if by]
            clean_best = best_at_level(kept[0])[0]
            limit = min(clean_best, series["bound"])
            result, text = region_outcome(kept[-1], lambda v: v <= clean_best and v < series["bound"])
            outcomes.append(result)
            parts.append(f"{name}: at the largest noise, region <= {limit:g}: {text} ({result})")
    need = spec.get("at_least", len(outcomes))
    return combine(outcomes, need), summary(outcomes, need, parts)


def check_clean_prefers_outside_range(page, spec):
    """On some series without noise, the best parameter lies at or above the guaranteed range's bound: the best
    setting there beats the best below it, beyond noise."""
    outcomes, parts = [], []
    for figure_id in spec["figures"]:
        for name, (series, levels) in page.sensitivity(figure_spec(page, figure_id)).items():
            result, text = region_outcome(levels[0][1], lambda v: v >= series["bound"])
            outcomes.append(result)
            parts.append(f"{name}: without noise, region >= {series['bound']:.3g}: {text} ({result})")
    return combine(outcomes, 1), summary(outcomes, 1, parts)


# ---------------------------------------------------------------- checks on regret-ratio tables

def ratio_points(groups, label):
    """The label's settings as (mean queries, mean ratio, 95% half-interval, setting), sorted by queries."""
    return sorted((sum(g["queries"]) / len(g["queries"]), *mean_ci(g["ratio"]), setting)
                  for (l, setting), g in groups.items() if l == label)


def check_beats_passive_with_fewer_queries(page, spec):
    """Some setting of `label` asks for fewer labels than rounds and has a regret ratio to the passive learner whose
    95% interval lies below 1 (the setting with the lowest upper end is the one judged)."""
    _, groups = page.ratio_groups(spec["table"])
    rounds = next(iter(groups.values()))["rounds"] if groups else 0
    points = [p for p in ratio_points(groups, spec["label"]) if p[0] < rounds]
    if not points:
        return FAILS, "no run of " + spec["label"]
    q, mean, half, setting = min(points, key=lambda p: p[1] + (p[2] if not math.isnan(p[2]) else 0))
    result = interval_outcome(mean, half, 1.0, below=True)
    return result, (f"{spec['label']}'s best setting `{setting}`: ratio {mean:.3f} [{mean - half:.3f}, "
                    f"{mean + half:.3f}] at {q:.0f} queries ({q / rounds:.1%} of {rounds} rounds)")


def check_beats_passive_before_the_end(page, spec):
    """At some round of the table's "over_rounds", some setting of `label` has a cumulative regret ratio whose 95%
    interval lies below 1: the rule leads the passive learner at that horizon, whatever happens at the last round.
    Fails when every setting's interval lies above 1 at every round."""
    table, groups = page.ratio_groups(spec["table"])
    rounds = page.over_rounds(table, groups)
    if not rounds:
        return FAILS, "the runs end before the first of the table's over_rounds"
    leads, best, all_above = [], None, True
    for (label, setting), g in groups.items():
        if label != spec["label"]:
            continue
        for t in rounds:
            mean, half = mean_ci(g["ratio_at"][t])
            if best is None or mean < best[1]:
                best = (t, mean, half, setting)
            result = interval_outcome(mean, half, 1.0, below=True)
            if result == HOLDS:
                leads.append(t)
            all_above &= result == FAILS
    if best is None:
        return FAILS, "no run of " + spec["label"]
    t, mean, half, setting = best
    text = (f"{spec['label']}'s lowest mean ratio {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] at round {t:,} "
            f"(`{setting}`)")
    if leads:
        leads = sorted(set(leads))
        text += f"; some setting's interval lies below 1 at rounds " + ", ".join(f"{r:,}" for r in leads)
    return (HOLDS if leads else FAILS if all_above else TIE), text


def check_regret_rate_plateau(page, spec):
    """`label`'s learning curve has a plateau: its regret per round over the stretch of the table's "over_rounds"
    ending at `to` is not lower than over the stretch ending at `from` (the trials' paired difference is not
    significantly negative), and over the last stretch it is lower than at `to`, beyond noise. Fails when the curve
    falls significantly across the plateau or rises significantly after it."""
    table, groups = page.ratio_groups(spec["table"])
    rounds = page.over_rounds(table, groups)
    if spec["to"] not in rounds or spec["from"] not in rounds:
        return FAILS, "the runs end before round " + f"{spec['to']:,}"
    g = next((g for (label, _), g in groups.items() if label == spec["label"]), None)
    if g is None:
        return FAILS, "no run of " + spec["label"]

    def rate(t):  # per trial: regret per 1,000 rounds over the stretch ending at t
        return [1000 * r for r in page.stretch_rates(g, rounds, t)]

    def labels(t):
        return sum(g["queries_at"][t]) / len(g["queries_at"][t])

    first, middle, last = rate(spec["from"]), rate(spec["to"]), rate(rounds[-1])
    flat, flat_half = mean_ci([b - a for a, b in zip(first, middle)])
    fall, fall_half = mean_ci([b - a for a, b in zip(middle, last)])
    if flat + flat_half < 0 or fall - fall_half > 0:
        verdict = FAILS
    elif fall + fall_half < 0:
        verdict = HOLDS
    else:
        verdict = TIE
    return verdict, (f"{spec['label']}'s regret per 1,000 rounds: {sum(first) / len(first):.1f} with "
                     f"{labels(spec['from']):,.0f} labels, {sum(middle) / len(middle):.1f} with "
                     f"{labels(spec['to']):,.0f} (difference {flat:+.1f} [{flat - flat_half:+.1f}, "
                     f"{flat + flat_half:+.1f}]), {sum(last) / len(last):.1f} with {labels(rounds[-1]):,.0f} "
                     f"(difference from the middle {fall:+.1f} [{fall - fall_half:+.1f}, {fall + fall_half:+.1f}])")


def check_switch_saves(page, spec):
    """Some setting of `label` (a learner with the safety switch) switched in every trial, and its regret ratio's 95%
    interval lies below that of the `than` setting with the same query-rule parameters (the learner without the
    switch); fails when it lies above."""
    _, groups = page.ratio_groups(spec["table"])
    parts, results = [], []
    for (label, setting), g in groups.items():
        if label != spec["label"]:
            continue
        twin = next((key for key, other in groups.items()
                     if key[0] == spec["than"] and other["rule_params"] == g["rule_params"]), None)
        if twin is None:
            continue
        mean, half = mean_ci(g["ratio"])
        other, other_half = mean_ci(groups[twin]["ratio"])
        every = bool(g["switch_rounds"]) and all(r > 0 for r in g["switch_rounds"])
        if mean + half < other - other_half:
            results.append(HOLDS if every else TIE)
        elif mean - half > other + other_half:
            results.append(FAILS)
        else:
            results.append(TIE)
        parts.append(f"{label} `{setting}`: switched in {page.switch_summary(g)}, ratio {mean:.3f} "
                     f"[{mean - half:.3f}, {mean + half:.3f}] vs {spec['than']} {other:.3f} "
                     f"[{other - other_half:.3f}, {other + other_half:.3f}]")
    verdict = HOLDS if HOLDS in results else TIE if TIE in results else FAILS
    return verdict, "; ".join(parts) or "no pair of settings"


def check_never_switches(page, spec):
    """No run of `label` (a learner with the safety switch) switched: a count, no test needed."""
    _, groups = page.ratio_groups(spec["table"])
    rounds = [r for (label, _), g in groups.items() if label == spec["label"] for r in g["switch_rounds"]]
    fired = sum(r > 0 for r in rounds)
    return (HOLDS if rounds and fired == 0 else FAILS), f"{spec['label']} switched in {fired} of {len(rounds)} runs"


def check_above_passive(page, spec):
    """Every setting of `label` has a regret ratio to the passive learner whose 95% interval lies above 1 (the
    passive learner is better beyond noise)."""
    _, groups = page.ratio_groups(spec["table"])
    points = ratio_points(groups, spec["label"])
    results = [interval_outcome(r, half, 1.0, below=False) for _, r, half, _ in points]
    parts = [f"{r:.3f} [{r - half:.3f}, {r + half:.3f}] at {q:.0f} queries" for q, r, half, _ in points]
    return combine(results), f"{spec['label']}: " + "; ".join(parts)


def check_below_passive(page, spec):
    """Every setting of `label` has a regret ratio to the passive learner whose 95% interval lies below 1 (it is
    better than the passive reference beyond noise)."""
    _, groups = page.ratio_groups(spec["table"])
    points = ratio_points(groups, spec["label"])
    results = [interval_outcome(r, half, 1.0, below=True) for _, r, half, _ in points]
    parts = [f"{r:.3f} [{r - half:.3f}, {r + half:.3f}] at {q:.0f} queries" for q, r, half, _ in points]
    return combine(results), f"{spec['label']}: " + "; ".join(parts)


def check_best_at_equal_queries(page, spec):
    """At the query count of every setting of the `others` within `label`'s range, `label`'s ratio, interpolated
    trial by trial between its two settings nearest in queries, is lower than theirs beyond noise (paired over the
    trials). A statement that `label` is "no worse" (`within_interval`) holds only where it is better: where the test
    cannot tell them apart, it is a tie, consistent with "no worse" but not shown by the data."""
    _, groups = page.ratio_groups(spec["table"])
    mine = sorted(((sum(g["queries"]) / len(g["queries"]), g) for (l, _), g in groups.items() if l == spec["label"]),
                  key=lambda p: p[0])
    results, parts = [], []
    for other in spec["others"]:
        for (l, setting), g in groups.items():
            if l != other:
                continue
            q = sum(g["queries"]) / len(g["queries"])
            if not mine or q < mine[0][0] or q > mine[-1][0]:
                continue
            a, b = next((a, b) for a, b in zip(mine, mine[1:] + [mine[-1]]) if a[0] <= q <= b[0])
            w = (q - a[0]) / (b[0] - a[0]) if b[0] > a[0] else 0.0
            ra, rb = dict(zip(a[1]["seeds"], a[1]["ratio"])), dict(zip(b[1]["seeds"], b[1]["ratio"]))
            interpolated = {s: (1 - w) * ra[s] + w * rb[s] for s in ra if s in rb}
            theirs = dict(zip(g["seeds"], g["ratio"]))
            c = compare(interpolated, theirs)
            mean_mine = sum(interpolated.values()) / len(interpolated)
            mean_theirs = sum(theirs.values()) / len(theirs)
            result = outcome(mean_mine < mean_theirs, c)
            results.append(result)
            parts.append(f"{other} `{setting}` at {q:.0f} queries: {mean_theirs:.3f} vs {spec['label']} "
                         f"{mean_mine:.3f}, {c.text()} ({result})")
    need = spec.get("at_least", len(results))
    return combine(results, need), summary(results, need, parts)


def check_regret_higher_than(page, spec):
    """The mean absolute regret of each of `labels` (over all its settings' trials) is higher in `table` than in
    `than`, beyond noise (Welch: other runs)."""
    _, here = page.ratio_groups(spec["table"])
    _, there = page.ratio_groups(spec["than"])
    results, parts = [], []
    for label in spec["labels"]:
        a = [v for (l, _), g in here.items() if l == label for v in g["regret"]]
        b = [v for (l, _), g in there.items() if l == label for v in g["regret"]]
        c = compare(a, b)
        result = outcome(c.difference > 0, c)
        results.append(result)
        parts.append(f"{label}: {sum(a) / len(a):.1f} vs {sum(b) / len(b):.1f}, {c.text()} ({result})")
    return combine(results), "mean regret here vs there: " + "; ".join(parts)


def evaluate(page, spec):
    check = globals().get("check_" + spec["check"])
    if check is None:
        raise ValueError(f"claim '{spec['id']}': unknown check '{spec['check']}'")
    return check(page, spec)


LEVEL_TEXT = (f"A claim **holds** when the direction it states is measured and a two-sided test over the reported "
              f"trials finds it at the {ALPHA:.0%} level (a paired t-test where both sides ran the same trials, "
              "Welch's otherwise; for a ratio to the passive learner, its 95% interval against 1). Where the test "
              "cannot tell the difference from noise the verdict is **tie: not reproduced**; a significant difference "
              "the other way **fails**.")
