#!/bin/sh
# SPDX-License-Identifier: MIT
# Answers under every thread count are judged, not compared (issue 37,
# part 1; harness/run/certify/contexts.c).
# - pool_affinity sizes its own pool (OMP_NUM_THREADS, else its affinity
#   mask) and declares nothing; from 3 threads on it leaves elements
#   unwritten. Its answers at 3 threads are wrong: NONCONFORMANT, exit 1,
#   by thread-count-differs naming the count and the oracle's class (on
#   main it was CONFORMANT with a capability row).
# - split_3 (declares threads, the same split): NONCONFORMANT as before,
#   the oracle's class named.
# - the reference: CONFORMANT, no determinism row; the profile
#   exact+bitwise parses and names itself.
# Usage: test_thread_answers.sh DIVERGENCE MUTANT_DIR REFERENCE_SO
set -u
D=$1 M=$2 REF=$3
. "$(dirname "$0")/../lib.sh"
certify() {
    name=$1 so=$2 want_rc=$3 pattern=$4
    shift 4
    "$D" certify --plugin "$so" --db "$tmp/zoo.db" --no-progress --seed 11 \
        --variant onnx-div-14 --dtype i32 "$@" >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -ne "$want_rc" ]; then
        bad "$name: exit $rc, want $want_rc"; sed -n 1,30p "$tmp/$name.out" >&2; return
    fi
    if grep -q -- "$pattern" "$tmp/$name.out"; then ok; else
        bad "$name: no /$pattern/ in the certificate"; sed -n 1,30p "$tmp/$name.out" >&2
    fi
}
certify pool_affinity "$M/mutant_pool_affinity.so" 1 \
    '^    thread-count-differs .*threads 3: .*judged by the oracle: element-not-written'
certify split_3 "$M/mutant_split_3.so" 1 \
    '^    thread-count-differs .*threads 3: 64 elements differ.*judged by the oracle: element-not-written'
certify reference "$REF" 0 '^  onnx-div-14        i32   CONFORMANT' --profile exact+bitwise
check "reference: profile exact+bitwise named" grep -q 'profile exact+bitwise' "$tmp/reference.out"
if grep -q 'determinism\|not declared' "$tmp/reference.out"; then bad "reference: a row"; else ok; fi
"$D" certify --plugin "$REF" --db "$tmp/zoo.db" --profile exact+bitwise+bitwise --no-progress \
    >"$tmp/twice.out" 2>&1
rc=$?
[ $rc -eq 2 ] && ok || bad "profile exact+bitwise+bitwise: exit $rc, want 2"
finish test_thread_answers
