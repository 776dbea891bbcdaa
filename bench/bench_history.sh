#!/bin/sh
# SPDX-License-Identifier: MIT
# What issue 26's checks cost the certification of the reference kernel:
# `divergence certify` of BUILD/plugins/reference.so with default flags by
# a divergence from before them (BASE, e.g. a build of the merge base) and
# by this build, interleaved, REPS times each, a fresh database each. The
# extra cost is the calls stage (each claim's shapes under another claim
# and the other rounding, back to back: the cases the new build adds), the
# resource watch (a /proc sample every 32 calls) and the call-history log
# (a probe runs only for a departure: the reference has none). Wall, user
# and system time from /usr/bin/time, best run of each; the case and
# element counts of both are printed too.
#
# Usage: bench/bench_history.sh BUILD_DIR BASE_DIVERGENCE
#   REPS=N  runs of each (default 3)
# Prints one line per run on stderr and a Markdown table on stdout.
set -u
. "$(dirname "$0")/lib.sh"
[ $# -eq 2 ] || { echo "usage: bench/bench_history.sh BUILD_DIR BASE_DIVERGENCE" >&2; exit 2; }
B=$1 BASE=$2
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
REPS=${REPS:-3}
for f in "$D" "$BASE"; do
    [ -x "$f" ] || { echo "bench_history: no executable $f" >&2; exit 2; }
done
[ -e "$REF" ] || { echo "bench_history: no $REF (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BENCH=bench_history

# run NAME DIVERGENCE: one certification of the reference (certify_best)
run() { certify_best "$1" "$2" "$REF"; }

i=0
while [ $i -lt "$REPS" ]; do
    run base "$BASE"
    run new "$D"
    i=$((i + 1))
done
read -r bw bu bs <"$tmp/base.best"
read -r nw nu ns <"$tmp/new.best"
case_counts base >"$tmp/counts"
read -r bc be <"$tmp/counts"
case_counts new >"$tmp/counts"
read -r nc ne <"$tmp/counts"
echo "| certify the reference, default flags (best of $REPS) | wall s | user s | sys s | cases | elements |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
echo "| before (base: $BASE) | $bw | $bu | $bs | $bc | $be |"
echo "| after (this build) | $nw | $nu | $ns | $nc | $ne |"
awk -v bw="$bw" -v nw="$nw" -v bc="$bc" -v nc="$nc" -v be="$be" -v ne="$ne" 'BEGIN {
    printf "| extra: the calls stage, the resource watch, the history | %+.2f (x%.3f) | | | %+d | %+d |\n",
        nw - bw, (bw > 0 ? nw / bw : 0), nc - bc, ne - be }'
