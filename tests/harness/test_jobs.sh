#!/bin/sh
# SPDX-License-Identifier: MIT
# The run engine's promise (harness/run/engine/engine.h): certify and diff
# give the same output and the same store whatever the number of jobs.
# Each run below goes once with --jobs 1 and once with --jobs 2 (and
# certify once more with --jobs 3), each into a fresh database; the
# certifications with more than one job also cut their claims into units
# of a few cases (DIVERGENCE_UNIT_CASES), so that a claim's cases are
# folded from many units, out of order, and its stop rules must hold
# across them. The runs must agree: the text on stdout
# (but for the seconds a run took and its database's path), and the rows
# of signatures, reproducers, counts, certificates and coverage (but for
# times, and the address a crash happened at, which ASLR moves). The
# plugins make each rule of the fold show: findings of many classes and
# more than the reproducers kept per signature (remainder_17), a crash
# narrowed once per claim and the shape stage stopped by its incomplete
# cases (crash_int_min), a claim stopped at its third hang (hang), and
# hazards of a plugin set and a plugin's departures (diff).
# Usage: test_jobs.sh DIVERGENCE REFERENCE_SO MUTANT_DIR DIFF_DIR
set -u
D=$1 REF=$2 M=$3 DIFF=$4
. "$(dirname "$0")/../lib.sh"

# dump DB: the rows a run leaves, in id order
dump() {
    sqlite3 "$1" "SELECT 's', id, implementation, variant, dtype, class, operand_class, occurrences,
                         reproducers_dropped, status FROM signatures ORDER BY id;
                  SELECT 'r', id, signature_id, case_id, source, attrs, a_shape, b_shape,
                         coalesce(element, ''), coalesce(expected, ''), coalesce(actual, ''),
                         coalesce(ulps, ''), coalesce(note, ''), hex(a), hex(b)
                    FROM reproducers ORDER BY id;
                  SELECT 'n', * FROM counts ORDER BY 1, 2, 3, 4, 5, 6;
                  SELECT 'c', run_id, implementation, variant, dtype, verdict, profile, cases,
                         elements FROM certificates ORDER BY 2, 3, 4, 5;
                  SELECT 'v', * FROM coverage ORDER BY 1, 2, 3, 4" |
        sed -E 's/at address 0x[0-9a-f]+/at address ADDR/g'
}
# text FILE: stdout without what differs between any two runs
text() {
    sed -E -e 's/; [0-9]+\.[0-9] s;/; T s;/' -e 's#run [0-9]+ in [^ ]*#run R#' \
        -e 's#--db [^ ]*#--db DB#' -e 's/at address 0x[0-9a-f]+/at address ADDR/g' "$1"
}

# same NAME JOBS_A JOBS_B COMMAND ARGS...: the command with --jobs A and
# --jobs B gives the same text, exit status and database
same() {
    name=$1 ja=$2 jb=$3
    shift 3
    for j in "$ja" "$jb"; do
        units=
        [ "$j" -gt 1 ] && units=$UNITS
        DIVERGENCE_UNIT_CASES=$units \
            "$D" "$@" --jobs "$j" --db "$tmp/$name-$j.db" >"$tmp/$name-$j.out" 2>"$tmp/$name-$j.err"
        echo $? >"$tmp/$name-$j.rc"
        text "$tmp/$name-$j.out" >"$tmp/$name-$j.txt"
        dump "$tmp/$name-$j.db" >"$tmp/$name-$j.rows"
    done
    if [ "$(cat "$tmp/$name-$ja.rc")" -gt 1 ]; then
        bad "$name: exit $(cat "$tmp/$name-$ja.rc"): $(head -c 600 "$tmp/$name-$ja.err")"
        return
    fi
    check "$name: the exit status of --jobs $ja and $jb" cmp -s "$tmp/$name-$ja.rc" "$tmp/$name-$jb.rc"
    if cmp -s "$tmp/$name-$ja.txt" "$tmp/$name-$jb.txt"; then ok; else
        bad "$name: --jobs $ja and --jobs $jb print different text"
        diff "$tmp/$name-$ja.txt" "$tmp/$name-$jb.txt" | head -20 >&2
    fi
    if cmp -s "$tmp/$name-$ja.rows" "$tmp/$name-$jb.rows"; then ok; else
        bad "$name: --jobs $ja and --jobs $jb store different rows"
        diff "$tmp/$name-$ja.rows" "$tmp/$name-$jb.rows" | cut -c1-200 | head -20 >&2
    fi
}
# has NAME PATTERN: the --jobs 1 run of NAME printed PATTERN (the rule the
# run stands for did show)
has() {
    if grep -q -- "$2" "$tmp/$1-1.txt"; then ok; else
        bad "$1: no /$2/ in its output"; head -c 2000 "$tmp/$1-1.txt" >&2
    fi
}

UNITS=7 # cases per unit, with more than one job
# A call that outlives its timeout is a hang, and three hangs stop its claim: the
# timeouts leave a loaded machine room, but for the plugin that hangs.
C="certify --no-progress --timeout 30000 --cases "
same remainder 1 2 $C "" --plugin "$M/mutant_remainder_17.so" --variant onnx-div-14 \
    --dtype i32 --dtype f32 --random 60 --shape-tier 14
has remainder '^    wrong-value'
n=$(sqlite3 "$tmp/remainder-1.db" "SELECT max(reproducers_dropped) FROM signatures")
[ "${n:-0}" -gt 0 ] && ok || bad "remainder: no signature had more sightings than reproducers kept"
same remainder3 1 3 $C "" --plugin "$M/mutant_remainder_17.so" --variant onnx-div-14 \
    --dtype i32 --random 60 --shape-tier 14
same crash 1 2 $C "" --plugin "$M/mutant_crash_int_min.so" --variant onnx-div-14 --dtype i32 \
    --dtype i64 --random 40 --shape-tier 16
n=$(sqlite3 "$tmp/crash-1.db" "SELECT count(*) FROM reproducers WHERE note LIKE '%narrowed to output element%'")
[ "$n" = 2 ] && ok || bad "crash: $n narrowed crashes stored, want one per claim (2)"
has crash 'note: shape paths stopped after'
same hang 1 2 $C "" --plugin "$M/mutant_hang.so" --variant onnx-div-14 --dtype i32 --random 40 \
    --shape-tier 10 --timeout 1500
has hang 'claim stopped after 3 hangs'
same diff 1 2 diff --cases "" --random 30 --timeout 30000 --plugin "$REF" \
    --plugin "$DIFF/mutant_other_unspecified.so" --plugin "$M/mutant_floor_not_trunc.so" \
    --variant onnx-div-14 --variant openvino-divide-1
has diff '^    hazard '
has diff 'DEPARTS '
finish jobs
