#!/usr/bin/env bash
# A disk that fills up during a sweep, simulated with a file size limit (ulimit -f: writes past it fail with EFBIG,
# as on a full disk ENOSPC; it works for root, where a read-only folder does not). Whether the output or a
# finished run's record in the parts log cannot be written: a clear error naming the file, exit status 2, every run
# finished and written kept, no torn record or temporary file left, and rerunning with room gives the uninterrupted
# sweep.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > sweep.json <<'JSON'
{"name": "disk",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 2000, "sigma": 0.5}}],
 "oracle": {"name": "bandit"},
 "learners": [{"name": "cspa", "grid": {"beta": [0.05, 0.1, 0.2, 0.3]}}, {"name": "banditron"}],
 "metrics": [{"name": "online_accuracy"}],
 "seeds": 4}
JSON
runs=20
"$GLIMPSE" run sweep.json -o reference.h5 --quiet -j 2 2> /dev/null
size_kb=$(( $(stat -c %s reference.h5) / 1024 ))
part_kb=$(( $(stat -c %s reference.h5) / 1024 / runs ))

# 1. Each run's record fits, the output does not: the runs are kept, the output is refused before HDF5 writes it.
#    (The limit is per file: a sweep stops when its parts log reaches it, naming the log, and each rerun adds a log
#    of the runs still missing until all are kept; then only the output is left, and refused.)
for attempt in $(seq 1 10); do
  set +e
  (ulimit -f $((size_kb / 3)); "$GLIMPSE" run sweep.json -o out.h5 --quiet -j 2 2> err1.txt)
  status=$?
  set -e
  [ "$status" = 2 ] || fail "status $status, expected 2: $(cat err1.txt)"
  grep -qF "cannot write a finished run's record" err1.txt || break
  grep -qE "out.h5.parts/[0-9]+-[0-9]+.log: cannot write a finished run's record: File too large" err1.txt ||
    fail "message: $(cat err1.txt)"
done
grep -qF "out.h5: the output needs about" err1.txt && grep -qF "ulimit -f); the $runs finished runs stay in out.h5.parts" err1.txt ||
  fail "message after $attempt attempts: $(cat err1.txt)"
[ "$(finished_parts out.h5.parts)" = "$runs" ] || fail "expected $runs kept runs, have $(finished_parts out.h5.parts)"
[ ! -e out.h5 ] && [ ! -e out.h5.tmp ] || fail "a partial output was left: $(ls -a)"
"$GLIMPSE" run sweep.json -o out.h5 --quiet -j 2 2> rerun1.txt || fail "rerun: $(cat rerun1.txt)"
grep -qF "$runs of $runs runs complete (0 this time" rerun1.txt || fail "the rerun redid runs: $(cat rerun1.txt)"
same_runs reference.h5 out.h5 "$runs"

# 2. Not even one run's file fits: the first failed write stops the sweep, naming the file and the system's reason;
#    nothing torn is left among the runs, and no run is reported as having been in flight.
set +e
(ulimit -f $((part_kb / 2)); "$GLIMPSE" run sweep.json -o small.h5 --quiet -j 2 2> err2.txt)
status=$?
set -e
[ "$status" = 2 ] || fail "status $status, expected 2: $(cat err2.txt)"
grep -qE "small.h5.parts/[0-9]+-[0-9]+.log: cannot write a finished run's record: File too large" err2.txt ||
  fail "message: $(cat err2.txt)"
[ "$(finished_parts small.h5.parts)" = 0 ] && [ "$(parts_records small.h5.parts in_flight)" = 0 ] ||
  fail "left in small.h5.parts: $(finished_parts small.h5.parts) runs"
"$GLIMPSE" run sweep.json -o small.h5 --quiet -j 2 2> rerun2.txt || fail "rerun: $(cat rerun2.txt)"
! grep -q "in flight" rerun2.txt || fail "runs reported in flight: $(cat rerun2.txt)"
same_runs reference.h5 small.h5 "$runs"
echo "1 passed, 0 failed"
