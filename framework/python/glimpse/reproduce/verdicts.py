"""A claim's verdicts and the pieces every check builds them from: one comparison's outcome (the stated direction
and a significant test), several outcomes combined, a mean's interval against a bound, and a table's chosen columns
(claims.py's checks use them)."""
import math

HOLDS, TIE, FAILS = "holds", "tie: not reproduced", "fails"


def outcome(right_way, comparison):
    """One comparison's outcome: the stated direction, significant (holds); the other, significant (fails); else a
    tie."""
    if comparison.significant:
        return HOLDS if right_way else FAILS
    return TIE


def combine(outcomes, need=None):
    """A claim's verdict from its parts' outcomes: at least `need` (default: all) must hold."""
    need = len(outcomes) if need is None else need
    wins, ties = outcomes.count(HOLDS), outcomes.count(TIE)
    if not outcomes:
        return FAILS
    if wins >= need:
        return HOLDS
    return TIE if wins + ties >= need else FAILS


def interval_outcome(mean, half, bound, below):
    """A mean's 95% interval against a bound: wholly on the stated side (holds), wholly on the other (fails), or
    across it (a tie)."""
    if math.isnan(half):
        return TIE
    if (mean + half < bound) if below else (mean - half > bound):
        return HOLDS
    if (mean - half > bound) if below else (mean + half < bound):
        return FAILS
    return TIE


def summary(outcomes, need, parts):
    return f"{outcomes.count(HOLDS)} of {len(outcomes)} hold (needs {need}), {outcomes.count(TIE)} ties: " + "; ".join(
        parts)


def table_columns(page, table_id, procedure):
    """(table, dataset -> learner -> the chosen column) for a table already on the page."""
    t = page.tables[table_id]
    by_dataset = {}
    for (dataset, learner), cell in t["cells"].items():
        column = cell.column(procedure)
        if column and column.values:
            by_dataset.setdefault(dataset, {})[learner] = column
    return t, by_dataset


def better(t, a, b):
    maximize = t["spec"]["goal"] == "max" if "goal" in t["spec"] else t["trace"].maximize
    return a > b if maximize else a < b


def best_of(t, by_learner, names):
    """The learner among `names` with the best mean in table t (the first on ties); None if none is there."""
    best = None
    for name in names:
        if name in by_learner and (best is None or better(t, by_learner[name].mean, by_learner[best].mean)):
            best = name
    return best


def value_text(t, value):
    return f"{value * t['spec'].get('scale', 1):.{t['spec'].get('digits', 1)}f}"
