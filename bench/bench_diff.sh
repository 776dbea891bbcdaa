#!/bin/sh
# SPDX-License-Identifier: MIT
# What `divergence diff` of the six implementations costs (issue 16's goal:
# under 60 s on 2 cores): the reference kernel and the adapters of Eigen,
# libtorch, oneDNN, ONNX Runtime and XNNPACK (build/plugins/, built when
# scripts/setup.sh installed their libraries), `--partial` on every pair
# two or more of them claim, all variants and dtypes, the flags of
# scripts/certify-all.sh (--timeout 10000). Its baselines, measured in the
# same run on the same pairs:
#   the reference kernel against itself (two workers; one `diff` per
#     variant, on the dtypes the six-way diff compared for that variant):
#     the harness's own cost for those pairs and cases;
#   the reference against each library alone (`--partial`): what each
#     library costs, and their sum against the six-way diff.
# Each figure is the best of REPS runs (the machine may be shared). Wall
# time and CPU time (user + sys of divergence and every process it waited
# for: its workers, their zygotes and namespace inits), from /usr/bin/time.
#
# Usage: bench/bench_diff.sh [BUILD_DIR]
#   REPS=N            runs per figure (default 1; the six-way diff takes
#                     about 30 s on 2 shared cores)
#   SKIP_PAIRWISE=1   leave out the five reference-and-one-library diffs
# Prints one line per run on stderr and a Markdown table (figure, measured,
# baseline, ratio / goal) on stdout; bench/run-all.sh takes its rows.
set -u
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
PL=$B/plugins
REPS=${REPS:-1}
LIBS="eigen libtorch onednn onnxruntime xnnpack"
for f in "$D" "$PL/reference.so"; do
    [ -e "$f" ] || { echo "bench_diff: no $f (build first: ninja -C $B)" >&2; exit 2; }
done
for lib in $LIBS; do
    [ -e "$PL/$lib.so" ] || {
        echo "bench_diff: no $PL/$lib.so (its library is missing: scripts/setup.sh)" >&2
        exit 2
    }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH=bench_diff
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # faster, ratio, add, say, load

# best NAME ARGS...: runs `divergence diff ARGS --db DB` REPS times (a fresh
# database each); leaves the best wall time in $wall, that run's CPU time
# (user + sys) in $cpu and its output in $tmp/NAME.out. A usage or
# environment error (exit 2) stops the benchmark.
best() {
    name=$1
    shift
    wall=999999 cpu=0
    for rep in $(seq "$REPS"); do
        db=$tmp/$name.db
        rm -f "$db" "$db-wal" "$db-shm"
        rc=0
        /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$D" diff "$@" --timeout 10000 --db "$db" \
            >"$tmp/$name.run" 2>&1 || rc=$?
        if [ $rc -gt 1 ]; then
            say "$name: divergence diff exit $rc:"
            tail -5 "$tmp/$name.run" >&2
            exit 2
        fi
        line=$(tail -1 "$tmp/time")
        w=${line%% *} c=$(echo "$line" | awk '{ printf "%.2f", $2 + $3 }')
        say "$name, run $rep: $w s wall, $c s CPU (load $(load))"
        if faster "$w" "$wall"; then
            wall=$w cpu=$c
            cp "$tmp/$name.run" "$tmp/$name.out"
        fi
    done
}
# counts FILE: "PAIRS CASES ELEMENTS" of a diff's output
counts() {
    awk '/^  [a-z0-9-]+ +[a-z0-9]+ +[0-9]+ cases +[0-9]+ elements:/ { p++; c += $3; e += $5 }
        END { printf "%d %d %d\n", p, c, e }' "$1"
}

echo "bench_diff: $(nproc) cores, load average $(load) at the start" >&2
start_load=$(load)
all="--plugin $PL/reference.so"
for lib in $LIBS; do all="$all --plugin $PL/$lib.so"; done
say "the six-way diff (--partial, every pair)"
# shellcheck disable=SC2086 # one word per flag and path
best six --partial $all
six_wall=$wall six_cpu=$cpu
counts "$tmp/six.out" >"$tmp/n"
read -r pairs cases elems <"$tmp/n"

# The reference against itself on the same pairs: one diff per variant, on
# the dtypes the six-way diff compared for it (the reference claims every
# pair, so that is the same set of pairs).
say "the reference against itself, on the same $pairs pairs"
awk '/^  [a-z0-9-]+ +[a-z0-9]+ +[0-9]+ cases/ { print $1, $2 }' "$tmp/six.out" >"$tmp/pairs"
ref_wall=0 ref_cpu=0
# shellcheck disable=SC2013 # one variant name per word
for v in $(cut -d' ' -f1 "$tmp/pairs" | sort -u); do
    dts=$(awk -v v="$v" '$1 == v { printf " --dtype %s", $2 }' "$tmp/pairs")
    # shellcheck disable=SC2086 # one word per flag
    best "ref-$v" --plugin "$PL/reference.so" --plugin "$PL/reference.so" --variant "$v" $dts
    ref_wall=$(add "$ref_wall" "$wall") ref_cpu=$(add "$ref_cpu" "$cpu")
    cat "$tmp/ref-$v.out" >>"$tmp/ref.out"
done
counts "$tmp/ref.out" >"$tmp/n"
read -r r_pairs r_cases r_elems <"$tmp/n"
[ "$r_pairs $r_cases $r_elems" = "$pairs $cases $elems" ] ||
    say "the reference against itself ran $r_pairs pairs, $r_cases cases, $r_elems elements; the six-way diff $pairs, $cases, $elems"

verdict=$(awk -v w="$six_wall" 'BEGIN { print (w < 60 ? "met" : "missed") }')
echo "| figure | measured | baseline (same run) | ratio / goal |"
echo "| --- | --- | --- | --- |"
echo "| diff --partial of the six implementations: $pairs pairs, $cases cases, $elems elements, wall s (best of $REPS) | $six_wall | the reference against itself, same pairs $ref_wall | $(ratio "$six_wall" "$ref_wall"); goal < 60 s on $(nproc) cores: $verdict |"
echo "| the same, CPU s (user + sys, harness and workers) | $six_cpu | the reference against itself $ref_cpu | $(ratio "$six_cpu" "$ref_cpu") |"

if [ "${SKIP_PAIRWISE:-0}" != 1 ]; then
    sum_wall=0 sum_cpu=0
    for lib in $LIBS; do
        say "the reference and $lib"
        best "pair-$lib" --partial --plugin "$PL/reference.so" --plugin "$PL/$lib.so"
        counts "$tmp/pair-$lib.out" >"$tmp/n"
        read -r lp lc _ <"$tmp/n"
        echo "| diff --partial of the reference and $lib alone: $lp pairs, $lc cases, wall s | $wall | CPU $cpu s | - |"
        sum_wall=$(add "$sum_wall" "$wall") sum_cpu=$(add "$sum_cpu" "$cpu")
    done
    echo "| the six-way diff against the sum of those five, wall s | $six_wall | sum $sum_wall (CPU $sum_cpu) | $(ratio "$six_wall" "$sum_wall") |"
fi
echo "bench_diff: load average $start_load at the start, $(load) at the end" >&2
