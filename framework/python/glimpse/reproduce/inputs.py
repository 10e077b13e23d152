"""A page's fingerprint: everything that can move one of its numbers. Per protocol: its text, each plugin it runs
(named in it, or as a wrapped learner's value or default) with its arithmetic revision and its whole parameter
declaration (names, types, defaults, ranges, choices), every file a parameter of type path names (its content), and
each installed dataset's catalog entry. For the page: paper.json, explanations.json, the generator (this package's
source) and the core (its arithmetic revision: stream keys, orders, splits; and the build's arithmetic). A page is up
to date when the fingerprint it carries equals the tree's."""
import json
import os
import subprocess
from pathlib import Path

from .common import MARKER, fail, sha
from .papers import installed_names, plugin_entries


def generator_fingerprint():
    """The page generator's own source: every module of the glimpse Python package."""
    package = Path(__file__).resolve().parent.parent
    text = ""
    for path in sorted(package.rglob("*.py")):
        text += str(path.relative_to(package)) + "\n" + path.read_text()
    return sha(text)


def core_fingerprint(glimpse):
    identity = glimpse.identity()
    return {"core_arithmetic": identity["core_arithmetic"], "build_arithmetic": identity["build_arithmetic"]}


def catalog_entries(root):
    path = root / "datasets" / "catalog.json"
    if not path.exists():
        return {}
    return {entry["name"]: entry for entry in json.loads(path.read_text()).get("datasets", [])}


def protocol_inputs(protocol, text, base_dir, root, glimpse):
    """What one protocol's numbers depend on (see the module's text)."""
    plugins = glimpse.plugins()
    used, files = {}, {}

    def declaration(name):
        plugin = plugins.get(name)
        if name not in used:
            used[name] = ({"revision": plugin["revision"],
                           "declaration": sha(json.dumps(plugin.get("params", []), sort_keys=True))}
                          if plugin else None)
        return {p["name"]: p for p in plugin.get("params", [])} if plugin else {}

    def read_file(written):
        path = Path(written) if os.path.isabs(written) else base_dir / written
        try:
            key = str(path.resolve().relative_to(root))
        except ValueError:
            key = str(path.resolve())
        files[key] = sha(path.read_bytes()) if path.is_file() else None

    def values_of(entry, key):
        given = [entry.get("params", {}).get(key)] + list(entry.get("grid", {}).get(key, []))
        return [v for v in given if v is not None]

    def follow(entry, prefix, declared):
        for name, spec in declared.items():
            key = prefix + name
            values = values_of(entry, key)
            if spec.get("type") == "path":
                for value in values:
                    if isinstance(value, str) and value:
                        read_file(value)
            elif spec.get("type") == "learner":
                for value in values or [spec.get("default")]:
                    if isinstance(value, str) and value:
                        follow(entry, key + ".", declaration(value))

    for _, entry in plugin_entries(protocol):
        follow(entry, "", declaration(entry["name"]))
    catalog = catalog_entries(root)
    datasets = {name: sha(json.dumps(catalog[name], sort_keys=True)) if name in catalog else None
                for name in sorted(installed_names(protocol))}
    return {"protocol": sha(text), "plugins": dict(sorted(used.items())), "files": dict(sorted(files.items())),
            "datasets": datasets}


def paper_inputs(paper, glimpse, quick):
    """The fingerprint of a paper's page (a page of protocols; generator pages: generator_inputs)."""
    if paper.generator:
        return generator_inputs(paper, glimpse, quick)
    inputs = {"paper.json": sha((paper.dir / "paper.json").read_text())}
    explanations = paper.dir / "explanations.json"
    inputs["explanations.json"] = sha(explanations.read_text()) if explanations.exists() else None
    inputs["generator"] = generator_fingerprint()
    inputs["core"] = core_fingerprint(glimpse)
    for name in paper.protocol_names():
        inputs[name] = protocol_inputs(paper.protocol(name, quick), paper.protocol_text(name, quick), paper.dir,
                                       paper.root, glimpse)
    for differential in paper.spec.get("differentials", []):
        output = paper.root / differential["output"]
        inputs[differential["output"]] = sha(output.read_bytes()) if output.exists() else None
    return inputs


def generator_datasets(generator, quick):
    """The datasets a generator page measures, full or --quick."""
    part = generator.get("quick", {}) if quick else generator
    return part.get("datasets", generator.get("datasets", []))


def generator_args(generator, quick):
    """A generator page's options and datasets, full or --quick."""
    return (generator.get("quick", {}) if quick else generator).get("args", []) + generator_datasets(generator, quick)


def generator_inputs(paper, glimpse, quick):
    """Fingerprint of a page another program writes: paper.json, that program's files and arguments, the plugins
    it runs (it lists them with --plugins) with their revisions and declarations, and the core."""
    generator = paper.generator
    text = json.dumps(generator_args(generator, quick))
    for name in [generator["command"]] + generator.get("inputs", []):
        text += (paper.root / name).read_text()
    out = subprocess.run([str(paper.root / generator["command"]), "--plugins"], capture_output=True, text=True,
                         env=dict(os.environ, GLIMPSE=glimpse.executable))
    if out.returncode != 0:
        fail(f"{generator['command']} --plugins failed: {out.stderr.strip()}")
    plugins = {}
    for name in sorted(json.loads(out.stdout)):
        plugin = glimpse.plugins().get(name)
        plugins[name] = ({"revision": plugin["revision"],
                          "declaration": sha(json.dumps(plugin.get("params", []), sort_keys=True))} if plugin else None)
    return {"paper.json": sha((paper.dir / "paper.json").read_text()), "core": core_fingerprint(glimpse),
            generator["command"]: {"protocol": sha(text), "plugins": plugins}}


def recorded_inputs(page):
    """The fingerprint a page carries, or None (no page, or one never generated)."""
    if not page.exists():
        return None
    for line in page.read_text().splitlines():
        if line.startswith(MARKER):
            return json.loads(line[len(MARKER):-len(" -->")])
    return None


def differences(old, new, where=""):
    """What changed between two fingerprints, in words: "table3.json: plugins: ps3vt: parameter declaration changed"."""
    if not where and isinstance(old, dict) and isinstance(new, dict) and ("core" in new) != ("core" in old):
        return ["made by an older page generator, whose fingerprint covered less"]
    changed = []
    if not isinstance(old, dict) or not isinstance(new, dict):
        if old != new:
            what = "added" if old is None else "removed" if new is None else "changed"
            changed.append(f"{where.rstrip(': ') or 'fingerprint'} {what}")
        return changed
    for key in sorted(set(old) | set(new), key=str):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        label = {"protocol": "edited", "generator": "the page generator edited", "paper.json": "paper.json edited",
                 "explanations.json": "explanations.json edited"}.get(key)
        if label and not isinstance(a, dict) and not isinstance(b, dict) and a is not None and b is not None:
            changed.append(f"{where}{label}" if key == "protocol" else label)
        elif key in ("revision", "declaration") and a is not None and b is not None:
            changed.append(f"{where}{key} {a} -> {b}" if key == "revision" else f"{where}parameter declaration changed")
        else:
            changed += differences(a, b, f"{where}{key}: ")
    return changed
