#!/usr/bin/env bash
# Every plugin folder has a README.md in step with its plugins: titled with the plugin's name (a folder that builds
# several, such as learners/candidate_hinge, with the folder's, and naming each plugin), with a table row
# "| `param` | default |" for every parameter `glimpse describe` lists (so a parameter added, renamed or given a new
# default fails here until its README says so), a protocol snippet, and where its tests are. Every learner folder
# holds its own unit tests, registered by its glimpse_add_plugin(... TESTS ...), and its README names them.
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
checked=0
"$GLIMPSE" plugins --json > plugins.json
required=0
for folder in "$SOURCE_DIR"/plugins/*/*/; do
  folder=${folder%/}
  name=$(basename "$folder")
  kind=$(basename "$(dirname "$folder")")
  readme="$folder/README.md"
  [ "$kind" = common ] && continue  # shared headers, not a plugin
  required=$((required + 1))
  [ -s "$readme" ] || fail "plugins/$kind/$name has no README.md"
  [ "$(head -1 "$readme")" = "# $name" ] || fail "$readme: the first line should be '# $name'"
  mapfile -t built < <(grep -oE 'glimpse_add_plugin\(NAME [a-z0-9_]+' "$folder/CMakeLists.txt" | sed 's/.* //')
  [ "${#built[@]}" -ge 1 ] || fail "$folder/CMakeLists.txt builds no plugin"
  if [ "${#built[@]}" -gt 1 ]; then
    for plugin in "${built[@]}"; do
      grep -qF "\`$plugin\`" "$readme" || fail "$readme: does not name $plugin, which its folder builds"
    done
  fi
  grep -q '^```json$' "$readme" || fail "$readme: no protocol snippet (a \`\`\`json block)"
  grep -q '^Tests: ' "$readme" || fail "$readme: no 'Tests: ' line saying where its tests are"
  for test in "$folder"/*_test.cpp; do
    [ -e "$test" ] || continue
    grep -qE "TESTS( [a-z0-9_.]+)* $(basename "$test")" "$folder/CMakeLists.txt" ||
      fail "$folder/CMakeLists.txt: $(basename "$test") is not in its glimpse_add_plugin(... TESTS ...)"
    grep '^Tests: ' "$readme" | grep -qF "\`$(basename "$test")\`" || fail "$readme: its Tests line does not name $(basename "$test")"
  done
  if [ "$kind" = learners ] && ! compgen -G "$folder/*_test.cpp" > /dev/null; then
    fail "plugins/learners/$name has no unit tests of its own (a NAME_test.cpp in its folder, in TESTS)"
  fi
  for plugin in "${built[@]}"; do
  # A plugin this build leaves out (the python family in the sanitizer build) keeps its README; its rows cannot be checked here.
  if ! grep -q "\"name\": \"$plugin\"" plugins.json; then
    echo "$plugin: not built here; its README's parameter rows not checked"
    continue
  fi
  "$GLIMPSE" describe "$plugin" > describe.txt 2>&1 || fail "glimpse describe $plugin: $(cat describe.txt)"
  /usr/bin/python3 - "$readme" describe.txt <<'PY' || exit 1
import sys
readme, described = open(sys.argv[1]).read(), open(sys.argv[2]).read().splitlines()
header = next((l for l in described if l.startswith("parameter ")), None)
if header is None:
    sys.exit(0)
start, default_at, allowed_at = header.index("parameter"), header.index("default"), header.index("allowed")
for line in described[described.index(header) + 2:]:
    if not line.strip():
        break
    param, default = line[start:header.index("type")].strip(), line[default_at:allowed_at].strip()
    row = f"| `{param}` | {default} |"
    if row not in readme:
        sys.exit(f"FAILED: {sys.argv[1]}: no parameter row starting '{row}' (glimpse describe lists it)")
PY
  checked=$((checked + 1))
  done
done
[ "$required" -ge 55 ] || fail "only $required plugin folders found"
echo "$checked plugin READMEs in step with glimpse describe"
