#!/bin/sh
# SPDX-License-Identifier: MIT
# The sandbox attacks of issue 13 (docs/sandbox.md, "The sandbox"), each a hostile
# plugin (hostile.h: procmem, tiocsti, dbattack, pgkill, escape), each
# through certify, a short fuzz and a sweep of i8 (onnx-div-14):
#   procmem   overwrite "NONCONFORMANT" in the harness through /proc/PID/mem
#             while 1 ulp wrong: the verdict stays NONCONFORMANT
#   tiocsti   type a command into the terminal (a pty from script(1)):
#             nothing arrives
#   dbattack  truncate the --db file named on the harness's command line:
#             the store stays whole, `db check` ok
#   pgkill    join the caller's process group and kill it: the caller and
#             the run live on
#   escape    connect to a listener on 127.0.0.1 (receives nothing), read a
#             secret of the caller's environment (not there), create files
#             in the working directory and $HOME (none appear), raise the
#             hard RLIMIT_CPU (refused)
# Where the kernel gave fewer layers (the certificate's "sandbox:" line), a
# check that needs the missing one prints SKIP and why, and the reduced
# guarantee is checked instead.
# Usage: test_sandbox.sh DIVERGENCE HOSTILE_PLUGIN_DIR
set -u
D=$1 P=$2
tmp=$(mktemp -d)
chmod 755 "$tmp"
listener=
trap '[ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$tmp"' EXIT
db=$tmp/sandbox.db
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }
sound() {
    if "$D" db check "$db" >"$tmp/check.out" 2>&1; then ok; else bad "$1: db check: $(cat "$tmp/check.out")"; fi
}

# What the kernel allows here, as the worker reports it.
layers=$("$D" plugins "$P/hp_none.so" | sed -n 's/^  isolation   \([^;]*\);.*/\1/p')
echo "sandbox here: $layers"
full=0 landlock=0
in_force=${layers%%;*} # what follows "; missing:" is not in force
case $in_force in *user,pid,net,mount*) full=1 ;; esac
case $in_force in *landlock*) landlock=1 ;; esac
[ "$(id -u)" = 0 ] && root=1 || root=0

# run_certify MODE WANT_RC [OPTIONS...]: out/err in $tmp/MODE.{out,err}
run_certify() {
    mode=$1 want=$2; shift 2
    "$D" certify --plugin "$P/hp_$mode.so" --db "$db" --no-progress --variant onnx-div-13 \
        --dtype i32 --random 20 "$@" >"$tmp/$mode.out" 2>"$tmp/$mode.err"
    rc=$?
    [ $rc -eq "$want" ] && ok || { bad "$mode: certify exit $rc, want $want"; head -c 2000 "$tmp/$mode.out" "$tmp/$mode.err" >&2; }
    grep -q "^  sandbox: " "$tmp/$mode.out" && ok || bad "$mode: no sandbox line in the certificate"
    run=$(sed -n 's/.*, run \([0-9]*\) in .*/\1/p' "$tmp/$mode.out" | head -1)
    st=$(sqlite3 "$db" "SELECT status || ' ' || coalesce(sandbox, 'NULL') FROM runs WHERE id = ${run:-0}" 2>&1)
    case $st in "complete $layers"*) ok ;; *) bad "$mode: run ${run:-?}: $st (want complete, $layers)" ;; esac
    sound "$mode"
}

# run_fuzz MODE: a short campaign that must finish
run_fuzz() {
    mode=$1; shift
    "$D" fuzz --plugin "$P/hp_$mode.so" --db "$db" --no-progress --cases 300 --jobs 1 \
        "$@" >"$tmp/fuzz-$mode.out" 2>"$tmp/fuzz-$mode.err"
    rc=$?
    [ $rc -le 1 ] && grep -q "^  sandbox: " "$tmp/fuzz-$mode.out" && ok ||
        { bad "fuzz $mode: exit $rc"; head -c 2000 "$tmp/fuzz-$mode.out" "$tmp/fuzz-$mode.err" >&2; }
    sound "fuzz $mode"
}

# run_sweep MODE: i8, every pair
run_sweep() {
    mode=$1; shift
    "$D" sweep --plugin "$P/hp_$mode.so" --db "$db" --no-progress --dtype i8 \
        --variant onnx-div-14 --jobs 1 "$@" >"$tmp/sweep-$mode.out" 2>"$tmp/sweep-$mode.err"
    rc=$?
    [ $rc -le 1 ] && grep -q "^  sandbox: " "$tmp/sweep-$mode.out" && ok ||
        { bad "sweep $mode: exit $rc"; head -c 2000 "$tmp/sweep-$mode.out" "$tmp/sweep-$mode.err" >&2; }
    sound "sweep $mode"
}

# ---- 1: /proc/<harness>/mem -------------------------------------------------
run_certify procmem 1
grep -q 'i32 *NONCONFORMANT' "$tmp/procmem.out" && grep -q '^0 of 1 claims hold' "$tmp/procmem.out" && ok ||
    bad "procmem: the 1-ulp-wrong kernel was not NONCONFORMANT: $(cat "$tmp/procmem.out")"
if grep -q 'hostile-procmem: [1-9][0-9]* replaced' "$tmp/procmem.err"; then
    bad "procmem: the plugin wrote into the harness: $(grep hostile-procmem "$tmp/procmem.err")"
else ok; fi
grep -q '^plugin hostile-procmem: hostile-procmem: ' "$tmp/procmem.err" && ok ||
    bad "procmem: the plugin's output is not shown prefixed: $(head -c 500 "$tmp/procmem.err")"
run_fuzz procmem
run_sweep procmem
grep -q 'NONCONFORMANT' "$tmp/sweep-procmem.out" && ok || bad "sweep procmem: not NONCONFORMANT"

# ---- 2: TIOCSTI on the terminal ----------------------------------------------
if command -v script >/dev/null 2>&1; then
    script -qec "'$D' certify --plugin '$P/hp_tiocsti.so' --db '$db' --no-progress \
        --variant onnx-div-13 --dtype i32 --random 20; \
        '$D' fuzz --plugin '$P/hp_tiocsti.so' --db '$db' --no-progress --cases 300 --jobs 1; \
        '$D' sweep --plugin '$P/hp_tiocsti.so' --db '$db' --no-progress --dtype i8 \
        --variant onnx-div-14 --jobs 1; sleep 0.2" "$tmp/typescript" \
        </dev/null >"$tmp/tiocsti.pty" 2>&1
    if grep -q 'HOSTILE-INJECTED' "$tmp/typescript" "$tmp/tiocsti.pty"; then
        bad "tiocsti: text reached the terminal: $(grep -h HOSTILE-INJECTED "$tmp/tiocsti.pty" | head -3)"
    else ok; fi
    grep -q 'hostile-tiocsti: 0 bytes typed' "$tmp/tiocsti.pty" && ok ||
        bad "tiocsti: $(grep -h 'hostile-tiocsti' "$tmp/tiocsti.pty" | head -1)"
    grep -q 'CONFORMANT' "$tmp/tiocsti.pty" && ok || bad "tiocsti: no certificate under the pty"
else
    skipped "tiocsti under a pty: no script(1); the ioctl is still refused (seccomp) below"
fi
run_certify tiocsti 0
grep -q 'hostile-tiocsti: 0 bytes typed' "$tmp/tiocsti.err" && ok || bad "tiocsti: $(grep hostile-tiocsti "$tmp/tiocsti.err")"
run_fuzz tiocsti
run_sweep tiocsti

# ---- 3: the --db file --------------------------------------------------------
run_certify dbattack 0
if grep -q 'hostile-dbattack: ftruncate: done' "$tmp/dbattack.err"; then
    bad "dbattack: the plugin truncated the database"
else ok; fi
n=$(sqlite3 "$db" "SELECT count(*) FROM runs")
[ "${n:-0}" -ge 3 ] && ok || bad "dbattack: the database lost its runs ($n)"
run_fuzz dbattack
run_sweep dbattack
if grep -q 'hostile-dbattack: ftruncate: done' "$tmp/fuzz-dbattack.err" "$tmp/sweep-dbattack.err"; then
    bad "dbattack: fuzz or sweep let the plugin truncate the database"
else ok; fi
n2=$(sqlite3 "$db" "SELECT count(*) FROM runs")
[ "${n2:-0}" -gt "${n:-0}" ] && ok || bad "dbattack: fuzz and sweep runs missing ($n2 after $n)"

# ---- 4: the caller's process group -------------------------------------------
# A non-interactive sh runs divergence in its own process group: a plugin in
# that group that kill(0)s takes this script with it.
run_certify pgkill 1
echo "pgkill: this script outlived the plugin's kill(0, SIGKILL)"; ok
grep -q 'hostile-pgkill: setpgid: Operation not permitted' "$tmp/pgkill.err" && ok ||
    bad "pgkill: setpgid was not refused: $(grep hostile-pgkill "$tmp/pgkill.err")"
run_fuzz pgkill
run_sweep pgkill
echo "pgkill: this script outlived fuzz and sweep"; ok

# ---- 5: network, environment, files, limits ----------------------------------
mkdir -p "$tmp/work" "$tmp/home"
port=
if command -v python3 >/dev/null 2>&1; then
    python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
with open(sys.argv[1], "ab") as out:
    while True:
        c, _ = s.accept(); out.write(b"connection\n" + c.recv(4096)); out.flush(); c.close()
' "$tmp/listener.got" >"$tmp/listener.port" &
    listener=$!
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        port=$(cat "$tmp/listener.port" 2>/dev/null)
        [ -n "$port" ] && break
        sleep 0.2
    done
fi
[ -n "$port" ] || skipped "escape: no loopback listener (python3); connect is still reported"
secret="s3cret-token-$$"
# The caller's working directory, $HOME and a secret, as a user's shell has them.
here=$PWD home_was=${HOME:-}
cd "$tmp/work" || exit 1
export HOME="$tmp/home" HOSTILE_SECRET="$secret" HOSTILE_CWD="$tmp/work"
run_certify escape 0 --env "HOSTILE_PORT=${port:-1}"
run_fuzz escape --env "HOSTILE_PORT=${port:-1}"
run_sweep escape --env "HOSTILE_PORT=${port:-1}"
cd "$here" || exit 1
export HOME="$home_was"
unset HOSTILE_SECRET HOSTILE_CWD
sleep 0.3
if [ -s "$tmp/listener.got" ]; then bad "escape: the listener received: $(head -c 200 "$tmp/listener.got")"; else ok; fi
if grep -q "$secret" "$tmp/escape.out" "$tmp/escape.err"; then bad "escape: the plugin read the caller's secret"; else ok; fi
grep -q 'hostile-escape: secret: (none)' "$tmp/escape.err" && ok || bad "escape: $(grep 'secret:' "$tmp/escape.err")"
if [ "$full" = 1 ] || [ "$landlock" = 1 ] || [ "$root" = 1 ]; then
    for f in "$tmp/work/hostile-was-here" "$tmp/home/hostile-was-here"; do
        [ -e "$f" ] && bad "escape: $f appeared" || ok
    done
else
    skipped "escape: files in the working directory and \$HOME: neither a mount namespace nor Landlock nor root to drop from ($layers)"
fi
if grep -q 'hostile-escape: raise RLIMIT_CPU: done' "$tmp/escape.err"; then
    bad "escape: the plugin raised its hard RLIMIT_CPU"
else ok; fi
grep -q 'hostile-escape: connect: connected' "$tmp/escape.err" && bad "escape: connect succeeded" || ok
if [ "$full" = 1 ]; then
    # No internet socket at all (the outer filter's family allowlist), no
    # interface up (the namespace), or refused first by Landlock.
    grep -q 'hostile-escape: connect: \(Address family not supported by protocol\|Network is unreachable\|Permission denied\)' \
        "$tmp/escape.err" && ok ||
        bad "escape: connect in the network namespace: $(grep 'connect:' "$tmp/escape.err")"
else
    skipped "escape: no network namespace ($layers); socket(AF_INET) must be refused"
    grep -q 'hostile-escape: connect: Address family not supported' "$tmp/escape.err" && ok ||
        bad "escape: $(grep 'connect:' "$tmp/escape.err")"
fi
if grep -q "$secret" "$tmp/fuzz-escape.out" "$tmp/fuzz-escape.err" "$tmp/sweep-escape.out" "$tmp/sweep-escape.err"; then
    bad "escape: fuzz or sweep showed the secret"
else ok; fi
ls "$tmp/work" "$tmp/home" | grep -q hostile-was-here && [ "$full$landlock$root" != 000 ] && bad "escape: fuzz or sweep left files" || ok
[ -s "$tmp/listener.got" ] && bad "escape: fuzz or sweep reached the listener" || ok

# --sandbox strict: every layer, or exit 2 naming what is missing.
"$D" certify --plugin "$P/hp_none.so" --db "$db" --no-progress --variant onnx-div-13 --dtype i32 \
    --random 5 --sandbox strict >"$tmp/strict.out" 2>"$tmp/strict.err"
rc=$?
if [ "$full" = 1 ] && [ "$landlock" = 1 ]; then
    [ $rc -eq 0 ] && ok || bad "strict: exit $rc with every layer: $(cat "$tmp/strict.err")"
else
    [ $rc -eq 2 ] && grep -q 'sandbox strict' "$tmp/strict.err" && ok || bad "strict: exit $rc without every layer"
fi
# --sandbox off: said loudly, recorded.
"$D" certify --plugin "$P/hp_none.so" --db "$db" --no-progress --variant onnx-div-13 --dtype i32 \
    --random 5 --sandbox off >"$tmp/off.out" 2>"$tmp/off.err"
grep -q 'WARNING: --sandbox off' "$tmp/off.err" && grep -q '^  sandbox: UNCONFINED (--sandbox off)' "$tmp/off.out" && ok ||
    bad "off: not said: $(cat "$tmp/off.err" "$tmp/off.out" | head -5)"
n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE sandbox LIKE 'UNCONFINED%'")
[ "$n" = 1 ] && ok || bad "off: $n runs recorded as off"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
