#!/bin/sh
# SPDX-License-Identifier: MIT
# The second round's single-class hostile plugins (issue 24; hostile.h,
# intruder.c, README.md) through every command that loads a plugin:
# certify, fuzz, differential fuzz, sweep, diff, replay, onnx-tests,
# plugins, import (test_confinement.sh does the same with the intruder):
#   c1          C1 and bidi controls in its name, version, error messages
#               and printed output: none reaches the terminal, the store
#               or a report raw, through any command
#   dup_claims  one (variant, dtype) pair claimed three times: every
#               command refuses it at load, naming the pair (exit 2)
#   dieselgate  right only when it sees a certification (a "divergence"
#               command line, name or memfd, the fixed poison 0xA5/0x5A):
#               it sees none, and every command that computes catches it
#   forgeline   rewrites the layers in the worker's hello: --sandbox off
#               prints and stores UNCONFINED (certify, fuzz, sweep, diff,
#               the commands that take the flag), and a sandboxed line is
#               the reference's, whatever it claims
#   memfd       256 MiB in memfds: under --memory-limit 64 (certify, fuzz,
#               differential fuzz, import: the commands that take it) the
#               worker's memory cgroup stops it, which RLIMIT_AS does not
# Usage: test_classes.sh DIVERGENCE HOSTILE_PLUGIN_DIR REFERENCE_PLUGIN CORPUS_DIR
#        [ONNX_TEST_DIR]
set -u
D=$1 P=$2 REF=$3 CORPUS=$4 ONNX=${5:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0 skip=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
skipped() { skip=$((skip + 1)); echo "SKIP: $*"; }
have_onnx=0
[ -n "$ONNX" ] && [ -d "$ONNX" ] && have_onnx=1
[ $have_onnx = 1 ] || skipped "onnx-tests: no ONNX test directory"
corpus=$(ls -d "$CORPUS"/* | head -30)

# every CLASS PLUGIN DB [OPTION...]: the plugin through every command, each
# one's stdout, stderr and status in $tmp/CLASS-COMMAND.{out,err,rc}; the
# options go to certify, fuzz and import (--memory-limit). replay re-runs
# the first signature of DB (an earlier command's, or the fixture's) on
# the plugin.
every() {
    cls=$1 x=$2 db=$3
    shift 3
    c() { # COMMAND ARGS...
        name=$1
        shift
        "$D" "$@" >"$tmp/$cls-$name.out" 2>"$tmp/$cls-$name.err"
        echo $? >"$tmp/$cls-$name.rc"
    }
    c certify certify --plugin "$x" --db "$db" --no-progress --variant onnx-div-13 --dtype i32 \
        --random 20 --timeout 20000 "$@"
    c fuzz fuzz --plugin "$x" --db "$db" --no-progress --seconds 0 --cases 40 --jobs 1 "$@"
    c dfuzz fuzz --plugin "$x" --plugin "$REF" --db "$db" --no-progress --seconds 0 --cases 40 \
        --jobs 1 "$@"
    c sweep sweep --plugin "$x" --db "$db" --no-progress --dtype i8 --variant onnx-div-14 --jobs 1
    c diff diff --plugin "$x" --plugin "$REF" --db "$db" --variant onnx-div-13 --dtype i32 --random 20
    sig=$(sqlite3 "$db" "SELECT min(id) FROM signatures" 2>/dev/null)
    [ -z "$sig" ] && sig=$(sqlite3 "$fixture" "SELECT min(id) FROM signatures") && db=$fixture
    c replay replay --db "$db" "sig:$sig" --plugin "$x"
    if [ $have_onnx = 1 ]; then c onnx onnx-tests "$ONNX" --plugin "$x"; fi
    c plugins plugins "$x"
    # shellcheck disable=SC2086 # the corpus's file names have no blanks
    c import import --plugin "$x" --db "$db" "$@" $corpus
}
commands="certify fuzz dfuzz sweep diff replay onnx plugins import"
computing="certify fuzz dfuzz sweep diff replay onnx import"
out() { [ -f "$tmp/$1-$2.out" ] && cat "$tmp/$1-$2.out" "$tmp/$1-$2.err"; }
rc() { cat "$tmp/$1-$2.rc" 2>/dev/null; }

# A database with one signature of the reference's to replay on a plugin
# that records none of its own (one 1 ulp wrong in the last element when B
# holds a 3: the first round's procmem, whose attack the sandbox stops).
fixture=$tmp/fixture.db
"$D" certify --plugin "$P/hp_procmem.so" --db "$fixture" --no-progress --variant onnx-div-13 \
    --dtype i32 --random 20 >/dev/null 2>&1
[ -n "$(sqlite3 "$fixture" "SELECT min(id) FROM signatures")" ] && ok ||
    bad "fixture: procmem recorded no signature to replay"

# ---- c1: controls in every string, through every command ------------------
ctl='\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]|\xe2\x81[\xa6-\xa9]|\x1b'
raw() { LC_ALL=C grep -qP "$ctl" "$@"; }
every c1 "$P/hp_c1.so" "$tmp/c1.db"
for cmd in $commands; do
    [ -f "$tmp/c1-$cmd.rc" ] || continue
    if out c1 "$cmd" | raw; then
        bad "c1 $cmd: control characters reached the terminal: $(out c1 "$cmd" | LC_ALL=C grep -aP "$ctl" | head -2 | cat -v)"
    else ok; fi
    # What it said arrived, escaped: its name (or, in onnx-tests, its
    # error message) and its printed output where the command shows it.
    case $cmd in
    onnx) want='declined\\u0085onnx-div-13' ;;
    *) want='hostile-c1\\u009b31mRED\\u009d0;pwned' ;;
    esac
    out c1 "$cmd" | grep -q "$want" && ok || bad "c1 $cmd: '$want' not shown: $(out c1 "$cmd" | head -5)"
done
out c1 certify | grep -q 'hostile-c1: \\u009d0;pwned\\u009c\\u0085CONFORMANT \\u202egnp.exe' && ok ||
    bad "c1: its printed output not shown escaped: $(grep hostile-c1: "$tmp/c1-certify.err" | cat -v)"
sqlite3 "$tmp/c1.db" .dump >"$tmp/c1.dump" 2>&1
grep -q 'hostile-c1' "$tmp/c1.dump" && ok || bad "c1: the plugin is not in the store"
if raw "$tmp/c1.dump"; then bad "c1: control characters in the store"; else ok; fi
for fmt in md html json junit; do
    "$D" report --db "$tmp/c1.db" --format "$fmt" -o "$tmp/c1.$fmt" >/dev/null 2>&1
    [ -s "$tmp/c1.$fmt" ] && ! raw "$tmp/c1.$fmt" && ok || bad "c1: report --format $fmt holds controls or is missing"
done
for q in runs new; do
    "$D" query --db "$tmp/c1.db" $q >"$tmp/c1.q" 2>&1
    if raw "$tmp/c1.q"; then bad "c1: query $q shows controls"; else ok; fi
done

# ---- dup_claims: refused at load by every command -------------------------
every dup "$P/hp_dup_claims.so" "$tmp/dup.db"
for cmd in $commands; do
    [ -f "$tmp/dup-$cmd.rc" ] || continue
    [ "$(rc dup "$cmd")" = 2 ] && out dup "$cmd" | grep -q 'claim 1 repeats claim 0: onnx-div-1 f16' && ok ||
        bad "dup_claims $cmd: not refused (exit $(rc dup "$cmd")): $(out dup "$cmd" | head -3)"
done

# ---- dieselgate: no cheap tell, caught by every command that computes -----
every dg "$P/hp_dieselgate.so" "$tmp/dg.db"
for cmd in $computing; do
    [ -f "$tmp/dg-$cmd.rc" ] || continue
    case $cmd in
    certify) want='i32 *NONCONFORMANT' ;;
    fuzz | import) want='findings: [1-9]' ;;
    dfuzz) want='departs from the oracle: hostile-dieselgate' ;;
    sweep) want='^  NONCONFORMANT' ;;
    diff) want='DEPARTS hostile-dieselgate' ;;
    replay) want='now: still departs' ;;
    onnx) want=': 0 conform, 1 depart' ;;
    esac
    out dg "$cmd" | grep -q "$want" && ok ||
        bad "dieselgate $cmd: the kernel saw it was tested ('$want' not found): $(out dg "$cmd" | grep -h 'dieselgate:' | head -2)"
    if out dg "$cmd" | grep -q 'certification detected'; then
        bad "dieselgate $cmd: $(out dg "$cmd" | grep -h 'certification detected' | head -1)"
    else ok; fi
done
grep -q 'name *hostile-dieselgate' "$tmp/dg-plugins.out" && ok || bad "dieselgate: plugins did not load it"

# ---- forgeline: the worker's word is not the certificate's -----------------
# --sandbox off, in every command that takes it: said and stored UNCONFINED.
fdb=$tmp/forge.db
for cmd in certify fuzz sweep diff; do
    case $cmd in
    certify) set -- certify --plugin "$P/hp_forgeline.so" --variant onnx-div-13 --dtype i32 --random 5 ;;
    fuzz) set -- fuzz --plugin "$P/hp_forgeline.so" --seconds 0 --cases 20 --jobs 1 ;;
    sweep) set -- sweep --plugin "$P/hp_forgeline.so" --dtype i8 --variant onnx-div-14 --jobs 1 ;;
    diff) set -- diff --plugin "$P/hp_forgeline.so" --plugin "$REF" --variant onnx-div-13 --dtype i32 --random 5 ;;
    esac
    # open() starts the forger; two seconds for it to rewrite the hello.
    "$D" "$@" --db "$fdb" --sandbox off $([ $cmd != diff ] && echo --no-progress) \
        >"$tmp/off-$cmd.out" 2>"$tmp/off-$cmd.err"
    if grep -q 'sandbox: .*user,pid' "$tmp/off-$cmd.out"; then
        bad "forgeline $cmd: the plugin's forged layers were printed: $(grep 'sandbox:' "$tmp/off-$cmd.out")"
    else ok; fi
    grep -q '^  sandbox: UNCONFINED (--sandbox off)' "$tmp/off-$cmd.out" &&
        grep -q 'THE PLUGIN RAN UNCONFINED' "$tmp/off-$cmd.out" &&
        grep -q 'WARNING: --sandbox off' "$tmp/off-$cmd.err" && ok ||
        bad "forgeline $cmd: --sandbox off not said: $(grep -h 'sandbox' "$tmp/off-$cmd.out" "$tmp/off-$cmd.err" | head -3)"
done
n=$(sqlite3 "$fdb" "SELECT count(*) FROM runs WHERE sandbox LIKE 'UNCONFINED (--sandbox off)%'")
all=$(sqlite3 "$fdb" "SELECT count(*) FROM runs")
[ "$n" = 4 ] && [ "$all" = 4 ] && ok ||
    bad "forgeline: $n of $all runs stored as UNCONFINED: $(sqlite3 "$fdb" "SELECT kind, sandbox FROM runs")"
# Sandboxed, in every command that shows the line: the reference's line.
line() { sed -n 's/^  sandbox: //p; s/^  isolation   \([^;]*\);.*/\1/p' "$1" | head -1; }
"$D" plugins "$REF" >"$tmp/ref-plugins.out" 2>&1
want=$(line "$tmp/ref-plugins.out")
every forge "$P/hp_forgeline.so" "$tmp/forge2.db"
for cmd in certify fuzz dfuzz sweep diff plugins import; do
    got=$(line "$tmp/forge-$cmd.out")
    [ -n "$want" ] && [ "$got" = "$want" ] && ok ||
        bad "forgeline $cmd (sandboxed): '$got', the reference's: '$want'"
done

# ---- memfd: memory in a memfd counts ---------------------------------------
if grep -q 'isolation .*missing: .*cgroup' "$tmp/ref-plugins.out"; then
    skipped "memfd: no memory cgroup here (the line says so); RLIMIT_AS does not count a memfd"
else
    mdb=$tmp/memfd.db
    for cmd in certify fuzz dfuzz import; do
        case $cmd in
        certify) set -- certify --plugin "$P/hp_memfd.so" --variant onnx-div-13 --dtype i32 --random 20 --no-progress ;;
        fuzz) set -- fuzz --plugin "$P/hp_memfd.so" --seconds 0 --cases 20 --jobs 1 --no-progress ;;
        dfuzz) set -- fuzz --plugin "$P/hp_memfd.so" --plugin "$REF" --seconds 0 --cases 20 --jobs 1 --no-progress ;;
        # shellcheck disable=SC2086
        import) set -- import --plugin "$P/hp_memfd.so" $corpus ;;
        esac
        before=$(sqlite3 "$mdb" "SELECT count(*) FROM reproducers WHERE note LIKE '%past the worker''s memory limit%'" 2>/dev/null)
        "$D" "$@" --db "$mdb" --memory-limit 64 --timeout 20000 >"$tmp/memfd-$cmd.out" 2>"$tmp/memfd-$cmd.err"
        after=$(sqlite3 "$mdb" "SELECT count(*) FROM reproducers WHERE note LIKE '%past the worker''s memory limit%'")
        held=$(sed -n 's/.*hostile-memfd: \([0-9]*\) MiB held in memfds.*/\1/p' "$tmp/memfd-$cmd.err" | sort -n | tail -1)
        if [ "${held:-0}" -lt 128 ] && [ "${after:-0}" -gt "${before:-0}" ]; then ok; else
            bad "memfd $cmd: ${held:-?} MiB held under --memory-limit 64, ${after:-0} crashes at the limit recorded: $(grep -hE 'crash|hostile-memfd' "$tmp/memfd-$cmd.out" "$tmp/memfd-$cmd.err" | head -3)"
        fi
    done
fi

echo "$pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
