#!/bin/sh
# SPDX-License-Identifier: MIT
# The whole test suite a second time, under AddressSanitizer and UBSan:
# builds everything into ${ASAN_BUILD_DIR:-build-asan} (-DDVG_SANITIZE=ON,
# gcc) and runs its ctest. Any report fails: ASan and LeakSanitizer abort
# the process (abort_on_error, detect_leaks), UBSan halts it
# (-fno-sanitize-recover, halt_on_error), and every test checks the exit
# status of what it runs. Labels in SANITIZER_EXCLUDE_LABELS (a ctest
# regex) are left out: by default the long suite (hours under ASan), the
# tests whose time goes into third-party code, where the sanitizers find
# nothing of ours (real libraries, PoCL, the CUDA plugins' emulation): the
# harness's own paths they reach are the ones the mutants' tests reach;
# and label asan-nightly, the tests whose time goes into waiting on
# hostile plugins or repeating paths that other tests run here (each
# test's CMakeLists.txt says which). scripts/test-long.sh runs all of
# those under ASan too. Tests that repeat a path take fewer rounds here
# (certify_oom, sweep_judge: their CMakeLists.txt). scripts/test.sh
# runs this before the main ctest.
set -eu
cd "$(dirname "$0")/.."
B=${ASAN_BUILD_DIR:-build-asan}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDVG_SANITIZE=ON &&
    cmake --build "$B" -j "$(nproc)"; } >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "test-sanitizers: the build in $B failed" >&2
    exit 1
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if ctest --test-dir "$B" --output-on-failure -j "$(nproc)" \
    -LE "${SANITIZER_EXCLUDE_LABELS:-long|realworld|opencl|cuda|asan-nightly}" >"$log" 2>&1; then
    summary=$(grep 'tests passed' "$log" | tail -n 1)
    echo "test-sanitizers: under ASan and UBSan ($B): $summary"
else
    cat "$log"
    echo "test-sanitizers: the suite failed under ASan and UBSan ($B)" >&2
    exit 1
fi
