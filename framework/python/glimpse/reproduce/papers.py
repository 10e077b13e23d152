"""A paper as the repository declares it: protocols/PAPER/paper.json (its tables, claims, figures and the paper's
numbers), explanations.json, and the protocols the page is made from, in their full and --quick forms."""
import json
from pathlib import Path

from .common import fail, load_json

# Whose a claim is: the paper's as stated, the paper's on a stand-in dataset, or the project's own check.
CLAIM_SOURCES = ("paper", "paper_stand_in", "project")


def papers(root):
    """paper id -> its paper.json, for every protocols/*/paper.json under `root`."""
    return {path.parent.name: path for path in sorted((root / "protocols").glob("*/paper.json"))}


class Paper:
    def __init__(self, root, paper_id):
        self.root, self.id = root, paper_id
        self.dir = root / "protocols" / paper_id
        path = self.dir / "paper.json"
        if not path.exists():
            found = ", ".join(papers(root)) or "none"
            fail(f"unknown paper '{paper_id}'; {root / 'protocols'} has: {found}")
        self.spec = load_json(path)
        explanations = self.dir / "explanations.json"
        self.explanations = load_json(explanations) if explanations.exists() else {}

    @property
    def generator(self):
        """A page another program writes (e.g. benchmarks/compare_vw.sh), or None."""
        return self.spec.get("generator")

    def protocol_names(self):
        return list(self.spec.get("protocols", []))

    def protocol(self, name, quick):
        """The protocol `name` as a dict, in its --quick form when `quick`."""
        protocol = load_json(self.dir / name)
        if quick:
            if "quick" not in self.spec:
                fail(f"{self.dir / 'paper.json'}: no \"quick\" entry (report_seeds, selection_seeds, keep_fraction)")
            protocol = quick_protocol(protocol, self.spec["quick"], self.dir)
        return protocol

    def protocol_text(self, name, quick):
        """The text the sweep of `name` runs: the file's own, or the --quick form's."""
        return quick_text(self.protocol(name, True)) if quick else (self.dir / name).read_text()

    def seeds(self, spec, quick):
        """(reported seeds, selection seeds) of a table or figure spec."""
        source = self.spec["quick"] if quick else spec
        return list(source["report_seeds"]), list(source.get("selection_seeds", []))

    def page_path(self):
        return self.root / "docs" / "results" / (self.id + ".md")

    def ledger_path(self, page_path):
        return page_path.with_name(page_path.stem + ".cells.csv")

    def check(self):
        """Refuses a paper.json whose tables, claims or explanations name what it does not declare, naming the entry."""
        where = self.dir / "paper.json"
        tables = {t["id"] for t in self.spec.get("tables", []) + self.spec.get("ratio_tables", [])}
        for i, t in enumerate(self.spec.get("tables", []) + self.spec.get("ratio_tables", [])):
            if t.get("protocol") not in self.protocol_names():
                fail(f"{where}: table '{t.get('id')}': protocol '{t.get('protocol')}' is not among \"protocols\"")
        for c in self.spec.get("claims", []):
            if c.get("source") not in CLAIM_SOURCES:
                fail(f"{where}: claim '{c.get('id')}': expected \"source\": \"paper\" (the paper's statement), "
                     "\"paper_stand_in\" (the paper's statement tested on a stand-in dataset) or \"project\" (a check "
                     f"of the project's own), got {c.get('source')!r}")
            for key in ("table", "than") if c.get("check") == "regret_higher_than" else ("table",):
                if key in c and c[key] not in tables:
                    fail(f"{where}: claim '{c['id']}': {key} '{c[key]}' is not a table of this paper")
            for t in c.get("tables", []):
                if t not in tables:
                    fail(f"{where}: claim '{c['id']}': table '{t}' is not a table of this paper")


def plugin_entries(protocol):
    """(kind of entry, the entry) for every plugin a protocol names: learners, their oracles and query rules, the
    protocol's oracle and query rule, metrics, each dataset's source (its entry's "params") and transforms."""
    entries = []

    def named(kind, entry):
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            entries.append((kind, entry))

    for key in ("oracle", "query_rule"):
        named(key, protocol.get(key))
    for learner in protocol.get("learners", []):
        named("learner", learner)
        named("oracle", learner.get("oracle"))
        named("query_rule", learner.get("query_rule"))
    for metric in protocol.get("metrics", []):
        named("metric", metric)
    for part in dataset_parts(protocol):
        if isinstance(part.get("source"), str):
            entries.append(("source", {"name": part["source"], "params": part.get("params", {})}))
        for transform in part.get("transforms", []):
            named("transform", transform)
    return entries


def dataset_parts(protocol):
    """Every dataset entry and its held-out part ("test")."""
    parts = []
    for dataset in protocol.get("datasets", []):
        parts.append(dataset)
        if isinstance(dataset.get("test"), dict):
            parts.append(dataset["test"])
    return parts


def installed_names(protocol):
    """The installed datasets a protocol reads ({"name": X} without a source, or {"dataset": X})."""
    names = set()
    for part in dataset_parts(protocol):
        if "dataset" in part:
            names.add(part["dataset"])
        elif "source" not in part and "name" in part:
            names.add(part["name"])
    return names


def quick_protocol(protocol, quick, paper_dir):
    """The --quick form: the quick seeds, each dataset cut to a stratified share of its rows per seed (and draws
    with replacement to that share of their rounds), and with "max_grid_values" N every grid list longer than N cut
    to N values spread from its first to its last (the paper's full grids in minutes). It is written elsewhere, so a
    parameter naming a file beside the protocol becomes that file's absolute path."""
    def absolute(value, in_params=False):
        if isinstance(value, dict):
            return {k: absolute(v, in_params or k in ("params", "grid")) for k, v in value.items()}
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


def runs_folder(root, paper_id, runs, quick):
    base = Path(runs).resolve() if runs else root / "runs" / "reproduce"
    return base / ("quick" if quick else "full") / paper_id
