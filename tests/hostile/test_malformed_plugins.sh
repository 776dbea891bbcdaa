#!/bin/sh
# SPDX-License-Identifier: MIT
# Malformed plugins: broken descriptors (hp_<mode>.so of hostile.h), files
# that are no plugin at all, libraries that do not load. `divergence
# certify`, `fuzz` and `plugins` must each give exactly one line on stderr
# naming the file and what is wrong with it, nothing on stdout (but the
# descriptor `plugins` shows when only open() failed), exit 2,
# and create no database. (A 10 s load timeout: none of them hangs, and a
# loaded machine must not turn a slow load into "hang in load".)
# Usage: test_malformed_plugins.sh DIVERGENCE HOSTILE_PLUGIN_DIR
set -u
D=$1 P=$2
. "$(dirname "$0")/../lib.sh"
inputs=0

# malformed PATH PATTERN: the three commands on it.
malformed() {
    path=$1 pattern=$2
    inputs=$((inputs + 1))
    for cmd in certify fuzz plugins; do
        rm -f "$tmp/x.db"
        case $cmd in
        certify) "$D" certify --plugin "$path" --db "$tmp/x.db" --no-progress --timeout 10000 ;;
        fuzz) "$D" fuzz --plugin "$path" --db "$tmp/x.db" --no-progress --timeout 10000 \
                  --seconds 0 --cases 10 --jobs 2 ;;
        plugins) "$D" plugins "$path" ;;
        esac >"$tmp/out" 2>"$tmp/err"
        rc=$?
        lines=$(wc -l <"$tmp/err")
        # Nothing on stdout; but `plugins` shows the descriptor of a plugin
        # whose open() failed (its descriptor passed its checks) before
        # the one line that says why.
        quiet=0
        if [ ! -s "$tmp/out" ] || { [ $cmd = plugins ] && grep -q 'load-error (open failed)' "$tmp/err" &&
            grep -q '^  name  ' "$tmp/out"; }; then quiet=1; fi
        if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && [ $quiet = 1 ] && grep -qF -- "$path" "$tmp/err" &&
            grep -q -- "$pattern" "$tmp/err" && [ ! -e "$tmp/x.db" ]; then ok; else
            bad "$cmd $path: exit $rc, $lines lines on stderr (want 2, one line with /$pattern/), stdout $(wc -c <"$tmp/out") bytes, database $([ -e "$tmp/x.db" ] && echo created || echo absent)"
            head -c 1500 "$tmp/err" "$tmp/out" >&2
        fi
    done
}

# Broken descriptors and loading.
malformed "$P/hp_null_open.so" 'descriptor field open is NULL'
malformed "$P/hp_null_shape.so" 'descriptor field output_shape is NULL'
malformed "$P/hp_null_compute.so" 'descriptor field compute is NULL'
malformed "$P/hp_null_last_error.so" 'descriptor field last_error is NULL'
malformed "$P/hp_null_close.so" 'descriptor field close is NULL'
malformed "$P/hp_null_name.so" 'descriptor field name is NULL'
malformed "$P/hp_null_version.so" 'descriptor field version is NULL'
malformed "$P/hp_empty_name.so" 'descriptor name is empty'
malformed "$P/hp_long_name.so" 'descriptor name is longer than 255 bytes'
malformed "$P/hp_null_claims.so" 'claims is NULL with n_claims'
malformed "$P/hp_bad_variant.so" 'unknown variant 99'
malformed "$P/hp_bad_dtype.so" 'unknown dtype 99'
malformed "$P/hp_many_claims.so" 'n_claims 5000 exceeds the maximum'
malformed "$P/hp_dup_claims.so" 'claim 1 repeats claim 0: onnx-div-[0-9]* [a-z0-9]* (each pair may be claimed once)'
malformed "$P/hp_small_size.so" 'descriptor size 8 is smaller'
malformed "$P/hp_abi2.so" 'ABI major 2, harness speaks 1'
malformed "$P/hp_abi0.so" 'ABI major 0, harness speaks 1'
malformed "$P/hp_bad_deviations.so" 'deviations has unknown bits'
malformed "$P/hp_null_desc.so" 'returned NULL'
malformed "$P/hp_wild_desc.so" 'crash in load: SIGSEGV'
malformed "$P/hp_no_entry.so" 'missing entry symbol dvg_iut_descriptor'
malformed "$P/hp_missing_dep.so" 'libhostile_dep.so: cannot open shared object file'
malformed "$P/hp_openfail.so" 'open("") returned'
malformed "$P/hp_crashopen.so" 'crash in open: SIGSEGV'
malformed "$P/hp_sleepopen.so" 'hang in open'
malformed "$P/hp_ctor_exit.so" 'exit in load: the plugin called exit(5)'
malformed "$P/hp_ctor_abort.so" 'crash in load: SIGABRT'

# Files that are no plugin.
printf 'This is a text file, not a shared object, but long enough to be read as an ELF header.\n' >"$tmp/text.so"
malformed "$tmp/text.so" 'not an ELF file'
: >"$tmp/empty.so"
malformed "$tmp/empty.so" 'file too short'
head -c 200 "$P/hp_none.so" >"$tmp/truncated.so"
malformed "$tmp/truncated.so" 'dlopen: '
cp "$P/hp_none.so" "$tmp/machine.so"
printf '\050\000' | dd of="$tmp/machine.so" bs=1 seek=18 conv=notrunc 2>/dev/null # e_machine: ARM
malformed "$tmp/machine.so" 'an ELF file for machine 40'
cp "$P/hp_none.so" "$tmp/class32.so"
printf '\001' | dd of="$tmp/class32.so" bs=1 seek=4 conv=notrunc 2>/dev/null # ELFCLASS32
malformed "$tmp/class32.so" 'a 32-bit ELF file'
malformed "$tmp" 'dlopen: '
malformed "$tmp/does-not-exist.so" 'No such file'
malformed /dev/null 'dlopen: '
exe=$(command -v true)
malformed "$exe" 'dlopen: '
printf '!<arch>\n' >"$tmp/archive.a"
malformed "$tmp/archive.a" 'dlopen: '

# A path with no slash is looked up by the loader: a name it does not know.
malformed "no-such-plugin-anywhere.so" 'dlopen: '

# Several at once: each failure its line, exit 2, the good one shown.
"$D" plugins "$P/hp_none.so" "$P/hp_abi2.so" "$tmp/text.so" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] && grep -q 'hostile-none' "$tmp/out"; then ok; else
    bad "plugins of three: exit $rc"; cat "$tmp/err" >&2
fi

echo "malformed plugins: $inputs, each through certify, fuzz and plugins"
finish
