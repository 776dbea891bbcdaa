#!/bin/sh
# SPDX-License-Identifier: MIT
# Campaign figures: throughput of `divergence fuzz` against the reference
# kernel with isolation (1 job, then one per core: the scaling ratio is
# measured in the same run), and time-to-first-finding for every mutant
# of the zoo (goal: each within 60 s on 2 cores).
# Usage: bench_fuzz_campaign.sh [BUILD_DIR] [SECONDS]
set -u
B=${1:-build}
S=${2:-10}
D=$B/divergence
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rate() { sed -n 's/.*: \([0-9]*\) cases\/s, \([0-9]*\) elements\/s.*/\1 \2/p' "$1"; }
"$D" fuzz --plugin "$B/plugins/reference.so" --seconds "$S" --jobs 1 --db "$tmp/a.db" --no-progress >"$tmp/j1" 2>&1
"$D" fuzz --plugin "$B/plugins/reference.so" --seconds "$S" --db "$tmp/b.db" --no-progress >"$tmp/jn" 2>&1
set -- $(rate "$tmp/j1"); c1=$1 e1=$2
set -- $(rate "$tmp/jn"); cn=$1 en=$2
echo "campaign throughput, reference kernel, isolated workers, ${S} s each ($(nproc) cores):"
printf '  %-14s %10s cases/s %12s elements/s\n' "1 job" "$c1" "$e1" "$(nproc) jobs" "$cn" "$en"
echo "  scaling: $(awk "BEGIN { printf \"%.2fx\", $cn / ($c1 ? $c1 : 1) }") ; goal >= 20000 cases/s on 2 cores: $( [ "$cn" -ge 20000 ] && echo met || echo NOT met)"
echo "time to first finding (divergence fuzz --stop-on-finding, goal < 60 s):"
for m in "$B"/tests/mutants/mutant_*.so; do
    name=$(basename "$m" .so)
    "$D" fuzz --plugin "$m" --seconds 60 --stop-on-finding --db "$tmp/m.db" --no-progress >"$tmp/m" 2>&1
    t=$(sed -n 's/.*first finding after \([0-9.]*\) s.*/\1 s/p' "$tmp/m")
    [ -n "$t" ] || t=$(grep -q 'cannot load' "$tmp/m" && echo "refused at load (exit 2)" || echo "NOT FOUND in 60 s")
    printf '  %-28s %s\n' "$name" "$t"
done
