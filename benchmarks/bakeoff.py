#!/usr/bin/python3
"""The contextual-bandit bake-off: every bandit learner of glimpse and Vowpal Wabbit's exploration methods on the
dataset suite, ranked the way Bietti, Agarwal and Langford's "A Contextual Bandit Bake-off" (JMLR 22, 2021) ranks
VW's methods, with grid points chosen on other orders than the reported ones.

    benchmarks/bakeoff.sh [--orders N] [--selection-orders M] [--page FILE] [DATASET...]
    benchmarks/bakeoff.sh --verify LEDGER [--sample N] [--seed S]

With --page FILE, the page's ledger FILE.cells.csv (FILE without .md) holds every reported loss behind it: one row per
dataset, learner and reported order, with the grid point or VW options that ran. --verify reruns the rows of N cells
(a cell: one learner on one dataset; all cells without --sample) and compares each loss with the ledger bit for bit;
it exits 1 naming every row that differs. VW's cells need the VW binary the page was made with.

Rows: benchmarks/vw_input.py writes N + M shuffled orders of each installed dataset, the same float32 values for
both tools (features min-max scaled to [-1, 1], a sparse dataset's divided by their largest absolute value so its
zeros stay zeros; rows unit L2); every row also carries a constant feature (VW's
default; glimpse's bias transform). One pass per order. Metric: progressive-validation loss, the share of rounds
whose played (proposed) label was wrong, as the bake-off reports it (VW's "average loss" under --cbify).

Selection, the same way on both sides: every grid point of every learner runs on the M selection orders (N+1 ..
N+M); each learner keeps the point with the lowest mean loss there, and only that point runs on the N reported orders
(1 .. N). No reported number chose its own grid point.

- glimpse: the bandit learners and grids of benchmarks/compare_vw.py (one table of them), plus its full-label
  references (perceptron, arow, scw, oaa).
- VW (--cbify K --cb_explore_adf, one process per run, --onethread): greedy, epsilon-greedy, bag (with and without
  greedify), cover with --nounif, regcb, regcbopt and squarecb, each over the bake-off's learning rates and cb_type
  mtr and dr where VW accepts dr; --oaa K with full labels over the same learning rates (see vw_settings below).

Results: per dataset, every learner's mean (std) loss over the reported orders; a win/loss matrix of the bandit
learners (a win: the paired t-test over the reported orders is significant at the page's level and the loss lower);
average ranks with the Friedman test and Holm's step-down comparisons with the best-ranked learner, overall and per
group of datasets; a figure of the ranks and of glimpse's best against VW's best per dataset.

Environment: GLIMPSE (default build/bin/glimpse), VW (default vw on PATH; without one, glimpse's side only),
GLIMPSE_DATA, KEEP=1 keeps the work folder.
"""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import compare_vw
from compare_vw import GLIMPSE_LEARNERS, VW_DRIVER, Comparison, first_best, run, same_selection
from glimpse import stats  # noqa: E402  (compare_vw put the build's Python package on the path)

# The bake-off's learning rates (its run_vw_job.py), for every VW setting.
LEARNING_RATES = (0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10)
VW_DEFAULT_RATE = 0.5
# VW's method grids: the bake-off's (epsilon 0.02, 0.05, 0.1; bag and cover 4, 8, 16; psi 0.01, 0.1, 1; mellowness 0.1,
# 0.01, 0.001; squarecb, which came later, gamma_scale 1 to 1,000), each widened past an end VW chose on a third of
# the datasets or more: mellowness to 1e-5 and gamma_scale to 5,000 (glimpse's squarecb grid) after regcb took 0.001 on
# 23 of the 24 datasets, regcbopt on 14 and squarecb 1,000 on 7 (the page of 2026-11-29); then epsilon to 0.005, bag to
# 2, psi to 0.001 and mellowness to 1e-7 after epsilon 0.02 was chosen on 20, bag 4 on 13, psi 0.01 on 16 and mellowness
# 1e-5 on 11 (the page of 2026-11-30, at 8f77006); then bag and psi to their own ends (one bag; psi 0, no disagreement
# bonus), cover to 2 and epsilon to 0.001 after bag 2 was chosen on 18, psi 0.001 on 12, cover 4 on 8 and epsilon
# 0.005 on 13 (the page at 25da919). Each family's low end tends to VW greedy, which runs on its own: one bag with
# --greedify is greedy, and epsilon's own end (0) is greedy.
EPSILONS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1)
BAGS = (1, 2, 4, 8, 16)
COVERS = (2, 4, 8, 16)
PSIS = (0, 0.001, 0.01, 0.1, 1)
MELLOWNESS = (0.1, 0.01, 0.001, 0.0001, 0.00001, 0.000001, 0.0000001)
GAMMA_SCALES = (1, 10, 100, 500, 1000, 5000)
# Grid parameters whose lowest value is the parameter's own end (nothing lies past it): counted apart at a grid's end.
OWN_ENDS = {"bag": 1, "psi": 0}
VW_BITS = "-b 24"  # the bake-off's hash bits
# glimpse's learners here: compare_vw's table, without the sketched ridge oracles (variants of one learner) and spa.
LEFT_OUT = {"spa (full labels)", "squarecb, ridge regression oracle sketched at rank 10 (not in VW)",
            "squarecb, ridge regression oracle sketched at rank 20 (not in VW)"}
# The bake-off's published supervised losses (albietz/cb_bakeoff, oaa_loss.txt, commit 3f8e886), by OpenML data id:
# VW --oaa's progressive loss on one shuffled order of each dataset. Which of the suite's datasets are which OpenML
# dataset, and how our rows differ, is in datasets/openml.json.
BAKEOFF_OAA = {61: 0.386667, 187: 0.269663, 41: 0.584112, 40: 0.375, 59: 0.185185, 307: 0.658586, 37: 0.329427,
               54: 0.64539, 31: 0.272, 36: 0.178355, 182: 0.192224, 6: 0.45945}
with open(os.path.join(compare_vw.ROOT, "datasets", "openml.json")) as f:
    OPENML = json.load(f)["datasets"]
GROUPS = {  # the groups of datasets the page ranks apart: name -> (description, test on (n, d, K))
    "small": ("n <= 1,000", lambda n, d, k: n <= 1000),
    "large": ("n >= 4,000", lambda n, d, k: n >= 4000),
    "many classes": ("K >= 10", lambda n, d, k: k >= 10),
}


def vw_settings(k, rates=LEARNING_RATES):
    """VW's bandit methods as the bake-off runs them (-b 24; without its --randomtie, which VW 9 no longer has):
    family -> [(grid label, options)]. regcb, regcbopt and squarecb accept only cb_type mtr."""
    adf = f"--cbify {k} --cb_explore_adf {VW_BITS}"
    both, mtr = ("mtr", "dr"), ("mtr",)
    methods = {
        "VW greedy": [("", "--epsilon 0", both)],
        "VW epsilon-greedy": [(f"epsilon {e}", f"--epsilon {e}", both) for e in EPSILONS],
        "VW bag": [(f"bag {b}{', greedify' if g else ''}", f"--bag {b}{' --greedify' if g else ''}", both)
                   for b in BAGS for g in (False, True)],
        "VW cover, nounif": [(f"cover {c}, psi {p}", f"--cover {c} --psi {p} --nounif", both)
                             for c in COVERS for p in PSIS],
        "VW regcb": [(f"mellowness {m:g}", f"--regcb --mellowness {m:g}", mtr) for m in MELLOWNESS],
        "VW regcbopt": [(f"mellowness {m:g}", f"--regcbopt --mellowness {m:g}", mtr) for m in MELLOWNESS],
        "VW squarecb": [(f"gamma_scale {g}", f"--squarecb --gamma_scale {g}", mtr) for g in GAMMA_SCALES],
    }
    settings = {family: [(", ".join(part for part in (label, f"cb_type {cb}", f"-l {rate}") if part),
                          f"{adf} {options} --cb_type {cb} -l {rate}")
                         for label, options, cb_types in grid for cb in cb_types for rate in rates]
                for family, grid in methods.items()}
    settings["VW oaa (full labels)"] = [(f"-l {rate}", f"--oaa {k} {VW_BITS} -l {rate}") for rate in rates]
    return settings


def listed(values):
    return ", ".join(f"{v:g}" for v in values)


def vw_point(label):
    """A VW grid label as a point: "bag 4, greedify, cb_type mtr, -l 3" -> {"bag": 4.0, "greedify": True,
    "cb_type": "mtr", "-l": 3.0}."""
    point = {}
    for part in label.split(", ") if label else []:
        name, _, value = part.rpartition(" ")
        if not name:
            point[part] = True
            continue
        try:
            point[name] = float(value)
        except ValueError:
            point[name] = value
    return point


def vw_grids(rates):
    """Each VW family's grid, from its settings' labels: {family: {parameter: sorted values}}, the numeric ones."""
    grids = {}
    for family, settings in vw_settings(2, rates).items():
        values = {}
        for label, _ in settings:
            for name, value in vw_point(label).items():
                if isinstance(value, float):
                    values.setdefault(name, set()).add(value)
        grids[family] = {name: sorted(v) for name, v in values.items()}
    return grids


def end_ties(chosen, selection, grid, points):
    """The numeric grid parameters (three values or more) whose chosen value is an end of the grid and whose
    neighbouring grid value, every other parameter as chosen, had the same mean on the selection orders: the end won a
    tie by coming first (e.g. exploration rates so small that no round explores), so it says nothing about the grid
    being too narrow. `chosen`: the chosen point's parameters; `points`: [(parameters, mean or None)] of the grid."""
    ties = []
    for key, values in grid.items():
        values = sorted(values) if all(isinstance(v, (int, float)) for v in values) else []
        if len(values) < 3 or chosen.get(key) not in (values[0], values[-1]):
            continue
        neighbour = values[1] if chosen[key] == values[0] else values[-2]
        same = [mean for params, mean in points if params.get(key) == neighbour
                and all(params.get(other) == chosen.get(other) for other in set(params) | set(chosen) if other != key)]
        if same and same[0] is not None and same_selection(same[0], selection):
            ties.append(key)
    return ties


def is_full(learner):
    return learner.startswith("VW oaa") or GLIMPSE_LEARNERS.get(learner, {}).get("full", False)


class Bakeoff(Comparison):
    def __init__(self, args, work):
        super().__init__(args, work)
        self.vw_bits = VW_BITS

    def compare(self, name):
        """One dataset: every grid point on the selection orders, the chosen ones on the reported orders.
        Returns {name, n, d, K, learners: {learner: {setting, selection, loss: {order: loss}}}, seconds, failed}."""
        started = time.perf_counter()
        n, d, k = self.write_orders(name)
        learners = {label: entry for label, entry in GLIMPSE_LEARNERS.items() if label not in LEFT_OUT}
        chosen, failed, selecting = self.glimpse_chosen(name, learners)
        result = {"name": name, "n": n, "d": d, "K": k, "learners": {}, "failed": failed}
        for label, choice in chosen.items():
            grid = learners[label].get("grid") or {}
            points = [(json.loads(key[1]), self.selection_mean(by_seed)) for key, by_seed in selecting.items()
                      if key[0] == label and key[2] == choice["key"][2]]
            result["learners"][label] = {
                "setting": compare_vw.describe_params(label, *choice["key"][1:]), "selection": 1 - choice["selection"],
                "run": choice["run"], "loss": {order: 1 - choice["reported"][order] for order in self.reported},
                "end_ties": end_ties(json.loads(choice["key"][1]), choice["selection"], grid, points)}
        result["glimpse_seconds"] = time.perf_counter() - started
        if self.vw:
            chosen, selecting_vw = self.vw_chosen(name, k, vw_settings(k, self.args.learning_rates))
            grids = vw_grids(self.args.learning_rates)
            for family, choice in chosen.items():
                points = [(vw_point(label), self.selection_mean(by_seed))
                          for (f, label), by_seed in selecting_vw.items() if f == family]
                loss = {order: 1 - choice["reported"][order] for order in self.reported}
                result["learners"][family] = {"setting": choice["key"][1], "options": choice["options"],
                                              "selection": 1 - choice["selection"], "loss": loss,
                                              "end_ties": end_ties(vw_point(choice["key"][1]), choice["selection"],
                                                                   grids[family], points)}
        if self.vw and OPENML.get(name, {}).get("id") in BAKEOFF_OAA:
            result["oaa_check"] = self.oaa_check(name, k)
        result["vw_failed"] = self.vw_failed.get(name, {})
        result["seconds"] = time.perf_counter() - started
        result["vw_seconds"] = result["seconds"] - result["glimpse_seconds"]
        self.discard_orders(name)
        return result

    def oaa_check(self, name, k):
        """VW --oaa the bake-off's way (its run_vw_job.py: -b 24, the nine learning rates; rows as its oml_to_vw.py
        writes them) on each reported order: {rate: {order: loss}}."""
        pattern = os.path.join(self.work, f"{name}_o{{seed}}.bakeoff.vw")
        files = {seed: pattern.replace("{seed}", str(seed)) for seed in self.reported}
        run(["/usr/bin/python3", os.path.join(compare_vw.HERE, "vw_input.py"), os.path.join(self.installed, name + ".h5"),
             pattern, "--seed", ",".join(map(str, self.reported)), "--as-bakeoff"])
        def oaa(file, *options):
            return compare_vw.vw_command(self.vw, file, [*VW_BITS.split(), "--oaa", str(k), *options])

        for file in files.values():
            run(oaa(file, "--quiet"))

        def one(job):
            seed, rate = job
            result = subprocess.run(oaa(files[seed], "-l", str(rate)), capture_output=True, text=True)
            if result.returncode != 0:  # counted with the dataset's failed VW runs, as the bandit settings' are
                print(f"bakeoff: vw --oaa {k} -l {rate} failed on {files[seed]}: {result.stderr.strip()[-300:]}",
                      file=sys.stderr)
                return None
            return compare_vw.vw_loss(result.stderr, f"vw --oaa {k} -l {rate} on {files[seed]}")

        jobs = [(s, r) for r in (VW_DEFAULT_RATE,) + LEARNING_RATES for s in self.reported]
        losses = {}
        with ThreadPoolExecutor(self.args.jobs) as pool:
            for (seed, rate), loss in zip(jobs, pool.map(one, jobs)):
                if loss is None:
                    failed = self.vw_failed.setdefault(name, {})
                    failed["oaa check"] = failed.get("oaa check", 0) + 1
                else:
                    losses.setdefault(rate, {})[seed] = loss
        return losses

    def discard_orders(self, name):
        """A dataset's orders are not needed once its runs are read (a large dataset's take gigabytes)."""
        for entry in os.listdir(self.work):
            if entry.startswith(f"{name}_o"):
                os.remove(os.path.join(self.work, entry))
        for entry in os.listdir(self.data):
            if entry.startswith(f"{name}_o"):
                os.remove(os.path.join(self.data, entry))


# --- the ledger (compare_vw's: ledger_path, write_ledger, verify_ledger) ---------------------------------------------
LEDGER_FIELDS = ("dataset", "learner", "side", "order", "loss", "setting", "run")
OAA_CHECK = "VW --oaa on the bake-off's rows at -l "  # the oaa check's cells: this prefix and the rate
OAA_SIDE = "vw-bakeoff-rows"


def ledger_rows(results):
    """One row per dataset, learner and reported order: the loss as a double prints and reads back exactly, and what
    ran (`run`: glimpse's learner entry and constant feature as JSON, or VW's options)."""
    rows = []
    for r in results:
        for learner, entry in sorted(r["learners"].items()):
            side = "vw" if learner.startswith("VW ") else "glimpse"
            what = entry["options"] if side == "vw" else compare_vw.glimpse_run_text(entry["run"], True)
            for order, loss in sorted(entry["loss"].items()):
                rows.append({"dataset": r["name"], "learner": learner, "side": side, "order": order,
                             "loss": repr(loss), "setting": entry["setting"], "run": what})
        for rate, by_order in sorted(r.get("oaa_check", {}).items()):
            for order, loss in sorted(by_order.items()):
                rows.append({"dataset": r["name"], "learner": OAA_CHECK + str(rate), "side": OAA_SIDE,
                             "order": order, "loss": repr(loss), "setting": f"-l {rate}", "run": str(rate)})
    return rows


def verify_command(page, invoked_as):
    """How a reader reruns the page's cells: glimpse reproduce when it made the page, else this program."""
    if invoked_as:
        quick = " --quick" if invoked_as.endswith(" --quick") else ""
        return invoked_as[:len(invoked_as) - len(quick)] + " --verify --sample N" + quick
    return (f"benchmarks/bakeoff.sh --verify {os.path.relpath(compare_vw.ledger_path(page), compare_vw.ROOT)} "
            "--sample N")


def rerun_oaa_check(bakeoff, dataset, k, cells):
    """The oaa check's cells of a dataset, rerun (all its rates at once, as the page ran them)."""
    return {(OAA_SIDE, OAA_CHECK + str(rate), order): loss
            for rate, by_order in bakeoff.oaa_check(dataset, k).items() for order, loss in by_order.items()}


def verify(args):
    """Reruns the ledger's rows of `args.sample` cells (all without it) and compares each loss bit for bit."""
    compare_vw.verify_ledger(args, Bakeoff, LEDGER_FIELDS, lambda accuracy: 1 - accuracy, "bakeoff", rerun_oaa_check)


# --- the analysis ---------------------------------------------------------------------------------------------------
def mistakes(result, learner):
    """{order: mistakes}: a learner's reported losses as the whole counts of wrong rounds they are (one pass over the
    dataset's n rows per order). Ranks and tests compare these, so that two learners with as many mistakes tie: as
    fractions they need not be equal, VW printing its loss to six digits (31 of 150 as 0.206667, 32 as 0.213333)
    and glimpse's being 1 - accuracy in binary, and a mean over orders adds rounding that depends on how the same
    total is spread over them."""
    n = result["n"]
    counts = {}
    for order, loss in result["learners"][learner]["loss"].items():
        counts[order] = round(loss * n)
        if abs(loss * n - counts[order]) > 0.25:  # six digits keep it within 0.03 below a million rows
            raise ValueError(f"{result['name']}: {learner}'s loss {loss!r} on order {order} is not a count of "
                             f"wrong rounds over {n} rows")
    return counts


def exact_losses(result, learner):
    """{order: loss} from `mistakes`: equal counts give equal losses."""
    return {order: count / result["n"] for order, count in mistakes(result, learner).items()}


def mean_loss(result, learner):
    """The mean over reported orders from the total count of mistakes: equal totals give equal means."""
    counts = mistakes(result, learner)
    return sum(counts.values()) / (len(counts) * result["n"])


def ranking(results, learners):
    """glimpse.stats.rank_learners over the datasets' mean losses (1 = lowest), or None for fewer than two datasets
    or learners."""
    if len(results) < 2 or len(learners) < 2:
        return None
    return stats.rank_learners([[mean_loss(r, learner) for learner in learners] for r in results], learners)


def wins_losses(results, learners):
    """{(a, b): (wins, losses)}: datasets where a's loss is lower (higher) than b's and the paired t-test over the
    reported orders is significant at the page's level."""
    matrix = {}
    warnings.filterwarnings("ignore", "Precision loss", RuntimeWarning)  # near-equal orders: the test says so itself
    for a in learners:
        for b in learners:
            if a == b:
                continue
            wins = losses = 0
            for r in results:
                comparison = stats.compare(exact_losses(r, a), exact_losses(r, b))
                if comparison.significant:
                    wins += comparison.difference < 0
                    losses += comparison.difference > 0
            matrix[(a, b)] = (wins, losses)
    return matrix


def best_of(result, learners):
    """The learner of `learners` with the lowest loss on the selection orders, the first of a tie (first_best): the
    choice a user would make."""
    return first_best(learners, lambda learner: -result["learners"][learner]["selection"])


def write_figure(results, overall, img_dir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, max(3.5, 0.26 * len(overall["learners"]) + 1)))
    order = sorted(overall["learners"], key=lambda l: overall["ranks"][l])
    y = np.arange(len(order))[::-1]
    colours = ["tab:red" if l.startswith("VW") else "tab:blue" for l in order]
    left.scatter([overall["ranks"][l] for l in order], y, c=colours, zorder=3)
    left.set_yticks(y, order, fontsize=7)
    best = overall["ranks"][order[0]]
    left.plot([best, best + overall["critical_difference"]], [y[0] + 0.6] * 2, color="black", lw=2)
    left.text(best, y[0] + 0.9, f"Nemenyi CD = {overall['critical_difference']:.2f}", fontsize=7)
    left.set_xlabel(f"average rank over {overall['datasets']} datasets (1 = best)")
    left.set_title("bandit learners (blue: glimpse, red: VW)", fontsize=9)
    left.grid(alpha=0.3)
    glimpse_learners = [l for l in overall["learners"] if not l.startswith("VW")]
    vw_learners = [l for l in overall["learners"] if l.startswith("VW")]
    if vw_learners:
        xs = [100 * mean_loss(r, best_of(r, vw_learners)) for r in results]
        ys = [100 * mean_loss(r, best_of(r, glimpse_learners)) for r in results]
        right.scatter(xs, ys, zorder=3)
        for r, x, yv in zip(results, xs, ys):
            right.annotate(r["name"], (x, yv), fontsize=6)
        top = max(xs + ys + [1]) * 1.05
        right.plot([0, top], [0, top], color="black", lw=0.8)
        right.set_xlim(0, top)
        right.set_ylim(0, top)
        right.set_xlabel("VW's best bandit setting: loss %")
        right.set_ylabel("glimpse's best bandit learner: loss %")
        right.set_title("per dataset, each side's best chosen on the selection orders\n(below the line: glimpse lower)",
                        fontsize=9)
        right.grid(alpha=0.3)
    else:
        right.axis("off")
        right.text(0.5, 0.5, "no VW binary: glimpse's side only", ha="center")
    fig.tight_layout()
    os.makedirs(img_dir, exist_ok=True)
    matplotlib.rcParams["svg.hashsalt"] = "glimpse"  # the same figure, the same file
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(img_dir, f"ranks.{ext}"), dpi=110,
                    metadata={"Date": None} if ext == "svg" else {"Software": None})
    plt.close(fig)


def loss_text(losses):
    mean, std = stats.mean_std([100 * v for v in losses.values()])
    return f"{mean:.1f} ({std:.1f})"


def statement(ranked, what):
    """The best learner of a ranking and the significance behind it, in words."""
    if ranked is None:
        return f"- **{what}**: fewer than two datasets, no ranking."
    same = [c["learner"] for c in ranked["holm"] if not c["differs"]]
    friedman = (f"Friedman p = {ranked['friedman_p']:.2g}" +
                ("" if ranked["friedman_p"] < stats.ALPHA else ": the learners are not shown to differ"))
    text = (f"- **{what}** ({ranked['datasets']} datasets): **{ranked['best']}**, average rank "
            f"{ranked['ranks'][ranked['best']]:.2f} of {len(ranked['learners'])}; {friedman}. ")
    if same:
        text += (f"Holm's comparisons at {stats.ALPHA} do not separate it from {len(same)} other(s): "
                 + ", ".join(same) + ".")
    else:
        text += "Holm's comparisons separate it from every other learner."
    return text


def grid_edges(results, learning_rates):
    """Where a learner's chosen setting sits at the end of its grid: [(learner, parameter, grid, low, high, tied, own,
    of)], for every numeric parameter of three or more values (glimpse's grids; VW's, its learning rate among them)
    chosen at its lowest or highest value, tied with the next value in neither case (end_ties), at an end in such a tie
    (`tied`), or at a lowest value that is the parameter's own end (`own`, OWN_ENDS: nothing lies past it), on at least
    a third of the datasets; `low` and `high` count none of the last two."""
    rows = []
    learners = sorted({l for r in results for l in r["learners"]})
    vw = vw_grids(learning_rates)
    for learner in learners:
        chosen = [r["learners"][learner] for r in results if learner in r["learners"]]
        if learner.startswith("VW "):
            grids = {key: v for key, v in vw.get(learner, {}).items() if len(v) >= 3}
            values = {key: [vw_point(e["setting"]).get(key) for e in chosen] for key in grids}
        else:
            grids = {key: sorted(v) for key, v in (GLIMPSE_LEARNERS[learner].get("grid") or {}).items()
                     if len(v) >= 3 and all(isinstance(x, (int, float)) for x in v)}
            values = {key: [e["run"]["params"][key] for e in chosen] for key in grids}
        for key, grid in grids.items():
            tied = [key in e.get("end_ties", []) for e in chosen]
            own_end = learner.startswith("VW ") and OWN_ENDS.get(key) == grid[0]
            at_low = [v == grid[0] and not t for v, t in zip(values[key], tied)]
            own = sum(at_low) if own_end else 0
            low = 0 if own_end else sum(at_low)
            high = sum(v == grid[-1] and not t for v, t in zip(values[key], tied))
            if 3 * max(low, high, sum(tied), own) >= len(values[key]) > 0:
                rows.append((learner, key, grid, low, high, sum(tied), own, len(values[key])))
    return rows


def write_page(path, results, args, command, versions, seconds, invoked_as, with_vw):
    bandit = sorted({l for r in results for l in r["learners"] if not is_full(l)})
    unranked = [l for l in bandit if not all(l in r["learners"] for r in results)]
    bandit = [l for l in bandit if l not in unranked]  # a ranking needs a result on every dataset
    full = sorted({l for r in results for l in r["learners"] if is_full(l)})
    overall = ranking(results, bandit)
    page_dir = os.path.dirname(os.path.abspath(path))
    by = f"`{invoked_as}`, which runs `{command}`" if invoked_as else f"`{command}`"
    lines = [
        "# The contextual-bandit bake-off, measured",
        "",
        f"*Generated by {by}: do not edit this page, rerun it.* {datetime.date.today().isoformat()}, {versions}; "
        f"{seconds:.0f} s on {os.cpu_count()} cores. Every number below comes from that run. Every reported loss "
        f"behind it is in `{os.path.basename(compare_vw.ledger_path(path))}` beside it, with the grid point or VW "
        f"options that ran; `{verify_command(path, invoked_as)}` reruns N of its cells and compares them bit for bit.",
        "",
        "After Bietti, Agarwal and Langford, \"A Contextual Bandit Bake-off\" (JMLR 22, 2021), which ranked Vowpal "
        "Wabbit's exploration methods on classification datasets turned into bandit problems. Here glimpse's bandit "
        "learners stand beside VW's methods on the same rows in the same orders.",
        "",
        "## How it was run",
        "",
        f"- **Rows**: each dataset's rows with features min-max scaled to [-1, 1] (a sparse dataset's divided by "
        f"their largest absolute value, so that its zeros stay zeros and its rows sparse) and unit L2 norm "
        f"(benchmarks/vw_input.py), plus a constant feature on both sides (VW's default, glimpse's bias transform), "
        f"in {args.orders + args.selection_orders} shuffled orders; the same float32 values for both tools. One pass "
        "per order.",
        "- **Metric**: progressive-validation loss, % of rounds whose played label was wrong (the bake-off's "
        "measure; VW's \"average loss\" under --cbify; 100 minus glimpse's online_accuracy of the proposed label). "
        f"Mean (std) over the {args.orders} reported orders.",
        f"- **Selection**: every grid point of every learner ran on {args.selection_orders} selection order(s); each "
        f"learner kept the point with the lowest mean loss there, and only that point ran on the {args.orders} "
        "reported orders. Both sides are chosen the same way; no reported number chose its own grid point.",
        "- **glimpse's grids**: those of benchmarks/compare_vw.py (`GLIMPSE_LEARNERS`), without the sketched ridge "
        "oracles and spa; a setting names the parameters gridded or set, the rest are the plugin's defaults "
        "(`glimpse describe NAME`).",
        (f"- **VW's grids** (VW `--cbify K --cb_explore_adf`): greedy; epsilon-greedy (epsilon {listed(EPSILONS)}); "
         f"bag ({listed(BAGS)}, with and without --greedify); cover with --nounif ({listed(COVERS)} policies, psi "
         f"{listed(PSIS)}); regcb and regcbopt (mellowness {listed(MELLOWNESS)}); squarecb (gamma_scale "
         f"{listed(GAMMA_SCALES)}); each with cb_type mtr and dr "
         "(regcb, regcbopt and squarecb: mtr only, all VW accepts) and learning rates "
         f"{', '.join(str(r) for r in args.learning_rates)}; --oaa K with full labels over the same rates; -b 24 "
         f"hashing throughout; each process {' '.join(VW_DRIVER)} (no parse thread, a small example ring: the same "
         "losses, less time). "
         "As the bake-off, except no --randomtie (VW 9 has none), and its grids widened where VW "
         "chose their ends on a third of the datasets or more (epsilon below 0.02, bags and policies below 4, psi below "
         "0.01, mellowness below 0.001, gamma_scale 5000; benchmarks/bakeoff.py says when), bag and psi down to their "
         "own ends (one bag, psi 0). The low end of each family's grid tends to greedy, which runs as a family of its "
         "own (one bag with --greedify is greedy)."
         if with_vw else "- **VW**: no `vw` binary was found, so this page has glimpse's side only."),
        f"- **Tests**: paired t-tests over the reported orders at level {stats.ALPHA} (the win/loss matrix); average "
        "ranks of the mean losses with the Friedman test and Holm's step-down comparisons with the best-ranked learner "
        "(z from the average ranks), overall and per group of datasets. Full-label learners are references, not "
        "ranked. Ranks and tests count each order's wrong rounds, so learners with as many mistakes tie (VW prints its "
        "loss to six digits, and a fraction's rounding would otherwise order them).",
        "",
        "## Who is best",
        "",
        statement(overall, "Overall"),
    ]
    if unranked:
        lines.append("- Not ranked, for want of a result on every dataset (their failed runs are listed per dataset): "
                     + ", ".join(unranked) + ".")
    for group, (description, test) in GROUPS.items():
        members = [r for r in results if test(r["n"], r["d"], r["K"])]
        lines.append(statement(ranking(members, bandit), f"{group.capitalize()} ({description})"))
    lines += ["", "![average ranks and the best of each side per dataset](" +
              os.path.relpath(os.path.join(page_dir, "img", "bakeoff", "ranks.png"), page_dir) + ")", ""]
    if overall:
        write_figure(results, overall, os.path.join(page_dir, "img", "bakeoff"))
        lines += ["## Average ranks", "", "| learner | average rank | z against the best | p | Holm threshold | differs |",
                  "|---|---|---|---|---|---|"]
        holm = {c["learner"]: c for c in overall["holm"]}
        for learner in sorted(bandit, key=lambda l: overall["ranks"][l]):
            c = holm.get(learner)
            tail = ("| - | - | - | (the best) |" if c is None else
                    f"| {c['z']:.2f} | {c['p']:.2g} | {c['threshold']:.2g} | {'yes' if c['differs'] else 'no'} |")
            lines.append(f"| {learner} | {overall['ranks'][learner]:.2f} " + tail)
        lines += ["", "## Wins and losses", "",
                  "Row against column: datasets where the row's loss is significantly lower, minus datasets where it "
                  "is significantly higher (paired t-test over the reported orders). Columns are numbered as the rows.",
                  ""]
        matrix = wins_losses(results, bandit)
        ordered = sorted(bandit, key=lambda l: overall["ranks"][l])
        lines.append("| # | learner | " + " | ".join(str(i + 1) for i in range(len(ordered))) + " | wins - losses |")
        lines.append("|---|---|" + "---|" * (len(ordered) + 1))
        for i, a in enumerate(ordered):
            cells = ["" if a == b else f"{matrix[(a, b)][0] - matrix[(a, b)][1]:+d}" for b in ordered]
            total = sum(matrix[(a, b)][0] - matrix[(a, b)][1] for b in ordered if b != a)
            lines.append(f"| {i + 1} | {a} | " + " | ".join(cells) + f" | {total:+d} |")
        lines.append("")
    edges = grid_edges(results, args.learning_rates)
    if edges:
        lines += ["## Settings chosen at a grid's end", "",
                  "Each numeric grid parameter (three values or more, glimpse's and VW's) whose chosen value was the "
                  "grid's lowest or highest on at least a third of the datasets: such a learner might do better past "
                  "that end, so its rank may understate it. An end chosen in a tie (the next grid value, every other "
                  "parameter as chosen, had the same mean loss on the selection orders: it won by coming first, and "
                  "says nothing of the grid's width) is counted in its own column instead, and so is a lowest value "
                  "that is the parameter's own end (" + ", ".join(f"{k} {v:g}" for k, v in OWN_ENDS.items()) + "): nothing "
                  "lies past it. The grids are in benchmarks/compare_vw.py (`GLIMPSE_LEARNERS`) and above.", "",
                  "| learner | parameter | grid | datasets at the lowest | at the highest | at an end in a tie "
                  "| at the parameter's own end |",
                  "|---|---|---|---|---|---|---|"]
        for learner, key, grid, low, high, tied, own, of in edges:
            lines.append(f"| {learner} | {key} | {listed(grid)} | {low} of {of} | "
                         f"{high} of {of} | {tied} of {of} | {own} of {of} |")
        lines.append("")
    lines += ["## Per dataset", "",
              "Each learner at the grid point its selection orders chose; the lowest mean loss of the bandit learners "
              "in bold (each of them where several made as many mistakes). Datasets by n.", ""]
    for r in sorted(results, key=lambda r: r["n"]):
        lines += [f"### {r['name']} (n = {r['n']:,}, d = {r['d']}, K = {r['K']}; {r['seconds']:.0f} s)", "",
                  "| learner | chosen setting | loss % | loss % on the selection orders |", "|---|---|---|---|"]
        present = [l for l in bandit + full if l in r["learners"]]
        lowest = min((mean_loss(r, l) for l in bandit if l in r["learners"]), default=None)
        for learner in present:
            entry = r["learners"][learner]
            loss = loss_text(entry["loss"])
            if not is_full(learner) and mean_loss(r, learner) == lowest:
                loss = f"**{loss}**"
            lines.append(f"| {learner} | {entry['setting']} | {loss} | {100 * entry['selection']:.1f} |")
        for side, failed in (("glimpse", r["failed"]), ("VW", r.get("vw_failed", {}))):
            if failed:
                lines += ["", f"{side} runs that failed (their grid points left out): " +
                          ", ".join(f"{label} {count}" for label, count in sorted(failed.items())) + "."]
        lines.append("")
    checked = [r for r in results if "oaa_check" in r]
    if checked:
        lines += ["## The suite against the bake-off's published numbers", "",
                  "The bake-off's repository (albietz/cb_bakeoff, oaa_loss.txt) publishes VW --oaa's progressive loss "
                  "with full labels per OpenML dataset, each on one unseeded order, without saying at which learning "
                  "rate (its run_vw_job.py runs --oaa over nine; its eval_loss.py takes the lowest as a dataset's "
                  "reference). Here VW --oaa ran the bake-off's way (the stored values unscaled, named by column, "
                  "-b 24) on each reported order of the suite's datasets that are the same data, at VW's default rate "
                  "0.5 and at each of the nine; the lowest of the nine is taken per order, which favours it. The last "
                  "loss column is VW --oaa on this page's own rows (features min-max scaled to [-1, 1], rows unit L2; "
                  "its rate chosen on the selection orders), from the table above: where the published value is near "
                  "it and far from the unscaled columns, the published rows were scaled (OpenML stores some datasets "
                  "already scaled). Every dataset gets the same three columns. A published value more than 3 points "
                  "and more than 2 std of our orders away from all three is marked.", "",
                  "| dataset | OpenML id | bake-off's loss % | unscaled, -l 0.5 | unscaled, lowest of the nine rates "
                  "| our rows (scaled) | how the rows differ |", "|---|---|---|---|---|---|---|"]
        for r in sorted(checked, key=lambda r: r["n"]):
            openml = OPENML[r["name"]]["id"]
            published, difference = BAKEOFF_OAA[openml], OPENML[r["name"]].get("differs")
            check = r["oaa_check"]
            default = [100 * v for v in check.get(VW_DEFAULT_RATE, {}).values()]
            orders = sorted({order for by_order in check.values() for order in by_order})
            lowest = [100 * min(check[rate][order] for rate in LEARNING_RATES if order in check.get(rate, {}))
                      for order in orders if any(order in check.get(rate, {}) for rate in LEARNING_RATES)]
            scaled_entry = r["learners"].get("VW oaa (full labels)")
            scaled = [100 * v for v in scaled_entry["loss"].values()] if scaled_entry else []
            columns = [c for c in (default, lowest, scaled) if c]
            far = all(abs(100 * published - m) > max(3, 2 * sd) for m, sd in map(stats.mean_std, columns))
            shown = [("%.1f (%.1f)" % stats.mean_std(c)) if c else "-" for c in (default, lowest, scaled)]
            lines.append(f"| {r['name']} | {openml} | {100 * published:.1f}{' **(far from all)**' if far else ''} | "
                         + " | ".join(shown) + f" | {difference or '-'} |")
        lines.append("")
    lines += ["## How to rerun", "", "```sh", "build/bin/glimpse datasets install " +
              " ".join(r["name"] for r in results), invoked_as or command, "```", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return overall


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="*", help="installed datasets (default: none; glimpse reproduce bakeoff "
                        "names the suite)")
    parser.add_argument("--orders", type=int, default=10, help="orders reported (default 10)")
    parser.add_argument("--selection-orders", type=int, default=2, help="other orders that choose grid points (2)")
    parser.add_argument("--learning-rates", type=lambda text: [float(v) for v in text.split(",")],
                        default=list(LEARNING_RATES), metavar="R,R,...",
                        help="VW's learning-rate grid, comma-separated (default the bake-off's nine, 0.001 to 10)")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count(), help="parallel runs (all cores)")
    parser.add_argument("--page", default="-", help="the page to write ('-': none)")
    parser.add_argument("--invoked-as", help="the command to name at the page's top (glimpse reproduce runs this)")
    parser.add_argument("--plugins", action="store_true", help="print the glimpse plugins this runs (JSON) and stop")
    parser.add_argument("--no-vw", action="store_true", help="glimpse's side only, even with a VW binary")
    parser.add_argument("--resume", metavar="FOLDER", help="keep each dataset's results in FOLDER and read back "
                        "those measured with the same inputs (glimpse reproduce passes runs/reproduce/...)")
    parser.add_argument("--verify", metavar="LEDGER", help="rerun the ledger's cells and compare them bit for bit")
    parser.add_argument("--sample", type=int, help="--verify: this many cells, drawn at random with --seed")
    parser.add_argument("--seed", type=int, default=1, help="--verify --sample: the draw's seed (1)")
    args = parser.parse_args()
    args.constant = "with"  # both sides' rows carry a constant feature
    args.learning_rates = [int(r) if r == int(r) else r for r in args.learning_rates]
    if args.plugins:
        names = {"bandit", "full", "online_accuracy", "bias"}
        for label, learner in GLIMPSE_LEARNERS.items():
            if label not in LEFT_OUT:
                names.add(learner["name"])
                if "base" in learner.get("params", {}):
                    names.add(learner["params"]["base"])
        print(json.dumps(sorted(names)))
        return
    if args.verify:
        return verify(args)
    if not args.datasets:
        parser.error("name at least one installed dataset")
    with compare_vw.work_folder("bakeoff.") as work:
        bakeoff = Bakeoff(args, work)
        if args.no_vw:
            bakeoff.vw = None
        elif not bakeoff.vw:
            print("bakeoff: no Vowpal Wabbit binary (vw on PATH or VW=...): skipping VW, glimpse's side only",
                  file=sys.stderr)
        started = time.perf_counter()
        for name in args.datasets:
            if not os.path.exists(os.path.join(bakeoff.installed, name + ".h5")):
                raise SystemExit(f"bakeoff: {name} is not installed (glimpse datasets install {name})")
        measured = compare_vw.measure_datasets(bakeoff, args.datasets, args.resume, "bakeoff")
        results = [result for result, _ in measured]
        # A resumed dataset's time is the time it took when it was measured.
        seconds = time.perf_counter() - started + sum(result["seconds"] for result, resumed in measured if resumed)
        command = "benchmarks/bakeoff.sh " + " ".join(compare_vw.shown_arguments(sys.argv[1:]))
        if args.page != "-":
            write_page(args.page, results, args, command.strip(), compare_vw.versions_text(bakeoff), seconds,
                       args.invoked_as, bool(bakeoff.vw))
            compare_vw.write_ledger(compare_vw.ledger_path(args.page), LEDGER_FIELDS, ledger_rows(results))
        json.dump(results, sys.stdout, indent=1, default=str)
        print()


if __name__ == "__main__":
    main()
