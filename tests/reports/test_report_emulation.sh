#!/bin/sh
# SPDX-License-Identifier: MIT
# Findings seen only under emulation never look like bugs (issue 37, part
# 3). mutant_isa_maskload conforms; under QEMU's x86-64-v3 its masked tail
# load faults on the guard page (out-of-bounds-read, "emulation-only,
# unconfirmed"). Its certificate in every form: no bug row, no finding
# under Findings, no JUnit failure text; a section of its own that says
# they were seen under QEMU only and how to confirm them on hardware; the
# JSON marks them emulation_only.
# Usage: test_report_emulation.sh DIVERGENCE
set -u
D=$1
. "$(dirname "$0")/../lib.sh"
need qemu-x86_64-static
if ldd "$D" 2>/dev/null | grep -q libasan; then
    echo "SKIP: an AddressSanitizer build runs no emulator" >&2
    exit 77
fi
if ! grep -qw avx512f /proc/cpuinfo; then
    echo "SKIP: this host has no AVX-512: the mutant's masked path is its native one" >&2
    exit 77
fi
db=$tmp/emu.db
"$D" certify --plugin "$MUTANTS/mutant_isa_maskload.so" --variant onnx-div-14 --dtype f32 \
    --db "$db" --no-progress >"$tmp/cert.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || { bad "certify: exit $rc"; sed -n 1,20p "$tmp/cert.out" >&2; }
if grep -q 'emulation-only, unconfirmed (out-of-bounds-read' "$tmp/cert.out"; then ok; else
    echo "SKIP: QEMU did not fault on the masked load here" >&2
    exit 77
fi
for fmt in html md junit json; do
    "$D" report --db "$db" --latest --format $fmt -o "$tmp/r.$fmt" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] && ok || { bad "report $fmt: exit $rc"; cat "$tmp/err" >&2; }
done
check "html: no bug" grep -q '<p>No bug in this run.</p>' "$tmp/r.html"
check "html: Bugs (0 bugs, 0 signatures)" grep -q 'Bugs (0 bugs, 0 signatures)' "$tmp/r.html"
check "html: the section of their own" grep -q '<section id="emulation-only">' "$tmp/r.html"
check "html: seen under QEMU only, how to confirm" grep -q 'Seen under QEMU only.*To confirm one on hardware' "$tmp/r.html"
if grep -q '<tr class="bug"' "$tmp/r.html"; then bad "html: a bug row"; else ok; fi
check "md: no bug" grep -q '^No bug in this run.$' "$tmp/r.md"
check "md: the section" grep -q '^## Seen only under emulation, not bugs ([1-9][0-9]* signatures)' "$tmp/r.md"
if grep -q 'out-of-bounds-read' "$tmp/r.junit" && grep -q '<failure' "$tmp/r.junit"; then
    bad "junit: a failure of the emulation-only finding"; else ok; fi
check "json: emulation_only" grep -q '"emulation_only": true' "$tmp/r.json"
finish test_report_emulation
