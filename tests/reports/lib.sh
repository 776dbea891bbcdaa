# SPDX-License-Identifier: MIT
# Shared by the tests of this folder: sourced after `set -u` with
#   $1 the divergence binary, $2 the folder of the test plugins, $3 this
#   source folder.
# Gives D, P, S, what tests/lib.sh gives (a temporary folder $tmp removed
# at exit, ok / bad / check counters, need, finish), PY (Debian's python3)
# and chrome.
# shellcheck disable=SC2034 # used by the scripts that source this
D=$1 P=$2 S=$3
. "$S/../lib.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 || echo python3)
need "$PY"
# Headless Chromium with nothing that reaches the network.
chrome() {
    chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --disable-extensions \
        --disable-default-apps --user-data-dir="$(mktemp -d "$tmp/chrome.XXXXXX")" \
        --enable-logging=stderr --v=0 "$@"
}
