#!/usr/bin/env bash
# glimpse's text readers against Vowpal Wabbit's parser (issue #31), on the same rows, alternated REPEATS times in
# this one invocation so that the machine's drift falls on both alike; prints medians and ratios.
#
#   vw     `vw --noop --quiet -d FILE.vw`: VW reads, parses and hashes every example and learns nothing, whole
#          process: its parse rate (on its parser thread; the learner thread idles).
#   parse  glimpse's reader alone, in process: `glimpse_benchmarks --benchmark_filter=BM_ParseFile` (file in, the
#          dataset's rows and classes out), all cores.
#   run    `glimpse run`, whole process: parse, one perceptron pass over the rows in file order, the trace file.
#
# Files (made once in DIR, default /tmp/glimpse-parse-bench; about 3.5 GB):
#   fashion-MNIST's 60,000 x 784 rows as VW text (benchmarks/vw_input.py: needs the installed dataset and h5py) and
#   the same rows as CSV (label last); a 1 GB LIBSVM file of 20News-like rows (700,000 rows, 100 of about 60,000
#   features each, 20 classes; mawk with a fixed seed) and its VW twin (feature i named fi).
# The CSV and LIBSVM files are not VW's format: their ratio sets glimpse's time on them against VW's on the twin,
# the same rows in VW's text.
#
#   benchmarks/parse_vs_vw.sh [REPEATS] [DIR]        (needs vw on PATH: docs/vowpal-wabbit.md; default 5 repeats)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repeats=${1:-5}
dir=${2:-/tmp/glimpse-parse-bench}
glimpse=$here/../build/bin/glimpse
benchmarks=$here/../build/bin/glimpse_benchmarks
command -v vw > /dev/null || { echo "parse_vs_vw.sh: no vw on PATH (build it as docs/vowpal-wabbit.md says)" >&2; exit 2; }
mkdir -p "$dir"
cd "$dir"

if [[ ! -s fm.vw ]]; then
  data=${GLIMPSE_DATA:-$HOME/.cache/glimpse/datasets}
  /usr/bin/python3 "$here/vw_input.py" "$data/fashion_mnist.h5" fm.vw > /dev/null
fi
if [[ ! -s fm.csv ]]; then
  /usr/bin/python3 - << 'EOF'
# The rows of fm.vw as CSV: the 784 values (0 where the VW line leaves a feature out), then the label.
with open("fm.vw") as vw, open("fm.csv.part", "w") as out:
    for line in vw:
        label, features = line.split("|", 1)
        row = ["0"] * 784
        for token in features.split():
            name, value = token.split(":")
            row[int(name[1:]) - 1] = value
        out.write(",".join(row) + "," + label.strip() + "\n")
EOF
  mv fm.csv.part fm.csv
fi
if [[ ! -s big.libsvm ]]; then
  mawk -v rows=700000 'BEGIN { srand(1); for (i = 0; i < rows; i++) { line = int(1 + rand() * 20); index_ = 0;
    for (j = 0; j < 100; j++) { index_ += 1 + int(rand() * 599); line = line " " index_ ":" sprintf("%.6g", rand()) }
    print line } }' > big.libsvm.part
  mv big.libsvm.part big.libsvm
fi
if [[ ! -s big.vw ]]; then
  sed -E 's/ ([0-9]+):/ f\1:/g; s/^([^ ]+) /\1 | /' big.libsvm > big.vw.part
  mv big.vw.part big.vw
fi

# name, glimpse reader, glimpse's file, VW's file
cases=("fashion-MNIST VW text|vw|fm.vw|fm.vw" "fashion-MNIST CSV|csv|fm.csv|fm.vw"
       "1 GB LIBSVM|libsvm|big.libsvm|big.vw")
for entry in "${cases[@]}"; do
  IFS='|' read -r _ source file _ <<< "$entry"
  cat > "$source.json" << EOF
{"name": "parse_$source", "datasets": [{"name": "$source", "source": "$source", "params": {"path": "$dir/$file"}}],
 "order": "file", "oracle": {"name": "full"}, "learners": [{"name": "perceptron"}],
 "metrics": [{"name": "online_accuracy"}], "trace": "curves", "seeds": 1}
EOF
done

now() { date +%s.%N; }
rm -f times.txt
for ((i = 0; i < repeats; ++i)); do
  for entry in "${cases[@]}"; do
    IFS='|' read -r name source file vw_file <<< "$entry"
    start=$(now)
    vw --noop --quiet -d "$vw_file" 2> /dev/null
    echo "$source vw $(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')" >> times.txt
    ms=$(GLIMPSE_PARSE_FILE=$dir/$file GLIMPSE_PARSE_SOURCE=$source "$benchmarks" --benchmark_filter=BM_ParseFile \
           --benchmark_format=csv 2> /dev/null | awk -F, '/BM_ParseFile/ { print $3 }')
    echo "$source parse $(awk -v t="$ms" 'BEGIN { print t / 1000 }')" >> times.txt
    rm -f run.h5
    start=$(now)
    "$glimpse" run "$source.json" -o run.h5 --quiet > run.log 2>&1 || { cat run.log; exit 1; }
    echo "$source run $(awk -v a="$start" -v b="$(now)" 'BEGIN { print b - a }')" >> times.txt
  done
done
median() {
  awk -v s="$1" -v w="$2" '$1 == s && $2 == w { print $3 }' times.txt | sort -g |
    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo "$repeats repeats, alternated; $(nproc) cores; medians in seconds; ratio = VW's time / glimpse's"
printf '%-24s %8s %8s %8s %12s %10s\n' "file" "MB" "vw" "parse" "run" "ratio"
for entry in "${cases[@]}"; do
  IFS='|' read -r name source file _ <<< "$entry"
  vw_time=$(median "$source" vw)
  parse_time=$(median "$source" parse)
  run_time=$(median "$source" run)
  printf '%-24s %8.0f %8.3f %8.3f %12.3f %4.2fx %4.2fx\n' "$name" "$(awk -v s="$(stat -c %s "$file")" 'BEGIN { print s / 1e6 }')" \
    "$vw_time" "$parse_time" "$run_time" "$(awk -v a="$vw_time" -v b="$parse_time" 'BEGIN { print a / b }')" \
    "$(awk -v a="$vw_time" -v b="$run_time" 'BEGIN { print a / b }')"
done
echo "(ratios: VW's parse against glimpse's parse alone, then against glimpse's whole run)"
