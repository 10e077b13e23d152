#!/usr/bin/env bash
# The README's second command: install, build, run the whole test suite: the normal (Release, GCC) build's
# tests, then the sanitizer build's (tools/sanitize.sh: ASan+UBSan unit tests and a short fuzz run of every
# fuzz target). Under CI (CI=true) compiler warnings are errors; locally they are not, so the build the
# quickstart made is reused as it is.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
werror=OFF
[ "${CI:-}" = "true" ] && werror=ON
"$root/tools/build.sh" -DGLIMPSE_WARNINGS_AS_ERRORS=$werror -DBUILD_TESTING=ON
status=0
(cd "$root/build" && ctest --output-on-failure -j "$(nproc)" --timeout 900) || status=$?
"$root/tools/sanitize.sh" || status=$?
exit $status
