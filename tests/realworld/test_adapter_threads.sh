#!/bin/sh
# SPDX-License-Identifier: MIT
# The library adapters honour ABI 1.1's thread count (docs/contexts.md):
# for each adapter built, adapter_threads loads it in its own process at 1
# and at 3 threads (open_with), divides 2^22 f32 elements, and reports the
# threads the process had at its peak. At 3 the library must have run more
# threads than at 1 (its pool: OpenMP's team for oneDNN and libtorch, ONNX
# Runtime's intra-op pool, a pthreadpool for XNNPACK, an Eigen ThreadPool),
# and at 1 at most one thread besides the caller (ONNX Runtime and libtorch
# start one helper). Skipped (77) when no adapter was built.
# Usage: test_adapter_threads.sh ADAPTER_THREADS PLUGIN_DIR
set -u
PROBE=$1 P=$2
. "$(dirname "$0")/../lib.sh"
# peak N: the peak count of the adapter's process at N threads (-1: failed)
peak() {
    out=$("$PROBE" "$P/$lib.so" "$1" 2>&1) || { echo "$out" >&2; echo -1; return; }
    echo "$out" >&2
    echo "$out" | sed -n 's/^threads [0-9]*: before \([0-9]*\), peak \([0-9]*\),.*/\1 \2/p'
}
ran=0
for lib in onednn onnxruntime libtorch xnnpack eigen; do
    [ -f "$P/$lib.so" ] || { echo "$lib: not built, skipped"; continue; }
    ran=$((ran + 1))
    set -- $(peak 1)
    b1=${1:--1} p1=${2:--1}
    set -- $(peak 3)
    p3=${2:--1}
    if [ "$p1" -lt 0 ] || [ "$p3" -lt 0 ]; then
        bad "$lib: adapter_threads failed (peaks $p1 at 1 thread, $p3 at 3)"
    elif [ "$p3" -le "$p1" ]; then
        bad "$lib: as many threads at 3 ($p3) as at 1 ($p1): the count is not honoured"
    elif [ $((p1 - b1)) -gt 1 ]; then
        bad "$lib: $((p1 - b1)) threads besides the caller at 1 thread"
    else ok; fi
done
[ "$ran" -gt 0 ] || { echo "SKIP: no library adapter was built"; exit 77; }
finish "adapter threads"
