#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs every dependency Divergence needs on Debian 12 (as root, or with
# sudo) and builds it into build/. Safe to run again.
set -eu
cd "$(dirname "$0")/.."

# libseccomp-dev: the worker's seccomp filter; bubblewrap: the worker's sandbox
# (docs/sandbox.md); qemu-user-static: the emulated CPUs (certify --cpu, and
# the default's sample under the ISA level below the host's; docs/sandbox.md);
# parallel: scripts/nightly;
# chromium, libxml2-utils (xmllint) and python3: the report tests (tests/reports).
PACKAGES="build-essential cmake ninja-build pkg-config libsqlite3-dev sqlite3 libmpfr-dev libgmp-dev
  libseccomp-dev bubblewrap qemu-user-static parallel chromium libxml2-utils python3"
# slurmctld, slurmd, slurm-client and munge: scripts/nightly --scheduler slurm,
# and the test that runs it on a private single-node cluster
# (tests/nightly/cluster.sh: its own munge key, socket and ports; nothing
# of the system's Slurm or munge configuration is used or changed).
PACKAGES="$PACKAGES slurmctld slurmd slurm-client munge"
# clang-14: the second compiler every change must build warning-free with
# (scripts/build-clang.sh) and the fuzzing engines' compiler; libfuzzer-14-dev
# and afl++: the engines (scripts/fuzz-build.sh, the `engines` tests).
PACKAGES="$PACKAGES clang-14 libfuzzer-14-dev afl++"
# The libraries plugins/ certifies (XNNPACK, oneDNN, Eigen, libtorch), and for
# `divergence onnx-tests`: protobuf-c, ONNX's onnx.proto and its test data.
PACKAGES="$PACKAGES libxnnpack-dev libpthreadpool-dev libdnnl-dev libeigen3-dev libtorch-dev
  protobuf-c-compiler libprotobuf-c-dev libonnx-dev libonnx-testdata"
# The OpenCL adapter (plugins/opencl): the ICD loader and headers to build it,
# PoCL to run its kernels on this CPU.
PACKAGES="$PACKAGES ocl-icd-opencl-dev opencl-headers pocl-opencl-icd"
# npm fetches ONNX Runtime (scripts/fetch-onnxruntime.sh); an npm that is
# already there (e.g. NodeSource's nodejs ships one) is used as it is.
command -v npm >/dev/null 2>&1 || PACKAGES="$PACKAGES npm"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -q
    $SUDO apt-get install -y -q --no-install-recommends $missing
fi

# ONNX Runtime is not packaged by Debian: its library and C headers come
# from npm, pinned and checksummed, into .third_party/ (ignored by git).
sh scripts/fetch-onnxruntime.sh || echo "setup: ONNX Runtime was not fetched: plugins/onnxruntime is skipped" >&2

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=${BUILD_TYPE:-RelWithDebInfo} ${CMAKE_ARGS:-}
cmake --build "$BUILD_DIR" -j "$(nproc)"
