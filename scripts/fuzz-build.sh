#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the fuzzing engines' binaries (fuzz/README.md). Neither the normal
# build nor the tests need them: those build the replay binaries with gcc.
#
#   build-fuzz/       clang-14, libFuzzer, coverage only (the fast one):
#                     fuzz_div, fuzz_casefile
#   build-fuzz-asan/  the same with AddressSanitizer and UBSan (about 2.5x
#                     slower; finds a kernel's reads past its inputs)
#   build-afl/        afl-clang-fast, AFL++ persistent mode: afl_div, afl_casefile
#
# Each also builds the reference plugin and the mutant zoo with its compiler,
# instrumented for coverage so the engine sees the kernel's branches. The
# oracle's arithmetic is left out of the instrumentation
# (fuzz/coverage-ignore.txt).
#
# Usage: scripts/fuzz-build.sh [libfuzzer|asan|afl|all]   (default all)
# FUZZ_PLUGINS="reference mutant_skip_last ..." builds those plugins only
# (scripts/test.sh: the ones the engines test runs).
# Needs clang-14 and libfuzzer-14-dev and, for afl, afl++ (Debian 12's
# packages; scripts/setup.sh installs them). F16C is detected with CPUID,
# which clang-14 compiles (oracle/rowcheck.c, plugins/reference).
set -eu
cd "$(dirname "$0")/.."
what=${1:-all}
jobs=$(nproc)
ignore="$(pwd)/fuzz/coverage-ignore.txt"

plugins_and_mutants() {
    if [ -n "${FUZZ_PLUGINS:-}" ]; then
        echo "$FUZZ_PLUGINS"
        return
    fi
    echo reference
    sed -n '/^set(DVG_MUTANTS/,/)/p' tests/mutants/CMakeLists.txt |
        tr -s ' ()\n' '\n' | grep -v -e '^set$' -e '^DVG_MUTANTS$' -e '^$' | sed 's/^/mutant_/'
}

libfuzzer() { # DIR SANITIZE(ON|OFF)
    CC=${FUZZ_CC:-clang-14} CXX=${FUZZ_CXX:-clang++-14} cmake -S . -B "$1" -G Ninja \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDVG_FUZZERS=ON -DDVG_SANITIZE="$2" \
        -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link -fsanitize-coverage-ignorelist=$ignore" \
        >/dev/null
    cmake --build "$1" -j "$jobs" --target fuzz_div fuzz_casefile replay_div replay_casefile \
        $(plugins_and_mutants)
    echo "fuzz-build: libFuzzer binaries in $1/ (fuzz_div, fuzz_casefile)"
}

case $what in libfuzzer|all) libfuzzer build-fuzz OFF ;; esac
case $what in asan|all) libfuzzer build-fuzz-asan ON ;; esac
case $what in afl|all)
    # AFL++ reads its own deny list (same entries) from the environment.
    AFL_LLVM_DENYLIST=$ignore CC=${AFL_CC:-afl-clang-fast} CXX=${AFL_CXX:-afl-clang-fast++} \
        cmake -S . -B build-afl -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDVG_AFL=ON >/dev/null
    AFL_LLVM_DENYLIST=$ignore cmake --build build-afl -j "$jobs" \
        --target afl_div afl_casefile replay_div replay_casefile $(plugins_and_mutants)
    echo "fuzz-build: AFL++ binaries in build-afl/ (afl_div, afl_casefile)"
    ;;
esac
case $what in libfuzzer|asan|afl|all) ;; *)
    echo "usage: scripts/fuzz-build.sh [libfuzzer|asan|afl|all]" >&2
    exit 2 ;;
esac
