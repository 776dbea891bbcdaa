#!/bin/sh
# SPDX-License-Identifier: MIT
# The third round's socket families and IPC objects (issue 35), through
# certify, sandboxed and in reduced mode (hostile_nouserns: a host that
# refuses user namespaces). hp_netipc opens an AF_VSOCK listener (host-wide
# ports: a network namespace does not hold them), netlink, packet and
# inet6 sockets, and System V and POSIX IPC objects, and says each result.
#   sandboxed: every family but AF_UNIX refused (the outer filter's
#              allowlist); IPC objects are the worker's IPC namespace's
#   reduced:   no socket at all, no IPC object made (no IPC namespace:
#              they would be the host's and outlive the run); the host's
#              System V objects and /dev/mqueue are as before
# And hp_openthread, whose open() leaves a thread that execs the linker
# 300 ms later: with --grant pocl (exec of /usr/bin/ld while open() runs)
# the rules added after open() bind that thread too (TSYNC): refused.
# And hp_secretlib, whose DT_NEEDED names by absolute path a library that
# this test makes 0600 in a 0700 folder: the worker's uid cannot read it,
# and the harness (root) must not lend it its rights: a clear refusal.
# And a sparse plugin (512 MiB apparent, a few KiB on disk), which each
# worker would copy into memory: refused, naming the bound.
# And the worker program itself: full RELRO (BIND_NOW), libseccomp linked
# in (no libseccomp.so needed, no relocation a plugin's constructor could
# point elsewhere to switch the filters off).
# Usage: test_third.sh DIVERGENCE HOSTILE_PLUGIN_DIR NOUSERNS
set -u
D=$1 P=$2 NOUSERNS=$3
. "$(dirname "$0")/../lib.sh"
W=$(dirname "$D")/divergence-worker
if command -v readelf >/dev/null 2>&1; then
    readelf -d "$W" | grep -q 'BIND_NOW' && ok || bad "the worker program is not linked with -z now"
    if readelf -d "$W" | grep -q 'NEEDED.*libseccomp'; then
        bad "the worker program loads libseccomp.so (its calls go through the GOT)"
    else ok; fi
    if readelf -rW "$W" | grep -q 'seccomp_'; then bad "the worker program relocates a seccomp_ symbol"
    else ok; fi
fi
reach_build
PLUG=$(reach "$P/hp_netipc.so")
certify() { # OUT_PREFIX [WRAPPER...]
    out=$1
    shift
    "$@" "$D" certify --plugin "$PLUG" --db "$tmp/$out.db" --no-progress --variant onnx-div-13 \
        --dtype i32 --random 20 >"$tmp/$out.out" 2>"$tmp/$out.err"
    rc=$?
    [ $rc -eq 0 ] && ok || bad "$out: certify exit $rc: $(tail -c 600 "$tmp/$out.err")"
    grep -q 'hostile-netipc: vsock socket' "$tmp/$out.err" && ok ||
        bad "$out: the attack did not run: $(tail -c 600 "$tmp/$out.err")"
}
got_through() { # OUT WHAT...: bad for each WHAT that says done
    out=$1
    shift
    for what in "$@"; do
        if grep -q "hostile-netipc: $what: done" "$tmp/$out.err"; then
            bad "$out: $what got through"
        else ok; fi
    done
}
ipc_objects() {
    echo "$(ipcs -a 2>/dev/null | grep -c '^0x') System V, $(ls /dev/mqueue 2>/dev/null | wc -l) POSIX"
}

certify full
got_through full "vsock socket" "vsock listen" "netlink socket" "packet socket" "inet6 socket"
grep -q 'sandbox: user,pid,net,mount,ipc' "$tmp/full.out" ||
    echo "SKIP: no full sandbox here: $(grep sandbox: "$tmp/full.out")"

before=$(ipc_objects)
certify reduced "$NOUSERNS"
grep -q 'sandbox: reduced' "$tmp/reduced.out" && ok ||
    bad "reduced: not reduced: $(grep sandbox: "$tmp/reduced.out")"
got_through reduced "vsock socket" "netlink socket" "packet socket" "inet6 socket" \
    shmget msgget semget mq_open
[ "$(ipc_objects)" = "$before" ] && ok ||
    bad "reduced: the host's IPC objects changed: $before before, $(ipc_objects) after"
# A thread open() started, under the rules added after open().
T=$(reach "$P/hp_openthread.so")
"$D" certify --plugin "$T" --grant pocl --db "$tmp/t.db" --no-progress --variant onnx-div-13 \
    --dtype i32 --random 20 >"$tmp/t.out" 2>"$tmp/t.err"
rc=$?
[ $rc -eq 0 ] && ok || bad "openthread: certify exit $rc: $(tail -c 600 "$tmp/t.out")"
if grep -q 'GNU ld' "$tmp/t.err"; then bad "openthread: a thread of open() exec'd the linker"; else ok; fi
grep -q 'hostile-openthread: exec /usr/bin/ld: Permission denied' "$tmp/t.err" && ok ||
    bad "openthread: the thread's exec not seen refused: $(tail -c 600 "$tmp/t.err")"
# A library the worker's uid cannot read, named by absolute path.
if [ "$(id -u)" -eq 0 ]; then
    S=$(dirname "$P")/secret
    trap 'chmod 755 "$S"; chmod 755 "$S"/*.so; lib_exit' EXIT
    chmod 700 "$S" && chmod 600 "$S"/libhostile_secret.so
    L=$(reach "$P/hp_secretlib.so")
    "$D" certify --plugin "$L" --db "$tmp/s.db" --no-progress --variant onnx-div-13 --dtype i32 \
        --random 5 >"$tmp/s.out" 2>"$tmp/s.err"
    rc=$?
    [ $rc -eq 2 ] && ok || bad "secretlib: certify exit $rc, want 2 (refused)"
    grep -q "libhostile_secret.so, which uid 65534 cannot read" "$tmp/s.err" && ok ||
        bad "secretlib: no error naming the library and the uid: $(tail -c 600 "$tmp/s.err")"
    chmod 755 "$S" && chmod 755 "$S"/libhostile_secret.so
else
    echo "SKIP: secretlib: the harness is not root here (it has no rights to lend)"
fi
# A sparse plugin: its apparent size is what each worker's copy costs.
reach_dir
cp "$P/hp_none.so" "$tmp/reach/sparse.so" && truncate -s 512M "$tmp/reach/sparse.so"
"$D" certify --plugin "$tmp/reach/sparse.so" --db "$tmp/p.db" --no-progress --variant onnx-div-13 \
    --dtype i32 --random 5 >"$tmp/p.out" 2>"$tmp/p.err"
rc=$?
[ $rc -eq 2 ] && ok || bad "sparse: certify exit $rc, want 2"
grep -q 'over the bound of 256 MiB' "$tmp/p.err" && ok || bad "sparse: no error naming the bound: $(cat "$tmp/p.err")"
finish hostile_third
