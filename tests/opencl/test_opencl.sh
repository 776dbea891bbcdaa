#!/bin/sh
# SPDX-License-Identifier: MIT
# The OpenCL adapter (plugins/opencl/) on the OpenCL runtime the ICD loader
# finds (PoCL, from scripts/setup.sh), one option set per mode:
#   default      the default build is CONFORMANT on every claim it makes, and
#                gives each expectation of fast-relaxed-math.case exactly;
#   fast         -cl-fast-relaxed-math is NONCONFORMANT, each case of
#                fast-relaxed-math.case departs with its class and value
#                (NaN for 1/0, inf/2, 2/inf; 0 for 2^20/2^127 and
#                FLT_MAX/FLT_MAX; 7/7 one ulp low), and under --profile ulp:2
#                the NaNs still depart;
#   bad-option   a config whose build fails (an unknown option, a kernel that
#                does not compile, an unknown key) is a clear error, exit 2,
#                and nothing is stored: the database keeps what it had;
#                without --grant pocl the plugin cannot open (no OpenCL
#                platform in the worker's view), a clear error, exit 2.
# Exit 77 (skipped) only when the adapter was not built (no OpenCL headers
# or ICD loader); an adapter without an OpenCL platform fails.
#
# Under the default sandbox with --grant pocl (harness/sandbox/grant.h):
# PoCL's files in the worker's view, its ICD by OCL_ICD_VENDORS, a private
# kernel cache in the scratch, and /usr/bin/ld exec'd only while open()
# builds and links the kernels.
# Usage: test_opencl.sh MODE DIVERGENCE PLUGIN_DIR CASE_FILE
set -u
MODE=$1 D=$2 P=$3/opencl.so CASES=$4
if [ ! -f "$P" ]; then
    echo "SKIP: $P was not built (needs ocl-icd-opencl-dev and opencl-headers: scripts/setup.sh)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
TIMEOUT=60000 # open() builds and links every kernel: seconds on a loaded machine

# certify CONFIG DB [FLAGS...]: certify under the default sandbox with
# --grant pocl; output in $tmp/out, exit status in $rc.
certify() {
    config=$1 db=$2; shift 2
    rc=0
    "$D" certify --plugin "$P" --grant pocl --config "$config" --timeout "$TIMEOUT" \
        --db "$db" --no-progress "$@" >"$tmp/out" 2>&1 || rc=$?
}

# granted WHAT: the sandbox line of $tmp/out is the full sandbox's and
# names the grant and what it added.
granted() {
    if grep -q '^  sandbox: user,pid,net,mount,ipc,uts ns + .* + grant pocl: exec /usr/bin/ld during open() only' "$tmp/out"; then ok; else
        bad "$1: the sandbox line does not name the grant"; sed -n 1,3p "$tmp/out"; fi
}

# one_case NAME: the case NAME of $CASES alone, in $tmp/NAME.case.
one_case() {
    f="$tmp/$(echo "$1" | tr / _).case"
    awk -v want="case $1" '/^case /{p = ($0 == want)} p' "$CASES" >"$f"
    echo "$f"
}

# finding DB CASE: "class|actual|ulps" of CASE's reproducer in DB (empty: none).
finding() {
    sqlite3 "$1" "SELECT s.class || '|' || r.actual || '|' || coalesce(r.ulps, '')
                  FROM reproducers r JOIN signatures s ON s.id = r.signature_id
                  WHERE r.case_id = '$2'"
}

# certify_f32 CONFIG DB [FLAGS...]: certify onnx-div-7 f32 alone, without
# random cases or shape paths, nor the calling contexts (each context's
# worker builds the kernels again: a third of the time; `default` runs them).
certify_f32() {
    certify "$@" --variant onnx-div-7 --dtype f32 --random 0 --shape-tier 0 --no-thread-counts \
        --no-probes
}

CASE_NAMES=$(sed -n 's/^case //p' "$CASES")

case $MODE in
default)
    # Every claim, with fewer random cases and shape paths up to 2^10 + 1
    # elements than certify's default (the cases/ conformance files and
    # the edge-value cross product in full).
    certify "" "$tmp/default.db" --random 10 --shape-tier 10
    n=$(sed -n 's/^\([0-9]*\) of \([0-9]*\) claims hold.*/\1 \2/p' "$tmp/out")
    if [ "$rc" -eq 0 ] && [ -n "$n" ] && [ "${n% *}" = "${n#* }" ] && [ "${n% *}" -ge 50 ]; then ok; else
        bad "default build: exit $rc, claims held/made '$n', want all of at least 50"
        grep -v " CONFORMANT " "$tmp/out" | head -30
    fi
    granted "default build"
    # The claims: f32 and bf16 (through f32) under every variant, f64 with
    # cl_khr_fp64 (PoCL has it), integers with both roundings, i4/u4.
    for claim in "onnx-div-1  *f32" "onnx-div-13  *bf16" "onnx-div-7  *f64" \
        "openvino-divide-1  *i4" "openvino-divide-1  *u4" "sonnx-div  *i8" "onnx-div-14  *u16"; do
        if grep -q "^  $claim  *CONFORMANT " "$tmp/out"; then ok; else
            bad "default build: no CONFORMANT line for '$claim'"; fi
    done
    # The findings of -cl-fast-relaxed-math are not the default build's.
    certify_f32 "" "$tmp/cases.db" --cases "$CASES"
    if [ "$rc" -eq 0 ] && grep -q "^  onnx-div-7  *f32  *CONFORMANT " "$tmp/out"; then ok; else
        bad "default build on $CASES: exit $rc, want CONFORMANT"; cat "$tmp/out"; fi
    ;;
fast)
    # case  class  actual bits (a prefix of the store's 'actual' text)
    while read -r name cls actual; do
        db="$tmp/$(echo "$name" | tr / _).db"
        certify_f32 "-cl-fast-relaxed-math" "$db" --cases "$(one_case "$name")"
        got=$(finding "$db" "$name")
        case "$rc:$got" in
            1:"$cls|"*"$actual"*) ok ;;
            *) bad "fast-relaxed-math $name: exit $rc, finding '$got', want exit 1, $cls, $actual"
               sed -n 1,12p "$tmp/out" ;;
        esac
    done <<EOF
opencl/one-by-zero nan-unexpected (0xffc00000)
opencl/inf-by-two nan-unexpected (0xffc00000)
opencl/two-by-inf nan-unexpected (0xffc00000)
opencl/x-by-2p127 wrong-value 0 (0x00000000)
opencl/max-by-max wrong-value 0 (0x00000000)
opencl/seven-by-seven wrong-value 0.99999994 (0x3f7fffff)|1
EOF
    for name in $CASE_NAMES; do
        grep -q "^$name " <<EOF || bad "$name of $CASES is not asserted above"
opencl/one-by-zero x
opencl/inf-by-two x
opencl/two-by-inf x
opencl/x-by-2p127 x
opencl/max-by-max x
opencl/seven-by-seven x
EOF
    done
    # Both option sets in one database: two implementations ("opencl" and
    # "opencl [-cl-fast-relaxed-math]"), the default build's certificate
    # untouched by the other's findings; replay without --config replays
    # with the config the finding was recorded with (1/0 still NaN), and
    # with --config "" on the default build (conforms).
    db="$tmp/both.db"
    one=$(one_case opencl/one-by-zero)
    certify_f32 "" "$db" --cases "$one"
    rc_default=$rc
    certify_f32 "-cl-fast-relaxed-math" "$db" --cases "$one"
    impls=$(sqlite3 "$db" "SELECT group_concat(name, '|') FROM (SELECT name FROM plugin_builds ORDER BY name)")
    sig=$(sqlite3 "$db" "SELECT s.id FROM signatures s JOIN reproducers r ON r.signature_id = s.id
                         WHERE r.case_id = 'opencl/one-by-zero' AND s.class = 'nan-unexpected'
                           AND s.implementation = 'opencl [-cl-fast-relaxed-math]' LIMIT 1")
    others=$(sqlite3 "$db" "SELECT count(*) FROM signatures WHERE implementation = 'opencl'")
    if [ "$rc_default" -eq 0 ] && [ "$rc" -eq 1 ] && [ "$impls" = "opencl|opencl [-cl-fast-relaxed-math]" ] &&
        [ -n "$sig" ] && [ "$others" = 0 ]; then ok; else
        bad "both configs in one database: exits $rc_default/$rc, builds '$impls', signature '$sig'," \
            "$others findings of the default build"; fi
    rc=0
    "$D" replay --db "$db" "sig:${sig:-0}" --grant pocl --timeout "$TIMEOUT" >"$tmp/out" 2>&1 || rc=$?
    if [ "$rc" -eq 1 ] && grep -q "with --config -cl-fast-relaxed-math" "$tmp/out" &&
        grep -q "got -nan" "$tmp/out"; then ok; else
        bad "replay of sig:$sig without --config: exit $rc, want 1 on the recorded config"; cat "$tmp/out"; fi
    rc=0
    "$D" replay --db "$db" "sig:${sig:-0}" --grant pocl --timeout "$TIMEOUT" --config "" >"$tmp/out" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && grep -q "now: conforms" "$tmp/out"; then ok; else
        bad "replay of sig:$sig with --config '': exit $rc, want 0 (the default build conforms)"; cat "$tmp/out"; fi
    # ulp:2 accepts 7/7 (1 ulp) but not a NaN for 1/0 or 0 for 2^20/2^127.
    certify_f32 "-cl-fast-relaxed-math" "$tmp/ulp2.db" --profile ulp:2 --cases "$CASES"
    if [ "$rc" -eq 1 ] && grep -q "^  onnx-div-7  *f32  *NONCONFORMANT" "$tmp/out" &&
        grep -q "^    nan-unexpected " "$tmp/out" &&
        grep -q "^    wrong-value .*max [0-9]\{4,\} ulp" "$tmp/out"; then ok; else
        bad "fast-relaxed-math under ulp:2: exit $rc, want NONCONFORMANT with nan-unexpected" \
            "and wrong-value beyond 2 ulp"; cat "$tmp/out"; fi
    ;;
bad-option)
    db="$tmp/keep.db"
    certify_f32 "" "$db"
    if [ "$rc" -eq 0 ]; then ok; else bad "a good certify into $db: exit $rc"; cat "$tmp/out"; fi
    before=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM certificates)")
    # config  what stderr must say
    while IFS='|' read -r config says; do
        certify_f32 "$config" "$db"
        after=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM certificates)")
        if [ "$rc" -eq 2 ] && grep -q "cannot load plugin" "$tmp/out" && grep -q -- "$says" "$tmp/out" &&
            [ "$after" = "$before" ]; then ok; else
            bad "config '$config': exit $rc, runs/certificates $before -> $after, want exit 2," \
                "nothing stored and '$says'"; cat "$tmp/out"; fi
    done <<EOF
-cl-no-such-option|CL_INVALID_BUILD_OPTIONS (-43)
options=-Dfloat=no_such_type;flavour=native_divide|CL_BUILD_PROGRAM_FAILURE (-11); build log: error: .*unknown type name 'no_such_type'
flavour=fast|flavour 'fast': expected a/b, native_divide or half_divide
speed=11|unknown key 'speed'
platform=7|platform 7: there are
EOF
    # Without the grant: no OpenCL platform in the worker's view (the ICD
    # loader finds no vendor), a clear error naming why, exit 2, nothing
    # stored; and no hang.
    rc=0
    "$D" certify --plugin "$P" --timeout "$TIMEOUT" --db "$db" --no-progress --variant onnx-div-7 \
        --dtype f32 --random 0 --shape-tier 0 >"$tmp/out" 2>&1 || rc=$?
    after=$(sqlite3 "$db" "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM certificates)")
    if [ "$rc" -eq 2 ] && grep -q "cannot load plugin" "$tmp/out" &&
        grep -q "no OpenCL platform: clGetPlatformIDs .*CL_PLATFORM_NOT_FOUND_KHR (-1001)" "$tmp/out" &&
        [ "$after" = "$before" ]; then ok; else
        bad "without --grant pocl: exit $rc, runs/certificates $before -> $after, want exit 2," \
            "nothing stored and 'no OpenCL platform'"; cat "$tmp/out"; fi
    # plugins: the same reason without the grant; with it, the plugin and
    # the grant named.
    rc=0
    "$D" plugins --timeout "$TIMEOUT" "$P" >"$tmp/out" 2>&1 || rc=$?
    if [ "$rc" -eq 2 ] && grep -q "no OpenCL platform" "$tmp/out"; then ok; else
        bad "plugins without --grant pocl: exit $rc"; cat "$tmp/out"; fi
    rc=0
    "$D" plugins --grant pocl --timeout "$TIMEOUT" "$P" >"$tmp/out" 2>&1 || rc=$?
    if [ "$rc" -eq 0 ] && grep -q "grant pocl" "$tmp/out"; then ok; else
        bad "plugins --grant pocl: exit $rc"; cat "$tmp/out"; fi
    ;;
*)
    echo "test_opencl.sh: unknown mode '$MODE'"
    exit 2
    ;;
esac
echo "opencl $MODE: $pass passed, $fail failed"
[ $fail -eq 0 ]
