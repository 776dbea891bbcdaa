#!/bin/sh
# SPDX-License-Identifier: MIT
# The shape of the code, checked: (1) every #include between the project's
# folders runs down the flow (the table below: what each folder may
# include besides itself; a subfolder of harness/run counts as
# harness/run, and among them every command's folder may include
# harness/run/engine/, the run engine, and nothing else of another's); (2) no CMake file globs its sources; (3) no
# source path is baked into a binary (DVG_SOURCE_DIR); (4) every .c file
# opens, after its SPDX line, with a comment saying what it contains; (5)
# every shell script parses (sh -n, or bash -n under a bash #! line:
# benchmarks and scripts no test runs).
# Usage: test_layers.sh SOURCE_DIR. Prints each violation; exit 1 if any.
set -u
. "$(dirname "$0")/../lib.sh"
cd "$1" || exit 2
allowed() {
    case $1 in
    oracle) echo "divergence" ;;
    harness/base) echo "divergence" ;;
    harness/cases) echo "divergence oracle harness/base" ;;
    harness/sandbox) echo "divergence harness/base" ;;
    harness/worker) echo "divergence oracle harness/base harness/cases harness/sandbox" ;;
    harness/worker_program) echo "divergence oracle harness/base harness/cases harness/sandbox harness/worker" ;;
    harness/judge) echo "divergence oracle harness/base harness/cases" ;;
    harness/store) echo "divergence oracle harness/base harness/cases" ;;
    harness/run) echo "divergence oracle harness/base harness/cases harness/sandbox harness/worker harness/judge harness/store" ;;
    reports) echo "divergence oracle harness/base harness/judge harness/store" ;;
    # The CLI reads flags and prints; what runs a worker is in harness/run/.
    harness/cli) echo "divergence oracle harness/base harness/cases harness/sandbox harness/judge harness/store harness/run reports" ;;
    fuzz) echo "divergence oracle harness/base harness/cases harness/judge harness/sandbox harness/worker" ;;
    corpus) echo "divergence oracle harness/base harness/cases" ;;
    *) echo "?" ;;
    esac
}
# layer FOLDER: the folder of the table a folder belongs to
layer() { case $1 in harness/run/*) echo harness/run ;; *) echo "$1" ;; esac; }
for f in $(git ls-files 'oracle/*.[ch]' 'harness/*.[ch]' 'reports/*.[ch]' 'fuzz/*.[ch]' 'corpus/*.[ch]'); do
    dir=$(dirname "$f")
    from=$(layer "$dir")
    for inc in $(sed -n 's/^#include "\([a-z0-9_/]*\)\/[a-z0-9_]*\.h".*/\1/p' "$f" | sort -u); do
        h=$(layer "$inc")
        if [ "$h" = "$from" ] && [ "$from" = harness/run ] && [ "$inc" != "$dir" ] &&
           [ "$inc" != harness/run/engine ]; then
            bad "layers: $f includes $inc/, another command's folder (only harness/run/engine/ is shared)"
        fi
        [ "$h" = "$from" ] && continue
        case " $(allowed "$from") " in
        *" $h "*) ;;
        *) bad "layers: $f includes $h/, which $from/ may not (it runs back up the flow)" ;;
        esac
    done
done
for f in $(git ls-files 'CMakeLists.txt' '*/CMakeLists.txt' '*.cmake'); do
    if grep -n 'file *( *GLOB' "$f"; then bad "layers: $f globs its sources"; fi
done
if git grep -n 'DVG_SOURCE_DIR' -- ':!tests/layout'; then
    bad "layers: a source path is baked into a binary (DVG_SOURCE_DIR)"
fi
for f in $(git ls-files '*.c'); do
    case $(sed -n 2p "$f") in
    "/*"*) ;;
    *) bad "layers: $f does not open with a comment saying what it contains" ;;
    esac
done
for f in $(git ls-files '*.sh' '.ci/run'); do
    shell=sh
    case $(head -n 1 "$f") in *bash*) shell=bash ;; esac
    "$shell" -n "$f" 2>"${TMPDIR:-/tmp}/layers.$$" || bad "layers: $f does not parse: $(cat "${TMPDIR:-/tmp}/layers.$$")"
done
rm -f "${TMPDIR:-/tmp}/layers.$$"
if [ "$fail" -eq 0 ]; then
    ok
    echo "layers: every include runs down the flow; no glob; no source path; every .c says what it contains; every shell script parses"
fi
finish layers
