#!/bin/sh
# SPDX-License-Identifier: MIT
# Replays the committed corpora under AddressSanitizer and UBSan: builds
# only what that needs into ${ASAN_BUILD_DIR:-build-asan} (-DDVG_SANITIZE=ON,
# gcc): replay_div, replay_casefile, the reference kernel and one mutant.
# corpus/div and tests/fuzz/shape_inputs (shape-path inputs) through the
# reference kernel and corpus/casefile through the parser must run clean;
# the mutant must still be caught. scripts/test.sh
# runs it before ctest.
set -eu
cd "$(dirname "$0")/.."
B=${ASAN_BUILD_DIR:-build-asan}
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDVG_SANITIZE=ON >/dev/null
cmake --build "$B" -j "$(nproc)" --target replay_div replay_casefile reference \
    mutant_floor_not_trunc >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
DIVERGENCE_PLUGIN=$B/plugins/reference.so "$B/replay_div" corpus/div tests/fuzz/shape_inputs
"$B/replay_casefile" corpus/casefile
log=$(mktemp)
trap 'rm -f "$log"' EXIT
sh tests/fuzz/expect_finding.sh floor-vs-trunc "$B/tests/mutants/mutant_floor_not_trunc.so" \
    "$B/replay_div" corpus/div >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
echo "fuzz-asan-replay: corpus/div, tests/fuzz/shape_inputs and corpus/casefile clean under ASan and UBSan"
