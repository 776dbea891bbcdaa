#!/bin/sh
# SPDX-License-Identifier: MIT
# The second round of sandbox attacks (issue 24; docs/sandbox.md), each a
# hostile plugin of hostile.h (intruder.c):
#   intruder    at load (its constructor, its open()): the caller's
#               environment (its own /proc/self/environ, pid 1's, its
#               ancestors'), the caller's session keyring, the files its
#               DT_RUNPATH names ($ORIGIN: a secret, the store and a UNIX
#               socket listener beside it; $ORIGIN/..: a secret above),
#               new user and network namespaces (nfnetlink), keys, bpf,
#               perf_event_open, userfaultfd, io_uring, mount, 33 setsid
#               daemons (8 more from open()), a fork bomb, 4,000 threads -
#               through every command that loads a
#               plugin: certify, fuzz, differential fuzz, sweep, diff,
#               replay, onnx-tests, plugins, import; then in reduced mode
#               (a host that refuses user namespaces: hostile_nouserns),
#               with a cgroup and without (DIVERGENCE_TEST_SANDBOX=nocgroup)
#   needpasswd  DT_NEEDED "passwd", DT_RUNPATH /etc: /etc/passwd is never
#               taken for a library (it loads, and cannot read it)
#   threads     4,000 threads in a call (the intruder makes them at load)
# The single-class plugins (c1, dup_claims, dieselgate, forgeline, memfd)
# go through every command in test_classes.sh.
# Usage: test_confinement.sh DIVERGENCE HOSTILE_PLUGIN_DIR HOSTILE_KEYRING
#        HOSTILE_NOUSERNS REFERENCE_PLUGIN CORPUS_DIR [ONNX_TEST_DIR]
set -u
D=$1 P=$2 K=$3 NOUSERNS=$4 REF=$5 CORPUS=$6 ONNX=${7:-}
tmp=$(mktemp -d)
chmod 755 "$tmp"
listener=
trap '[ -n "$listener" ] && kill "$listener" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

# The plugin's folder: the intruder, a secret and the caller's store beside
# it, a UNIX socket listener, a secret in the folder above.
dir=$(mktemp -d "$tmp/plugin.XXXXXX")
chmod 755 "$dir"
cp "$P/hp_intruder.so" "$dir/"
secret_env="s3cret-env-$$" secret_key="s3cret-key-$$"
echo "s3cret-beside-$$" >"$dir/secret.txt"
echo "s3cret-above-$$" >"$tmp/secret-above.txt"
: >"$dir/store.db"
chmod 644 "$dir/secret.txt" "$tmp/secret-above.txt" "$dir/store.db"
: >"$tmp/agent.got"
(cd "$dir" && exec "$PY" -c '
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind("agent.sock"); os.chmod("agent.sock", 0o777); s.listen(64)
print("listening", flush=True)
while True:
    c, _ = s.accept()
    with open(sys.argv[1], "ab") as out:
        out.write(b"connection\n" + c.recv(4096))
    c.close()
' "$tmp/agent.got" >"$tmp/listener.out") &
listener=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q listening "$tmp/listener.out" 2>/dev/null && break; sleep 0.2; done
grep -q listening "$tmp/listener.out" || bad "no UNIX socket listener beside the plugin"

# The caller: a secret in its environment and in its session keyring.
export HOSTILE_SECRET="$secret_env"
keyring=1
"$K" "$secret_key" true 2>/dev/null || { keyring=0; skipped "keyring: this kernel gives no session keyrings"; }
as_caller() {
    if [ $keyring = 1 ]; then "$K" "$secret_key" "$@"; else "$@"; fi
}

# no_daemons WHAT: the intruder's daemons died with its worker. They are
# named "hd" and the tail of the folder the plugin was loaded from, which
# is the harness's private copy, not $dir: any process named hd* that was
# not there when the test began counts, unless it is a zombie: killed,
# waiting for init to reap it (some inits reap orphans late).
daemons_before=$(pgrep '^hd' | tr '\n' ' ')
new_daemons() {
    for pid in $(pgrep '^hd'); do
        case " $daemons_before " in *" $pid "*) continue ;; esac
        case $(ps -o stat= -p "$pid" 2>/dev/null) in Z* | '') ;; *) echo "$pid" ;; esac
    done
}
no_daemons() {
    for _ in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(new_daemons)" ] && break; sleep 0.1; done
    left=$(new_daemons)
    if [ -n "$left" ]; then
        bad "$1: $(echo "$left" | wc -l) of the plugin's daemons outlived its worker ($(ps -o comm= -p "$(echo "$left" | head -1)"))"
        for pid in $left; do kill -KILL "$pid"; done
    else ok; fi
}

# intruded WHAT ERRFILE OUTFILE [nproc]: every load-time attack was contained
# (nproc: without a pids cgroup, where the fork bomb meets RLIMIT_NPROC,
# which counts every process of the worker's uid on the host). The
# intruder's results come as "code=ok|LEAK|N ..." in its version string
# (every command prints it but onnx-tests and replay) and on its stderr
# (shown by every command but fuzz and sweep, whose workers are quiet).
intruded() {
    what=$1 err=$2 out=$3
    report=$(grep -ho 'root=[a-zA-Z]* env=.*threads=[0-9]*' "$out" "$err" | head -1)
    [ -n "$report" ] && ok ||
        { bad "$what: no report of the intruder (it did not load?)"; head -c 1500 "$err" "$out" >&2; return; }
    for code in root env init anc key beside above store sock userns netns setns nested keyctl addkey \
        bpf perf uffd uring mount; do
        case " $report " in
        *" $code=ok "*) ok ;;
        *" $code=LEAK "*) bad "$what: $code: the attack succeeded ($(grep -h "hostile-intruder: " "$err" | head -30 | grep -v ': \(no secret\|Operation not permitted\|Permission denied\|No such file or directory\|Function not implemented\|ok\)$' | head -3))" ;;
        *) bad "$what: $code: not in the report '$report'" ;;
        esac
    done
    case " $report " in *" ls=0 "*) ok ;; *) bad "$what: files beside the plugin in its view: $report" ;; esac
    made=$(echo "$report" | sed -n 's/.*bomb=\([0-9]*\).*/\1/p')
    threads=$(echo "$report" | sed -n 's/.*threads=\([0-9]*\).*/\1/p')
    if [ "${4:-}" = nproc ]; then
        : # RLIMIT_NPROC counts every process of the uid on the host: not ours to bound here
    elif [ -n "$made" ] && [ "$made" -lt 1500 ] && [ -n "$threads" ] && [ "$threads" -lt 4000 ]; then
        ok
    else
        bad "$what: the fork bomb made ${made:-?} processes, the thread bomb ${threads:-?} threads (no limit held)"
    fi
    for s in "$secret_env" "$secret_key" "s3cret-beside-$$" "s3cret-above-$$"; do
        if grep -q "$s" "$err" "$out"; then bad "$what: $s reached the harness's output"; else ok; fi
    done
    if [ -s "$tmp/agent.got" ]; then
        bad "$what: the UNIX socket beside the plugin received: $(head -c 100 "$tmp/agent.got")"
        : >"$tmp/agent.got"
    else ok; fi
    no_daemons "$what"
}

# ---- the intruder through every command that loads a plugin ---------------
db=$tmp/intruder.db
X=$dir/hp_intruder.so
run() { # NAME [WRAPPER] DIVERGENCE ARGS...: out/err in $tmp/NAME.{out,err}
    name=$1; shift
    as_caller "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo $? >"$tmp/$name.rc"
}
run certify "$D" certify --plugin "$X" --db "$db" --no-progress --variant onnx-div-13 --dtype i32 \
    --random 20 --timeout 10000
echo "sandbox here: $(sed -n 's/^  sandbox: //p' "$tmp/certify.out")"
intruded certify "$tmp/certify.err" "$tmp/certify.out"
run fuzz "$D" fuzz --plugin "$X" --db "$db" --no-progress --seconds 0 --cases 100 --jobs 1
intruded fuzz "$tmp/fuzz.err" "$tmp/fuzz.out"
run dfuzz "$D" fuzz --plugin "$X" --plugin "$REF" --db "$db" --no-progress --seconds 0 --cases 100 --jobs 1
intruded "differential fuzz" "$tmp/dfuzz.err" "$tmp/dfuzz.out"
run sweep "$D" sweep --plugin "$X" --db "$db" --no-progress --dtype i8 --variant onnx-div-14 --jobs 1
intruded sweep "$tmp/sweep.err" "$tmp/sweep.out"
run diff "$D" diff --plugin "$X" --plugin "$REF" --db "$db" --variant onnx-div-13 --dtype i32 --random 20
intruded diff "$tmp/diff.err" "$tmp/diff.out"
sig=$(sed -n 's/.*\[sig:\([0-9]*\)\].*/\1/p' "$tmp/certify.out" | head -1)
if [ -n "$sig" ]; then
    run replay "$D" replay --db "$db" "sig:$sig"
    intruded replay "$tmp/replay.err" "$tmp/replay.out"
else
    bad "replay: certify recorded no signature to replay: $(cat "$tmp/certify.out")"
fi
if [ -n "$ONNX" ] && [ -d "$ONNX" ]; then
    run onnx "$D" onnx-tests "$ONNX" --plugin "$X"
    intruded onnx-tests "$tmp/onnx.err" "$tmp/onnx.out"
else
    skipped "onnx-tests: no ONNX test directory"
fi
run plugins "$D" plugins "$X"
intruded plugins "$tmp/plugins.err" "$tmp/plugins.out"
run import "$D" import --plugin "$X" --db "$db" $(ls "$CORPUS"/* | head -3)
intruded import "$tmp/import.err" "$tmp/import.out"

# ---- reduced mode (no user namespaces), with and without a cgroup ----------
for hook in "" nocgroup; do
    for cmd in certify plugins; do
        name="$cmd-reduced$hook"
        if [ $cmd = certify ]; then
            run "$name" env DIVERGENCE_TEST_SANDBOX=$hook "$NOUSERNS" "$D" certify --plugin "$X" \
                --db "$db" --no-progress --variant onnx-div-13 --dtype i32 --random 20 --timeout 10000
            line=$(sed -n 's/^  sandbox: //p' "$tmp/$name.out")
            case $line in
            "reduced (no user namespaces): landlock + seccomp + unprivileged uid"*"missing: user,pid,net,mount,ipc,uts ns"*) ok ;;
            *) bad "reduced $hook: the certificate does not say reduced and what is missing: '$line'" ;;
            esac
        else
            run "$name" env DIVERGENCE_TEST_SANDBOX=$hook "$NOUSERNS" "$D" plugins "$X"
        fi
        intruded "$cmd (reduced $hook)" "$tmp/$name.err" "$tmp/$name.out" \
            "$([ "$hook" = nocgroup ] && echo nproc)"
        # No socket at all once the plugin is loaded (no network namespace).
        grep -q 'connect to the socket beside the plugin: Permission denied' "$tmp/$name.err" && ok ||
            bad "$cmd (reduced $hook): socket(): $(grep 'socket beside' "$tmp/$name.err" | head -1)"
    done
done

# ---- needpasswd: DT_RUNPATH /etc, DT_NEEDED passwd ------------------------
"$D" plugins "$P/hp_needpasswd.so" >"$tmp/np.out" 2>"$tmp/np.err"
rc=$?
[ $rc -eq 0 ] && grep -q 'name *hostile-needpasswd' "$tmp/np.out" && ok ||
    bad "needpasswd: it did not load with the library its DT_RUNPATH folder holds (exit $rc): $(cat "$tmp/np.err")"
grep -q 'hostile-needpasswd: read /etc/passwd: No such file' "$tmp/np.err" && ok ||
    bad "needpasswd: $(grep 'hostile-needpasswd' "$tmp/np.err")"

# ---- threads ----------------------------------------------------------------
"$D" certify --plugin "$P/hp_threads.so" --db "$db" --no-progress --variant onnx-div-13 \
    --dtype i32 --random 20 --timeout 20000 >"$tmp/threads.out" 2>"$tmp/threads.err"
made=$(sed -n 's/.*hostile-threads: \([0-9]*\) threads made.*/\1/p' "$tmp/threads.err" | head -1)
[ -n "$made" ] && [ "$made" -lt 4000 ] && ok || bad "threads: ${made:-?} threads made"

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
