#!/bin/sh
# SPDX-License-Identifier: MIT
# A leak is growth that repeated identical calls keep adding (issue 37,
# part 2; harness/run/engine/leak.h): when a worker life's memory grows
# steadily, one case is repeated in that life and the memory read again.
# - leak_256k (malloc'd per call): resource-leak with its rate, and the
#   identical calls' growth ("not a cache").
# - shape_cache (256 KiB mapped per new shape, at most 1024): CONFORMANT,
#   exit 0, with the note "memory grows ... per new shape".
# - shape_cache_unbounded (8 MiB per new shape): resource-leak past the
#   bound of a cache.
# (An AddressSanitizer build judges no memory growth: skipped there.)
# Usage: test_leak_or_cache.sh DIVERGENCE MUTANT_DIR
set -u
D=$1 M=$2
. "$(dirname "$0")/../lib.sh"
if ldd "$D" 2>/dev/null | grep -q libasan; then
    echo "SKIP: an AddressSanitizer build judges no memory growth"
    exit 77
fi
certify() {
    name=$1 want_rc=$2 pattern=$3
    "$D" certify --plugin "$M/mutant_$name.so" --db "$tmp/zoo.db" --no-progress --seed 11 \
        --variant onnx-div-14 --dtype f32 >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -ne "$want_rc" ]; then
        bad "$name: exit $rc, want $want_rc"; sed -n 1,30p "$tmp/$name.out" >&2; return
    fi
    if grep -q -- "$pattern" "$tmp/$name.out"; then ok; else
        bad "$name: no /$pattern/ in the certificate"; sed -n 1,30p "$tmp/$name.out" >&2
    fi
}
certify leak_256k 1 \
    '^    resource-leak .*resident memory grew [0-9]* KiB per call.*identical calls of one case added [0-9]* KiB more (not a cache)'
certify shape_cache 0 \
    '^    note: memory grows [0-9]*-[0-9]* KiB per new shape, up to [0-9]* MiB in a worker life of [0-9]* calls: a cache'
if grep -q 'resource-leak' "$tmp/shape_cache.out"; then bad "shape_cache: a resource-leak"; else ok; fi
certify shape_cache_unbounded 1 '^    resource-leak .*past the bound of 1024 MiB for a cache'
finish test_leak_or_cache
