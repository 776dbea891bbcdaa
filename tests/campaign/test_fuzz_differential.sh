#!/bin/sh
# SPDX-License-Identifier: MIT
# divergence fuzz with several --plugin (differential mode): the reference
# against a kernel that conforms but makes the spec's free choices
# otherwise finds each hazard class (int-div-zero, int-min-neg-one,
# nan-sign-or-payload, float-div-zero-undefined) as a finding of the plugin
# set, minimised to one element of the simplest operands, with what each
# plugin gave, exit 0 (hazards are not failures); a second campaign on the
# same database stores no signature twice; a departing plugin is found and
# attributed to it alone (exit 1); where it does not compute (a crash), the
# others are still compared; --resume and a plugin that does not load are
# usage errors.
# Usage: test_fuzz_differential.sh DIVERGENCE REFERENCE_SO OTHER_SO MUTANT_DIR CORPUS_DIR
set -u
D=$1 REF=$2 OTHER=$3 M=$4 CORPUS=$5
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 "$1" "$2"; }
R=divergence-reference O=divergence-mutant-other_unspecified
SET="$R|$O"
fuzz() {
    "$D" fuzz --jobs 2 --corpus "$CORPUS" --no-progress "$@"
}

# Two conformant kernels: hazards, no departure, exit 0.
fuzz --plugin "$REF" --plugin "$OTHER" --seconds 4 --seed 5 --db "$tmp/d.db" >"$tmp/d.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || { bad "conformant pair: exit $rc"; cat "$tmp/d.out" >&2; }
grep -q "^fuzz: $SET, seed 5" "$tmp/d.out" && ok || bad "summary does not name the set"
if grep -q "departs from the oracle" "$tmp/d.out"; then bad "a departure reported"; else ok; fi
for h in int-div-zero int-min-neg-one nan-sign-or-payload float-div-zero-undefined; do
    grep -q "^  hazard $h  *[1-9][0-9]* elements  \[sig:[0-9]*\]" "$tmp/d.out" && ok ||
        { bad "no $h hazard in the summary"; cat "$tmp/d.out" >&2; }
    n=$(q "$tmp/d.db" "SELECT count(*) FROM signatures WHERE implementation = '$SET' AND class = '$h'")
    [ "${n:-0}" -ge 1 ] && ok || bad "store: no $h signature of the set"
done
# No departure of either plugin was stored.
n=$(q "$tmp/d.db" "SELECT count(*) FROM signatures WHERE implementation IN ('$R', '$O')")
[ "$n" = 0 ] && ok || bad "store: $n departures of a conformant plugin"
# int-div-zero on i32: minimised to one element, the simplest operands
# (1 / 0), each plugin's value in the reproducer.
row=$(q "$tmp/d.db" "SELECT r.a_shape, r.b_shape, r.actual, r.note FROM reproducers r JOIN signatures s ON s.id = r.signature_id WHERE s.implementation = '$SET' AND s.class = 'int-div-zero' AND s.dtype = 'i32' AND s.operand_class = 'positive/zero' LIMIT 1")
case $row in
    *"$R: 0 (0x00000000); $O: -1 (0xffffffff)"*"minimised: one element, simplest operands"*) ok ;;
    *) bad "i32 positive/zero reproducer: '$row'" ;;
esac
# The summary's [sig:N] is the store's: query history names the set.
sig=$(sed -n 's/^  hazard int-div-zero .*\[sig:\([0-9]*\)\]$/\1/p' "$tmp/d.out")
if [ -n "$sig" ] && "$D" query --db "$tmp/d.db" history "sig:$sig" >"$tmp/h.out" 2>&1 &&
   grep -q "$SET .*int-div-zero" "$tmp/h.out"; then ok; else
    bad "query history sig:$sig"; cat "$tmp/h.out" >&2; fi
# replay re-runs it on both plugins (the builds the run linked): they still
# disagree; on the reference twice (--plugin per plugin) they do not.
"$D" replay --db "$tmp/d.db" "sig:$sig" >"$tmp/r.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "now: the plugins still disagree (int-div-zero" "$tmp/r.out" &&
    grep -q "replaying on .*mutant_other_unspecified.so ($O)" "$tmp/r.out" && ok ||
    { bad "replay sig:$sig: exit $rc"; cat "$tmp/r.out" >&2; }
"$D" replay --db "$tmp/d.db" "sig:$sig" --plugin "$REF" --plugin "$REF" >"$tmp/r2.out" 2>&1
rc=$?
[ $rc -eq 0 ] && grep -q "now: no int-div-zero disagreement" "$tmp/r2.out" && ok ||
    { bad "replay sig:$sig on the reference twice: exit $rc"; cat "$tmp/r2.out" >&2; }
"$D" replay --db "$tmp/d.db" "sig:$sig" --plugin "$REF" >"$tmp/r3.out" 2>&1
[ $? -eq 2 ] && grep -q "pass one --plugin per plugin" "$tmp/r3.out" && ok ||
    bad "replay of a set finding with one --plugin: $(cat "$tmp/r3.out")"
ops=$(q "$tmp/d.db" "SELECT count(*) FROM reproducers r JOIN signatures s ON s.id = r.signature_id WHERE s.implementation = '$SET' AND r.expected = 'unspecified' AND s.class = 'int-div-zero' AND s.dtype = 'i32' AND s.operand_class = 'positive/zero' AND r.actual LIKE '%$O: -1 (0xffffffff)%'")
[ "${ops:-0}" -ge 1 ] && ok || bad "the reproducer's expected/actual words"

# The one page of several runs shows the campaign's hazards with what each
# plugin gives (reports/report_runs.c: a run that compares plugins).
"$D" report --db "$tmp/d.db" --runs 1 --format md -o "$tmp/p.md" >/dev/null 2>&1
grep "| int-div-zero |" "$tmp/p.md" | grep -qF 'other\_unspecified: -1 (0xffffffff)' && ok ||
    { bad "report --runs: no int-div-zero row of the fuzz run"; head -40 "$tmp/p.md" >&2; }

# Once per signature: a second campaign on the same database adds no
# signature twice, and says which were already known.
before=$(q "$tmp/d.db" "SELECT count(*) FROM signatures")
fuzz --plugin "$REF" --plugin "$OTHER" --seconds 2 --seed 6 --db "$tmp/d.db" >"$tmp/d2.out" 2>&1
dups=$(q "$tmp/d.db" "SELECT count(*) FROM (SELECT implementation, variant, dtype, class, operand_class, count(*) n FROM signatures GROUP BY 1, 2, 3, 4, 5 HAVING n > 1)")
[ "$dups" = 0 ] && ok || bad "store: $dups signatures stored twice"
grep -q "already known)" "$tmp/d2.out" && ! grep -q "(0 new, 0 already known)" "$tmp/d2.out" && ok ||
    { bad "second campaign: nothing already known"; cat "$tmp/d2.out" >&2; }
after=$(q "$tmp/d.db" "SELECT count(*) FROM signatures")
[ "$after" -ge "$before" ] && ok || bad "signatures went from $before to $after"

# A departing plugin: its finding is its own, exit 1.
F=divergence-mutant-floor_not_trunc
fuzz --plugin "$REF" --plugin "$M/mutant_floor_not_trunc.so" --seconds 20 --stop-on-finding \
    --seed 5 --db "$tmp/f.db" >"$tmp/f.out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || { bad "departing plugin: exit $rc"; cat "$tmp/f.out" >&2; }
grep -q "departs from the oracle: $F" "$tmp/f.out" && ok || bad "departure not attributed to $F"
if grep -q "departs from the oracle: $R" "$tmp/f.out"; then bad "reference said to depart"; else ok; fi
n=$(q "$tmp/f.db" "SELECT count(*) FROM signatures WHERE implementation = '$F' AND class = 'floor-vs-trunc'")
[ "${n:-0}" -ge 1 ] && ok || bad "store: no floor-vs-trunc finding of $F"
# ... which replay re-runs on that plugin's own build, linked to the run.
id=$(q "$tmp/f.db" "SELECT r.id FROM reproducers r JOIN signatures s ON s.id = r.signature_id WHERE s.implementation = '$F' LIMIT 1")
"$D" replay --db "$tmp/f.db" "repro:$id" >"$tmp/fr.out" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "mutant_floor_not_trunc.so" "$tmp/fr.out" && grep -q "still departs" "$tmp/fr.out" &&
    ok || { bad "replay repro:$id of $F: exit $rc"; cat "$tmp/fr.out" >&2; }

# Where one plugin does not compute (crash_int_min dies of SIGFPE on x/0),
# the two others are still compared: their x/0 hazard is found, with the
# crash beside their values, and the crash is the mutant's departure.
C=divergence-mutant-crash_int_min
fuzz --plugin "$REF" --plugin "$OTHER" --plugin "$M/mutant_crash_int_min.so" --seconds 6 \
    --seed 5 --db "$tmp/c.db" >"$tmp/c.out" 2>&1
rc=$?
[ $rc -eq 1 ] && ok || { bad "crashing plugin: exit $rc"; cat "$tmp/c.out" >&2; }
n=$(q "$tmp/c.db" "SELECT count(*) FROM reproducers r JOIN signatures s ON s.id = r.signature_id WHERE s.implementation = '$R|$O|$C' AND s.class = 'int-div-zero' AND r.actual LIKE '%$O: -1 (0xffffffff); $C: crash (SIGFPE)%'")
[ "${n:-0}" -ge 1 ] && ok || { bad "no x/0 hazard beside the crash"; q "$tmp/c.db" "SELECT implementation, class, dtype FROM signatures" | head >&2; }
n=$(q "$tmp/c.db" "SELECT count(*) FROM signatures WHERE implementation = '$C' AND class = 'crash'")
[ "${n:-0}" -ge 1 ] && ok || bad "store: the crash is not $C's"

# Usage errors: --resume of a differential run; a plugin that does not load.
fuzz --plugin "$REF" --plugin "$OTHER" --seconds 1 --resume --db "$tmp/u.db" >"$tmp/u.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q -- "--resume continues a run of one plugin" "$tmp/u.out" && ok ||
    bad "--resume with two plugins: exit $rc: $(cat "$tmp/u.out")"
fuzz --plugin "$REF" --plugin "$tmp/missing.so" --seconds 1 --db "$tmp/u.db" >"$tmp/u2.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "missing.so" "$tmp/u2.out" && ok ||
    bad "missing plugin: exit $rc: $(cat "$tmp/u2.out")"

finish "fuzz differential"
