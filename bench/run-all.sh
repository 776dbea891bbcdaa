#!/bin/sh
# SPDX-License-Identifier: MIT
# Every performance figure of Divergence, each with its baseline measured in
# the same run, as one Markdown table (and the goals of the issues that set
# them). Sweep times and their baselines are the best of three runs (the
# machine may be shared). Run it on an idle machine; it takes about three
# minutes, and bench_zygote.sh about ten more.
#
# Usage: bench/run-all.sh [BUILD_DIR]        (or: ninja -C build bench)
#   SWEEP_TYPES   small dtypes to sweep (default: f16 bf16 i16 u16 i8 u8 i4 u4)
#   FUZZ_SECONDS  length of each fuzz throughput run (default 5)
#   SKIP_FLUSH=1  leave out the 2^32-pair sweep of mutant_flush_subnormals (35 s)
#   SKIP_SHAPES=1 leave out the shape-space figures (about 2 minutes)
#   SKIP_ZYGOTE=1 leave out bench_zygote.sh (certify libtorch with and without
#                 the zygote, 3 pairs: about 10 minutes; SKIP_LIBTORCH=1 keeps
#                 the rest of it)
#   SKIP_CERTIFY=1 leave out bench_certify.sh (the full certification of the
#                 reference and the one without shape paths, 3 of each: about
#                 a minute)
#   SKIP_DIFF=1   leave out bench_diff.sh (divergence diff of the six
#                 implementations and its baselines: about 2 minutes)
#   SKIP_OPENCL=1 leave out bench_opencl.sh (certify of the OpenCL plugin on
#                 PoCL with --grant pocl, and its open() in the worker,
#                 against the reference: about 5 minutes)
#   SKIP_ISA=1    leave out bench_isa.sh (the default certify of the reference,
#                 with its emulated sample, and --cpu native, 3 of each: about
#                 3 minutes)
set -u
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
D=$B/divergence
REF=$B/plugins/reference.so
MUT=$B/tests/mutants
TYPES=${SWEEP_TYPES:-f16 bf16 i16 u16 i8 u8 i4 u4}
FS=${FUZZ_SECONDS:-5}
JOBS=$(nproc)
for f in "$D" "$REF" "$B/bench_sweep" "$B/bench_store" "$B/bench_shapes"; do
    [ -e "$f" ] || { echo "run-all: no $f (build first: ninja -C $B)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows
: >"$rows"
# row FIGURE MEASURED BASELINE RATIO
row() { printf '| %s | %s | %s | %s |\n' "$1" "$2" "$3" "$4" >>"$rows"; }
BENCH=run-all
# runs a command under /usr/bin/time; `took` then gives "SECONDS PEAK_RSS_KIB"
timed() { /usr/bin/time -f '%e %M' -o "$tmp/time" "$@"; }
took() { tail -1 "$tmp/time"; }
# best3 OUT DB ARGS...: a sweep three times (fresh database each), the output
# of the fastest in OUT; `took` then gives its time and the largest RSS.
best3() {
    out=$1 db=$2
    shift 2
    best=999999 rssmax=0
    for rep in 1 2 3; do
        rm -f "$db" "$db-wal" "$db-shm"
        /usr/bin/time -f '%e %M' -o "$tmp/time1" "$@" --db "$db" >"$out.$rep" 2>&1
        line=$(tail -1 "$tmp/time1")
        sec=${line% *} kib=${line#* }
        [ "$kib" -gt "$rssmax" ] && rssmax=$kib
        if awk -v a="$sec" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$sec; cp "$out.$rep" "$out"; fi
    done
    echo "$best $rssmax" >"$tmp/time"
}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh" # faster, ratio, add, say, load

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
echo "Divergence figures, $(date -u +%Y-%m-%d), $(uname -m), $cpu, $JOBS cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo); load average $(load) at the start"

# 1. The oracle against MPFR ------------------------------------------------------
if [ -x "$B/bench_oracle" ]; then
    say "oracle vs MPFR"
    "$B/bench_oracle" >"$tmp/oracle" 2>&1
    while read -r t exact fast mpfr _ _; do
        case $t in f16|bf16|f32|f64) ;; *) continue ;; esac
        row "oracle $t, exact path (elements/s, 1 thread)" "$exact" "MPFR $mpfr" "$(ratio "$exact" "$mpfr")"
        row "oracle $t, fast path (elements/s, 1 thread)" "$fast" "MPFR $mpfr" "$(ratio "$fast" "$mpfr")"
    done <"$tmp/oracle"
else
    row "oracle vs MPFR" "not built (libmpfr-dev)" "" ""
fi

# 2. Exhaustive sweeps of the reference kernel -------------------------------------
# (the pairs only: --shape-tier 0 leaves out the ~1,000 shape-path cases a sweep
# judges after them, which its in-process baseline does not have; section 5
# measures the shape paths)
for t in $TYPES; do
    say "sweep $t"
    best3 "$tmp/s-$t" "$tmp/s-$t.db" "$D" sweep --plugin "$REF" --dtype "$t" --no-progress --shape-tier 0
    set -- $(took)
    wall=$1 rss=$2
    pairs=$(sed -n 's/^  \([0-9]*\) pairs judged.*/\1/p' "$tmp/s-$t")
    verdict=$(sed -n 's/^  \(CONFORMANT\|NONCONFORMANT\|CRASHED\).*/\1/p' "$tmp/s-$t" | head -1)
    worker=$(sed -n 's/.*MiB in this process, \([0-9.]*\) MiB in the largest worker.*/\1/p' "$tmp/s-$t")
    variant=$(sed -n 's/^Sweep: .*), \([a-z0-9-]*\) '"$t"' .*/\1/p' "$tmp/s-$t")
    case $(sed -n 's/^  batches: //p' "$tmp/s-$t") in
        *numpy*) layout=numpy ;; *"axis 0"*) layout=axis0 ;; *) layout=flat ;;
    esac
    if [ "$t" = f16 ] || [ "$t" = bf16 ] || [ "$t" = i16 ] || [ "$t" = u16 ]; then
        "$B/bench_sweep" "$REF" "$t" "$variant" "$layout" "$JOBS" >"$tmp/k-$t" 2>&1
        kw=$(sed -n 's/.*kernel_wall=\([0-9.]*\).*/\1/p' "$tmp/k-$t")
        kc=$(sed -n 's/.*kernel_cpu=\([0-9.]*\).*/\1/p' "$tmp/k-$t")
        iw=$(sed -n 's/.*inproc_wall=\([0-9.]*\).*/\1/p' "$tmp/k-$t")
        row "sweep $t, every pair ($pairs), $variant, $JOBS jobs: wall s ($verdict)" "$wall" \
            "kernel alone $kw ($kc CPU s)" "$(ratio "$wall" "$kw") (goal: <= 10 s; <= 1.5x)"
        row "sweep $t without isolation (kernel + check in-process), wall s" "$iw" \
            "kernel alone $kw" "$(ratio "$iw" "$kw"); sweep/this $(ratio "$wall" "$iw")"
    else
        row "sweep $t, every pair ($pairs), $variant: wall s ($verdict)" "$wall" "-" "start-up bound"
    fi
    row "sweep $t peak memory (MiB)" "$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }') + $JOBS x $worker (workers)" "-" "goal < 1024"
done
say "sweep f16, onnx-div-14 (numpy layout)"
best3 "$tmp/s-np" "$tmp/s-np.db" "$D" sweep --plugin "$REF" --dtype f16 --variant onnx-div-14 --no-progress --shape-tier 0
set -- $(took)
"$B/bench_sweep" "$REF" f16 onnx-div-14 numpy "$JOBS" >"$tmp/k-np" 2>&1
kw=$(sed -n 's/.*kernel_wall=\([0-9.]*\).*/\1/p' "$tmp/k-np")
iw=$(sed -n 's/.*inproc_wall=\([0-9.]*\).*/\1/p' "$tmp/k-np")
row "sweep f16, onnx-div-14 (A (k,1) / B (65536)), wall s" "$1" "kernel alone $kw; in-process $iw" "$(ratio "$1" "$kw") / $(ratio "$1" "$iw")"
for t in f32 f64; do
    say "structured sweep $t"
    timed "$D" sweep --plugin "$REF" --dtype "$t" --db "$tmp/s-$t.db" --no-progress --shape-tier 0 >"$tmp/s-$t" 2>&1
    set -- $(took)
    pairs=$(sed -n 's/^  \([0-9]*\) pairs judged.*/\1/p' "$tmp/s-$t")
    row "sweep $t, structured (edge table x edge table + 2^24 random = $pairs pairs), wall s" "$1" "-" "-"
done
if [ "${SKIP_FLUSH:-0}" != 1 ]; then
    say "sweep f16 of mutant_flush_subnormals (every pair)"
    timed "$D" sweep --plugin "$MUT/mutant_flush_subnormals.so" --dtype f16 --db "$tmp/flush.db" --no-progress --shape-tier 0 >"$tmp/flush" 2>&1
    set -- $(took)
    n=$(sed -n 's/^ *flushed-subnormal-output *\([0-9]*\) elements.*/\1/p' "$tmp/flush")
    size=$(wc -c <"$tmp/flush.db")
    repro=$(sqlite3 "$tmp/flush.db" 'SELECT count(*) FROM reproducers' 2>/dev/null || echo '?')
    row "sweep f16 of mutant_flush_subnormals: wall s ($n flushed elements)" "$1" "reference $(sed -n 's/^| sweep f16, every pair[^|]*| \([0-9.]*\) .*/\1/p' "$rows")" "-"
    row "  its database (bytes; $repro reproducers)" "$size" "-" "small: counts per class and operand class"
fi

# 3. Fuzzing -------------------------------------------------------------------
say "fuzz throughput"
"$D" fuzz --plugin "$REF" --seconds "$FS" --jobs 1 --pin --db "$tmp/f1.db" --no-progress >"$tmp/f1" 2>&1
"$D" fuzz --plugin "$REF" --seconds "$FS" --jobs 1 --no-pin --db "$tmp/f1u.db" --no-progress >"$tmp/f1u" 2>&1
"$D" fuzz --plugin "$REF" --seconds "$FS" --jobs "$JOBS" --db "$tmp/fn.db" --no-progress >"$tmp/fn" 2>&1
c1=$(sed -n 's/.*: \([0-9]*\) cases\/s.*/\1/p' "$tmp/f1")
c1u=$(sed -n 's/.*: \([0-9]*\) cases\/s.*/\1/p' "$tmp/f1u")
cn=$(sed -n 's/.*: \([0-9]*\) cases\/s.*/\1/p' "$tmp/fn")
row "fuzz campaign, reference, isolated workers, $JOBS jobs pinned (cases/s)" "$cn" "1 job pinned $c1" "$(ratio "$cn" "$c1") (goal >= 20000)"
row "fuzz campaign, 1 job, job and worker pinned to one CPU (cases/s)" "$c1" "1 job unpinned $c1u" "$(ratio "$c1" "$c1u")"
if [ -x "$B-fuzz/fuzz_div" ] || [ -x "$(dirname "$B")/build-fuzz/fuzz_div" ]; then
    F=$(dirname "$B")/build-fuzz
    [ -x "$B-fuzz/fuzz_div" ] && F=$B-fuzz
    say "libFuzzer target"
    mkdir -p "$tmp/new"
    DIVERGENCE_PLUGIN=$F/plugins/reference.so /usr/bin/time -f 'cpu %U %S' "$F/fuzz_div" \
        -max_total_time="$FS" -print_final_stats=1 "$tmp/new" "$(dirname "$0")/../corpus/div" >"$tmp/lf" 2>&1
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/lf")
    per=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$tmp/lf")
    row "libFuzzer fuzz_div, in-process, reference (execs/s)" "${per:-?}" "campaign $c1 cases/s per job" "$(ratio "${per:-0}" "${c1:-0}")"
else
    row "libFuzzer fuzz_div" "not built (scripts/fuzz-build.sh)" "" ""
fi

# 4. The store --------------------------------------------------------------------
say "store"
"$B/bench_store" 20000 "$tmp" >"$tmp/store" 2>&1
for k in findings signatures counts; do
    v=$(sed -n "s/.*$k=\([0-9]*\).*/\1/p" "$tmp/store")
    raw=$(sed -n 's/.*raw=\([0-9]*\).*/\1/p' "$tmp/store")
    row "store: $k recorded per s (transactions of 1000)" "$v" "plain SQLite insert $raw" "$(ratio "$v" "$raw")"
done

# 5. The shape space (issue 14) -------------------------------------------------------
# What the shape walker adds to a claim (bench_shapes: cases and elements per
# size tier), certify of the reference with and without it (best of 3 each,
# interleaved), and how long `fuzz` (2 jobs, stop at the first finding) takes
# to find each shape mutant of the zoo (seeds 1-3, the median).
if [ "${SKIP_SHAPES:-0}" != 1 ] && [ -x "$B/bench_shapes" ]; then
    say "shape space"
    "$B/bench_shapes" >"$tmp/shapes" 2>&1
    sed -n 's/^| \(paths below\|about 2^\(1[0-9]\|2[0-4]\)\|all\)/&/p' "$tmp/shapes" |
        sed 's/ *| */|/g' | while IFS='|' read -r _ fam cases elems _; do
            row "shape paths per claim, $fam (cases / output elements, mean of the oracle's claims)" \
                "$cases / $elems" "-" "-"
        done
    for rep in 1 2 3; do
        for tier in 0 24; do
            rm -f "$tmp/c.db"
            /usr/bin/time -f '%e' -o "$tmp/c$tier.$rep" "$D" certify --plugin "$REF" --db "$tmp/c.db" \
                --no-progress --shape-tier "$tier" >/dev/null 2>&1
        done
    done
    best_of() { cat "$@" | sort -n | head -1; }
    with=$(best_of "$tmp"/c24.*) without=$(best_of "$tmp"/c0.*)
    row "certify the reference, every claim, with the shape paths (wall s, best of 3)" "$with" \
        "without them (--shape-tier 0) $without" "$(ratio "$with" "$without") (goal: well under a minute)"
    for m in remainder_17 row_bcast_32k1 outer_product rank8_stride threshold_4mi align_a_vs_c; do
        [ -e "$MUT/mutant_$m.so" ] || continue
        : >"$tmp/find"
        for seed in 1 2 3; do
            rm -f "$tmp/f.db"
            "$D" fuzz --plugin "$MUT/mutant_$m.so" --seconds 120 --stop-on-finding --jobs 2 \
                --seed "$seed" --db "$tmp/f.db" --no-progress >"$tmp/f.out" 2>&1
            t=$(sed -n 's/.*first finding after \([0-9.]*\) s.*/\1/p' "$tmp/f.out" | head -1)
            echo "${t:-none}" >>"$tmp/find"
        done
        med=$(sort -n "$tmp/find" | sed -n 2p)
        row "fuzz: time to the first finding, mutant $m (s, median of seeds 1-3)" "$med" \
            "$(tr '\n' ' ' <"$tmp/find")" "goal: within a 60 s campaign"
    done
fi

# sub_bench NAME SCRIPT PATTERN [SUFFIX]: runs bench/SCRIPT on the build
# and takes the rows of its table whose figure matches PATTERN (SUFFIX
# appended to each figure); its log in $tmp/NAME.log
sub_bench() {
    name=$1 script=$2 pattern=$3 suffix=${4:-}
    sh "$(dirname "$0")/$script" "$B" 2>"$tmp/$name.log" | grep -E "^\| ($pattern)" |
        sed 's/ *| */|/g' | while IFS='|' read -r _ fig m base rat _; do
            row "$fig$suffix" "$m" "$base" "$rat"
        done
    if [ -s "$tmp/$name.log" ] && grep -q 'exit 2\|no .*\.so' "$tmp/$name.log"; then
        row "$name" "not run: $(tail -1 "$tmp/$name.log")" "" ""
    fi
}

# 6. The zygote: a crash costs a fork, not a reload ---------------------------------
if [ "${SKIP_ZYGOTE:-0}" != 1 ]; then
    say "zygote (certify libtorch and the reference, sweep f16; each with and without)"
    sub_bench zygote bench_zygote.sh 'certify|sweep' ", wall s, with the zygote (baseline: reloading)"
fi

# 7. divergence diff of the six implementations (issue 16) --------------------------
if [ "${SKIP_DIFF:-0}" != 1 ]; then
    say "diff of the six implementations (and the reference against itself, and each library alone)"
    sub_bench diff bench_diff.sh 'diff|the'
fi

# 8. The full certification of the reference against the one without the
#    shape paths (issue 23) ---------------------------------------------------------
if [ "${SKIP_CERTIFY:-0}" != 1 ]; then
    say "certify the reference, default flags and --shape-tier 0, interleaved"
    sub_bench certify bench_certify.sh 'certify|the same'
fi

# 9. A compiled kernel: the OpenCL plugin on PoCL (issue 28) ----------------------
if [ "${SKIP_OPENCL:-0}" != 1 ]; then
    if [ -e "$B/plugins/opencl.so" ]; then
        say "certify of the OpenCL plugin with --grant pocl, its open(), and the reference"
        sh "$(dirname "$0")/bench_opencl.sh" "$B" 2>"$tmp/opencl.log" | grep -E '^\| (certify|the) ' |
            sed 's/ *| */|/g' | while IFS='|' read -r _ fig m base rat _; do
                row "$fig" "$m" "$base" "$rat"
            done
    else
        row "certify of the OpenCL plugin" "not built (ocl-icd-opencl-dev, opencl-headers)" "" ""
    fi
fi

# 10. The default certify's emulated sample (issue 25): default flags against
#    --cpu native (no base build here: bench_isa.sh BUILD BASE compares one)
if [ "${SKIP_ISA:-0}" != 1 ]; then
    say "certify the reference, default flags (the emulated sample) and --cpu native"
    sub_bench isa bench_isa.sh 'certify|the same|the emulated'
fi

echo "(load average $(load) at the end: other work on the machine inflates the figures)"
echo
echo "| figure | measured | baseline (same run) | ratio / goal |"
echo "| --- | --- | --- | --- |"
cat "$rows"
