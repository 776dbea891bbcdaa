#!/bin/sh
# SPDX-License-Identifier: MIT
# The time of every test in the last ctest run of each build, side by
# side, as the Markdown table of docs/figures.md ("The test suite"): the
# gcc build (build/) and the ASan+UBSan build (build-asan/), read from
# ctest's own record of each run (Testing/Temporary/CTestCostData.txt:
# the mean seconds over the runs it kept), slowest first, with each
# suite's sum. A test one build did not run shows "-".
# Usage: bench/test-times.sh [BUILD_DIR [ASAN_BUILD_DIR]]
set -eu
cd "$(dirname "$0")/.."
B=${1:-build} A=${2:-build-asan}
costs() { # DIR: "name seconds" lines
    f=$1/Testing/Temporary/CTestCostData.txt
    [ -f "$f" ] || { echo "test-times: no $f (run ctest there first)" >&2; return 0; }
    sed '/^---/q' "$f" | grep -v '^---' | awk 'NF == 3 { print $1, $3 }'
}
costs "$B" >/tmp/test-times.$$.b
costs "$A" >/tmp/test-times.$$.a
trap 'rm -f /tmp/test-times.$$.*' EXIT
awk -v bfile=/tmp/test-times.$$.b -v afile=/tmp/test-times.$$.a '
    BEGIN {
        while ((getline l < bfile) > 0) { split(l, f, " "); g[f[1]] = f[2]; seen[f[1]] = 1 }
        while ((getline l < afile) > 0) { split(l, f, " "); a[f[1]] = f[2]; seen[f[1]] = 1 }
        for (t in seen) {
            key = (t in a ? a[t] : 0) + (t in g ? g[t] : 0)
            print key, t, (t in g ? sprintf("%.1f", g[t]) : "-"), (t in a ? sprintf("%.1f", a[t]) : "-")
            sg += g[t]; sa += a[t]
        }
        printf "%s %s %.0f %.0f\n", -1, "SUM", sg, sa
    }' | sort -k1,1 -g -r | awk '
    BEGIN { print "| test | gcc (s) | ASan+UBSan (s) |"; print "| --- | ---: | ---: |" }
    $2 == "SUM" { sum = sprintf("| **sum** (test-seconds; ctest -j2 halves the wall time) | %s | %s |", $3, $4); next }
    { printf "| %s | %s | %s |\n", $2, $3, $4 }
    END { print sum }'
