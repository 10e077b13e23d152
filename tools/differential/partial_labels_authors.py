#!/usr/bin/python3
"""Differential runs against the partial-label group's own learners
(Hooligan10/Exact_Passive_Aggressive_Classification_Partial-Labels: PLAlgorithms.py), run unchanged from a checkout
outside this repository: none of its code is copied here, it is imported at run time from --authors DIR, or from a
scratch clone at the pinned commit with --fetch (docs/reproducing.md, "Differential runs"). --output FILE keeps what
is printed, with the command and the authors' commit, for a results page to show.

  partial_labels_authors.py (--authors DIR | --fetch) [--output FILE] DATASET SIZE [--scaling raw|unit|minmax_l2] [--repetitions N]
      [--lambda L] [--seed S]
      runOPL.py's procedure on glimpse's installed rows: per repetition, one candidate set per row (the true
      label plus SIZE - 1 others drawn uniformly), T = 10,000 rows drawn with replacement, the four learners
      (Avg/Max Perceptron, Avg/Max Pegasos with runOPL.py's lambda 0.1 unless --lambda) run side by side on the
      same stream; prints each learner's mean (sample std) final online error over the repetitions.

--scaling: raw (the values as installed), unit (each feature min-max scaled to [0, 1] over all rows: the
size*_pixel_range.json protocols), minmax_l2 ([-1, 1], then L2 norm 1: the rows of glimpse's size*.json protocols).
runOPL.py draws its sets for every row of the dataset before the stream, with NumPy's global generator; this script
does the same from --seed, so its streams are not glimpse's: compare means over repetitions, not rounds.
"""
import argparse
import os
import statistics
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import authors_code  # noqa: E402

REPOSITORY = "https://github.com/Hooligan10/Exact_Passive_Aggressive_Classification_Partial-Labels"
COMMIT = "3bd000617076e8660d6d52125f5f0c766745f68a"  # the repository's last commit, 2020-12-31

LEARNERS = [("avg_perceptron", "AveragePredictionPerceptron", False),
            ("max_perceptron", "MaxPredictionPerceptron", False),
            ("avg_pegasos", "AveragePredictionPegasos", True),
            ("max_pegasos", "MaxPredictionPegasos", True)]


def load_rows(dataset, cache, scaling):
    with h5py.File(os.path.join(cache, f"{dataset}.h5"), "r") as f:
        x = f["X"][:].astype(np.float64)
        y = f["y"][:].astype(np.int64)
    y = np.searchsorted(np.unique(y), y)  # classes 0..K-1 in sorted order, as glimpse maps them
    if scaling == "raw":
        return x, y
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    if scaling == "unit":
        return np.where(hi > lo, (x - lo) / span, 0.0), y
    x = np.where(hi > lo, 2.0 * (x - lo) / span - 1.0, 0.0)  # minmax_l2: [-1, 1] as glimpse's minmax_scale default
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0), y


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    authors_code.add_arguments(parser, REPOSITORY, COMMIT)
    parser.add_argument("--cache", default=os.environ.get("GLIMPSE_DATA",
                                                         os.path.expanduser("~/.cache/glimpse/datasets")))
    parser.add_argument("dataset")
    parser.add_argument("size", type=int, help="candidate set size (runOPL.py's q + 1)")
    parser.add_argument("--scaling", choices=["raw", "unit", "minmax_l2"], default="raw")
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=10000)
    parser.add_argument("--lambda", dest="lambda_", type=float, default=0.1, help="runOPL.py's lambda1 = lambda2")
    parser.add_argument("--seed", type=int, default=0)
    a = parser.parse_args()
    a.authors, commit = authors_code.checkout(a)
    with authors_code.recorded(a, commit, [(a.dataset, authors_code.dataset_checksum(a.cache, a.dataset))]):
        run(a)


def run(a):
    sys.path.insert(0, a.authors)
    import PLAlgorithms  # noqa: E402  (their module, from --authors or --fetch)

    x, y = load_rows(a.dataset, a.cache, a.scaling)
    m, d = x.shape
    K = int(y.max()) + 1
    np.random.seed(a.seed)
    finals = {name: [] for name, _, _ in LEARNERS}
    for repetition in range(a.repetitions):
        indices = np.random.choice(m, a.rounds, replace=True)
        # runOPL.py: the true label plus q = size - 1 others drawn without replacement, for every row
        sets = []
        for i in range(m):
            extra = np.random.choice(np.delete(np.arange(K), y[i]), a.size - 1, replace=False)
            sets.append(np.append(extra, y[i]))
        models = {name: (getattr(PLAlgorithms, cls)(d, a.lambda_, K) if pegasos else getattr(PLAlgorithms, cls)(d, K))
                  for name, cls, pegasos in LEARNERS}
        for t in range(a.rounds):
            row = indices[t]
            for model in models.values():
                model.run(x[row, :], y[row], sets[row])
        for name, model in models.items():
            finals[name].append(model.error_rate)
        print(f"repetition {repetition}: " + ", ".join(f"{n} {v[-1]:.4f}" for n, v in finals.items()), flush=True)
    print(f"{a.dataset}, size {a.size}, scaling {a.scaling}, lambda {a.lambda_}, T = {a.rounds}, "
          f"{a.repetitions} repetitions: final online error, mean (sample std)")
    for name, values in finals.items():
        spread = statistics.stdev(values) if len(values) > 1 else float("nan")
        print(f"  {name:15s} {statistics.mean(values):.4f} ({spread:.4f})")


if __name__ == "__main__":
    main()
