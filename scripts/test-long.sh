#!/bin/sh
# SPDX-License-Identifier: MIT
# The long suite, which every submission's scripts/test.sh leaves out and
# the nightly runs (docs/ci.md): set-up, a build with the long tests
# registered (-DDVG_LONG_TESTS=ON: exhaustive sweeps, full MPFR counts,
# certify_oom failing every allocation), then
#   1. ctest -L long in build/: the real libraries' full certifies, PoCL's
#      kernels, the six-way report page, the hour-long sweeps;
#   2. under ASan and UBSan (build-asan/): what test-sanitizers.sh leaves
#      out but the hour-long sweeps: the real libraries, PoCL, the CUDA
#      plugins, every allocation failed (certify_oom_every), and the tests
#      labelled asan-nightly (hostile plugins' waits, repeated paths).
# Exit status: 0 when both passed. Hours on a 2-core machine.
set -eu
cd "$(dirname "$0")/.."
CMAKE_ARGS="-DDVG_LONG_TESTS=ON ${CMAKE_ARGS:-}" sh scripts/setup.sh
rc=0
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" -L long || rc=1
B=${ASAN_BUILD_DIR:-build-asan}
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDVG_SANITIZE=ON -DDVG_LONG_TESTS=ON
cmake --build "$B" -j "$(nproc)"
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir "$B" --output-on-failure -j "$(nproc)" \
    -R 'realworld|opencl|cuda|certify_oom_every|diff_report_all' || rc=1
ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    ctest --test-dir "$B" --output-on-failure -j "$(nproc)" -L asan-nightly || rc=1
exit $rc
