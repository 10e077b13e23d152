#!/usr/bin/python3
"""Writes a glimpse-cached dataset as a Vowpal Wabbit text file for benchmarks/compare_vw.sh.

Features are min-max scaled to [-1, 1] (svm-scale; constant features become 0), then every row is scaled to unit
L2 norm, and the rows are shuffled with a fixed seed: VW and glimpse then read the same file in the same order.
A sparse dataset (stored as CSR, e.g. word counts) keeps its zeros: each feature is divided by its largest absolute
value instead (nonnegative features land in [0, 1], as svm-scale -l 0 scales sparse data), and its rows stay sparse
in the --h5 file too.
Features are named as strings (f1, f2, ...): VW's cbify path merges bare integer feature names into shared
weights, which under-reports VW. Zeros are left out. Labels are 1..K. Values are float32, written with 9
significant digits, which read back as the same float32: with --h5 the same rows, in the same order, are also
written as a glimpse dataset file (a dense /X), so glimpse can read them without parsing text.

    vw_input.py CACHE_FILE OUT.vw [--seed S] [--h5 OUT.h5 --name NAME]     prints "n d K"
    vw_input.py CACHE_FILE OUT_{seed}.vw --seed 1,2,3 [--h5 OUT_{seed}.h5 --name NAME_{seed}]

Several seeds (comma-separated) write one order each from one reading of the cache: "{seed}" in OUT, --h5 and
--name stands for the order's seed. OUT "-" writes the --h5 files only (for glimpse's side without VW).

With --as-bakeoff, the rows are written as the contextual-bandit bake-off's oml_to_vw.py writes OpenML data (for
benchmarks/bakeoff.py's check of the suite against its published --oaa losses): the stored values unscaled, features
named by their 0-based column, 6 decimals, zeros left out; shuffled with the same seed.
"""
import argparse

import h5py
import numpy as np


def load(path):
    """(X, y, K): X a dense float64 array, or a scipy CSR matrix for a sparse dataset file."""
    with h5py.File(path, "r") as f:
        k = int(f.attrs["K"])
        y = np.asarray(f["y"], dtype=np.int64)
        if "X" in f:
            return np.asarray(f["X"], dtype=np.float64), y, k
        from scipy import sparse

        d = int(f.attrs["d"])
        return sparse.csr_matrix((np.asarray(f["values"], dtype=np.float64), np.asarray(f["indices"]),
                                  np.asarray(f["indptr"])), shape=(len(y), d)), y, k


def scale_sparse(x):
    """Each feature divided by its largest absolute value (zeros stay zeros), then each row to unit L2 norm."""
    largest = np.asarray(abs(x).max(axis=0).todense()).ravel()
    x = x.tocsr(copy=True)
    x.data /= np.where(largest > 0, largest, 1.0)[x.indices]
    norms = np.sqrt(np.asarray(x.multiply(x).sum(axis=1)).ravel())
    x.data /= np.repeat(np.where(norms > 0, norms, 1.0), np.diff(x.indptr))
    return x


def write_glimpse_dataset(path, name, x, y, k):
    """The layout glimpse's dataset files have (framework/dataset_file/dataset_file.cpp): dense /X, or CSR /indptr,
    /indices, /values for a sparse x; /y in 1..K."""
    dense = isinstance(x, np.ndarray)
    with h5py.File(path, "w") as f:
        if dense:
            f["X"] = x
        else:
            f["indptr"] = x.indptr.astype(np.int64)
            f["indices"] = x.indices.astype(np.int32)
            f["values"] = x.data.astype(np.float32)
        f["y"] = y.astype(np.int32)
        for key, value in {"format": "glimpse-dataset", "format_version": 1, "name": name, "n": len(y),
                           "d": x.shape[1], "K": k, "layout": "dense" if dense else "csr",
                           "class_names": "\n".join(str(c) for c in range(1, k + 1)),
                           "description": "rows written by benchmarks/vw_input.py"}.items():
            f.attrs[key] = value


def write_vw_rows(path, x, y, decimals):
    """One VW example per row, label 1..K; zeros left out. `decimals`: a format spec for the values."""
    with open(path, "w") as out:
        for i in range(len(y)):
            if isinstance(x, np.ndarray):
                nonzero = np.flatnonzero(x[i])
                features = [decimals(j, x[i, j]) for j in nonzero]
            else:
                row = slice(x.indptr[i], x.indptr[i + 1])
                features = [decimals(j, v) for j, v in zip(x.indices[row], x.data[row]) if v != 0]
            out.write(f"{y[i]} | " + " ".join(features) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cache_file")
    parser.add_argument("output")
    parser.add_argument("--seed", type=lambda text: [int(v) for v in text.split(",")], default=[1],
                        help="the shuffle's seed, or several comma-separated (then {seed} in the file names)")
    parser.add_argument("--h5", help="also write the rows, in the same order, as a glimpse dataset file")
    parser.add_argument("--name", default="rows", help="the dataset name recorded in the --h5 file")
    parser.add_argument("--as-bakeoff", action="store_true", help="unscaled values, named 0, 1, ... (see above)")
    args = parser.parse_args()
    if len(args.seed) > 1 and "{seed}" not in args.output + (args.h5 or "{seed}"):
        parser.error("several seeds need {seed} in OUT (and in --h5)")
    x, y, k = load(args.cache_file)
    if args.as_bakeoff:
        for seed in args.seed:
            order = np.random.default_rng(seed).permutation(len(y))
            write_vw_rows(args.output.replace("{seed}", str(seed)), x[order], y[order],
                          lambda j, v: f"{j}:{v:.6f}")
        print(len(y), x.shape[1], k)
        return
    if isinstance(x, np.ndarray):
        low, high = x.min(axis=0), x.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        x = np.where(high > low, 2.0 * (x - low) / span - 1.0, 0.0)
        norms = np.linalg.norm(x, axis=1, keepdims=True)
        x = x / np.where(norms > 0, norms, 1.0)
    else:
        x = scale_sparse(x)
    for seed in args.seed:
        order = np.random.default_rng(seed).permutation(len(y))
        shuffled_x, shuffled_y = x[order].astype(np.float32), y[order]
        if args.h5:
            write_glimpse_dataset(args.h5.replace("{seed}", str(seed)), args.name.replace("{seed}", str(seed)),
                                  shuffled_x, shuffled_y, k)
        if args.output != "-":  # "-": the --h5 file only (glimpse's side, without VW)
            write_vw_rows(args.output.replace("{seed}", str(seed)), shuffled_x, shuffled_y,
                          lambda j, v: f"f{j + 1}:{v:.9g}")
    print(len(y), x.shape[1], k)


if __name__ == "__main__":
    main()
