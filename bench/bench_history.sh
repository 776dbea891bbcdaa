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
say() { echo "bench_history: $*" >&2; }

# run NAME DIVERGENCE: one certification; keeps NAME's best wall time (and
# that run's user and system time) in $tmp/NAME.best, its counts in
# $tmp/NAME.counts
run() {
    name=$1 bin=$2
    rm -f "$tmp/$name.db" "$tmp/$name.db-wal" "$tmp/$name.db-shm"
    /usr/bin/time -f '%e %U %S' -o "$tmp/time" "$bin" certify --plugin "$REF" --no-progress \
        --db "$tmp/$name.db" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        say "$name: divergence certify exit $rc (the reference must hold):"
        tail -5 "$tmp/$name.out" "$tmp/$name.err" >&2
        exit 2
    fi
    tail -1 "$tmp/time" >"$tmp/t1"
    read -r w u s <"$tmp/t1"
    say "$name: $w s wall, $u s user, $s s sys (load $(cut -d' ' -f1 /proc/loadavg))"
    if [ ! -s "$tmp/$name.best" ] || awk -v a="$w" -v b="$(cut -d' ' -f1 "$tmp/$name.best")" \
        'BEGIN { exit !(a < b) }'; then
        echo "$w $u $s" >"$tmp/$name.best"
        awk '/ cases +[0-9]+ elements/ { c += $(NF-3); e += $(NF-1) } END { printf "%d %d\n", c, e }' \
            "$tmp/$name.out" >"$tmp/$name.counts"
    fi
}

i=0
while [ $i -lt "$REPS" ]; do
    run base "$BASE"
    run new "$D"
    i=$((i + 1))
done
read -r bw bu bs <"$tmp/base.best"
read -r nw nu ns <"$tmp/new.best"
read -r bc be <"$tmp/base.counts"
read -r nc ne <"$tmp/new.counts"
echo "| certify the reference, default flags (best of $REPS) | wall s | user s | sys s | cases | elements |"
echo "| --- | ---: | ---: | ---: | ---: | ---: |"
echo "| before (base: $BASE) | $bw | $bu | $bs | $bc | $be |"
echo "| after (this build) | $nw | $nu | $ns | $nc | $ne |"
awk -v bw="$bw" -v nw="$nw" -v bc="$bc" -v nc="$nc" -v be="$be" -v ne="$ne" 'BEGIN {
    printf "| extra: the calls stage, the resource watch, the history | %+.2f (x%.3f) | | | %+d | %+d |\n",
        nw - bw, (bw > 0 ? nw / bw : 0), nc - bc, ne - be }'
