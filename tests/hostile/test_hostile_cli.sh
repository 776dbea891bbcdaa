#!/bin/sh
# SPDX-License-Identifier: MIT
# The hostile plugins through the CLI, all into one database: each
# certification must exit 1 (0 where the plugin stays right) with the
# class README.md names, judge both its claims (the run goes on after the
# hostile act), end 'complete', and leave the database sound; a short fuzz
# campaign on some of them likewise; `divergence plugins` loads them all.
# Usage: test_hostile_cli.sh DIVERGENCE HOSTILE_PLUGIN_DIR
set -u
D=$1 P=$2
. "$(dirname "$0")/../lib.sh"
db=$tmp/hostile.db
modes=0

sound() { # the database after each run
    if "$D" db check "$db" >"$tmp/check.out" 2>&1; then ok; else bad "$1: db check: $(cat "$tmp/check.out")"; fi
}

# certify MODE WANT_RC PATTERN [OPTIONS...]
certify() {
    mode=$1 want=$2 pattern=$3; shift 3
    modes=$((modes + 1))
    "$D" certify --plugin "$P/hp_$mode.so" --db "$db" --no-progress --variant onnx-div-13 \
        --dtype i32 --dtype f32 --random 20 "$@" >"$tmp/$mode.out" 2>"$tmp/$mode.err"
    rc=$?
    if [ $rc -ne "$want" ]; then
        bad "$mode: exit $rc, want $want"; head -c 3000 "$tmp/$mode.out" "$tmp/$mode.err" >&2
    elif ! grep -q -- "$pattern" "$tmp/$mode.out"; then
        bad "$mode: no /$pattern/ in the certificate"; head -c 3000 "$tmp/$mode.out" >&2
    else ok; fi
    # Both claims judged (the run went on), the run complete.
    run=$(sed -n 's/.*, run \([0-9]*\) in .*/\1/p' "$tmp/$mode.out" | head -1)
    n=$(sqlite3 "$db" "SELECT count(*) FROM certificates WHERE run_id = ${run:-0}" 2>&1)
    st=$(sqlite3 "$db" "SELECT status FROM runs WHERE id = ${run:-0}" 2>&1)
    if [ "$n" = 2 ] && [ "$st" = complete ]; then ok; else bad "$mode: run ${run:-?}: $n certificates, $st"; fi
    # A CPU no case reached is not said to hold (thread_crash: the shape
    # paths stop before the emulated CPU's sample).
    if grep -q '^    cpu .* 0 cases: holds' "$tmp/$mode.out"; then
        bad "$mode: a CPU that judged no case holds: $(grep '^    cpu .* 0 cases' "$tmp/$mode.out")"
    else ok; fi
    # Whatever the plugin printed went to stderr, never to our stdout.
    if grep -q '^xxxxxxxx\|^hostile-[a-z_0-9]*: ' "$tmp/$mode.out"; then bad "$mode: plugin output on stdout"; else ok; fi
    sound "$mode"
}

certify exit 1 '^    crash .*exit(7)'
certify abort 1 '^    crash .*SIGABRT'
certify stack 1 '^    crash .*stack overflow'
certify alloc 1 '^    failure ' --memory-limit 256
grep -q 'malloc failed after' "$tmp/alloc.err" && ok || bad "alloc: the memory limit did not stop it"
certify forkbomb 1 '^    failure '
grep -q '64 forks failed: Resource temporarily unavailable' "$tmp/forkbomb.err" && ok || bad "forkbomb: forks were not refused"
certify spew 0 '^2 of 2 claims hold'
size=$(wc -c <"$tmp/spew.err")
if [ "$size" -gt 1000 ] && [ "$size" -lt 1200000 ]; then ok; else bad "spew: $size bytes of plugin output on stderr"; fi
certify closefd 1 '^    crash .*protocol.*fd 3'
certify writefd 1 '^    crash .*malformed'
certify truncarena 1 '^    input-mutated '
certify sighandler 1 '^    signal-state-leaked .*SIGSEGV'
certify alarm 1 '^    signal-state-leaked .*alarm'
certify sigmask 1 '^    signal-state-leaked .*signal mask'
certify thread_spin 0 '^2 of 2 claims hold'
certify thread_crash 1 '^    crash .*between calls'
certify round 1 '^    fp-state-leaked .*rounding mode'
certify ftz 1 '^    fp-state-leaked .*flush-to-zero'
certify traps 1 '^    fp-state-leaked .*exception traps'
certify attackparent 0 '^2 of 2 claims hold'
grep -q 'kill([0-9]*): Operation not permitted; ptrace: Operation not permitted' "$tmp/attackparent.err" && ok || bad "attackparent: not refused"
certify exec 0 '^2 of 2 claims hold'
grep -q 'hostile-exec: Permission denied' "$tmp/exec.err" && ok || bad "exec: not refused"
# Given --grant pocl (the exec of /usr/bin/ld allowed while open() runs), a
# plugin that execs in compute is refused all the same, the linker included:
# the runners' filter refuses exec again before any compute.
certify exec 0 '^2 of 2 claims hold' --grant pocl
if grep -q 'hostile-exec: /usr/bin/ld: Permission denied' "$tmp/exec.err" &&
    grep -q 'hostile-exec: Permission denied' "$tmp/exec.err" &&
    grep -q '^  sandbox: .* + grant pocl: exec /usr/bin/ld during open() only' "$tmp/exec.out"; then ok; else
    bad "exec --grant pocl: an exec in compute not refused, or the grant not named"
    head -c 3000 "$tmp/exec.out" "$tmp/exec.err" >&2; fi
certify cpu 1 '^    hang .*CPU time' --cpu-limit 1 --timeout 30000
certify sleep 1 '^    hang ' --timeout 500
certify rank1000 1 '^    wrong-output-shape .*rank 1000'
# The leaks were put back before every later call: the plugins that check
# their state at each call never found it changed.
for m in sighandler alarm sigmask round ftz traps; do
    if grep -q '^    failure ' "$tmp/$m.out"; then bad "$m: a later call began with the state changed"; else ok; fi
done

# Fuzz campaigns on some of them, two jobs each: end with findings (exit 1),
# the run complete, the database sound.
for mode in exit stack writefd alarm round; do
    "$D" fuzz --plugin "$P/hp_$mode.so" --db "$db" --no-progress --seconds 0 --cases 300 \
        --jobs 2 --timeout 2000 >"$tmp/fuzz-$mode.out" 2>"$tmp/fuzz-$mode.err"
    rc=$?
    run=$(sed -n 's/^fuzz: .*, run \([0-9]*\)$/\1/p' "$tmp/fuzz-$mode.out")
    st=$(sqlite3 "$db" "SELECT status FROM runs WHERE id = ${run:-0}" 2>&1)
    cases=$(sqlite3 "$db" "SELECT sum(cases) FROM counts WHERE run_id = ${run:-0} AND class = 'match'" 2>&1)
    if [ $rc -eq 1 ] && [ "$st" = complete ] && [ "$cases" = 300 ]; then ok; else
        bad "fuzz $mode: exit $rc, run ${run:-?} $st, $cases cases"; head -c 2000 "$tmp/fuzz-$mode.out" "$tmp/fuzz-$mode.err" >&2
    fi
    sound "fuzz $mode"
done

# Every run of the file complete; every compute-time plugin loads.
n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE status <> 'complete'")
[ "$n" = 0 ] && ok || bad "$n runs are not complete"
for mode in exit abort stack alloc forkbomb spew closefd writefd truncarena sighandler alarm \
    sigmask thread_spin thread_crash round ftz traps attackparent exec cpu sleep rank1000; do
    "$D" plugins "$P/hp_$mode.so" >"$tmp/plugins.out" 2>&1 && ok || bad "plugins $mode: $(cat "$tmp/plugins.out")"
done
"$D" query --db "$db" runs >/dev/null 2>"$tmp/q.err" && ok || bad "query runs: $(cat "$tmp/q.err")"

echo "hostile behaviours through certify: $modes"
finish
