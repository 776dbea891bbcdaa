#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds everything with clang-14 and every warning an error into
# ${CLANG_BUILD_DIR:-build-clang} (the second compiler of the test command;
# nothing is run from it). Prints the tail of the log and fails on any
# warning or error.
set -eu
cd "$(dirname "$0")/.."
B=${CLANG_BUILD_DIR:-build-clang}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { CC=clang-14 CXX=clang++-14 cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DDVG_WERROR=ON ${CMAKE_ARGS:-} &&
    cmake --build "$B" -j "$(nproc)"; } >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "build-clang: the clang build in $B failed (warnings are errors)" >&2
    exit 1
fi
echo "build-clang: clang-14 build in $B: no warning"
