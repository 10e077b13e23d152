#!/usr/bin/env bash
# `mpirun -n 3 glimpse run --mpi` against a one-process run: the same runs, bit for bit in their data, in one
# file written by rank 0; a killed MPI sweep, and one whose rank 1 alone is killed, resume to the same file;
# `glimpse reproduce --mpi` writes the same page as without it.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat > sweep.json <<'JSON'
{"name": "ranks",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 100000, "sigma": 0.3}},
              {"name": "small", "source": "gaussians", "params": {"n_per_class": 300, "sigma": 0.5}}],
 "oracle": {"name": "bandit"},
 "learners": [{"name": "cspa", "grid": {"beta": [0.05, 0.3]}}, {"name": "banditron"}],
 "metrics": [{"name": "online_accuracy"}, {"name": "mistakes"}],
 "seeds": 4}
JSON
runs=24
mpi() { mpirun --oversubscribe --allow-run-as-root -n 3 "$GLIMPSE" "$@"; }
"$GLIMPSE" run sweep.json -o one.h5 --quiet -j 1
mpi run sweep.json -o ranks.h5 --mpi -j 1 --quiet 2> mpi.txt || { cat mpi.txt; fail "mpirun"; }
grep "ranks.h5: $runs of $runs runs complete ($runs this time" mpi.txt > /dev/null || { cat mpi.txt; exit 1; }
same_runs one.h5 ranks.h5 "$runs"
[ ! -d ranks.h5.parts ] || fail "parts left behind"

# Killed part-way (every rank), then rerun: only the missing runs are redone, and the file is the same.
mpi run sweep.json -o killed.h5 --mpi -j 1 --quiet 2> /dev/null &
pid=$!
stop_at_parts "glimpse run sweep.json -o killed.h5" killed.h5.parts 3
kill -9 "$pid" 2> /dev/null || true
pkill -9 -f "glimpse run sweep.json -o killed.h5" 2> /dev/null || true
wait "$pid" 2> /dev/null || true
sleep 0.3  # let the kernel finish off every rank before counting what they left
finished=$(finished_parts killed.h5.parts)
[ "$finished" -ge 1 ] && [ "$finished" -lt "$runs" ] || fail "the kill did not land part-way ($finished)"
mpi run sweep.json -o killed.h5 --mpi -j 1 --quiet 2> resume.txt || { cat resume.txt; exit 1; }
grep "killed.h5: $runs of $runs runs complete ($((runs - finished)) this time" resume.txt > /dev/null ||
  { cat resume.txt; fail "the resumed MPI sweep did not redo exactly the $((runs - finished)) missing runs"; }
same_runs one.h5 killed.h5 "$runs"
# One helper rank killed part-way (SIGKILL to rank 1 alone): Open MPI then aborts the job, but every run any rank
# finished is kept; the rerun names the killed rank's run as in flight and redoes exactly the missing runs.
mpi run sweep.json -o rank_killed.h5 --mpi -j 1 --quiet 2> rank_killed.txt &
pid=$!
stop_at_parts "glimpse run sweep.json -o rank_killed.h5" rank_killed.h5.parts 3
killed_rank=""
for p in $(pgrep -f "glimpse run sweep.json -o rank_killed.h5"); do
  if tr '\0' '\n' < "/proc/$p/environ" 2> /dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then
    kill -9 "$p" && killed_rank=$p
  fi
done
resume_matching "glimpse run sweep.json -o rank_killed.h5"
[ -n "$killed_rank" ] || fail "no rank 1 process found to kill"
set +e; wait "$pid"; status=$?; set -e
[ "$status" != 0 ] || fail "mpirun exited 0 although rank 1 was killed"
sleep 0.3
finished=$(parts_records rank_killed.h5.parts kept rank_killed.h5)
[ "$finished" -ge 3 ] && [ "$finished" -le "$runs" ] ||
  { ls -la rank_killed.h5*; cat rank_killed.txt; fail "$finished runs kept"; }
in_flight=$(parts_records rank_killed.h5.parts in_flight)
mpi run sweep.json -o rank_killed.h5 --mpi -j 1 --quiet 2> resume.txt || { cat resume.txt; exit 1; }
grep "rank_killed.h5: $runs of $runs runs complete ($((runs - finished)) this time" resume.txt > /dev/null ||
  { cat resume.txt; fail "the rerun did not redo exactly the $((runs - finished)) missing runs"; }
# (rank 1 is nearly always inside a run; if the kill fell between two, no begun record is left open and nothing is named)
if [ "$in_flight" -gt 0 ]; then
  grep -q "was in flight when an earlier sweep of this output was killed" resume.txt ||
    { cat resume.txt; fail "the killed rank's run was not named as in flight"; }
fi
same_runs one.h5 rank_killed.h5 "$runs"

# glimpse reproduce runs every sweep of a paper under the launcher; the page's tables match the plain run's.
for root in plain ranks; do
  mkdir -p $root && cp -r "$SOURCE_DIR/tests/data/reproduce/protocols" $root/
done
# (--out: pages outside docs/results, which need no committed tree)
"$GLIMPSE" reproduce toy --root plain -j 1 --out plain/toy.md 2> /dev/null
"$GLIMPSE" reproduce toy --root ranks -j 1 --out ranks/toy.md --mpi "mpirun --oversubscribe --allow-run-as-root -n 2" \
  2> mpi_page.txt ||
  { cat mpi_page.txt; fail "reproduce --mpi"; }
grep -q "^\$ mpirun .* run .*toy_table.json .* --mpi$" mpi_page.txt || { cat mpi_page.txt; fail "no mpirun"; }
diff <(grep "^| " plain/toy.md | grep -v "glimpse 0\.\|s |$") <(grep "^| " ranks/toy.md | grep -v "glimpse 0\.\|s |$") ||
  fail "reproduce --mpi wrote other tables"

# MPI's libraries are loaded for --mpi only (libglimpse_mpi): a plain run maps none of them, and a glimpse whose
# MPI library is missing says so when asked for --mpi.
LD_DEBUG=files "$GLIMPSE" run sweep.json -o plain.h5 --quiet -j 1 --only 000000 2> plain_loads.txt > /dev/null ||
  { tail -5 plain_loads.txt; fail "plain run"; }
grep -q "libhdf5" plain_loads.txt || fail "LD_DEBUG=files named no library"
mpi_loads=$(grep -E "file=(libmpi|libopen-pal|libglimpse_mpi)" plain_loads.txt || true)
[ -z "$mpi_loads" ] || { head -3 <<< "$mpi_loads"; fail "a run without --mpi loaded MPI"; }
mkdir -p bare/bin && cp "$GLIMPSE" bare/bin/ && cp -a "$BUILD_DIR/lib" bare/ && rm bare/lib/libglimpse_mpi.so*
! bare/bin/glimpse run sweep.json -o bare.h5 --quiet -j 1 --mpi 2> bare.txt ||
  fail "--mpi ran without libglimpse_mpi"
grep -q "^glimpse: error: --mpi: cannot load MPI support: libglimpse_mpi.so.0: cannot open" bare.txt ||
  { cat bare.txt; fail "the missing MPI library was not named"; }
echo "1 passed, 0 failed"
