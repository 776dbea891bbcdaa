# SPDX-License-Identifier: MIT
"""Checks that every output format holds hostile database strings as data.

usage: check_escaping.py DB DIR

DIR holds r.html, r.xml, r.md, r.json (the report of run 1), dom.html
(Chromium's DOM of r.html, or missing), and the query outputs q-*.txt
(tables) and q-*.json. Each must parse in its format, carry the hostile
strings as text (control characters and bytes that are not UTF-8 as
U+FFFD or escapes) and contain no markup, element or control byte that
came from them.
"""
import json
import os
import re
import sqlite3
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_html  # noqa: E402  (its DOM builder)

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def no_controls(name, data, allowed=b"\n"):
    bad = sorted({b for b in data if (b < 0x20 and bytes([b]) not in allowed) or b == 0x7F})
    expect(not bad, "%s: raw control bytes %r" % (name, bad))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        failures.append("%s: not UTF-8: %s" % (name, e))
        return ""
    c1 = [hex(ord(c)) for c in text if 0x80 <= ord(c) <= 0x9F]
    expect(not c1, "%s: C1 controls %r" % (name, c1))
    return text


def visible(s):
    """What a page or an XML attribute shows for a database string."""
    out = []
    for c in s:
        o = ord(c)
        if o == 0xFFFD or (o < 0x20 and c not in "\t\n\r") or o == 0x7F or 0x80 <= o <= 0x9F:
            out.append("\ufffd")
        else:
            out.append(c)
    return "".join(out)


def main():
    db_path, d = sys.argv[1], sys.argv[2]
    db = sqlite3.connect(db_path)
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")
    host, args, cpu = db.execute("SELECT host, args, cpu_features FROM runs WHERE id = 1").fetchone()
    note, case_id = db.execute("SELECT note, case_id FROM reproducers ORDER BY id LIMIT 1").fetchone()

    # JSON: strict UTF-8, values equal to the database's text.
    data = read(os.path.join(d, "r.json"))
    no_controls("r.json", data)
    try:
        j = json.loads(data.decode("utf-8"))
        expect(j["run"]["host"] == host, "json host %r, database %r" % (j["run"]["host"], host))
        expect(j["run"]["args"] == args, "json args")
        expect(j["run"]["cpu_features"] == cpu, "json cpu_features")
        repro = [r for f in j["findings"] for r in f["reproducers"]]
        expect(any(r["note"] == note and r["case_id"] == case_id for r in repro),
               "json reproducer note / case id")
        expect(all("<" not in s and ">" not in s for s in re.findall(r'"(?:[^"\\]|\\.)*"', data.decode())),
               "json: a raw < or > inside a string")
    except (ValueError, KeyError) as e:
        failures.append("r.json does not parse: %s" % e)
    for name in sorted(os.listdir(d)):
        if name.startswith("q-") and name.endswith(".json"):
            raw = read(os.path.join(d, name))
            no_controls(name, raw)
            try:
                q = json.loads(raw.decode("utf-8"))
                if "runs" in q and q["runs"] and "host" in q["runs"][0]:
                    expect(q["runs"][0]["host"] == host, "%s: host" % name)
            except ValueError as e:
                failures.append("%s does not parse: %s" % (name, e))

    # Tables for a terminal: nothing that moves the cursor or recolours.
    for name in sorted(os.listdir(d)):
        if name.startswith("q-") and name.endswith(".txt"):
            text = no_controls(name, read(os.path.join(d, name)))
            expect("\\x1b" in text or "host" not in name, "%s: ESC not shown as \\x1b" % name)

    # XML: well-formed, the host as its hostname attribute.
    data = read(os.path.join(d, "r.xml"))
    no_controls("r.xml", data)
    try:
        root = ET.fromstring(data)
        hosts = {s.get("hostname") for s in root.iter("testsuite")}
        expect(hosts == {visible(host)}, "xml hostname %r, want %r" % (hosts, visible(host)))
        props = {p.get("name"): p.get("value") for p in root.iter("property")}
        expect(props.get("cpu_features") == visible(cpu), "xml cpu_features property")
    except ET.ParseError as e:
        failures.append("r.xml does not parse: %s" % e)

    # Markdown: no raw tag, no line break from data, links and emphasis escaped.
    md = no_controls("r.md", read(os.path.join(d, "r.md")))
    expect(not re.search(r"<[A-Za-z/!?]", md), "r.md: raw markup %r" % re.findall(r"<[A-Za-z/!?][^ ]{0,20}", md))
    expect("[link](" not in md and "\\[link\\](" in md, "r.md: a link from data is live")
    expect("*emph*" not in md, "r.md: emphasis from data is live")
    headings = [line for line in md.splitlines() if line.startswith("#")]
    expect(not [h for h in headings if "heading" in h], "r.md: a heading from data: %r" % headings)
    rows = [line for line in md.splitlines() if line.startswith("| ")]
    widths = {line.replace("\\|", "").count("|") for line in rows if "implementation" in line or "onnx" in line}
    expect(len(rows) > 0, "r.md: no table")

    # HTML: no element or attribute from the data, the text shown as text.
    for name in ("r.html", "dom.html"):
        path = os.path.join(d, name)
        if not os.path.exists(path):
            continue
        text = no_controls(name, read(path), allowed=b"\n\t")
        b = check_html.Builder()
        b.feed(text)
        for n in b.root.walk():
            expect(n.tag not in ("script", "img", "iframe", "b", "object", "embed"),
                   "%s: element <%s> from data" % (name, n.tag))
            for k in n.attrs:
                expect(not k.startswith("on"), "%s: attribute %s on <%s>" % (name, k, n.tag))
        page = b.root.text()
        expect("<img src=x onerror=alert(2)>" in page, "%s: the host is not shown as text" % name)
        expect("<svg onload=alert(4)>" in page, "%s: the case id is not shown as text" % name)

    for m in failures:
        print("check_escaping: " + m)
    print("check_escaping: %d problems" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
