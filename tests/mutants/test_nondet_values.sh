#!/bin/sh
# SPDX-License-Identifier: MIT
# A nondeterministic element shows the oracle's answer and both runs'
# values, not one value twice (issue 18, item 4): in the certificate, in
# what the store keeps (reproducers.actual), in the reports and in replay.
# The nondeterministic mutant flips the low bit of C[0] on every second
# compute call, so run 1 and run 2 of a case differ there.
# Usage: test_nondet_values.sh DIVERGENCE MUTANT_DIR
set -u
D=$1 M=$2
. "$(dirname "$0")/../lib.sh"
db=$tmp/nondet.db

# two_runs TEXT: 0 when TEXT holds "got X (0xA) in run 1, Y (0xB) in run 2"
# (or "actual ...") after an "expected E", with A != B.
two_runs() {
    pair=$(printf '%s\n' "$1" |
        sed -n 's/.*expected [^,]*, \(got\|actual\) [^,]*(\(0x[0-9a-f]*\)) in run 1, [^,]*(\(0x[0-9a-f]*\)) in run 2.*/\2 \3/p' |
        head -1)
    [ -n "$pair" ] && [ "${pair% *}" != "${pair#* }" ]
}

"$D" certify --plugin "$M/mutant_nondeterministic.so" --db "$db" --no-progress --seed 11 \
    --variant openvino-divide-1 --dtype f32 >"$tmp/cert.out" 2>&1
if [ $? -eq 1 ]; then ok; else bad "certify: $(cat "$tmp/cert.out")"; fi
line=$(grep '^    nondeterministic ' "$tmp/cert.out")
if two_runs "$line"; then ok; else bad "the certificate's line: '$line'"; fi

# Every stored nondeterministic reproducer carries both runs' values.
sqlite3 "$db" "SELECT 'expected ' || r.expected || ', actual ' || r.actual FROM reproducers r
               JOIN signatures s ON s.id = r.signature_id WHERE s.class = 'nondeterministic'" \
    >"$tmp/stored"
n=0 good=0
while read -r row; do
    n=$((n + 1))
    two_runs "$row" && good=$((good + 1))
done <"$tmp/stored"
if [ $n -ge 1 ] && [ $good = $n ]; then ok; else
    bad "$good of $n stored reproducers show both runs: $(head -2 "$tmp/stored")"; fi

# The reports show what the store keeps.
"$D" report --db "$db" --run 1 --format md -o "$tmp/r.md" >/dev/null 2>&1
if two_runs "$(grep -m1 'in run 2' "$tmp/r.md")"; then ok; else
    bad "Markdown report: $(grep -m1 'in run' "$tmp/r.md")"; fi
"$D" report --db "$db" --run 1 --format junit -o "$tmp/r.xml" >/dev/null 2>&1
if two_runs "$(tr '&' '\n' <"$tmp/r.xml" | grep -m1 'in run 2')"; then ok; else
    bad "JUnit report: no finding shows both runs"; fi

# Replay: the signature's recorded element, run twice again.
sig=$(printf '%s\n' "$line" | sed -n 's/.*\[sig:\([0-9]*\)\]$/\1/p')
"$D" replay --db "$db" "sig:${sig:-0}" >"$tmp/replay.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && two_runs "$(grep '^  recorded element' "$tmp/replay.out")" &&
    two_runs "$(grep '^  recorded: ' "$tmp/replay.out")"; then ok; else
    bad "replay sig:$sig: exit $rc: $(cat "$tmp/replay.out")"; fi

finish
