#!/bin/sh
# SPDX-License-Identifier: MIT
# The CUDA plugins where there is no GPU: every command that needs an
# instance (certify, sweep, diff, plugins) ends with exit 2 and the plugin's
# own line naming the missing device and why (cudaGetDeviceCount's error:
# cudaErrorInsufficientDriver (35): no driver in the worker's view, even
# with the toolkit's stub libcuda on the library path), no crash, and
# nothing stored: no database file is created, and an existing one is left
# byte for byte as it was.
#
# usage: test_cuda_nodevice.sh DIVERGENCE PLUGIN_DIR STUB_DIR
#   STUB_DIR: a folder holding libcuda.so.1 -> the toolkit's stub, or "-"
# Exit 77 (skipped) on a machine with an NVIDIA device node.
set -u
D=$1
P=$2
STUB=$3
if [ -e /dev/nvidiactl ]; then
    echo "skipped: this machine has an NVIDIA device (/dev/nvidiactl); scripts/gpu-check.sh is its test"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dvg-cuda-nodevice-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# run NAME RC_WANTED COMMAND...: runs it, stdout and stderr in $tmp/out.
run() {
    what=$1 want=$2
    shift 2
    rc=0
    "$@" >"$tmp/out" 2>&1 || rc=$?
    [ "$rc" = "$want" ] || { fail "$what: exit $rc, expected $want"; sed 's/^/    /' "$tmp/out" >&2; }
}

# says NAME PATTERN: the last run printed a line matching PATTERN.
says() {
    grep -q -- "$2" "$tmp/out" || { fail "$1: no line matching '$2'"; sed 's/^/    /' "$tmp/out" >&2; }
}

# A database with one real run in it, and its bytes.
run "reference certify" 0 "$D" certify --plugin "$P/reference.so" --variant sonnx-div --dtype u4 \
    --random 20 --shape-tier 0 --db "$tmp/kept.db" --no-progress
sum_before=$(cat "$tmp"/kept.db* | sha256sum)

check_plugin() {
    name=$1 why=$2
    so=$P/$name.so
    line="$name: no CUDA device: cudaGetDeviceCount: $why"

    run "$name certify (new db)" 2 "$D" certify --plugin "$so" --db "$tmp/new.db" --no-progress
    says "$name certify" "^plugin $name.so: $line"
    says "$name certify" "cannot load plugin $so: .*open failed"
    [ ! -e "$tmp/new.db" ] || fail "$name certify created $tmp/new.db"

    run "$name certify (kept db)" 2 "$D" certify --plugin "$so" --db "$tmp/kept.db" --no-progress
    says "$name certify" "$line"

    run "$name sweep" 2 "$D" sweep --plugin "$so" --dtype f16 --db "$tmp/new.db" --no-progress
    says "$name sweep" "cannot load plugin $so: .*open failed"
    [ ! -e "$tmp/new.db" ] || fail "$name sweep created $tmp/new.db"

    run "$name diff" 2 "$D" diff --plugin "$P/reference.so" --plugin "$so" --db "$tmp/kept.db" \
        --random 1
    says "$name diff" "$line"

    run "$name plugins" 2 "$D" plugins "$so"
    says "$name plugins" "$line"
}

for name in cuda cuda-intrinsic cuda-fast-math; do
    check_plugin "$name" "cudaErrorInsufficientDriver (35)"
done
# With the toolkit's stub driver on LD_LIBRARY_PATH (what a machine with
# the toolkit and no GPU has): cudart dlopens libcuda.so.1, which is not in
# the plugin's DT_NEEDED closure, so the sandbox's view does not hold it and
# the worker sees no driver at all, as above; nothing of the caller's
# library path leaks in. (With the stub reachable, cudaGetDeviceCount fails
# with cudaErrorStubLibrary (34) and leaves its count as it was; that path
# needs a sandbox grant that brings the driver's libraries into the view.)
if [ "$STUB" != "-" ]; then
    LD_LIBRARY_PATH=$STUB
    export LD_LIBRARY_PATH
    check_plugin cuda "cudaErrorInsufficientDriver (35)"
    unset LD_LIBRARY_PATH
fi

sum_after=$(cat "$tmp"/kept.db* | sha256sum)
[ "$sum_before" = "$sum_after" ] || fail "the existing database changed"

if [ "$failures" -gt 0 ]; then
    echo "test_cuda_nodevice: $failures failed" >&2
    exit 1
fi
echo "test_cuda_nodevice: certify, sweep, diff and plugins of 3 CUDA plugins: exit 2, device named, nothing stored"
