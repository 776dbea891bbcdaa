#!/bin/sh
# SPDX-License-Identifier: MIT
# explain cites the project's semantics page where it lives,
# docs/semantics.md, never the old SEMANTICS.md (issue 34, part 7).
# Usage: test_explain_cites.sh DIVERGENCE
set -u
D=$1
. "$(dirname "$0")/../lib.sh"
"$D" explain --variant onnx-div-14 --dtype i32 -- -2147483648 -1 >"$tmp/out" 2>&1
check "explain cites docs/semantics.md: $(grep spec "$tmp/out")" grep -q '(docs/semantics.md, ' "$tmp/out"
check "and never SEMANTICS.md" sh -c "! grep -q 'SEMANTICS.md' '$tmp/out'"
finish explain_cites
