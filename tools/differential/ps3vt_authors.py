#!/usr/bin/python3
"""Differential runs against the PS3VT authors' own MATLAB code
(superlj666/Multi-Class-Learning-using-Unlabeled-Samples-Theory-and-Algorithm: code/core_functions/ps3vt_multi_train.m
and code/utils/sampling_with_labels.m), run unchanged under GNU Octave from a checkout outside this repository: none of
its code is copied here, Octave adds --authors DIR/code/... to its path at run time (docs/reproducing.md,
"Differential runs").

  ps3vt_authors.py --authors DIR DATASET [--variant linear_mc|lrc_mc] [--mu MU] [--tau-a A] [--tau-s S]
      [--splits N] [--glimpse BIN]
      experiment_1.m's procedure with fixed parameters (no cross-validation), for the methods without a graph term:
      per split a random 70/30 train/test split, 30% of each class's training rows labelled (their
      sampling_with_labels.m), their ps3vt_multi_train.m for T = 10 passes with n_batch = 1, 30 test-error records
      during the fit as experiment_1.m sets them. Prints the mean (sample std) over the splits of the final
      iterate's test error and of experiment_1.m's reported figure (the mean of the last 6 records); then runs
      glimpse's ps3vt with the options that follow that code (as protocols/semi_supervised/table3_authors_code.json)
      on the same dataset, parameters and number of splits, and prints its mean (sample std) final test error.

Rows: glimpse's installed copy of DATASET, every feature min-max scaled to [-1, 1] over all rows, as LIBSVM's .scale
files are (svm-scale); the glimpse side uses the same rows and scaling ("fit_transforms_on": "all"). Octave's
randperm is not glimpse's generator and experiment_1.m's test part is not stratified, so the two sides' splits
differ: compare means over splits, not runs. Needs octave (Debian package) and h5py.
"""
import argparse
import csv
import io
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

import h5py
import numpy as np

DRIVER = r"""
addpath('{authors}/code/core_functions'); addpath('{authors}/code/utils');
rand('seed', {seed}); randn('seed', {seed}); rand('state', {seed});
data = dlmread('{rows}');
y = data(:, 1); X = data(:, 2:end);
finals = zeros({splits}, 1); reported = zeros({splits}, 1);
for i_repeat = 1 : {splits}
  idx_rand = randperm(numel(y));
  idx_test = idx_rand(1 : ceil(0.3 * numel(y)));
  idx_train = setdiff(idx_rand, idx_test);
  idx_train = idx_train(randperm(numel(idx_train)));
  idx_labeled = idx_train(sampling_with_labels(y(idx_train), 0.3));
  model = struct();
  model.tau_A = {tau_a}; model.tau_I = 0; model.tau_S = {tau_s}; model.step = {mu};
  model.n_batch = 1; model.T = 10;
  n = numel(idx_labeled);
  model.n_record_batch = 1 : floor(n / model.n_batch * model.T / 30) : ceil(n / model.n_batch) * model.T;
  model.test_batch = true; model.X_test = X(idx_test, :); model.y_test = y(idx_test);
  XLX = sparse(size(X, 2), size(X, 2));
  model = ps3vt_multi_train(XLX, X(idx_labeled, :), y(idx_labeled), model);
  finals(i_repeat) = model.test_err(end);
  reported(i_repeat) = mean(model.test_err(1, end - min(5, length(model.test_err) - 1) : end));
end
printf('finals %s\n', sprintf('%.10g ', finals));
printf('reported %s\n', sprintf('%.10g ', reported));
"""


def scaled_rows(dataset, cache):
    with h5py.File(os.path.join(cache, f"{dataset}.h5"), "r") as f:
        x = f["X"][:].astype(np.float64)
        y = f["y"][:].astype(np.int64)
    y = np.searchsorted(np.unique(y), y) + 1  # classes 1..K in sorted order, as their load_data.m maps them
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return np.where(hi > lo, 2.0 * (x - lo) / span - 1.0, 0.0), y


def mean_std(values):
    return f"{100 * statistics.mean(values):.2f} ({100 * statistics.stdev(values):.2f})"


def authors_side(args, x, y, work):
    rows = os.path.join(work, "rows.csv")
    np.savetxt(rows, np.column_stack([y, x]), delimiter=",", fmt="%.17g")
    driver = os.path.join(work, "driver.m")
    with open(driver, "w") as f:
        f.write(DRIVER.format(authors=os.path.abspath(args.authors), seed=args.seed, rows=rows, splits=args.splits,
                              tau_a=repr(args.tau_a), tau_s=repr(args.tau_s if args.variant == "lrc_mc" else 0.0),
                              mu=repr(args.mu)))
    out = subprocess.run(["octave", "--no-gui", "--quiet", driver], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"octave failed ({out.returncode}):\n{out.stderr[-2000:]}")
    found = dict(re.findall(r"^(finals|reported) (.*)$", out.stdout, re.M))
    return [float(v) for v in found["finals"].split()], [float(v) for v in found["reported"].split()]


def glimpse_side(args, x, y, work):
    # Their tail_start is ceil(0.5 min(K, d)); glimpse's theta rounds f min(K, d) down, so f is set to land on it.
    rank = min(x.shape[1], len(np.unique(y)))
    theta = (math.ceil(0.5 * rank) + 0.5) / rank if math.ceil(0.5 * rank) < rank else 1.0
    params = {"variant": args.variant, "tau_A": args.tau_a, "mu": args.mu, "radius": 0, "schedule": "decaying",
              "sampling": "epochs", "passes": 10, "thresholded": "leading", "theta": theta}
    if args.variant == "lrc_mc":
        params["tau_S"] = args.tau_s
    protocol = {"name": "ps3vt_authors_differential", "kind": "batch",
                "split": {"test": 0.3, "labelled": 0.3, "folds": 0, "fit_transforms_on": "all"},
                "datasets": [{"name": args.dataset, "transforms": [{"name": "minmax_scale"}]}],
                "learners": [{"name": "ps3vt", "as": args.variant, "params": params}],
                "metrics": [{"name": "test_error"}], "seeds": args.splits, "trace": "curves"}
    path, output = os.path.join(work, "protocol.json"), os.path.join(work, "glimpse.h5")
    with open(path, "w") as f:
        json.dump(protocol, f)
    subprocess.run([args.glimpse, "run", path, "-o", output, "-j", "2"], check=True, capture_output=True)
    table = subprocess.run([args.glimpse, "export", output, "--table", "summary", "--format", "csv"], check=True,
                           capture_output=True, text=True).stdout
    return [float(row["test_error"]) for row in csv.DictReader(io.StringIO(table))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--authors", required=True, help="a checkout of the authors' repository")
    parser.add_argument("--cache", default=os.environ.get("GLIMPSE_DATA",
                                                         os.path.expanduser("~/.cache/glimpse/datasets")))
    parser.add_argument("--glimpse", default=os.environ.get("GLIMPSE", "build/bin/glimpse"))
    parser.add_argument("dataset")
    parser.add_argument("--variant", choices=["linear_mc", "lrc_mc"], default="linear_mc")
    parser.add_argument("--mu", type=float, default=1000.0, help="their model.step (step mu/(t + n))")
    parser.add_argument("--tau-a", type=float, default=1e-9)
    parser.add_argument("--tau-s", type=float, default=1e-3, help="lrc_mc only")
    parser.add_argument("--splits", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0, help="Octave's generator seed")
    args = parser.parse_args()
    x, y = scaled_rows(args.dataset, args.cache)
    with tempfile.TemporaryDirectory() as work:
        finals, reported = authors_side(args, x, y, work)
        ours = glimpse_side(args, x, y, work)
    print(f"{args.dataset} {args.variant} mu={args.mu:g} tau_A={args.tau_a:g}"
          + (f" tau_S={args.tau_s:g}" if args.variant == "lrc_mc" else "") + f", {args.splits} splits, test error %:")
    print(f"  authors' code, final iterate:           {mean_std(finals)}")
    print(f"  authors' code, mean of last 6 records:  {mean_std(reported)}  (experiment_1.m's figure)")
    print(f"  glimpse ps3vt, final iterate:           {mean_std(ours)}")


if __name__ == "__main__":
    main()
