#!/usr/bin/env bash
# docs/writing-a-plugin.md, sections 2b and 2c, followed literally: glimpse installed into a clean prefix, then the
# page's blocks taken in order in an empty folder: a `file:` block writes its file, an `append:` block adds to
# one, a `commands` block runs as it stands (its output into out1.txt, out2.txt, ...). The doc cannot drift from
# what works: the plugin builds, loads, describes itself and runs, and its unit test builds and passes.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$BUILD_DIR" --prefix "$work/prefix" > "$work/install.log"
mkdir "$work/recipe"
cd "$work/recipe"
GLIMPSE_PREFIX="$work/prefix" /usr/bin/python3 - "$SOURCE_DIR/docs/writing-a-plugin.md" <<'PY'
import re, subprocess, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- (?:(file|append): (\S+)|(commands)) -->\n```[a-z]*\n(.*?)```", text, re.S)
kinds = [kind or "commands" for kind, _, _, _ in blocks]
assert kinds.count("file") == 4 and kinds.count("append") == 1 and kinds.count("commands") == 2, kinds
commands = 0
for kind, name, _, body in blocks:
    if kind:
        with open(name, "w" if kind == "file" else "a") as f:
            f.write(body)
        continue
    commands += 1
    with open(f"out{commands}.txt", "w") as out, open(f"err{commands}.txt", "w") as err:
        if subprocess.run(["bash", "-euo", "pipefail", "-c", body], stdout=out, stderr=err).returncode != 0:
            sys.exit(f"commands block {commands} failed:\n" + open(f"out{commands}.txt").read() +
                     open(f"err{commands}.txt").read())
PY
grep -q "^greedy_banditron (learner, version 1.0, arithmetic revision 1)" out1.txt
grep -q "epsilon .* exploration rate" out1.txt
grep -qE "^gaussians +greedy_banditron +\{\"epsilon\":0\.(02|1),\"eta\":1\} +3 +[0-9.]+%" out1.txt || { cat out1.txt; exit 1; }
grep -qE "^gaussians +banditron " out1.txt
# The unit test of section 2c: its three tests ran and passed.
grep -q "100% tests passed, 0 tests failed out of 1" out2.txt || { cat out2.txt; exit 1; }
build/greedy_banditron_test > unit.txt || { cat unit.txt; exit 1; }
[ "$(grep -c '\[       OK \] GreedyBanditron\.' unit.txt)" = 3 ] || { cat unit.txt; exit 1; }
echo "1 passed, 0 failed"
