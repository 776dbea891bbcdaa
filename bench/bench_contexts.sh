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
say() { echo "bench_contexts: $*" >&2; }
load() { cut -d' ' -f1 /proc/loadavg; }

# run NAME BUILD ARGS...: one certification of BUILD's reference kernel;
# keeps the best wall time of NAME (with its user and system time) in
# $tmp/NAME.best and its case count and context counts in $tmp/NAME.counts
run() {
    name=$1 b=$2
    shift 2
    rm -f "$tmp/$name.db" "$tmp/$name.db-wal" "$tmp/$name.db-shm"
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$b/divergence" certify \
        --plugin "$b/plugins/reference.so" --no-progress --db "$tmp/$name.db" --jobs "$JOBS" "$@" \
        >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        say "$name: divergence certify exit $rc:"
        tail -5 "$tmp/$name.err" "$tmp/$name.out" >&2
        exit 2
    fi
    tail -1 "$tmp/time" >"$tmp/t1"
    read -r w u s <"$tmp/t1"
    say "$name: $w s wall, $u s user, $s s sys (load $(load))"
    if [ ! -s "$tmp/$name.best" ] || faster "$w" "$(cut -d' ' -f1 "$tmp/$name.best")"; then
        echo "$w $u $s" >"$tmp/$name.best"
        awk '/ cases +[0-9]+ elements/ { c += $(NF-3) }
             /^    contexts: threads [0-9]/ { t += substr($4, 2) }
             /two instances at once \(/ { split($0, p, "two instances at once \\("); i += p[2] + 0 }
             END { printf "%d %d %d\n", c, t, i }' "$tmp/$name.out" >"$tmp/$name.counts"
    fi
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
    read -r c t i <"$tmp/$1.counts"
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
