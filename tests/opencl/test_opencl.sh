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
#                and nothing is stored: the database keeps what it had.
# Exit 77 (skipped) only when the adapter was not built (no OpenCL headers
# or ICD loader); an adapter without an OpenCL platform fails.
#
# --sandbox off, and the kernels built first by opencl-prebuild into a
# private PoCL cache: PoCL links each kernel by running /usr/bin/ld, which
# the worker's seccomp filter refuses (with --sandbox off too); with the
# kernels cached, open() runs no linker. The follow-up of issue 28 (the
# worker grants the linker during open()) removes both.
# Usage: test_opencl.sh MODE DIVERGENCE PLUGIN_DIR CASE_FILE
set -u
MODE=$1 D=$2 P=$3/opencl.so PRE=$3/opencl-prebuild CASES=$4
if [ ! -f "$P" ]; then
    echo "SKIP: $P was not built (needs ocl-icd-opencl-dev and opencl-headers: scripts/setup.sh)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export POCL_CACHE_DIR="$tmp/pocl-cache"
mkdir -p "$POCL_CACHE_DIR"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
TIMEOUT=20000

# certify CONFIG DB [FLAGS...]: certify with --sandbox off; output in $tmp/out,
# exit status in $rc.
certify() {
    config=$1 db=$2; shift 2
    rc=0
    "$D" certify --plugin "$P" --sandbox off --config "$config" --timeout "$TIMEOUT" \
        --db "$db" --no-progress "$@" >"$tmp/out" 2>&1 || rc=$?
}

# prebuild CONFIG: the kernels of CONFIG into the cache; fails the test when
# the build fails. Under ASan, PoCL's own allocations kept until exit are
# not leaks of the adapter (lsan.supp).
prebuild() {
    if LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(dirname "$CASES")/lsan.supp" \
        "$PRE" "$1" >"$tmp/pre.out" 2>&1; then ok; else
        bad "opencl-prebuild '$1' failed"; cat "$tmp/pre.out"; fi
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
# random cases or shape paths.
certify_f32() {
    certify "$@" --variant onnx-div-7 --dtype f32 --random 0 --shape-tier 0
}

CASE_NAMES=$(sed -n 's/^case //p' "$CASES")

case $MODE in
default)
    prebuild ""
    # Every claim, with fewer random cases and shape paths up to 2^10 + 1
    # elements than certify's default (the cases/ conformance files and
    # the edge-value cross product in full).
    certify "" "$tmp/default.db" --random 10 --shape-tier 10
    n=$(sed -n 's/^\([0-9]*\) of \([0-9]*\) claims hold.*/\1 \2/p' "$tmp/out")
    if [ "$rc" -eq 0 ] && [ -n "$n" ] && [ "${n% *}" = "${n#* }" ] && [ "${n% *}" -ge 50 ]; then ok; else
        bad "default build: exit $rc, claims held/made '$n', want all of at least 50"
        grep -v " CONFORMANT " "$tmp/out" | head -30
    fi
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
    prebuild "-cl-fast-relaxed-math"
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
    prebuild ""
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
    ;;
*)
    echo "test_opencl.sh: unknown mode '$MODE'"
    exit 2
    ;;
esac
echo "opencl $MODE: $pass passed, $fail failed"
[ $fail -eq 0 ]
