#!/usr/bin/env bash
# PBS Pro job array (Torque: replace "-J" by "-t"): one shard per subjob.
#   qsub -J 0-$((N-1)) -v SHARDS=N,PROTOCOL=p.json,OUT_PREFIX=runs/p,GLIMPSE_CLUSTER_DIR=$PWD/tools/cluster \
#        tools/cluster/pbs.sh
# then, as a dependent job (afterany on the array's id):
#   qsub -W depend=afterany:ARRAY_ID -v ... -- tools/cluster/merge.sh p.json runs/p N
#PBS -N glimpse
#PBS -l select=1:ncpus=2:mem=4gb
#PBS -l walltime=04:00:00
#PBS -r y
set -euo pipefail
cd "${PBS_O_WORKDIR:-.}"
exec "${GLIMPSE_CLUSTER_DIR:?pass GLIMPSE_CLUSTER_DIR with -v}/array-task.sh" "$PROTOCOL" "$OUT_PREFIX"
