#!/bin/sh
# SPDX-License-Identifier: MIT
# What certifying a compiled kernel costs (plugins/opencl/ on PoCL): the
# kernel build into an empty cache and from a warm one (opencl-prebuild),
# and `divergence certify` of every claim of the OpenCL plugin, first build
# (empty cache: the build, then certify) and warm cache, against certify of
# the reference kernel with the same flags, in the same run. The best of
# REPS rounds; each round runs the reference and both OpenCL figures back
# to back (the machine may be shared).
#
# --sandbox off and opencl-prebuild before certify: the worker's seccomp
# filter refuses PoCL's linker (plugins/opencl/prebuild.c), so the build
# happens outside the worker until the sandbox grants it during open().
# The reference runs with --sandbox off too, so both pay the same isolation.
#
# Usage: bench/bench_opencl.sh [BUILD_DIR]
#   REPS=N    rounds (default 2)
#   CONFIG=C  the OpenCL config (default: none, the default build options)
# Prints one line per run on stderr and a Markdown table (figure, measured,
# baseline, ratio) on stdout; bench/run-all.sh takes its rows.
set -u
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
CL=$B/plugins/opencl.so
PRE=$B/plugins/opencl-prebuild
REPS=${REPS:-2}
CONFIG=${CONFIG:-}
for f in "$D" "$REF" "$CL" "$PRE"; do
    [ -e "$f" ] || { echo "bench_opencl: no $f (build first: ninja -C $B; the OpenCL adapter needs ocl-icd-opencl-dev)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { echo "bench_opencl: $*" >&2; }
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # faster, ratio, add
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
    timed "$@" --sandbox off --db "$tmp/c.db" --no-progress
}

best_ref=999999 best_cold=999999 best_warm=999999 best_build=999999 best_rebuild=999999
for rep in $(seq "$REPS"); do
    certify "reference-$rep" "$D" certify --plugin "$REF"
    faster "$sec" "$best_ref" && best_ref=$sec
    export POCL_CACHE_DIR="$tmp/cache-$rep"
    mkdir -p "$POCL_CACHE_DIR"
    timed "build-$rep" "$PRE" "$CONFIG"
    build=$sec
    faster "$build" "$best_build" && best_build=$build
    certify "opencl-first-$rep" "$D" certify --plugin "$CL" --config "$CONFIG"
    cold=$(add "$build" "$sec")
    faster "$cold" "$best_cold" && best_cold=$cold
    timed "rebuild-$rep" "$PRE" "$CONFIG"
    faster "$sec" "$best_rebuild" && best_rebuild=$sec
    certify "opencl-warm-$rep" "$D" certify --plugin "$CL" --config "$CONFIG"
    faster "$sec" "$best_warm" && best_warm=$sec
    held=$(grep -E '^[0-9]+ of [0-9]+ claims hold' "$tmp/opencl-warm-$rep.out" | cut -d';' -f1)
done
cfg=${CONFIG:-default options}
echo "| figure | measured | baseline (same run) | ratio |"
echo "| --- | --- | --- | --- |"
echo "| certify opencl ($cfg), every claim, first build (empty PoCL cache: build + certify), wall s ($held) | $best_cold | reference $best_ref | $(ratio "$best_cold" "$best_ref") |"
echo "| certify opencl ($cfg), every claim, warm PoCL cache, wall s | $best_warm | reference $best_ref | $(ratio "$best_warm" "$best_ref") |"
echo "| the OpenCL kernels' build (opencl-prebuild), empty cache, wall s | $best_build | warm cache $best_rebuild | $(ratio "$best_build" "$best_rebuild") |"
