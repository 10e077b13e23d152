#!/usr/bin/env bash
# docs/writing-a-plugin.md, section 2b, followed literally: glimpse installed into a clean prefix, the page's
# file blocks written into an empty folder, its command block run as it stands. The doc cannot drift from
# what works.
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$BUILD_DIR" --prefix "$work/prefix" > "$work/install.log"
mkdir "$work/recipe"
/usr/bin/python3 - "$SOURCE_DIR/docs/writing-a-plugin.md" "$work/recipe" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"<!-- (file: (\S+)|commands) -->\n```[a-z]*\n(.*?)```", text, re.S)
files = 0
for marker, name, body in blocks:
    path = sys.argv[2] + "/" + (name if name else "commands.sh")
    open(path, "w").write(body)
    files += bool(name)
assert files == 3 and any(not name for _, name, _ in blocks), f"expected 3 files and a command block, got {blocks}"
PY
cd "$work/recipe"
GLIMPSE_PREFIX="$work/prefix" bash -euo pipefail commands.sh > out.txt 2> err.txt || { cat out.txt err.txt; exit 1; }
grep -q "^greedy_banditron (learner, version 1.0, arithmetic revision 1)" out.txt
grep -q "epsilon .* exploration rate" out.txt
grep -qE "^gaussians +greedy_banditron +\{\"epsilon\":0\.(02|1),\"eta\":1\} +3 +[0-9.]+%" out.txt || { cat out.txt; exit 1; }
grep -qE "^gaussians +banditron " out.txt
echo "1 passed, 0 failed"
