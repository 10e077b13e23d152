#!/usr/bin/env bash
# SGE / Univa Grid Engine job array: one shard per task (task ids 1..N).
#   qsub -t 1-N -v PROTOCOL=p.json,OUT_PREFIX=runs/p,GLIMPSE_CLUSTER_DIR=$PWD/tools/cluster tools/cluster/sge.sh
# then the merge step, held until the array is done:
#   qsub -hold_jid glimpse -b y tools/cluster/merge.sh p.json runs/p N
#$ -N glimpse
#$ -cwd
#$ -pe smp 2
#$ -l h_rt=04:00:00
#$ -r y
set -euo pipefail
exec "${GLIMPSE_CLUSTER_DIR:?pass GLIMPSE_CLUSTER_DIR with -v}/array-task.sh" "$PROTOCOL" "$OUT_PREFIX"
