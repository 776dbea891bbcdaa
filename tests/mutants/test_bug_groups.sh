#!/bin/sh
# SPDX-License-Identifier: MIT
# One bug, one finding (docs/store.md, "bugs"): a short fuzz campaign of a
# mutant with one bug fans out into hundreds of signatures but at most 3
# bugs; the findings of two unrelated bugs in one kernel make at least two.
# The two-bug kernel is two mutants' findings under one implementation
# name, merged into one file (the merge groups what it copies).
# Usage: test_bug_groups.sh DIVERGENCE MUTANT_DIR
set -u
D=$1 M=$2
. "$(dirname "$0")/../lib.sh"
need_sqlite() { command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: no sqlite3" >&2; exit 77; }; }
need_sqlite
q() { sqlite3 "$1" "$2"; }

# fuzz NAME: 4 s of fuzz into NAME.db; its bugs at most 3, its signatures more.
fuzz() {
    name=$1
    "$D" fuzz --plugin "$M/mutant_$name.so" --db "$tmp/$name.db" --seconds 4 --jobs 1 \
        --seed 5 --no-progress >"$tmp/$name.out" 2>&1
    rc=$?
    [ $rc -eq 1 ] || { bad "$name: fuzz exit $rc"; cat "$tmp/$name.out" >&2; return; }
    bugs=$(q "$tmp/$name.db" 'SELECT count(*) FROM bugs')
    sigs=$(q "$tmp/$name.db" 'SELECT count(*) FROM signatures')
    orphans=$(q "$tmp/$name.db" 'SELECT count(*) FROM signatures WHERE bug_id IS NULL')
    echo "$name: $sigs signatures in $bugs bugs"
    if [ "$bugs" -ge 1 ] && [ "$bugs" -le 3 ] && [ "$orphans" -eq 0 ]; then ok; else
        bad "$name: $bugs bugs for $sigs signatures ($orphans without a bug)"
        q "$tmp/$name.db" 'SELECT * FROM v_bugs' >&2
    fi
    # The campaign summary and `query bugs` say the same.
    if grep -q "^  bugs: $bugs bugs\? ($sigs signatures\?), $bugs new" "$tmp/$name.out"; then ok; else
        bad "$name: summary: $(grep 'bugs:' "$tmp/$name.out")"
    fi
    "$D" query --db "$tmp/$name.db" --json bugs >"$tmp/$name.json" 2>&1
    n=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(len(j['bugs']), sum(b['signatures'] for b in j['bugs']))" "$tmp/$name.json")
    if [ "$n" = "$bugs $sigs" ]; then ok; else bad "$name: query bugs gives $n"; fi
}

fuzz skip_last
fuzz bcast_ignores_a1
fuzz recip_mul
# skip_last's one class-of-its-own bug is one bug; so is the broadcast bug,
# whatever classes the values it reads from the wrong place fall in.
check_one() {
    n=$(q "$tmp/$1.db" 'SELECT count(*) FROM bugs')
    if [ "$n" -eq 1 ]; then ok; else bad "$1: $n bugs, want 1"; fi
}
check_one skip_last
check_one bcast_ignores_a1

# `query new` lists the bugs first, then the signatures, by bug.
"$D" query --db "$tmp/skip_last.db" new --since 0 >"$tmp/new.txt" 2>&1
if [ "$(sed -n 1p "$tmp/new.txt")" = "bugs:" ] && grep -q '^new:' "$tmp/new.txt"; then ok; else
    bad "query new: $(sed -n 1,3p "$tmp/new.txt")"
fi

# two NAME1 NAME2: both mutants' findings as one kernel's: at least 2 bugs.
two() {
    for m in "$1" "$2"; do
        cp "$tmp/$m.db" "$tmp/k-$m.db"
        q "$tmp/k-$m.db" "UPDATE signatures SET implementation = 'two-bugs', bug_id = NULL;
            DELETE FROM bugs; UPDATE plugin_builds SET name = 'two-bugs'"
    done
    "$D" db merge "$tmp/two-$1-$2.db" "$tmp/k-$1.db" "$tmp/k-$2.db" >/dev/null 2>&1 ||
        { bad "merge $1 $2"; return; }
    n=$(q "$tmp/two-$1-$2.db" "SELECT count(*) FROM bugs WHERE implementation = 'two-bugs'")
    echo "$1 + $2: $n bugs"
    if [ "$n" -ge 2 ]; then ok; else bad "$1 + $2 in one kernel: $n bugs, want 2 or more"; fi
}
two skip_last bcast_ignores_a1
two recip_mul bcast_ignores_a1
two skip_last recip_mul

finish
