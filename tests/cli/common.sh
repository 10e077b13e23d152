# Helpers the CLI test scripts source.

# same_runs A B RUNS: every run 0..RUNS-1 has the same round data, curves and final metrics in trace files A
# and B (what determinism promises; timings and file timestamps may differ).
same_runs() {
  local id part
  for id in $(seq -f "%06g" 0 $(($3 - 1))); do
    for part in rounds curves summary; do
      h5diff "$1" "$2" "/runs/$id/$part" "/runs/$id/$part" > /dev/null ||
        { echo "FAILED: run $id $part differs between $1 and $2"; exit 1; }
    done
  done
}

# same_present_runs A B: every run B holds (complete or not) is the same in A; prints how many B holds. A part B's
# run lacks (rounds, with "trace": "curves") is not compared.
same_present_runs() {
  local ids id part
  ids=$(h5ls "$2/runs" | awk '{print $1}')
  for id in $ids; do
    for part in rounds curves summary; do
      h5ls "$2/runs/$id/$part" > /dev/null 2>&1 || continue
      h5diff "$1" "$2" "/runs/$id/$part" "/runs/$id/$part" > /dev/null ||
        { echo "FAILED: run $id $part differs between $1 and $2"; exit 1; }
    done
  done
  echo "$ids" | grep -c . || true
}

# finished_parts FOLDER: how many finished runs a running or killed sweep has written into its parts folder.
finished_parts() { ls "$1" 2> /dev/null | grep -c '^[0-9].*\.h5$' || true; }

# wait_for_parts FOLDER COUNT [TENTHS_OF_SECONDS]: waits until FOLDER holds COUNT finished runs (at most 4 s or
# the given tenths of a second), so a kill lands part-way.
wait_for_parts() {
  local _
  for _ in $(seq 1 $((${3:-40} * 10))); do
    [ "$(finished_parts "$1")" -ge "$2" ] && return 0
    sleep 0.01
  done
}
