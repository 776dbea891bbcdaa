#!/bin/sh
# SPDX-License-Identifier: MIT
# The built-in campaign: the reference kernel yields nothing, a mutant is
# found and its finding is minimised and stored, the same seed gives the
# same cases whatever the number of jobs, shards split the cases of the
# unsharded run, import takes finding files, and bad flags exit 2.
# Usage: test_fuzz_campaign.sh DIVERGENCE REFERENCE_SO MUTANT_DIR CORPUS_DIR
set -u
D=$1 REF=$2 M=$3 CORPUS=$4
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 "$1" "$2"; }

# The reference kernel: a short campaign finds nothing (exit 0).
"$D" fuzz --plugin "$REF" --seconds 5 --jobs 2 --seed 3 --db "$tmp/ref.db" --corpus "$CORPUS" --no-progress >"$tmp/ref.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q 'findings: 0 signatures' "$tmp/ref.out"; then ok; else bad "reference: exit $rc: $(cat "$tmp/ref.out")"; fi
cases=$(sed -n 's/.*cases \([0-9]*\),.*/\1/p' "$tmp/ref.out")
if [ "${cases:-0}" -gt 1000 ]; then ok; else bad "reference campaign ran only '${cases}' cases in 5 s"; fi

# A mutant is found, with the right class, minimised to one element.
"$D" fuzz --plugin "$M/mutant_trunc_not_floor.so" --seconds 20 --jobs 2 --seed 3 --db "$tmp/m.db" --corpus "$CORPUS" --no-progress >"$tmp/m.out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q 'floor-vs-trunc' "$tmp/m.out"; then ok; else bad "mutant: exit $rc: $(cat "$tmp/m.out")"; fi
n=$(q "$tmp/m.db" "SELECT count(*) FROM reproducers r JOIN signatures s ON s.id = r.signature_id WHERE s.class = 'floor-vs-trunc' AND r.note LIKE '%minimised: one element%'")
if [ "${n:-0}" -ge 1 ]; then ok; else bad "no minimised floor-vs-trunc reproducer ($n)"; fi
id=$(q "$tmp/m.db" "SELECT r.id FROM reproducers r JOIN signatures s ON s.id = r.signature_id WHERE s.class = 'floor-vs-trunc' LIMIT 1")
"$D" replay --db "$tmp/m.db" "repro:$id" >"$tmp/replay.out" 2>&1
if [ $? -eq 1 ] && grep -q 'still departs' "$tmp/replay.out"; then ok; else bad "replay $id: $(cat "$tmp/replay.out")"; fi
# A second campaign on the same database: the signature is already known.
"$D" fuzz --plugin "$M/mutant_trunc_not_floor.so" --cases 3000 --jobs 1 --seed 4 --db "$tmp/m.db" --corpus "$CORPUS" --no-progress >"$tmp/m2.out" 2>&1
if grep -q 'already known' "$tmp/m2.out" && ! grep -q '(0 new, 0 already known)' "$tmp/m2.out"; then ok; else bad "second campaign: $(cat "$tmp/m2.out")"; fi

# Reproducible: the same seed and case count give the same counts with 1 or 2 jobs.
"$D" fuzz --plugin "$M/mutant_flush_subnormals.so" --seconds 0 --cases 2000 --jobs 1 --seed 9 --db "$tmp/j1.db" --corpus "$CORPUS" --no-progress >/dev/null 2>&1
"$D" fuzz --plugin "$M/mutant_flush_subnormals.so" --seconds 0 --cases 2000 --jobs 2 --seed 9 --db "$tmp/j2.db" --corpus "$CORPUS" --no-progress >/dev/null 2>&1
c1=$(q "$tmp/j1.db" "SELECT variant, dtype, class, elements, cases FROM counts ORDER BY 1, 2, 3")
c2=$(q "$tmp/j2.db" "SELECT variant, dtype, class, elements, cases FROM counts ORDER BY 1, 2, 3")
if [ -n "$c1" ] && [ "$c1" = "$c2" ]; then ok; else bad "counts differ between 1 and 2 jobs"; fi
# Two shards of 1000 cases run the 2000 cases of the unsharded run.
for s in 0 1; do
    "$D" fuzz --plugin "$M/mutant_flush_subnormals.so" --seconds 0 --cases 1000 --shard $s/2 --seed 9 --db "$tmp/s$s.db" --corpus "$CORPUS" --no-progress >/dev/null 2>&1
done
sum=$( (q "$tmp/s0.db" "SELECT variant, dtype, class, elements, cases FROM counts"; q "$tmp/s1.db" "SELECT variant, dtype, class, elements, cases FROM counts") |
      awk -F'|' '{k=$1"|"$2"|"$3; e[k]+=$4; c[k]+=$5} END {for (k in e) print k"|"e[k]"|"c[k]}' | sort)
one=$(echo "$c1" | sort)
if [ "$sum" = "$one" ]; then ok; else bad "two shards differ from the unsharded run"; fi

# import: finding files decoded, judged, stored.
mkdir -p "$tmp/crashes"
ls "$CORPUS" | head -20 | while read f; do cp "$CORPUS/$f" "$tmp/crashes/"; done
"$D" import --plugin "$M/mutant_nan_to_num.so" --db "$tmp/imp.db" "$tmp/crashes" >"$tmp/imp.out" 2>&1
rc=$?
runs=$(q "$tmp/imp.db" "SELECT count(*) FROM runs WHERE kind = 'import' AND status = 'complete'")
if [ $rc -le 1 ] && [ "$runs" = 1 ]; then ok; else bad "import: exit $rc, runs $runs: $(cat "$tmp/imp.out")"; fi
"$D" import --plugin "$REF" --db "$tmp/imp.db" "$tmp/no-such-dir" >/dev/null 2>"$tmp/err"
if [ $? -eq 2 ] && grep -q 'no such file' "$tmp/err"; then ok; else bad "import of a missing path"; fi

# Bad flags: exit 2 with a message.
for args in "--seconds -1" "--shard 2/2" "--shard x" "--jobs 0" "--profile loose" "--frob 1"; do
    "$D" fuzz --plugin "$REF" $args --db "$tmp/bad.db" >/dev/null 2>"$tmp/err"
    if [ $? -eq 2 ] && [ -s "$tmp/err" ]; then ok; else bad "fuzz $args: not rejected"; fi
done
"$D" fuzz --plugin "$M/mutant_no_entry.so" --seconds 1 --db "$tmp/bad.db" >/dev/null 2>"$tmp/err"
if [ $? -eq 2 ] && grep -q 'cannot load plugin' "$tmp/err"; then ok; else bad "fuzz of an unloadable plugin"; fi

finish
