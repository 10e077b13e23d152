"""The statistics glimpse's Python side uses, in one place: means and sample standard deviations, Student-t
intervals, the two-sample tests behind every claim of a results page, and average ranks over datasets with the
Friedman test and Holm's comparisons (SciPy, Debian's python3-scipy).

A comparison of two sets of trials is paired (scipy.stats.ttest_rel) when both hold the same trials (the same seeds:
same rows, same order, same oracle draws) and Welch's t-test (scipy.stats.ttest_ind, equal_var=False) otherwise.
"""
import math
import statistics

ALPHA = 0.05  # the level every test on a results page uses; the page prints it


def mean_std(values):
    """(mean, sample standard deviation); NaN for no values, std 0 for one."""
    values = [float(v) for v in values]
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    mean = sum(values) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return mean, std


def mean_ci(values, level=0.95):
    """Mean and half-width of its Student-t interval at `level` (NaN half-width for fewer than two values)."""
    from scipy import stats

    mean, std = mean_std(values)
    n = len(values)
    if n < 2:
        return mean, math.nan
    return mean, float(stats.t.ppf(0.5 + level / 2, n - 1)) * std / math.sqrt(n)


class Comparison:
    """Two sets of trials compared: `difference` (mean of a minus mean of b), the test's two-sided `p`, and whether
    the test was `paired`."""

    def __init__(self, difference, p, paired):
        self.difference, self.p, self.paired = difference, p, paired

    @property
    def significant(self):
        return self.p < ALPHA

    def text(self):
        return f"p = {self.p:.2g}{'' if self.paired else ', Welch'}"


def compare(a, b):
    """Compares trials `a` and `b`, each a dict seed -> value (or a list, then never paired)."""
    from scipy import stats

    if isinstance(a, dict) and isinstance(b, dict) and len(a) > 1 and set(a) == set(b):
        seeds = sorted(a)
        x, y = [a[s] for s in seeds], [b[s] for s in seeds]
        differences = [u - v for u, v in zip(x, y)]
        mean_difference = sum(differences) / len(differences)
        if all(d == differences[0] for d in differences):  # no spread: the test is undefined
            return Comparison(mean_difference, 1.0 if mean_difference == 0 else 0.0, True)
        return Comparison(mean_difference, float(stats.ttest_rel(x, y).pvalue), True)
    x = list(a.values()) if isinstance(a, dict) else list(a)
    y = list(b.values()) if isinstance(b, dict) else list(b)
    difference = mean_std(x)[0] - mean_std(y)[0]
    if len(x) < 2 or len(y) < 2:
        return Comparison(difference, math.nan, False)
    if mean_std(x)[1] == 0 and mean_std(y)[1] == 0:
        return Comparison(difference, 1.0 if difference == 0 else 0.0, False)
    return Comparison(difference, float(stats.ttest_ind(x, y, equal_var=False).pvalue), False)


def spread_comparison(a, b):
    """Whether trials `a` spread less than trials `b`: the Brown-Forsythe test (Levene's, centred on the median), as
    a Comparison of the two groups' mean absolute deviations from their medians."""
    from scipy import stats

    x = list(a.values()) if isinstance(a, dict) else list(a)
    y = list(b.values()) if isinstance(b, dict) else list(b)
    def deviation(values):
        middle = statistics.median(values)
        return sum(abs(v - middle) for v in values) / len(values)

    difference = deviation(x) - deviation(y)
    if len(x) < 2 or len(y) < 2:
        return Comparison(difference, math.nan, False)
    p = float(stats.levene(x, y, center="median").pvalue)
    return Comparison(difference, 1.0 if math.isnan(p) else p, False)


def holm_step_down(p_values):
    """Holm's step-down procedure at ALPHA over several tests: for each p-value, in the order given, its threshold
    (ALPHA over the number of tests not yet rejected) and whether its null hypothesis is rejected. The smallest p is
    tested first; the first that misses its threshold stops the rejections."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    decisions, rejecting = [None] * len(p_values), True
    for step, i in enumerate(order):
        threshold = ALPHA / (len(p_values) - step)
        rejecting = rejecting and p_values[i] < threshold
        decisions[i] = (threshold, rejecting)
    return decisions


def rank_learners(table, learners):
    """Average ranks over datasets with the Friedman test and Holm's step-down comparisons of every learner with the
    best-ranked, z from the average ranks (Demsar, JMLR 2006), as `glimpse report` computes them for a sweep.
    `table`: one row per dataset, one score per learner (lower is better; ties share the mean rank); at least two
    of each. Returns {learners, ranks: {learner: rank}, best, friedman_p (NaN below three learners), holm: [{learner,
    z, p, threshold, differs}] from the largest |z|, datasets, critical_difference (Nemenyi's, at ALPHA)}."""
    import numpy as np
    from scipy import stats

    table = np.asarray(table, dtype=float)
    n, k = table.shape
    ranks = np.array([stats.rankdata(row) for row in table]).mean(axis=0)
    friedman_p = float(stats.friedmanchisquare(*table.T).pvalue) if k >= 3 else math.nan
    best = int(np.argmin(ranks))
    scale = math.sqrt(k * (k + 1) / (6.0 * n))
    comparisons = sorted(((learners[j], (ranks[j] - ranks[best]) / scale) for j in range(k) if j != best),
                         key=lambda c: abs(c[1]), reverse=True)
    p_values = [float(2 * stats.norm.sf(abs(z))) for _, z in comparisons]
    holm = [{"learner": learner, "z": float(z), "p": p, "threshold": threshold, "differs": differs}
            for (learner, z), p, (threshold, differs) in zip(comparisons, p_values, holm_step_down(p_values))]
    # Nemenyi's critical difference of average ranks: for figures (the tests are Holm's).
    cd = float(stats.studentized_range.ppf(1 - ALPHA, k, np.inf) / math.sqrt(2) * scale)
    return {"learners": list(learners), "ranks": {l: float(r) for l, r in zip(learners, ranks)},
            "best": learners[best], "friedman_p": friedman_p, "holm": holm, "datasets": n, "critical_difference": cd}
