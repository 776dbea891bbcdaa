#!/bin/sh
# SPDX-License-Identifier: MIT
# Coverage and bugs in the reports: certify of the reference kernel
# records per claim what its cases exercised (ranks, inner sizes,
# broadcast classes, size tiers, data offsets), and the JSON, HTML and Markdown
# certificates list it for every claim; a run with findings shows its bugs
# before its findings, each with its signatures. Every certificate reads
# top-down (check_order.py): the verdict matrix, the bugs, the findings
# (the first finding before any coverage), then the coverage folded per
# claim, without a column that is empty for every claim.
# Usage: test_report_coverage.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR REFERENCE_SO
set -u
. "$3/lib.sh"
need sqlite3

cd "$tmp" || exit 1
"$D" certify --plugin "$4" --variant onnx-div-14 --variant onnx-div-7 \
    --variant openvino-divide-1 --dtype f32 --dtype i32 --random 40 --seed 9 --db c.db \
    --no-progress >certify.out 2>&1
check "certify of the reference: exit $? $(tail -3 certify.out)" [ $? -eq 0 ]
for f in json html md; do
    "$D" report --db c.db --run 1 --format $f -o "r.$f" 2>err.txt
    check "report --format $f: $(cat err.txt)" [ $? -eq 0 ]
done
"$PY" - r.json <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
certs = j["certificates"]
assert len(certs) == 6, len(certs)
coverage = {(v["implementation"], v["variant"], v["dtype"]): v for v in j["coverage"]}
assert len(coverage) == 6, coverage
for c in certs:
    v = coverage.get((c["implementation"], c["variant"], c["dtype"]))
    assert v is not None, c
    assert v["cases"] > 0, c
    for k in ("ranks", "inner_sizes", "broadcast_classes", "size_tiers"):
        assert v[k], (k, c)
    assert "same-shape" in v["broadcast_classes"], c
    # f32 and i32: A, B and C each at all 16 multiples of 4 from a line.
    every = ",".join(str(k) for k in range(0, 64, 4))
    assert v["alignments"] == "A %s; B %s; C %s" % (every, every, every), v["alignments"]
    # numpy broadcasting: the random cases stretch operands.
    if c["variant"] == "onnx-div-14":
        assert "row" in v["broadcast_classes"] or "column" in v["broadcast_classes"], c
assert j["bugs"] == [], j["bugs"]
PYEOF
check "every claim of the JSON certificate lists its coverage" [ $? -eq 0 ]
check "the HTML certificate has a coverage row per claim" \
    [ "$(grep -o '<tr data-variant=' r.html | wc -l)" -eq 6 ]
check "the Markdown certificate has a coverage table" grep -q '^| implementation | variant | dtype | cases | ranks' r.md
for f in html md json; do
    "$PY" "$S/check_order.py" $f r.$f >order.out 2>&1
    check "the $f certificate of the reference reads top-down: $(cat order.out)" [ $? -eq 0 ]
done
check "the coverage table holds it" [ "$(sqlite3 c.db 'SELECT count(*) FROM coverage WHERE run_id = 1 AND ranks <> "" AND size_tiers <> ""')" -eq 6 ]

# Bugs: a plugin with findings, its bugs first, every finding in one.
"$D" certify --plugin "$P/plugin_hostile.so" --variant onnx-div-13 --dtype f32 --dtype i32 \
    --random 20 --seed 7 --db h.db --no-progress --cases "" >h.out 2>&1
for f in json html md; do
    "$D" report --db h.db --run 1 --format $f -o "h.$f" 2>err.txt
    check "report of findings --format $f: $(cat err.txt)" [ $? -eq 0 ]
done
"$PY" - h.json <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))
sigs = {f["signature_id"]: f["bug_id"] for f in j["findings"]}
assert sigs and j["bugs"], j["bugs"]
members = [s for b in j["bugs"] for s in b["signature_ids"]]
assert sorted(members) == sorted(sigs), (members, sigs)
for b in j["bugs"]:
    assert b["signatures"] == len(b["signature_ids"])
    assert all(sigs[s] == b["bug_id"] for s in b["signature_ids"])
assert len(j["bugs"]) < len(sigs) or len(sigs) == 1, (len(j["bugs"]), len(sigs))
PYEOF
check "the JSON bugs hold every finding once" [ $? -eq 0 ]
check "HTML: bugs before findings" sh -c \
    "grep -n 'id=\"bugs-section\"\|id=\"findings\"' h.html | cut -d: -f1 | tr '\n' ' ' | awk '{exit !(\$1 < \$2)}'"
check "Markdown: bugs before findings" sh -c \
    "grep -n '^## Bugs\|^## Findings' h.md | cut -d: -f1 | tr '\n' ' ' | awk '{exit !(\$1 < \$2)}'"
# A failing certificate: the first finding comes before the coverage.
check "the run with findings fails a claim" grep -q NONCONFORMANT h.out
for f in html md json; do
    "$PY" "$S/check_order.py" $f h.$f >order.out 2>&1
    check "the failing $f certificate reads top-down: $(cat order.out)" [ $? -eq 0 ]
done
finish
