#!/usr/bin/env bash
# The step after a job array: merges the shards' files into OUT_PREFIX.h5 and says what is missing.
#
#   merge.sh PROTOCOL OUT_PREFIX SHARDS
#
# Exit status 3 when some run is missing or failed (the merged file is written all the same); then
# `glimpse status` lists them with their shard, so only those array indices need resubmitting.
set -euo pipefail
[ $# -eq 3 ] || { sed -n '2,7p' "$0" >&2; exit 2; }
protocol=$1 prefix=$2 shards=$3
glimpse=${GLIMPSE:-glimpse}
files=()
for ((i = 0; i < shards; i++)); do files+=("$prefix.shard-$i-of-$shards.h5"); done
present=()
for f in "${files[@]}"; do
  if [ -e "$f" ] || [ -d "$f.parts" ]; then present+=("$f"); else echo "missing shard file: $f" >&2; fi
done
[ ${#present[@]} -gt 0 ] || { echo "no shard file of $prefix found" >&2; exit 3; }
status=0
"$glimpse" merge "$prefix.h5" "${present[@]}" || status=$?
if [ "$status" -ne 0 ]; then
  "$glimpse" status "$protocol" "${files[@]}" --shards "$shards" || true
fi
exit "$status"
