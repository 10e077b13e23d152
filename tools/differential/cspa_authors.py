#!/usr/bin/python3
"""Differential runs against the CSPA authors' baseline program (kangzi/Online_Multiclass_with-Bandit_Feedback),
run unchanged from a checkout outside this repository: none of its code is copied here, it is imported at run
time from --authors DIR, or from a scratch clone at the pinned commit with --fetch (docs/reproducing.md,
"Differential runs"). --output FILE keeps what is printed, with the command and the authors' commit, for a results
page to show (paper.json's "differentials").

  cspa_authors.py (--authors DIR | --fetch) [--output FILE] pipeline DATASET ALGO [--linear] [--l2] [--only G,PARAM] [--float-phi] ...
      train.py's pipeline on glimpse's installed rows (min-max scaled to [-1, 1] as svm-scale does): the grid
      point chosen on one run (seed 0; 700 support rows for the kernel learners), then the reported runs (seeds
      1-9, the constructors' default of 500 support rows), mean and sample std of the ratio of correct proposals;
      and how many rounds their kernel code skipped (it turns NumPy warnings into errors and skips the round).
  cspa_authors.py (--authors DIR | --fetch) replay TRACE.h5 RUN DATASET ALGO G GAMMA B [--float-phi]
      a glimpse run's stream order and proposals fed to their kernel Banditron or BPA; prints the rounds where
      their greedy prediction differs from glimpse's.

ALGO is banditron, bpa or confidit. --float-phi rounds their kernel map to float32, as glimpse stores features.
"""
import argparse
import contextlib
import io
import os
import statistics
import sys
import warnings

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import authors_code  # noqa: E402

REPOSITORY = "https://github.com/kangzi/Online_Multiclass_with-Bandit_Feedback"
COMMIT = "e6319c98a67c17d0ed2ca4fa9d417642a3ea2d54"  # the repository's last commit, 2019-01-18

# train.py's grids. Its `args.algorithm == 'banditron' or 'bpa'` is always true, so every learner searches the
# first list of each pair (kernel Confidit never sees its parameter anyway: it lands in `test_x`).
KERNEL_PARAMS = [0.001, 0.025, 0.1, 0.3, 0.5]
LINEAR_PARAMS = [0.001, 0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
WIDTHS = [0.01, 0.1, 1.0, 10.0, 100.0]


def load_rows(dataset, cache):
    with h5py.File(os.path.join(cache, f"{dataset}.h5"), "r") as f:
        x = f["X"][:].astype(np.float64)
        y = f["y"][:].astype(np.int64) - 1
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.where(hi > lo, -1.0 + 2.0 * (x - lo) / span, 0.0), y


def learner_class(authors, algo, kernel, float_phi, on_skip):
    sys.path.insert(0, authors)
    import banditron, bpa, confidit, banditron_kernel, bpa_kernel, confidit_kernel  # noqa: E401
    base, param = {("banditron", True): (banditron_kernel.Banditron_kernel, "gamma"),
                   ("bpa", True): (bpa_kernel.BPA_kernel, "gamma"),
                   ("confidit", True): (confidit_kernel.Confidit_kernel, "eta"),
                   ("banditron", False): (banditron.Banditron, "gamma"),
                   ("bpa", False): (bpa.BPA, "gamma"),
                   ("confidit", False): (confidit.Confidit, "eta")}[(algo, kernel)]

    class Observed(base):
        def _fun(self, x):
            try:
                phi = super()._fun(x)
            except RuntimeWarning:  # their train loop skips this round
                on_skip(self)
                raise
            return phi.astype(np.float32).astype(np.float64) if float_phi and kernel else phi
    return Observed, param


def quiet_train(model, n):
    with contextlib.redirect_stdout(io.StringIO()):  # their loops print every test_interval rounds
        return model.train(n)


def pipeline(a):
    x, y = load_rows(a.dataset, a.cache)
    if a.l2:
        x = x / np.linalg.norm(x, axis=1, keepdims=True)
    kernel = not a.linear
    skips = {"n": 0}
    cls, param = learner_class(a.authors, a.algo, kernel, a.float_phi,
                               lambda model: skips.__setitem__("n", skips["n"] + 1))

    def run(seed, value, width, bag):
        np.random.seed(seed)
        kw = {param: value, "test_interval": 10**9}
        if kernel:
            kw["g"] = width
            if bag is not None:
                kw["B"] = bag
        skips["n"] = 0
        return quiet_train(cls(x, y, **kw), x.shape[0])[2], skips["n"]

    if a.only:
        width, value = (float(v) for v in a.only.split(","))
    else:
        scores = []
        for value in [float(v) for v in a.params.split(",")] if a.params else KERNEL_PARAMS if kernel else LINEAR_PARAMS:
            for width in WIDTHS if kernel else [None]:
                ratio, skipped = run(0, value, width, a.select_bag)
                scores.append((ratio, value, width))
                print(f"choose {param}={value} g={width}: {100 * ratio:.2f} (skipped {skipped})", flush=True)
        _, value, width = scores[max((s[0], i) for i, s in enumerate(scores))[1]]  # ties: the later point
    first, _, last = a.report_seeds.partition("-")
    finals = [run(s, value, width, None) for s in range(int(first), int(last or first) + 1)]
    ratios = [100 * r for r, _ in finals]
    print("per seed:", " ".join(f"{r:.2f}" for r in ratios))
    print("skipped rounds per seed:", " ".join(str(s) for _, s in finals))
    print(f"{a.dataset} {a.algo} {param}={value} g={width}: mean {statistics.mean(ratios):.2f} "
          f"std {statistics.stdev(ratios):.2f} over {len(ratios)} seeds")


def replay(a):
    with h5py.File(a.trace, "r") as f:
        rounds = f[f"runs/{a.run}/rounds"]
        rows, proposed, predicted = rounds["row"][:], rounds["proposed"][:] - 1, rounds["predicted"][:] - 1
    x, y = load_rows(a.dataset, a.cache)
    state = {"t": 0, "skipped": [], "compared": []}

    def skipped(model):
        state["skipped"].append(state["t"])
        state["t"] += 1
    base, _ = learner_class(a.authors, a.algo, True, a.float_phi, skipped)

    class Replayed(base):
        def _det_proposed_label(self, predict, gamma):
            t = state["t"]
            state["t"] += 1
            state["compared"].append((t, predict))
            p = np.full(self.K, gamma / self.K)
            p[predict] += 1.0 - gamma
            low = p[:proposed[t]].sum()
            draw = low + p[proposed[t]] / 2  # a uniform draw that lands on glimpse's proposal
            np.random.random = lambda: draw
            return super()._det_proposed_label(predict, gamma)

    np.random.shuffle = lambda seq: seq.__setitem__(slice(None), rows)  # glimpse's stream order
    quiet_train(Replayed(x, y, g=a.g, gamma=a.gamma, B=a.B, test_interval=10**9), len(rows))
    index = np.array([t for t, _ in state["compared"]])
    theirs = np.array([p for _, p in state["compared"]])
    differ = index[theirs != predicted[index]]
    print(f"{len(index)} rounds compared; their code skipped rounds {state['skipped']}; greedy predictions "
          f"differ in {len(differ)}" + (f", first at rounds {differ[:5].tolist()}" if len(differ) else ""))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    authors_code.add_arguments(parser, REPOSITORY, COMMIT)
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/glimpse/datasets"),
                        help="glimpse's installed datasets (glimpse datasets list)")
    parser.add_argument("--float-phi", action="store_true", help="round their kernel map to float32")
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("pipeline")
    p.add_argument("dataset")
    p.add_argument("algo", choices=["banditron", "bpa", "confidit"])
    p.add_argument("--linear", action="store_true", help="their linear classes (Table 1)")
    p.add_argument("--l2", action="store_true", help="L2-normalise the rows first, as glimpse's Table 1 protocol")
    p.add_argument("--select-bag", type=int, default=700, help="support rows of the choosing run (train.sh: 700)")
    p.add_argument("--report-seeds", default="1-9")
    p.add_argument("--only", help="G,PARAM: report this grid point, no choosing run")
    p.add_argument("--params", help="comma-separated parameter grid instead of train.py's (whose `or` bug gives "
                   "every learner Banditron's list since 2018-05-12; the linear runs may predate it)")
    r = commands.add_parser("replay")
    r.add_argument("trace")
    r.add_argument("run")
    r.add_argument("dataset")
    r.add_argument("algo", choices=["banditron", "bpa"])
    r.add_argument("g", type=float)
    r.add_argument("gamma", type=float)
    r.add_argument("B", type=int)
    a = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")  # their modules import pylab
    warnings.simplefilter("error", RuntimeWarning)  # as their kernel modules set it on import
    a.authors, commit = authors_code.checkout(a)
    with authors_code.recorded(a, commit, [(a.dataset, authors_code.dataset_checksum(a.cache, a.dataset))]):
        {"pipeline": pipeline, "replay": replay}[a.command](a)


if __name__ == "__main__":
    main()
