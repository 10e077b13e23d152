#!/usr/bin/env bash
# A sweep on many cores (issue #57): benchmarks/protocols/many_core_sweep.json (800 bandit runs of unequal length,
# per-round traces; needs satimage and letter installed) as one process at each thread count, with "trace": "curves"
# at 1 thread and at the most threads, and as shards of 1 thread side by side then merged. Prints whole-process wall
# times and speed-ups, checks that every configuration wrote the same runs (glimpse summary --digest: every run's per-round
# data, curves and final metrics), and models the scaling from the 1-thread run's own profile (glimpse run --sweep-profile, which times runs, not rounds): its serial work
# (planning, finishing) and its writer thread's time, and how long its last runs are, so that a change can be judged
# on 2 cores before it is measured on many. Last, what the model leaves out: how much slower each core ran the same
# runs at each thread count than at one (clock speeds, shared caches and memory).
#   benchmarks/many_core_scaling.sh [--threads "1 2 4 8 16"] [--protocol FILE] [--model-only] [--keep DIR] [GLIMPSE]
# --keep DIR keeps each configuration's output (the sweep profiles of --sweep-profile) and times in DIR.
# Thread counts above this machine's cores are skipped (the model predicts them). Prepared-dataset cache off.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
threads=""
protocol="$here/protocols/many_core_sweep.json"
model_only=0
keep=""
while [ $# -gt 0 ]; do
  case "$1" in
    --threads) threads=$2; shift 2 ;;
    --protocol) protocol=$(realpath "$2"); shift 2 ;;
    --model-only) model_only=1; shift ;;
    --keep) keep=$(mkdir -p "$2" && realpath "$2"); shift 2 ;;
    *) break ;;
  esac
done
glimpse=$(realpath "${1:-$here/../build/bin/glimpse}")
cores=$(nproc)
[ -n "$threads" ] || threads=$(for n in 1 2 4 8 16 32 64 128; do if [ "$n" -le "$cores" ]; then echo -n "$n "; fi; done)
export GLIMPSE_PREPARED_CACHE=off
work=$(mktemp -d)
trap '[ -z "$keep" ] || cp "$work"/*.out "$work"/*.err "$work"/times.txt "$keep"/ 2> /dev/null; rm -rf "$work"' EXIT
cd "$work"
cp "$protocol" rounds.json
sed '0,/{/s//{"trace": "curves",/' rounds.json > curves.json  # (no Python needed on the measured machine)
now() { date +%s.%N; }
timed() {  # timed NAME COMMAND...: runs COMMAND (its output in NAME.out), records its wall time
  local start
  # The last configuration's file out of the page cache's dirty pages first: the kernel's writeback of it would
  # otherwise take CPU from this one (on 2 cores, seconds).
  sync
  start=$(now)
  "${@:2}" > "$1.out" 2> "$1.err" || { cat "$1.err"; exit 1; }
  echo "$1 $(awk -v a="$(now)" -v b="$start" 'BEGIN { print a - b }')" >> times.txt
}
digest() { "$glimpse" summary "$1" --digest; }  # every run's numbers, not timings: equal on any machine
first=$(echo $threads | awk '{print $1}')
last=$(echo $threads | awk '{print $NF}')
timed "rounds_t$first" "$glimpse" run rounds.json -o "rounds_t$first.h5" -j "$first" --quiet --sweep-profile
if [ "$model_only" = 0 ]; then
  for n in $threads; do
    [ "$n" = "$first" ] || timed "rounds_t$n" "$glimpse" run rounds.json -o "rounds_t$n.h5" -j "$n" --quiet --sweep-profile
  done
  timed "curves_t$first" "$glimpse" run curves.json -o "curves_t$first.h5" -j "$first" --quiet
  [ "$last" = "$first" ] || timed "curves_t$last" "$glimpse" run curves.json -o "curves_t$last.h5" -j "$last" --quiet
  shards() {
    local i
    for i in $(seq 0 $(($1 - 1))); do
      "$glimpse" run rounds.json --shard "$i/$1" -o "shard_$i.h5" -j 1 --quiet &
    done
    wait
  }
  if [ "$last" -gt 1 ]; then
    timed "shards_$last" shards "$last"
    timed merge "$glimpse" merge merged.h5 shard_*.h5
  fi
fi

echo "protocol: $(basename "$protocol"), $cores cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $("$glimpse" --version)"
one=$(awk -v n="rounds_t$first" '$1 == n {print $2}' times.txt)
printf "%-34s %9s %9s  %s\n" configuration "wall s" speed-up "runs' digest"
while read -r name seconds; do
  [ "$name" = merge ] && continue
  file=$name.h5
  [ -f "$file" ] || file=merged.h5
  label=$(sed -e 's/^rounds_t\(.*\)/\1 threads, per-round traces/' -e 's/^curves_t\(.*\)/\1 threads, "trace": "curves"/' \
              -e 's/^shards_\(.*\)/\1 shards of 1 thread, then merged/' <<< "$name")
  if [[ "$name" == shards_* ]]; then
    merge=$(awk '$1 == "merge" {print $2}' times.txt)
    printf "%-34s %9.2f %8.2fx  %s (+ merge %.2f s: %.2fx)\n" "$label" "$seconds" "$(awk -v a="$one" -v b="$seconds" 'BEGIN { print a / b }')" \
      "$(digest merged.h5)" "$merge" "$(awk -v a="$one" -v b="$seconds" -v m="$merge" 'BEGIN { print a / (b + m) }')"
  else
    printf "%-34s %9.2f %8.2fx  %s\n" "$label" "$seconds" "$(awk -v a="$one" -v b="$seconds" 'BEGIN { print a / b }')" "$(digest "$file")"
  fi
done < times.txt
if [ -f "curves_t$first.err" ]; then
  awk -v r="$one" -v c="$(awk -v n="curves_t$first" '$1 == n {print $2}' times.txt)" \
    'BEGIN { printf "per-round traces cost %.3fx of curves only at %s thread(s)\n", r / c, "'"$first"'" }'
fi

# The model: the 1-thread run's profile, its runs' own times in the order they were handed out.
grep "^sweep profile (JSON): " "rounds_t$first.out" | sed 's/^sweep profile (JSON): //' > profile.json
"$glimpse" export "rounds_t$first.h5" --table summary --format json > summary.json
command -v python3 > /dev/null || { echo "(no python3 here: the model is not printed)"; exit 0; }
python3 - profile.json summary.json "$one" << 'EOF'
import json, sys
profile = json.load(open(sys.argv[1]))
one = float(sys.argv[3])
threads = profile["threads"]
work = {k: sum(w.get(k, 0.0) for w in profile["per_thread"]) for k in ("setup", "run", "logging", "write_wait")}
planning, finishing = profile["planning"], profile["finishing"]
# The writer logs runs (a copy to the parts log) and writes them into the output (HDF5: serial). When it is behind,
# workers log their own runs, so only the output's part is serial; the logging joins the work threads share.
logging = profile.get("writer_logging", 0.0)
held = profile["writer"] - logging
parallel = work["setup"] + work["run"] + work["logging"] + logging
outside = one - profile["wall"]          # process start, plugin loading, exit: serial too
serial = planning + finishing + outside
seconds = sorted((float(r["seconds"]) for r in json.load(open(sys.argv[2]))), reverse=True)  # longest first
print(f"model, from the {threads}-thread run's profile: serial work {serial:.2f} s (planning {planning:.2f}, finishing "
      f"{finishing:.2f}, outside the sweep {outside:.2f}), the writer thread wrote into the output for {held:.2f} s "
      f"(serial, but beside the workers), runs {parallel:.2f} s (with {logging:.2f} s of the writer's logging, which "
      "workers take over when it is behind)")
fraction = serial / one
print(f"serial fraction f = serial work / wall at {threads} thread(s) = {fraction:.4f}")
print(f"{'threads':>8} {'Amdahl 1/(f+(1-f)/N)':>22} {'model':>8}   (model: serial + max(runs / N + tail, writer), "
      "tail: half the mean of the last N runs, which are the shortest when the longest go first)")
for n in (1, 2, 4, 8, 16, 32, 64):
    tail = 0.0 if n == 1 else 0.5 * sum(seconds[-n:]) / n
    shared = parallel if n > 1 else parallel - logging  # (one thread leaves the logging to the writer)
    predicted = serial + max(shared / n + tail, held)
    print(f"{n:>8} {1 / (fraction + (1 - fraction) / n):>21.2f}x {one / predicted:>7.2f}x")
print("(not modelled: memory bandwidth and caches shared by the cores, clock speeds that fall as more cores are busy)")
EOF

# What the model leaves out, measured: how much longer the same runs took per core with N threads busy than with one
# (the threads' run times summed at N threads, over the 1-thread run's).
for out in rounds_t*.out; do
  n=${out#rounds_t}; n=${n%.out}
  [ "$n" = "$first" ] || grep "^sweep profile (JSON): " "$out" | sed 's/^sweep profile (JSON): //' > "profile_t$n.json"
done
ls profile_t*.json > /dev/null 2>&1 || exit 0
python3 - profile.json profile_t*.json << 'EOF'
import json, sys
def runs(path):
    profile = json.load(open(path))
    return profile["threads"], sum(w["run"] for w in profile["per_thread"])
first, base = runs(sys.argv[1])
for n, seconds in sorted(runs(path) for path in sys.argv[2:]):
    print(f"runs at {n} threads: {seconds:.2f} thread-seconds against {base:.2f} at {first}, each core "
          f"{seconds / base:.2f}x slower (the model takes 1.00x)")
EOF
