#!/bin/sh
# SPDX-License-Identifier: MIT
# The fuzzing engines end to end (label `engines`): the libFuzzer binary
# (build-fuzz/fuzz_div) and the AFL++ binary (build-afl/afl_div) that
# scripts/fuzz-build.sh made (this test builds nothing) each run a few
# seconds on the reference kernel (no finding) and on two mutants (a
# finding each, of the class the mutant is built to produce); then
# `divergence import` stores each engine's finding files with that class.
#
# The seeds are a slice of corpus/div; for a mutant, only the seeds it
# passes (the normal build's replay_div says which), so the engine finds
# the bug by mutating, not by replaying a seed.
#
# Usage: test_engines.sh DIVERGENCE SOURCE_DIR MUTANT_DIR REPLAY_DIV LIBFUZZER_BUILD AFL_BUILD
#   MUTANT_DIR, REPLAY_DIV: the normal build's mutants and replay_div; import
#   loads those in a worker (the engine builds' plugins need the engine's
#   coverage symbols).
# Skips (77) when clang's libFuzzer or afl-clang-fast is not installed, or
# when the engine binaries were not built, unless DVG_REQUIRE_ENGINES=1
# (scripts/test.sh sets it after building them): then that fails.
set -u
D=$1 S=$2 M=$3 REPLAY=$4 LF=$5 AFL=$6
. "$(dirname "$0")/../lib.sh"
skip() {
    if [ "${DVG_REQUIRE_ENGINES:-0}" = 1 ]; then
        echo "FAIL: $* (DVG_REQUIRE_ENGINES=1)" >&2
        exit 1
    fi
    echo "SKIP: $*" >&2
    exit 77
}

command -v afl-clang-fast >/dev/null 2>&1 && command -v afl-fuzz >/dev/null 2>&1 ||
    skip "afl++ is not installed (scripts/setup.sh installs it)"
lib=$(clang-14 -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null)
[ -f "$lib" ] || skip "clang-14's libFuzzer is not installed (scripts/setup.sh installs it)"
command -v sqlite3 >/dev/null 2>&1 || skip "sqlite3 is not installed"
for f in "$LF/fuzz_div" "$AFL/afl_div" "$LF/plugins/reference.so" "$AFL/plugins/reference.so"; do
    [ -x "$f" ] || [ -f "$f" ] || skip "$f is missing: run scripts/fuzz-build.sh libfuzzer and afl"
done

# mutant:class; each mutant departs in that one class only.
MUTANTS="floor_not_trunc:floor-vs-trunc skip_last:element-not-written"

# The seeds: one corpus file in 53 (about 50) keeps AFL++'s calibration short.
mkdir -p "$tmp/seeds-ref"
ls "$S/corpus/div" | awk 'NR % 53 == 1' | while read -r f; do cp "$S/corpus/div/$f" "$tmp/seeds-ref/"; done
# seeds_for MUTANT: $tmp/seeds-MUTANT, the seeds the mutant passes.
seeds_for() {
    mkdir -p "$tmp/seeds-$1"
    for f in "$tmp/seeds-ref"/*; do
        if (DIVERGENCE_PLUGIN=$M/mutant_$1.so "$REPLAY" "$f" >/dev/null 2>&1) 2>/dev/null; then
            cp "$f" "$tmp/seeds-$1/"
        fi
    done
}

# lf PLUGIN_SO NAME SECONDS: libFuzzer from the seeds; findings under
# $tmp/lf-NAME/found/. Exit status of the engine.
lf() {
    mkdir -p "$tmp/lf-$2/corpus" "$tmp/lf-$2/found"
    DIVERGENCE_PLUGIN=$1 "$LF/fuzz_div" -max_total_time="$3" -timeout=10 -print_final_stats=0 \
        -dict="$S/fuzz/div.dict" -artifact_prefix="$tmp/lf-$2/found/" \
        "$tmp/lf-$2/corpus" "$tmp/seeds-$2" >"$tmp/lf-$2.log" 2>&1
}

# afl PLUGIN_SO NAME SECONDS: AFL++ from the seeds, stopping at the first
# crash; crash files copied to $tmp/afl-NAME/found/. Without the sanitizer
# options of an ASan run of the suite (afl-fuzz refuses ASAN_OPTIONS without
# symbolize=0; its target is no sanitizer build).
afl() {
    mkdir -p "$tmp/afl-$2/found"
    env -u ASAN_OPTIONS -u UBSAN_OPTIONS DIVERGENCE_PLUGIN=$1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 \
        AFL_NO_AFFINITY=1 AFL_NO_UI=1 AFL_BENCH_UNTIL_CRASH=1 \
        afl-fuzz -V "$3" -i "$tmp/seeds-$2" -o "$tmp/afl-$2/out" -x "$S/fuzz/div.dict" \
        -- "$AFL/afl_div" >"$tmp/afl-$2.log" 2>&1
    rc=$?
    for f in "$tmp/afl-$2/out"/*/crashes/id:*; do
        [ -f "$f" ] && cp "$f" "$tmp/afl-$2/found/"
    done
    return $rc
}

found() { ls "$1" | wc -l; }

# The reference kernel: a few seconds each, nothing found.
lf "$LF/plugins/reference.so" ref 3
rc=$?
if [ $rc -eq 0 ] && [ "$(found "$tmp/lf-ref/found")" -eq 0 ] && ! grep -q FINDING "$tmp/lf-ref.log"
then ok; else bad "libFuzzer on the reference: exit $rc: $(tail -n 5 "$tmp/lf-ref.log")"; fi
grep -q 'Done [0-9]* runs' "$tmp/lf-ref.log" || grep -q 'stat::number_of_executed_units' "$tmp/lf-ref.log" ||
    bad "libFuzzer on the reference ran nothing: $(tail -n 5 "$tmp/lf-ref.log")"
afl "$AFL/plugins/reference.so" ref 3
rc=$?
if [ $rc -eq 0 ] && [ "$(found "$tmp/afl-ref/found")" -eq 0 ]; then ok
else bad "AFL++ on the reference: exit $rc: $(tail -n 5 "$tmp/afl-ref.log")"; fi
grep -q 'execs_done *: *[1-9]' "$tmp/afl-ref/out/default/fuzzer_stats" 2>/dev/null ||
    bad "AFL++ on the reference ran nothing: $(tail -n 5 "$tmp/afl-ref.log")"

for pair in $MUTANTS; do
    m=${pair%%:*} class=${pair#*:}
    seeds_for "$m"
    if [ "$(found "$tmp/seeds-$m")" -ge 1 ]; then ok; else bad "mutant_$m traps on every seed"; fi
    for engine in lf afl; do
        dir=$LF
        [ $engine = afl ] && dir=$AFL
        $engine "$dir/tests/mutants/mutant_$m.so" "$m" 30
        n=$(found "$tmp/$engine-$m/found")
        if [ "$n" -ge 1 ]; then ok
        else bad "$engine on mutant_$m: no finding: $(tail -n 5 "$tmp/$engine-$m.log")"; continue; fi
        # Into the store: judged in a worker with the normal build's mutant.
        db=$tmp/$engine-$m.db
        "$D" import --plugin "$M/mutant_$m.so" --db "$db" --max-elements 256 \
            "$tmp/$engine-$m/found" >"$tmp/$engine-$m.import" 2>&1
        rc=$?
        classes=$(sqlite3 "$db" "SELECT DISTINCT class FROM signatures" 2>/dev/null | tr '\n' ' ')
        if [ $rc -eq 1 ] && printf '%s\n' "$classes" | grep -qw -- "$class"; then ok
        else bad "$engine on mutant_$m: import exit $rc, classes '$classes' (want $class): $(tail -n 3 "$tmp/$engine-$m.import")"; fi
    done
done

finish
