"""The page's figures, drawn with matplotlib and written as PNG and SVG under img/PAPER/:

  curves          a table's learning curves at its chosen grid points (mean and std over the reported trials)
  sensitivity     a metric against a parameter, one line per noise level, per series
  across_datasets a table's metric against a value per dataset (e.g. the labelled rate)
  regret_ratio    one panel per ratio table: each rule setting's mean regret ratio (95% interval) against its queries
"""
import json
import os

from ..report_figures import draw_regret_ratio
from ..stats import mean_std


def sensitivity(page, spec):
    """series name -> (series, [(dataset, {parameter value: {"mean", "std", "values": seed -> value}})]) in the
    figure's noise order, over the reported trials; each point's runs go to the ledger."""
    trace = page.traces[spec["protocol"]]
    metric = spec.get("metric", trace.selection_metric)
    report_seeds, _ = page.paper.seeds(spec, page.quick)
    groups = trace.groups(metric)
    seconds = trace.run_seconds()
    out = {}
    for series in spec["series"]:
        levels = []
        for dataset in series["datasets"]:
            by_value = {}
            for (d, label), points in groups.items():
                if d != dataset or label != spec["learner"]:
                    continue
                for params, by_seed in points.items():
                    value = json.loads(params.split(" ", 1)[-1])[spec["param"]]
                    values = {s: by_seed[s][0] for s in report_seeds if s in by_seed}
                    mean, std = mean_std(list(values.values()))
                    by_value[value] = {"mean": mean, "std": std, "values": values}
                    cell = f"sensitivity:{spec['id']}/{series['name']}/{dataset}/{value:g}"
                    for s in values:
                        run = by_seed[s][1]
                        page.ledger.add(cell, "value", s, metric, values[s], params, spec["protocol"], run,
                                        seconds.get(run, 0.0))
            levels.append((dataset, dict(sorted(by_value.items()))))
        out[series["name"]] = (series, levels)
    return out


def write_figure(page, spec):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kind = spec["kind"]
    panels = {"curves": curve_panels, "across_datasets": across_panels, "regret_ratio": ratio_panels,
              "sensitivity": sensitivity_panels}[kind](page, spec)
    columns = min(3, len(panels))
    rows = (len(panels) + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
    for ax, (title, draw) in zip(axes.flat, panels):
        draw(ax)
        ax.set_title(title, fontsize=10)
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    page.img_dir.mkdir(parents=True, exist_ok=True)
    names = []
    matplotlib.rcParams["svg.hashsalt"] = "glimpse"  # the same figure, the same file: no churn in git
    for ext in ("png", "svg"):
        path = page.img_dir / f"{spec['id']}.{ext}"
        fig.savefig(path, dpi=110, metadata={"Date": None} if ext == "svg" else {"Software": None})
        names.append(os.path.relpath(path, page.out_dir))
    plt.close(fig)
    page.lines.append(f"### {spec['title']}\n")
    if "report_seeds" in spec:
        trials = len(page.paper.seeds(spec, page.quick)[0])
    elif "table" in spec:
        trials = len(page.paper.seeds(page.tables[spec["table"]]["spec"], page.quick)[0])
    else:
        trials = len(page.paper.seeds(page.ratios.spec(spec["tables"][0]), page.quick)[0])
    # A regret-ratio figure shows 95% intervals (its caption says so), the others one std.
    spread = f"{trials} trials." if kind == "regret_ratio" else f"Mean and std over {trials} trials."
    page.lines.append(spec.get("caption", "") + f" {spread}\n")
    page.lines.append(f"![{spec['title']}]({names[0]}) ([SVG]({names[1]}))\n")


def curve_panels(page, spec):
    t = page.tables[spec["table"]]
    trace, cells = t["trace"], t["cells"]
    procedure = spec.get("procedure", "held_out")
    panels = []
    for dataset, title in t["spec"]["datasets"].items():
        def draw(ax, dataset=dataset):
            for learner, learner_title in t["spec"]["learners"].items():
                cell = cells.get((dataset, learner))
                chosen = cell.column(procedure) if cell else None
                if not chosen or not chosen.runs:
                    continue
                series = trace.curves([chosen.runs[s] for s in sorted(chosen.runs)], spec["curve"])
                length = min(len(v) for _, v in series)
                rounds = series[0][0][:length]
                values = [[v[i] * 100 for _, v in series] for i in range(length)]
                means = [sum(v) / len(v) for v in values]
                stds = [mean_std(v)[1] for v in values]
                if length < 3:  # a batch run tested only at its end: points with error bars
                    ax.errorbar(rounds, means, yerr=stds, marker="o", linestyle="none", capsize=4, label=learner_title)
                    continue
                ax.plot(rounds, means, label=learner_title, linewidth=1)
                ax.fill_between(rounds, [max(0, m - s) for m, s in zip(means, stds)],
                                [min(100, m + s) for m, s in zip(means, stds)], alpha=0.2)
            ax.set_xlabel(spec.get("xlabel", "round"))
            ax.set_ylabel(spec.get("ylabel", "% correct proposals"))
        panels.append((title, draw))
    return panels


def ratio_panels(page, spec):
    """One panel per ratio table: each learner's mean regret ratio (95% interval) against its mean queries."""
    panels = []
    for table_id in spec["tables"]:
        table_spec, groups = page.ratio_groups(table_id)

        def draw(ax, groups=groups, table_spec=table_spec):
            draw_regret_ratio(ax, groups, table_spec.get("passive", "passive"), trials=spec.get("trials", False))

        panels.append((table_spec["title"], draw))
    return panels


def across_panels(page, spec):
    """One panel: the table's metric (mean and std of the held-out selection) per learner against the value `x[i]`
    that stands for the table's i-th dataset (e.g. the labelled rate)."""
    t = page.tables[spec["table"]]
    scale = t["spec"].get("scale", 1)
    procedure = spec.get("procedure", "held_out")

    def draw(ax):
        for learner, title in t["spec"]["learners"].items():
            points = []
            for x, d in zip(spec["x"], t["spec"]["datasets"]):
                cell = t["cells"].get((d, learner))
                column = cell.column(procedure) if cell else None
                if column and column.values:
                    points.append((x, column))
            ax.errorbar([x for x, _ in points], [c.mean * scale for _, c in points],
                        yerr=[c.std * scale for _, c in points], marker=".", capsize=3, label=title, linewidth=1)
        ax.set_xlabel(spec.get("xlabel", ""))
        ax.set_ylabel(spec.get("ylabel", ""))

    return [(spec.get("panel_title", ""), draw)]


def sensitivity_panels(page, spec):
    panels = []
    for name, (series, levels) in page.sensitivity(spec).items():
        def draw(ax, series=series, levels=levels):
            for (dataset, by), level in zip(levels, series["levels"]):
                xs = list(by)
                ms = [by[x]["mean"] * 100 for x in xs]
                ss = [by[x]["std"] * 100 for x in xs]
                ax.plot(xs, ms, marker=".", label=level, linewidth=1)
                ax.fill_between(xs, [m - s for m, s in zip(ms, ss)], [m + s for m, s in zip(ms, ss)], alpha=0.15)
            ax.axvspan(0, series["bound"], color="red", alpha=0.08)
            ax.set_xlabel(spec["param"])
            ax.set_ylabel("% correct")
        panels.append((series["title"], draw))
    return panels
