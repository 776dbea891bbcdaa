#!/bin/sh
# SPDX-License-Identifier: MIT
# The HTML report of a plugin named <script>alert(1)</script> opened in
# headless Chromium: a screenshot is taken, the page logs nothing to the
# console, and the rendered DOM (matrix cells, counts, findings,
# histograms, replay commands) matches the database; the name is text.
# Usage: test_report_html.sh DIVERGENCE PLUGIN_DIR SOURCE_DIR
set -u
. "$3/lib.sh"
need chromium
need sqlite3
name='<script>alert(1)</script>'

cd "$tmp" || exit 1
"$D" certify --plugin "$P/plugin_hostile.so" --variant onnx-div-7 --variant onnx-div-13 \
    --dtype f32 --dtype i32 --dtype u32 --random 20 --seed 7 --db h.db --no-progress --cases "" \
    >certify.out 2>&1
rc=$?
check "certify exits 1 (the plugin is wrong), got $rc" [ $rc -eq 1 ]
"$D" report --db h.db --plugin "$name" --latest --format html -o r.html 2>report.err
check "report: $(cat report.err)" [ $? -eq 0 ]
run=$(sqlite3 h.db 'SELECT max(id) FROM runs')

# No network, no external asset: everything is inline.
check "no external reference in the page" sh -c '! grep -Eiq "(src|href) *=|url\(|@import" r.html'

chrome --dump-dom "file://$tmp/r.html" >dom.html 2>chrome-dom.err
check "chromium --dump-dom" [ -s dom.html ]
chrome --window-size=1280,3000 --screenshot="$tmp/shot.png" "file://$tmp/r.html" \
    >/dev/null 2>chrome-shot.err
check "screenshot taken" sh -c 'head -c 8 shot.png | od -An -c | grep -q "P   N   G"'
if grep -E 'CONSOLE|Uncaught|Refused to|Content Security Policy' chrome-dom.err chrome-shot.err >console.txt
then
    bad "console messages: $(cat console.txt)"
else
    ok
fi
"$PY" "$S/check_html.py" dom.html h.db "$run" "$name" h.db
check "the DOM matches the database" [ $? -eq 0 ]
finish
