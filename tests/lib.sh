# SPDX-License-Identifier: MIT
# tests/lib.sh: the preamble every shell test shares. A test sources it
# after `set -u` (and after setting D, the divergence binary, when it
# uses the build paths):
#     . "$(dirname "$0")/../lib.sh"
# and gets:
#   tmp                 a fresh temporary folder (mktemp -d), removed at
#                       exit, after the test's own `cleanup` function when
#                       it defines one
#   B, PLUGINS, MUTANTS the build folder that holds $D, its plugins/ and
#                       tests/mutants/ (when D is set)
#   pass, fail          the counts; ok counts a check passed, `bad MESSAGE`
#                       one failed (printing "FAIL: MESSAGE" on stderr)
#   check WHAT CMD...   ok when CMD succeeds, else bad WHAT
#   need TOOL           exit 77 (ctest: skipped) when TOOL is not installed
#   finish [NAME]       the closing line, "NAME: N passed, M failed" (or
#                       without "NAME: "), and the test's exit status: 0
#                       when no check failed, 1 otherwise
# shellcheck disable=SC2034 # the variables are the sourcing test's
tmp=$(mktemp -d) || exit 2
lib_exit() {
    if command -v cleanup >/dev/null 2>&1; then cleanup; fi
    rm -rf "$tmp"
}
trap lib_exit EXIT
trap 'exit 130' INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() {
    what=$1
    shift
    if "$@"; then ok; else bad "$what"; fi
}
need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "SKIP: $1 is not installed (scripts/setup.sh installs it)" >&2
        exit 77
    fi
}
if [ -n "${D:-}" ]; then
    B=$(cd "$(dirname "$D")" && pwd)
    PLUGINS=$B/plugins
    MUTANTS=$B/tests/mutants
fi
finish() {
    if [ $# -gt 0 ]; then echo "$1: $pass passed, $fail failed"; else echo "$pass passed, $fail failed"; fi
    [ "$fail" -eq 0 ]
    exit $?
}
