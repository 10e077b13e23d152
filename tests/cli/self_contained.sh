#!/usr/bin/env bash
# The repository stands on its own: no file refers to the project's working notes outside it (a folder named shared
# beside the clone, or its pages by name), since a user who clones glimpse does not have them; what a user needs (a
# method's specification, a dataset's provenance, how Vowpal Wabbit was built) is written here. And every learner's
# README states its update rule (a "## Method" section). The pattern spells the folder's slash [/] so that this file
# does not match itself. And every repository path a document names (framework/..., plugins/..., docs/..., and the
# other top-level folders) is a file or folder in it: a test moved or a file renamed fails here until its citers
# follow. Left out: placeholders in capitals (plugins/learners/NAME, docs/results/PAPER.md), a page glimpse reproduce
# has yet to generate for a paper.json, and what a command shown beside it creates (glimpse new's my_learner).
set -euo pipefail
source "$(dirname "$0")/common.sh"
cd "$SOURCE_DIR"
notes='(\.\./shared|shared[/](ALGORITHMS|MODERN_BANDITS|DATASETS|FINDINGS|VW|STYLE|DESIGN)|(ALGORITHMS|MODERN_BANDITS|FINDINGS|DESIGN|STYLE|DATASETS|VW)\.md)'
files=$(git ls-files 2> /dev/null || find . -type f -not -path './build*' -not -path './.git/*')
hits=$(grep -lE "$notes" $files 2> /dev/null || true)
[ -z "$hits" ] || fail "these files refer to notes outside the repository: $hits"
for readme in plugins/learners/*/README.md; do
  [ "$(basename "$(dirname "$readme")")" = python ] && continue  # a family of user code, not a method
  grep -q '^## Method$' "$readme" || fail "$readme: no '## Method' section (the update rule, its symbols and parameters)"
done
/usr/bin/python3 - << 'PY' || fail "documents name paths that are not in the repository (above)"
import os, re, subprocess, sys
listing = subprocess.run(["git", "ls-files"], capture_output=True, text=True)
if listing.returncode != 0:  # not a git checkout (an unpacked archive): every file here is the repository
    listing.stdout = "\n".join(os.path.relpath(os.path.join(d, f)) for d, _, names in os.walk(".")
                                if not d.startswith(("./build", "./.git")) for f in names)
files = listing.stdout.split()
known = set(files) | {f.rsplit("/", i)[0] for f in files for i in range(1, f.count("/") + 1)}
known |= {f"docs/results/{paper}.md" for paper in os.listdir("protocols")
          if os.path.exists(f"protocols/{paper}/paper.json")}
known.add("plugins/learners/my_learner")  # docs/writing-a-plugin.md: what `glimpse new learner my_learner` creates
top = r"(?:framework|plugins|protocols|datasets|tests|tools|benchmarks|docs|examples|\.ci)"
pattern = re.compile(r"(?<![\w/.~$-])(" + top + r"/[A-Za-z0-9_./-]*[A-Za-z0-9_])")
missing = []
for document in (f for f in files if f.endswith(".md")):
    for number, line in enumerate(open(document), 1):
        for path in pattern.findall(line):
            if re.search(r"[A-Z]{2,}", path.replace("README", "").replace("CMakeLists", "")):
                continue  # a placeholder
            if path not in known:
                missing.append(f"{document}:{number}: {path} is not in the repository")
print("\n".join(missing), file=sys.stderr)
sys.exit(1 if missing else 0)
PY
echo "1 passed, 0 failed"
