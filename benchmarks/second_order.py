#!/usr/bin/python3
"""The second-order learners before and after the shared packed state (issue #59), and next to Vowpal Wabbit.

    benchmarks/second_order.py --before COMMIT [--repeats R] [--rows-confidit N] [--sketch-ranks M...]
    benchmarks/second_order.py --after-only [--sketch-ranks M...]   # this tree's runs beside VW, no old build

Builds the CLI and the plugins these runs need from COMMIT (a git worktree in build-second-order-before/) and from
this tree (into build-second-order-after/; about 5 minutes each on 2 cores), then times whole processes, interleaved,
REPEATS runs each after an untimed one, and prints medians and the accuracy of each run:

- squarecb, update ridge (exact online least squares per class), precision float and double, and (after only) its
  sketch at ranks M (second_order sketch, default ranks 10 and 20), on fashion-MNIST
  (60,000 x 784, K = 10), one pass in the order of benchmarks/vw_input.py's seed 1 (features min-max scaled to
  [-1, 1], rows unit L2: the rows and order VW reads);
- confidit, matrix full, on the first N rows of that order (default 10,000: its old dense form reads K d x d
  matrices a round);
- soba, matrix full (one Kd x Kd matrix, Kd = 7,840), on the first M rows of the fashion-MNIST order (default
  2,000: its old dense form reads the whole Kd x Kd matrix twice an update);
- with VW (env VW, or vw on PATH): --cbify 10 --cb_explore_adf --regcb --regcbopt and --squarecb on the same
  fashion-MNIST rows, from the binary cache an untimed run wrote.

The settings are fixed (not tuned): the point is time per pass at equal work and that the accuracy moves by no
more than the arithmetic's order. Environment: GLIMPSE_DATA (installed datasets), KEEP=1 keeps the work folder.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import h5py

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from compare_vw import Comparison, root, timed, vw_loss  # noqa: E402  (one place for the orders, the VW call, timing)
from vw_input import write_glimpse_dataset  # noqa: E402

PLUGINS = ["installed", "bandit", "online_accuracy", "squarecb", "confidit", "soba"]


def build(source, out, jobs):
    """The CLI and PLUGINS of `source`, Release, reference arithmetic; returns the glimpse executable."""
    subprocess.run(["cmake", "-S", source, "-B", out, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF",
                    "-DGLIMPSE_BUILD_BENCHMARKS=OFF", "-DGLIMPSE_WITH_MPI=OFF", "-DGLIMPSE_WITH_PYTHON=OFF"],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", out, "-j", str(jobs), "--target", "glimpse",
                    *[f"glimpse_plugin_{p}" for p in PLUGINS]], check=True, capture_output=True)
    return os.path.join(out, "bin", "glimpse")


def protocol(path, dataset, learner, params):
    spec = {"name": f"second_order_{learner}", "datasets": [{"name": dataset}], "order": "file",
            "oracle": {"name": "bandit"}, "learners": [{"name": learner, "params": params}],
            "metrics": [{"name": "online_accuracy", "params": {"of": "proposed", "record_every": 0}}],
            "trace": "curves", "seeds": 1}
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


def accuracy(trace):
    with h5py.File(trace, "r") as f:
        return float(f[root.summary]["online_accuracy"][0])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    when = parser.add_mutually_exclusive_group(required=True)
    when.add_argument("--before", help="the commit to compare with (its build is made here)")
    when.add_argument("--after-only", action="store_true", help="only this tree (and VW): no before build")
    parser.add_argument("--sketch-ranks", type=int, nargs="+", default=[10, 20], help="sketch ranks to time (10 20)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rows-confidit", type=int, default=10000, help="confidit full's rows (10000)")
    parser.add_argument("--rows-soba", type=int, default=2000, help="soba full's rows (2000)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args()

    builds = {}
    if args.before:
        before_tree = os.path.join(ROOT, "build-second-order-before")
        if not os.path.exists(before_tree):
            subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", before_tree, args.before], check=True,
                           capture_output=True)
        subprocess.run(["git", "-C", before_tree, "checkout", "--detach", args.before], check=True,
                       capture_output=True)
        builds["before"] = build(before_tree, os.path.join(before_tree, "build"), args.jobs)
    builds["after"] = build(ROOT, os.path.join(ROOT, "build-second-order-after"), args.jobs)

    work = tempfile.mkdtemp(prefix="second_order_")
    comparison = Comparison(argparse.Namespace(orders=1, selection_orders=0, jobs=args.jobs), work)
    comparison.glimpse = builds["after"]
    comparison.write_orders("fashion_mnist")
    with h5py.File(os.path.join(comparison.data, "fashion_mnist_o1.h5"), "r") as f:  # first rows: confidit, soba
        for learner, rows in (("confidit", args.rows_confidit), ("soba", args.rows_soba)):
            write_glimpse_dataset(os.path.join(comparison.data, f"fashion_mnist_{learner}_o1.h5"),
                                  f"fashion_mnist_{learner}_o1", f["X"][:rows], f["y"][:rows], int(f.attrs["K"]))
    env = comparison.env
    runs = {}  # label -> (command, trace or None)
    for version, glimpse in builds.items():
        def glimpse_run(label, path):
            trace = os.path.join(work, f"{label}_{version}.h5".replace(" ", "_"))
            runs[f"{label}, {version}"] = ([glimpse, "run", path, "-o", trace, "--quiet", "--force", "-j", "1"], trace)
        for precision in ("float", "double"):
            glimpse_run(f"squarecb ridge {precision}", protocol(
                os.path.join(work, f"squarecb_{precision}.json"), "fashion_mnist_o1", "squarecb",
                {"update": "ridge", "gamma_scale": 1000, "lambda": 1, "precision": precision}))
        glimpse_run("confidit full", protocol(os.path.join(work, "confidit.json"), "fashion_mnist_confidit_o1",
                                              "confidit", {"matrix": "full"}))
        glimpse_run("soba full", protocol(os.path.join(work, "soba.json"), "fashion_mnist_soba_o1", "soba",
                                          {"matrix": "full", "gamma": 0.05}))
        for rank in args.sketch_ranks if version == "after" else ():  # the sketch is new: no before
            glimpse_run(f"squarecb ridge sketch rank {rank}", protocol(
                os.path.join(work, f"squarecb_sketch{rank}.json"), "fashion_mnist_o1", "squarecb",
                {"update": "ridge", "gamma_scale": 1000, "lambda": 1, "second_order": "sketch", "sketch_rank": rank}))
    if comparison.vw:
        for label, options in (("VW regcbopt", "--cbify 10 --cb_explore_adf --regcb --regcbopt"),
                               ("VW squarecb", "--cbify 10 --cb_explore_adf --squarecb --gamma_scale 500")):
            runs[label] = (comparison.vw_command("fashion_mnist", 1, options, driver=()), None)  # as a user runs it

    for command, _ in runs.values():  # untimed: caches, page cache
        timed(command, env)
    seconds = {label: [] for label in runs}
    results = {}
    for _ in range(args.repeats):
        for label, (command, trace) in runs.items():
            elapsed, result = timed(command, env)
            seconds[label].append(elapsed)
            results[label] = accuracy(trace) if trace else 1 - vw_loss(result.stderr, label)
    print(f"# whole process, median of {args.repeats} interleaved runs; before = {args.before or 'not run'}")
    print(f"{'run':34} {'seconds':>8} {'accuracy':>9}")
    for label in runs:
        print(f"{label:34} {statistics.median(seconds[label]):8.2f} {100 * results[label]:8.2f}%")
    for label in ("squarecb ridge float", "squarecb ridge double", "confidit full", "soba full") if args.before else ():
        ratio = statistics.median(seconds[f"{label}, after"]) / statistics.median(seconds[f"{label}, before"])
        print(f"{label}: after / before = {ratio:.2f}")
    if os.environ.get("KEEP") != "1":
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
