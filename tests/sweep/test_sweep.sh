#!/bin/sh
# SPDX-License-Identifier: MIT
# `divergence sweep` end to end: the reference kernel conforms on every
# pair of i8, u8, i4, u4 and f16 and on shards of bf16, i16, u16 (and on
# the structured f32/f64 space, which says it is not exhaustive); the
# mutants are found with their class; a sweep killed with SIGKILL at a
# random point and resumed (twice) ends with the counts, histograms,
# operand counts and signatures of an uninterrupted sweep; the database of
# a kernel that flushes every subnormal stays small; reproducers replay;
# bad flags exit 2.
# Usage: test_sweep.sh DIVERGENCE REFERENCE_SO MUTANT_DIR
set -u
D=$1 REF=$2 M=$3
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 "$1" "$2"; }
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: sqlite3 is not installed" >&2; exit 77; }

# sweep NAME EXPECTED_EXIT ARGS...: runs a sweep into $tmp/NAME.db.
sweep() {
    name=$1 want=$2
    shift 2
    "$D" sweep --db "$tmp/$name.db" --no-progress "$@" >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -eq "$want" ]; then ok; else bad "$name: exit $rc, expected $want: $(cat "$tmp/$name.out")"; fi
}
has() { # has NAME TEXT
    if grep -q -- "$2" "$tmp/$1.out"; then ok; else bad "$1: no '$2' in: $(cat "$tmp/$1.out")"; fi
}

# 1. The reference kernel conforms on every pair.
for t in i8 u8 i4 u4; do
    sweep ref-$t 0 --plugin "$REF" --dtype $t
    has ref-$t "space: exhaustive, every $t pair"
    has ref-$t CONFORMANT
done
sweep ref-i8-sonnx 0 --plugin "$REF" --dtype i8 --variant sonnx-div   # equal shapes, floor
has ref-i8-sonnx "equal shapes"
sweep ref-u4-pdpd 0 --plugin "$REF" --dtype u4 --variant openvino-divide-1 --attr auto_broadcast=pdpd
has ref-u4-pdpd "along axis 0"
sweep ref-f16 0 --plugin "$REF" --dtype f16
has ref-f16 "4294967296 pairs judged"
pairs=$(q "$tmp/ref-f16.db" "SELECT pairs_done || ' ' || covered || ' ' || verdict FROM v_sweeps")
if [ "$pairs" = "4294967296 1 CONFORMANT" ]; then ok; else bad "ref-f16 sweeps row: $pairs"; fi
for t in bf16 i16 u16; do
    sweep ref-$t 0 --plugin "$REF" --dtype $t --shard 5/16
    has ref-$t "this shard: 16 chunks, 268435456 pairs"
done
sweep ref-f32 0 --plugin "$REF" --dtype f32 --random 1048576 --seed 7
has ref-f32 "structured, NOT exhaustive"
has ref-f32 "1048576 random pairs (seed 7)"
sweep ref-f64 0 --plugin "$REF" --dtype f64 --random 65536 --variant onnx-div-14

# 2. Mutants: found, with their class.
sweep flush 1 --plugin "$M/mutant_flush_subnormals.so" --dtype f16 --shard 0/64
has flush flushed-subnormal-output
sweep trunc 1 --plugin "$M/mutant_trunc_not_floor.so" --dtype i16 --variant openvino-divide-1 --shard 7/256
has trunc floor-vs-trunc
sweep floor 1 --plugin "$M/mutant_floor_not_trunc.so" --dtype i8
has floor floor-vs-trunc
sweep nan 1 --plugin "$M/mutant_nan_to_num.so" --dtype bf16 --shard 3/64
has nan nan-expected
sweep inf 1 --plugin "$M/mutant_wrong_inf_sign.so" --dtype f16 --variant onnx-div-14 --shard 0/64
has inf wrong-sign-inf
sweep recip 1 --plugin "$M/mutant_recip_mul.so" --dtype f32 --random 65536
has recip wrong-value
sweep skip 1 --plugin "$M/mutant_skip_last.so" --dtype u8
has skip element-not-written
sweep nondet 1 --plugin "$M/mutant_nondeterministic.so" --dtype i8
has nondet nondeterministic
sweep crash 1 --plugin "$M/mutant_crash_int_min.so" --dtype i8
has crash CRASHED
n=$(q "$tmp/crash.db" "SELECT count(*) FROM reproducers WHERE note LIKE '%narrowed to output element%'")
if [ "${n:-0}" -ge 1 ]; then ok; else bad "crash: no narrowed reproducer"; fi
sweep oob 1 --plugin "$M/mutant_oob_write.so" --dtype u4
has oob out-of-bounds-write
sweep input 1 --plugin "$M/mutant_writes_input.so" --dtype i8
has input input-mutated
sweep hang 1 --plugin "$M/mutant_hang.so" --dtype i4 --timeout 300
has hang "stopped: a batch hung"

# The shape paths after the pairs (sweep/paths.c): remainder_17 is right on
# every i8 pair of the sweep's layout and wrong on a 17-wide tail of rank 3.
sweep paths 1 --plugin "$M/mutant_remainder_17.so" --dtype i8
has paths "shape paths (harness/cases/shapes.h, up to 2^12 + 1 elements): [0-9]* cases, [0-9]* elements: NONCONFORMANT"
n=$(q "$tmp/paths.db" "SELECT count(*) FROM reproducers WHERE note LIKE 'sweep shape path: inner 17%'")
if [ "${n:-0}" -ge 1 ]; then ok; else bad "paths: no reproducer naming its path 'inner 17'"; fi
sweep nopaths 0 --plugin "$M/mutant_remainder_17.so" --dtype i8 --shape-tier 0
if grep -q "shape paths" "$tmp/nopaths.out"; then bad "nopaths: --shape-tier 0 walked them"; else ok; fi

# 3. Deduplicated and small: a kernel that flushes every subnormal.
n=$(q "$tmp/flush.db" "SELECT sum(elements) FROM operand_counts WHERE class = 'flushed-subnormal-output'")
c=$(q "$tmp/flush.db" "SELECT elements FROM counts WHERE class = 'flushed-subnormal-output'")
if [ "${n:-0}" -gt 1000000 ] && [ "$n" = "$c" ]; then ok; else bad "flush: operand counts $n, counts $c"; fi
r=$(q "$tmp/flush.db" "SELECT max(k) FROM (SELECT count(*) AS k FROM reproducers GROUP BY signature_id)")
if [ "${r:-99}" -le 8 ]; then ok; else bad "flush: $r reproducers for one signature"; fi
size=$(wc -c <"$tmp/flush.db")
if [ "$size" -lt 1048576 ]; then ok; else bad "flush: the database has $size bytes"; fi
# a reproducer replays
id=$(q "$tmp/flush.db" "SELECT id FROM reproducers LIMIT 1")
"$D" replay --db "$tmp/flush.db" "repro:$id" --plugin "$M/mutant_flush_subnormals.so" >"$tmp/replay.out" 2>&1
if [ $? -eq 1 ] && grep -q 'still departs' "$tmp/replay.out"; then ok; else bad "replay $id: $(cat "$tmp/replay.out")"; fi
"$D" db check "$tmp/flush.db" >/dev/null 2>&1 && ok || bad "db check flush.db"

# 4. Killed with SIGKILL at random points and resumed: the same counts.
RESUME="--plugin $M/mutant_wrong_inf_sign.so --dtype f16 --variant onnx-div-14 --shard 1/8"
sweep whole 1 $RESUME
seed=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
killed=0
for attempt in 1 2 3 4 5 6; do
    rm -f "$tmp"/k.db*
    for round in 1 2; do
        delay=$(awk -v s="$seed" -v a="$attempt" -v r="$round" \
            'BEGIN { srand(s + 7 * a + r); printf "%.2f", 0.1 + rand() * 1.2 }')
        [ "$round" -eq 1 ] && more="" || more="--resume"
        "$D" sweep --db "$tmp/k.db" --no-progress $RESUME $more >/dev/null 2>&1 &
        pid=$!
        sleep "$delay"
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    left=$(q "$tmp/k.db" "SELECT chunks - chunks_done FROM sweeps" 2>/dev/null)
    if [ -n "$left" ] && [ "$left" -gt 0 ]; then killed=1; break; fi
done
if [ $killed -eq 1 ]; then ok; else bad "no kill landed before the end (seed $seed)"; fi
echo "killed twice (seed $seed), $left chunks left to do"
"$D" db check "$tmp/k.db" >"$tmp/check.out" 2>&1 && ok || bad "db check after SIGKILL: $(cat "$tmp/check.out")"
"$D" sweep --db "$tmp/k.db" --no-progress $RESUME --resume >"$tmp/resumed.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "(resumed)" "$tmp/resumed.out"; then ok; else bad "resume: exit $rc: $(cat "$tmp/resumed.out")"; fi
for sql in \
    "SELECT variant, dtype, class, elements, cases FROM counts ORDER BY 1, 2, 3" \
    "SELECT variant, dtype, class, operand_class, elements FROM operand_counts ORDER BY 1, 2, 3, 4" \
    "SELECT variant, dtype, bucket, elements FROM ulp_histograms ORDER BY 1, 2, 3" \
    "SELECT class, operand_class, occurrences FROM signatures ORDER BY 1, 2" \
    "SELECT s.class, s.operand_class, g.occurrences FROM signature_runs g JOIN signatures s ON s.id = g.signature_id ORDER BY 1, 2" \
    "SELECT pairs, pairs_done, chunks, chunks_done, pairs_unjudged, verdict FROM sweeps" \
    "SELECT count(*), min(status) FROM runs"; do
    a=$(q "$tmp/whole.db" "$sql")
    b=$(q "$tmp/k.db" "$sql")
    # (a mutant without wrong values has no ULP histogram: empty on both sides)
    if [ "$a" = "$b" ] && { [ -n "$a" ] || [ "${sql#*ulp_histograms}" != "$sql" ]; }; then ok; else bad "resumed != uninterrupted for: $sql
uninterrupted: $a
resumed:       $b"; fi
done
# Nothing left to resume: a new sweep starts, saying so.
"$D" sweep --db "$tmp/k.db" --no-progress $RESUME --resume >"$tmp/again.out" 2>&1
grep -q "starting one" "$tmp/again.out" && ok || bad "resume of a finished sweep: $(cat "$tmp/again.out")"

# 5. Usage errors exit 2.
sweep bad-dtype 2 --plugin "$REF" --dtype i32
has bad-dtype "use certify or fuzz"
sweep bad-variant 2 --plugin "$REF" --dtype bf16 --variant onnx-div-7
sweep bad-attr 2 --plugin "$REF" --dtype i8 --attr nonsense=1
sweep bad-random 2 --plugin "$REF" --dtype f32 --random 100
sweep no-plugin 2 --plugin "$tmp/nothing.so" --dtype i8

finish
