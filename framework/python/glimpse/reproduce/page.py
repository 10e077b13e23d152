"""The results page: the paper's tables and ratio tables, its claims and the project's own checks, the figures, the
runs of the authors' code the page cites, the explanations, the count lines, and the fingerprint that says when the
page is stale. The ledger (ledger.py) is written beside it.

An explanation (protocols/PAPER/explanations.json) is attached to a cell or a claim and names, in "shown_by", the
tables, claims, figures or runs of the authors' code on this page that show it; one that names nothing on the page,
or is marked a guess, is printed as a guess and its cell or claim counts as UNEXPLAINED."""
import datetime
import json
import os
import subprocess

from . import claims as claim_checks
from .claims import FAILS, HOLDS, LEVEL_TEXT, TIE
from .common import MARKER, fail, say
from .figures import sensitivity, write_figure
from .ledger import Ledger
from .papers import CLAIM_SOURCES
from .ratios import RatioTables
from .tables import write_table

VERDICT_MARK = "\x00"  # around a placeholder explain() leaves for resolve_verdicts()


def tree_state(root):
    """(short commit, the paths with uncommitted changes outside docs/results/): a page is reproducible only from a
    commit, so the pages themselves are the one thing allowed to differ."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        status = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"], capture_output=True, text=True)
    except OSError:
        return "unknown", ["(git is not available)"]
    if head.returncode != 0:
        return "unknown", ["(not a git checkout)"]
    dirty = [line[3:] for line in status.stdout.splitlines() if not line[3:].startswith("docs/results/")]
    return head.stdout.strip(), dirty


def reproducibility(root, glimpse, args):
    """The commit a page names, marked when it cannot be reproduced (uncommitted changes, a build other than the
    reference arithmetic). A committed page (docs/results, not --quick or --out) is refused then, unless
    --allow-unreproducible."""
    commit, dirty = tree_state(root)
    reference = glimpse.identity().get("reference", False)
    committed_page = not args.quick and not args.out
    if committed_page and not args.allow_unreproducible:
        if dirty:
            fail(f"the tree has uncommitted changes ({', '.join(dirty[:5])}{' ...' if len(dirty) > 5 else ''}): a "
                 "page is written only from a commit, so that a reader can check it out; commit them (or pass "
                 "--allow-unreproducible, and the page says it cannot be reproduced)")
        if not reference:
            fail("this glimpse is not the reference build (glimpse --version: "
                 f"{glimpse.identity()['build_arithmetic']}): its numbers may differ from any reader's in the last bits; "
                 "build with the defaults (tools/build.sh), or pass --allow-unreproducible")
    if dirty:
        return commit + " (with uncommitted changes: **not reproducible**)"
    if not reference:
        return commit + " (not the reference build: **not reproducible**)"
    return commit


class Page:
    def __init__(self, paper, traces, run_info, quick, out_file):
        self.paper, self.traces, self.run_info, self.quick = paper, traces, run_info, quick
        self.out_dir = out_file.parent
        self.img_dir = self.out_dir / "img" / paper.id
        self.explanations = paper.explanations
        self.lines, self.unexplained, self.used_explanations = [], [], []
        self.pending_verdicts = []  # (cell or claim id, the explanation's key): resolved after every table
        self.counts = {"within 1 std": 0, "within 2 std": 0, "outside 2 std": 0, "no paper number": 0}
        self.claim_counts = {source: {HOLDS: 0, TIE: 0, FAILS: 0} for source in CLAIM_SOURCES}
        self.tables, self.readings = {}, {}
        self.ledger = Ledger()
        self.ratios = RatioTables(self)
        self._sensitivity = {}

    # what the claims and figures read
    def ratio_groups(self, table_id):
        return self.ratios.groups(table_id)

    def over_rounds(self, spec, groups=None):
        return self.ratios.over_rounds(spec, groups)

    def stretch_rates(self, group, rounds, t):
        return self.ratios.stretch_rates(group, rounds, t)

    def switch_summary(self, group):
        return self.ratios.switch_summary(group)

    def sensitivity(self, spec):
        if spec["id"] not in self._sensitivity:
            self._sensitivity[spec["id"]] = sensitivity(self, spec)
        return self._sensitivity[spec["id"]]

    def ids_on_page(self):
        spec = self.paper.spec
        return ({t["id"] for t in spec.get("tables", []) + spec.get("ratio_tables", [])}
                | {c["id"] for c in spec.get("claims", [])} | {f["id"] for f in spec.get("figures", [])}
                | {d["id"] for d in spec.get("differentials", [])})

    def shown_by(self, explanation):
        """The ids on this page an explanation names as what shows it (none: it is a guess)."""
        named = explanation.get("shown_by", [])
        named = [named] if isinstance(named, str) else named
        return [n for n in named if n in self.ids_on_page()]

    def credited(self, explanation):
        """What on this page shows an explanation, when it is credited: not a guess and shown by something here
        (none: it prints as a guess and leaves its cell or claim unexplained)."""
        return [] if explanation.get("guess") else self.shown_by(explanation)

    def explain(self, key):
        """The verdict text for a cell or claim that needs an explanation, as a placeholder that resolve_verdicts()
        fills in once every table (the readings among them) is written. A cell may also be explained for its whole
        row, "table3/dna/*", or its whole table, "table3/*"."""
        found = key
        if key not in self.explanations and key.count("/") == 2:
            found = next((k for k in (key.rsplit("/", 1)[0] + "/*", key.split("/", 1)[0] + "/*")
                          if k in self.explanations), key)
        if found in self.explanations and found not in self.used_explanations:
            self.used_explanations.append(found)
        self.pending_verdicts.append((key, found))
        return f"{VERDICT_MARK}{len(self.pending_verdicts) - 1}{VERDICT_MARK}"

    def verdict(self, key, found):
        """A guess, or one shown by nothing on this page, leaves its cell or claim unexplained; so does, for a cell,
        an explanation shown only by readings none of which brings that cell within 2 paper std (a reading explains
        the cells its own table moves in, not the ones it was offered for)."""
        if found not in self.explanations:
            self.unexplained.append(key)
            return "**UNEXPLAINED**"
        ref = f"[E{self.used_explanations.index(found) + 1}]"
        shown = self.credited(self.explanations[found])
        if not shown:
            self.unexplained.append(key)
            return f"**UNEXPLAINED** (a guess: {ref})"
        if key.count("/") == 2 and all(name in self.readings for name in shown):
            cell = key.split("/", 1)[1]
            if not any(cell in self.readings[name]["in"] for name in shown):
                self.unexplained.append(key)
                return f"**UNEXPLAINED** ({ref} names readings only, and none brings this cell within 2 std)"
        return f"explained {ref}"

    def resolve_verdicts(self):
        """Fills in the verdicts explain() left as placeholders."""
        verdicts = [self.verdict(key, found) for key, found in self.pending_verdicts]
        for i, line in enumerate(self.lines):
            if VERDICT_MARK in line:
                parts = line.split(VERDICT_MARK)
                self.lines[i] = "".join(verdicts[int(p)] if j % 2 else p for j, p in enumerate(parts))

    def reference(self, key):
        """An explanation's mark where none is required: "(see [E3])", or "(a guess: [E3])"."""
        if key not in self.used_explanations:
            self.used_explanations.append(key)
        ref = f"[E{self.used_explanations.index(key) + 1}]"
        return f"(see {ref})" if self.credited(self.explanations[key]) else f"(a guess: {ref})"

    def claim(self, spec):
        verdict, numbers = claim_checks.evaluate(self, spec)
        self.claim_counts[spec["source"]][verdict] += 1
        text = verdict
        if verdict == FAILS:
            text = "fails, " + self.explain(spec["id"])
        elif spec["id"] in self.explanations:  # a tie (or a claim that holds) may carry an explanation too
            text = f"{verdict} " + self.reference(spec["id"])
        who = {"paper": "paper", "paper_stand_in": "paper, on a stand-in", "project": "ours"}[spec["source"]]
        self.lines.append(f"| `{spec['id']}` | {who} | {spec['text']} | {text} | {numbers} |")

    def write_claims(self):
        spec = self.paper.spec
        if not spec.get("claims"):
            return
        self.lines.append(f"## {spec.get('claims_title', 'The paper' + chr(39) + 's claims, computed')}\n")
        self.lines.append(LEVEL_TEXT + " *paper*: a statement of the paper on its own datasets, as it is stated; *paper, "
                          "on a stand-in*: the statement tested on a dataset standing in for the paper's; *ours*: a check "
                          "of the project's own (another setting, a premise, a control). Each is counted apart.\n")
        self.lines.append("| id | whose | the statement | verdict | measured |")
        self.lines.append("|---|---|---|---|---|")
        for claim in spec["claims"]:
            self.claim(claim)
        self.lines.append("")

    def write_differentials(self):
        """Runs of the authors' own code, each with the command in the repository that fetches and runs it, and its
        output as the repository keeps it."""
        differentials = self.paper.spec.get("differentials", [])
        if not differentials:
            return
        self.lines.append("## Runs of the authors' code\n")
        self.lines.append("Each was made by the command shown, which fetches the authors' repository into a scratch "
                          "folder and runs their code unchanged on glimpse's rows; its output is kept in the "
                          "repository (the file named) and shown here as it is.\n")
        for d in differentials:
            output = self.paper.root / d["output"]
            self.lines.append(f"### {d['id']}: {d['title']}\n")
            self.lines.append(f"`{d['command']}` (output: `{d['output']}`)\n")
            text = output.read_text() if output.exists() else "(missing: run the command)\n"
            self.lines.append("```\n" + text.rstrip("\n") + "\n```\n")

    def write_explanations(self):
        if not self.used_explanations:
            return
        self.lines.append("## Explanations\n")
        self.lines.append(f"Attached to cells and claims in `protocols/{self.paper.id}/explanations.json`. Each names "
                          "what on this page shows it; one that names nothing here is printed as a guess, and its cell "
                          "or claim counts as unexplained.\n")
        for i, key in enumerate(self.used_explanations, 1):
            e = self.explanations[key]
            credited, shown = self.credited(e), self.shown_by(e)
            line = f"- **[E{i}]** `{key}`: {e['text']}"
            if credited:
                parts = []
                for name in credited:
                    moves = self.readings.get(name)
                    parts.append(f"`{name}`" + (f" (a reading: brings {len(moves['in'])} cells within 2 std, moves "
                                                 f"{len(moves['out'])} out; {moves['closer']} closer, {moves['further']} "
                                                 "further)" if moves else ""))
                line += " Shown by: " + ", ".join(parts) + "."
            elif shown:  # a guess that names what it rests on: they show the facts it starts from, not its cause
                line += (" Names on this page: " + ", ".join(f"`{name}`" for name in shown) + ". *(a guess: what it "
                         "names shows what is measured, not the cause; it counts as unexplained)*")
            else:
                line += " *(a guess: nothing on this page shows it)*"
            self.lines.append(line)
        self.lines.append("")


def write_page(paper, run_info, glimpse, args, inputs, total_seconds, out_file):
    """Writes the page and its ledger; returns the ids left unexplained."""
    from .cells import TraceView

    stamp = reproducibility(paper.root, glimpse, args)
    traces = {name: TraceView(info["file"]) for name, info in run_info.items()}
    page = Page(paper, traces, run_info, args.quick, out_file)
    for spec in paper.spec.get("tables", []):
        write_table(page, spec)
    for spec in paper.spec.get("ratio_tables", []):
        page.ratios.write(spec)
    page.write_claims()
    if paper.spec.get("figures"):
        page.lines.append("## Figures\n")
        for spec in paper.spec["figures"]:
            write_figure(page, spec)
    page.write_differentials()
    page.resolve_verdicts()
    page.write_explanations()
    if paper.spec.get("not_reproduced"):
        page.lines.append("## Not reproduced here\n")
        for item in paper.spec["not_reproduced"]:
            page.lines.append(f"- {item}")
        page.lines.append("")

    c = page.counts
    head = [f"# {paper.spec['title']}: reproduced by glimpse\n",
            f"*Generated by `glimpse reproduce {paper.id}{' --quick' if args.quick else ''}`: do not edit this page. "
            f"The paper's numbers and claims are in `protocols/{paper.id}/paper.json`, explanations in "
            f"`protocols/{paper.id}/explanations.json`; change those or the protocols, then regenerate. Every trial "
            f"behind its cells is in `{paper.id}.cells.csv` beside it; `glimpse reproduce {paper.id} --verify "
            "--sample N` reruns N of its cells and compares them bit for bit.*\n",
            f"Paper: {paper.spec['citation']}.\n",
            "| generated | glimpse | commit | this invocation's wall time | threads |",
            "|---|---|---|---|---|",
            f"| {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} | {glimpse.version()} | "
            f"{stamp} | {total_seconds:.0f} s | {args.threads or os.cpu_count()} |\n"]
    if args.quick:
        head.append("**--quick**: a few trials on a share of each dataset's rows, to exercise the path; the numbers "
                    "mean nothing.\n")
    unexplained_cells = sum(1 for k in page.unexplained if k.count("/") == 2)
    counts = (f"**Cells** (held out against the paper): {c['within 1 std']} within 1 paper std, {c['within 2 std']} "
              f"within 2, {c['outside 2 std']} outside ({unexplained_cells} unexplained); {c['no paper number']} with no "
              "paper number.")
    if page.readings:
        counts += " **Readings**: " + "; ".join(
            f"`{name}` brings {len(m['in'])} within 2 std, moves {len(m['out'])} out of 2 std ({m['closer']} closer, "
            f"{m['further']} further, of {m['compared']})" for name, m in page.readings.items()) + "."
    for source, title in (("paper", "The paper's claims, as stated"),
                          ("paper_stand_in", "The paper's claims on stand-in datasets"),
                          ("project", "The project's own checks")):
        n = page.claim_counts[source]
        if sum(n.values()):
            counts += (f" **{title}**: {n[HOLDS]} hold, {n[TIE]} tie (not reproduced), {n[FAILS]} fail.")
    head.append(counts + "\n")
    head.append("Commands (each resumes where it stopped; the whole page: `glimpse reproduce " + paper.id +
                (" --quick" if args.quick else "") + "`):\n")
    head.append("| protocol | command | runs | failed | wall time (all invocations) | sum of the runs' own times |")
    head.append("|---|---|---|---|---|---|")
    total_wall = total_runs = 0.0
    for name, info in run_info.items():
        rows = traces[name].rows
        failed = int((rows["status"] != "complete").sum())
        own = float(rows["seconds"].astype(float).sum())
        total_wall += info["seconds"]
        total_runs += own
        head.append(f"| {name} | `{info['command']}` | {len(rows)} | {failed} | {info['seconds']:.0f} s | {own:.0f} s |")
    head.append(f"| all | | {sum(len(t.rows) for t in traces.values())} | | **{total_wall:.0f} s** | {total_runs:.0f} s |")
    head.append("")
    fingerprint = {"paper": paper.id, "quick": args.quick, "inputs": inputs}
    text = "\n".join(head + page.lines) + "\n" + MARKER + json.dumps(fingerprint, sort_keys=True) + " -->\n"
    out_file.parent.mkdir(parents=True, exist_ok=True)
    out_file.write_text(text)
    ledger_file = paper.ledger_path(out_file)
    page.ledger.write(ledger_file)
    say(f"wrote {out_file} and {ledger_file.name} ({c['outside 2 std']} cells outside 2 std, "
        f"{len(page.unexplained)} unexplained)")
    return page.unexplained
