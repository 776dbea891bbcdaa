#!/bin/sh
# SPDX-License-Identifier: MIT
# Set-up plus the whole test suite: installs dependencies, builds with
# every warning an error (gcc in build/, clang in build-clang/: compiled,
# not run), replays the fuzz corpora under ASan and UBSan and runs the
# whole suite a second time under them (build-asan/,
# scripts/test-sanitizers.sh), builds the fuzzing engines' binaries
# (libFuzzer in build-fuzz/, AFL++ in build-afl/: the reference and the two
# mutants the engines test runs), then runs ctest with the engines test
# required (its summary line is the last thing printed), all but the long
# suite (scripts/test-long.sh).
# Each step's time is printed as it ends ("test.sh: STEP: N s").
set -eu
cd "$(dirname "$0")/.."
step() { # NAME COMMAND...
    name=$1; shift
    t0=$(date +%s)
    "$@"
    echo "test.sh: $name: $(($(date +%s) - t0)) s"
}
step set-up env CMAKE_ARGS="-DDVG_WERROR=ON ${CMAKE_ARGS:-}" sh scripts/setup.sh
step clang-build sh scripts/build-clang.sh
step fuzz-asan-replay sh scripts/fuzz-asan-replay.sh
step asan-suite sh scripts/test-sanitizers.sh
step libfuzzer-build env FUZZ_PLUGINS="reference mutant_floor_not_trunc mutant_skip_last" \
    sh scripts/fuzz-build.sh libfuzzer
step afl-build env FUZZ_PLUGINS="reference mutant_floor_not_trunc mutant_skip_last" \
    sh scripts/fuzz-build.sh afl
# The long suite (label long: real libraries' full certifies, PoCL's
# compiler, every allocation failed) is scripts/test-long.sh's, the nightly's.
DVG_REQUIRE_ENGINES=1 ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j "$(nproc)" \
    -LE long ${CTEST_ARGS:-}
