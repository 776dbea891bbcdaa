#!/bin/sh
# SPDX-License-Identifier: MIT
# A file size limit (ulimit -f, RLIMIT_FSIZE) with SIGXFSZ at its default,
# as a user's shell leaves it (issue 13): certify and fuzz must not die of
# SIGXFSZ silently. Each stops with exit 2 and an error naming the
# database and the limit, leaves its run 'incomplete' (not 'running'),
# and the database passes `db check`. (test_disk_full.sh ignores SIGXFSZ
# itself; this one does not.)
# Usage: test_file_size_limit.sh DIVERGENCE PLUGIN
set -u
D=$1 PLUG=$2
. "$(dirname "$0")/../lib.sh"
cd "$tmp" || exit 1
mkdir nocases
# Under a limit below the plugin's size no private copy of it can be made:
# the worker binds the file itself, so its uid must reach it (and the
# worker program), wherever this clone lies.
reach_build
PLUG=$(reach "$PLUG")

# limited BLOCKS COMMAND...: COMMAND under `ulimit -f BLOCKS` (sh's unit:
# 512 bytes in dash, 1024 in bash), SIGXFSZ untouched.
limited() { blocks=$1; shift; sh -c 'ulimit -f "$0" && exec "$@"' "$blocks" "$@"; }

# 1. A database that exists, then a run that outgrows the limit. The
# certify runs leave out the shape-path cases (--shape-tier 0): their
# operand memory alone is over such a limit (a clear error of its own).
"$D" certify --plugin "$PLUG" --variant onnx-div-14 --dtype i8 --random 10 --shape-tier 0 --no-progress \
    --cases nocases --db f.db >/dev/null 2>&1
sqlite3 f.db 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
blocks=$(( ($(stat -c %s f.db) + 32768) / 512 ))
for kind in certify fuzz; do
    if [ $kind = certify ]; then set -- certify --plugin "$PLUG" --random 300 --shape-tier 0 --no-progress --cases nocases --db f.db
    else set -- fuzz --plugin "$PLUG" --db f.db --seconds 0 --cases 200000 --jobs 2 --no-progress; fi
    limited $blocks "$D" "$@" >out 2>err
    rc=$?
    if [ $rc -eq 2 ]; then ok; else bad "$kind under ulimit -f $blocks: exit $rc (want 2; 153 is SIGXFSZ): $(tail -c 400 err)"; fi
    # The database outgrows the limit, or, in a fuzz run fast enough to draw a
    # large shape path before its checkpoints fill the write-ahead log, the
    # operand memory does: either error names what and the limit.
    if grep -q 'f.db: .*ulimit -f' err ||
       { [ $kind = fuzz ] && grep -q 'operand memory .*ulimit -f' err; }; then ok
    else bad "$kind: no error naming the file and the limit: $(tail -c 400 err)"; fi
    running=$(sqlite3 f.db "SELECT count(*) FROM runs WHERE status = 'running'")
    [ "$running" = 0 ] && ok || bad "$kind: $running runs left 'running'"
    last=$(sqlite3 f.db "SELECT status FROM runs WHERE kind = '$kind' ORDER BY id DESC LIMIT 1")
    [ "$last" = incomplete ] && ok || bad "$kind: its run is '$last', want 'incomplete'"
    "$D" db check f.db >check 2>&1 && ok || bad "$kind: db check afterwards: $(cat check)"
done

# 2. A new database that cannot even take the schema.
limited 50 "$D" certify --plugin "$PLUG" --variant onnx-div-14 --dtype i8 --random 10 --shape-tier 0 --no-progress \
    --cases nocases --db g.db >out 2>err
rc=$?
if [ $rc -eq 2 ] && grep -q 'g.db: .*ulimit -f' err; then ok; else
    bad "certify into a new database under ulimit -f 50: exit $rc: $(tail -c 400 err)"; fi

finish
