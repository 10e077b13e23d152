#!/usr/bin/python3
"""Writes a glimpse-cached dataset as a Vowpal Wabbit text file for benchmarks/compare_vw.sh.

Features are min-max scaled to [-1, 1] (svm-scale; constant features become 0), then every row is scaled to unit
L2 norm, and the rows are shuffled with a fixed seed: VW and glimpse then read the same file in the same order.
Features are named as strings (f1, f2, ...): VW's cbify path merges bare integer feature names into shared
weights, which under-reports VW. Zeros are left out. Labels are 1..K.

    vw_input.py CACHE_FILE OUT.vw [--seed S]     prints "n d K"
"""
import argparse

import h5py
import numpy as np


def load(path):
    with h5py.File(path, "r") as f:
        k = int(f.attrs["K"])
        y = np.asarray(f["y"], dtype=np.int64)
        if "X" in f:
            return np.asarray(f["X"], dtype=np.float64), y, k
        # Sparse caches: CSR parts.
        d = int(f.attrs["d"])
        offsets = np.asarray(f["indptr"])
        indices = np.asarray(f["indices"])
        values = np.asarray(f["values"], dtype=np.float64)
        x = np.zeros((len(y), d))
        for i in range(len(y)):
            x[i, indices[offsets[i]:offsets[i + 1]]] = values[offsets[i]:offsets[i + 1]]
        return x, y, k


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("cache_file")
    parser.add_argument("output")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    x, y, k = load(args.cache_file)
    low, high = x.min(axis=0), x.max(axis=0)
    span = np.where(high > low, high - low, 1.0)
    x = np.where(high > low, 2.0 * (x - low) / span - 1.0, 0.0)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    x = x / np.where(norms > 0, norms, 1.0)
    order = np.random.default_rng(args.seed).permutation(len(y))
    with open(args.output, "w") as out:
        for i in order:
            nonzero = np.flatnonzero(x[i])
            features = " ".join(f"f{j + 1}:{x[i, j]:.7g}" for j in nonzero)
            out.write(f"{y[i]} | {features}\n")  # the cache holds labels 1..K
    print(len(y), x.shape[1], k)


if __name__ == "__main__":
    main()
