#!/bin/sh
# SPDX-License-Identifier: MIT
# The main job: set-up and build, then certify every plugin that was built
# (the bundled reference kernel first), writing divergence.db in the
# repository root and the certificates to reports/out/certificates.txt.
# Exit status: 0 when every certification ran (a NONCONFORMANT certificate
# is a finding, not a failure of the job) and the reference kernel is
# CONFORMANT; 1 otherwise.
set -eu
cd "$(dirname "$0")/.."
sh scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
DB=${DB:-divergence.db}
mkdir -p reports/out
out=reports/out/certificates.txt
one=$(mktemp)
trap 'rm -f "$one"' EXIT
: >"$out"
status=0
for plugin in "$BUILD_DIR"/plugins/reference.so $(ls "$BUILD_DIR"/plugins/*.so | grep -v '/reference\.so$' || true); do
    echo "== divergence certify --plugin $plugin --db $DB" | tee -a "$out"
    rc=0
    "$BUILD_DIR"/divergence certify --plugin "$plugin" --db "$DB" --no-progress >"$one" 2>&1 || rc=$?
    cat "$one" | tee -a "$out"
    case "$plugin:$rc" in
        */reference.so:0) ;;
        */reference.so:*) echo "certify-all: the reference kernel is not CONFORMANT (exit $rc)" >&2; status=1 ;;
        *:0|*:1) ;;
        *) echo "certify-all: certifying $plugin failed (exit $rc)" >&2; status=1 ;;
    esac
done
echo "Database: $DB; certificates: $out"
exit $status
