#!/bin/sh
# SPDX-License-Identifier: MIT
# The fuzz summary's "N signatures (M new, K already known)" (issue 18,
# item 3): N is the distinct signatures the store holds for the run, "new"
# the ones it found first, "already known" the ones a run before it had
# stored. A kernel with a broadcast-stride bug gives hundreds of
# signatures, and minimising one finding often lands on a signature the run
# stored already: those repeats are neither new nor known before.
# Usage: test_fuzz_known.sh DIVERGENCE MUTANT_DIR CORPUS_DIR
set -u
D=$1 M=$2 CORPUS=$3
. "$(dirname "$0")/../lib.sh"
db=$tmp/known.db
q() { sqlite3 "$db" "$1"; }

# fuzz SEED OUT: a fixed number of cases, one job (the same cases every time).
fuzz() {
    "$D" fuzz --plugin "$M/mutant_bcast_ignores_a1.so" --seconds 0 --cases 20000 --jobs 1 \
        --seed "$1" --db "$db" --corpus "$CORPUS" --no-progress >"$2" 2>&1
}
# counts OUT: "N M K" from the summary line.
counts() {
    sed -n 's/^  findings: \([0-9]*\) signatures (\([0-9]*\) new, \([0-9]*\) already known)$/\1 \2 \3/p' "$1"
}

# A fresh database: nothing is known before the run.
fuzz 3 "$tmp/1.out"
set -- $(counts "$tmp/1.out") x x x
n=$1 new=$2 known=$3
stored=$(q "SELECT count(*) FROM signature_runs WHERE run_id = 1")
all=$(q "SELECT count(*) FROM signatures")
if [ "$known" = 0 ] && [ "$new" = "$n" ] && [ "$n" = "$stored" ] && [ "$n" = "$all" ] &&
    [ "$n" -ge 20 ]; then ok; else
    bad "fresh database: summary '$n $new $known', the run stored $stored of $all signatures: $(sed -n 1,5p "$tmp/1.out")"
fi
if grep -q "^  bugs: .* ($n signatures)" "$tmp/1.out"; then ok; else
    bad "the bugs line counts other signatures: $(grep '^  bugs:' "$tmp/1.out")"; fi

# The same database again, another seed: what run 1 stored is already known.
fuzz 4 "$tmp/2.out"
set -- $(counts "$tmp/2.out") x x x
n=$1 new=$2 known=$3
stored=$(q "SELECT count(*) FROM signature_runs WHERE run_id = 2")
before=$(q "SELECT count(*) FROM signature_runs g JOIN signatures s ON s.id = g.signature_id
            WHERE g.run_id = 2 AND s.first_run_id = 1")
first=$(q "SELECT count(*) FROM signatures WHERE first_run_id = 2")
if [ "$n" = "$stored" ] && [ "$known" = "$before" ] && [ "$new" = "$first" ] &&
    [ "$known" -gt 0 ] 2>/dev/null; then ok; else
    bad "second run: summary '$n $new $known', stored $stored, known before $before, first found $first"
fi

finish
