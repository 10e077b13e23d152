"""Selective sampling on the page: each run's final regret divided by the passive learner's on the same trial (same
data, same order), per learner and query-rule setting, with the queries it asked, when a safety switch fired, and the
ratio of cumulative regrets up to chosen rounds (a ratio table's "over_rounds")."""
from ..bandit import read_bandit_runs, regret_ratio_groups
from ..stats import mean_ci


class RatioTables:
    """The ratio tables of a page, each read from its trace once."""

    def __init__(self, page):
        self.page = page
        self._groups = {}

    def spec(self, table_id):
        return next(t for t in self.page.paper.spec["ratio_tables"] if t["id"] == table_id)

    def groups(self, table_id):
        """(spec, (label, rule setting) -> the ratios and the runs behind them, over the reported trials)."""
        if table_id not in self._groups:
            spec = self.spec(table_id)
            trace = self.page.traces[spec["protocol"]]
            at_rounds = tuple(spec.get("over_rounds", ()))
            runs = read_bandit_runs(str(trace.path), curves=bool(at_rounds))
            report = set(self.page.paper.seeds(spec, self.page.quick)[0])
            runs = [r for r in runs if r["seed"] in report]
            if at_rounds and runs:  # a --quick run is shorter: only the rounds it reached
                length = min(r["rounds"] for r in runs)
                at_rounds = tuple(t for t in at_rounds if t <= length)
            groups = regret_ratio_groups(runs, spec.get("passive", "passive"), at_rounds) if runs else {}
            self._groups[table_id] = (spec, {(label, setting): g for (_, label, setting), g in groups.items()})
            self.add_to_ledger(spec, trace, self._groups[table_id][1])
        return self._groups[table_id]

    def add_to_ledger(self, spec, trace, groups):
        seconds = trace.run_seconds()
        params = dict(zip(trace.rows["run"], trace.rows["params"]))
        for (label, setting), g in groups.items():
            cell = f"ratio:{spec['id']}/{label}/{setting or '-'}"
            for seed, regret, run, passive, passive_run in zip(g["seeds"], g["regret"], g["runs"], g["passive"],
                                                               g["passive_runs"]):
                self.page.ledger.add(cell, "regret", seed, "regret", regret, params.get(run, ""), spec["protocol"],
                                     run, seconds.get(run, 0.0))
                self.page.ledger.add(cell, "passive_regret", seed, "regret", passive, params.get(passive_run, ""),
                                     spec["protocol"], passive_run, seconds.get(passive_run, 0.0))

    @staticmethod
    def over_rounds(spec, groups=None):
        """The rounds a ratio table lists as "over_rounds", or (); given the table's groups, only those within its runs
        (a --quick run is shorter)."""
        rounds = tuple(spec.get("over_rounds", ()))
        if groups:
            length = max(g["rounds"] for g in groups.values())
            rounds = tuple(t for t in rounds if t <= length)
        return rounds

    @staticmethod
    def stretch_rates(group, rounds, t):
        """Per trial: the regret per round over the stretch of `rounds` that ends at t (it starts at the round before t
        in `rounds`, or at 0)."""
        i = rounds.index(t)
        start = rounds[i - 1] if i else 0
        before = group["regret_at"][start] if start else [0.0] * len(group["regret_at"][t])
        return [(b - a) / (t - start) for a, b in zip(before, group["regret_at"][t])]

    @classmethod
    def regret_rates(cls, group, rounds):
        """(mean regret per round over the stretch ending at t, mean labels at t) for each t of `rounds`."""
        rates = []
        for t in rounds:
            per_trial, labels = cls.stretch_rates(group, rounds, t), group["queries_at"][t]
            rates.append((sum(per_trial) / len(per_trial), sum(labels) / len(labels)))
        return rates

    @staticmethod
    def switch_summary(group):
        """'k of n (rounds first-last)': in how many trials a safety switch fired, and when; '-' without one."""
        rounds = group["switch_rounds"]
        if not rounds:
            return "-"
        fired = sorted(r for r in rounds if r > 0)
        span = f" (rounds {fired[0]:,.0f}-{fired[-1]:,.0f})" if fired else ""
        return f"{len(fired)} of {len(rounds)}{span}"

    def write(self, spec):
        _, groups = self.groups(spec["id"])
        out = self.page.lines
        out.append(f"## {spec['title']}\n")
        out.append(f"The paper's {spec['source']}. {spec.get('setting', '')}".strip() + "\n")
        out.append(f"Runs: `{self.page.run_info[spec['protocol']]['command']}`. Each run's final regret divided by the "
                   "passive learner's on the same seed (same data, same order); mean and 95% interval over the "
                   f"{len(self.page.paper.seeds(spec, self.page.quick)[0])} reported trials.\n")
        switch = any(g["switch_rounds"] for g in groups.values())  # a safety switch among the learners
        out.append("| learner | rule setting | trials | mean queries | share of rounds | regret ratio [95% interval] | "
                   "mean regret | passive's |" + (" safety switch fired |" if switch else ""))
        out.append("|---|---|---|---|---|---|---|---|" + ("---|" if switch else ""))
        for (label, setting), g in groups.items():
            mean, half = mean_ci(g["ratio"])
            queries = sum(g["queries"]) / len(g["queries"])
            out.append(f"| {label} | `{setting or '-'}` | {len(g['ratio'])} | {queries:.0f} | "
                       f"{queries / g['rounds']:.1%} | {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] | "
                       f"{sum(g['regret']) / len(g['regret']):.1f} | {sum(g['passive']) / len(g['passive']):.1f} |"
                       + (f" {self.switch_summary(g)} |" if switch else ""))
        out.append("")
        self.write_over_rounds(spec, groups)

    def write_over_rounds(self, spec, groups):
        """The ratio of cumulative regrets up to each of the spec's rounds, and the learning curves."""
        rounds = self.over_rounds(spec, groups)
        if not rounds:
            return
        out = self.page.lines
        out.append("The same runs, cumulative regret up to round t divided by the passive learner's up to round t: mean "
                   "and 95% half-interval over the trials.\n")
        out.append("| learner | rule setting | " + " | ".join(f"t = {t:,}" for t in rounds) + " |")
        out.append("|---|---|" + "---|" * len(rounds))
        for (label, setting), g in groups.items():
            if label == spec.get("passive", "passive"):
                continue
            cells = []
            for t in rounds:
                mean, half = mean_ci(g["ratio_at"][t])
                cells.append(f"{mean:.3f} ± {half:.3f}")
            out.append(f"| {label} | `{setting or '-'}` | " + " | ".join(cells) + " |")
        out.append("")
        out.append("The same runs as learning curves: regret per 1,000 rounds over each stretch of rounds ending at t "
                   "(the cumulative regret's increase over the stretch, scaled to 1,000 rounds), and in brackets the "
                   "labels the learner holds at t; means over the trials.\n")
        out.append("| learner | rule setting | " + " | ".join(f"t = {t:,}" for t in rounds) + " |")
        out.append("|---|---|" + "---|" * len(rounds))
        for (label, setting), g in groups.items():
            cells = [f"{1000 * rate:.0f} ({labels:,.0f})" for rate, labels in self.regret_rates(g, rounds)]
            out.append(f"| {label} | `{setting or '-'}` | " + " | ".join(cells) + " |")
        out.append("")
