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
. "$(dirname "$0")/../lib.sh"
cd "$tmp" || exit 2
for cmd in certify diff sweep fuzz import replay bisect report query explain oracle cases onnx-tests; do
    COMP_WORDS=(divergence "$cmd" -)
    COMP_CWORD=2
    COMPREPLY=()
    _divergence
    offered=" ${COMPREPLY[*]} "
    for f in "${COMPREPLY[@]}"; do
        [ "$f" = --help ] && continue
        # The flag alone: refused for a missing value or operand at most,
        # never as unknown.
        timeout 60 "$D" "$cmd" "$f" </dev/null >/dev/null 2>err
        if grep -q -e "unknown option '$f'" -e "unexpected argument '$f'" \
            -e "unknown or incomplete option '$f'" err; then
            bad "the completion offers $cmd $f, which $cmd refuses: $(head -c 200 err)"
        else ok; fi
    done
    "$D" "$cmd" --help >usage || bad "$cmd --help"
    for f in $(grep -o -e '\(^\|[][ |(,]\)--\?[a-z][a-z-]*' usage |
        sed 's/^[][ |(,]*//' | grep '^-' | sort -u); do
        case $offered in
        *" $f "*) ok ;;
        *) bad "'$cmd --help' names $f, the completion does not offer it" ;;
        esac
    done
done
finish completion
