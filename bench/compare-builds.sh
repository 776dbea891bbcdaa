#!/bin/sh
# SPDX-License-Identifier: MIT
# Two builds side by side: runs bench/run-all.sh on BEFORE and AFTER (two
# build directories, e.g. of the commits before and after a change), in
# turns (before, after, before, after: ROUNDS rounds, default 2), and
# prints one table with each figure's best value per build and the ratio
# after / before. Times (rows whose figure says "wall s") are better when
# lower, rates better when higher; "worse" marks a figure more than 5%
# worse after the change. The runs share the machine with nothing else
# when the figures are to be quoted.
#
# Usage: bench/compare-builds.sh BEFORE_BUILD AFTER_BUILD
#   ROUNDS, and run-all.sh's SWEEP_TYPES, FUZZ_SECONDS, SKIP_FLUSH, pass through.
set -u
[ $# -eq 2 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for r in $(seq 1 "${ROUNDS:-2}"); do
    for side in before after; do
        [ $side = before ] && b=$1 || b=$2
        echo "compare-builds: round $r, $side ($b)" >&2
        sh "$here/run-all.sh" "$b" >"$tmp/$side.$r" 2>/dev/null ||
            { echo "compare-builds: run-all.sh failed on $b" >&2; exit 1; }
    done
done
echo "| figure | before | after | after / before |"
echo "| --- | --- | --- | --- |"
# Each run-all row: | figure | measured | baseline | ratio |. Keep the best
# measured value per (figure, side): the lowest time, the highest rate.
cat "$tmp"/before.* | awk -F' \\| ' '/^\| / { print "before\t" $1 "\t" $2 }' >"$tmp/rows"
cat "$tmp"/after.* | awk -F' \\| ' '/^\| / { print "after\t" $1 "\t" $2 }' >>"$tmp/rows"
awk -F'\t' '
    { fig = substr($2, 3); v = $3 + 0; if ($3 !~ /^[0-9.eE+-]+$/) next
      low = (fig ~ /wall s/)
      key = fig; if (!(key in seen)) { seen[key] = 1; order[n++] = key; lowk[key] = low }
      if ($1 == "before") { if (!(key in b) || (low ? v < b[key] : v > b[key])) b[key] = v }
      else                { if (!(key in a) || (low ? v < a[key] : v > a[key])) a[key] = v } }
    END { for (i = 0; i < n; i++) { k = order[i]; if (!(k in b) || !(k in a) || b[k] == 0) continue
            r = a[k] / b[k]; worse = lowk[k] ? r > 1.05 : r < 0.95
            printf "| %s | %s | %s | %.3f%s |\n", k, b[k], a[k], r, worse ? " worse" : "" } }' "$tmp/rows"
