"""The ledger beside a page (docs/results/PAPER.cells.csv): one row per trial behind every cell, ratio and series the
page shows, with the protocol and run that produced it, so that a reader can rerun exactly those runs
(`glimpse reproduce PAPER --verify`) and compare them bit for bit.

Columns: cell (its id on the page: table/dataset/learner, ratio:TABLE/label/setting,
sensitivity:FIGURE/series/dataset/value), column (same, held_out, regret, passive_regret, value), seed, metric,
value (the run's final metric, unscaled, as Python's repr writes a double: it reads back to the same bits), params
(the run's grid point), protocol (the file under protocols/PAPER/), run (its id in that protocol's trace), seconds (the
run's own time, so a sample can keep to a budget)."""
import csv

FIELDS = ["cell", "column", "seed", "metric", "value", "params", "protocol", "run", "seconds"]


class Ledger:
    def __init__(self):
        self.rows = []
        self._seen = set()

    def add(self, cell, column, seed, metric, value, params, protocol, run, seconds):
        key = (cell, column, seed, run)
        if key in self._seen:  # a figure or claim reading a cell again
            return
        self._seen.add(key)
        self.rows.append({"cell": cell, "column": column, "seed": int(seed), "metric": metric, "value": repr(float(value)),
                          "params": params, "protocol": protocol, "run": run, "seconds": f"{float(seconds):.3f}"})

    def add_column(self, cell, name, column, metric, protocol, seconds):
        """A cell's column (cells.Column): one row per reported trial."""
        if column is None:
            return
        for seed, value in column.values.items():
            run = column.runs[seed]
            self.add(cell, name, seed, metric, value, column.chosen[seed], protocol, run, seconds.get(run, 0.0))

    def write(self, path):
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", newline="") as f:
            writer = csv.DictWriter(f, FIELDS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(self.rows)


def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
