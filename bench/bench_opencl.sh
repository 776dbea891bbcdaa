#!/bin/sh
# SPDX-License-Identifier: MIT
# What certifying a compiled kernel costs (plugins/opencl/ on PoCL), in the
# default sandbox with --grant pocl (harness/sandbox/grant.h): `divergence
# certify` of every claim of the OpenCL plugin against certify of the
# reference kernel with the same flags; and what open() costs in the worker
# (`divergence plugins --grant pocl`: PoCL builds and links every kernel,
# exec'ing /usr/bin/ld, into the worker's private cache, which starts empty
# in every worker) against loading the reference kernel. The best of REPS
# rounds; each round runs the baselines and the OpenCL figures back to back
# (the machine may be shared).
#
# Usage: bench/bench_opencl.sh [BUILD_DIR]
#   REPS=N    rounds (default 2)
#   CONFIG=C  the OpenCL config (default: none, the default build options)
#   FLAGS=F   more certify flags for both (default none: every claim, the
#             default cases; e.g. "--random 10 --shape-tier 10")
# Prints one line per run on stderr and a Markdown table (figure, measured,
# baseline, ratio) on stdout; bench/run-all.sh takes its rows.
set -u
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
CL=$B/plugins/opencl.so
REPS=${REPS:-2}
CONFIG=${CONFIG:-}
FLAGS=${FLAGS:-}
for f in "$D" "$REF" "$CL"; do
    [ -e "$f" ] || { echo "bench_opencl: no $f (build first: ninja -C $B; the OpenCL adapter needs ocl-icd-opencl-dev)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH=bench_opencl
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # faster, ratio, add, say, load
# timed NAME CMD...: wall seconds of CMD in $sec (its output in $tmp/NAME.out).
timed() {
    name=$1
    shift
    /usr/bin/time -f '%e' -o "$tmp/time" "$@" >"$tmp/$name.out" 2>&1 ||
        say "$name: exit $? ($(tail -2 "$tmp/$name.out" | tr '\n' ' '))"
    sec=$(tail -1 "$tmp/time")
    say "$name: $sec s"
}
certify() {
    rm -f "$tmp/c.db"
    # shellcheck disable=SC2086 # FLAGS: one word per flag
    timed "$@" --db "$tmp/c.db" --no-progress $FLAGS
}

best_ref=999999 best_cl=999999 best_load=999999 best_open=999999
for rep in $(seq "$REPS"); do
    certify "reference-$rep" "$D" certify --plugin "$REF"
    faster "$sec" "$best_ref" && best_ref=$sec
    certify "opencl-$rep" "$D" certify --plugin "$CL" --config "$CONFIG" --grant pocl --timeout 60000
    faster "$sec" "$best_cl" && best_cl=$sec
    held=$(grep -E '^[0-9]+ of [0-9]+ claims hold' "$tmp/opencl-$rep.out" | cut -d';' -f1)
    timed "load-reference-$rep" "$D" plugins "$REF"
    faster "$sec" "$best_load" && best_load=$sec
    timed "open-opencl-$rep" "$D" plugins --grant pocl --timeout 60000 "$CL"
    faster "$sec" "$best_open" && best_open=$sec
done
cfg=${CONFIG:-default options}
echo "| figure | measured | baseline (same run) | ratio |"
echo "| --- | --- | --- | --- |"
echo "| certify opencl ($cfg${FLAGS:+, $FLAGS}), --grant pocl, every claim (kernels built and linked in the worker's open()), wall s ($held) | $best_cl | reference $best_ref | $(ratio "$best_cl" "$best_ref") |"
echo "| the load and open() of the OpenCL plugin in a sandboxed worker with --grant pocl (divergence plugins), wall s | $best_open | reference $best_load | $(ratio "$best_open" "$best_load") |"
