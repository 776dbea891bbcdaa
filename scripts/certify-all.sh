#!/bin/sh
# SPDX-License-Identifier: MIT
# The main job: set-up and build, then certify every plugin that was built
# (the bundled reference kernel first), writing divergence.db in the
# repository root and the certificates to reports/out/certificates.txt;
# then `divergence diff` of all of them (reports/out/diff.txt: where
# conformant kernels still disagree) and one page of every library side by
# side (reports/out/all.html, `divergence report --latest-per-plugin`).
# The plugins are the reference kernel and the adapters of XNNPACK, oneDNN,
# Eigen, libtorch and ONNX Runtime (plugins/; docs/findings.md says what
# their certificates show); a plugin that crashes crashes in its worker.
# Exit status: 0 when every certification ran (a NONCONFORMANT or CRASHED
# certificate is a finding, not a failure of the job), the reference kernel
# is CONFORMANT and all five adapters were built; 1 otherwise.
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
for lib in xnnpack onednn eigen libtorch onnxruntime; do
    if [ ! -f "$BUILD_DIR/plugins/$lib.so" ]; then
        echo "certify-all: the $lib adapter was not built (its library is missing; see the" \
             "messages of scripts/setup.sh)" >&2
        status=1
    fi
done
summary=""
for plugin in "$BUILD_DIR"/plugins/reference.so $(ls "$BUILD_DIR"/plugins/*.so | grep -v '/reference\.so$' || true); do
    echo "== divergence certify --plugin $plugin --db $DB --timeout $TIMEOUT_MS" | tee -a "$out"
    rc=0
    "$BUILD_DIR"/divergence certify --plugin "$plugin" --db "$DB" --timeout "$TIMEOUT_MS" --no-progress \
        >"$one" 2>&1 || rc=$?
    cat "$one" | tee -a "$out"
    summary="$summary
  $(basename "$plugin" .so): $(grep -E '^[0-9]+ of [0-9]+ claims hold' "$one" | cut -d';' -f1,3 || echo "exit $rc")"
    case "$plugin:$rc" in
        */reference.so:0) ;;
        */reference.so:*) echo "certify-all: the reference kernel is not CONFORMANT (exit $rc)" >&2; status=1 ;;
        *:0|*:1) ;;
        *) echo "certify-all: certifying $plugin failed (exit $rc)" >&2; status=1 ;;
    esac
done
echo "Summary:$summary" | tee -a "$out"
# Every plugin on each pair two or more of them claim: exit 1 (a plugin departs from
# the oracle) is a finding, 2 a failure of the job.
plugins=""
for plugin in "$BUILD_DIR"/plugins/reference.so $(ls "$BUILD_DIR"/plugins/*.so | grep -v '/reference\.so$' || true); do
    plugins="$plugins --plugin $plugin"
done
rc=0
# shellcheck disable=SC2086 # one word per flag and path
"$BUILD_DIR"/divergence diff --partial $plugins --db "$DB" --timeout "$TIMEOUT_MS" \
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
