#!/bin/sh
# SPDX-License-Identifier: MIT
# check_corpus.sh CORPUS_TOOL SOURCE_DIR: corpus/div, corpus/casefile and
# fuzz/div.dict are what scripts/gen-corpus would write from cases/ today.
set -eu
tool=$1 src=$2
. "$(dirname "$0")/../lib.sh"
out=$tmp
mkdir "$out/div" "$out/casefile"
"$tool" "$src/cases" "$out/div" "$out/casefile" "$out/div.dict" >/dev/null
rc=0
diff -rq "$out/div" "$src/corpus/div" || rc=1
diff -rq "$out/casefile" "$src/corpus/casefile" || rc=1
diff -q "$out/div.dict" "$src/fuzz/div.dict" || rc=1
if [ $rc -ne 0 ]; then
    echo "check_corpus: the committed corpus is stale: run scripts/gen-corpus and commit" >&2
    exit 1
fi
echo "check_corpus: corpus/ and fuzz/div.dict are up to date ($(ls "$out/div" | wc -l) div inputs, $(ls "$out/casefile" | wc -l) case-file blocks)"
