# Helpers the CLI test scripts source.
cli_tests_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# fail MESSAGE: the test fails, saying why on standard error.
fail() { echo "FAILED: $*" >&2; exit 1; }

# same_runs A B RUNS: every run 0..RUNS-1 has the same round data, curves and final metrics in trace files A
# and B (what determinism promises; timings and file timestamps may differ). same_runs.py says how.
same_runs() { /usr/bin/python3 "$cli_tests_dir/same_runs.py" "$1" "$2" "$3" || exit 1; }

# same_present_runs A B: every run B holds (complete or not) is the same in A; prints how many B holds. A part B's
# run lacks (rounds, with "trace": "curves") is not compared.
same_present_runs() { /usr/bin/python3 "$cli_tests_dir/same_runs.py" "$1" "$2" || exit 1; }

# parts_records FOLDER KIND [OUTPUT]: how many runs the logs in a sweep's parts folder record as KIND: "written"
# (finished, complete or failed), "in_flight" (begun, neither written nor abandoned) or "kept" (written, or already
# in OUTPUT: a process that had time to handle SIGTERM assembles the output and removes the logs; each run counted
# once). The log layout is in docs/trace-schema.md; a torn last record is not counted.
parts_records() {
  /usr/bin/python3 - "$@" << 'EOF'
import glob, os, struct, sys
written, begun = set(), set()
for log in sorted(glob.glob(os.path.join(sys.argv[1], "*.log"))):
    data = open(log, "rb").read()
    at = 0
    while at + 24 <= len(data) and data[at:at + 4] == b"GLOG":
        kind = data[at + 4:at + 5]
        id_size, = struct.unpack_from("<I", data, at + 8)
        payload, = struct.unpack_from("<Q", data, at + 16)
        end = at + 24 + id_size + payload
        if end > len(data):
            break
        run = data[at + 24:at + 24 + id_size].decode()
        if kind == b"B":
            begun.add(run)
        elif kind in (b"A", b"W", b"F"):
            begun.discard(run)
            if kind != b"A":
                written.add(run)
        at = end
if sys.argv[2] == "kept":
    import h5py
    if os.path.exists(sys.argv[3]):
        with h5py.File(sys.argv[3], "r") as f:
            written.update(f["runs"].keys() if "runs" in f else [])
print(len(begun - written) if sys.argv[2] == "in_flight" else len(written))
EOF
}

# finished_parts FOLDER: how many finished runs a running or killed sweep has written into its parts folder.
finished_parts() { if [ -d "$1" ]; then parts_records "$1" written; else echo 0; fi; }

# parts_reached FOLDER COUNT: whether FOLDER holds COUNT finished runs. It counts the headers of written-run records
# ("GLOGW", "GLOGF"), torn or not: quick enough to poll every few ms, where finished_parts is exact.
parts_reached() { [ "$(cat "$1"/*.log 2> /dev/null | grep -a -o -E 'GLOG[WF]' | wc -l)" -ge "$2" ]; }

# stop_when PATTERN CONDITION...: lets the processes whose command line holds PATTERN (pgrep -f) run in slices of
# 20 ms, stopped (SIGSTOP) in between while the command CONDITION... is tried, and returns with them stopped once it
# succeeds. A kill sent then lands where the test wants it however busy the machine is: waiting while the processes
# ran freely, the test's own polling could be starved of the CPU until the whole sweep had finished. The caller kills
# them (SIGKILL ends a stopped process) or sends its signal and then SIGCONT (resume_matching). After 60 s it resumes
# them and returns 1.
stop_when() {
  local pattern=$1 deadline=$((SECONDS + 60))
  shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    pkill -CONT -f "$pattern" 2> /dev/null || true
    sleep 0.02
    pkill -STOP -f "$pattern" 2> /dev/null || true
    "$@" && return 0
  done
  resume_matching "$pattern"
  return 1
}

# stop_at_parts PATTERN FOLDER COUNT: stop_when FOLDER holds COUNT finished runs; the test fails after 60 s.
stop_at_parts() {
  stop_when "$1" parts_reached "$2" "$3" || fail "$2 did not reach $3 finished runs in 60 s"
}

# resume_matching PATTERN: SIGCONT to the processes stop_when left stopped.
resume_matching() { pkill -CONT -f "$1" 2> /dev/null || true; }

# elf_files PATH...: the ELF files (programs, libraries, plugins) among the files under the paths, NUL-separated.
elf_files() {
  local file
  while IFS= read -r -d '' file; do
    # The magic read into a variable, not piped into grep -q (which can fail the pipeline under pipefail).
    if [ "$(head -c 4 "$file")" = $'\x7fELF' ]; then printf '%s\0' "$file"; fi
  done < <(find "$@" -type f -print0)
}
