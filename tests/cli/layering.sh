#!/usr/bin/env bash
# The layering rules docs/architecture.md states, checked on the sources (no build needed):
# 1. No file of the core (framework/src, framework/include) includes a header of presentation/, cli/, testing/ or a
#    plugin.
# 2. The deepest chain of includes among the core's own files (public headers included) is at most 8 files.
# 3. No two modules of the core include each other's files. A module is a name's header and source (X.hpp, X.cpp);
#    a file without its pair whose name starts with a module's name and "_" is part of that module (protocol_json.hpp
#    of protocol, hdf5_table.cpp of hdf5).
# 4. The side libraries (presentation/, cli/, testing/) include from framework/src only the host headers named below.
# 5. No file under framework/ is over 500 lines; cli/main.cpp (it only dispatches) is under 150.
# 6. A plugin folder's tests need nothing from tests/ or the core's private headers: they include (by quotes) only
#    files of their own folder and installed headers (glimpse/testing.hpp, glimpse/testing_gtest.hpp, ...).
set -euo pipefail
cd "$SOURCE_DIR"
/usr/bin/python3 - << 'EOF'
import os
import re
import sys
from functools import lru_cache

HOST_HEADERS = {  # what the side libraries may include from framework/src
    "orchestrator.hpp", "sweep_plan.hpp", "protocol.hpp", "plugin_registry.hpp", "param_resolution.hpp",
    "summary.hpp", "trace_store.hpp", "trace_assembly.hpp", "shard.hpp", "sweep_profile.hpp", "round_profile.hpp",
    "prepared_dataset.hpp", "stream_keys.hpp", "hdf5.hpp", "hdf5_checks.hpp", "trace_schema.hpp", "file_lock.hpp",
}
failures = []
include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources(folder):
    for base, _, names in os.walk(folder):
        for name in names:
            if name.endswith((".hpp", ".cpp", ".h", ".in")):
                yield os.path.join(base, name)


def includes(path):
    with open(path, encoding="utf-8") as f:
        return include.findall(f.read())


src = {os.path.basename(p): p for p in sources("framework/src")}
public = {"glimpse/" + os.path.basename(p): p for p in sources("framework/include/glimpse")}
core = {**src, **public}
outside = {os.path.basename(p) for folder in ("framework/presentation", "framework/cli", "framework/testing",
                                               "plugins") for p in sources(folder)}

# 1
for name, path in core.items():
    for included in includes(path):
        if included not in core and os.path.basename(included) in outside:
            failures.append(f"{path}: includes \"{included}\", which is not the core's (rule 1)")

# 2
graph = {name: [i for i in includes(path) if i in core] for name, path in core.items()}


@lru_cache(maxsize=None)
def chain(name):
    longest = max((chain(i) for i in graph[name]), key=len, default=())
    return (name,) + longest


deepest = max((chain(name) for name in core), key=len)
print(f"deepest include chain in the core: {len(deepest)} files: {' -> '.join(deepest)}")
if len(deepest) > 8:
    failures.append(f"the include chain {' -> '.join(deepest)} is {len(deepest)} files, more than 8 (rule 2)")

# 3
stems = {os.path.splitext(n)[0] for n in src}
paired = {s for s in stems if f"{s}.hpp" in src and f"{s}.cpp" in src}


def module(name):
    stem = os.path.splitext(name)[0]
    if stem in paired:
        return stem
    owners = [p for p in paired if stem.startswith(p + "_")]
    return max(owners, key=len) if owners else stem


uses = {}
for name, path in src.items():
    for included in includes(path):
        if included in src and module(included) != module(name):
            uses.setdefault(module(name), set()).add(module(included))
for a, targets in sorted(uses.items()):
    for b in sorted(targets):
        if a < b and a in uses.get(b, set()):
            failures.append(f"modules {a} and {b} include each other's files (rule 3)")

# 4
for folder in ("framework/presentation", "framework/cli", "framework/testing"):
    for path in sources(folder):
        for included in includes(path):
            if included in src and included not in HOST_HEADERS:
                failures.append(f"{path}: includes the core's private \"{included}\"; side libraries include only "
                                f"the host headers {sorted(HOST_HEADERS)} (rule 4)")

# 5
for base, _, names in os.walk("framework"):
    for name in names:
        if name.endswith((".hpp", ".cpp", ".py", ".in")):
            path = os.path.join(base, name)
            with open(path, encoding="utf-8") as f:
                lines = sum(1 for _ in f)
            if lines > 500:
                failures.append(f"{path}: {lines} lines, over 500 (rule 5)")
            if path == "framework/cli/main.cpp" and lines >= 150:
                failures.append(f"{path}: {lines} lines; it only dispatches, so under 150 (rule 5)")

# 6
angle = re.compile(r'^\s*#\s*include\s+<([^>]+)>', re.M)
private = {os.path.basename(p) for folder in ("tests", "framework/src", "framework/cli", "framework/presentation")
           for p in sources(folder)}
for base, _, names in os.walk("plugins"):
    for name in names:
        if name.endswith("_test.cpp"):
            path = os.path.join(base, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for included in include.findall(text) + angle.findall(text):
                if included.startswith("glimpse/") or os.path.exists(os.path.join(base, included)):
                    continue
                if os.path.basename(included) in private:
                    failures.append(f"{path}: includes \"{included}\", which is neither its folder's nor an "
                                    f"installed header (rule 6)")

for failure in failures:
    print("FAILED:", failure, file=sys.stderr)
sys.exit(1 if failures else 0)
EOF
echo "1 passed, 0 failed"
