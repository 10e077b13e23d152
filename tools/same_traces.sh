#!/usr/bin/env bash
# Whether two folders of trace files hold the same runs: for every FILE.h5 under BEFORE, the file of the same
# relative path under AFTER must exist and every run in it must have the same round data, curves and final metrics
# (tests/cli/same_runs.py, bit for bit; timings may differ). For refactors that must not change behaviour (issue #25), e.g. every paper's
# --quick protocols run by two builds:
#   glimpse reproduce PAPER --quick --runs BEFORE (old build) ; ... --runs AFTER (new build)
#   tools/same_traces.sh BEFORE AFTER
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../tests/cli/common.sh"
before=$(realpath "$1")
after=$(realpath "$2")
files=0
runs=0
while IFS= read -r file; do
  relative=${file#"$before"/}
  [ -f "$after/$relative" ] || { echo "FAILED: $after/$relative is missing"; exit 1; }
  out=$(same_present_runs "$after/$relative" "$file") || { echo "$out" | tail -1; exit 1; }
  count=$(echo "$out" | tail -1)
  files=$((files + 1))
  runs=$((runs + count))
done < <(find "$before" -name '*.h5' ! -path '*.parts/*' | sort)
echo "same: $runs runs in $files files"
