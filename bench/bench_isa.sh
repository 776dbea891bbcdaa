#!/bin/sh
# SPDX-License-Identifier: MIT
# What the default certify's emulated sample costs (issue 25): the
# reference kernel certified with default flags (native, and the ISA level
# below the host's on a sample under QEMU's user-mode emulator) against
# the same build with --cpu native (the native part alone), and against a
# base build from before issue 25 (BASE, optional: its default, which was
# native only), interleaved, REPS runs each, a fresh database each; the
# emulated part (default - native) shown on its own. Goal: the default
# within 1.5x of the base's. Each figure is the best run's wall time.
#
# Usage: bench/bench_isa.sh [BUILD_DIR [BASE_DIVERGENCE]]
#   REPS=N   runs of each (default 3)
# Prints one line per run on stderr and a Markdown table on stdout.
set -u
B=${1:-build}
BASE=${2:-}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
REPS=${REPS:-3}
[ -x "$D" ] && [ -e "$REF" ] || { echo "bench_isa: no $D or $REF (build first)" >&2; exit 2; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "bench_isa: no base build $BASE" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
say() { echo "bench_isa: $*" >&2; }
load() { cut -d' ' -f1 /proc/loadavg; }

# run NAME BINARY ARGS...: one certification; the best wall time of NAME
# in $tmp/NAME.best, that run's case count in $tmp/NAME.cases
run() {
    name=$1 bin=$2
    shift 2
    rm -f "$tmp/$name.db" "$tmp/$name.db-wal" "$tmp/$name.db-shm"
    /usr/bin/time -f '%e' -o "$tmp/time" "$bin" certify --plugin "$REF" --no-progress \
        --db "$tmp/$name.db" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    rc=$?
    if [ $rc -gt 1 ]; then
        say "$name: divergence certify exit $rc:"; tail -5 "$tmp/$name.err" >&2; exit 2
    fi
    w=$(tail -1 "$tmp/time")
    say "$name: $w s wall (load $(load))"
    if [ ! -s "$tmp/$name.best" ] || awk -v a="$w" -v b="$(cat "$tmp/$name.best")" \
        'BEGIN { exit !(a < b) }'; then
        echo "$w" >"$tmp/$name.best"
        awk '/ cases +[0-9]+ elements/ { c += $(NF-3) } END { print c + 0 }' \
            "$tmp/$name.out" >"$tmp/$name.cases"
        grep '^  cpus:' "$tmp/$name.out" >"$tmp/$name.cpus" || :
    fi
}

say "$(nproc) cores, load average $(load) at the start; $REPS runs each"
for rep in $(seq "$REPS"); do
    [ -z "$BASE" ] || run base "$BASE"
    run default "$D"
    run native "$D" --cpu native
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }'; }
dw=$(cat "$tmp/default.best") nw=$(cat "$tmp/native.best")
dc=$(cat "$tmp/default.cases") nc=$(cat "$tmp/native.cases")
ew=$(awk -v a="$dw" -v b="$nw" 'BEGIN { printf "%.1f", a - b }')
echo "| figure | measured | baseline (same run) | ratio / goal |"
echo "| --- | --- | --- | --- |"
if [ -n "$BASE" ]; then
    bw=$(cat "$tmp/base.best") bc=$(cat "$tmp/base.cases")
    met=$(awk -v a="$dw" -v b="$bw" 'BEGIN { print (a <= 1.5 * b ? "met" : "missed") }')
    echo "| certify the reference, default flags: $dc cases; wall s (best of $REPS) | $dw | base build's default: $bc cases, $bw | $(ratio "$dw" "$bw"); goal <= 1.5x: $met |"
fi
echo "| the same, native part alone (--cpu native): $nc cases | $nw | | |"
sc=$(sed -n 's/.*sample of \([0-9]*\) cases.*/\1/p' "$tmp/default.cpus")
echo "| the emulated sample alone (default - native): ${sc:-0} cases under $(sed -n 's/.*, \(x86-64-v[0-9]\) emulated.*/\1/p' "$tmp/default.cpus") | $ew | native part $nw | $(ratio "$ew" "$nw") |"
say "$(cat "$tmp/default.cpus")"
say "load average $(load) at the end"
