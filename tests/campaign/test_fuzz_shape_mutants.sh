#!/bin/sh
# SPDX-License-Identifier: MIT
# The shape-path mutants of the zoo (tests/mutants/README.md) are each found
# by a campaign of at most SECONDS (default 60) that stops at its first
# finding, and the stored reproducer of remainder_17 is minimised to a small
# shape: inner 17, at most 48 elements. Prints the time each took to find.
# Usage: test_fuzz_shape_mutants.sh DIVERGENCE MUTANT_DIR CORPUS_DIR [SECONDS]
set -u
D=$1 M=$2 CORPUS=$3 S=${4:-60}
. "$(dirname "$0")/../lib.sh"
q() { sqlite3 "$1" "$2"; }

for m in remainder_17 row_bcast_32k1 outer_product rank8_stride threshold_4mi; do
    "$D" fuzz --plugin "$M/mutant_$m.so" --seconds "$S" --stop-on-finding --jobs 2 --seed 1 \
        --db "$tmp/$m.db" --corpus "$CORPUS" --no-progress >"$tmp/$m.out" 2>&1
    rc=$?
    n=$(q "$tmp/$m.db" "SELECT count(*) FROM signatures WHERE class = 'wrong-value'")
    if [ $rc -eq 1 ] && [ "${n:-0}" -ge 1 ]; then ok; else bad "$m: exit $rc, $n wrong-value signatures: $(cat "$tmp/$m.out")"; fi
    echo "$m: $(grep -o 'first finding after [0-9.]* s (around case [0-9]*)' "$tmp/$m.out")"
done

# remainder_17: a wrong-value reproducer with inner 17 and at most 48 elements
# in its larger operand (e.g. A () / B (1, 1, 17)).
small=$(q "$tmp/remainder_17.db" "SELECT r.a_shape, r.b_shape FROM reproducers r JOIN signatures s ON s.id = r.signature_id WHERE s.class = 'wrong-value'" |
    awk -F'|' '{ big = 0; inner17 = 0
                 for (i = 1; i <= 2; i++) { s = $i; gsub(/[(),]/, " ", s); k = split(s, d, " ")
                     p = 1; for (j = 1; j <= k; j++) p *= d[j]
                     if (p > big) big = p; if (k && d[k] == 17) inner17 = 1 }
                 if (inner17 && big <= 48) print $1 " / " $2 }')
if [ -n "$small" ]; then ok; echo "remainder_17 minimised: $small" | head -n 1; else
    bad "remainder_17: no small reproducer: $(q "$tmp/remainder_17.db" "SELECT a_shape || ' / ' || b_shape FROM reproducers")"; fi

finish
