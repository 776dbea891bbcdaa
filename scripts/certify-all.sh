#!/bin/sh
# SPDX-License-Identifier: MIT
# The main job: set-up and build, then certify every plugin that was built
# (the bundled reference kernel first), writing divergence.db in the
# repository root and the certificates to reports/out/certificates.txt;
# then `divergence diff` of all of them (reports/out/diff.txt: where
# conformant kernels still disagree) and one page of every library side by
# side (reports/out/all.html, `divergence report --latest-per-plugin`).
# The plugins are the reference kernel and the adapters of XNNPACK, oneDNN,
# Eigen, libtorch, ONNX Runtime and OpenCL (plugins/; docs/findings.md says
# what their certificates show); a plugin that crashes crashes in its worker.
# The OpenCL plugin (on PoCL) is certified with its default build options
# (in the diff with the others) and with -cl-fast-relaxed-math under
# profiles exact and ulp:2, all into DB: a plugin under a config is an
# implementation of its own ("opencl [-cl-fast-relaxed-math]",
# worker_implementation_name), on the page beside the others; each under
# the default sandbox with --grant pocl (harness/sandbox/grant.h: PoCL's
# files in the view, /usr/bin/ld exec'd only while open() builds).
# A CUDA plugin on a machine without a CUDA device (nvcc found, no GPU or
# no driver: every CI machine) cannot open; its certify ends with exit 2
# and the runtime's line "no CUDA device: cudaGetDeviceCount: <error>",
# and it is listed as "skipped: no CUDA device (<error>)", costing no
# failure and left out of the diff (scripts/gpu-check.sh is its run).
# Exit status: 0 when every certification ran or was skipped that way (a
# NONCONFORMANT or CRASHED certificate is a finding, not a failure of the
# job), the reference kernel is CONFORMANT, all six adapters were built and
# the diff and the page were written; 1 otherwise.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
DB=${DB:-divergence.db}
# Per plugin call, loading included (certify's default is 2 s): a library as
# large as libtorch takes 0.45 s to load on an idle machine (once: after a
# crash the next worker is forked from a zygote that holds it loaded).
TIMEOUT_MS=${TIMEOUT_MS:-10000}
mkdir -p reports/out
out=reports/out/certificates.txt
one=$(mktemp)
trap 'rm -f "$one"' EXIT
: >"$out"
status=0
for lib in xnnpack onednn eigen libtorch onnxruntime opencl; do
    if [ ! -f "$BUILD_DIR/plugins/$lib.so" ]; then
        echo "certify-all: the $lib adapter was not built (its library is missing; see the" \
             "messages of scripts/setup.sh)" >&2
        status=1
    fi
done
# The OpenCL plugin runs under the default sandbox with --grant pocl: PoCL
# links each kernel by running /usr/bin/ld, which the grant allows while
# open() runs (and only then), with a private kernel cache in the worker's
# scratch.
OPENCL=$BUILD_DIR/plugins/opencl.so
# open() builds and links every kernel in the worker: seconds, more on a
# loaded machine.
OPENCL_TIMEOUT_MS=${OPENCL_TIMEOUT_MS:-60000}
summary=""
# The plugins whose certification ran (exit 0 or 1): the diff's.
certified=""
# certify_one LABEL PLUGIN DB [FLAGS...]: one certification, into $out and
# the summary; sets rc (its exit status) and skipped (1: no CUDA device).
certify_one() {
    label=$1 plugin=$2 db=$3
    shift 3
    echo "== divergence certify --plugin $plugin --db $db --timeout $TIMEOUT_MS $*" | tee -a "$out"
    rc=0
    "$BUILD_DIR"/divergence certify --plugin "$plugin" --db "$db" --timeout "$TIMEOUT_MS" --no-progress \
        "$@" >"$one" 2>&1 || rc=$?
    cat "$one" | tee -a "$out"
    skipped=0 line=""
    case "$(basename "$plugin"):$rc" in
        cuda*.so:2)
            why=$(sed -n 's/.*: no CUDA device: cudaGetDeviceCount: \(cuda[A-Za-z]*\).*/\1/p' \
                "$one" | head -n 1)
            [ -n "$why" ] && skipped=1 line="skipped: no CUDA device ($why)" ;;
    esac
    [ -n "$line" ] || line=$(grep -E '^[0-9]+ of [0-9]+ claims hold' "$one" | cut -d';' -f1,3)
    [ -n "$line" ] || line="exit $rc"
    summary="$summary
  $label: $line"
    [ $skipped = 1 ] && return 0
    case "$plugin:$rc" in
        */reference.so:0) ;;
        */reference.so:*) echo "certify-all: the reference kernel is not CONFORMANT (exit $rc)" >&2; status=1 ;;
        *:0|*:1) ;;
        *) echo "certify-all: certifying $label failed (exit $rc)" >&2; status=1 ;;
    esac
}
for plugin in "$BUILD_DIR"/plugins/reference.so $(ls "$BUILD_DIR"/plugins/*.so | grep -v '/reference\.so$' || true); do
    case $plugin in
        "$OPENCL")
            certify_one opencl "$plugin" "$DB" --grant pocl --timeout "$OPENCL_TIMEOUT_MS"
            [ $rc -gt 1 ] || certified="$certified $plugin"
            # exact last: the page of the database shows the latest run
            for profile in ulp:2 exact; do
                certify_one "opencl -cl-fast-relaxed-math, profile $profile" "$plugin" \
                    "$DB" --config -cl-fast-relaxed-math --profile "$profile" \
                    --grant pocl --timeout "$OPENCL_TIMEOUT_MS"
            done ;;
        *) certify_one "$(basename "$plugin" .so)" "$plugin" "$DB"
           [ $rc -gt 1 ] || certified="$certified $plugin" ;;
    esac
done
echo "Summary:$summary" | tee -a "$out"
# Every plugin whose certification ran, on each pair two or more of them
# claim: exit 1 (a plugin departs from the oracle) is a finding, 2 a failure
# of the job. The OpenCL plugin takes part
# with its default build options, hence --grant pocl (diff has one set of
# grants for every plugin of the run: the others get PoCL's files in their
# view and the linker during their open() too, nothing after it).
plugins=""
for plugin in $certified; do
    plugins="$plugins --plugin $plugin"
done
rc=0
sandbox=""
[ -f "$OPENCL" ] && sandbox="--grant pocl --timeout $OPENCL_TIMEOUT_MS"
# shellcheck disable=SC2086 # one word per flag and path
"$BUILD_DIR"/divergence diff --partial $plugins --db "$DB" --timeout "$TIMEOUT_MS" $sandbox \
    >reports/out/diff.txt 2>&1 || rc=$?
if [ $rc -gt 1 ]; then
    echo "certify-all: divergence diff failed (exit $rc); see reports/out/diff.txt" >&2
    status=1
fi
if ! "$BUILD_DIR"/divergence report --db "$DB" --latest-per-plugin -o reports/out/all.html; then
    echo "certify-all: the page of every library failed" >&2
    status=1
fi
echo "Database: $DB; certificates: $out; diff: reports/out/diff.txt; every library: reports/out/all.html"
exit $status
