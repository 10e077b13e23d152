#!/usr/bin/env bash
# Submits PROTOCOL as a Slurm job array of SHARDS tasks plus a merge job that runs once every task has
# ended (afterany: it also reports what a failed task left missing).
#
#   tools/cluster/submit-slurm.sh PROTOCOL OUT_PREFIX SHARDS [sbatch options...]
set -euo pipefail
[ $# -ge 3 ] || { sed -n '2,5p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
protocol=$1 prefix=$2 shards=$3
shift 3
export GLIMPSE_CLUSTER_DIR=$here
array=$(sbatch --parsable --array="0-$((shards - 1))" "$@" "$here/slurm.sbatch" "$protocol" "$prefix")
sbatch --parsable --dependency="afterany:${array%%;*}" --job-name=glimpse-merge --time=01:00:00 \
  --output="glimpse-merge-%j.log" "$here/merge.sh" "$protocol" "$prefix" "$shards"
echo "array job ${array%%;*}: $shards tasks; then merge into $prefix.h5" >&2
