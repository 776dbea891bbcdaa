#!/bin/sh
# SPDX-License-Identifier: MIT
# What the two kernel objects of plugins/cuda/ compile to, read off their
# PTX (nvcc -ptx with each object's own options and definitions, for
# sm_90): the flavours are what their names say.
#   as it is (cuda.so, cuda-intrinsic.so): div.rn.f32 and div.rn.f64 (the
#     IEEE flavour, f16 and bf16 through f32), div.approx.f32 (__fdividef,
#     and bf16's __hdiv), rcp.approx.ftz.f32 (f16's __hdiv); nothing flushed
#     to zero but that reciprocal.
#   --use_fast_math (cuda-fast-math.so): div.approx.ftz.f32 for f32 (and f16
#     and bf16 through it), div.rn.f64 still, and no div.rn.f32 left.
#
# usage: test_cuda_ptx.sh NVCC KERNELS.cu INCLUDE_DIR "OPTIONS" "DEFINITIONS"
#                         "FAST_OPTIONS" "FAST_DEFINITIONS"
set -u
NVCC=$1 SRC=$2 INC=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dvg-cuda-ptx-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

# ptx OUT "OPTIONS" "DEFINITIONS"
ptx() {
    defs=""
    for d in $3; do defs="$defs -D$d"; done
    # shellcheck disable=SC2086 # one word per option
    if ! "$NVCC" -ptx -arch=sm_90 $2 $defs -I "$INC" "$SRC" -o "$1" 2>"$tmp/err"; then
        echo "FAIL: nvcc -ptx $2 $defs:" >&2
        cat "$tmp/err" >&2
        exit 1
    fi
}

# has FILE INSTRUCTION yes|no
has() {
    n=$(grep -c -- "[[:space:]{]$2[[:space:]]" "$1") # "{" opens an asm block
    if [ "$3" = yes ] && [ "$n" -eq 0 ]; then
        echo "FAIL: $(basename "$1") has no $2" >&2
        failures=$((failures + 1))
    elif [ "$3" = no ] && [ "$n" -ne 0 ]; then
        echo "FAIL: $(basename "$1") has $n $2" >&2
        failures=$((failures + 1))
    else
        echo "$(basename "$1"): $2: $n"
    fi
}

ptx "$tmp/plain.ptx" "$4" "$5"
ptx "$tmp/fast.ptx" "$6" "$7"
has "$tmp/plain.ptx" div.rn.f32 yes
has "$tmp/plain.ptx" div.rn.f64 yes
has "$tmp/plain.ptx" div.approx.f32 yes
has "$tmp/plain.ptx" rcp.approx.ftz.f32 yes
has "$tmp/plain.ptx" div.approx.ftz.f32 no
has "$tmp/plain.ptx" div.full.f32 no
has "$tmp/fast.ptx" div.approx.ftz.f32 yes
has "$tmp/fast.ptx" div.rn.f64 yes
has "$tmp/fast.ptx" div.rn.f32 no
has "$tmp/fast.ptx" div.approx.f32 no
has "$tmp/fast.ptx" rcp.approx.ftz.f32 no
if [ "$failures" -gt 0 ]; then
    echo "test_cuda_ptx: $failures failed" >&2
    exit 1
fi
