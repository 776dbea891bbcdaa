# SPDX-License-Identifier: MIT
"""Checks that the certificate of one run reads top-down, in each form.

usage: check_order.py html|md|json FILE

Asserts (docs/reports.md, "Reading a certificate"): the verdict matrix
comes first, then the bugs, then the findings (the first finding before
any coverage), then the coverage of each claim; in HTML every claim's
coverage is folded (inside a <details>) and in HTML and Markdown no
coverage column is empty for every claim (the paths certify does not
record are left out). For HTML, FILE may be the page or the DOM Chromium
dumped from it. Prints one line per failure; exit 1 on any.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html import Builder  # noqa: E402  (one DOM parser)

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def in_order(positions, names):
    """positions: the position of each name (None: absent)."""
    shown = [(positions[n], n) for n in names if positions.get(n) is not None]
    expect([n for _, n in sorted(shown)] == [n for _, n in shown],
           "out of order: %s" % ", ".join("%s at %d" % (n, p) for p, n in shown))


def check_html(path):
    b = Builder()
    with open(path, encoding="utf-8") as f:
        b.feed(f.read())
    order = list(b.root.walk())
    pos = {}

    def first(name, pred):
        for i, n in enumerate(order):
            if pred(n):
                pos[name] = i
                return n
        return None

    first("matrix", lambda n: n.tag == "section" and n.attrs.get("id") == "matrix")
    first("bugs", lambda n: n.attrs.get("id") == "bugs-section")
    finding = first("first finding", lambda n: n.tag == "article" and
                    "finding" in n.attrs.get("class", "").split())
    first("coverage", lambda n: n.attrs.get("id") == "coverage-section")
    for name in ("matrix", "bugs", "coverage"):
        expect(name in pos, "no %s section" % name)
    in_order(pos, ["matrix", "bugs", "first finding", "coverage"])
    rows = [n for n in order if n.tag == "tr" and "data-variant" in n.attrs
            and n.parent is not None]
    cov = [r for r in rows if any(a.attrs.get("id") == "coverage-section" for a in ancestors(r))]
    for r in cov:
        expect(any(a.tag == "details" for a in ancestors(r)),
               "coverage of %s %s is not folded" % (r.attrs.get("data-variant"),
                                                    r.attrs.get("data-dtype")))
    columns = {}
    for table in (n for n in order if n.tag == "table"
                  and any(a.attrs.get("id") == "coverage-section" for a in ancestors(n))):
        heads = [th.text() for th in table.find_all("th")]
        for tr in table.find_all("tr"):
            cells = [td.text() for td in tr.find_all("td")]
            for h, c in zip(heads, cells):
                columns.setdefault(h, []).append(c)
    for h, cells in columns.items():
        expect(any(c.strip() for c in cells), "coverage column %r is empty for every claim" % h)
    return "%d coverage rows, first finding %s" % (len(cov), "shown" if finding else "none")


def ancestors(n):
    n = n.parent
    while n is not None:
        yield n
        n = n.parent


def check_md(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")

    def at(pred):
        for i, ln in enumerate(lines):
            if pred(ln):
                return i
        return None

    pos = {"matrix": at(lambda ln: ln == "## Certificate matrix"),
           "bugs": at(lambda ln: ln.startswith("## Bugs")),
           "first finding": at(lambda ln: ln.startswith("### Signature")),
           "coverage": at(lambda ln: ln == "## Coverage")}
    for name in ("matrix", "bugs", "coverage"):
        expect(pos[name] is not None, "md: no %s heading" % name)
    in_order(pos, ["matrix", "bugs", "first finding", "coverage"])
    if pos["coverage"] is not None:
        table = []
        for ln in lines[pos["coverage"] + 1:]:
            if ln.startswith("## "):
                break
            if ln.startswith("| ") and not ln.startswith("| ---"):
                table.append([c.strip() for c in ln.strip().strip("|").split(" | ")])
        if table:
            for k, h in enumerate(table[0]):
                expect(any(len(r) > k and r[k] for r in table[1:]),
                       "md: coverage column %r is empty for every claim" % h)
    return "%d lines" % len(lines)


def check_json(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    d = json.loads(text)
    keys = list(d.keys())
    pos = {k: keys.index(k) for k in ("certificates", "bugs", "findings", "coverage") if k in keys}
    for k in ("certificates", "bugs", "findings", "coverage"):
        expect(k in pos, "json: no %r" % k)
    in_order(pos, ["certificates", "bugs", "findings", "coverage"])
    for c in d.get("certificates", []):
        expect("coverage" not in c, "json: the coverage of %s %s sits before the findings"
               % (c.get("variant"), c.get("dtype")))
    return "%d keys" % len(keys)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("html", "md", "json"):
        print(__doc__)
        return 2
    what = {"html": check_html, "md": check_md, "json": check_json}[sys.argv[1]](sys.argv[2])
    for f in failures:
        print("check_order %s: %s" % (sys.argv[1], f))
    print("check_order %s: %s; %d failures" % (sys.argv[1], what, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
