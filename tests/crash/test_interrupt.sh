#!/bin/sh
# SPDX-License-Identifier: MIT
# An interrupted run is never green (issue 34, part 3). certify stopped
# by SIGINT, fuzz by SIGTERM and sweep by SIGHUP each end cleanly: exit
# 128 + the signal, the run stored as 'interrupted' (not 'running'),
# stderr naming the --resume command that continues it, stdout (a file)
# ending on a whole line. Every report of the interrupted certify says so
# first: JUnit an <error> test case, Markdown and HTML a banner before the
# title, JSON "not_complete". The printed command completes the same run,
# whose reports are then plain again; fuzz --resume takes a new --seconds.
# Usage: test_interrupt.sh DIVERGENCE PLUGIN
set -u
D=$1 PLUG=$2
. "$(dirname "$0")/../lib.sh"
cd "$tmp" || exit 2

# Waits (up to 120 s) until SQL on DB answers a non-empty, non-zero value.
wait_for() { # DB SQL
    i=0
    while [ $i -lt 1200 ]; do
        v=$(sqlite3 "$1" "$2" 2>/dev/null)
        [ -n "$v" ] && [ "$v" != 0 ] && return 0
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# Starts COMMAND... (stdout to OUT, stderr to ERR), waits until SQL on DB
# answers, sends SIG, and checks the exit status 128 + SIGNO and that the
# run is stored as 'interrupted'.
interrupt() { # SIG SIGNO DB SQL OUT ERR COMMAND...
    sig=$1 no=$2 db=$3 sql=$4 o=$5 e=$6
    shift 6
    "$@" >"$o" 2>"$e" &
    pid=$!
    wait_for "$db" "$sql" || bad "$sig: nothing recorded in 120 s: $(tail -3 "$e")"
    kill -"$sig" $pid
    wait $pid
    rc=$?
    [ $rc -eq $((128 + no)) ] && ok || bad "SIG$sig: exit $rc, want $((128 + no)): $(tail -3 "$e")"
    st=$(sqlite3 "$db" "SELECT status FROM runs WHERE id = 1")
    [ "$st" = interrupted ] && ok || bad "SIG$sig: the run is '$st', want 'interrupted'"
}

# ---- certify, SIGINT -------------------------------------------------------
interrupt INT 2 c.db "SELECT count(*) FROM certificates" out err \
    "$D" certify --plugin "$PLUG" --db c.db --variant onnx-div-14 --variant sonnx-div --random 100 \
    --shape-tier 10 --seed 3 --no-progress --jobs 2
grep -q "interrupted by SIGINT: run 1 is stored as 'interrupted'" err && ok ||
    bad "stderr does not say the run is interrupted: $(cat err)"
resume=$(grep -A1 'continue it with:' err | tail -1 | sed 's/^  //')
case $resume in
divergence\ certify\ --plugin\ *--resume) ok ;;
*) bad "no --resume command on stderr: '$resume'" ;;
esac
[ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ] && ok || bad "stdout ends in the middle of a line"
grep -q '^INTERRUPTED by SIGINT: ' out && ok || bad "stdout does not say the run was interrupted"
"$D" db check c.db >/dev/null 2>&1 && ok || bad "db check fails after the interrupt"

# every report says so first
"$D" report --db c.db --run 1 --format junit -o r.xml
grep -q '<testsuites name="divergence" tests="[0-9]*" failures="[0-9]*" errors="1"' r.xml && ok ||
    bad "JUnit of the interrupted run has no error: $(head -3 r.xml)"
grep -q '<error message="NOT COMPLETE: run 1 (interrupted)' r.xml && ok || bad "JUnit has no <error> test case"
"$D" report --db c.db --run 1 --format md -o r.md
head -1 r.md | grep -q '^> \*\*NOT COMPLETE: run 1 (interrupted) ' && ok ||
    bad "Markdown does not open with the banner: $(head -1 r.md)"
"$D" report --db c.db --run 1 --format html -o r.html
awk '/not-complete">NOT COMPLETE/ { b = NR } /<h1>/ { h = NR } END { exit !(b && b < h) }' r.html && ok ||
    bad "HTML has no banner before its title"
"$D" report --db c.db --run 1 --format json -o r.json
grep -q '^{"not_complete": "NOT COMPLETE: run 1' r.json && ok || bad "JSON does not open with not_complete"

# the printed command completes the same run
PATH=$B:$PATH sh -c "$resume" >out2 2>err2
rc=$?
[ $rc -le 1 ] && ok || bad "the resume command exits $rc: $(tail -3 err2)"
grep -q '(resumed)' out2 && ok || bad "the resume command did not take the run up"
[ "$(sqlite3 c.db "SELECT group_concat(id || ' ' || status) FROM runs")" = "1 complete" ] && ok ||
    bad "after --resume: $(sqlite3 c.db "SELECT group_concat(id || ' ' || status) FROM runs")"
"$D" report --db c.db --run 1 --format junit -o r2.xml
grep -q 'errors="0"' r2.xml && ! grep -q '<error' r2.xml && ok || bad "JUnit of the completed run has an error"
"$D" report --db c.db --run 1 --format md -o r2.md
head -1 r2.md | grep -q '^# Divergence certificate' && ok || bad "Markdown of the completed run: $(head -1 r2.md)"

# ---- fuzz, SIGTERM; --resume with another --seconds --------------------------
interrupt TERM 15 f.db "SELECT sum(cases) FROM counts WHERE class = 'match'" fout ferr \
    "$D" fuzz --plugin "$PLUG" --db f.db --seconds 300 --jobs 1 --seed 4 --no-progress
grep -q 'divergence fuzz --plugin .* --seconds 300 .*--resume' ferr && ok || bad "fuzz names no --resume command: $(cat ferr)"
"$D" fuzz --plugin "$PLUG" --db f.db --seconds 1 --jobs 1 --seed 4 --no-progress --resume >fout2 2>ferr2
grep -q '^fuzz: resuming run 1 at case ' fout2 && ok || bad "fuzz --resume --seconds 1 did not take run 1 up: $(cat fout2 ferr2)"
[ "$(sqlite3 f.db "SELECT group_concat(id || ' ' || status) FROM runs")" = "1 complete" ] && ok ||
    bad "after fuzz --resume: $(sqlite3 f.db "SELECT group_concat(id || ' ' || status) FROM runs")"

# ---- sweep, SIGHUP ---------------------------------------------------------
interrupt HUP 1 s.db "SELECT count(*) FROM sweep_chunks" sout serr \
    "$D" sweep --plugin "$PLUG" --db s.db --dtype i16 --variant onnx-div-14 --jobs 1 --no-progress
grep -q 'divergence sweep .*--resume' serr && ok || bad "sweep names no --resume command: $(cat serr)"

[ "$(sqlite3 c.db "PRAGMA user_version")" -ge 9 ] && ok || bad "schema $(sqlite3 c.db "PRAGMA user_version"), want 9 or later (the interrupted status)"
finish interrupt
