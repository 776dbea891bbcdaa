#!/bin/sh
# SPDX-License-Identifier: MIT
# Hostile strings in the database - markup, quotes, control characters,
# bytes that are not UTF-8, Markdown and JSON breakers - written into every
# field a report or a query prints, and every output checked: the HTML
# (also as Chromium renders it), JUnit XML (against the schema), Markdown,
# JSON and the query tables hold them as data.
# Usage: test_report_escaping.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
. "$3/lib.sh"
need xmllint
need sqlite3

cd "$tmp" || exit 1
db="x'y z.db"
"$D" certify --plugin "$P/plugin_hostile.so" --variant onnx-div-7 --dtype f32 --dtype i32 \
    --random 10 --seed 5 --db "$db" --no-progress --cases "" >certify.out 2>&1
check "certify exits 1" [ $? -eq 1 ]
sqlite3 "$db" >sql.out 2>&1 <<'SQL'
UPDATE runs SET
  host = '<img src=x onerror=alert(2)>' || char(27) || '[2J' || char(7) || CAST(X'FF' AS TEXT) || '"q'' & </td>',
  args = 'divergence certify' || char(10) || '--x </pre><script>alert(3)</script> `rm -rf` $(id)' || char(13),
  cpu_features = '</span></details><iframe>' || char(133) || char(8232) || ' ]]> <!-- --> \u0000',
  build_flags = '"},{"injected": true, "x": "';
UPDATE plugin_builds SET path = '/tmp/a''b"c<d>&e' || char(27) || '.so';
UPDATE reproducers SET case_id = '<svg onload=alert(4)>' || char(1),
  note = '{"json": "break\"}' || char(92) || char(9) || char(11) || '</failure>',
  expected = '| table | break' || char(10) || '# heading',
  actual = '*emph* _u_ [link](javascript:alert(5)) ![i](x) ~~s~~ `code`';
UPDATE signatures SET operand_class = '<b>op</b>' || char(31) || id;
SQL
check "hostile strings written: $(cat sql.out)" [ ! -s sql.out ]

for f in html junit md json; do
    "$D" report --db "$db" --run 1 --format $f -o "r.$f" 2>err.txt
    check "report --format $f: $(cat err.txt)" [ $? -eq 0 ]
done
mv r.junit r.xml
xmllint --noout --schema "$S/junit.xsd" r.xml 2>xmllint.err
check "r.xml valid against junit.xsd: $(cat xmllint.err)" [ $? -eq 0 ]
for q in runs "new --since 0" "history sig:1" "diff 1 1"; do
    n=$(echo "$q" | tr ' ' '-')
    # shellcheck disable=SC2086
    "$D" query --db "$db" $q >"q-$n.txt" 2>err.txt
    check "query $q: $(cat err.txt)" [ $? -eq 0 ]
    # shellcheck disable=SC2086
    "$D" query --db "$db" --json $q >"q-$n.json" 2>err.txt
    check "query --json $q: $(cat err.txt)" [ $? -eq 0 ]
done
check "the replay command quotes the database path" grep -q "divergence replay --db 'x'\\\\''y z.db' " r.md
if command -v chromium >/dev/null 2>&1; then
    chrome --dump-dom "file://$tmp/r.html" >dom.html 2>chrome.err
    check "chromium renders the page" [ -s dom.html ]
    if grep -E 'CONSOLE|Uncaught|Refused to' chrome.err >console.txt; then
        bad "console messages: $(cat console.txt)"
    else
        ok
    fi
fi
"$PY" "$S/check_escaping.py" "$db" .
check "every format holds the hostile strings as data" [ $? -eq 0 ]
finish
