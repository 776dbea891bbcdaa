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
. "$(dirname "$0")/lib.sh"
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
BENCH=bench_isa
CERTIFY_MAX_RC=1

# run NAME BINARY ARGS...: one certification of the reference (certify_best)
run() {
    name=$1 bin=$2
    shift 2
    certify_best "$name" "$bin" "$REF" "$@"
}

say "$(nproc) cores, load average $(load) at the start; $REPS runs each"
for rep in $(seq "$REPS"); do
    [ -z "$BASE" ] || run base "$BASE"
    run default "$D"
    run native "$D" --cpu native
done
dw=$(cut -d' ' -f1 "$tmp/default.best") nw=$(cut -d' ' -f1 "$tmp/native.best")
dc=$(case_counts default | cut -d' ' -f1) nc=$(case_counts native | cut -d' ' -f1)
ew=$(sub "$dw" "$nw")
grep '^  cpus:' "$tmp/default.out" >"$tmp/default.cpus" || :
echo "| figure | measured | baseline (same run) | ratio / goal |"
echo "| --- | --- | --- | --- |"
if [ -n "$BASE" ]; then
    bw=$(cut -d' ' -f1 "$tmp/base.best") bc=$(case_counts base | cut -d' ' -f1)
    met=$(awk -v a="$dw" -v b="$bw" 'BEGIN { print (a <= 1.5 * b ? "met" : "missed") }')
    echo "| certify the reference, default flags: $dc cases; wall s (best of $REPS) | $dw | base build's default: $bc cases, $bw | $(ratio "$dw" "$bw"); goal <= 1.5x: $met |"
fi
echo "| the same, native part alone (--cpu native): $nc cases | $nw | | |"
sc=$(sed -n 's/.*sample of \([0-9]*\) cases.*/\1/p' "$tmp/default.cpus")
echo "| the emulated sample alone (default - native): ${sc:-0} cases under $(sed -n 's/.*, \(x86-64-v[0-9]\) emulated.*/\1/p' "$tmp/default.cpus") | $ew | native part $nw | $(ratio "$ew" "$nw") |"
say "$(cat "$tmp/default.cpus")"
say "load average $(load) at the end"
