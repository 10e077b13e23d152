"""A table cell: one learner on one dataset under two selections of its grid point, both made by the core's
selection (`glimpse select`, the rule `glimpse summary` applies):

  same trials  the grid point with the best mean over the reported trials themselves (what "chose the best
               hyperparameter" on the reported runs amounts to; it flatters every learner)
  held out     the grid point with the best mean over other trials (the selection seeds), reported on the reported
               trials; or, for a table with `per_seed_by`, each reported trial's own grid point chosen by another
               metric on that trial's training part (cross-validation)

Each column keeps its per-trial values by seed and the runs behind them (the ledger's rows)."""
import math

import glimpse

from ..stats import mean_std
from ..trace_schema import curve as curve_fields, root, run as run_fields, selection, status, table as columns


class Column:
    """One selection's result: `params` (the grid point, or a text naming the per-trial choice), `values` and `runs`
    (seed -> the reported metric, seed -> run id), `chosen` (seed -> the grid point of that trial's run)."""

    def __init__(self, params, values, runs, chosen):
        self.params, self.values, self.runs, self.chosen = params, values, runs, chosen
        self.mean, self.std = mean_std(list(values.values()))


class Cell:
    def __init__(self, present, same=None, held_out=None):
        self.present, self.same, self.held_out = present, same, held_out

    def column(self, name):
        return getattr(self, name) if self.present else None


class TraceView:
    """A trace file as the page reads it: its /summary rows grouped by grid point, and the core's selections."""

    def __init__(self, path):
        self.path = path
        self.trace = glimpse.open(path)
        self.selection_metric = self.trace.attrs[root.selection_metric]
        self.maximize = self.trace.attrs[root.selection_goal] == selection.maximize
        self.rows = self.trace.summary
        self._groups, self._selections = {}, {}

    def groups(self, metric):
        """(dataset, label) -> params -> {seed: (value, run)} over complete runs; computed once per metric."""
        if metric not in self._groups:
            out = self._groups[metric] = {}
            if metric in self.rows.columns:
                complete = self.rows[self.rows[run_fields.status] == status.complete]
                for dataset, label, params, seed, value, run in zip(
                        complete[run_fields.dataset], complete[run_fields.label], complete[run_fields.params],
                        complete[run_fields.seed], complete[metric], complete[columns.run]):
                    out.setdefault((dataset, label), {}).setdefault(params, {})[int(seed)] = (float(value), run)
        return self._groups[metric]

    def run_seconds(self):
        return dict(zip(self.rows[columns.run], self.rows[run_fields.seconds].astype(float)))

    def select(self, metric, maximize, seeds, per_seed=False):
        """(dataset, label) -> the core's choice: {"params", "runs": [{"run", "seed", "params"}]}."""
        key = (metric, maximize, tuple(seeds), per_seed)
        if key not in self._selections:
            goal = selection.maximize if maximize else selection.minimize
            chosen = self.trace.select(metric, goal, seeds=seeds, per_seed=per_seed)
            self._selections[key] = {(c["dataset"], c["label"]): c for c in chosen}
        return self._selections[key]

    def curves(self, runs, curve):
        """Each run's curve `curve` as (rounds, values)."""
        import h5py

        with h5py.File(self.path, "r") as f:
            found = [f[root.runs][run][run_fields.curves_group][curve] for run in runs]
            return [(values[curve_fields.round][()], values[curve_fields.value][()]) for values in found]


def measure(trace, dataset, label, metric, report_seeds, selection_seeds, maximize, per_seed_by=None, select_by=None):
    """The cell of (dataset, label) under both selections. `per_seed_by` = (metric, maximize): the held-out column
    chooses per reported trial by that metric; `select_by` = (metric, maximize): both columns choose by another
    metric than the one reported."""
    points = trace.groups(metric).get((dataset, label))
    if not points:
        return Cell(False)
    choose_metric, choose_max = select_by if select_by else (metric, maximize)

    def at_point(params):
        by_seed = points.get(params, {})
        seeds = [s for s in report_seeds if s in by_seed]
        return Column(params, {s: by_seed[s][0] for s in seeds}, {s: by_seed[s][1] for s in seeds},
                      {s: params for s in seeds})

    def chosen_on(seeds):
        if not seeds:
            # one grid point: nothing to choose, so nothing is chosen on the trials
            return at_point(next(iter(points))) if len(points) == 1 else None
        choice = trace.select(choose_metric, choose_max, seeds).get((dataset, label))
        return at_point(choice["params"]) if choice else None

    same = chosen_on(report_seeds)
    if per_seed_by:
        choice = trace.select(per_seed_by[0], per_seed_by[1], report_seeds, per_seed=True).get((dataset, label))
        held_out = None
        if choice:
            values, runs, chosen = {}, {}, {}
            for run in choice["runs"]:
                seed = int(run["seed"])
                entry = points.get(run["params"], {}).get(seed)
                if entry:
                    values[seed], runs[seed], chosen[seed] = entry[0], entry[1], run["params"]
            held_out = Column(choice["params"], values, runs, chosen) if values else None
    else:
        held_out = chosen_on(selection_seeds)
    return Cell(True, same, held_out)


def fmt(value, scale, digits):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value * scale:.{digits}f}"


def column_text(column, scale, digits):
    return f"{fmt(column.mean, scale, digits)} ({fmt(column.std, scale, digits)})" if column else "-"
