#!/bin/sh
# SPDX-License-Identifier: MIT
# Fetches ONNX Runtime's CPU library and C headers for plugins/onnxruntime
# into .third_party/onnxruntime/ (ignored by git; nothing of theirs is
# committed). Debian 12 does not package ONNX Runtime, so both come from the
# npm registry, through npm itself, at pinned versions whose tarball
# checksums are checked here:
#   onnxruntime-node            ships lib libonnxruntime.so.1 (bin/napi-v6/linux/<arch>/)
#   com.github.asus4.onnxruntime ships the C headers of the same ONNX Runtime
#                                release (the ORT 1.29.0 headers) and its MIT licence
# Only those files are unpacked; the tarballs (about 260 MB, with npm's cache
# in the same temporary folder) are deleted. Safe to run again: a complete
# folder of the pinned version is left alone.
# Exit status 0 when the folder is complete afterwards (or npm is missing:
# the adapter is then skipped by CMake, with a message), 1 on a failed
# download or a checksum mismatch.
set -eu
cd "$(dirname "$0")/.."

ORT_VERSION=1.29.0
NODE_PKG=onnxruntime-node@$ORT_VERSION
NODE_SHA512=WjiVVB72riILz8HbYvxvmjKyE/WmkYoSfKY++axo5jAR609HQg8MwiG/HhShpTcJfmmAdzxxmB+MMST3A+SiPA==
HDR_PKG=com.github.asus4.onnxruntime@0.4.9
HDR_SHA512=BkzxduSZ9IkeDP6Q8lz2TFU2ie7hSSvS7ZIfzMooExoq0CNzJnuuGaUJ7IsojBgqO4ouD1jXah8OYyJbCN29Fg==
HDR_DIR='package/Plugins/iOS~/onnxruntime.xcframework/ios-arm64/onnxruntime.framework/Headers'
HEADERS="onnxruntime_c_api.h onnxruntime_ep_c_api.h onnxruntime_error_code.h"

DEST=.third_party/onnxruntime
STAMP=$DEST/VERSION

if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$ORT_VERSION" ]; then
    exit 0
fi
if ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
    echo "fetch-onnxruntime: npm/node not found; the ONNX Runtime adapter will be skipped" >&2
    exit 0
fi
case "$(uname -m)" in
    x86_64) arch=x64 ;;
    aarch64) arch=arm64 ;;
    *) echo "fetch-onnxruntime: no ONNX Runtime build for $(uname -m) in $NODE_PKG; skipped" >&2
       exit 0 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# sha512 of a file in npm's integrity format (base64).
sri() {
    node -e 'const c=require("crypto"),f=require("fs");
             process.stdout.write(c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$1"
}

# fetch PKG SHA512: npm pack PKG into $tmp, check its checksum, echo its path.
fetch() {
    (cd "$tmp" && npm pack --silent --cache "$tmp/npm-cache" "$1" >"$tmp/name" 2>"$tmp/err") || {
        echo "fetch-onnxruntime: npm pack $1 failed:" >&2; cat "$tmp/err" >&2; return 1; }
    f="$tmp/$(tail -n 1 "$tmp/name")"
    got=$(sri "$f")
    if [ "$got" != "$2" ]; then
        echo "fetch-onnxruntime: $1: sha512 $got, expected $2" >&2
        return 1
    fi
    echo "$f"
}

echo "fetch-onnxruntime: fetching $NODE_PKG and $HDR_PKG from the npm registry"
node_tgz=$(fetch "$NODE_PKG" "$NODE_SHA512")
hdr_tgz=$(fetch "$HDR_PKG" "$HDR_SHA512")

rm -rf "$DEST"
mkdir -p "$DEST/lib" "$DEST/include" "$tmp/x"
tar -xzf "$node_tgz" -C "$tmp/x" "package/bin/napi-v6/linux/$arch/libonnxruntime.so.1"
mv "$tmp/x/package/bin/napi-v6/linux/$arch/libonnxruntime.so.1" "$DEST/lib/"
ln -s libonnxruntime.so.1 "$DEST/lib/libonnxruntime.so"
members="package/LICENSE"
for h in $HEADERS; do members="$members $HDR_DIR/$h"; done
# shellcheck disable=SC2086
tar -xzf "$hdr_tgz" -C "$tmp/x" $members
for h in $HEADERS; do mv "$tmp/x/$HDR_DIR/$h" "$DEST/include/"; done
mv "$tmp/x/package/LICENSE" "$DEST/LICENSE"
echo "$ORT_VERSION" >"$STAMP"
echo "fetch-onnxruntime: ONNX Runtime $ORT_VERSION in $DEST"
