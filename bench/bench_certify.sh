#!/bin/sh
# SPDX-License-Identifier: MIT
# What the full certification of the reference kernel costs (issue 23's
# goal: at most 10 s wall on a 2-core machine, and at most 2.5 times the
# same certification without the shape paths): `divergence certify` of
# build/plugins/reference.so, default flags (every claim, the shape paths
# up to 2^24 + 1 elements), against the same with --shape-tier 0, the two
# runs interleaved, REPS times each, a fresh database each. Wall, user and
# system time come from /usr/bin/time (the harness and every process it
# waited for: its workers, their zygotes); each figure is the best run's.
# The case and element counts of both are printed too: what the time buys.
#
# With BASE set to another build's divergence (the branch point's), it also
# certifies with that binary, default flags and --shape-tier 21, and with
# this one at --shape-tier 21, interleaved with the rest: the table then
# shows what issue 26's shape families cost the same certification - all
# of them (default flags, before and after), the tile and scalar-divisor
# families (--shape-tier 21 leaves out every case above 2^21 + 1 elements
# in both), and the large code paths (the rest of the difference).
#
# Usage: bench/bench_certify.sh [BUILD_DIR]
#   BASE=PATH  the divergence binary to compare with (default: none)
#   REPS=N     runs of each (default 3)
#   JOBS=N     --jobs N (default: the CPUs this process may use); JOBS=""
#              runs without --jobs (a divergence from before the run engine)
# Prints one line per run on stderr and a Markdown table on stdout;
# bench/run-all.sh takes its rows.
set -u
. "$(dirname "$0")/lib.sh"
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
REPS=${REPS:-3}
JOBS=${JOBS-$(nproc)}
[ -x "$D" ] && [ -e "$REF" ] || { echo "bench_certify: no $D or $REF (build first: ninja -C $B)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH=bench_certify
CERTIFY_MAX_RC=1
jobs_flag=
[ -n "$JOBS" ] && jobs_flag="--jobs $JOBS"

# run NAME ARGS...: one certification of the reference (certify_best), by
# BASE for the names base*, by this build for the others
run() {
    name=$1
    shift
    bin=$D
    case $name in base*) bin=$BASE ;; esac
    # shellcheck disable=SC2086 # one word per flag
    certify_best "$name" "$bin" "$REF" $jobs_flag "$@"
}

say "$(nproc) cores, load average $(load) at the start; ${jobs_flag:-no --jobs}, $REPS runs each"
start_load=$(load)
BASE=${BASE:-}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "bench_certify: BASE=$BASE is not an executable" >&2; exit 2; }
for rep in $(seq "$REPS"); do
    run full
    run tier0 --shape-tier 0
    if [ -n "$BASE" ]; then
        run base
        run tier21 --shape-tier 21
        run base21 --shape-tier 21
    fi
done
read -r fw fu fs <"$tmp/full.best"
read -r tw tu ts <"$tmp/tier0.best"
case_counts full >"$tmp/counts"
read -r fc fe <"$tmp/counts"
case_counts tier0 >"$tmp/counts"
read -r tc te <"$tmp/counts"
cpu() { add "$1" "$2"; }
met=$(awk -v w="$fw" -v t="$tw" 'BEGIN { print (w <= 10 && w <= 2.5 * t ? "met" : "missed") }')
echo "| figure | measured | baseline (same run) | ratio / goal |"
echo "| --- | --- | --- | --- |"
echo "| certify of the reference, every claim, default flags (${jobs_flag:-no --jobs}): $fc cases, $fe elements; wall s (best of $REPS) | $fw | --shape-tier 0: $tc cases, $te elements, $tw | $(ratio "$fw" "$tw"); goal <= 10 s and <= 2.5x on $(nproc) cores: $met |"
echo "| the same, CPU s (user + sys) | $(cpu "$fu" "$fs") | $(cpu "$tu" "$ts") | $(ratio "$(cpu "$fu" "$fs")" "$(cpu "$tu" "$ts")") |"
echo "| the same, system s (page faults, the workers' round trips) | $fs | $ts | $(ratio "$fs" "$ts") |"
if [ -n "$BASE" ]; then
    read -r bw bu bs <"$tmp/base.best"
    case_counts base >"$tmp/counts"
    read -r bc be <"$tmp/counts"
    read -r w21 u21 s21 <"$tmp/tier21.best"
    case_counts tier21 >"$tmp/counts"
    read -r c21 e21 <"$tmp/counts"
    read -r bw21 bu21 bs21 <"$tmp/base21.best"
    case_counts base21 >"$tmp/counts"
    read -r bc21 be21 <"$tmp/counts"
    echo "| issue 26's shape families, all: certify as above, wall s; CPU s | $fw; $(cpu "$fu" "$fs") | before (BASE): $bc cases, $be elements, $bw; $(cpu "$bu" "$bs") | $(ratio "$fw" "$bw"); $(ratio "$(cpu "$fu" "$fs")" "$(cpu "$bu" "$bs")"); +$((fc - bc)) cases, +$((fe - be)) elements |"
    echo "| the tile and scalar-divisor families: both at --shape-tier 21, wall s; CPU s | $c21 cases, $e21 elements, $w21; $(cpu "$u21" "$s21") | before: $bc21 cases, $be21 elements, $bw21; $(cpu "$bu21" "$bs21") | +$(sub "$w21" "$bw21") s wall; +$(sub "$(cpu "$u21" "$s21")" "$(cpu "$bu21" "$bs21")") s CPU; +$((c21 - bc21)) cases, +$((e21 - be21)) elements |"
    cf=$(cpu "$fu" "$fs") cb=$(cpu "$bu" "$bs") c1=$(cpu "$u21" "$s21") cb1=$(cpu "$bu21" "$bs21")
    echo "| the large code paths (the rest of the difference), wall s; CPU s | +$(sub "$(sub "$fw" "$bw")" "$(sub "$w21" "$bw21")"); +$(sub "$(sub "$cf" "$cb")" "$(sub "$c1" "$cb1")") | | +$((fc - bc - c21 + bc21)) cases, +$((fe - be - e21 + be21)) elements |"
fi
say "load average $start_load at the start, $(load) at the end"
