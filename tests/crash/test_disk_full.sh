#!/bin/sh
# SPDX-License-Identifier: MIT
# Disk full: the database lives on a small tmpfs (mount -t tmpfs -o
# size=...; where mount is not permitted, RLIMIT_FSIZE with SIGXFSZ
# ignored stands in: writes past it fail with EFBIG as they would with
# ENOSPC). A certification, then a fuzz campaign, that outgrow it must
# stop with a clear error naming the file (exit 2) and leave the database
# intact: `db check` passes, what was committed is still there, and once
# there is room the interrupted certification resumes and completes.
# Usage: test_disk_full.sh DIVERGENCE PLUGIN
set -u
D=$1 PLUG=$2
. "$(dirname "$0")/../lib.sh"
mnt=$tmp/mnt
mkdir "$mnt"
mounted=0
cleanup() { # before lib.sh removes $tmp
    [ $mounted -eq 1 ] && umount "$mnt" 2>/dev/null
}
db=$mnt/full.db
mkdir "$tmp/nocases" # small cases only: under RLIMIT_FSIZE the operand memory counts too
SMALL="--variant onnx-div-14 --dtype i8 --random 10 --no-progress --cases $tmp/nocases"
BIG="--random 300 --no-progress --cases $tmp/nocases"

if [ -z "${DISKFULL_FSIZE:-}" ] && mount -t tmpfs -o size=640k tmpfs "$mnt" 2>/dev/null; then
    mounted=1
    echo "disk full: a 640 KiB tmpfs"
    limited() { "$@"; }
else
    echo "disk full: mount is not permitted here; RLIMIT_FSIZE (640 KiB) stands in for a full disk"
    limited() { (trap '' XFSZ; ulimit -f 1280; exec "$@"); }
fi
snapshot() {
    sqlite3 "$1" "SELECT 's', id, class, operand_class FROM signatures; SELECT 'r', id, signature_id
                  FROM reproducers; SELECT 'c', run_id, variant, dtype, verdict FROM certificates" | sort
}

# 1. What fits.
"$D" certify --plugin "$PLUG" --db "$db" $SMALL >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && ok || bad "the first run: exit $rc: $(cat "$tmp/err")"
snapshot "$db" >"$tmp/before"
[ -s "$tmp/before" ] && ok || bad "the first run recorded nothing"

# 2. What does not.
for kind in certify fuzz; do
    if [ $kind = certify ]; then set -- certify --plugin "$PLUG" --db "$db" $BIG; else
        set -- fuzz --plugin "$PLUG" --db "$db" --seconds 0 --cases 200000 --jobs 2 --no-progress; fi
    limited "$D" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q 'full.db: .*\(full\|too large\|I/O error\)' "$tmp/err"; then ok; else
        bad "$kind on a full disk: exit $rc (want 2 and a word of the full disk): $(tail -c 600 "$tmp/err")"
    fi
    "$D" db check "$db" >"$tmp/check" 2>&1 && ok || bad "$kind: db check after the full disk: $(cat "$tmp/check")"
    snapshot "$db" >"$tmp/after"
    missing=$(comm -23 "$tmp/before" "$tmp/after" | wc -l)
    [ "$missing" -eq 0 ] && ok || bad "$kind: $missing committed rows lost"
    cp "$tmp/after" "$tmp/before"
done

# 3. Room again: the interrupted certification resumes and completes.
if [ $mounted -eq 1 ]; then
    mount -o remount,size=64m "$mnt" && ok || bad "remount"
    limited() { "$@"; }
else
    limited() { "$@"; }
fi
"$D" certify --plugin "$PLUG" --db "$db" $BIG --resume >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 1 ] && grep -q '(resumed)' "$tmp/out"; then ok; else bad "resume after the full disk: exit $rc: $(head -c 600 "$tmp/err")"; fi
n=$(sqlite3 "$db" "SELECT count(*) FROM runs WHERE kind = 'certify' AND status = 'complete'")
[ "$n" = 2 ] && ok || bad "$n complete certify runs, want 2"
claims=$(sqlite3 "$db" "SELECT count(*) FROM certificates WHERE run_id = (SELECT max(id) FROM runs WHERE kind = 'certify')")
[ "$claims" = 65 ] && ok || bad "the resumed run holds $claims certificates, want 65"
"$D" db check "$db" >/dev/null 2>&1 && ok || bad "db check at the end"
finish
