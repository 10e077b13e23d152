"""A paper's table on the page: per dataset and learner the paper's mean (std), the same-trials column and the
held-out column, and each cell's status against the paper, judged on the held-out column (the figure to believe).
A table with `role: reading` runs the paper's procedure with a setting it leaves unstated chosen another way; it is
shown whole, and its count line says which cells it brings within 2 paper std and which it moves further away."""
from .cells import column_text, measure
from .common import seed_text

STATUSES = ("within 1 std", "within 2 std", "outside 2 std")


def status_of(measured, paper_mean, paper_std, resolution):
    """Within 1 or 2 of the paper's standard deviations. The paper's mean is known only to half its last printed
    digit, so that much of the gap is forgiven; a printed std of 0.0 counts as half the last digit."""
    spread = max(paper_std, resolution / 2)
    gap = max(0.0, abs(measured - paper_mean) - resolution / 2) / spread
    return gap, ("within 1 std" if gap <= 1 else "within 2 std" if gap <= 2 else "outside 2 std")


def maximize_of(spec, trace):
    return spec["goal"] == "max" if "goal" in spec else trace.maximize


def write_table(page, spec):
    trace = page.traces[spec["protocol"]]
    metric = spec.get("metric", trace.selection_metric)
    scale, digits = spec.get("scale", 1), spec.get("digits", 1)
    report_seeds, selection_seeds = page.paper.seeds(spec, page.quick)
    paper_cells = {(c["dataset"], c["learner"]): c for c in spec.get("paper", [])}
    stand_ins = spec.get("stand_ins", {})
    per_seed = spec.get("per_seed_by")  # {"metric": "cv_error", "goal": "min"}: cross-validation per split
    select_by = spec.get("select_by")  # {"metric": "confusion", "goal": "min"}: as the protocol chooses
    reading = spec.get("role") == "reading"
    maximize = maximize_of(spec, trace)
    seconds = trace.run_seconds()
    out = page.lines
    out.append(f"## {spec['title']}\n")
    out.append(f"The paper's {spec['source']}. {spec.get('setting', '')}".strip() + "\n")
    if reading:
        out.append("*A reading, not a reproduction*: this table runs the paper's procedure with one of the settings it "
                   "leaves unstated chosen another way, on every dataset of the table. Its cells are compared with the "
                   "paper's numbers and with the reproduction's; they are not counted among the page's cells. "
                   "{moves}\n")
        moves_line = len(out) - 1
    held_out_text = (
        f"each trial's own grid point, the one with the best `{per_seed['metric']}` on that trial's training part "
        "(cross-validation), reported on its test part" if per_seed else
        f"the grid point with the best mean over other trials (seeds {seed_text(selection_seeds)}), then reported on "
        "the reported trials")
    if select_by:
        held_out_text += f" (both choose by `{select_by['metric']}`, as the protocol does)"
    out.append(f"Runs: `{page.run_info[spec['protocol']]['command']}`. Metric `{metric}` (x{scale}); mean (sample std) "
               f"over the {len(report_seeds)} reported trials (seeds {seed_text(report_seeds)}). **same trials**: the "
               "grid point with the best mean over the reported trials themselves (what \"chose the best "
               "hyperparameter\" on the reported runs amounts to; flatters every learner). "
               f"**held out**: {held_out_text}: the figure to believe, and the one each cell's status compares with the "
               "paper.\n")
    learners = spec["learners"]
    out.append("| dataset | " + " | ".join(f"{title} paper | same trials | held out" for title in learners.values()) + " |")
    out.append("|---|" + "---|---|---|" * len(learners))
    cells, gaps, detail = {}, {}, []
    for dataset, dataset_title in spec["datasets"].items():
        row = [dataset_title]
        for learner in learners:
            cell = measure(trace, dataset, learner, metric, report_seeds, selection_seeds, maximize,
                           (per_seed["metric"], per_seed.get("goal", "min") == "max") if per_seed else None,
                           (select_by["metric"], select_by.get("goal", "max") == "max") if select_by else None)
            cells[(dataset, learner)] = cell
            key = f"{spec['id']}/{dataset}/{learner}"
            same, held = cell.column("same"), cell.column("held_out")
            page.ledger.add_column(key, "same", same, metric, spec["protocol"], seconds)
            page.ledger.add_column(key, "held_out", held, metric, spec["protocol"], seconds)
            pc = paper_cells.get((dataset, learner))
            paper_text = f"{pc['mean']:.{digits}f} ({pc['std']:.{digits}f})" if pc else (
                f"({stand_ins[dataset]})" if dataset in stand_ins else "-")
            row += [paper_text, column_text(same, scale, digits), column_text(held, scale, digits)]
            if pc and held:
                gap, status = status_of(held.mean * scale, pc["mean"], pc["std"], 10.0 ** -digits)
                gaps[(dataset, learner)] = (gap, status)
                if reading:
                    verdict = status + " (a reading; not counted)"
                else:
                    page.counts[status] += 1
                    verdict = status if status != "outside 2 std" else status + ", " + page.explain(key)
                detail.append((key, f"{held.mean * scale - pc['mean']:+.{digits}f}", f"{gap:.1f}", verdict,
                               same.params if same else "-", held.params))
            elif same or held:
                if not reading:
                    page.counts["no paper number"] += 1
                detail.append((key, "", "", "no paper number" + (f" ({stand_ins[dataset]})" if dataset in stand_ins
                                                                  else ""),
                               same.params if same else "-", held.params if held else "-"))
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    out.append("<details><summary>Per cell: gap to the paper (held out), status, chosen grid points</summary>\n")
    out.append("Gap: |held out - paper| less half the paper's last printed digit (its rounding), in paper stds.\n")
    out.append("| cell | held out - paper | gap / paper std | status | chosen (same trials) | chosen (held out) |")
    out.append("|---|---|---|---|---|---|")
    for row in detail:
        out.append("| " + " | ".join(f"`{c}`" if i in (0, 4, 5) and c not in ("", "-") else c
                                     for i, c in enumerate(row)) + " |")
    out.append("\n</details>\n")
    page.tables[spec["id"]] = {"spec": spec, "cells": cells, "trace": trace, "metric": metric, "gaps": gaps}
    if reading:
        out[moves_line] = out[moves_line].replace("{moves}", reading_moves(page, spec["id"]))


def reading_moves(page, reading_id):
    """What a reading does to the reproduction's cells: how many it brings within 2 paper std, how many it moves out
    of 2 std, how many it moves closer to the paper and how many further away, against the same (dataset, learner)
    in the page's tables that are not readings."""
    mine = page.tables[reading_id]["gaps"]
    counts = {"in": [], "out": [], "closer": 0, "further": 0, "compared": 0}
    for (dataset, learner), (gap, status) in mine.items():
        base = next((t["gaps"][(dataset, learner)] for t in page.tables.values()
                     if t["spec"].get("role") != "reading" and (dataset, learner) in t["gaps"]), None)
        if base is None:
            continue
        counts["compared"] += 1
        if base[1] == "outside 2 std" and status != "outside 2 std":
            counts["in"].append(f"{dataset}/{learner}")
        if base[1] != "outside 2 std" and status == "outside 2 std":
            counts["out"].append(f"{dataset}/{learner}")
        counts["closer"] += gap < base[0]
        counts["further"] += gap > base[0]
    page.readings[reading_id] = counts
    if not counts["compared"]:
        return "No cell of the reproduction has the same dataset and learner to compare with."
    text = (f"**Against the reproduction's {counts['compared']} cells of the same datasets and learners, this reading "
            f"brings {len(counts['in'])} within 2 paper std"
            + (f" ({', '.join(counts['in'])})" if counts["in"] else "")
            + f" and moves {len(counts['out'])} out of 2 std"
            + (f" ({', '.join(counts['out'])})" if counts["out"] else "")
            + f"; {counts['closer']} cells come closer to the paper, {counts['further']} move further away.**")
    return text
