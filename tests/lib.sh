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
#   reach_build         when the worker's uid (65534, as root) cannot read
#                       the build folder (a clone in a private 0700
#                       folder), points D at a copy of divergence and its
#                       worker program in $tmp/reach that it can read
#                       (DIVERGENCE_DATA_DIR then names the build's data)
#   reach FILE          prints a path of FILE that uid 65534 can read:
#                       FILE itself, or its copy in $tmp/reach
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
# The worker runs as uid 65534 when the harness is root: what it must
# read (its program, a plugin bound rather than copied) must be reachable.
nobody_reads() {
    [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null 2>&1 ||
        setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$1"
}
reach_dir() {
    mkdir -p "$tmp/reach" && chmod 755 "$tmp" "$tmp/reach"
}
reach() {
    if nobody_reads "$1"; then echo "$1"; return; fi
    reach_dir && cp "$1" "$tmp/reach/" && echo "$tmp/reach/$(basename "$1")"
}
reach_build() {
    nobody_reads "$D" && nobody_reads "$(dirname "$D")/divergence-worker" && return 0
    reach_dir && cp "$D" "$(dirname "$D")/divergence-worker" "$tmp/reach/" || return 1
    [ -n "${DIVERGENCE_DATA_DIR:-}" ] || [ ! -d "$(dirname "$D")/share/divergence" ] ||
        export DIVERGENCE_DATA_DIR="$(cd "$(dirname "$D")/share/divergence" && pwd)"
    D=$tmp/reach/divergence
}
finish() {
    if [ $# -gt 0 ]; then echo "$1: $pass passed, $fail failed"; else echo "$pass passed, $fail failed"; fi
    [ "$fail" -eq 0 ]
    exit $?
}
