"""glimpse reproduce: `python3 -m glimpse.reproduce --glimpse EXECUTABLE ...` (the CLI's `glimpse reproduce` runs it).
See the package's text for its parts and docs/reproducing.md for what a page holds."""
import argparse
import os
import sys
import time
from pathlib import Path

from .common import Failure, fail, say
from .inputs import differences, paper_inputs, recorded_inputs
from .page import write_page
from .papers import Paper, papers, runs_folder
from .running import existing_runs, run_generator, run_protocols, verify_generator
from .tool import Glimpse
from .verify import verify


def list_papers(root, glimpse, strict):
    rows, stale = [], 0
    for paper_id in papers(root):
        paper = Paper(root, paper_id)
        recorded = recorded_inputs(paper.page_path())
        if recorded is None:
            state = "hand-written (never generated)" if paper.page_path().exists() else "never generated"
        else:
            changed = differences(recorded["inputs"], paper_inputs(paper, glimpse, False))
            state = "up to date" if not changed else "stale: " + ", ".join(changed)
            stale += bool(changed)
        rows.append((paper_id, state, paper.spec.get("title", "")))
    # Protocol folders and results pages with no paper.json: not reproducible by this command yet.
    others = {p.name for p in (root / "protocols").iterdir() if p.is_dir()} | {
        p.stem for p in (root / "docs" / "results").glob("*.md")}
    for name in sorted(others - {r[0] for r in rows}):
        page = root / "docs" / "results" / (name + ".md")
        rows.append((name, "no paper.json" + (" (page hand-written)" if page.exists() else ""), ""))
    width = max([len(r[0]) for r in rows] + [5])
    for paper_id, state, title in rows:
        print(f"{paper_id:<{width}}  {state}" + (f"  ({title})" if title else ""))
    if strict and stale:
        say(f"{stale} page(s) stale: regenerate with 'glimpse reproduce PAPER' (do not edit them)")
        return 1
    return 0


def output_page(paper, args):
    """Where this invocation writes (or, --verify, reads) the page: --out, the --quick runs folder, or docs/results."""
    if args.out:
        return Path(args.out)
    if args.quick:
        return runs_folder(paper.root, paper.id, args.runs, True) / (paper.id + ".md")
    return paper.page_path()


def parse_args(argv):
    parser = argparse.ArgumentParser(prog="glimpse reproduce", description=__doc__.split("\n")[0])
    parser.add_argument("paper", nargs="?", help="the paper (a folder protocols/PAPER with a paper.json)")
    parser.add_argument("--glimpse", required=True, help=argparse.SUPPRESS)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--page-only", action="store_true")
    parser.add_argument("--verify", action="store_true")
    parser.add_argument("--sample", type=int)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--max-seconds", type=float)
    parser.add_argument("--allow-unreproducible", action="store_true")
    parser.add_argument("-j", "--threads", type=int, default=0)
    parser.add_argument("--shard")
    parser.add_argument("--mpi", metavar="LAUNCHER", help="e.g. 'mpirun -n 8': run every sweep under it with --mpi")
    parser.add_argument("--processes", type=int, help="local processes per sweep (glimpse run --processes)")
    parser.add_argument("--root", default=".")
    parser.add_argument("--out")
    parser.add_argument("--runs")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    root = Path(args.root).resolve()
    os.environ["GLIMPSE"] = args.glimpse  # glimpse.open(...).select runs the same executable
    glimpse = Glimpse(args.glimpse)
    if args.list:
        return list_papers(root, glimpse, args.strict)
    if not args.paper:
        fail("name a paper (" + ", ".join(papers(root)) + ") or --list")
    paper = Paper(root, args.paper)
    paper.check()
    out_file = output_page(paper, args)
    if args.verify:
        if paper.generator:
            return verify_generator(paper, glimpse, args, out_file)
        return verify(paper, glimpse, args, out_file)
    if paper.generator:
        if args.page_only or args.shard:
            fail(f"{paper.id}: its page is written by {paper.generator['command']}, which has no --page-only or "
                 "--shard: run 'glimpse reproduce " + paper.id + "'")
        from .page import reproducibility

        return run_generator(paper, glimpse, args, out_file, reproducibility(paper.root, glimpse, args))
    start = time.monotonic()
    run_info = existing_runs(paper, args) if args.page_only else run_protocols(paper, glimpse, args)
    if args.shard:
        say("shard done: merge the shards of each protocol with 'glimpse merge', then 'glimpse reproduce "
            f"{paper.id} --page-only'")
        return 0
    inputs = paper_inputs(paper, glimpse, args.quick)
    unexplained = write_page(paper, run_info, glimpse, args, inputs, time.monotonic() - start, out_file)
    if args.strict and unexplained:
        say("--strict: unexplained: " + ", ".join(unexplained))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as e:
        print("glimpse reproduce: error: " + str(e), file=sys.stderr)
        sys.exit(e.status)
