#!/usr/bin/env bash
# Cluster job arrays, simulated on this machine: tools/cluster/submit-slurm.sh with a stand-in `sbatch` that
# starts the array's tasks as separate processes with the variables Slurm sets, then the merge job; the
# merged file must equal a one-machine run in every run's data. Then a task killed part-way: the merge says
# what is missing and in which shard, rerunning that index completes the sweep. PBS and SGE variables map
# to the same shards.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir bin
cat > bin/sbatch <<'SBATCH'
#!/usr/bin/env bash
# Stand-in for sbatch: runs the job at once (an array's tasks in parallel, each with Slurm's variables) and
# prints a job id as --parsable does. Jobs run in submission order, so a dependency always holds.
set -euo pipefail
array=""
while [[ "$1" == --* ]]; do
  case "$1" in --array=*) array=${1#--array=} ;; esac
  shift
done
script=$1
shift
job=$((RANDOM + 1000))
if [ -n "$array" ]; then
  first=${array%-*} last=${array#*-}
  pids=()
  for ((i = first; i <= last; i++)); do
    SLURM_JOB_ID=$((job + i)) SLURM_ARRAY_JOB_ID=$job SLURM_ARRAY_TASK_ID=$i \
      SLURM_ARRAY_TASK_COUNT=$((last - first + 1)) SLURM_ARRAY_TASK_MIN=$first SLURM_ARRAY_TASK_MAX=$last \
      SLURM_CPUS_PER_TASK=1 SLURM_SUBMIT_DIR=$PWD bash "$script" "$@" > "task-$i.log" 2>&1 &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || echo "task exited with $?" >> tasks-failed.log; done
else
  SLURM_JOB_ID=$job SLURM_SUBMIT_DIR=$PWD bash "$script" "$@" > "job-$job.log" 2>&1 || echo "job $job exited $?" >> jobs-failed.log
fi
echo "$job"
SBATCH
chmod +x bin/sbatch
export PATH="$work/bin:$PATH" GLIMPSE
cat > sweep.json <<'JSON'
{"name": "arrays",
 "datasets": [{"source": "gaussians", "params": {"n_per_class": 60000, "sigma": 0.3}},
              {"name": "small", "source": "gaussians", "params": {"n_per_class": 500, "sigma": 0.5}}],
 "oracle": {"name": "bandit"},
 "learners": [{"name": "cspa", "grid": {"beta": [0.05, 0.3]}}, {"name": "banditron"}, {"name": "perceptron", "oracle": {"name": "full"}}],
 "metrics": [{"name": "online_accuracy"}, {"name": "mistakes"}],
 "seeds": 4}
JSON
runs=32
"$GLIMPSE" run sweep.json -o reference.h5 --quiet -j 2

# 1. The whole Slurm path: array of 3 tasks, then the dependent merge job.
"$SOURCE_DIR/tools/cluster/submit-slurm.sh" sweep.json out/arrays 3 > submitted.txt 2>&1
[ ! -e tasks-failed.log ] && [ ! -e jobs-failed.log ] || { cat ./*.log; fail "a job failed"; }
for i in 0 1 2; do [ -f "out/arrays.shard-$i-of-3.h5" ] || fail "no file of shard $i"; done
[ -f out/arrays.h5 ] || { cat job-*.log; fail "the merge job wrote nothing"; }
same_runs reference.h5 out/arrays.h5 "$runs"
"$GLIMPSE" summary out/arrays.h5 | grep "^out/arrays.h5: $runs of $runs runs complete;" > /dev/null

# 2. A task killed part-way: the merge reports the gap and its shard; rerunning that index fills it.
task() {  # task INDEX: one Slurm array task of 2 shards, run as Slurm would; call in ( ), so $! is glimpse
  export SLURM_ARRAY_TASK_ID=$1 SLURM_ARRAY_TASK_COUNT=2 SLURM_CPUS_PER_TASK=1
  exec "$SOURCE_DIR/tools/cluster/array-task.sh" sweep.json killed/arrays
}
(task 0)
(task 1) &
pid=$!
stop_at_parts "run sweep.json --shard 1/2" killed/arrays.shard-1-of-2.h5.parts 2
kill -9 "$pid" 2> /dev/null || true
wait "$pid" 2> /dev/null || true
[ ! -e killed/arrays.shard-1-of-2.h5 ] || fail "the kill did not land before shard 1 finished"
set +e
"$SOURCE_DIR/tools/cluster/merge.sh" sweep.json killed/arrays 2 > merge.txt 2>&1
status=$?
set -e
[ "$status" = 3 ] || { cat merge.txt; fail "merge of an incomplete array exited $status, expected 3"; }
grep -E "^[0-9]+ run\(s\) missing: " merge.txt > /dev/null || { cat merge.txt; fail "missing runs not named"; }
grep -E "^[0-9]{6} +1/2 " merge.txt > /dev/null || { cat merge.txt; fail "status does not name shard 1/2"; }
if grep -E "^[0-9]{6} +0/2 " merge.txt > /dev/null; then cat merge.txt; fail "shard 0 reported incomplete"; fi
(task 1)
"$SOURCE_DIR/tools/cluster/merge.sh" sweep.json killed/arrays 2 > merge.txt 2>&1 || { cat merge.txt; exit 1; }
same_runs reference.h5 killed/arrays.h5 "$runs"
"$GLIMPSE" status sweep.json killed/arrays.h5 | grep "$runs runs: $runs complete, 0 failed, 0 in flight, 0 missing" > /dev/null

# 3. PBS Pro, Torque and SGE name their tasks differently; each maps to the same shards.
for scheduler in pbspro torque sge; do
  for i in 0 1 2; do
    case $scheduler in
      pbspro) PBS_ARRAY_INDEX=$i SHARDS=3 "$SOURCE_DIR/tools/cluster/array-task.sh" sweep.json "$scheduler/a" ;;
      torque) PBS_ARRAYID=$i SHARDS=3 "$SOURCE_DIR/tools/cluster/array-task.sh" sweep.json "$scheduler/a" ;;
      sge) SGE_TASK_ID=$((i + 1)) SGE_TASK_LAST=3 "$SOURCE_DIR/tools/cluster/array-task.sh" sweep.json "$scheduler/a" ;;
    esac
    cmp <(h5dump -A -g /runs "$scheduler/a.shard-$i-of-3.h5" | grep -c "GROUP \"0") \
        <(h5dump -A -g /runs "out/arrays.shard-$i-of-3.h5" | grep -c "GROUP \"0") > /dev/null ||
      fail "$scheduler task $i ran another shard than Slurm's"
  done
  "$SOURCE_DIR/tools/cluster/merge.sh" sweep.json "$scheduler/a" 3 > /dev/null 2>&1
  same_runs reference.h5 "$scheduler/a.h5" "$runs"
done
echo "1 passed, 0 failed"
