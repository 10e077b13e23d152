#!/usr/bin/python3
"""glimpse reproduce: runs a paper's protocols and writes its results page from the trace files.

Called by `glimpse reproduce` (which passes --glimpse, the executable to run). Everything a page states is
computed here from the runs and from protocols/PAPER/paper.json (the paper's numbers and computable claims);
the only prose is the paper's own words of a claim and the explanations in protocols/PAPER/explanations.json,
each attached to a cell or claim id. See docs/reproducing.md.
"""
import argparse
import datetime
import hashlib
import json
import math
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # plot_report.py, installed beside this script

MARKER = "<!-- glimpse-reproduce "


def fail(message, status=2):
    print("glimpse reproduce: error: " + message, file=sys.stderr)
    sys.exit(status)


# ---------------------------------------------------------------- papers, protocols and their inputs

def papers(root):
    found = {}
    for path in sorted((root / "protocols").glob("*/paper.json")):
        found[path.parent.name] = path
    return found


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail(f"{path}: cannot read it ({e.strerror})")
    except json.JSONDecodeError as e:
        fail(f"{path}: line {e.lineno}: not valid JSON ({e.msg})")


def plugin_names(protocol):
    """Every plugin a protocol names (learners, their oracles and query rules, metrics, sources, transforms)."""
    names = set()

    def named(entry):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            names.add(entry["name"])

    for key in ("oracle", "query_rule"):
        named(protocol.get(key))
    for learner in protocol.get("learners", []):
        named(learner)
        named(learner.get("oracle"))
        named(learner.get("query_rule"))
    for metric in protocol.get("metrics", []):
        named(metric)
    for dataset in protocol.get("datasets", []):
        for part in [dataset] + ([dataset["test"]] if isinstance(dataset.get("test"), dict) else []):
            if isinstance(part.get("source"), str):
                names.add(part["source"])
            for transform in part.get("transforms", []):
                named(transform)
    return names


def installed_names(protocol):
    """The installed datasets a protocol reads ({"name": X} without a source, or {"dataset": X})."""
    names = set()
    for dataset in protocol.get("datasets", []):
        for part in [dataset] + ([dataset["test"]] if isinstance(dataset.get("test"), dict) else []):
            if "dataset" in part:
                names.add(part["dataset"])
            elif "source" not in part and "name" in part:
                names.add(part["name"])
    return names


class Glimpse:
    def __init__(self, executable):
        self.executable = executable
        self._plugins = None

    def plugins(self):
        if self._plugins is None:
            out = subprocess.run([self.executable, "plugins", "--json"], capture_output=True, text=True, check=True)
            self._plugins = {}
            for line in out.stdout.splitlines():
                p = json.loads(line)
                self._plugins[p["name"]] = p
        return self._plugins

    def installed_datasets(self):
        """Names `glimpse datasets list` marks installed (the CLI knows where the cache is)."""
        out = subprocess.run([self.executable, "datasets", "list"], capture_output=True, text=True, check=True)
        return {line.split()[0] for line in out.stdout.splitlines()[2:] if len(line.split()) > 1 and
                line.split()[1] == "yes"}

    def status_error(self, protocol_file, trace_file):
        """`glimpse status`'s complaint when trace_file is not protocol_file's trace, else None."""
        out = subprocess.run([self.executable, "status", str(protocol_file), str(trace_file)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if out.returncode in (0, 3):
            return None
        return out.stderr.strip().removeprefix("glimpse: error: ") or f"glimpse status exited {out.returncode}"

    def version(self):
        out = subprocess.run([self.executable, "--version"], capture_output=True, text=True, check=True)
        return out.stdout.strip()


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def protocol_inputs(text, glimpse):
    """What a protocol's numbers depend on: its text and the arithmetic revisions of the plugins it names."""
    protocol = json.loads(text)
    revisions = {}
    for name in sorted(plugin_names(protocol)):
        plugin = glimpse.plugins().get(name)
        revisions[name] = plugin["revision"] if plugin else None
    return {"protocol": sha(text), "revisions": revisions}


def quick_protocol(protocol, quick, paper_dir):
    """The --quick form: the quick seeds, each dataset cut to a stratified share of its rows per seed (and draws
    with replacement to that share of their rounds), and with "max_grid_values" N every grid list longer than N cut
    to N values spread from its first to its last (the paper's full grids in minutes). It is
    written elsewhere, so a parameter naming a file beside the protocol becomes that file's absolute path."""
    def absolute(value, in_params=False):
        if isinstance(value, dict):
            return {k: absolute(v, in_params or k == "params") for k, v in value.items()}
        if isinstance(value, list):
            return [absolute(v, in_params) for v in value]
        if in_params and isinstance(value, str) and "/" not in value and (paper_dir / value).is_file():
            return str((paper_dir / value).resolve())
        return value

    protocol = absolute(protocol)
    protocol["seeds"] = quick["report_seeds"] + quick.get("selection_seeds", [])
    shares = quick.get("keep_fraction_for", {})
    for dataset in protocol.get("datasets", []):
        share = shares.get(dataset.get("name"), quick.get("keep_fraction", 1.0))
        if share < 1.0:
            cut = {"name": "split", "params": {"keep": "test", "test_fraction": share}}
            for part in [dataset] + ([dataset["test"]] if isinstance(dataset.get("test"), dict) else []):
                part["transforms"] = [cut] + part.get("transforms", [])
    if "max_grid_values" in quick:
        keep = max(2, quick["max_grid_values"])
        for learner in protocol.get("learners", []):
            for name, values in learner.get("grid", {}).items():
                if len(values) > keep:
                    learner["grid"][name] = [values[round(i * (len(values) - 1) / (keep - 1))] for i in range(keep)]
    if "rounds" in protocol:  # draws with replacement: as many fewer rounds as rows
        protocol["rounds"] = max(1, round(protocol["rounds"] * quick.get("keep_fraction", 1.0)))
    protocol["name"] = protocol.get("name", "protocol") + "_quick"
    protocol.pop("output", None)
    return protocol


def quick_text(protocol):
    return json.dumps(protocol, indent=1) + "\n"


def paper_inputs(paper_dir, paper, glimpse, quick):
    """Fingerprint of everything a page depends on: paper.json, explanations, each protocol and plugin revision."""
    inputs = {"paper.json": sha((paper_dir / "paper.json").read_text())}
    explanations = paper_dir / "explanations.json"
    inputs["explanations.json"] = sha(explanations.read_text()) if explanations.exists() else None
    for name in paper["protocols"]:
        text = (paper_dir / name).read_text()
        if quick:
            text = quick_text(quick_protocol(json.loads(text), paper["quick"], paper_dir))
        inputs[name] = protocol_inputs(text, glimpse)
    return inputs


def generator_datasets(generator, quick):
    """The datasets a generator page measures, full or --quick."""
    part = generator.get("quick", {}) if quick else generator
    return part.get("datasets", generator.get("datasets", []))


def generator_args(generator, quick):
    """A generator page's options and datasets, full or --quick."""
    return (generator.get("quick", {}) if quick else generator).get("args", []) + generator_datasets(generator, quick)


def generator_inputs(root, paper_dir, paper, glimpse, quick):
    """Fingerprint of a page another program writes: paper.json, that program's files and arguments, and the
    arithmetic revisions of the plugins it runs (it lists them with --plugins)."""
    generator = paper["generator"]
    text = json.dumps(generator_args(generator, quick))
    for name in [generator["command"]] + generator.get("inputs", []):
        text += (root / name).read_text()
    out = subprocess.run([str(root / generator["command"]), "--plugins"], capture_output=True, text=True,
                         env=dict(os.environ, GLIMPSE=glimpse.executable))
    if out.returncode != 0:
        fail(f"{generator['command']} --plugins failed: {out.stderr.strip()}")
    revisions = {}
    for name in sorted(json.loads(out.stdout)):
        plugin = glimpse.plugins().get(name)
        revisions[name] = plugin["revision"] if plugin else None
    return {"paper.json": sha((paper_dir / "paper.json").read_text()),
            generator["command"]: {"protocol": sha(text), "revisions": revisions}}


def page_inputs(root, paper_dir, paper, glimpse, quick):
    if "generator" in paper:
        return generator_inputs(root, paper_dir, paper, glimpse, quick)
    return paper_inputs(paper_dir, paper, glimpse, quick)


def run_generator(root, paper_id, paper, glimpse, args):
    """Runs the program that writes this page (installing the datasets it names), then stamps the fingerprint."""
    generator = paper["generator"]
    install_missing(glimpse, generator_datasets(generator, args.quick))
    out_file = output_page(root, paper_id, args)
    out_file.parent.mkdir(parents=True, exist_ok=True)
    invoked = f"glimpse reproduce {paper_id}" + (" --quick" if args.quick else "")
    command = [str(root / generator["command"])] + generator_args(generator, args.quick) + [
        "--page", str(out_file), "--invoked-as", invoked]
    print("$ " + " ".join(command), file=sys.stderr)
    status = subprocess.run(command, cwd=root, stdout=subprocess.DEVNULL,
                            env=dict(os.environ, GLIMPSE=glimpse.executable)).returncode
    if status != 0:
        fail(f"{generator['command']} failed (exit {status})")
    fingerprint = {"paper": paper_id, "quick": args.quick,
                   "inputs": generator_inputs(root, root / "protocols" / paper_id, paper, glimpse, args.quick)}
    with open(out_file, "a") as f:
        f.write(MARKER + json.dumps(fingerprint, sort_keys=True) + " -->\n")
    print(f"wrote {out_file}", file=sys.stderr)
    return 0


def install_missing(glimpse, names):
    """Installs the named datasets that are not installed yet."""
    have = glimpse.installed_datasets()
    missing = sorted(n for n in names if n not in have)
    if missing:
        print("installing datasets: " + " ".join(missing), file=sys.stderr)
        if subprocess.run([glimpse.executable, "datasets", "install"] + missing).returncode != 0:
            fail("installing the datasets failed: " + " ".join(missing))


def output_page(root, paper_id, args):
    """Where this invocation writes the page: --out, the --quick runs folder, or docs/results."""
    if args.out:
        return Path(args.out)
    if args.quick:
        return runs_folder(root, paper_id, args) / (paper_id + ".md")
    return page_path(root, paper_id)


def page_path(root, paper_id):
    return root / "docs" / "results" / (paper_id + ".md")


def recorded_inputs(page):
    if not page.exists():
        return None
    for line in page.read_text().splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):-len(" -->")])
    return None


def differences(old, new):
    changed = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict) and "revisions" in a:
            if a["protocol"] != b["protocol"]:
                changed.append(f"{key} edited")
            for plugin in sorted(set(a["revisions"]) | set(b["revisions"])):
                ra, rb = a["revisions"].get(plugin), b["revisions"].get(plugin)
                if ra != rb:
                    changed.append(f"{plugin} revision {ra} -> {rb}")
        else:
            changed.append(f"{key} {'edited' if a and b else 'added' if b else 'removed'}")
    return changed


def list_papers(root, glimpse, strict):
    rows, stale = [], 0
    for paper_id, path in papers(root).items():
        paper = load_json(path)
        page = page_path(root, paper_id)
        recorded = recorded_inputs(page)
        if recorded is None:
            state = "hand-written (never generated)" if page.exists() else "never generated"
        else:
            changed = differences(recorded["inputs"], page_inputs(root, path.parent, paper, glimpse, False))
            state = "up to date" if not changed else "stale: " + ", ".join(changed)
            stale += bool(changed)
        rows.append((paper_id, state, paper.get("title", "")))
    # Protocol folders and results pages with no paper.json: not reproducible by this command yet.
    others = {p.name for p in (root / "protocols").iterdir() if p.is_dir()} | {
        p.stem for p in (root / "docs" / "results").glob("*.md")}
    for name in sorted(others - {r[0] for r in rows}):
        page = page_path(root, name)
        rows.append((name, "no paper.json" + (" (page hand-written)" if page.exists() else ""), ""))
    width = max([len(r[0]) for r in rows] + [5])
    for paper_id, state, title in rows:
        print(f"{paper_id:<{width}}  {state}" + (f"  ({title})" if title else ""))
    if strict and stale:
        print(f"{stale} page(s) stale: regenerate with 'glimpse reproduce PAPER' (do not edit them)", file=sys.stderr)
        return 1
    return 0


# ---------------------------------------------------------------- running

def why_not_adopted(glimpse, protocol_file, output, inputs):
    """Why a trace file that glimpse reproduce did not make (no FILE.inputs.json beside it: the page's command run by
    hand) cannot be resumed: None when `glimpse status` finds it is this protocol's and every run it holds was made
    by the learner revisions of today's plugins."""
    import h5py
    complaint = glimpse.status_error(protocol_file, output)
    if complaint:
        return f"not this protocol's trace ({complaint})"
    with h5py.File(output, "r") as f:
        made = {(str(run.attrs["learner"]), int(run.attrs.get("learner_revision", -1))) for run in f["runs"].values()}
    for learner, revision in sorted(made):
        if inputs["revisions"].get(learner) != revision:
            return f"its runs of {learner} were made at revision {revision}, now {inputs['revisions'].get(learner)}"
    return None


def run_protocols(root, paper_id, paper, glimpse, args):
    paper_dir = root / "protocols" / paper_id
    runs_dir = runs_folder(root, paper_id, args)
    runs_dir.mkdir(parents=True, exist_ok=True)
    results = {}
    needed = set()
    texts = {}
    for name in paper["protocols"]:
        protocol = load_json(paper_dir / name)
        if args.quick:
            protocol = quick_protocol(protocol, paper["quick"], paper_dir)
        needed |= installed_names(protocol)
        texts[name] = protocol
    install_missing(glimpse, needed)
    for name, protocol in texts.items():
        stem = Path(name).stem
        if args.quick:
            file = runs_dir / name
            file.write_text(quick_text(protocol))
            source_file = file
        else:
            source_file = paper_dir / name
        output = runs_dir / (stem + ".h5")
        inputs = protocol_inputs(source_file.read_text(), glimpse)
        sidecar = runs_dir / (stem + ".inputs.json")
        command = [glimpse.executable, "run", str(source_file), "-o", str(output), "-j", str(args.threads)]
        if args.shard:
            command += ["--shard", args.shard]
        if args.processes:
            command += ["--processes", str(args.processes)]
        if args.mpi:  # ranks share each sweep; rank 0 writes the file (glimpse run --mpi)
            command = shlex.split(args.mpi) + command + ["--mpi"]
        # Wall time spent on this trace file over every invocation (a resumed sweep adds up), for the page.
        timing = runs_dir / (stem + ".time.json")
        spent = json.loads(timing.read_text())["wall_seconds"] if timing.exists() else 0.0
        if output.exists() and sidecar.exists() and json.loads(sidecar.read_text()) != inputs:
            why = differences({name: json.loads(sidecar.read_text())}, {name: inputs})
            print(f"{output}: made with other inputs ({', '.join(why)}): starting afresh", file=sys.stderr)
            command.append("--force")
            spent = 0.0
        elif output.exists() and not sidecar.exists():
            why = why_not_adopted(glimpse, source_file, output, inputs)
            if why:
                print(f"{output}: {why}: starting afresh", file=sys.stderr)
                command.append("--force")
                spent = 0.0
            else:
                print(f"{output}: made by 'glimpse run' of this protocol with these plugin revisions: resuming it",
                      file=sys.stderr)
        sidecar.write_text(json.dumps(inputs) + "\n")
        print("$ " + " ".join(command), file=sys.stderr)
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


def runs_folder(root, paper_id, args):
    base = Path(args.runs).resolve() if args.runs else root / "runs" / "reproduce"
    return base / ("quick" if args.quick else "full") / paper_id


# ---------------------------------------------------------------- reading traces

class Trace:
    def __init__(self, path):
        import h5py

        self.path = path
        with h5py.File(path, "r") as f:
            table = f["summary"][()]
            self.selection_metric = f.attrs["selection_metric"]
            if isinstance(self.selection_metric, bytes):
                self.selection_metric = self.selection_metric.decode()
            self.maximize = f.attrs["selection_goal"] in ("max", b"max")
            self.rows = []
            for r in table:
                row = {n: (r[n].decode() if isinstance(r[n], bytes) else r[n]) for n in table.dtype.names}
                self.rows.append(row)
        self._groups = {}

    def groups(self, metric):
        """(dataset, label) -> params -> {seed: (value, run)} over complete runs; computed once per metric."""
        if metric in self._groups:
            return self._groups[metric]
        out = self._groups[metric] = {}
        for r in self.rows:
            if r["status"] != "complete" or metric not in r:
                continue
            out.setdefault((r["dataset"], r["label"]), {}).setdefault(r["params"], {})[int(r["seed"])] = (
                float(r[metric]), r["run"])
        return out

    def curves(self, runs, curve):
        import h5py

        series = []
        with h5py.File(self.path, "r") as f:
            for run in runs:
                group = f["runs"][run]["curves"][curve]
                series.append((group["round"][()], group["value"][()]))
        return series


def mean_std(values):
    n = len(values)
    if n == 0:
        return math.nan, math.nan
    m = sum(values) / n
    s = math.sqrt(sum((v - m) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    return m, s


def choose(points, seeds, maximize):
    """The params whose mean over `seeds` is best (ties: the first in file order); None if no point has them all."""
    best, best_value = None, None
    for params, by_seed in points.items():
        if not all(s in by_seed for s in seeds):
            continue
        value = sum(by_seed[s][0] for s in seeds) / len(seeds)
        if math.isnan(value):
            continue
        if best is None or (value > best_value if maximize else value < best_value):
            best, best_value = params, value
    return best


class Cell:
    pass


def measure(trace, dataset, label, metric, report_seeds, selection_seeds, maximize, per_seed_by=None, select_by=None):
    """A cell under two selections: "same" (the grid point with the best mean over the reported seeds) and
    "held_out" (the best mean over `selection_seeds`; or, with `per_seed_by` = (metric, maximize), each reported
    seed's own best run by that metric, as cross-validation chooses per split)."""
    points = trace.groups(metric).get((dataset, label))
    cell = Cell()
    cell.present = bool(points)
    if not points:
        return cell
    # The grid point may be chosen by another metric than the one reported (`select_by` = (metric, maximize)).
    choosing, choose_max = (trace.groups(select_by[0]).get((dataset, label), {}), select_by[1]) if select_by else (
        points, maximize)
    for name, seeds in (("same", report_seeds), ("held_out", selection_seeds)):
        if name == "held_out" and per_seed_by:
            setattr(cell, name, choose_per_seed(trace, dataset, label, metric, report_seeds, *per_seed_by))
            continue
        params = choose(choosing, seeds, choose_max) if seeds else None
        if params is None and name == "held_out" and not seeds and len(points) == 1:
            params = next(iter(points))  # one grid point: nothing to choose, so nothing is chosen on the trials
        if params is None:
            setattr(cell, name, None)
            continue
        values = [points[params][s][0] for s in report_seeds if s in points[params]]
        runs = [points[params][s][1] for s in report_seeds if s in points[params]]
        m, s = mean_std(values)
        setattr(cell, name, {"params": params, "mean": m, "std": s, "values": values, "runs": runs})
    return cell


def choose_per_seed(trace, dataset, label, metric, seeds, by, maximize):
    """Each seed's run with the best `by` (ties: the first grid point), reported by `metric`."""
    by_points = trace.groups(by).get((dataset, label), {})
    points = trace.groups(metric).get((dataset, label), {})
    values, runs, chosen = [], [], {}
    for seed in seeds:
        best = None
        for params, by_seed in by_points.items():
            if seed in by_seed and params in points and seed in points[params]:
                v = by_seed[seed][0]
                if best is None or (v > best[0] if maximize else v < best[0]):
                    best = (v, params)
        if best:
            values.append(points[best[1]][seed][0])
            runs.append(points[best[1]][seed][1])
            chosen[best[1]] = chosen.get(best[1], 0) + 1
    if not values:
        return None
    m, s = mean_std(values)
    most = max(chosen, key=chosen.get)
    params = most if len(chosen) == 1 else f"per seed by {by}; most often ({chosen[most]}/{len(values)}): {most}"
    return {"params": params, "mean": m, "std": s, "values": values, "runs": runs}


def welch_p(a, b):
    """Two-sided p-value of Welch's t-test (normal approximation refined by the t distribution via betainc)."""
    ma, sa = mean_std(a)
    mb, sb = mean_std(b)
    va, vb = sa * sa / len(a), sb * sb / len(b)
    if va + vb == 0:
        return 0.0 if ma != mb else 1.0
    t = (ma - mb) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / ((va * va) / (len(a) - 1) + (vb * vb) / (len(b) - 1))
    x = df / (df + t * t)
    return incomplete_beta(df / 2, 0.5, x)


def within_noise(a, b):
    """(whether a Welch t-test at 5% finds no significant difference between samples a and b, its p-value): the
    tie the claims' "or_tied" counts."""
    p = welch_p(a, b)
    return p >= 0.05, p


def incomplete_beta(a, b, x):
    """Regularised incomplete beta I_x(a, b) by its continued fraction (Numerical Recipes' betacf)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    if x > (a + 1) / (a + b + 2):
        return 1.0 - incomplete_beta(b, a, 1 - x)
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        for num in (m * (b - m) * x / ((a + m2 - 1) * (a + m2)), -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))):
            d = 1.0 + num * d
            d = 1.0 / (d if abs(d) > 1e-300 else 1e-300)
            c = 1.0 + num / c if abs(1.0 + num / c) > 1e-300 else 1e-300
            h *= d * c
    return front * h / a


# ---------------------------------------------------------------- the page

def fmt(value, scale, digits):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value * scale:.{digits}f}"


def status_of(measured, paper_mean, paper_std, resolution):
    """Within 1 or 2 of the paper's standard deviations. The paper's mean is known only to half its last printed
    digit, so that much of the gap is forgiven; a printed std of 0.0 counts as half the last digit."""
    spread = max(paper_std, resolution / 2)
    gap = max(0.0, abs(measured - paper_mean) - resolution / 2) / spread
    return gap, ("within 1 std" if gap <= 1 else "within 2 std" if gap <= 2 else "outside 2 std")


class Page:
    def __init__(self, root, paper_id, paper, traces, run_info, explanations, quick, out_dir, img_dir):
        self.root, self.paper_id, self.paper, self.traces = root, paper_id, paper, traces
        self.run_info, self.explanations, self.quick = run_info, explanations, quick
        self.out_dir, self.img_dir = out_dir, img_dir
        self.lines, self.unexplained, self.used_explanations = [], [], []
        self.counts = {"within 1 std": 0, "within 2 std": 0, "outside 2 std": 0, "no paper number": 0}
        self.claims = {"holds": 0, "fails": 0}
        self.tables = {}
        self._ratio_groups = {}

    def explain(self, key):
        """The verdict text for a cell or claim that needs an explanation; a guess leaves it unexplained. A cell may
        also be explained for its whole row: "table3/dna/*"."""
        if key not in self.explanations and key.count("/") == 2 and key.rsplit("/", 1)[0] + "/*" in self.explanations:
            key = key.rsplit("/", 1)[0] + "/*"
        if key in self.explanations:
            if key not in self.used_explanations:
                self.used_explanations.append(key)
            ref = f"[E{self.used_explanations.index(key) + 1}]"
            if not self.explanations[key].get("guess"):
                return f"explained {ref}"
            self.unexplained.append(key)
            return f"**UNEXPLAINED** (a guess: {ref})"
        self.unexplained.append(key)
        return "**UNEXPLAINED**"

    def seeds(self, spec):
        source = self.paper["quick"] if self.quick else spec
        return source["report_seeds"], source.get("selection_seeds", [])

    def table(self, spec):
        trace = self.traces[spec["protocol"]]
        metric = spec.get("metric", trace.selection_metric)
        scale, digits = spec.get("scale", 1), spec.get("digits", 1)
        report_seeds, selection_seeds = self.seeds(spec)
        paper_cells = {(c["dataset"], c["learner"]): c for c in spec.get("paper", [])}
        stand_ins = spec.get("stand_ins", {})
        cells = {}
        out = self.lines
        out.append(f"## {spec['title']}\n")
        out.append(f"The paper's {spec['source']}. {spec.get('setting', '')}".strip() + "\n")
        per_seed = spec.get("per_seed_by")  # {"metric": "cv_error", "goal": "min"}: cross-validation per split
        compare = spec.get("compare", "same")
        reading = spec.get("role") == "reading"
        if reading:
            out.append("*A reading, not a reproduction*: this table runs the paper's procedure with one of the settings "
                       "it leaves unstated chosen another way. Its cells are compared with the paper's numbers to show "
                       "for which datasets and methods this reading reproduces them. Explanations of the reproduction's "
                       "cells cite them, and they are not counted among the page's cells.\n")
        held_out_text = (
            f"each trial's own grid point, the one with the best `{per_seed['metric']}` on that trial's training part "
            "(cross-validation), reported on its test part" if per_seed else
            f"the grid point with the best mean over other trials (seeds {seed_text(selection_seeds)}), then reported "
            "on the reported trials")
        if spec.get("select_by"):
            held_out_text += f" (both choose by `{spec['select_by']['metric']}`, as the protocol does)"
        out.append(f"Runs: `{self.run_info[spec['protocol']]['command']}`. Metric `{metric}` (x{scale}); mean (sample "
                   f"std) over the {len(report_seeds)} reported trials (seeds {seed_text(report_seeds)}). "
                   "**same trials**: the grid point with the best mean over the reported trials themselves (what "
                   "\"chose the best hyperparameter\" on the reported runs amounts to; flatters every learner). "
                   f"**held out**: {held_out_text}: the figure to believe. Status compares "
                   f"*{'held out' if compare == 'held_out' else 'same trials'}* with the paper"
                   + (" (the paper's own procedure)" if compare == "held_out" else "") + ".\n")
        learners = spec["learners"]
        out.append("| dataset | " + " | ".join(f"{title} paper | same trials | held out" for title in learners.values())
                   + " |")
        out.append("|---|" + "---|---|---|" * len(learners))
        detail = []
        for dataset, dataset_title in spec["datasets"].items():
            row = [dataset_title]
            for learner, learner_title in learners.items():
                maximize = spec["goal"] == "max" if "goal" in spec else trace.maximize
                select_by = spec.get("select_by")  # {"metric": "confusion", "goal": "min"}: as the protocol chooses
                cell = measure(trace, dataset, learner, metric, report_seeds, selection_seeds, maximize,
                               (per_seed["metric"], per_seed.get("goal", "min") == "max") if per_seed else None,
                               (select_by["metric"], select_by.get("goal", "max") == "max") if select_by else None)
                cells[(dataset, learner)] = cell
                pc = paper_cells.get((dataset, learner))
                paper_text = f"{pc['mean']:.{digits}f} ({pc['std']:.{digits}f})" if pc else (
                    f"({stand_ins[dataset]})" if dataset in stand_ins else "-")
                same = cell.same if cell.present else None
                held = cell.held_out if cell.present else None
                compared = held if compare == "held_out" else same
                same_text = f"{fmt(same['mean'], scale, digits)} ({fmt(same['std'], scale, digits)})" if same else "-"
                held_text = f"{fmt(held['mean'], scale, digits)} ({fmt(held['std'], scale, digits)})" if held else "-"
                row += [paper_text, same_text, held_text]
                key = f"{spec['id']}/{dataset}/{learner}"
                if pc and compared:
                    gap, status = status_of(compared["mean"] * scale, pc["mean"], pc["std"], 10.0 ** -digits)
                    if reading:
                        # A reading's gaps show where it reproduces the paper, and explain the main table's cells
                        # there; they are not cells of their own to explain.
                        verdict = status + " (a reading; not counted)"
                    else:
                        self.counts[status] += 1
                        verdict = status if status != "outside 2 std" else status + ", " + self.explain(key)
                    detail.append((key, f"{compared['mean'] * scale - pc['mean']:+.{digits}f}", f"{gap:.1f}", verdict,
                                   same["params"], held["params"] if held else "-"))
                elif same:
                    self.counts["no paper number"] += 1
                    detail.append((key, "", "", "no paper number" + (
                        f" ({stand_ins[dataset]})" if dataset in stand_ins else ""),
                                   same["params"], held["params"] if held else "-"))
            out.append("| " + " | ".join(row) + " |")
        out.append("")
        out.append("<details><summary>Per cell: gap to the paper, status, chosen grid points</summary>\n")
        out.append("Gap: |measured - paper| less half the paper's last printed digit (its rounding), in paper stds.\n")
        out.append("| cell | measured - paper | gap / paper std | status | chosen (same trials) | chosen (held out) |")
        out.append("|---|---|---|---|---|---|")
        for row in detail:
            out.append("| " + " | ".join(f"`{c}`" if i in (0, 4, 5) and c not in ("", "-") else c
                                         for i, c in enumerate(row)) + " |")
        out.append("\n</details>\n")
        self.tables[spec["id"]] = {"spec": spec, "cells": cells, "trace": trace, "metric": metric}

    def ratio_groups(self, table_id):
        """(label, rule setting) -> the runs' regret ratios to the passive run of the same seed, queries, regrets;
        read from the trace once per table."""
        if table_id in self._ratio_groups:
            return self._ratio_groups[table_id]
        spec = next(t for t in self.paper["ratio_tables"] if t["id"] == table_id)
        import plot_report  # beside this script: the report's pairing of each run with its passive run

        at_rounds = self.over_rounds(spec)
        runs = plot_report.read_bandit_runs(str(self.traces[spec["protocol"]].path), curves=bool(at_rounds))
        report = set(self.seeds(spec)[0])
        runs = [r for r in runs if r["seed"] in report]
        groups = plot_report.regret_ratio_groups(runs, spec.get("passive", "passive"), at_rounds) if runs else {}
        result = self._ratio_groups[table_id] = (spec, {(label, setting): g for (_, label, setting), g in groups.items()})
        return result

    def ratio_table(self, spec):
        _, groups = self.ratio_groups(spec["id"])
        import plot_report

        out = self.lines
        out.append(f"## {spec['title']}\n")
        out.append(f"The paper's {spec['source']}. {spec.get('setting', '')}".strip() + "\n")
        out.append(f"Runs: `{self.run_info[spec['protocol']]['command']}`. Each run's final regret divided by the passive "
                   "learner's on the same seed (same data, same order); mean and 95% interval over the "
                   f"{len(self.seeds(spec)[0])} reported trials.\n")
        switch = any(g["switch_rounds"] for g in groups.values())  # a safety switch among the learners
        out.append("| learner | rule setting | trials | mean queries | share of rounds | regret ratio [95% interval] | "
                   "mean regret | passive's |" + (" safety switch fired |" if switch else ""))
        out.append("|---|---|---|---|---|---|---|---|" + ("---|" if switch else ""))
        for (label, setting), g in groups.items():
            mean, half = plot_report.mean_ci(g["ratio"])
            queries = sum(g["queries"]) / len(g["queries"])
            out.append(f"| {label} | `{setting or '-'}` | {len(g['ratio'])} | {queries:.0f} | "
                       f"{queries / g['rounds']:.1%} | {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] | "
                       f"{sum(g['regret']) / len(g['regret']):.1f} | {sum(g['passive']) / len(g['passive']):.1f} |"
                       + (f" {self.switch_summary(g)} |" if switch else ""))
        out.append("")
        self.ratio_over_rounds_table(spec, groups)

    @staticmethod
    def over_rounds(spec, groups=None):
        """The rounds a ratio table lists as "over_rounds" (the table of ratios up to each of them), or (); given the
        table's groups, only those within its runs (a --quick run is shorter)."""
        rounds = tuple(spec.get("over_rounds", ()))
        if groups:
            length = max(g["rounds"] for g in groups.values())
            rounds = tuple(t for t in rounds if t <= length)
        return rounds

    def ratio_over_rounds_table(self, spec, groups):
        """The ratio of cumulative regrets up to each of the spec's rounds: when a rule leads the passive learner."""
        import plot_report

        rounds = self.over_rounds(spec, groups)
        if not rounds:
            return
        out = self.lines
        out.append(f"The same runs, cumulative regret up to round t divided by the passive learner's up to round t: mean and "
                   "95% half-interval over the trials.\n")
        out.append("| learner | rule setting | " + " | ".join(f"t = {t:,}" for t in rounds) + " |")
        out.append("|---|---|" + "---|" * len(rounds))
        for (label, setting), g in groups.items():
            if label == spec.get("passive", "passive"):
                continue
            cells = []
            for t in rounds:
                mean, half = plot_report.mean_ci(g["ratio_at"][t])
                cells.append(f"{mean:.3f} ± {half:.3f}")
            out.append(f"| {label} | `{setting or '-'}` | " + " | ".join(cells) + " |")
        out.append("")
        out.append("The same runs as learning curves: regret per 1,000 rounds over each stretch of rounds ending at t "
                   "(the cumulative regret's increase over the stretch, scaled to 1,000 rounds), and in brackets the "
                   "labels the learner holds at t; means over the trials.\n")
        out.append("| learner | rule setting | " + " | ".join(f"t = {t:,}" for t in rounds) + " |")
        out.append("|---|---|" + "---|" * len(rounds))
        for (label, setting), g in groups.items():
            cells = [f"{1000 * rate:.0f} ({labels:,.0f})" for rate, labels in self.regret_rates(g, rounds)]
            out.append(f"| {label} | `{setting or '-'}` | " + " | ".join(cells) + " |")
        out.append("")

    @staticmethod
    def stretch_rates(group, rounds, t):
        """Per trial: the regret per round over the stretch of `rounds` that ends at t (it starts at the round
        before t in `rounds`, or at 0)."""
        i = rounds.index(t)
        start = rounds[i - 1] if i else 0
        before = group["regret_at"][start] if start else [0.0] * len(group["regret_at"][t])
        return [(b - a) / (t - start) for a, b in zip(before, group["regret_at"][t])]

    @classmethod
    def regret_rates(cls, group, rounds):
        """(mean regret per round over the stretch ending at t, mean labels at t) for each t of `rounds`."""
        rates = []
        for t in rounds:
            per_trial, labels = cls.stretch_rates(group, rounds, t), group["queries_at"][t]
            rates.append((sum(per_trial) / len(per_trial), sum(labels) / len(labels)))
        return rates

    @staticmethod
    def switch_summary(group):
        """'k of n (rounds first-last)': in how many trials a safety switch fired, and when; '-' without one."""
        rounds = group["switch_rounds"]
        if not rounds:
            return "-"
        fired = sorted(r for r in rounds if r > 0)
        span = f" (rounds {fired[0]:,.0f}-{fired[-1]:,.0f})" if fired else ""
        return f"{len(fired)} of {len(rounds)}{span}"

    def ratio_curve(self, groups, label):
        """The label's (mean queries, mean ratio, 95% half-interval) points, sorted by queries."""
        import plot_report

        return sorted((sum(g["queries"]) / len(g["queries"]), *plot_report.mean_ci(g["ratio"]))
                      for (l, _), g in groups.items() if l == label)

    def claim_beats_passive_with_fewer_queries(self, spec):
        """Some setting of `label` has a mean regret ratio below 1 while asking for fewer labels than rounds."""
        _, groups = self.ratio_groups(spec["table"])
        rounds = next(iter(groups.values()))["rounds"] if groups else 0
        points = [p for p in self.ratio_curve(groups, spec["label"]) if p[0] < rounds]
        best = min(points, key=lambda p: p[1]) if points else None
        if not best:
            return False, "no run of " + spec["label"]
        return best[1] < 1, (f"{spec['label']}'s lowest mean ratio {best[1]:.3f} at {best[0]:.0f} queries "
                             f"({best[0] / rounds:.1%} of {rounds} rounds)")

    def claim_beats_passive_before_the_end(self, spec):
        """At some round of the table's "over_rounds", some setting of `label` has a cumulative regret ratio whose 95%
        interval lies below 1: the rule leads the passive learner at that horizon, whatever happens at the last round."""
        table, groups = self.ratio_groups(spec["table"])
        import plot_report

        rounds = self.over_rounds(table, groups)
        if not rounds:
            return False, "the runs end before the first of the table's over_rounds"
        leads = []  # (round, mean, half, setting) with the interval below 1
        best = None
        for (label, setting), g in groups.items():
            if label != spec["label"]:
                continue
            for t in rounds:
                mean, half = plot_report.mean_ci(g["ratio_at"][t])
                if best is None or mean < best[1]:
                    best = (t, mean, half, setting)
                if mean + half < 1:
                    leads.append((t, mean, half, setting))
        if best is None:
            return False, "no run of " + spec["label"]
        t, mean, half, setting = best
        text = (f"{spec['label']}'s lowest mean ratio {mean:.3f} [{mean - half:.3f}, {mean + half:.3f}] at round {t:,} "
                f"(`{setting}`)")
        if leads:
            rounds = sorted({lead[0] for lead in leads})
            text += f"; some setting's interval lies below 1 at rounds {rounds[0]:,}-{rounds[-1]:,} of these: " + \
                ", ".join(f"{r:,}" for r in rounds)
        return bool(leads), text

    def claim_regret_rate_plateau(self, spec):
        """`label`'s learning curve has a plateau: its regret per round over the stretch of the table's "over_rounds"
        ending at `to` is not lower, beyond noise, than over the stretch ending at `from` (the trials' paired difference
        has a 95% interval reaching 0 or above), and over the last stretch it is lower than at `to`, beyond noise."""
        table, groups = self.ratio_groups(spec["table"])
        import plot_report

        rounds = self.over_rounds(table, groups)
        if spec["to"] not in rounds or spec["from"] not in rounds:
            return False, "the runs end before round " + f"{spec['to']:,}"
        g = next((g for (label, _), g in groups.items() if label == spec["label"]), None)
        if g is None:
            return False, "no run of " + spec["label"]

        def rate(t):  # per trial: regret per 1,000 rounds over the stretch ending at t
            return [1000 * r for r in self.stretch_rates(g, rounds, t)]

        def labels(t):
            return sum(g["queries_at"][t]) / len(g["queries_at"][t])

        first, middle, last = rate(spec["from"]), rate(spec["to"]), rate(rounds[-1])
        flat, flat_half = plot_report.mean_ci([b - a for a, b in zip(first, middle)])
        fall, fall_half = plot_report.mean_ci([b - a for a, b in zip(middle, last)])
        holds = flat + flat_half >= 0 and fall + fall_half < 0
        return holds, (f"{spec['label']}'s regret per 1,000 rounds: {sum(first) / len(first):.1f} with "
                       f"{labels(spec['from']):,.0f} labels, {sum(middle) / len(middle):.1f} with {labels(spec['to']):,.0f} "
                       f"(difference {flat:+.1f} [{flat - flat_half:+.1f}, {flat + flat_half:+.1f}]), "
                       f"{sum(last) / len(last):.1f} with {labels(rounds[-1]):,.0f} (difference from the middle {fall:+.1f} "
                       f"[{fall - fall_half:+.1f}, {fall + fall_half:+.1f}])")

    def claim_switch_saves(self, spec):
        """Some setting of `label` (a learner with the safety switch) switched in every trial, and its regret ratio's
        95% interval lies below that of the `than` setting with the same query-rule parameters (the learner without
        the switch)."""
        _, groups = self.ratio_groups(spec["table"])
        import plot_report

        parts, holds = [], False
        for (label, setting), g in groups.items():
            if label != spec["label"]:
                continue
            # The learner without the switch under the same query-rule parameters, e.g. {"c": 10}.
            twin = next((key for key, other in groups.items()
                         if key[0] == spec["than"] and other["rule_params"] == g["rule_params"]), None)
            if twin is None:
                continue
            mean, half = plot_report.mean_ci(g["ratio"])
            other, other_half = plot_report.mean_ci(groups[twin]["ratio"])
            every = bool(g["switch_rounds"]) and all(r > 0 for r in g["switch_rounds"])
            below = mean + half < other - other_half
            holds |= every and below
            parts.append(f"{label} `{setting}`: switched in {self.switch_summary(g)}, ratio {mean:.3f} "
                         f"[{mean - half:.3f}, {mean + half:.3f}] vs {spec['than']} {other:.3f} "
                         f"[{other - other_half:.3f}, {other + other_half:.3f}]")
        return holds, "; ".join(parts) or "no pair of settings"

    def claim_never_switches(self, spec):
        """No run of `label` (a learner with the safety switch) switched."""
        _, groups = self.ratio_groups(spec["table"])
        rounds = [r for (label, _), g in groups.items() if label == spec["label"] for r in g["switch_rounds"]]
        fired = sum(r > 0 for r in rounds)
        return bool(rounds) and fired == 0, f"{spec['label']} switched in {fired} of {len(rounds)} runs"

    def claim_above_passive(self, spec):
        """Every setting of `label` has a regret ratio to the passive learner whose 95% interval lies above 1 (the
        passive learner is better beyond noise)."""
        _, groups = self.ratio_groups(spec["table"])
        points = self.ratio_curve(groups, spec["label"])
        parts = [f"{r:.3f} [{r - half:.3f}, {r + half:.3f}] at {q:.0f} queries" for q, r, half in points]
        return bool(points) and all(r - half > 1 for _, r, half in points), f"{spec['label']}: " + "; ".join(parts)

    def claim_best_at_equal_queries(self, spec):
        """At the query counts of every setting of the `others`, `label`'s ratio (interpolated between its own
        settings) is no higher than theirs (with "within_interval": no higher than the top of their 95% interval, i.e.
        not worse beyond noise); settings outside `label`'s query range are not compared."""
        _, groups = self.ratio_groups(spec["table"])
        curve = self.ratio_curve(groups, spec["label"])
        count = total = 0
        parts = []
        for other in spec["others"]:
            for q, r, half in self.ratio_curve(groups, other):
                bound = r + half if spec.get("within_interval") else r
                if not curve or q < curve[0][0] or q > curve[-1][0]:
                    continue
                mine = next(a[1] + (b[1] - a[1]) * (q - a[0]) / (b[0] - a[0]) if b[0] > a[0] else a[1]
                            for a, b in zip(curve, curve[1:] + [curve[-1]]) if a[0] <= q <= b[0])
                total += 1
                count += mine <= bound
                parts.append(f"{other} at {q:.0f}: {r:.3f}" + (f" (+{half:.3f})" if spec.get("within_interval") else "")
                             + f" vs {spec['label']} {mine:.3f}{'' if mine <= bound else ' (no)'}")
        need = spec.get("at_least", total)
        return total > 0 and count >= need, f"{count} of {total} settings (needs {need}): " + "; ".join(parts)

    def claim_regret_higher_than(self, spec):
        """The mean absolute regret of each of `labels` (over all its settings) is higher in `table` than in `than`."""
        _, here = self.ratio_groups(spec["table"])
        _, there = self.ratio_groups(spec["than"])
        count, parts = 0, []
        for label in spec["labels"]:
            def mean_regret(groups):
                values = [v for (l, _), g in groups.items() if l == label for v in g["regret"]]
                return sum(values) / len(values) if values else math.nan
            a, b = mean_regret(here), mean_regret(there)
            count += a > b
            parts.append(f"{label}: {a:.1f} vs {b:.1f}")
        return count == len(spec["labels"]), "mean regret here vs there: " + "; ".join(parts)

    # ---- claims

    def claim(self, spec):
        check = spec["check"]
        verdict, numbers = getattr(self, "claim_" + check)(spec)
        self.claims["holds" if verdict else "fails"] += 1
        text = "holds" if verdict else "fails, " + self.explain(spec["id"])
        self.lines.append(f"| `{spec['id']}` | {spec['text']} | {text} | {numbers} |")

    def table_means(self, table_id, procedure):
        t = self.tables[table_id]
        means = {}
        for (dataset, learner), cell in t["cells"].items():
            chosen = getattr(cell, procedure, None) if cell.present else None
            if chosen:
                means.setdefault(dataset, {})[learner] = chosen
        return t, means

    def better(self, t, a, b):
        """Whether value a beats b in table t: its "goal" (max or min), else its protocol's selection goal."""
        maximize = t["spec"]["goal"] == "max" if "goal" in t["spec"] else t["trace"].maximize
        return a > b if maximize else a < b

    def claim_best(self, spec):
        """`learner` has the best mean (the table's goal: max or min) among `among` (default: all the table's
        learners) on at least `at_least` of `datasets` (default: all; both default to every one); with "or_tied",
        a dataset also counts when a Welch t-test at 5% does not put the learner below the best."""
        t, means = self.table_means(spec["table"], spec.get("procedure", "held_out"))
        learner, scale = spec["learner"], t["spec"].get("scale", 1)
        count, parts = 0, []
        for dataset, by_learner in means.items():
            if learner not in by_learner or dataset not in spec.get("datasets", [dataset]):
                continue
            best = self.best_of(t, by_learner, spec.get("among", list(by_learner)))
            ok = best == learner
            note = ""
            if not ok and spec.get("or_tied"):
                ok, p = within_noise(by_learner[learner]["values"], by_learner[best]["values"])
                note = f", p = {p:.2g} against {best}"
            count += ok
            parts.append(f"{dataset}: {learner} {by_learner[learner]['mean'] * scale:.{self.digits(t)}f} vs best {best} "
                         f"{by_learner[best]['mean'] * scale:.{self.digits(t)}f}{note} ({'yes' if ok else 'no'})")
        need = spec.get("at_least", len(parts))
        return count >= need and bool(parts), f"{count} of {len(parts)} datasets (needs {need}): " + "; ".join(parts)

    def best_of(self, t, by_learner, names):
        """The learner among `names` with the best mean in table t (the first on ties); None if none is there."""
        best = None
        for name in names:
            if name in by_learner and (best is None or self.better(t, by_learner[name]["mean"], by_learner[best]["mean"])):
                best = name
        return best

    def digits(self, t):
        return t["spec"].get("digits", 1)

    def claim_group_better(self, spec):
        """The best of the `better` learners beats the best of the `worse` ones (the table's goal) on at least
        `at_least` of `datasets` (default: all), in each of `tables`; with "or_tied", a dataset also counts when a
        Welch t-test at 5% does not put the worse group's best ahead (the ordering the claim needs is within noise)."""
        count, parts = 0, []
        for table_id in spec["tables"]:
            t, means = self.table_means(table_id, spec.get("procedure", "held_out"))
            scale = t["spec"].get("scale", 1)
            for dataset, by_learner in means.items():
                if dataset not in spec.get("datasets", [dataset]):
                    continue
                groups = [self.best_of(t, by_learner, names) for names in (spec["better"], spec["worse"])]
                if None in groups:
                    continue
                a, b = (by_learner[g]["mean"] for g in groups)
                ok = self.better(t, a, b)
                note = ""
                if not ok and spec.get("or_tied"):
                    ok, p = within_noise(by_learner[groups[0]]["values"], by_learner[groups[1]]["values"])
                    note = f", p = {p:.2g}"
                count += ok
                parts.append(f"{table_id} {dataset}: {groups[0]} {a * scale:.{self.digits(t)}f} vs {groups[1]} "
                             f"{b * scale:.{self.digits(t)}f}{note} ({'yes' if ok else 'no'})")
        need = spec.get("at_least", len(parts))
        return count >= need and bool(parts), f"{count} of {len(parts)} (needs {need}): " + "; ".join(parts)

    def claim_monotone(self, spec):
        """Each of `learners` has its table value falling (`direction` "decreasing") or rising along `datasets`, in the
        order given (e.g. a growing labelled rate); with "or_tied", a step the wrong way also counts when a Welch
        t-test at 5% finds it within noise."""
        t, means = self.table_means(spec["table"], spec.get("procedure", "held_out"))
        scale, falling = t["spec"].get("scale", 1), spec.get("direction", "decreasing") == "decreasing"
        count, parts = 0, []
        for learner in spec["learners"]:
            series = [means.get(d, {}).get(learner) for d in spec["datasets"]]
            if None in series:
                continue
            values = [c["mean"] for c in series]
            steps = [(b < a) if falling else (b > a) for a, b in zip(values, values[1:])]
            tied = [not step and spec.get("or_tied") and within_noise(x["values"], y["values"])[0]
                    for step, x, y in zip(steps, series, series[1:])]
            ok = all(step or tie for step, tie in zip(steps, tied))
            count += ok
            parts.append(f"{learner}: " + (" > " if falling else " < ").join(
                f"{v * scale:.{self.digits(t)}f}" for v in values) + (" (a step the wrong way within noise)"
                                                                      if ok and any(tied) else "" if ok else " (no)"))
        need = spec.get("at_least", len(parts))
        return count >= need and bool(parts), f"{count} of {len(parts)} learners (needs {need}): " + "; ".join(parts)

    def claim_most_stable(self, spec):
        """`learner`'s std over trials is the smallest of the table's learners on at least `at_least` datasets: the
        std of the final value, or with "curve" the std at each point of that curve averaged along it (the mean
        width of a learning-curve figure's shaded band)."""
        t, means = self.table_means(spec["table"], spec.get("procedure", "held_out"))
        learner, scale = spec["learner"], t["spec"].get("scale", 1)
        spread = {}
        for dataset, by_learner in means.items():
            for name, chosen in by_learner.items():
                if "curve" not in spec:
                    spread[(dataset, name)] = chosen["std"]
                    continue
                series = t["trace"].curves(chosen["runs"], spec["curve"])
                length = min(len(v) for _, v in series)
                spread[(dataset, name)] = sum(mean_std([v[i] for _, v in series])[1] for i in range(length)) / length
        count, parts = 0, []
        for dataset, by_learner in means.items():
            if learner not in by_learner:
                continue
            smallest = min(by_learner, key=lambda name: spread[(dataset, name)])
            ok = spread[(dataset, learner)] <= spread[(dataset, smallest)]
            count += ok
            parts.append(f"{dataset}: {spread[(dataset, learner)] * scale:.2f} vs smallest {smallest} "
                         f"{spread[(dataset, smallest)] * scale:.2f}")
        need = spec.get("at_least", len(parts))
        return count >= need and parts, f"{count} of {len(parts)} datasets (needs {need}): " + "; ".join(parts)

    def sensitivity(self, spec):
        """series name -> list of (dataset, {param value: (mean, std)}) in the figure's noise order."""
        trace = self.traces[spec["protocol"]]
        metric = spec.get("metric", trace.selection_metric)
        report_seeds, _ = self.seeds(spec)
        groups = trace.groups(metric)
        out = {}
        for series in spec["series"]:
            levels = []
            for dataset in series["datasets"]:
                by_value = {}
                for (d, label), points in groups.items():
                    if d != dataset or label != spec["learner"]:
                        continue
                    for params, by_seed in points.items():
                        value = json.loads(params.split(" ", 1)[-1])[spec["param"]]
                        by_value[value] = mean_std([by_seed[s][0] for s in report_seeds if s in by_seed])
                levels.append((dataset, dict(sorted(by_value.items()))))
            out[series["name"]] = (series, levels)
        return out

    def figure_spec(self, figure_id):
        return next(f for f in self.paper["figures"] if f["id"] == figure_id)

    def claim_noise_lowers_accuracy(self, spec):
        """In every series, the best accuracy over the parameter falls as the noise grows."""
        parts, ok = [], True
        for figure_id in spec["figures"]:
            for name, (series, levels) in self.sensitivity(self.figure_spec(figure_id)).items():
                best = [max(m for m, _ in by.values()) for _, by in levels if by]
                falls = all(b >= a for a, b in zip(best[1:], best))
                ok &= falls
                parts.append(f"{name}: " + " > ".join(f"{b * 100:.1f}" for b in best) + ("" if falls else " (not monotone)"))
        return ok, "best accuracy per noise level: " + "; ".join(parts)

    def best_values(self, levels):
        return [max(by, key=lambda v: by[v][0]) for _, by in levels if by]

    def claim_smaller_parameter_under_noise(self, spec):
        """In every series the best parameter at the noisiest level is no larger than without noise and lies in the
        guaranteed range (0, bound), bound given per series."""
        parts, count, total = [], 0, 0
        for figure_id in spec["figures"]:
            for name, (series, levels) in self.sensitivity(self.figure_spec(figure_id)).items():
                best = self.best_values(levels)
                bound = series["bound"]
                ok = best[-1] <= best[0] and best[-1] < bound
                total += 1
                count += ok
                parts.append(f"{name}: best {spec['param']} {' -> '.join(f'{b:g}' for b in best)} "
                             f"(range (0, {bound:.3g})){'' if ok else ' (no)'}")
        need = spec.get("at_least", total)
        return count >= need, f"{count} of {total} series (needs {need}): " + "; ".join(parts)

    def claim_clean_prefers_outside_range(self, spec):
        """On some series without noise, the best parameter lies at or above the guaranteed range's bound."""
        parts, count = [], 0
        for figure_id in spec["figures"]:
            for name, (series, levels) in self.sensitivity(self.figure_spec(figure_id)).items():
                best = self.best_values(levels)[0]
                count += best >= series["bound"]
                parts.append(f"{name}: {best:g} vs bound {series['bound']:.3g}")
        return count >= 1, f"{count} series: " + "; ".join(parts)

    # ---- figures

    def figure(self, spec):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        kind = spec["kind"]
        if kind == "curves":
            panels = self.curve_panels(spec)
        elif kind == "across_datasets":
            panels = self.across_panels(spec)
        elif kind == "regret_ratio":
            panels = self.ratio_panels(spec)
        else:
            panels = self.sensitivity_panels(spec)
        columns = min(3, len(panels))
        rows = (len(panels) + columns - 1) // columns
        fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.2 * rows), squeeze=False)
        for ax, (title, draw) in zip(axes.flat, panels):
            draw(ax)
            ax.set_title(title, fontsize=10)
            ax.grid(alpha=0.3)
        for ax in list(axes.flat)[len(panels):]:
            ax.axis("off")
        axes.flat[0].legend(fontsize=7)
        fig.tight_layout()
        self.img_dir.mkdir(parents=True, exist_ok=True)
        names = []
        matplotlib.rcParams["svg.hashsalt"] = "glimpse"  # the same figure, the same file: no churn in git
        for ext in ("png", "svg"):
            path = self.img_dir / f"{spec['id']}.{ext}"
            fig.savefig(path, dpi=110, metadata={"Date": None} if ext == "svg" else {"Software": None})
            names.append(os.path.relpath(path, self.out_dir))
        plt.close(fig)
        self.lines.append(f"### {spec['title']}\n")
        trials = len(self.seeds(spec)[0]) if "report_seeds" in spec else len(self.seeds(
            self.tables[spec["table"]]["spec"] if "table" in spec else
            next(t for t in self.paper["ratio_tables"] if t["id"] == spec["tables"][0]))[0])
        # A regret-ratio figure shows 95% intervals (its caption says so), the others one std.
        spread = f"{trials} trials." if spec["kind"] == "regret_ratio" else f"Mean and std over {trials} trials."
        self.lines.append(spec.get("caption", "") + f" {spread}\n")
        self.lines.append(f"![{spec['title']}]({names[0]}) ([SVG]({names[1]}))\n")

    def curve_panels(self, spec):
        t = self.tables[spec["table"]]
        trace, cells = t["trace"], t["cells"]
        procedure = spec.get("procedure", "held_out")
        panels = []
        for dataset, title in t["spec"]["datasets"].items():
            def draw(ax, dataset=dataset):
                for learner, learner_title in t["spec"]["learners"].items():
                    cell = cells.get((dataset, learner))
                    chosen = getattr(cell, procedure, None) if cell and cell.present else None
                    if not chosen:
                        continue
                    series = trace.curves(chosen["runs"], spec["curve"])
                    length = min(len(v) for _, v in series)
                    rounds = series[0][0][:length]
                    values = [[v[i] * 100 for _, v in series] for i in range(length)]
                    means = [sum(v) / len(v) for v in values]
                    stds = [mean_std(v)[1] for v in values]
                    ax.plot(rounds, means, label=learner_title, linewidth=1)
                    ax.fill_between(rounds, [max(0, m - s) for m, s in zip(means, stds)],
                                    [min(100, m + s) for m, s in zip(means, stds)], alpha=0.2)
                ax.set_xlabel(spec.get("xlabel", "round"))
                ax.set_ylabel(spec.get("ylabel", "% correct proposals"))
            panels.append((title, draw))
        return panels

    def ratio_panels(self, spec):
        """One panel per ratio table: each learner's mean regret ratio (95% interval) against its mean queries."""
        import plot_report

        panels = []
        for table_id in spec["tables"]:
            table_spec, groups = self.ratio_groups(table_id)

            def draw(ax, groups=groups, table_spec=table_spec):
                plot_report.draw_regret_ratio(ax, groups, table_spec.get("passive", "passive"),
                                              trials=spec.get("trials", False))

            panels.append((table_spec["title"], draw))
        return panels

    def across_panels(self, spec):
        """One panel: the table's metric (mean and std, held-out selection) per learner against the value `x[i]` that
        stands for the table's i-th dataset (e.g. the labelled rate)."""
        t, means = self.table_means(spec["table"], spec.get("procedure", "held_out"))
        scale = t["spec"].get("scale", 1)

        def draw(ax):
            for learner, title in t["spec"]["learners"].items():
                points = [(x, means[d][learner]) for x, d in zip(spec["x"], t["spec"]["datasets"])
                          if learner in means.get(d, {})]
                xs = [x for x, _ in points]
                ms = [c["mean"] * scale for _, c in points]
                ss = [c["std"] * scale for _, c in points]
                ax.errorbar(xs, ms, yerr=ss, marker=".", capsize=3, label=title, linewidth=1)
            ax.set_xlabel(spec.get("xlabel", ""))
            ax.set_ylabel(spec.get("ylabel", ""))

        return [(spec.get("panel_title", ""), draw)]

    def sensitivity_panels(self, spec):
        panels = []
        for name, (series, levels) in self.sensitivity(spec).items():
            def draw(ax, series=series, levels=levels):
                for (dataset, by), level in zip(levels, series["levels"]):
                    xs = list(by)
                    ms = [by[x][0] * 100 for x in xs]
                    ss = [by[x][1] * 100 for x in xs]
                    ax.plot(xs, ms, marker=".", label=level, linewidth=1)
                    ax.fill_between(xs, [m - s for m, s in zip(ms, ss)], [m + s for m, s in zip(ms, ss)], alpha=0.15)
                ax.axvspan(0, series["bound"], color="red", alpha=0.08)
                ax.set_xlabel(spec["param"])
                ax.set_ylabel("% correct")
            panels.append((series["title"], draw))
        return panels


def seed_text(seeds):
    if not seeds:
        return "none"
    if seeds == list(range(seeds[0], seeds[-1] + 1)) and len(seeds) > 2:
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(str(s) for s in seeds)


def git_commit(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
        # The pages themselves do not count: they are what is being regenerated.
        dirty = [line for line in subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                                                 capture_output=True, text=True).stdout.splitlines()
                 if " docs/results/" not in line]
        return out.stdout.strip() + (" (with uncommitted changes)" if dirty else "") if out.returncode == 0 else "unknown"
    except OSError:
        return "unknown"


def write_page(root, paper_id, paper, run_info, glimpse, args, inputs, total_seconds):
    paper_dir = root / "protocols" / paper_id
    explanations_file = paper_dir / "explanations.json"
    explanations = load_json(explanations_file) if explanations_file.exists() else {}
    out_file = output_page(root, paper_id, args)
    out_dir = out_file.parent
    img_dir = out_dir / "img" / paper_id
    traces = {name: Trace(info["file"]) for name, info in run_info.items()}
    page = Page(root, paper_id, paper, traces, run_info, explanations, args.quick, out_dir, img_dir)
    body = page.lines
    for spec in paper.get("tables", []):
        page.table(spec)
    for spec in paper.get("ratio_tables", []):
        page.ratio_table(spec)
    if paper.get("claims"):
        body.append(f"## {paper.get('claims_title', 'The paper' + chr(39) + 's claims, computed')}\n")
        body.append("| id | the paper says | verdict | measured |")
        body.append("|---|---|---|---|")
        for spec in paper["claims"]:
            page.claim(spec)
        body.append("")
    if paper.get("figures"):
        body.append("## Figures\n")
        for spec in paper["figures"]:
            page.figure(spec)
    if page.used_explanations:
        body.append("## Explanations\n")
        body.append(f"Attached to cells and claims in `protocols/{paper_id}/explanations.json`; each says which run "
                    "shows it.\n")
        for i, key in enumerate(page.used_explanations, 1):
            e = explanations[key]
            body.append(f"- **[E{i}]** `{key}`: {e['text']}" + (f" Shown by: {e['shown_by']}" if e.get("shown_by") else "")
                        + (" *(a guess, not measured)*" if e.get("guess") else ""))
        body.append("")
    if paper.get("not_reproduced"):
        body.append("## Not reproduced here\n")
        for item in paper["not_reproduced"]:
            body.append(f"- {item}")
        body.append("")

    c = page.counts
    head = [f"# {paper['title']}: reproduced by glimpse\n",
            f"*Generated by `glimpse reproduce {paper_id}{' --quick' if args.quick else ''}`: do not edit this page. "
            f"The paper's numbers and claims are in `protocols/{paper_id}/paper.json`, explanations in "
            f"`protocols/{paper_id}/explanations.json`; change those or the protocols, then regenerate.*\n",
            f"Paper: {paper['citation']}.\n",
            "| generated | glimpse | commit | this invocation's wall time | threads |",
            "|---|---|---|---|---|",
            f"| {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')} | {glimpse.version()} | "
            f"{git_commit(root)} | {total_seconds:.0f} s | {args.threads or os.cpu_count()} |\n"]
    if args.quick:
        head.append("**--quick**: a few trials on a share of each dataset's rows, to exercise the path; the numbers "
                    "mean nothing.\n")
    head.append(f"**Cells**: {c['within 1 std']} within 1 paper std, {c['within 2 std']} within 2, "
                f"{c['outside 2 std']} outside ({sum(1 for k in page.unexplained if k.count('/') == 2)} unexplained); "
                f"{c['no paper number']} with no paper number. **Claims**: {page.claims['holds']} hold, "
                f"{page.claims['fails']} fail.\n")
    head.append("Commands (each resumes where it stopped; the whole page: `glimpse reproduce " + paper_id +
                (" --quick" if args.quick else "") + "`):\n")
    head.append("| protocol | command | runs | failed | wall time (all invocations) | sum of the runs' own times |")
    head.append("|---|---|---|---|---|---|")
    total_wall = total_runs = 0.0
    for name, info in run_info.items():
        rows = traces[name].rows
        failed = sum(1 for r in rows if r["status"] != "complete")
        own = sum(float(r["seconds"]) for r in rows)
        total_wall += info["seconds"]
        total_runs += own
        head.append(f"| {name} | `{info['command']}` | {len(rows)} | {failed} | {info['seconds']:.0f} s | {own:.0f} s |")
    head.append(f"| all | | {sum(len(t.rows) for t in traces.values())} | | **{total_wall:.0f} s** | {total_runs:.0f} s |")
    head.append("")
    fingerprint = {"paper": paper_id, "quick": args.quick, "inputs": inputs}
    text = "\n".join(head + body) + "\n" + MARKER + json.dumps(fingerprint, sort_keys=True) + " -->\n"
    out_dir.mkdir(parents=True, exist_ok=True)
    out_file.write_text(text)
    print(f"wrote {out_file} ({c['outside 2 std']} cells outside 2 std, {len(page.unexplained)} unexplained)",
          file=sys.stderr)
    return page.unexplained


def main():
    parser = argparse.ArgumentParser(prog="glimpse reproduce", description=__doc__.split("\n")[0])
    parser.add_argument("paper", nargs="?", help="the paper (a folder protocols/PAPER with a paper.json)")
    parser.add_argument("--glimpse", required=True, help=argparse.SUPPRESS)
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--page-only", action="store_true")
    parser.add_argument("-j", "--threads", type=int, default=0)
    parser.add_argument("--shard")
    parser.add_argument("--mpi", metavar="LAUNCHER", help="e.g. 'mpirun -n 8': run every sweep under it with --mpi")
    parser.add_argument("--processes", type=int, help="local processes per sweep (glimpse run --processes)")
    parser.add_argument("--root", default=".")
    parser.add_argument("--out")
    parser.add_argument("--runs")
    args = parser.parse_args()
    root = Path(args.root).resolve()
    glimpse = Glimpse(args.glimpse)
    if args.list:
        return list_papers(root, glimpse, args.strict)
    found = papers(root)
    if not args.paper:
        fail("name a paper (" + ", ".join(found) + ") or --list")
    if args.paper not in found:
        fail(f"unknown paper '{args.paper}'; {root / 'protocols'} has: " + (", ".join(found) or "none"))
    paper = load_json(found[args.paper])
    if "generator" in paper:
        if args.page_only or args.shard:
            fail(f"{args.paper}: its page is written by {paper['generator']['command']}, which has no --page-only "
                 "or --shard: run 'glimpse reproduce " + args.paper + "'")
        return run_generator(root, args.paper, paper, glimpse, args)
    if args.quick and "quick" not in paper:
        fail(f"{found[args.paper]}: no \"quick\" entry (report_seeds, selection_seeds, keep_fraction)")
    start = time.monotonic()
    if args.page_only:
        runs_dir = runs_folder(root, args.paper, args)
        run_info = {}
        for name in paper["protocols"]:
            file = runs_dir / (Path(name).stem + ".h5")
            if not file.exists():
                fail(f"{file}: missing; run 'glimpse reproduce {args.paper}' first")
            timing = runs_dir / (Path(name).stem + ".time.json")
            spent = json.loads(timing.read_text())["wall_seconds"] if timing.exists() else math.nan
            run_info[name] = {"file": file, "seconds": spent, "status": 0,
                              "command": f"glimpse run protocols/{args.paper}/{name} -o {os.path.relpath(file, root)}"}
    else:
        run_info = run_protocols(root, args.paper, paper, glimpse, args)
    if args.shard:
        print("shard done: merge the shards of each protocol with 'glimpse merge', then 'glimpse reproduce "
              f"{args.paper} --page-only'", file=sys.stderr)
        return 0
    inputs = paper_inputs(found[args.paper].parent, paper, glimpse, args.quick)
    unexplained = write_page(root, args.paper, paper, run_info, glimpse, args, inputs, time.monotonic() - start)
    if args.strict and unexplained:
        print("--strict: unexplained: " + ", ".join(unexplained), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
