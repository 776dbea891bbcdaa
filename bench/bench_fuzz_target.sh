#!/bin/sh
# SPDX-License-Identifier: MIT
# libFuzzer figures of the in-process target fuzz/fuzz_div.c (build it first
# with scripts/fuzz-build.sh): execs/s against the reference kernel (goal
# >= 100k/s on small tensors), wall clock as libFuzzer reports it and per
# CPU second (this machine is shared: the second figure is what one idle
# core gives), then the time libFuzzer needs, from an empty corpus, to trap
# on each mutant given (default: the value mutants of the zoo and the shape
# mutants that the default element budget of 256 reaches).
#
# Usage: bench/bench_fuzz_target.sh [-b BUILD_DIR] [-s SECONDS] [MUTANT...]
#   BUILD_DIR  a scripts/fuzz-build.sh build (default build-fuzz)
#   SECONDS    throughput run length (default 20)
#   MUTANT     names of tests/mutants (floor_not_trunc, recip_mul, ...)
set -u
cd "$(dirname "$0")/.."
B=build-fuzz S=20
while getopts b:s: o; do
    case $o in b) B=$OPTARG ;; s) S=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- floor_not_trunc trunc_not_floor recip_mul flush_subnormals \
    int_via_double wrong_inf_sign nan_to_num bcast_ignores_a1 crash_int_min \
    remainder_17 row_bcast_32k1 outer_product rank8_stride
T=$B/fuzz_div
[ -x "$T" ] || { echo "bench_fuzz_target: no $T (run scripts/fuzz-build.sh)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/dev/shm}/bench_fuzz.XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Throughput: seeds from corpus/div, new units into a scratch directory
# (tmpfs when there is one: libFuzzer writes every new unit).
# Small tensors (16 elements, the target's default before its shape-path
# layout; the default of 256 runs about a third as many execs/s) unless
# DIVERGENCE_FUZZ_MAX_ELEMENTS says otherwise.
mkdir "$tmp/new"
ME=${DIVERGENCE_FUZZ_MAX_ELEMENTS:-16}
DIVERGENCE_FUZZ_MAX_ELEMENTS=$ME DIVERGENCE_PLUGIN=$B/plugins/reference.so /usr/bin/time -f 'cpu %U %S' \
    "$T" -max_total_time="$S" -print_final_stats=1 -dict=fuzz/div.dict \
    "$tmp/new" corpus/div >"$tmp/log" 2>&1
rc=$?
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log")
wall=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/log")
cpu=$(sed -n 's/^cpu //p' "$tmp/log" | awk '{ print $1 + $2 }')
if [ "$rc" -ne 0 ] || [ -z "$runs" ]; then
    echo "bench_fuzz_target: the reference run failed (exit $rc):" >&2
    tail -n 20 "$tmp/log" >&2
    exit 1
fi
percpu=$(awk "BEGIN { printf \"%d\", $runs / ($cpu > 0 ? $cpu : 1) }")
echo "fuzz_div ($B), reference kernel, ${S} s, seeds corpus/div, max $ME elements per tensor:"
echo "  $runs runs: $wall execs/s (wall), $percpu execs/s per CPU second ($cpu s CPU)"
echo "  goal >= 100000 execs/s: $( [ "$percpu" -ge 100000 ] && echo met || echo NOT met) (per CPU second)"

echo "time to first finding from an empty corpus (libFuzzer -seed=1, 60 s at most):"
for m in "$@"; do
    so=$B/tests/mutants/mutant_$m.so
    [ -f "$so" ] || { printf '  %-22s %s\n' "$m" "no $so"; continue; }
    rm -rf "$tmp/m" && mkdir "$tmp/m"
    start=$(date +%s.%N)
    (cd "$tmp" && DIVERGENCE_PLUGIN=$(cd "$OLDPWD" && pwd)/$so \
        "$OLDPWD/$T" -seed=1 -max_total_time=60 -timeout=5 "$tmp/m" >"$tmp/mlog" 2>&1)
    end=$(date +%s.%N)
    what=$(grep -o 'FINDING [a-z-]*' "$tmp/mlog" | head -n 1 | cut -d' ' -f2)
    [ -n "$what" ] || what=$(grep -o 'ERROR: libFuzzer: [a-z-]*\|ERROR: [A-Za-z]*Sanitizer: [A-Za-z-]*' "$tmp/mlog" | head -n 1)
    runs=$(grep -oE '^#[0-9]+' "$tmp/mlog" | tail -n 1)
    if grep -q 'artifact_prefix' "$tmp/mlog"; then
        printf '  %-22s %6.2f s  %-28s after %s execs\n' "$m" \
            "$(echo "$end - $start" | bc)" "$what" "${runs#\#}"
    else
        printf '  %-22s NOT FOUND in 60 s\n' "$m"
    fi
    rm -f "$tmp"/crash-* "$tmp"/timeout-* "$tmp"/oom-* "$tmp"/leak-*
done
