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
# (into DB, in the diff and on the page with the others) and with
# -cl-fast-relaxed-math under profiles exact and ulp:2 (into
# DB's name with -opencl-fast-relaxed-math before .db, with its own page
# reports/out/opencl-fast-relaxed-math.html: the store names an
# implementation by its plugin's name, which is the same for every config).
# Exit status: 0 when every certification ran (a NONCONFORMANT or CRASHED
# certificate is a finding, not a failure of the job), the reference kernel
# is CONFORMANT and all six adapters were built; 1 otherwise.
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
# The OpenCL plugin runs with --sandbox off, its kernels built first by
# opencl-prebuild into a PoCL cache of the build tree: PoCL links each kernel
# by running /usr/bin/ld, which the worker's seccomp filter refuses (with
# --sandbox off too), and open() finds the prebuilt kernels in the cache.
# Until the follow-up of issue 28 (the worker grants the linker during
# open()): then the --sandbox off and the prebuild go.
OPENCL=$BUILD_DIR/plugins/opencl.so
OPENCL_FAST_DB=${DB%.db}-opencl-fast-relaxed-math.db
export POCL_CACHE_DIR="${POCL_CACHE_DIR:-$BUILD_DIR/pocl-cache}"
mkdir -p "$POCL_CACHE_DIR"
summary=""
# certify_one LABEL PLUGIN DB [FLAGS...]: one certification, into $out and the summary.
certify_one() {
    label=$1 plugin=$2 db=$3
    shift 3
    echo "== divergence certify --plugin $plugin --db $db --timeout $TIMEOUT_MS $*" | tee -a "$out"
    rc=0
    "$BUILD_DIR"/divergence certify --plugin "$plugin" --db "$db" --timeout "$TIMEOUT_MS" --no-progress \
        "$@" >"$one" 2>&1 || rc=$?
    cat "$one" | tee -a "$out"
    summary="$summary
  $label: $(grep -E '^[0-9]+ of [0-9]+ claims hold' "$one" | cut -d';' -f1,3 || echo "exit $rc")"
    case "$plugin:$rc" in
        */reference.so:0) ;;
        */reference.so:*) echo "certify-all: the reference kernel is not CONFORMANT (exit $rc)" >&2; status=1 ;;
        *:0|*:1) ;;
        *) echo "certify-all: certifying $label failed (exit $rc)" >&2; status=1 ;;
    esac
}
# prebuild CONFIG: the OpenCL kernels of CONFIG into the PoCL cache.
prebuild() {
    if ! "$BUILD_DIR"/plugins/opencl-prebuild "$1" | tee -a "$out"; then
        echo "certify-all: opencl-prebuild '$1' failed" >&2
        status=1
    fi
}
for plugin in "$BUILD_DIR"/plugins/reference.so $(ls "$BUILD_DIR"/plugins/*.so | grep -v '/reference\.so$' || true); do
    case $plugin in
        "$OPENCL")
            prebuild ""
            certify_one opencl "$plugin" "$DB" --sandbox off # until issue 28's follow-up
            prebuild -cl-fast-relaxed-math
            # exact last: the page of the database shows the latest run
            for profile in ulp:2 exact; do
                certify_one "opencl -cl-fast-relaxed-math, profile $profile" "$plugin" \
                    "$OPENCL_FAST_DB" --config -cl-fast-relaxed-math --profile "$profile" \
                    --sandbox off # until issue 28's follow-up
            done ;;
        *) certify_one "$(basename "$plugin" .so)" "$plugin" "$DB" ;;
    esac
done
echo "Summary:$summary" | tee -a "$out"
# Every plugin on each pair two or more of them claim: exit 1 (a plugin departs from
# the oracle) is a finding, 2 a failure of the job. The OpenCL plugin takes part
# with its default build options, hence --sandbox off for all of them until the
# follow-up of issue 28 (above; diff has one --sandbox for every plugin).
plugins=""
for plugin in "$BUILD_DIR"/plugins/reference.so $(ls "$BUILD_DIR"/plugins/*.so | grep -v '/reference\.so$' || true); do
    plugins="$plugins --plugin $plugin"
done
rc=0
sandbox=""
[ -f "$OPENCL" ] && sandbox="--sandbox off" # until issue 28's follow-up
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
if [ -f "$OPENCL_FAST_DB" ] &&
    ! "$BUILD_DIR"/divergence report --db "$OPENCL_FAST_DB" --latest-per-plugin \
        -o reports/out/opencl-fast-relaxed-math.html; then
    echo "certify-all: the page of OpenCL -cl-fast-relaxed-math failed" >&2
    status=1
fi
echo "Database: $DB; certificates: $out; diff: reports/out/diff.txt; every library: reports/out/all.html"
echo "OpenCL -cl-fast-relaxed-math: $OPENCL_FAST_DB, reports/out/opencl-fast-relaxed-math.html"
exit $status
