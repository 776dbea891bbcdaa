#!/bin/sh
# SPDX-License-Identifier: MIT
# What the calling contexts cost (issue 25, docs/contexts.md; goal: the
# default certification at most 1.5 times the base build's): `divergence
# certify` of the reference kernel with default flags by BASE (a build
# without the contexts, e.g. the commit before them) and by BUILD, and by
# BUILD with each part left out (--no-probes: the thread counts only;
# --no-thread-counts: the probes only; both: neither), the five runs
# interleaved, REPS times each, a fresh database each. Wall, user and
# system time from /usr/bin/time, each figure the best run's; the case
# counts of each, and how many cases each context ran in.
#
# Usage: bench/bench_contexts.sh BASE_BUILD [BUILD]
#   REPS=N     runs of each (default 3)
#   JOBS=N     --jobs N (default: the CPUs this process may use)
# Prints one line per run on stderr and a Markdown table on stdout.
set -u
. "$(dirname "$0")/lib.sh"
[ $# -ge 1 ] || { echo "usage: $0 BASE_BUILD [BUILD]" >&2; exit 2; }
abs() { case $1 in /*) echo "$1" ;; *) echo "$(pwd)/$1" ;; esac; }
BASE=$(abs "$1")
B=$(abs "${2:-build}")
REPS=${REPS:-3}
JOBS=${JOBS-$(nproc)}
for b in "$BASE" "$B"; do
    [ -x "$b/divergence" ] && [ -e "$b/plugins/reference.so" ] ||
        { echo "bench_contexts: no $b/divergence or its plugins/reference.so" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH=bench_contexts

# run NAME BUILD ARGS...: one certification of BUILD's reference kernel
# (certify_best); NAME's case and context counts are read from its best run
run() {
    name=$1 b=$2
    shift 2
    certify_best "$name" "$b/divergence" "$b/plugins/reference.so" --jobs "$JOBS" "$@"
}
# counts NAME: "cases threads-cases two-instances-cases" of NAME's best run
counts() {
    awk '/ cases +[0-9]+ elements/ { c += $(NF-3) }
         /^    contexts: threads [0-9]/ { t += substr($4, 2) }
         /two instances at once \(/ { split($0, p, "two instances at once \\("); i += p[2] + 0 }
         END { printf "%d %d %d\n", c, t, i }' "$tmp/$1.out"
}

say "$(nproc) cores, load average $(load) at the start; --jobs $JOBS, $REPS runs each"
start_load=$(load)
for rep in $(seq "$REPS"); do
    run base "$BASE"
    run all "$B"
    run none "$B" --no-probes --no-thread-counts
    run probes "$B" --no-thread-counts
    run threads "$B" --no-probes
done
row() { # NAME WHAT
    read -r w u s <"$tmp/$1.best"
    counts "$1" >"$tmp/counts"
    read -r c t i <"$tmp/counts"
    read -r bw bu bs <"$tmp/base.best"
    echo "| certify of the reference, default flags, $2: $c cases (threads: $t cases, two instances: $i cases); wall s (best of $REPS) | $w | base build: $bw | $(ratio "$w" "$bw") |"
    cpu=$(add "$u" "$s")
    bcpu=$(add "$bu" "$bs")
    echo "| the same, CPU s (user + sys: the harness and what it waited for) | $cpu | base build: $bcpu | $(ratio "$cpu" "$bcpu") |"
}
read -r aw au as <"$tmp/all.best"
read -r bw bu bs <"$tmp/base.best"
met=$(awk -v a="$aw" -v b="$bw" 'BEGIN { print (a <= 1.5 * b ? "met" : "missed") }')
echo "| figure | measured | baseline (same run) | ratio / goal |"
echo "| --- | --- | --- | --- |"
row all "every context (this build's default; goal <= 1.5x wall: $met)"
row none "--no-probes --no-thread-counts (this build without the contexts)"
row probes "--no-thread-counts (the probes only)"
row threads "--no-probes (the thread counts only)"
say "load average $start_load at the start, $(load) at the end"
