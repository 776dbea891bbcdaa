#!/bin/sh
# SPDX-License-Identifier: MIT
# The CUDA plugin's host side and per-element code, certified on the CPU:
# cuda-emulated.so is plugins/cuda/cuda.c (the IEEE flavour) with the
# kernels' element code run on the host (emulate.cpp) and the runtime calls
# answered on the host (hostcuda.c). Every claim must hold, the 4-bit and
# 8-bit types' every pair too, and `diff` against the reference kernel must
# find no departure. The worker runs without its zygote
# (DIVERGENCE_NO_ZYGOTE=1), as on a GPU: the plugin refuses to compute in a
# forked copy of the process that opened it (test_cuda_descriptor checks
# that).
#
# usage: test_cuda_emulated.sh DIVERGENCE EMULATED.so REFERENCE.so
set -u
D=$1 EMU=$2 REF=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dvg-cuda-emulated-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
DIVERGENCE_NO_ZYGOTE=1
export DIVERGENCE_NO_ZYGOTE
failures=0

# run NAME COMMAND...: must exit 0; its output in $tmp/out.
run() {
    name=$1
    shift
    rc=0
    "$@" >"$tmp/out" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "FAIL: $name: exit $rc" >&2
        sed 's/^/    /' "$tmp/out" >&2
        failures=$((failures + 1))
    fi
}

run "certify" "$D" certify --plugin "$EMU" --db "$tmp/c.db" --shape-tier 16 --no-progress
grep -E '^[0-9]+ of [0-9]+ claims hold' "$tmp/out"
if ! grep -Eq '^65 of 65 claims hold' "$tmp/out"; then
    echo "FAIL: certify: not every one of the 65 claims holds" >&2
    failures=$((failures + 1))
fi
for t in u4 i4 u8 i8; do
    for v in openvino-divide-1 sonnx-div; do
        run "sweep $v $t" "$D" sweep --plugin "$EMU" --dtype "$t" --variant "$v" \
            --db "$tmp/s.db" --no-progress
    done
done
run "diff" "$D" diff --plugin "$REF" --plugin "$EMU" --db "$tmp/d.db" --random 50 --partial
if [ "$failures" -gt 0 ]; then
    echo "test_cuda_emulated: $failures failed" >&2
    exit 1
fi
echo "test_cuda_emulated: 65 claims hold; every u4, i4, u8, i8 pair conforms; no departure from the reference"
