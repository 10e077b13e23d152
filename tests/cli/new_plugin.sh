#!/usr/bin/env bash
# `glimpse new learner NAME` out of the tree, as a user starts a plugin: the folder it writes builds against a
# clean install prefix, its unit tests pass under ctest, glimpse describes and runs it; bad requests are refused.
# (In the tree the same templates get a one-line CMakeLists.txt, picked up by plugins/CMakeLists.txt's glob.)
set -euo pipefail
source "$(dirname "$0")/common.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cmake --install "$BUILD_DIR" --prefix "$work/prefix" > install.log
"$work/prefix/bin/glimpse" new learner my_learner > new.txt
for f in my_learner.cpp my_learner_test.cpp CMakeLists.txt README.md; do
  [ -s "my_learner/$f" ] || fail "my_learner/$f not written: $(cat new.txt)"
done
cd my_learner
cmake -S . -B build -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release > configure.log 2>&1 ||
  fail "configure: $(cat configure.log)"
cmake --build build > build.log 2>&1 || fail "build: $(cat build.log)"
ctest --test-dir build > ctest.log 2>&1 && grep -q "100% tests passed, 0 tests failed out of 1" ctest.log ||
  fail "ctest: $(cat ctest.log)"
build/glimpse_plugin_my_learner_test > unit.txt
[ "$(grep -c '\[       OK \] MyLearner\.' unit.txt)" = 2 ] || fail "unit tests: $(cat unit.txt)"
export GLIMPSE_PLUGIN_PATH=$PWD/build
"$work/prefix/bin/glimpse" describe my_learner | grep -q "^my_learner (learner, version 1.0, arithmetic revision 1)" ||
  fail "describe: $("$work/prefix/bin/glimpse" describe my_learner)"
cat > protocol.json <<'JSON'
{"name": "mine", "datasets": [{"source": "gaussians"}], "oracle": {"name": "full"},
 "learners": [{"name": "my_learner", "grid": {"eta": [0.1, 1]}}], "metrics": [{"name": "online_accuracy"}], "seeds": 2}
JSON
"$work/prefix/bin/glimpse" run protocol.json -o mine.h5 --quiet 2> run.txt || fail "run: $(cat run.txt)"
grep -q "mine.h5: 4 of 4 runs complete" run.txt || fail "run: $(cat run.txt)"
cd "$work"
expect_error() {  # expected text, then the arguments
  local expected=$1
  shift
  if "$work/prefix/bin/glimpse" new "$@" > /dev/null 2> err.txt; then fail "accepted: new $*"; fi
  grep -qF -- "$expected" err.txt || fail "new $*: expected '$expected', got $(cat err.txt)"
}
expect_error "My-Learner: a plugin name is lower_snake_case" learner My-Learner
expect_error "my_learner: exists already" learner my_learner
expect_error "only 'learner' has a template so far, got 'metric'" metric my_metric
# A shipped plugin's name would shadow it once built: refused, naming the plugin it would shadow.
expect_error "'cspa' is already the name of a learner plugin (" learner cspa
[ ! -e cspa ] || fail "new learner cspa wrote a folder"
echo "1 passed, 0 failed"
