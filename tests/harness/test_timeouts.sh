#!/bin/sh
# SPDX-License-Identifier: MIT
# Every test of the suite has a TIMEOUT (tests/CMakeLists.txt:
# dvg_default_timeouts), so a hang ends as a failure naming its test, not
# as CI's limit, and none is longer than the long suite allows.
# Usage: test_timeouts.sh BUILD_DIR
set -u
BUILD=$1
. "$(dirname "$0")/../lib.sh"
ctest --test-dir "$BUILD" --show-only=json-v1 >"$tmp/tests.json" 2>"$tmp/err" ||
    { echo "ctest --show-only failed: $(cat "$tmp/err")" >&2; exit 1; }
/usr/bin/python3 - "$tmp/tests.json" >"$tmp/out" <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
for t in tests:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    labels = props.get("LABELS", [])
    limit = 36000 if "long" in labels else 2400
    timeout = props.get("TIMEOUT")
    if timeout is None:
        print("BAD %s: no TIMEOUT" % t["name"])
    elif not 0 < float(timeout) <= limit:
        print("BAD %s: TIMEOUT %s (want 1 to %d)" % (t["name"], timeout, limit))
    else:
        print("OK %s" % t["name"])
PY
n=$(grep -c '^OK ' "$tmp/out")
if [ "$n" -gt 50 ]; then ok; else bad "only $n tests read from the suite"; fi
while read -r word rest; do
    [ "$word" = BAD ] && bad "$rest"
done <"$tmp/out"
finish test_timeouts
