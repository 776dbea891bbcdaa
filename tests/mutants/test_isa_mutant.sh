#!/bin/sh
# SPDX-License-Identifier: MIT
# ISA dispatch (issue 25). mutant_isa_avx2_tail picks its path from CPUID:
# right on AVX-512 (and SSE), its AVX2 path rounds the f32 remainder of its
# 8-wide loop one ULP up. On an AVX-512 host with QEMU's user-mode
# emulator: --cpu native (what certify judged before issue 25) certifies
# it CONFORMANT; the default names it NONCONFORMANT under x86-64-v3
# (emulated), seen only there, its sightings noted so in the store;
# --cpu x86-64-v2 (its SSE path) CONFORMANT; the reference stays
# CONFORMANT by default. Without the emulator the default says what it
# could not cover and goes on; --cpu naming an emulated model is exit 2,
# an unknown model too. fuzz --cpu x86-64-v3 and sweep --cpu x86-64-v3 find
# the bug, natively they do not. mutant_isa_forcible, the same bug with its levels declared
# (ABI 1.1), is run natively forced to avx2 instead of emulated;
# mutant_isa_maskload (conformant, a masked tail load QEMU faults on) is
# CONFORMANT with its emulated out-of-bounds reads noted unconfirmed.
# replay runs a reproducer under the CPU its note names (emulated, or
# forced natively); replay --cpu native runs it natively.
# Usage: test_isa_mutant.sh DIVERGENCE
set -u
D=$1
. "$(dirname "$0")/../lib.sh"
need qemu-x86_64-static
if ldd "$D" 2>/dev/null | grep -q libasan; then
    echo "SKIP: an AddressSanitizer build runs no emulator (harness/base/cpumodel.h)" >&2
    exit 77
fi
if ! grep -qw avx512f /proc/cpuinfo; then
    echo "SKIP: this host has no AVX-512: the mutant's AVX2 path is its native one" >&2
    exit 77
fi
M=$MUTANTS/mutant_isa_avx2_tail.so
claim="--variant onnx-div-14 --dtype f32"

# expect NAME WANT_RC PATTERN COMMAND ARGS...: divergence COMMAND exits
# WANT_RC with PATTERN in its output (in $tmp/NAME.out).
expect() {
    name=$1 want_rc=$2 pattern=$3; shift 3
    "$D" "$@" >"$tmp/$name.out" 2>&1
    rc=$?
    if [ $rc -ne "$want_rc" ]; then
        bad "$name: exit $rc, want $want_rc"; sed -n 1,20p "$tmp/$name.out" >&2
    elif grep -q -- "$pattern" "$tmp/$name.out"; then ok
    else bad "$name: no /$pattern/"; sed -n 1,20p "$tmp/$name.out" >&2
    fi
}
# run NAME WANT_RC PATTERN ARGS...: certify the claim.
# shellcheck disable=SC2086 # $claim is two flags
run() { n=$1 w=$2 p=$3; shift 3; expect "$n" "$w" "$p" certify --no-progress --db "$tmp/isa.db" $claim "$@"; }

# noted MUTANT NOTE_PREFIX: a reproducer of the mutant whose note starts so.
noted() {
    n=$(sqlite3 "$tmp/isa.db" "SELECT count(*) FROM reproducers r JOIN signatures s ON s.id = r.signature_id
        WHERE s.implementation = 'divergence-mutant-$1' AND r.note LIKE '$2%'" 2>&1)
    if [ "$n" -ge 1 ] 2>/dev/null; then ok; else bad "$1: no reproducer noted '$2' ($n)"; fi
}

run native 0 '^  onnx-div-14 *f32 *CONFORMANT' --plugin "$M" --cpu native
run default 1 '^  onnx-div-14 *f32 *NONCONFORMANT' --plugin "$M"
check "default: the cpus line names x86-64-v3 emulated" \
    grep -q '^  cpus: native (x86-64-v4.*), x86-64-v3 emulated (.*qemu [0-9.]*, sample of [0-9]* cases)' \
    "$tmp/default.out"
check "default: the finding is x86-64-v3's only" \
    grep -q '^    cpu x86-64-v3 *emulated *[0-9]* cases: [0-9]* with findings (wrong-value.*seen only under emulation' \
    "$tmp/default.out"
check "default: native holds" grep -q '^    cpu native *[0-9]* cases: holds' "$tmp/default.out"
noted isa_avx2_tail 'under x86-64-v3 (emulated)'
# replay runs a reproducer where its note says it was found; --cpu native
# runs it natively, where this one conforms.
# repro MUTANT NOTE_PREFIX: "repro:N" of a reproducer of MUTANT noted so.
repro() {
    echo "repro:$(sqlite3 "$tmp/isa.db" "SELECT r.id FROM reproducers r JOIN signatures s
        ON s.id = r.signature_id WHERE s.implementation = 'divergence-mutant-$1'
        AND r.note LIKE '$2%' AND r.element >= 0 ORDER BY r.id LIMIT 1")"
}
avx2=$(repro isa_avx2_tail 'under x86-64-v3 (emulated)')
expect replay_v3 1 'under x86-64-v3 emulated, as recorded' replay --db "$tmp/isa.db" "$avx2"
check "replay under x86-64-v3: still departs" grep -q '^  now: still departs' "$tmp/replay_v3.out"
expect replay_native 0 '^  now: conforms' replay --db "$tmp/isa.db" "$avx2" --cpu native
expect replay_two 2 'one CPU per replay' replay --db "$tmp/isa.db" "$avx2" --cpu native,v3
run sse 0 '^  onnx-div-14 *f32 *CONFORMANT' --plugin "$M" --cpu x86-64-v2
run control 0 '^  onnx-div-14 *f32 *CONFORMANT' --plugin "$PLUGINS/reference.so"
check "control: the cpus line" grep -q 'x86-64-v3 emulated' "$tmp/control.out"

# A plugin that declares its levels (ABI 1.1 isa_levels, avx2 at v3): the
# level below runs natively, forced (open_with isa=avx2), emulator or not.
F=$MUTANTS/mutant_isa_forcible.so
run forcible 1 '^  onnx-div-14 *f32 *NONCONFORMANT' --plugin "$F"
check "forcible: the cpus line says forced natively" \
    grep -q 'x86-64-v3 natively, the plugin forced to its level avx2 (on the sample)' "$tmp/forcible.out"
check "forcible: its cpu line" \
    grep -q '^    cpu x86-64-v3 *forced *[0-9]* cases: [0-9]* with findings (wrong-value.*only at that level (native)' \
    "$tmp/forcible.out"
noted isa_forcible 'under x86-64-v3 (natively, isa=avx2)'
expect replay_forced 1 'under x86-64-v3, natively forced to avx2, as recorded' \
    replay --db "$tmp/isa.db" "$(repro isa_forcible 'under x86-64-v3 (natively, isa=avx2)')"
DIVERGENCE_EMULATOR='' run forcible_noemu 1 'x86-64-v3 natively, the plugin forced' --plugin "$F" --cpu v3

# A masked tail load (vmaskmovps): conformant on hardware; under QEMU the
# masked-off lanes fault on the guard page. Noted, not counted.
run maskload 0 '^  onnx-div-14 *f32 *CONFORMANT' --plugin "$MUTANTS/mutant_isa_maskload.so"
check "maskload: the emulated faults are emulation-only, unconfirmed" \
    grep -q '^    cpu x86-64-v3 *emulated .*[1-9][0-9]* emulation-only, unconfirmed (out-of-bounds-read: not counted)' \
    "$tmp/maskload.out"
noted isa_maskload 'emulation-only, unconfirmed: x86-64-v3 (emulated)'

# No emulator (DIVERGENCE_EMULATOR="" hides it): said, not an error.
DIVERGENCE_EMULATOR='' run noemu 0 'x86-64-v3 not covered: qemu-user-static' --plugin "$M"
DIVERGENCE_EMULATOR='' run noemu_asked 2 'needs QEMU' --plugin "$M" --cpu native,v3
run unknown 2 "unknown CPU 'pentium'" --plugin "$M" --cpu native,pentium
# fuzz --cpu MODEL: one CPU per campaign.
fuzz() {
    n=$1 w=$2 p=$3; shift 3
    expect "$n" "$w" "$p" fuzz --no-progress --plugin "$M" --db "$tmp/fuzz.db" --jobs 1 --cases 3000 "$@"
}
fuzz fuzz_native 0 '^  cpus: native (x86-64-v4'
fuzz fuzz_v3 1 '^    wrong-value ' --cpu x86-64-v3
check "fuzz --cpu x86-64-v3: its cpus line" grep -q '^  cpus: x86-64-v3 emulated' "$tmp/fuzz_v3.out"
fuzz fuzz_two 2 'one CPU per campaign' --cpu native,v3
# sweep --cpu MODEL: the pairs and the shape paths under that CPU, the
# findings noted with it, so replay runs them there. (The edge table's
# batches are multiples of 8 elements; the shape paths have the tails.)
sweep() {
    n=$1 w=$2 p=$3; shift 3
    expect "$n" "$w" "$p" sweep --no-progress --plugin "$M" --variant onnx-div-14 --dtype f32 \
        --random 256 --shape-tier 8 --db "$tmp/sweep-$n.db" "$@"
}
sweep sweep_native 0 '^  cpus: native (x86-64-v4'
sweep sweep_v3 1 '^    wrong-value ' --cpu x86-64-v3
check "sweep --cpu x86-64-v3: its cpus line" grep -q '^  cpus: x86-64-v3 emulated' "$tmp/sweep_v3.out"
n=$(sqlite3 "$tmp/sweep-sweep_v3.db" "SELECT count(*) FROM reproducers WHERE note LIKE 'under x86-64-v3 (emulated): sweep %'" 2>&1)
if [ "$n" -ge 1 ] 2>/dev/null; then ok; else bad "sweep --cpu x86-64-v3: no reproducer noted with its CPU ($n)"; fi
expect sweep_replay 1 'under x86-64-v3 emulated, as recorded' replay --db "$tmp/sweep-sweep_v3.db" sig:1
expect sweep_replay_native 0 '^  now: conforms' replay --db "$tmp/sweep-sweep_v3.db" sig:1 --cpu native
sweep sweep_two 2 'one CPU per sweep' --cpu native,v3
finish isa_mutant
