#!/usr/bin/env bash
# The repository stands on its own: no file refers to the project's working notes outside it (a folder named shared
# beside the clone, or its pages by name), since a user who clones glimpse does not have them; what a user needs (a
# method's specification, a dataset's provenance, how Vowpal Wabbit was built) is written here. And every learner's
# README states its update rule (a "## Method" section). The pattern spells the folder's slash [/] so that this file
# does not match itself.
set -euo pipefail
cd "$SOURCE_DIR"
fail() { echo "FAILED: $*" >&2; exit 1; }
notes='(\.\./shared|shared[/](ALGORITHMS|MODERN_BANDITS|DATASETS|FINDINGS|VW|STYLE|DESIGN)|(ALGORITHMS|MODERN_BANDITS|FINDINGS|DESIGN|STYLE|DATASETS|VW)\.md)'
files=$(git ls-files 2> /dev/null || find . -type f -not -path './build*' -not -path './.git/*')
hits=$(grep -lE "$notes" $files 2> /dev/null || true)
[ -z "$hits" ] || fail "these files refer to notes outside the repository: $hits"
for readme in plugins/learners/*/README.md; do
  [ "$(basename "$(dirname "$readme")")" = python ] && continue  # a family of user code, not a method
  grep -q '^## Method$' "$readme" || fail "$readme: no '## Method' section (the update rule, its symbols and parameters)"
done
echo "1 passed, 0 failed"
