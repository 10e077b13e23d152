"""The sweeps behind a page: one `glimpse run` per protocol into runs/reproduce/(full|quick)/PAPER/, resumed when
the trace was made with the same inputs, started afresh when they changed (a FILE.inputs.json beside each trace
records them)."""
import json
import os
import shlex
import subprocess
import time
from pathlib import Path

from .common import MARKER, fail, say
from .inputs import core_fingerprint, differences, generator_args, generator_datasets, generator_inputs, protocol_inputs
from .papers import installed_names, quick_text, runs_folder
from ..trace_schema import root, run as run_fields


def why_not_adopted(glimpse, protocol_file, output, inputs):
    """Why a trace file that glimpse reproduce did not make (no FILE.inputs.json beside it: the page's command run by
    hand) cannot be resumed: None when `glimpse status` finds it is this protocol's and every run it holds was made
    by the learner revisions of today's plugins."""
    import h5py

    complaint = glimpse.status_error(protocol_file, output)
    if complaint:
        return f"not this protocol's trace ({complaint})"
    with h5py.File(output, "r") as f:
        made = {(str(run.attrs[run_fields.learner]), int(run.attrs.get(run_fields.learner_revision, -1)))
                for run in f[root.runs].values()}
    for learner, revision in sorted(made):
        now = (inputs["plugins"].get(learner) or {}).get("revision")
        if now != revision:
            return f"its runs of {learner} were made at revision {revision}, now {now}"
    return None


def sweep_command(glimpse, protocol_file, output, args):
    command = [glimpse.executable, "run", str(protocol_file), "-o", str(output), "-j", str(args.threads)]
    if getattr(args, "shard", None):
        command += ["--shard", args.shard]
    if getattr(args, "processes", None):
        command += ["--processes", str(args.processes)]
    if getattr(args, "mpi", None):  # ranks share each sweep; rank 0 writes the file (glimpse run --mpi)
        command = shlex.split(args.mpi) + command + ["--mpi"]
    return command


def run_protocols(paper, glimpse, args):
    """Runs (or resumes) every protocol of the paper; returns name -> {"file", "seconds", "status", "command"}."""
    root, quick = paper.root, args.quick
    runs_dir = runs_folder(root, paper.id, args.runs, quick)
    runs_dir.mkdir(parents=True, exist_ok=True)
    protocols = {name: paper.protocol(name, quick) for name in paper.protocol_names()}
    needed = set()
    for protocol in protocols.values():
        needed |= installed_names(protocol)
    glimpse.install(needed)
    results = {}
    for name, protocol in protocols.items():
        stem = Path(name).stem
        if quick:
            source_file = runs_dir / name
            source_file.write_text(quick_text(protocol))
        else:
            source_file = paper.dir / name
        output = runs_dir / (stem + ".h5")
        inputs = protocol_inputs(protocol, source_file.read_text(), paper.dir, root, glimpse)
        inputs["core"] = core_fingerprint(glimpse)  # a trace made by another core or build is not resumed
        sidecar = runs_dir / (stem + ".inputs.json")
        command = sweep_command(glimpse, source_file, output, args)
        # Wall time spent on this trace file over every invocation (a resumed sweep adds up), for the page.
        timing = runs_dir / (stem + ".time.json")
        spent = json.loads(timing.read_text())["wall_seconds"] if timing.exists() else 0.0
        recorded = json.loads(sidecar.read_text()) if sidecar.exists() else None
        if output.exists() and recorded is not None and recorded != inputs:
            why = differences({name: recorded}, {name: inputs})
            say(f"{output}: made with other inputs ({', '.join(why)}): starting afresh")
            command.append("--force")
            spent = 0.0
        elif output.exists() and recorded is None:
            why = why_not_adopted(glimpse, source_file, output, inputs)
            if why:
                say(f"{output}: {why}: starting afresh")
                command.append("--force")
                spent = 0.0
            else:
                say(f"{output}: made by 'glimpse run' of this protocol with these plugin revisions: resuming it")
        sidecar.write_text(json.dumps(inputs) + "\n")
        say("$ " + " ".join(command))
        start = time.monotonic()
        status = subprocess.run(command, stdout=subprocess.DEVNULL).returncode  # the summary table: the page has it
        seconds = time.monotonic() - start
        timing.write_text(json.dumps({"wall_seconds": spent + seconds, "threads": args.threads or os.cpu_count()}) + "\n")
        if status == 130:
            fail("interrupted: run the same command again to resume", 130)
        if status not in (0, 3):
            fail(f"{name}: glimpse run failed (exit {status})")
        results[name] = {"file": output, "seconds": spent + seconds, "status": status,
                         "command": " ".join(["glimpse", "run", os.path.relpath(source_file, root), "-o",
                                              os.path.relpath(output, root)])}
    return results


def existing_runs(paper, args):
    """The trace files a previous run of the page left (--page-only)."""
    runs_dir = runs_folder(paper.root, paper.id, args.runs, args.quick)
    results = {}
    for name in paper.protocol_names():
        file = runs_dir / (Path(name).stem + ".h5")
        if not file.exists():
            fail(f"{file}: missing; run 'glimpse reproduce {paper.id}' first")
        timing = runs_dir / (Path(name).stem + ".time.json")
        spent = json.loads(timing.read_text())["wall_seconds"] if timing.exists() else float("nan")
        source = runs_dir / name if args.quick else paper.dir / name
        results[name] = {"file": file, "seconds": spent, "status": 0,
                         "command": f"glimpse run {os.path.relpath(source, paper.root)} -o "
                                    f"{os.path.relpath(file, paper.root)}"}
    return results


def verify_generator(paper, glimpse, args, out_file):
    """--verify of a page another program writes: that program reruns cells of the page's ledger (PAGE.cells.csv),
    when paper.json's generator declares it keeps one ("ledger": true), with --sample and --seed passed on."""
    generator = paper.generator
    if not generator.get("ledger"):
        fail(f"{paper.id}: its page is written by {generator['command']}, which keeps no ledger of runs to rerun: "
             f"regenerate it with 'glimpse reproduce {paper.id}' and compare")
    ledger = out_file.with_suffix(".cells.csv")
    if not ledger.exists():
        fail(f"{ledger}: missing; run 'glimpse reproduce {paper.id}' first")
    command = [str(paper.root / generator["command"]), "--verify", str(ledger)]
    for option, value in (("--sample", args.sample), ("--seed", args.seed)):
        if value is not None:
            command += [option, str(value)]
    if args.max_seconds is not None:
        say(f"--max-seconds: not applied ({generator['command']} draws cells without their runs' times)")
    say("$ " + " ".join(command))
    return subprocess.run(command, cwd=paper.root, env=dict(os.environ, GLIMPSE=glimpse.executable)).returncode


def run_generator(paper, glimpse, args, out_file, stamp):
    """Runs the program that writes this page (installing the datasets it names), then stamps the fingerprint and
    the tree's state (`stamp`: the line the page carries about its commit). The program keeps what it has measured
    in runs/reproduce/(full|quick)/PAPER/ (--resume) under the page's fingerprint, so an interrupted page resumes."""
    generator = paper.generator
    glimpse.install(generator_datasets(generator, args.quick))
    out_file.parent.mkdir(parents=True, exist_ok=True)
    fingerprint = {"paper": paper.id, "quick": args.quick, "inputs": generator_inputs(paper, glimpse, args.quick)}
    resume = runs_folder(paper.root, paper.id, args.runs, args.quick)
    invoked = f"glimpse reproduce {paper.id}" + (" --quick" if args.quick else "")
    command = [str(paper.root / generator["command"])] + generator_args(generator, args.quick) + [
        "--page", str(out_file), "--invoked-as", invoked, "--resume", str(resume)]
    say("$ " + " ".join(command))
    status = subprocess.run(command, cwd=paper.root, stdout=subprocess.DEVNULL,
                            env=dict(os.environ, GLIMPSE=glimpse.executable, GLIMPSE_PAGE_COMMIT=stamp,
                                     GLIMPSE_PAGE_FINGERPRINT=json.dumps(fingerprint, sort_keys=True))).returncode
    if status != 0:
        fail(f"{generator['command']} failed (exit {status})" + ("; run the same command again to resume"
                                                                 if status in (130, -2) else ""))
    if generator_inputs(paper, glimpse, args.quick) != fingerprint["inputs"]:
        fail(f"the inputs of {paper.id}'s page changed while it was measured: run the same command again")
    with open(out_file, "a") as f:
        f.write(MARKER + json.dumps(fingerprint, sort_keys=True) + " -->\n")
    say(f"wrote {out_file}")
    return 0
