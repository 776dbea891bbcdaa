# SPDX-License-Identifier: MIT
# Shared by the tests of this folder: sourced after `set -u` with
#   $1 the divergence binary, $2 the folder of the test plugins, $3 this
#   source folder.
# Gives D, P, S, a temporary folder $tmp (removed at exit), ok / bad
# counters, need (skip with 77 when a tool is missing), PY (Debian's
# python3), and finish.
# shellcheck disable=SC2034 # used by the scripts that source this
D=$1 P=$2 S=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
# check DESCRIPTION COMMAND...: ok when the command succeeds.
check() {
    what=$1; shift
    if "$@"; then ok; else bad "$what"; fi
}
need() {
    if ! command -v "$1" >/dev/null 2>&1; then
        echo "SKIP: $1 is not installed (scripts/setup.sh installs it)" >&2
        exit 77
    fi
}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)
need "$PY"
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
# Headless Chromium with nothing that reaches the network.
chrome() {
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --disable-extensions \
        --disable-default-apps --user-data-dir="$(mktemp -d "$tmp/chrome.XXXXXX")" \
        --enable-logging=stderr --v=0 "$@"
}
