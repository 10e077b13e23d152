#!/usr/bin/env bash
# One task of a cluster job array: runs the shard of PROTOCOL this task's index names, whichever scheduler
# started it. The schedulers' templates beside this file call it; so can any other launcher.
#
#   array-task.sh PROTOCOL OUT_PREFIX [glimpse run options...]
#
# Writes OUT_PREFIX.shard-I-of-N.h5. The shard comes from the scheduler's environment:
#   Slurm      SLURM_ARRAY_TASK_ID (0-based with --array=0-(N-1)), SLURM_ARRAY_TASK_COUNT
#   PBS Pro    PBS_ARRAY_INDEX (0-based with -J 0-(N-1)), SHARDS=N (passed with -v)
#   Torque     PBS_ARRAYID (0-based with -t 0-(N-1)), SHARDS=N (passed with -v)
#   SGE/UGE    SGE_TASK_ID (1-based with -t 1-N), SGE_TASK_LAST
# or, for any other launcher, SHARD_INDEX and SHARDS. Threads: the task's allocated cores where the
# scheduler says (SLURM_CPUS_PER_TASK, NCPUS, NSLOTS), else all cores. GLIMPSE: the glimpse binary.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,14p' "$0" >&2; exit 2; }
protocol=$1 prefix=$2
shift 2
if [ -n "${SLURM_ARRAY_TASK_ID:-}" ]; then
  index=$SLURM_ARRAY_TASK_ID count=${SHARDS:-${SLURM_ARRAY_TASK_COUNT:?Slurm did not set SLURM_ARRAY_TASK_COUNT; set SHARDS}}
  threads=${SLURM_CPUS_PER_TASK:-0}
elif [ -n "${PBS_ARRAY_INDEX:-}${PBS_ARRAYID:-}" ]; then
  index=${PBS_ARRAY_INDEX:-$PBS_ARRAYID} count=${SHARDS:?pass the shard count with qsub -v SHARDS=N}
  threads=${NCPUS:-0}
elif [ -n "${SGE_TASK_ID:-}" ] && [ "${SGE_TASK_ID}" != undefined ]; then
  index=$((SGE_TASK_ID - 1)) count=${SHARDS:-${SGE_TASK_LAST:?SGE did not set SGE_TASK_LAST; set SHARDS}}
  threads=${NSLOTS:-0}
else
  index=${SHARD_INDEX:?not in a job array: set SHARD_INDEX and SHARDS} count=${SHARDS:?set SHARDS}
  threads=0
fi
# Rerunning a task (a requeue, or by hand after a crash) resumes its shard: finished runs are kept.
exec "${GLIMPSE:-glimpse}" run "$protocol" --shard "$index/$count" --threads "$threads" --quiet \
  --output "$prefix.shard-$index-of-$count.h5" "$@"
