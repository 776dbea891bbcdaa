#!/bin/sh
# SPDX-License-Identifier: MIT
# The ids a certificate, a fuzz summary and the reports print are ids
# `divergence replay` takes, and they replay THAT signature (issue 18,
# item 2): signatures and reproducers are numbered apart, so a certificate
# that printed a signature id which replay read as a reproducer id replayed
# some other finding. One store holds two mutants' findings, so the two
# id spaces drift apart; every class line's [sig:N] must replay a
# reproducer of signature N with that class; a bare number is refused.
# Usage: test_replay_ids.sh DIVERGENCE MUTANT_DIR CORPUS_DIR
set -u
D=$1 M=$2 CORPUS=$3
. "$(dirname "$0")/../lib.sh"
db=$tmp/ids.db
q() { sqlite3 "$db" "$1"; }

# Many signatures first (nondeterministic: some 24, and many reproducers),
# then a mutant with three class lines or more (two claims: since DAZ reads
# a subnormal divisor as zero, f32 alone shows two classes).
"$D" certify --plugin "$M/mutant_nondeterministic.so" --db "$db" --no-progress --seed 11 \
    --variant openvino-divide-1 --dtype f32 >"$tmp/nondet.out" 2>&1
"$D" certify --plugin "$M/mutant_recip_mul.so" --db "$db" --no-progress --seed 11 \
    --variant onnx-div-7 --dtype f32 --dtype f64 >"$tmp/cert.out" 2>&1
if [ $? -eq 1 ]; then ok; else bad "certify recip_mul: $(cat "$tmp/cert.out")"; fi
if grep -q "replay --db $db sig:N" "$tmp/cert.out"; then ok; else
    bad "the certificate's last line does not say how to replay sig:N: $(tail -1 "$tmp/cert.out")"; fi

# replay_class CLASS REF OUT: replay REF, which must still depart (exit 1),
# name signature SIG and class CLASS.
replay_sig() {
    cls=$1 sig=$2 out=$3
    "$D" replay --db "$db" "sig:$sig" >"$out" 2>&1
    rc=$?
    repro=$(sed -n "1s/^repro:\([0-9]*\) of sig:$sig .*class $cls (.*/\1/p" "$out")
    owner=$(q "SELECT signature_id FROM reproducers WHERE id = ${repro:-0}")
    if [ $rc -eq 1 ] && [ -n "$repro" ] && [ "$owner" = "$sig" ]; then ok; else
        bad "replay sig:$sig ($cls): exit $rc, reproducer '${repro}' of signature '$owner': $(sed -n 1,3p "$out")"
    fi
}

classes=0 drifted=0
grep '^    [a-z-]* .*\[sig:[0-9]*\]$' "$tmp/cert.out" >"$tmp/lines"
while read -r cls rest; do
    sig=$(printf '%s\n' "$rest" | sed -n 's/.*\[sig:\([0-9]*\)\]$/\1/p')
    classes=$((classes + 1))
    want=$(q "SELECT class FROM signatures WHERE id = $sig")
    if [ "$want" = "$cls" ]; then ok; else bad "[sig:$sig] of $cls is a signature of class '$want'"; fi
    replay_sig "$cls" "$sig" "$tmp/replay-$sig.out"
    # The same number read as a reproducer id is another signature's:
    # the setup keeps the two id spaces apart.
    other=$(q "SELECT signature_id FROM reproducers WHERE id = $sig")
    [ "$other" != "$sig" ] && drifted=$((drifted + 1))
done <"$tmp/lines"
if [ $classes -ge 3 ]; then ok; else bad "only $classes class lines with [sig:N]: $(cat "$tmp/cert.out")"; fi
if [ $drifted -ge 1 ]; then ok; else bad "signature and reproducer ids coincide: the test proves nothing"; fi

# repro:N replays reproducer N; a bare number and a missing signature are refused.
r=$(q "SELECT max(id) FROM reproducers")
s=$(q "SELECT signature_id FROM reproducers WHERE id = $r")
"$D" replay --db "$db" "repro:$r" >"$tmp/repro.out" 2>&1
if [ $? -eq 1 ] && grep -q "^repro:$r of sig:$s:" "$tmp/repro.out"; then ok; else
    bad "replay repro:$r: $(sed -n 1,3p "$tmp/repro.out")"; fi
"$D" replay --db "$db" "$r" >"$tmp/bare.out" 2>&1
if [ $? -eq 2 ] && grep -q "sig:$r for signature $r or repro:$r" "$tmp/bare.out"; then ok; else
    bad "a bare number: $(cat "$tmp/bare.out")"; fi
"$D" replay --db "$db" "sig:99999" >"$tmp/none.out" 2>&1
if [ $? -eq 2 ] && grep -q "no such signature" "$tmp/none.out"; then ok; else
    bad "sig:99999: $(cat "$tmp/none.out")"; fi
"$D" query --db "$db" history "sig:$s" >"$tmp/history.out" 2>&1
if [ $? -eq 0 ] && grep -q "seen" "$tmp/history.out"; then ok; else
    bad "query history sig:$s: $(cat "$tmp/history.out")"; fi

# The reports: every replay command replays a reproducer of the finding
# it is printed under (Markdown: "### Signature sig:N", then its command).
run=$(q "SELECT max(id) FROM runs")
"$D" report --db "$db" --run "$run" --format md -o "$tmp/r.md" >/dev/null 2>&1
awk '/^### Signature sig:/ { sub(/^### Signature sig:/, ""); sub(/:.*/, ""); sig = $0 }
     /^divergence replay --db / { print sig, $NF }' "$tmp/r.md" >"$tmp/cmds"
n=0
while read -r sig ref; do
    n=$((n + 1))
    "$D" replay --db "$db" "$ref" >"$tmp/md.out" 2>&1
    if [ $? -eq 1 ] && grep -q "^repro:[0-9]* of sig:$sig:" "$tmp/md.out"; then ok; else
        bad "report: '$ref' under sig:$sig: $(sed -n 1,2p "$tmp/md.out")"; fi
done <"$tmp/cmds"
if [ $n -ge 3 ]; then ok; else bad "the Markdown report has $n replay commands"; fi
"$D" report --db "$db" --run "$run" --format json -o "$tmp/r.json" >/dev/null 2>&1
if grep -q '"replay": "divergence replay --db [^"]* repro:[0-9]*"' "$tmp/r.json" &&
    ! grep -q '"replay": "divergence replay --db [^"]* [0-9]*"' "$tmp/r.json"; then ok; else
    bad "the JSON report's replay commands: $(grep -m2 '"replay"' "$tmp/r.json")"; fi
"$D" report --db "$db" --run "$run" --format junit -o "$tmp/r.xml" >/dev/null 2>&1
if grep -q 'divergence replay --db [^&]* repro:[0-9]*&#10;' "$tmp/r.xml"; then ok; else
    bad "the JUnit report's replay commands: $(grep -m1 -o 'divergence replay[^&]*' "$tmp/r.xml")"; fi

# The fuzz summary: each class line's [sig:N] replays signature N.
"$D" fuzz --plugin "$M/mutant_trunc_not_floor.so" --seconds 0 --cases 3000 --jobs 1 --seed 4 \
    --db "$db" --corpus "$CORPUS" --no-progress >"$tmp/fuzz.out" 2>&1
grep '^    [a-z-]* .*\[sig:[0-9]*\]$' "$tmp/fuzz.out" >"$tmp/lines"
n=0
while read -r cls rest; do
    n=$((n + 1))
    sig=$(printf '%s\n' "$rest" | sed -n 's/.*\[sig:\([0-9]*\)\]$/\1/p')
    replay_sig "$cls" "$sig" "$tmp/fuzz-$sig.out"
done <"$tmp/lines"
if [ $n -ge 1 ] && grep -q "replay --db $db sig:N" "$tmp/fuzz.out"; then ok; else
    bad "the fuzz summary names no signature to replay: $(cat "$tmp/fuzz.out")"; fi

# A signature seen by two runs: sig:N replays the newer run's reproducer,
# --run R run R's, --all each run's, newest first (issue 34, item 2).
"$D" certify --plugin "$M/mutant_recip_mul.so" --db "$db" --no-progress --seed 12 \
    --variant onnx-div-7 --dtype f32 >"$tmp/cert2.out" 2>&1
run2=$(q "SELECT max(id) FROM runs")
sig=$(sed -n 's/.*\[sig:\([0-9]*\)\]$/\1/p' "$tmp/cert2.out" | head -1)
runs=$(q "SELECT count(DISTINCT run_id) FROM reproducers WHERE signature_id = ${sig:-0}")
first=$(q "SELECT min(run_id) FROM reproducers WHERE signature_id = ${sig:-0}")
if [ "${runs:-0}" -ge 2 ] && [ "$first" != "$run2" ]; then ok; else
    bad "sig:${sig:-?} is kept by ${runs:-0} runs (want the earlier one and run $run2)"; fi
"$D" replay --db "$db" "sig:$sig" >"$tmp/latest.out" 2>&1
if [ $? -eq 1 ] && grep -q "^repro:[0-9]* of sig:$sig (the reproducer of the latest run that saw it):.*(recorded in run $run2)$" "$tmp/latest.out"; then ok; else
    bad "replay sig:$sig: not run $run2's: $(sed -n 1p "$tmp/latest.out")"; fi
"$D" replay --db "$db" "sig:$sig" --run "$first" >"$tmp/run.out" 2>&1
if [ $? -eq 1 ] && grep -q "^repro:[0-9]* of sig:$sig (the reproducer of run $first):.*(recorded in run $first)$" "$tmp/run.out"; then ok; else
    bad "replay sig:$sig --run $first: $(sed -n 1p "$tmp/run.out")"; fi
"$D" replay --db "$db" "sig:$sig" --all >"$tmp/all.out" 2>&1
rc=$?
got=$(sed -n "s/^repro:[0-9]* of sig:$sig (run \([0-9]*\)'s reproducer, [0-9]* of $runs runs, newest first):.*/\1/p" "$tmp/all.out" | tr '\n' ' ')
want=$(q "SELECT DISTINCT run_id FROM reproducers WHERE signature_id = $sig ORDER BY run_id DESC" | tr '\n' ' ')
if [ $rc -eq 1 ] && [ "$got" = "$want" ] && [ "$(grep -c 'still departs' "$tmp/all.out")" = "$runs" ]; then ok; else
    bad "replay sig:$sig --all: exit $rc, runs '$got', want '$want': $(grep '^repro' "$tmp/all.out")"; fi
for bad_args in "sig:$sig --run 99999" "repro:1 --all" "repro:1 --run $first" "sig:$sig --all --run $first" \
    "sig:$sig --run 0" "sig:$sig --all --write-case $tmp/x.case"; do
    # shellcheck disable=SC2086
    "$D" replay --db "$db" $bad_args >"$tmp/badargs.out" 2>&1
    if [ $? -eq 2 ] && [ -s "$tmp/badargs.out" ]; then ok; else
        bad "replay $bad_args: not refused: $(cat "$tmp/badargs.out")"; fi
done

# --write-case: the first fuzz signature's reproducer as a case file that
# the case-file parser reads back and the oracle agrees with (its bytes:
# tests/cases/test_casefile_write.c).
sig=$(sed -n 's/.*\[sig:\([0-9]*\)\]$/\1/p' "$tmp/lines" | head -1)
if "$D" replay --db "$db" "sig:${sig:-0}" --write-case "$tmp/r.case" >"$tmp/w.out" 2>&1 &&
   grep -q "^case repro-" "$tmp/r.case" &&
   "$D" cases --check --dir "$tmp/r.case" >"$tmp/w.check" 2>&1; then ok
else bad "replay --write-case of sig:$sig: $(cat "$tmp/w.out" "$tmp/w.check" 2>/dev/null)"; fi
finish
