"""glimpse reproduce PAPER --verify [--sample N]: reruns the runs behind N cells of the page's ledger, chosen at random
(or all), each through `glimpse run PROTOCOL --only IDS` into a scratch folder, and compares every run's final metric
with the ledger bit for bit. Fails naming the cell, the run and both values at the first difference it finds in a
cell (it checks them all)."""
import os
import random
import subprocess
import tempfile
from collections import OrderedDict
from pathlib import Path

from .common import fail, say
from .inputs import differences, paper_inputs, recorded_inputs
from .ledger import read
from .papers import installed_names, quick_text
from ..trace_schema import run as run_fields, summary_identity_columns, table as columns


def choose_cells(cells, sample, seed, max_seconds):
    """The cells to rerun: all, or `sample` of them in a random order drawn from `seed`, skipping a cell whose runs
    would take the sample past `max_seconds` of the runs' own recorded time."""
    names = list(cells)
    if sample is None or sample >= len(names):
        return names
    random.Random(seed).shuffle(names)
    chosen, spent = [], 0.0
    for name in names:
        cost = sum(float(r["seconds"]) for r in unique_runs(cells[name]).values())
        if max_seconds is not None and spent + cost > max_seconds:
            continue
        chosen.append(name)
        spent += cost
        if len(chosen) == sample:
            break
    return chosen


def unique_runs(rows):
    return {(r["protocol"], r["run"]): r for r in rows}


def final_metrics(trace_file):
    """run id -> {metric: final value} of a scratch trace."""
    import glimpse

    summary = glimpse.open(trace_file).summary
    metrics = [c for c in summary.columns if c not in summary_identity_columns]
    return {run: {m: float(summary.iloc[i][m]) for m in metrics} | {"status": summary.iloc[i][run_fields.status]}
            for i, run in enumerate(summary[columns.run])}


def verify(paper, glimpse, args, page_file):
    ledger_file = paper.ledger_path(page_file)
    if not ledger_file.exists():
        fail(f"{ledger_file}: no ledger; generate the page first ('glimpse reproduce {paper.id}"
             f"{' --quick' if args.quick else ''}')")
    recorded = recorded_inputs(page_file)
    if recorded is not None:
        changed = differences(recorded["inputs"], paper_inputs(paper, glimpse, args.quick))
        if changed:
            say(f"note: {page_file.name} is stale ({', '.join(changed)}): its runs may rightly differ")
    cells = OrderedDict()
    for row in read(ledger_file):
        cells.setdefault(row["cell"], []).append(row)
    seed = args.seed if args.seed is not None else int.from_bytes(os.urandom(4), "little")
    chosen = choose_cells(cells, args.sample, seed, args.max_seconds)
    say(f"verifying {len(chosen)} of {len(cells)} cells of {ledger_file}" +
        (f" (sample drawn with --seed {seed})" if args.sample is not None else ""))
    by_protocol = OrderedDict()
    for name in chosen:
        for protocol, run in unique_runs(cells[name]):
            by_protocol.setdefault(protocol, set()).add(run)
    needed = set()
    for protocol in by_protocol:
        needed |= installed_names(paper.protocol(protocol, args.quick))
    glimpse.install(needed)
    with tempfile.TemporaryDirectory(prefix="glimpse-verify-") as scratch:
        rerun = {}
        for protocol, runs in by_protocol.items():
            if args.quick:  # the --quick form names the files beside the protocol by their absolute paths
                source = Path(scratch) / protocol
                source.write_text(quick_text(paper.protocol(protocol, True)))
            else:
                source = paper.dir / protocol
            output = Path(scratch) / (Path(protocol).stem + ".h5")
            command = [glimpse.executable, "run", str(source), "-o", str(output), "--quiet",
                       "-j", str(args.threads), "--only", ",".join(sorted(runs))]
            say(f"$ glimpse run {os.path.relpath(source, paper.root) if not args.quick else protocol} --only "
                f"({len(runs)} runs)")
            status = subprocess.run(command).returncode
            if status not in (0, 3):
                fail(f"{protocol}: glimpse run failed (exit {status})")
            rerun[protocol] = final_metrics(output)
        differing = []
        for name in chosen:
            problems = []
            for row in cells[name]:
                now = rerun[row["protocol"]].get(row["run"], {})
                value = now.get(row["metric"])
                if value is None or repr(value) != row["value"]:
                    problems.append(f"run {row['run']} of {row['protocol']} (seed {row['seed']}, {row['column']}): "
                                    f"{row['metric']} {row['value']} in the ledger, "
                                    f"{'missing' if value is None else repr(value)} now")
            print(f"{'ok' if not problems else 'DIFFERS'}  {name}" + (f": {problems[0]}" if problems else "") +
                  (f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""), flush=True)
            if problems:
                differing.append(name)
    if differing:
        fail(f"{len(differing)} of {len(chosen)} cells differ from {ledger_file.name}: " + ", ".join(differing[:10]), 1)
    say(f"all {len(chosen)} cells identical to the ledger")
    return 0
