#!/bin/sh
# SPDX-License-Identifier: MIT
# expect_finding.sh CLASS PLUGIN REPLAY INPUT...: replays INPUT through the
# in-process target with PLUGIN and passes only when the process dies (the
# target traps) after reporting a finding of CLASS.
set -u
class=$1 plugin=$2 replay=$3
shift 3
out=$(DIVERGENCE_PLUGIN=$plugin "$replay" "$@" 2>&1)
rc=$?
printf '%s\n' "$out" | tail -n 5
if [ "$rc" -eq 0 ]; then
    echo "expect_finding: $replay exited 0: the planted bug was not caught" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -q "FINDING $class:"; then
    echo "expect_finding: no '$class' finding before the trap (exit $rc)" >&2
    exit 1
fi
echo "expect_finding: caught ($class, exit $rc)"
