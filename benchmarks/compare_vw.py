#!/usr/bin/python3
"""glimpse next to Vowpal Wabbit on the same rows in the same orders (issues #30, #31).

    benchmarks/compare_vw.sh [--orders N] [--selection-orders M] [--repeats R] [--page FILE] [DATASET...]
    benchmarks/compare_vw.sh --verify LEDGER [--sample N] [--seed S]

For each installed dataset (glimpse datasets install NAME), benchmarks/vw_input.py writes N + M orders of the
same rows (features min-max scaled to [-1, 1], a sparse dataset's divided by their largest absolute value instead;
rows unit L2, shuffled with seeds 1..N+M), each as a VW text file
and as a glimpse dataset file with the same float32 values. Orders 1..N are reported; orders N+1..N+M only choose
each learner's grid point (its best mean accuracy there), the same way on both sides, so no reported number
picks its own grid point; only the chosen points then run on orders 1..N (two stages: a grid costs M orders, not
N + M).

- VW (one process per run, from its binary cache): --cbify K with an --epsilon grid; --cbify K --cb_explore_adf
  --squarecb with a --gamma_scale grid; --cbify K --cover 4 and --bag 4; --cb_explore_adf --regcb and --regcbopt
  with a --mellowness grid; --oaa K with full labels; every one over a learning-rate grid
  (protocols/vw_comparison/vw_grid.json). Accuracy = 1 - VW's average loss (cbify: a wrong proposal costs 1; oaa: progressive error).
- glimpse (per dataset, a sweep over the selection orders, then one over the reported orders at the chosen
  points): the bandit learners over their grids and the full-label learners, accuracy of the proposed labels over
  the pass.
- Speed: whole process for both tools (load + learn + write; VW from the cache an untimed run wrote, glimpse from
  its dataset file, or with a constant feature from the transformed rows an untimed run kept,
  GLIMPSE_PREPARED_CACHE=always), each learner at its chosen grid point on order 1, REPEATS runs each,
  interleaved, medians.

The page (default docs/results/vw_comparison.md) is written from these runs only, with the commands, the
versions and the time it took, and beside it its ledger (vw_comparison.cells.csv): every reported accuracy with its
order, chosen setting and what ran. --verify reruns the rows of N cells of a ledger (all without --sample) and
exits 1 naming each that differs bit for bit. Environment: GLIMPSE (default build/bin/glimpse), VW (default vw on PATH),
GLIMPSE_DATA (where installed datasets are), KEEP=1 keeps the work folder.
"""
import argparse
import contextlib
import csv
import datetime
import json
import os
import pickle
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# The build's Python package (beside $GLIMPSE, else build/): its trace_schema.py is generated there from the C++ header.
GLIMPSE_EXECUTABLE = os.path.realpath(os.environ.get("GLIMPSE", os.path.join(ROOT, "build/bin/glimpse")))
sys.path.insert(0, os.path.join(os.path.dirname(GLIMPSE_EXECUTABLE), "..", "lib", "python"))
from glimpse.reproduce.page import tree_state  # noqa: E402  (the pages' one description of the tree they came from)
from glimpse.trace_schema import root, run as run_fields, status  # noqa: E402

# glimpse's learners: label -> protocol entry (name, params, grid). Bandit learners see correctness only; the
# FULL ones the label.
GLIMPSE_LEARNERS = {
    "cspa": {"name": "cspa", "grid": {"beta": [0.1, 0.2, 0.3, 0.5, 0.7, 0.9]}},
    "banditron": {"name": "banditron",
                  "grid": {"gamma": [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4]}},
    "bpa": {"name": "bpa", "grid": {"gamma": [0.00002, 0.00005, 0.0001, 0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.4]}},
    "confidit": {"name": "confidit", "grid": {"eta": [0.0001, 0.001, 0.01, 0.1, 1, 10, 100, 1000, 10000, 100000]}},
    "squarecb": {"name": "squarecb", "grid": {"gamma_scale": [1, 10, 100, 500, 1000, 5000],
                                             "eta": [0.03, 0.1, 0.5, 2],
                                             "update": ["adagrad", "normalized"]}},
    "squarecb, ridge regression oracle (not in VW)": {
        "name": "squarecb", "params": {"update": "ridge"},
        "grid": {"gamma_scale": [10, 100, 500, 1000, 5000, 20000], "lambda": [0.001, 0.01, 0.1, 1]}},
    "squarecb, ridge regression oracle sketched at rank 10 (not in VW)": {
        "name": "squarecb", "params": {"update": "ridge", "second_order": "sketch", "sketch_rank": 10},
        "grid": {"gamma_scale": [100, 500, 1000, 5000], "lambda": [0.1, 1]}},
    "squarecb, ridge regression oracle sketched at rank 20 (not in VW)": {
        "name": "squarecb", "params": {"update": "ridge", "second_order": "sketch", "sketch_rank": 20},
        "grid": {"gamma_scale": [100, 500, 1000, 5000], "lambda": [0.1, 1]}},
    "soba": {"name": "soba", "grid": {"gamma": [0.001, 0.002, 0.005, 0.01, 0.05, 0.1, 0.2, 0.4], "a": [0.001, 0.01, 0.1, 1, 10]}},
    "newtron": {"name": "newtron", "grid": {"gamma": [0.00001, 0.0001, 0.001, 0.01, 0.1], "alpha": [0.1, 1, 10, 100, 1000],
                                           "beta": [0.001, 0.01, 0.1, 1], "D": [0.1, 1, 10, 100],
                                           "projection": ["none", "ball"]}},
    "gaptron": {"name": "gaptron", "grid": {"gamma": [0.0005, 0.002, 0.01, 0.05, 0.2, 0.4],
                                           "eta": [0.001, 0.01, 0.1, 1, 10],
                                           "loss": ["hinge", "smooth_hinge", "logistic"]}},
    "gappletron": {"name": "gappletron", "grid": {"gamma": [0.0005, 0.002, 0.01, 0.05, 0.2, 0.4],
                                                 "B": [0.1, 1, 10, 100, 1000],
                                                 "loss": ["hinge", "smooth_hinge", "logistic"]}},
    "explorer: epsilon-greedy around arow": {"name": "explorer", "params": {"base": "arow", "rule": "epsilon_greedy"},
                                             "grid": {"epsilon": [0.01, 0.02, 0.05, 0.1, 0.2, 0.4],
                                                      "base.r": [0.001, 0.01, 0.1, 1, 10],
                                                      "importance": ["none", "repeat"]}},
    "explorer: inverse gap around arow": {"name": "explorer", "params": {"base": "arow", "rule": "inverse_gap"},
                                          "grid": {"gamma": [0.1, 1, 10, 100, 1000],
                                                   "base.r": [0.001, 0.01, 0.1, 1, 10],
                                                   "importance": ["none", "repeat"]}},
    "explorer: inverse gap around oaa, wrong proposals as targets": {
        "name": "explorer", "params": {"base": "oaa", "rule": "inverse_gap", "wrong": "complementary"},
        "grid": {"gamma": [10, 100, 1000, 10000, 100000, 1000000, 10000000], "base.eta": [0.5, 1, 2, 4],
                 "importance": ["none", "repeat"]}},
    "perceptron (full labels)": {"name": "perceptron", "full": True},
    "spa (full labels)": {"name": "spa", "full": True},
    "arow (full labels)": {"name": "arow", "full": True, "grid": {"r": [0.01, 0.1, 1, 10, 100]}},
    "scw (full labels)": {"name": "scw", "full": True,
                          "grid": {"phi": [0.5, 1, 2, 4, 8], "C": [0.1, 1, 10], "variant": ["I", "II"]}},
    "oaa (full labels)": {"name": "oaa", "full": True, "grid": {"eta": [0.1, 0.5, 1]}},
}
# glimpse learners that implement what a VW setting does, for the speed ratio the issues ask for.
SAME_METHOD = {"banditron": "epsilon-greedy", "squarecb": "squarecb", "oaa (full labels)": "oaa (full labels)"}


# VW's grid: vw_comparison's own input (protocols/vw_comparison/vw_grid.json, with the reasons for its ends), so that
# changing it does not touch the bake-off page, which imports this module. VW_METHODS: family -> (options with {k} for
# the number of classes, and the method's own grid: option -> values); every setting at every VW_LEARNING_RATES.
with open(os.path.join(ROOT, "protocols", "vw_comparison", "vw_grid.json")) as _grid_file:
    _VW_GRID = json.load(_grid_file)
VW_LEARNING_RATES = tuple(_VW_GRID["learning_rates"])
VW_METHODS = {family: (method["options"], {option: tuple(values) for option, values in method["grid"].items()})
              for family, method in _VW_GRID["methods"].items()}


def vw_settings(k):
    """VW's settings: family -> [(grid label, options)]: each method's own grid at every learning rate of
    VW_LEARNING_RATES, with VW's constant feature and without it."""
    settings = {}
    for family, (options, grid) in VW_METHODS.items():
        points = [[]]
        for option, values in list(grid.items()) + [("-l", VW_LEARNING_RATES)]:
            points = [point + [(option, value)] for point in points for value in values]
        settings[family] = [
            (", ".join([f"{option.removeprefix('--')} {value}" for option, value in point] + noconstant),
             " ".join([options.format(k=k)] + [f"{option} {value}" for option, value in point] + noconstant))
            for point in points for noconstant in ([], ["--noconstant"])]
    return settings


def vw_grid_text():
    """VW's grid as the page states it, from VW_METHODS and VW_LEARNING_RATES themselves."""
    methods = "; ".join(f"{family} `{options.replace('{k}', 'K')}`"
                        + "".join(f", {option} {', '.join(map(str, values))}" for option, values in grid.items())
                        for family, (options, grid) in VW_METHODS.items())
    count = sum(map(len, vw_settings(2).values()))
    return (f"VW's grid ({count} settings): {methods}; each at learning rates -l "
            f"{', '.join(map(str, VW_LEARNING_RATES))} (VW's default is 0.5), with VW's constant feature and with "
            "`--noconstant`.")


def gridded_values(tool, learner, setting):
    """A chosen setting's numeric grid parameters of three values or more: {parameter: (value, sorted grid)}.
    `setting`: VW's grid label ("epsilon 0.05, -l 3, noconstant") or glimpse's parameters as JSON."""
    if tool == "VW":
        _, grid = VW_METHODS[learner]
        grids = {option.removeprefix("--"): values for option, values in grid.items()}
        grids["-l"] = VW_LEARNING_RATES
        chosen = {name: float(value) for name, _, value in (part.rpartition(" ") for part in setting.split(", "))
                  if name in grids}
    else:
        grids = GLIMPSE_LEARNERS[learner].get("grid") or {}
        chosen = json.loads(setting)
    return {name: (chosen[name], sorted(values)) for name, values in grids.items()
            if len(values) >= 3 and all(isinstance(v, (int, float)) for v in values) and name in chosen}


def grid_ends(results):
    """Where a chosen setting sits at an end of its grid, such a learner or family might do better past it:
    [(tool, learner, parameter, grid, [datasets at the lowest], [datasets at the highest])], each numeric grid
    parameter of three values or more chosen at an end on at least one dataset."""
    ends = {}
    for r in results:
        for tool, side in (("glimpse", r["glimpse"]), ("VW", r.get("vw", {}))):
            for learner, chosen in side.items():
                for parameter, (value, grid) in gridded_values(tool, learner, chosen["key"][1]).items():
                    if value in (grid[0], grid[-1]):
                        _, low, high = ends.setdefault((tool, learner, parameter), (grid, [], []))
                        (low if value == grid[0] else high).append(r["name"])
    return [(tool, learner, parameter, grid, low, high)
            for (tool, learner, parameter), (grid, low, high) in sorted(ends.items())]


def at_an_end_text(tool, learner, setting):
    """" (at its grid's end: PARAMETER VALUE, ...)" for a chosen setting with a parameter at an end, else ""."""
    ends = [f"{name} {value:g}" for name, (value, grid) in gridded_values(tool, learner, setting).items()
            if value in (grid[0], grid[-1])]
    return f" (at its grid's end: {', '.join(ends)})" if ends else ""


def run(command, **kwargs):
    return subprocess.run(command, check=True, capture_output=True, text=True, **kwargs)


def vw_loss(stderr, what):
    match = re.search(r"average loss\s*=\s*([-+0-9.eE]+)", stderr)
    if not match:
        raise SystemExit(f"compare_vw: {what} printed no 'average loss':\n{stderr}")
    return float(match.group(1))


def timed(command, env=None):
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"compare_vw: {' '.join(command)} failed:\n{result.stderr}")
    return seconds, result


def mean_std(values):
    return float(np.mean(values)), float(np.std(values, ddof=1)) if len(values) > 1 else 0.0


# Two selection means closer than this are a tie, which the point that comes first takes. A mean is over counts of
# right rounds out of n (VW's losses print six decimals), so real differences are 1e-6 or more, while one total spread
# differently over the orders gives means a rounding apart: (0.1 + 0.7) / 2 and (0.2 + 0.6) / 2 differ in their last
# bit, and a strict > would give the tie to whichever rounded up.
SELECTION_TIE = 1e-9


def same_selection(a, b):
    """Whether two selection means tie (SELECTION_TIE)."""
    return abs(a - b) <= SELECTION_TIE


def first_best(items, score):
    """The first of `items` with the highest score, a later one winning only by more than SELECTION_TIE (None for
    no items): the one choice of a grid point, a learner or a VW family, on either page."""
    best = None
    for item in items:
        if best is None or score(item) > score(best) + SELECTION_TIE:
            best = item
    return best


# How every VW run whose loss a page reports is started: without the parse thread (the same examples learnt in the
# same order, so the same losses; the thread handed each example over with a wake-up, and two processes' four threads
# shared two cores: a quarter of the bake-off's CPU time was the kernel's), and with a ring of 16 examples instead of
# 256 (VW allocates the ring as it starts: most of a process's 2,500 page faults; a process starts in 11 ms, not 17).
# The timed runs of vw_comparison do not use it: they time VW as a user starts it.
VW_DRIVER = ("--onethread", "--ring_size", "16")


def vw_command(vw, file, options, driver=VW_DRIVER):
    """The one shape of a VW command line: VW, its driver options, the data file, its cache beside it (written by
    the first run, read by the others), then the method's options (a list)."""
    return [vw, *driver, "-d", file, "--cache_file", file + ".cache", *options]


class Comparison:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.glimpse = GLIMPSE_EXECUTABLE
        self.vw = os.environ.get("VW") if "VW" in os.environ else shutil.which("vw")
        self.installed = self.dataset_cache()
        self.data = os.path.join(work, "data")
        os.makedirs(self.data, exist_ok=True)
        self.env = dict(os.environ, GLIMPSE_DATA=self.data)
        self.orders = list(range(1, args.orders + args.selection_orders + 1))
        self.reported = self.orders[:args.orders]
        self.vw_bits = ""  # VW's default -b 18; a subclass running VW with another -b names it here
        self.vw_failed = {}  # dataset -> {family: VW runs that failed}
        self.selecting = self.orders[args.orders:]
        # The tree the page is made from, as it was when the measurement began (edits during a long run must not
        # change what the page claims): glimpse reproduce's stamp when it runs this, else the tree now.
        commit, dirty = tree_state(ROOT)
        self.commit = os.environ.get("GLIMPSE_PAGE_COMMIT") or (
            commit + (" (with uncommitted changes: not reproducible)" if dirty else ""))

    def vw_versions_text(self):
        """VW's version (and source commit, when VW_SOURCE_COMMIT names it), or nothing without VW."""
        if not self.vw:
            return ""
        text = ", Vowpal Wabbit " + run([self.vw, "--version"]).stdout.splitlines()[0].strip()
        if os.environ.get("VW_SOURCE_COMMIT"):  # a VW built from a snapshot prints an empty "git commit"
            text += f" (built from VowpalWabbit/vowpal_wabbit commit {os.environ['VW_SOURCE_COMMIT']})"
        return text

    def dataset_cache(self):
        """The folder of installed datasets, as `glimpse datasets list` names it (the CLI owns its location)."""
        listing = run([self.glimpse, "datasets", "list"]).stdout
        match = re.search(r"^cache: (.+)$", listing, re.MULTILINE)
        if not match:
            raise SystemExit(f"compare_vw: 'glimpse datasets list' named no cache folder:\n{listing}")
        return match.group(1).strip()

    # --- inputs -----------------------------------------------------------------------------------------------
    def write_orders(self, name):
        """Every order of the dataset's rows, for both tools (VW's text only when VW runs), from one reading of its
        file: (n, d, K)."""
        out = run(["/usr/bin/python3", os.path.join(HERE, "vw_input.py"), os.path.join(self.installed, name + ".h5"),
                   self.vw_file(name, "{seed}") if self.vw else "-", "--seed", ",".join(map(str, self.orders)),
                   "--h5", os.path.join(self.data, f"{name}_o{{seed}}.h5"), "--name", f"{name}_o{{seed}}"]).stdout
        return tuple(int(v) for v in out.split())

    def vw_file(self, name, seed):
        return os.path.join(self.work, f"{name}_o{seed}.vw")

    # --- VW -----------------------------------------------------------------------------------------------------
    def vw_command(self, name, seed, options, driver=VW_DRIVER):
        return vw_command(self.vw, self.vw_file(name, seed), options.split(), driver)

    def vw_accuracies(self, name, k, settings=None, orders=None):
        """{(family, label): {seed: accuracy}} of `settings` (family -> [(label, options)]; default vw_settings(k))
        on `orders` (default all); the first run of each order builds its cache (untimed). Settings given but empty
        run nothing (not the default grid, whose family names may be the same as glimpse's learners')."""
        if settings is None:
            settings = vw_settings(k)
        settings = [(family, label, options) for family, grid in settings.items() for label, options in grid]
        if not settings:
            return {}
        orders = orders or self.orders
        for seed in orders:  # build caches once per order, serially (two writers of one cache would clash)
            if not os.path.exists(self.vw_file(name, seed) + ".cache"):
                # With the hash bits the runs use: VW rewrites a cache made with fewer bits than a run asks for.
                run(self.vw_command(name, seed, f"--oaa {k} {self.vw_bits}".strip()) + ["--quiet"])

        def one(job):
            family, label, options, seed = job
            result = subprocess.run(self.vw_command(name, seed, options), capture_output=True, text=True)
            if result.returncode != 0:  # a setting VW refuses or fails on is left out of the choice, and counted
                print(f"compare_vw: vw {options} failed on {name} order {seed}: {result.stderr.strip()[-300:]}",
                      file=sys.stderr)
                return (family, label), seed, None
            return (family, label), seed, 1 - vw_loss(result.stderr, f"vw {options}")

        accuracies = {}
        jobs = [(f, l, o, s) for f, l, o in settings for s in orders]
        with ThreadPoolExecutor(self.args.jobs) as pool:
            for key, seed, accuracy in pool.map(one, jobs):
                if accuracy is None:
                    self.vw_failed.setdefault(name, {}).setdefault(key[0], 0)
                    self.vw_failed[name][key[0]] += 1
                else:
                    accuracies.setdefault(key, {})[seed] = accuracy
        return accuracies

    # --- glimpse ------------------------------------------------------------------------------------------------
    def protocol(self, name, learners, orders, label, constant):
        """A sweep of `learners` (label -> entry) over the given orders' dataset files, in file order; with
        `constant`, each row gets a constant feature 1 (the bias transform), as VW's rows do by default."""
        entries = []
        for learner_label, learner in learners.items():
            entry = {"name": learner["name"], "as": learner_label}
            for key in ("params", "grid"):
                if learner.get(key):
                    entry[key] = learner[key]
            if learner.get("full"):
                entry["oracle"] = {"name": "full"}
            entries.append(entry)
        return {
            "name": f"compare_vw_{name}_{label}",
            "datasets": [{"name": f"{name}_o{seed}", **({"transforms": [{"name": "bias"}]} if constant else {})}
                         for seed in orders],
            "order": "file",
            "oracle": {"name": "bandit"},
            "learners": entries,
            "metrics": [{"name": "online_accuracy", "params": {"of": "proposed", "record_every": 0}}],
            "trace": "curves",
            "seeds": 1,
        }

    def glimpse_accuracies(self, name, learners=None, orders=None, label="sweep", constants=None):
        """{(label, params json, constant): {seed: accuracy}} and failed runs per label, from sweeps of `learners`
        (default GLIMPSE_LEARNERS) over `orders` (default all): without and with a constant feature (--constant), or
        with the given `constants` only."""
        accuracies, failed = {}, {}
        if constants is None:
            constants = {"both": (False, True), "without": (False,), "with": (True,)}[self.args.constant]
        for constant in constants:
            path = os.path.join(self.work, f"{name}_{label}_constant{int(constant)}.json")
            with open(path, "w") as f:
                json.dump(self.protocol(name, learners or GLIMPSE_LEARNERS, orders or self.orders, label, constant),
                          f, indent=1)
            out = path[:-len(".json")] + ".h5"
            result = subprocess.run([self.glimpse, "run", path, "-o", out, "--quiet", "--force",
                                     "-j", str(self.args.jobs)], capture_output=True, text=True, env=self.env)
            if not os.path.exists(out):
                raise SystemExit(f"compare_vw: glimpse run {path} failed:\n{result.stderr}")
            with h5py.File(out, "r") as f:
                for row in f[root.summary][()]:
                    learner = row[run_fields.label].decode()
                    if row[run_fields.status].decode() != status.complete:
                        failed[learner] = failed.get(learner, 0) + 1
                        continue
                    seed = int(row[run_fields.dataset].decode().rsplit("_o", 1)[1])
                    params = {k: v for k, v in json.loads(row[run_fields.params].decode()).items()
                              if not k.endswith("precision")}
                    key = (learner, json.dumps(params, sort_keys=True), constant)
                    accuracies.setdefault(key, {})[seed] = float(row["online_accuracy"])
        return accuracies, failed

    def glimpse_timing_protocol(self, name, label, params, constant):
        path = os.path.join(self.work, f"{name}_time_{re.sub(r'[^A-Za-z0-9]+', '_', label)}.json")
        learner = dict(GLIMPSE_LEARNERS[label], params=params, grid=None)
        protocol = self.protocol(name, {label: learner}, [1], "time", constant)
        with open(path, "w") as f:
            json.dump(protocol, f)
        return [self.glimpse, "run", path, "-o", os.path.join(self.work, "timing.h5"), "--quiet", "--force", "-j", "1"]

    # --- selection ---------------------------------------------------------------------------------------------
    def choose(self, accuracies):
        """Per learner (key[0]), the grid point with the best mean over the selection orders, the first in grid order
        of points that tie (SELECTION_TIE; as first_best): {learner: {key, selection}}. A point whose run failed on a
        selection order cannot be compared and is left out."""
        chosen = {}
        for key, by_seed in accuracies.items():
            selection = self.selection_mean(by_seed)
            if selection is None:
                continue
            group = key[0]
            if group not in chosen or selection > chosen[group]["selection"] + SELECTION_TIE:
                chosen[group] = {"key": key, "selection": selection}
        return chosen

    def selection_mean(self, by_seed):
        """A grid point's mean accuracy over the selection orders, on which choose() ranks it (None: a run on a
        selection order failed, so it cannot be compared)."""
        if any(s not in by_seed for s in self.selecting):
            return None
        return float(np.mean([by_seed[s] for s in self.selecting]))

    def glimpse_chosen(self, name, learners=None):
        """glimpse's side in two stages: every grid point of `learners` (default GLIMPSE_LEARNERS) on the selection
        orders, then each learner at its chosen point (its constant feature included) on the reported orders only,
        so no choice sees a reported order, not even whether a run on it failed. Returns (chosen, failed, selecting):
        chosen = {learner: {key, selection, run: the protocol entry at the chosen point, reported: {order:
        accuracy}}}, a learner whose run on a reported order failed left out; failed = runs that failed per learner,
        both stages; selecting = every grid point's accuracies on the selection orders."""
        learners = learners or GLIMPSE_LEARNERS
        selecting, failed = self.glimpse_accuracies(name, learners, self.selecting, "select")
        chosen = self.choose(selecting)
        for label, choice in chosen.items():
            entry, params = learners[label], json.loads(choice["key"][1])
            named = dict(entry.get("params", {}), **{key: params[key] for key in entry.get("grid", {})})
            choice["run"] = dict(entry, params=named, grid=None)
        for constant in sorted({choice["key"][2] for choice in chosen.values()}):
            fixed = {label: choice["run"] for label, choice in chosen.items() if choice["key"][2] == constant}
            reported, failed_reported = self.glimpse_accuracies(name, fixed, self.reported, "report", (constant,))
            for label, count in failed_reported.items():
                failed[label] = failed.get(label, 0) + count
            for (label, _, _), by_order in reported.items():
                chosen[label]["reported"] = by_order
        chosen = {label: choice for label, choice in chosen.items()
                  if all(order in choice.get("reported", {}) for order in self.reported)}
        return chosen, failed, selecting

    def vw_chosen(self, name, k, settings=None):
        """VW's side in the same two stages: every setting (default vw_settings(k)) on the selection orders, then
        each family's chosen one on the reported orders. Returns (chosen, selecting) as glimpse_chosen, with
        chosen[family]["options"] the command line options; failed runs are counted in vw_failed."""
        settings = vw_settings(k) if settings is None else settings
        selecting = self.vw_accuracies(name, k, settings, self.selecting)
        chosen = self.choose(selecting)
        for family, choice in chosen.items():
            choice["options"] = dict(settings[family])[choice["key"][1]]
        reported = self.vw_accuracies(name, k, {family: [(choice["key"][1], choice["options"])]
                                                for family, choice in chosen.items()}, self.reported)
        for family, choice in chosen.items():
            choice["reported"] = reported.get((family, choice["key"][1]), {})
        chosen = {family: choice for family, choice in chosen.items()
                  if all(order in choice["reported"] for order in self.reported)}
        return chosen, selecting

    def rerun(self, name, k, glimpse_cells, vw_cells):
        """The reported orders' accuracies of some cells, rerun as a ledger records them: {(side, learner, order):
        accuracy}, side "glimpse" or "vw" (glimpse's squarecb and VW's share a name). glimpse_cells: {label:
        (protocol entry at its chosen point, constant feature)}; vw_cells: {family: (setting label, options)}. A run
        that fails is left out."""
        accuracies = {}
        for constant in sorted({constant for _, constant in glimpse_cells.values()}):
            cells = {label: entry for label, (entry, c) in glimpse_cells.items() if c == constant}
            found, _ = self.glimpse_accuracies(name, cells, self.reported, "verify", (constant,))
            for (label, _, _), by_order in found.items():
                accuracies.update({("glimpse", label, order): accuracy for order, accuracy in by_order.items()})
        found = self.vw_accuracies(name, k, {family: [cell] for family, cell in vw_cells.items()}, self.reported)
        for (family, _), by_order in found.items():
            accuracies.update({("vw", family, order): accuracy for order, accuracy in by_order.items()})
        return accuracies

    def compare(self, name):
        n, d, k = self.write_orders(name)
        started = time.perf_counter()
        result = {"name": name, "n": n, "d": d, "K": k}
        result["glimpse"], result["glimpse_failed_runs"], _ = self.glimpse_chosen(name)
        if self.vw:
            result["vw"], _ = self.vw_chosen(name, k)
            result["vw_failed_runs"] = self.vw_failed.get(name, {})
            result["timing"] = self.timing(name, k, result)
        result["seconds"] = time.perf_counter() - started
        return result

    def timing(self, name, k, result):
        """Whole-process seconds at each chosen grid point on order 1, REPEATS interleaved runs, medians."""
        commands = {}
        for label, chosen in result["glimpse"].items():
            _, params, constant = chosen["key"]
            commands[("glimpse", label)] = (self.glimpse_timing_protocol(name, label, json.loads(params), constant),
                                            dict(self.env, GLIMPSE_PREPARED_CACHE="always"))
        for family, chosen in result["vw"].items():
            commands[("vw", family)] = (self.vw_command(name, 1, chosen["options"], driver=()), None)
        # VW runs from the cache its untimed runs wrote; glimpse likewise maps the transformed rows an untimed run
        # kept (GLIMPSE_PREPARED_CACHE=always: the constant feature's copy of the rows is then made once).
        for key, (command, env) in commands.items():
            if key[0] == "glimpse":
                timed(command, env)
        seconds = {key: [] for key in commands}
        for _ in range(self.args.repeats):
            for key, (command, env) in commands.items():
                seconds[key].append(timed(command, env)[0])
        return {f"{tool}|{what}": statistics.median(values) for (tool, what), values in seconds.items()}


# --- the ledger: every reported figure and what ran, so that any cell can be rerun bit for bit -------------------
def ledger_path(page):
    return (page[:-len(".md")] if page.endswith(".md") else page) + ".cells.csv"


def glimpse_run_text(entry, constant):
    """A ledger's `run` for glimpse: the protocol entry at the chosen point and whether rows had a constant feature."""
    return json.dumps({"learner": entry, "constant": constant}, sort_keys=True)


def write_ledger(path, fields, rows):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


LEDGER_FIELDS = ("dataset", "learner", "side", "order", "accuracy", "setting", "run")


def ledger_rows(results):
    """One row per dataset, learner (or VW family) and reported order: the accuracy as a double prints and reads
    back exactly, the chosen setting, and what ran."""
    rows = []
    for r in results:
        for label, choice in r["glimpse"].items():
            for order, accuracy in sorted(choice["reported"].items()):
                rows.append({"dataset": r["name"], "learner": label, "side": "glimpse", "order": order,
                             "accuracy": repr(accuracy), "setting": describe_params(label, *choice["key"][1:]),
                             "run": glimpse_run_text(choice["run"], choice["key"][2])})
        for family, choice in r.get("vw", {}).items():
            for order, accuracy in sorted(choice["reported"].items()):
                rows.append({"dataset": r["name"], "learner": family, "side": "vw", "order": order,
                             "accuracy": repr(accuracy), "setting": choice["key"][1], "run": choice["options"]})
    return rows


def verify_ledger(args, make_comparison, fields, value_of, tool, extra=None):
    """Reruns the rows of args.sample cells of the ledger args.verify (a cell: one learner or VW family, by its side,
    on one dataset; all cells without --sample) and compares each value (the `fields[4]` column) with the ledger's bit
    for bit, exiting 1 with each row that differs. make_comparison(args, work) runs them; value_of(accuracy) is what
    the ledger records of an accuracy; rows of a side other than glimpse and vw are rerun by extra(comparison,
    dataset, k, cells) -> {(side, learner, order): value}. Without VW only glimpse's cells are drawn."""
    with open(args.verify, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or tuple(rows[0]) != tuple(fields):
        raise SystemExit(f"{tool}: {args.verify}: not a {tool} ledger (expected the columns {', '.join(fields)})")
    value_field, cells = fields[4], {}
    for row in rows:
        cells.setdefault((row["dataset"], row["side"], row["learner"]), []).append(row)
    args.orders, args.selection_orders = max(int(row["order"]) for row in rows), 0
    differ, checked = [], 0
    with work_folder(f"{tool}-verify.") as work:
        comparison = make_comparison(args, work)
        if args.no_vw:
            comparison.vw = None
        names = sorted(c for c in cells if comparison.vw or c[1] == "glimpse")
        left_out = len(cells) - len(names)
        if args.sample is not None and args.sample < len(names):
            random.Random(args.seed).shuffle(names)
            names = names[:args.sample]
        for dataset in sorted({d for d, _, _ in names}):
            chosen = [cells[name] for name in names if name[0] == dataset]
            if not os.path.exists(os.path.join(comparison.installed, dataset + ".h5")):
                run([comparison.glimpse, "datasets", "install", dataset])
            _, _, k = comparison.write_orders(dataset)
            glimpse_cells = {c[0]["learner"]: tuple(json.loads(c[0]["run"])[key] for key in ("learner", "constant"))
                             for c in chosen if c[0]["side"] == "glimpse"}
            vw_cells = {c[0]["learner"]: (c[0]["setting"], c[0]["run"]) for c in chosen if c[0]["side"] == "vw"}
            rerun = {key: value_of(accuracy)
                     for key, accuracy in comparison.rerun(dataset, k, glimpse_cells, vw_cells).items()}
            others = [c for c in chosen if c[0]["side"] not in ("glimpse", "vw")]
            if others:
                rerun.update(extra(comparison, dataset, k, others))
            for row in (row for cell in chosen for row in cell):
                checked += 1
                got = rerun.get((row["side"], row["learner"], int(row["order"])))
                if got is None or repr(got) != row[value_field]:
                    differ.append(f"{dataset}, {row['learner']} ({row['setting']}), order {row['order']}: ledger "
                                  f"{row[value_field]}, rerun {'failed' if got is None else repr(got)}")
    sample = f" (--sample {args.sample} --seed {args.seed})" if args.sample is not None else ""
    print(f"{tool} --verify: {len(names)} cells{sample}, {checked} values rerun"
          + ("" if comparison.vw else f" (glimpse's cells only: no vw; {left_out} VW cells not drawn)"),
          file=sys.stderr)
    for line in differ:
        print("DIFFERS: " + line, file=sys.stderr)
    if differ:
        raise SystemExit(1)
    print(f"{tool} --verify: all {checked} equal to the ledger bit for bit", file=sys.stderr)


# --- the page -----------------------------------------------------------------------------------------------------
def percent(values):
    m, s = mean_std(values)
    return f"{100 * m:.1f} ({100 * s:.1f})"


def describe_params(learner, params_json, constant):
    """The chosen point of the parameters the protocol sets or grids (the others are the plugin's defaults)."""
    entry = GLIMPSE_LEARNERS[learner]
    named = set(entry.get("params", {})) | set(entry.get("grid", {}))
    params = {k: v for k, v in json.loads(params_json).items() if k in named}
    described = ", ".join(f"{k} {json.dumps(v)}" for k, v in params.items()) or "defaults"
    return described + (", constant feature" if constant else "")


def failed_runs_text(tool, failed, shown):
    """A sentence on one side's failed runs ({learner or family: count}); `shown` holds those with a row."""
    counts = ", ".join(f"{label} {count}" for label, count in sorted(failed.items()))
    missing = sorted(label for label in failed if label not in shown)
    point, learner = ("setting", "family") if tool == "VW" else ("grid point", "learner")
    return (f" {tool} runs that failed: {counts}. A {point} with a failed run on a selection order is left out of "
            f"the choice; a {learner} whose chosen {point} failed on a reported order has no row" +
            (f" (here: {', '.join(missing)})" if missing else " (none here)") +
            (" (`glimpse summary` on the sweeps says why; KEEP=1 keeps them)." if tool == "glimpse" else "."))


def write_page(path, results, args, command, versions, seconds, invoked_as=None):
    by = f"`{invoked_as}`, which runs `{command}`" if invoked_as else f"`{command}`"
    lines = [
        "# glimpse next to Vowpal Wabbit, measured",
        "",
        f"*Generated by {by}: do not edit this page, rerun it.* "
        f"{datetime.date.today().isoformat()}, {versions}; {seconds:.0f} s on {os.cpu_count()} cores. "
        "Every number below comes from that run.",
        "",
        f"Rows: each dataset's rows with features min-max scaled to [-1, 1] and unit L2 norm "
        f"(benchmarks/vw_input.py), in {args.orders + args.selection_orders} shuffled orders, the same float32 values "
        f"for both tools (VW reads text features named f1, f2, ...; glimpse a dataset file). "
        f"Accuracy: proposed labels right over one pass, mean (std) over the {args.orders} reported orders; each "
        f"learner's grid point (and VW setting's) is the one with the best mean on {args.selection_orders} other "
        f"orders, so no figure chose its own grid point (only the chosen points run on the reported orders); a "
        "chosen setting names the parameters this comparison sets or grids, the others keep the plugin's defaults "
        "(`glimpse describe NAME`). Whether rows carry a constant feature is part of each side's "
        f"grid point: VW's default (constant) or `--noconstant`; glimpse without one or with the bias transform "
        f"appending 1 to each row after the scaling (\"constant feature\" in the chosen setting). "
        + (vw_grid_text() + " " if any(r.get("vw") for r in results) else "") +
        "VW runs with its defaults otherwise (`-b 18` hashing); the runs whose accuracy is reported start with "
        f"`{' '.join(VW_DRIVER)}` (no parse thread, a smaller example ring: the same losses), the timed ones as a "
        f"user starts VW. A tie on the selection orders (means within {SELECTION_TIE:g}, the rounding of one total "
        "spread differently) goes to the grid's first point. Whole process: order 1, each learner at its chosen "
        f"setting, the median of {args.repeats} interleaved runs after an untimed one (VW from the cache that run "
        "wrote; glimpse, when a constant feature is chosen, mapping the transformed rows that run kept, "
        "GLIMPSE_PREPARED_CACHE=always).",
        "",
    ]
    for r in results:
        lines += [f"## {r['name']} (n = {r['n']}, d = {r['d']}, K = {r['K']})", ""]
        rows = []
        for label, chosen in r["glimpse"].items():
            rows.append(("glimpse", label, describe_params(label, *chosen["key"][1:]),
                         list(chosen["reported"].values()), GLIMPSE_LEARNERS[label].get("full", False),
                         f"glimpse|{label}"))
        for family, chosen in r.get("vw", {}).items():
            rows.append(("VW", family, chosen["key"][1], list(chosen["reported"].values()), "full" in family,
                         f"vw|{family}"))
        lines += ["| tool | learner | chosen setting | accuracy % | whole process s (order 1) | rounds/s |",
                  "|---|---|---|---|---|---|"]
        for tool, learner, setting, reported, _, timing_key in rows:
            t = r.get("timing", {}).get(timing_key)
            whole = "-" if t is None else f"{t:.3f}"
            rate = "-" if t is None else f"{r['n'] / t:,.0f}"
            lines.append(f"| {tool} | {learner} | {setting} | {percent(reported)} | {whole} | {rate} |")
        lines.append("")
        best_g_name = first_best([l for l in r["glimpse"] if not GLIMPSE_LEARNERS[l].get("full")],
                                 lambda l: r["glimpse"][l]["selection"])
        best_g = r["glimpse"][best_g_name]
        summary = (f"Best glimpse bandit learner (chosen on the selection orders): **{best_g_name}**, "
                   f"{percent(list(best_g['reported'].values()))}"
                   f"{at_an_end_text('glimpse', best_g_name, best_g['key'][1])}.")
        bandit_vw = {f: v for f, v in r.get("vw", {}).items() if "full" not in f}
        if bandit_vw:
            best_v_name = first_best(bandit_vw, lambda f: bandit_vw[f]["selection"])
            best_v = bandit_vw[best_v_name]
            gap = 100 * (np.mean(list(best_g["reported"].values())) - np.mean(list(best_v["reported"].values())))
            summary += (f" Best VW bandit setting: **{best_v_name}** ({best_v['key'][1]}), "
                        f"{percent(list(best_v['reported'].values()))}"
                        f"{at_an_end_text('VW', best_v_name, best_v['key'][1])}."
                        f" glimpse - VW: {gap:+.1f} points ({'at or above' if gap >= 0 else 'below'} VW).")
            ratios = []
            for learner, family in SAME_METHOD.items():
                g, v = r["timing"].get(f"glimpse|{learner}"), r["timing"].get(f"vw|{family}")
                if g and v:
                    ratios.append(f"{learner} vs VW {family}: {v / g:.1f}x")
            if ratios:
                summary += " Whole-process speed, glimpse over VW, same method: " + "; ".join(ratios) + "."
        for tool, failed, shown in (("VW", r.get("vw_failed_runs", {}), r.get("vw", {})),
                                    ("glimpse", r["glimpse_failed_runs"], r["glimpse"])):
            if failed:
                summary += failed_runs_text(tool, failed, shown)
        lines += [summary, ""]
    ends = grid_ends(results)
    lines += ["## Settings chosen at a grid's end", "",
              "Each numeric grid parameter (three values or more) chosen at the lowest or highest value of its grid, "
              "with the datasets where it was: such a learner or VW family might do better past that end, so its "
              "row may understate it." + ("" if ends else " None."), ""]
    if ends:
        lines += ["| tool | learner | parameter | grid | at the lowest | at the highest |", "|---|---|---|---|---|---|"]
        lines += [f"| {tool} | {learner} | {parameter} | {', '.join(f'{v:g}' for v in grid)} | {', '.join(low)} | "
                  f"{', '.join(high)} |" for tool, learner, parameter, grid, low, high in ends]
        lines.append("")
    verify = (f"{invoked_as} --verify --sample N" if invoked_as else
              f"benchmarks/compare_vw.sh --verify {os.path.relpath(ledger_path(path), ROOT)} --sample N")
    lines += ["## How to rerun", "", "```sh", "build/bin/glimpse datasets install " +
              " ".join(r["name"] for r in results), invoked_as or command, "```", "",
              f"The ledger beside this page ({os.path.basename(ledger_path(path))}) holds every reported accuracy with "
              f"its order, chosen setting and what ran; `{verify}` reruns N cells (a cell: one learner or VW family "
              f"on one dataset, its {args.orders} reported orders) and compares them with it bit for bit (VW's cells "
              "need `vw`).", ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


@contextlib.contextmanager
def work_folder(prefix):
    """A scratch folder for the orders and runs, removed afterwards unless KEEP=1."""
    work = tempfile.mkdtemp(prefix=prefix)
    try:
        yield work
    finally:
        if os.environ.get("KEEP") == "1":
            print(f"work folder: {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def measure_datasets(comparison, names, resume, tool):
    """comparison.compare(name) for each dataset in turn, a line on stderr for each: [(result, resumed)]. With a
    `resume` folder each result is kept there (NAME.pickle, written whole) under a key of everything it depends on
    (the page's fingerprint when glimpse reproduce runs this, else the commit of a clean tree; the options; glimpse's
    and VW's versions), and a rerun with the same key reads it back instead of measuring again, so an interrupted
    page resumes at the dataset it was measuring. A dirty tree outside glimpse reproduce keeps nothing."""
    fingerprint = os.environ.get("GLIMPSE_PAGE_FINGERPRINT")
    if resume and not fingerprint and "uncommitted" in comparison.commit:
        print(f"{tool}: --resume: the tree has uncommitted changes, so nothing kept can be trusted: measuring afresh",
              file=sys.stderr)
        resume = None
    options = {key: value for key, value in sorted(vars(comparison.args).items())
               if key not in ("page", "invoked_as", "jobs", "resume", "datasets")}
    key = json.dumps({"inputs": fingerprint or comparison.commit, "options": options,
                      "versions": run([comparison.glimpse, "--version"]).stdout.strip() + comparison.vw_versions_text()},
                     sort_keys=True, default=str)
    if resume:
        os.makedirs(resume, exist_ok=True)
    measured = []
    for name in names:
        kept = os.path.join(resume, name + ".pickle") if resume else None
        if kept and os.path.exists(kept):
            with open(kept, "rb") as f:
                saved = pickle.load(f)
            if saved.get("key") == key:
                measured.append((saved["result"], True))
                print(json.dumps({"dataset": name, "resumed from": kept}), file=sys.stderr)
                continue
        result = comparison.compare(name)
        if kept:
            with open(kept + ".partial", "wb") as f:
                pickle.dump({"key": key, "result": result}, f)
            os.replace(kept + ".partial", kept)
        measured.append((result, False))
        print(json.dumps({field: round(result[field], 1) if field.endswith("seconds") else result[field]
                          for field in ("name", "n", "seconds", "glimpse_seconds", "vw_seconds") if field in result}),
              file=sys.stderr)
    return measured


def versions_text(comparison):
    """glimpse's version and commit, and VW's version (and source commit, when VW_SOURCE_COMMIT names it)."""
    text = run([comparison.glimpse, "--version"]).stdout.strip()
    return text + ", commit " + comparison.commit + comparison.vw_versions_text()


def shown_arguments(argv):
    """The arguments as a reader would rerun them: without where the page goes and where its results are kept."""
    shown, skip = [], False
    for word in argv:
        if skip or word in ("--page", "--invoked-as", "--resume"):
            skip = not skip
            continue
        shown.append(word)
    return shown


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="*",
                        default=["vehicle", "satimage", "shuttle", "segment", "letter", "fashion_mnist"])
    parser.add_argument("--orders", type=int, default=10, help="orders reported (default 10)")
    parser.add_argument("--selection-orders", type=int, default=5, help="other orders that choose grid points (5)")
    parser.add_argument("--repeats", type=int, default=3, help="timed whole-process runs per learner (3)")
    parser.add_argument("--jobs", "-j", type=int, default=os.cpu_count(), help="parallel runs (all cores)")
    parser.add_argument("--page", default=os.path.join(ROOT, "docs/results/vw_comparison.md"),
                        help="the page to write (default docs/results/vw_comparison.md; '-' for none)")
    parser.add_argument("--invoked-as", help="the command to name at the page's top (glimpse reproduce runs this)")
    parser.add_argument("--plugins", action="store_true", help="print the glimpse plugins this runs (JSON) and stop")
    parser.add_argument("--resume", metavar="FOLDER", help="keep each dataset's results in FOLDER and read back "
                        "those measured with the same inputs (glimpse reproduce passes runs/reproduce/...)")
    parser.add_argument("--learners", nargs="+", metavar="LABEL",
                        help="only these of glimpse's learners (their labels here), e.g. to compare two variants")
    parser.add_argument("--no-vw", action="store_true", help="glimpse's side only, even with a VW binary")
    parser.add_argument("--constant", choices=("both", "without", "with"), default="both",
                        help="glimpse's rows without and with a constant feature, as grid variants (both), or one")
    parser.add_argument("--verify", metavar="LEDGER", help="rerun the ledger's cells and compare them bit for bit")
    parser.add_argument("--sample", type=int, help="--verify: this many cells, drawn at random with --seed")
    parser.add_argument("--seed", type=int, default=1, help="--verify --sample: the draw's seed (1)")
    args = parser.parse_args()
    if args.verify:
        return verify_ledger(args, Comparison, LEDGER_FIELDS, lambda accuracy: accuracy, "compare_vw")
    if args.learners:
        unknown = [label for label in args.learners if label not in GLIMPSE_LEARNERS]
        if unknown:
            parser.error(f"unknown learner label(s) {unknown}; known: {sorted(GLIMPSE_LEARNERS)}")
        for label in [label for label in GLIMPSE_LEARNERS if label not in args.learners]:
            del GLIMPSE_LEARNERS[label]
    if args.plugins:
        names = {"bandit", "full", "online_accuracy"}
        for learner in GLIMPSE_LEARNERS.values():
            names.add(learner["name"])
            if "base" in learner.get("params", {}):
                names.add(learner["params"]["base"])
        print(json.dumps(sorted(names)))
        return
    with work_folder("compare_vw.") as work:
        comparison = Comparison(args, work)
        if args.no_vw:
            comparison.vw = None
        elif not comparison.vw:
            print("compare_vw: no Vowpal Wabbit binary (vw on PATH or VW=...): skipping VW, glimpse's side only",
                  file=sys.stderr)
        started = time.perf_counter()
        installed = []
        for name in args.datasets:
            if os.path.exists(os.path.join(comparison.installed, name + ".h5")):
                installed.append(name)
            else:
                print(f"{name}: not installed (glimpse datasets install {name}): skipped", file=sys.stderr)
        measured = measure_datasets(comparison, installed, args.resume, "compare_vw")
        results = [result for result, _ in measured]
        # A resumed dataset's time is the time it took when it was measured.
        seconds = time.perf_counter() - started + sum(result["seconds"] for result, resumed in measured if resumed)
        versions = versions_text(comparison)
        command = "benchmarks/compare_vw.sh " + " ".join(shown_arguments(sys.argv[1:]))
        if args.page != "-":
            write_page(args.page, results, args, command.strip(), versions, seconds, args.invoked_as)
            write_ledger(ledger_path(args.page), LEDGER_FIELDS, ledger_rows(results))
        json.dump(results, sys.stdout, indent=1, default=str)
        print()


if __name__ == "__main__":
    main()
