#!/bin/sh
# SPDX-License-Identifier: MIT
# Malformed input everywhere a user can pass one: command-line flags of
# every command, case files, corpus and finding files, ONNX test
# directories, the oracle's stdin, and databases that are damaged, not
# databases, of a newer schema, read-only, or locked by another writer.
# Each must give a clear error on stderr (what, and where: file, line,
# flag), nothing on stdout, exit 2, never a signal death or a hang; and a
# database that was there is left as it was (its bytes unchanged, where
# nothing may be written).
# Usage: test_malformed_inputs.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
D=$1 PD=$2 S=$3
P=$PD/reference.so
. "$(dirname "$0")/../lib.sh"
chmod 755 "$tmp"
inputs=0
A="--variant onnx-div-13 --dtype i32 --random 2 --no-progress"

# bad PATTERN COMMAND...: exit 2, PATTERN on stderr, stdout empty, under 60 s.
expect2() {
    pattern=$1; shift
    timeout 60 "$D" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$pattern" "$tmp/err" &&
        { [ ! -s "$tmp/out" ] || { [ $ONNX_SUMMARY = 1 ] && [ "$(wc -l <"$tmp/out")" -le 1 ]; }; }; then ok; else
        bad "divergence $*: exit $rc (want 2), stdout $(wc -c <"$tmp/out") bytes, no /$pattern/ in: $(head -c 600 "$tmp/err")"
    fi
}
# Same, counting one malformed input.
input() { inputs=$((inputs + 1)); expect2 "$@"; }
# onnx-tests prints its summary on stdout even after errors: allowed.
ONNX_SUMMARY=0

# ---- flags of every command -----------------------------------------------
input 'usage: divergence' ;
input "unknown command 'nosuch'" nosuch
for cmd in certify fuzz; do
    input '--plugin PATH is required' $cmd
    input "unknown option '--bogus'" $cmd --plugin "$P" --bogus 1
    input "needs a value" $cmd --plugin "$P" --seed
    input "\-\-seed '-1': expected an integer" $cmd --plugin "$P" --seed -1
    input "\-\-seed '99999999999999999999': expected an integer" $cmd --plugin "$P" --seed 99999999999999999999
    input "\-\-seed '12abc'" $cmd --plugin "$P" --seed 12abc
    input "\-\-timeout '0'" $cmd --plugin "$P" --timeout 0
    input "\-\-timeout '3600001'" $cmd --plugin "$P" --timeout 3600001
    input "\-\-max-elements '0'" $cmd --plugin "$P" --max-elements 0
    input "profile 'ulp:0'" $cmd --plugin "$P" --profile ulp:0
    input "profile 'fast'" $cmd --plugin "$P" --profile fast
    input "\-\-shard '2/2'" $cmd --plugin "$P" --shard 2/2
    input "\-\-shard '1/0'" $cmd --plugin "$P" --shard 1/0
    input "\-\-shard 'x'" $cmd --plugin "$P" --shard x
    # one --shard rule for every command: a sign is refused, even where
    # scanf would read it as 0 or wrap it round to a valid count
    input "\-\-shard '-0/2'" $cmd --plugin "$P" --shard -0/2
    input "\-\-shard '0/-4294967294'" $cmd --plugin "$P" --shard 0/-4294967294
    input "\-\-memory-limit '-1'" $cmd --plugin "$P" --memory-limit -1
    input "\-\-cpu-limit 'lots'" $cmd --plugin "$P" --cpu-limit lots
done
input "unexpected argument 'stray'" certify --plugin "$P" stray
input "unknown variant 'onnx-div-99'" certify --plugin "$P" --variant onnx-div-99
input "unknown dtype 'f8'" certify --plugin "$P" --dtype f8
input "\-\-random '-3'" certify --plugin "$P" --random -3
input "\-\-grant 'root': expected one of pocl, cuda" certify --plugin "$P" --grant root
input "\-\-grant 'POCL': expected one of pocl, cuda" sweep --plugin "$P" --dtype f16 --grant POCL
input "\-\-grant '': expected one of pocl, cuda" plugins --grant '' "$P"
input "\-\-jobs '0'" fuzz --plugin "$P" --jobs 0
input "\-\-jobs '65'" fuzz --plugin "$P" --jobs 65
input "\-\-seconds 0 needs --cases" fuzz --plugin "$P" --seconds 0
input "\-\-cases 'many'" fuzz --plugin "$P" --cases many
input "unexpected argument 'stray'" fuzz --plugin "$P" stray
input 'no finding files given' import --plugin "$P"
input '--plugin PATH is required' import "$tmp"
input 'usage: divergence replay' replay
input "reproducer id 'abc'" replay --db "$tmp/x.db" abc
input "unexpected argument '-5'" replay --db "$tmp/x.db" -5
input "'14' is a bare number: write sig:14 for signature 14 or repro:14" replay --db "$tmp/x.db" 14
input "reproducer id 'sig:0'" replay --db "$tmp/x.db" sig:0
input "reproducer id 'repro:9223372036854775808'" replay --db "$tmp/x.db" repro:9223372036854775808
input "SIGNATURE 'repro:3'" query --db "$tmp/x.db" history repro:3
# Without --run, report takes the newest run of the database (issue 15):
# --run with --latest is what is still refused.
input "\-\-run and \-\-latest exclude each other" report --run 1 --latest --format md -o "$tmp/r.md"
input "\-\-format 'pdf'" report --run 1 --format pdf -o "$tmp/r.pdf"
input "\-\-run 'first'" report --run first --format md -o "$tmp/r.md"
input 'usage: divergence query' query
input "unknown query 'everything'" query everything
input '\-\-since RUN is required' query new
input "\-\-since 'yesterday'" query new --since yesterday
input 'expected 2 arguments' query diff 1
input 'usage: divergence db' db
input "unknown subcommand 'fsck'" db fsck
input 'give OUT and at least one IN' db merge "$tmp/m.db"
input 'give the files' db migrate
input '\-\-variant is required' explain 1 2
input "unknown variant 'div'" explain --variant div --dtype f32 1 2
input 'expected two operands' explain --variant onnx-div-7 --dtype f32 1
input "'one' is not a number" explain --variant onnx-div-7 --dtype f32 one 2
input "attribute 'colour'" explain --variant onnx-div-7 --dtype f32 --attr colour=red 1 2
input '\-\-dtype is required' oracle --variant onnx-div-7
input "unknown or incomplete option '--bogus'" cases --bogus
input 'DIR is required' onnx-tests
input "\-\-timeout '0'" onnx-tests "$tmp" --timeout 0
input 'usage: divergence plugins' plugins

# ---- the oracle's stdin ------------------------------------------------------
oracle_in() {
    inputs=$((inputs + 1))
    printf "$1" | "$D" oracle --variant onnx-div-7 --dtype f32 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q -- "$2" "$tmp/err"; then ok; else bad "oracle stdin '$1': exit $rc: $(cat "$tmp/err")"; fi
}
oracle_in '3f800000 40400000\nzz 1\n' 'stdin line 2: malformed hex operand'
oracle_in '3f800000\n' 'stdin line 1: expected two operands'
oracle_in '3f800000 40400000 5\n' 'stdin line 1: trailing text'
oracle_in '1ffffffff 1\n' 'stdin line 1: operand is wider than the dtype'
inputs=$((inputs + 1))
head -c 1200000 /dev/zero | tr '\0' '1' | "$D" oracle --variant onnx-div-7 --dtype f32 >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q 'line longer than' "$tmp/err" && ok || bad "oracle: a 1.2 MB line: exit $rc"

# ---- case files: certify --cases and cases --dir ----------------------------
cases_in() { # NAME CONTENT PATTERN
    inputs=$((inputs + 1))
    mkdir -p "$tmp/cases-$1"
    printf "$2" >"$tmp/cases-$1/bad.case"
    rm -f "$tmp/c.db"
    expect2 "$3" certify --plugin "$P" $A --db "$tmp/c.db" --cases "$tmp/cases-$1"
    [ ! -e "$tmp/c.db" ] && ok || bad "cases $1: a database was created"
    expect2 "$3" cases --dir "$tmp/cases-$1" --check
}
r='requirement: ONNX-NUMPY-BCAST\n'
good="case x\nvariant: onnx-div-13\ndtype: i32\n${r}a.shape: 2\na: 4 6\nb.shape: 2\nb: 2 3\nexpect.shape: 2\n"
cases_in unknown-key "${good}colour: red\n" 'bad.case:10: .*colour'
cases_in bad-number "case x\nvariant: onnx-div-13\ndtype: i32\n${r}a.shape: 2\na: 4 six\nb.shape: 2\nb: 2 3\nexpect.shape: 2\n" 'bad.case:6'
cases_in count "case x\nvariant: onnx-div-13\ndtype: i32\n${r}a.shape: 3\na: 4 6\nb.shape: 2\nb: 2 3\nexpect.shape: 2\n" 'bad.case:'
cases_in variant "case x\nvariant: onnx-div-99\ndtype: i32\n${r}a.shape: 2\na: 4 6\nb.shape: 2\nb: 2 3\nexpect.shape: 2\n" 'bad.case:2: .*onnx-div-99'
cases_in dtype "case x\nvariant: onnx-div-13\ndtype: i33\n${r}a.shape: 2\na: 4 6\nb.shape: 2\nb: 2 3\nexpect.shape: 2\n" 'bad.case:3: .*i33'
cases_in huge "case x\nvariant: onnx-div-13\ndtype: i32\n${r}a.shape: 100000x100000x100000\na: 1\nb.shape: 1\nb: 2\nexpect.shape: 100000x100000x100000\n" 'bad.case:5'
cases_in requirement "case x\nvariant: onnx-div-13\ndtype: i32\nrequirement: NO-SUCH-REQ\na.shape: 1\na: 4\nb.shape: 1\nb: 2\nexpect.shape: 1\n" 'bad.case:4: .*NO-SUCH-REQ'
cases_in no-case-line 'variant: onnx-div-13\n' 'bad.case:1'
cases_in binary "$(head -c 300 /dev/urandom | tr -d '\000%%\\\\' | head -c 200)" 'bad.case:'
inputs=$((inputs + 1))
mkdir -p "$tmp/cases-long"
{ printf 'case x\nvariant: onnx-div-13\ndtype: i32\na.shape: 2\na: '; head -c 2000000 /dev/zero | tr '\0' '7'; printf '\n'; } >"$tmp/cases-long/bad.case"
expect2 'bad.case' certify --plugin "$P" $A --db "$tmp/c.db" --cases "$tmp/cases-long"
inputs=$((inputs + 1))
mkfifo "$tmp/fifo.case"
expect2 'fifo.case: not a regular file' certify --plugin "$P" $A --db "$tmp/c.db" --cases "$tmp/fifo.case"
inputs=$((inputs + 1))
expect2 'does not exist' certify --plugin "$P" $A --db "$tmp/c.db" --cases "$tmp/no-such-dir"

# ---- corpus and finding files -------------------------------------------------
inputs=$((inputs + 1))
expect2 "corpus $tmp/no-such-corpus: cannot read the directory" fuzz --plugin "$P" --db "$tmp/f.db" \
    --seconds 0 --cases 5 --no-progress --corpus "$tmp/no-such-corpus"
inputs=$((inputs + 1))
printf 'x' >"$tmp/corpus-file"
expect2 "corpus $tmp/corpus-file: cannot read the directory" fuzz --plugin "$P" --db "$tmp/f.db" \
    --seconds 0 --cases 5 --no-progress --corpus "$tmp/corpus-file"
# A corpus is decoded by a total decoder: junk is no error. What cannot be
# read (a FIFO, a file over 64 KiB) is skipped with a warning naming it; no
# hang, the campaign goes on.
inputs=$((inputs + 1))
mkdir -p "$tmp/corpus"
head -c 5000 /dev/urandom >"$tmp/corpus/junk"
: >"$tmp/corpus/empty"
head -c 70000 /dev/urandom >"$tmp/corpus/too-big"
mkfifo "$tmp/corpus/fifo"
ln -s loop "$tmp/corpus/loop" 2>/dev/null
timeout 60 "$D" fuzz --plugin "$P" --db "$tmp/f.db" --seconds 0 --cases 50 --no-progress \
    --corpus "$tmp/corpus" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -le 1 ] && grep -q 'too-big skipped: larger than the limit' "$tmp/err" && ! grep -q 'fifo' "$tmp/out"; then ok; else
    bad "fuzz on a corpus with junk, a FIFO and a large file: exit $rc: $(cat "$tmp/err")"
fi
inputs=$((inputs + 1))
expect2 "no-such-file: no such file or directory" import --plugin "$P" --db "$tmp/f.db" "$tmp/no-such-file"
inputs=$((inputs + 1))
expect2 'fifo: not a regular file' import --plugin "$P" --db "$tmp/f.db" "$tmp/corpus/fifo"
inputs=$((inputs + 1))
expect2 'too-big: larger than the limit' import --plugin "$P" --db "$tmp/f.db" "$tmp/corpus/too-big"

# ---- ONNX test directories ----------------------------------------------------
onnx=/usr/share/libonnx-testdata/data/node/test_div
if "$D" onnx-tests "$onnx" >/dev/null 2>&1; then
    ONNX_SUMMARY=1
    onnx_in() { # NAME PATTERN (after the caller damaged $tmp/onnx-NAME)
        inputs=$((inputs + 1))
        expect2 "$2" onnx-tests "$tmp/onnx-$1" --plugin "$P" --timeout 2000
    }
    mk() { rm -rf "$tmp/onnx-$1"; cp -r "$onnx" "$tmp/onnx-$1"; }
    d=test_data_set_0
    mk junkmodel; head -c 500 /dev/urandom >"$tmp/onnx-junkmodel/model.onnx"
    onnx_in junkmodel 'model.onnx: not a valid ModelProto'
    mk truncmodel; head -c 60 "$onnx/model.onnx" >"$tmp/onnx-truncmodel/model.onnx"
    onnx_in truncmodel 'model.onnx: not a valid ModelProto'
    mk dirmodel; rm "$tmp/onnx-dirmodel/model.onnx"; mkdir "$tmp/onnx-dirmodel/model.onnx"
    onnx_in dirmodel 'model.onnx: not a regular file'
    mk nodata; rm -r "$tmp/onnx-nodata/$d"
    onnx_in nodata 'no test_data_set_'
    mk junkinput; head -c 300 /dev/urandom >"$tmp/onnx-junkinput/$d/input_0.pb"
    onnx_in junkinput 'input_0.pb: not a valid TensorProto'
    mk truncinput; head -c 30 "$onnx/$d/input_0.pb" >"$tmp/onnx-truncinput/$d/input_0.pb"
    onnx_in truncinput 'input_0.pb: not a valid TensorProto'
    mk noinput; rm "$tmp/onnx-noinput/$d/input_1.pb"
    onnx_in noinput 'input_1.pb: No such file'
    mk emptyout; : >"$tmp/onnx-emptyout/$d/output_0.pb"
    onnx_in emptyout 'output_0.pb: TensorProto.data_type is missing'
    mk fifo; rm "$tmp/onnx-fifo/$d/input_0.pb"; mkfifo "$tmp/onnx-fifo/$d/input_0.pb"
    onnx_in fifo 'input_0.pb: not a regular file'
    inputs=$((inputs + 1))
    mkdir -p "$tmp/onnx-empty"
    expect2 'holds no model.onnx' onnx-tests "$tmp/onnx-empty"
    inputs=$((inputs + 1))
    expect2 'No such file' onnx-tests "$tmp/onnx-none"
    ONNX_SUMMARY=0
else
    echo "NOTE: onnx-tests is not built with protobuf-c or libonnx-testdata is missing: ONNX inputs not checked"
fi

# ---- databases ---------------------------------------------------------------
"$D" certify --plugin "$P" $A --db "$tmp/good.db" >/dev/null 2>&1 || bad "making good.db"
"$D" fuzz --plugin "$PD/../tests/mutants/mutant_floor_not_trunc.so" --db "$tmp/good.db" --seconds 0 \
    --cases 200 --no-progress >/dev/null 2>&1
repro=$(sqlite3 "$tmp/good.db" "SELECT min(id) FROM reproducers")
cp "$tmp/good.db" "$tmp/corrupt.db"
dd if=/dev/urandom of="$tmp/corrupt.db" bs=1 seek=5000 count=3000 conv=notrunc 2>/dev/null
head -c 1000 /dev/urandom >"$tmp/junk.db"
head -c 3000 "$tmp/good.db" >"$tmp/truncated.db"
printf 'not a database\n' >"$tmp/text.db"
cp "$tmp/good.db" "$tmp/newer.db"
sqlite3 "$tmp/newer.db" "PRAGMA user_version = 99"
mkdir "$tmp/dir.db"
db_in() { # FILE PATTERN: every command that opens a database
    inputs=$((inputs + 1))
    f=$tmp/$1
    before=$(cat "$f" 2>/dev/null | sha256sum)
    expect2 "$2" certify --plugin "$P" $A --db "$f"
    expect2 "$2" fuzz --plugin "$P" --seconds 0 --cases 10 --no-progress --db "$f"
    expect2 "$2" import --plugin "$P" --db "$f" "$tmp/corpus/junk"
    if [ "$1" != corrupt.db ]; then # a damaged file may still be read where it is intact
        expect2 "$2" replay --db "$f" "repro:${repro:-1}"
        expect2 "$2" report --db "$f" --run 1 --format md -o "$tmp/r.md"
    fi
    expect2 "$2" query --db "$f" runs
    expect2 "$2" db migrate "$f"
    expect2 "$2" db merge "$tmp/merged-$1" "$f"
    after=$(cat "$f" 2>/dev/null | sha256sum)
    [ "$before" = "$after" ] && ok || bad "$1: the file changed"
    "$D" db check "$f" >"$tmp/out" 2>&1
    rc=$?
    [ $rc -eq 1 ] && grep -q FAILED "$tmp/out" && ok || bad "db check $1: exit $rc: $(cat "$tmp/out")"
}
db_in corrupt.db 'corrupt.db: .*malformed\|corrupt.db: .*damaged'
db_in junk.db 'junk.db: not a SQLite database'
db_in truncated.db 'truncated.db: not a SQLite database'
db_in text.db 'text.db: not a SQLite database'
db_in newer.db 'newer.db: .*schema version 99 is newer than this divergence knows'
inputs=$((inputs + 1))
expect2 'dir.db: ' certify --plugin "$P" $A --db "$tmp/dir.db"
expect2 'dir.db: ' query --db "$tmp/dir.db" runs
inputs=$((inputs + 1))
expect2 "$tmp/no/such/dir/x.db: " certify --plugin "$P" $A --db "$tmp/no/such/dir/x.db"
expect2 "no-such.db: open: No such file" query --db "$tmp/no-such.db" runs
"$D" db check "$tmp/no-such.db" >"$tmp/out" 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "db check of a missing file: not exit 2"

# Read-only: as nobody, the file and its folder root's. Reading works;
# writing says so; nothing changes.
inputs=$((inputs + 1))
mkdir "$tmp/ro"
cp "$tmp/good.db" "$tmp/ro/ro.db"
chmod 755 "$tmp/ro"
chmod 644 "$tmp/ro/ro.db"
before=$(sha256sum <"$tmp/ro/ro.db")
if command -v setpriv >/dev/null && [ "$(id -u)" -eq 0 ]; then
    asnobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
    # nobody runs the harness: it, its worker, the plugin and the data it
    # reads must be within its reach, wherever this clone lies.
    D0=$D P0=$P
    reach_build
    P=$(reach "$P")
    mkdir -p "$tmp/reach/cases"
    chmod 755 "$tmp/reach/cases"
    export DIVERGENCE_DATA_DIR="$tmp/reach"
else
    asnobody() { "$@"; }
    chmod 555 "$tmp/ro"
    chmod 444 "$tmp/ro/ro.db"
fi
for cmd in certify fuzz; do
    if [ $cmd = certify ]; then set -- certify --plugin "$P" $A; else set -- fuzz --plugin "$P" --seconds 0 --cases 10 --no-progress --corpus ""; fi
    asnobody "$D" "$@" --db "$tmp/ro/ro.db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && grep -q 'ro.db: .*\(readonly\|read-only\|-shm\|unable to open\)' "$tmp/err" && [ ! -s "$tmp/out" ]; then ok; else
        bad "$cmd on a read-only database: exit $rc: $(cat "$tmp/out" "$tmp/err")"
    fi
done
[ "$before" = "$(sha256sum <"$tmp/ro/ro.db")" ] && ok || bad "the read-only database changed"
D=${D0:-$D} P=${P0:-$P}
unset DIVERGENCE_DATA_DIR

# Locked: another writer holds the write lock. Shorter than the busy
# timeout (10 s): certify waits and finishes; longer: a clear error, and
# the other writer's work and what was there are intact.
inputs=$((inputs + 1))
cp "$tmp/good.db" "$tmp/locked.db"
hold() { # SECONDS: a writer that holds the lock, inserting a run of its own
    /usr/bin/python3 - "$tmp/locked.db" "$1" <<'PY' &
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute("BEGIN IMMEDIATE")
c.execute("INSERT INTO runs(kind, status, started_at, profile, host, pid, process_tag, cpu_features,"
          " build_flags, divergence_version, args) VALUES('other-writer', 'complete', 'now', 'exact',"
          " 'elsewhere', 1, 't', '', '', '', '')")
open(sys.argv[1] + ".held", "w").close()
time.sleep(float(sys.argv[2]))
c.execute("COMMIT")
PY
    holder=$!
    while [ ! -e "$tmp/locked.db.held" ]; do sleep 0.05; done
    rm -f "$tmp/locked.db.held"
}
if [ -x /usr/bin/python3 ]; then
    hold 3
    "$D" certify --plugin "$P" $A --db "$tmp/locked.db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    wait $holder
    [ $rc -eq 0 ] && ok || bad "certify behind a 3 s lock: exit $rc: $(cat "$tmp/err")"
    hold 14
    t0=$(date +%s)
    "$D" certify --plugin "$P" $A --db "$tmp/locked.db" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    wait $holder
    if [ $rc -eq 2 ] && grep -q 'locked.db: .*locked' "$tmp/err"; then ok; else bad "certify behind a 14 s lock: exit $rc: $(cat "$tmp/err")"; fi
    n=$(sqlite3 "$tmp/locked.db" "SELECT count(*) FROM runs WHERE kind = 'other-writer'")
    [ "$n" = 2 ] && ok || bad "the other writer's runs: $n, want 2"
    "$D" db check "$tmp/locked.db" >/dev/null 2>&1 && ok || bad "locked.db is not sound"
fi

echo "malformed inputs: $inputs"
finish
