# Helpers the sweep-timing benchmarks source (trace_cost.sh, outside_loops.sh, trace_store_ab.sh).

# with_trace PROTOCOL TRACE: the protocol's JSON with "trace" set to TRACE ("rounds" or "curves").
with_trace() {
  python3 - "$1" "$2" << 'PY'
import json, sys
protocol = json.load(open(sys.argv[1]))
protocol["trace"] = sys.argv[2]
print(json.dumps(protocol))
PY
}

# loop_seconds GLIMPSE FILE: the sum of the runs' own seconds (creating their plugins and their round loops).
loop_seconds() {
  "$1" export "$2" --table summary --format csv |
    python3 -c 'import csv, sys; print(sum(float(r["seconds"]) for r in csv.DictReader(sys.stdin)))'
}

# now: the wall clock in seconds.
now() { date +%s.%N; }
