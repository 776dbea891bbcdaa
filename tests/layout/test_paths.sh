#!/bin/sh
# SPDX-License-Identifier: MIT
# Every path of this repository named in a comment, a doc, a script or a
# CMake file exists: in the tree (from its root or the naming file's
# folder) or, for what a build makes (plugins/reference.so), in the build.
# A file moved or renamed without its mentions fails here. Left aside:
# patterns (*, {a,b}, <name>, $VAR, an all-capitals placeholder segment),
# a path a shell redirection writes (a test's own file),
# and the few names listed below with the reason each is not in the tree.
# Usage: test_paths.sh SOURCE_DIR BUILD_DIR
set -u
SRC=$1 BUILD=$2
. "$(dirname "$0")/../lib.sh"
/usr/bin/python3 - "$SRC" "$BUILD" >"$tmp/out" <<'PY'
import os, re, subprocess, sys
root, build = sys.argv[1], sys.argv[2]
# Not in the tree, each for its reason.
elsewhere = {
    "reports/out": "scripts/certify-all.sh's output folder, made when it runs",
    "include/onnxruntime_c_api.h": "ONNX Runtime's header, in its npm package",
    "docs/OperatorKernels.md": "ONNX Runtime's documentation",
    "plugins/nightly-div.so": "made by tests/nightly/test_nightly_slurm.sh",
    "cases/s": "a unit (cases per second)",
    "cases/elements": "a unit",
}
tops = r"harness|oracle|fuzz|corpus|cases|reports|plugins|tests|bench|scripts|docs|examples|include|\.ci"
pat = re.compile(r"(?<![\w./$-])((?:%s)/[A-Za-z0-9_./*{}<>-]*[A-Za-z0-9_*}>])" % tops)
files = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                       check=True).stdout.split()
exts = (".c", ".h", ".md", ".sh", ".txt", ".cmake", ".py", ".in")
named = 0
for f in files:
    if not (f.endswith(exts) or os.path.basename(f) == "CMakeLists.txt" or f.startswith("scripts/")):
        continue
    try:
        text = open(os.path.join(root, f), encoding="utf-8").read()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for n, line in enumerate(text.splitlines(), 1):
        for m in pat.finditer(line):
            p = m.group(1).rstrip(".")
            if line[:m.start()].rstrip().endswith(">"):
                continue  # made here: a shell redirection writes it
            if re.search(r"[*{}<>$]", p) or any(s.split(".")[0].isupper() and len(s.split(".")[0]) > 1 for s in p.split("/")):
                continue
            named += 1
            if any(p == e or p.startswith(e + "/") for e in elsewhere):
                continue
            if any(os.path.exists(os.path.join(d, p))
                   for d in (root, os.path.join(root, os.path.dirname(f)), build)):
                continue
            print("MISSING %s:%d: %s" % (f, n, p))
print("NAMED %d" % named)
PY
named=$(sed -n 's/^NAMED //p' "$tmp/out")
if [ "${named:-0}" -gt 500 ]; then ok; else bad "only ${named:-0} paths read: the scan is broken"; fi
while read -r word rest; do
    [ "$word" = MISSING ] && bad "$rest names a path that does not exist"
done <"$tmp/out"
finish test_paths
