#!/bin/bash
# SPDX-License-Identifier: MIT
# The bash completion (scripts/packaging/divergence.bash) against the
# commands' flag tables: every flag it offers a command, the command
# accepts (cli_parse does not call it unknown), and every flag a
# command's --help names, it offers.
# Usage: test_completion.sh DIVERGENCE COMPLETION_FILE
set -u
D=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -x "$D" ] || { echo "no $1"; exit 2; }
. "$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 2
fail=0 n=0
for cmd in certify diff sweep fuzz import replay bisect report query explain oracle cases onnx-tests; do
    COMP_WORDS=(divergence "$cmd" -)
    COMP_CWORD=2
    COMPREPLY=()
    _divergence
    offered=" ${COMPREPLY[*]} "
    for f in "${COMPREPLY[@]}"; do
        [ "$f" = --help ] && continue
        n=$((n + 1))
        # The flag alone: refused for a missing value or operand at most,
        # never as unknown.
        timeout 60 "$D" "$cmd" "$f" </dev/null >/dev/null 2>err
        if grep -q -e "unknown option '$f'" -e "unexpected argument '$f'" \
            -e "unknown or incomplete option '$f'" err; then
            echo "FAIL: the completion offers $cmd $f, which $cmd refuses: $(head -c 200 err)"
            fail=$((fail + 1))
        fi
    done
    "$D" "$cmd" --help >usage || { echo "FAIL: $cmd --help"; fail=$((fail + 1)); }
    for f in $(grep -o -e '\(^\|[][ |(,]\)--\?[a-z][a-z-]*' usage |
        sed 's/^[][ |(,]*//' | grep '^-' | sort -u); do
        n=$((n + 1))
        case $offered in
        *" $f "*) ;;
        *) echo "FAIL: '$cmd --help' names $f, the completion does not offer it"; fail=$((fail + 1)) ;;
        esac
    done
done
echo "$n checks, $fail failed"
[ $fail -eq 0 ]
