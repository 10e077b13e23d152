#!/usr/bin/env bash
# `glimpse export` as docs/analysis.md shows it: the summary, the averaged curves and one run's rounds as CSV and
# JSON hold exactly what the HDF5 file holds (every text, integer and double read back equal, read with pandas
# and json against h5py), --out writes the three files, and bad requests name what is wrong.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$GLIMPSE" run --quiet --output q.h5
"$GLIMPSE" export q.h5 > summary.csv
"$GLIMPSE" export q.h5 --table curves --format json > curves.json
"$GLIMPSE" export q.h5 --table rounds --run 000003 > rounds.csv
"$GLIMPSE" export q.h5 --out out --format json --run 000003 2> out.log
for f in summary curves rounds_000003; do [ -s "out/$f.json" ] || fail "out/$f.json missing: $(cat out.log)"; done
cmp -s curves.json out/curves.json || fail "--out's curves.json differs from standard output's"

/usr/bin/python3 - <<'PY' || fail "exported tables differ from the HDF5 file"
import json
import h5py
import numpy as np
import pandas as pd

def columns(stored):
    """A compound table or a group of 1-D datasets, as name -> array (texts decoded)."""
    arrays = ({n: stored[n] for n in stored.dtype.names} if isinstance(stored, np.ndarray)
              else {n: stored[n][()] for n in stored})
    return {n: np.array([x.decode() for x in a], dtype=object) if a.dtype.kind == "O" else a
            for n, a in arrays.items()}

def equal(name, exported, stored):
    stored = columns(stored)
    if list(exported.columns) != list(stored):
        raise SystemExit(f"{name}: columns {list(exported.columns)}, stored {list(stored)}")
    for column, b in stored.items():
        a = exported[column].to_numpy()
        same = (np.array_equal(a.astype(float), b, equal_nan=True) if b.dtype.kind == "f"
                else list(a) == list(b))
        if not same:
            raise SystemExit(f"{name}: column {column} differs: {a[:5]} vs {b[:5]}")

with h5py.File("q.h5", "r") as f:
    # round_trip: pandas' default float parser may miss the last bit
    summary = pd.read_csv("summary.csv", dtype={"run": str}, keep_default_na=False, na_values=[""],
                          float_precision="round_trip")
    equal("summary.csv", summary, f["summary"][()])
    curves = pd.DataFrame(json.load(open("curves.json")))
    equal("curves.json", curves, f["curve_summary"][()])
    rounds = pd.read_csv("rounds.csv", float_precision="round_trip")
    equal("rounds.csv", rounds, f["runs/000003/rounds"])
    rounds_json = pd.DataFrame(json.load(open("out/rounds_000003.json")))
    equal("rounds_000003.json", rounds_json, f["runs/000003/rounds"])
print("ok")
PY

expect_error() {  # expected message fragment, then the arguments
  local expected=$1
  shift
  if "$GLIMPSE" export "$@" > /dev/null 2> err.txt; then fail "export $* succeeded"; fi
  grep -qF -- "$expected" err.txt || fail "export $*: expected '$expected', got: $(cat err.txt)"
}
expect_error "q.h5: has no run '999999'" q.h5 --table rounds --run 999999
expect_error "--table rounds: needs --run ID" q.h5 --table rounds
expect_error "--format: expected csv or json, got 'xml'" q.h5 --format xml
expect_error "--table: expected summary, curves or rounds, got 'runs'" q.h5 --table runs
expect_error "missing.h5" missing.h5
echo "1 passed, 0 failed"
