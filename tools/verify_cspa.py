#!/usr/bin/env python3
"""Replays the CSPA runs of a glimpse trace with an independent NumPy implementation of CSPA (CSPA paper,
Algorithm 1 with the SPA step of Matsushima et al.; plugins/learners/cspa/README.md and spa/README.md) and checks that every
proposal and the final accuracy agree.

  tools/verify_cspa.py TRACE.h5 DATA.libsvm      (the protocol must use minmax_scale then l2_normalize)
"""
import json
import sys

import h5py
import numpy as np


def read_libsvm(path):
    labels, rows = [], []
    for line in open(path):
        parts = line.split()
        if not parts:
            continue
        labels.append(float(parts[0]))
        rows.append({int(k): float(v) for k, v in (p.split(":") for p in parts[1:])})
    d = max(max(r) for r in rows)
    X = np.zeros((len(rows), d), dtype=np.float32)
    for i, r in enumerate(rows):
        for k, v in r.items():
            X[i, k - 1] = v
    classes = sorted(set(labels))
    return X, np.array([classes.index(y) for y in labels]), len(classes)


def preprocess(X):
    # As glimpse does it: statistics and arithmetic in double, values stored as float32 after each step.
    x = X.astype(np.float64)
    lo, hi = x.min(axis=0), x.max(axis=0)
    scaled = np.where(hi > lo, -1 + 2 * (x - lo) / np.where(hi > lo, hi - lo, 1), 0).astype(np.float32)
    norms = np.sqrt((scaled.astype(np.float64) ** 2).sum(axis=1))
    return np.where(norms[:, None] > 0, scaled / norms[:, None], scaled).astype(np.float32)


def spa_tau(s, y, a):
    k = len(s)
    losses = np.array([0.0 if i == y else max(0.0, 1 - s[y] + s[i]) for i in range(k)])
    order = sorted((i for i in range(k) if losses[i] > 0), key=lambda i: (-losses[i], i))
    tau = np.zeros(k)
    if a <= 0 or not order:
        return tau
    total, support = 0.0, 0
    while support < len(order) and (support + 1) * losses[order[support]] > total:
        total += losses[order[support]]
        support += 1
    level = total / (support + 1)
    tau[y] = level / a
    for j in order[:support]:
        tau[j] = -(losses[j] - level) / a
    return tau


def replay(X, y, k, rows, beta):
    W = np.zeros((k, X.shape[1]))
    proposals = []
    for r in rows:
        x = X[r].astype(np.float64)
        s = W @ x
        proposed = int(np.argmax(s))  # lowest index on ties
        proposals.append(proposed)
        a = float(x @ x)
        if proposed == y[r]:
            W += np.outer(spa_tau(s, proposed, a), x)
        elif a > 0:
            loss = 1 + s[proposed] - max(s[i] for i in range(k) if i != proposed)
            step = beta * loss / (k * a)
            delta = np.full(k, step)
            delta[proposed] = -(k - 1) * step
            W += np.outer(delta, x)
    return np.array(proposals)


def main(trace, data):
    X, y, k = read_libsvm(data)
    X = preprocess(X)
    failures = 0
    with h5py.File(trace, "r") as f:
        for run_id, run in f["runs"].items():
            if run.attrs["learner"] != "cspa":
                continue
            beta = json.loads(run.attrs["params"])["beta"]
            rows = run["rounds/row"][()]
            ours = replay(X, y, k, rows, beta)
            theirs = run["rounds/proposed"][()] - 1
            accuracy = float(np.mean(ours == y[rows]))
            recorded = float(run["summary"].attrs["online_accuracy"])
            same = np.array_equal(ours, theirs) and accuracy == recorded
            failures += not same
            print(f"run {run_id} beta={beta:g} seed={run.attrs['seed']}: proposals "
                  f"{'identical' if np.array_equal(ours, theirs) else 'DIFFER'}; accuracy numpy {accuracy!r} glimpse {recorded!r}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
