#!/bin/sh
# SPDX-License-Identifier: MIT
# `cmake --install` into a temporary prefix, then, from a folder outside the
# source and build trees: every part of the install is there (the tool, the
# reference plugin, the cases and corpus, the header, the CMake package, the
# pkg-config file, the man page, the bash completion); the installed
# divergence finds its cases by itself; examples/plugin, copied out of the
# tree, builds against that prefix only with CMake (find_package) and with
# make (pkg-config), exports only its entry point, and the installed
# divergence certifies both builds CONFORMANT (exit 0).
# Usage: test_install.sh BUILD_DIR SOURCE_DIR CMAKE
set -u
B=$1 S=$2 CMAKE=$3
. "$(dirname "$0")/../lib.sh"
for t in pkg-config make cc nm; do
    command -v $t >/dev/null 2>&1 || { echo "SKIP: $t is not installed" >&2; exit 77; }
done

P=$tmp/prefix
"$CMAKE" --install "$B" --prefix "$P" >"$tmp/install.log" 2>&1
check "cmake --install: $(tail -n 5 "$tmp/install.log")" [ $? -eq 0 ]
for f in bin/divergence lib/divergence/plugins/reference.so include/divergence/iut.h \
    share/divergence/cases/README.md share/divergence/corpus/div \
    lib/cmake/Divergence/DivergenceConfig.cmake lib/cmake/Divergence/DivergenceConfigVersion.cmake \
    lib/pkgconfig/divergence.pc share/man/man1/divergence.1 \
    share/bash-completion/completions/divergence; do
    check "installed: $f" [ -e "$P/$f" ]
done

# Outside the source and build trees, with nothing pointing at them.
cd "$tmp" || exit 1
unset DIVERGENCE_DATA_DIR
"$P/bin/divergence" cases >cases.out 2>&1
check "installed divergence lists its cases: $(tail -n 2 cases.out)" \
    grep -q '^[0-9]* cases from [0-9]* case blocks' cases.out

# pkg-config: only the prefix's .pc. Its paths are relative to the file
# (relocatable): they resolve to the prefix, and to wherever it is moved.
pc_paths() { # PREFIX: "include-dir plugindir", both resolved
    PKG_CONFIG_LIBDIR=$1/lib/pkgconfig pkg-config --cflags divergence >pc.out 2>&1 || return 1
    inc=$(sed -n 's/^-I\([^ ]*\) .*/\1/p' pc.out)
    grep -q -- '-fvisibility=hidden' pc.out || return 1
    echo "$(cd "$inc" && pwd) $(cd "$(PKG_CONFIG_LIBDIR=$1/lib/pkgconfig pkg-config --variable=plugindir divergence)" && pwd)"
}
got=$(pc_paths "$P")
check "pkg-config: include and plugindir: '$got' ($(cat pc.out))" \
    [ "$got" = "$P/include $P/lib/divergence/plugins" ]
mv "$P" "$P.moved"
got=$(pc_paths "$P.moved")
check "pkg-config after the prefix moved: '$got'" [ "$got" = "$P.moved/include $P.moved/lib/divergence/plugins" ]
mv "$P.moved" "$P"
export PKG_CONFIG_LIBDIR=$P/lib/pkgconfig
check "pkg-config --modversion" [ -n "$(pkg-config --modversion divergence)" ]

# The man page renders without warnings; the completion completes.
if command -v man >/dev/null 2>&1; then
    MANWIDTH=80 man --warnings -l "$P/share/man/man1/divergence.1" >man.out 2>man.err
    check "man divergence: $(cat man.err)" [ $? -eq 0 ] && [ ! -s man.err ]
    check "man page names certify" grep -q certify man.out
fi
if command -v bash >/dev/null 2>&1; then
    got=$(bash -c '. "$1"; COMP_WORDS=(divergence cer); COMP_CWORD=1; _divergence; echo "${COMPREPLY[*]}"' \
        _ "$P/share/bash-completion/completions/divergence")
    check "completion of 'divergence cer': '$got'" [ "$got" = certify ]
    got=$(bash -c '. "$1"; COMP_WORDS=(divergence report --for); COMP_CWORD=2; _divergence; echo "${COMPREPLY[*]}"' \
        _ "$P/share/bash-completion/completions/divergence")
    check "completion of 'divergence report --for': '$got'" [ "$got" = --format ]
fi

# The example, copied out of the tree: nothing of the source tree is on
# its include path.
cp -r "$S/examples/plugin" ex
rm -rf ex/build ex/*.so
"$CMAKE" -S ex -B ex-cmake -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release >cmake.log 2>&1 &&
    "$CMAKE" --build ex-cmake >>cmake.log 2>&1
check "example with find_package: $(tail -n 5 cmake.log)" [ -f ex-cmake/div_example.so ]
check "find_package used the prefix" grep -q "$P/include" ex-cmake/CMakeFiles/div_example.dir/flags.make
make -C ex >make.log 2>&1
check "example with pkg-config: $(tail -n 5 make.log)" [ -f ex/div_example.so ]
for so in ex-cmake/div_example.so ex/div_example.so; do
    [ -f "$so" ] || continue
    exported=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ && $3 !~ /^_(init|fini)$/ {print $3}')
    check "$so exports only dvg_iut_descriptor, not: $exported" [ "$exported" = dvg_iut_descriptor ]
    "$P/bin/divergence" certify --plugin "$so" --db cert.db --no-progress >cert.out 2>&1
    rc=$?
    check "certify $so: exit $rc: $(tail -n 4 cert.out)" [ $rc -eq 0 ]
    check "$so: f32 CONFORMANT" grep -q 'onnx-div-14 *f32 *CONFORMANT' cert.out
    check "$so: i32 CONFORMANT" grep -q 'onnx-div-14 *i32 *CONFORMANT' cert.out
done

finish
