# SPDX-License-Identifier: MIT
"""Checks the DOM Chromium rendered from an HTML report against the database.

usage: check_html.py DOM.html DB RUN_ID IMPLEMENTATION DB_PATH_IN_REPORT

Asserts: no <script> (or other active) element, the implementation's name
and version appear as text; the certificate matrix cells, the counts and
class totals, the claims held, the findings, the ULP histograms and the
replay commands match the database. Prints one line per failure; exit 1
on any.
"""
import html.parser
import sqlite3
import sys

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "param", "source", "track", "wbr"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.parts = [], []

    def text(self):
        out = []
        for c in self.parts:
            out.append(c if isinstance(c, str) else c.text())
        return "".join(out)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find_all(self, tag=None, cls=None, **attrs):
        for n in self.walk():
            if tag and n.tag != tag:
                continue
            if cls and cls not in n.attrs.get("class", "").split():
                continue
            if any(n.attrs.get(k.replace("_", "-")) != v for k, v in attrs.items()):
                continue
            yield n


class Builder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.parts.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.parts.append(n)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.parts.append(data)


failures = []


def inert_failures(root):
    """Nothing active: no script, no event handler, no external reference.
    One message per offence (also used by check_runs.py)."""
    out = []
    for n in root.walk():
        if n.tag in ("script", "iframe", "object", "embed", "img", "link", "b"):
            out.append("active or injected element <%s>" % n.tag)
        for k, v in n.attrs.items():
            if k.startswith("on"):
                out.append("event handler attribute %s on <%s>" % (k, n.tag))
            if k in ("src", "href"):
                out.append("external reference %s=%r" % (k, v))
    return out


def expect(cond, what):
    if not cond:
        failures.append(what)


def main():
    dom_path, db_path, run_id, impl, shown_db = sys.argv[1:6]
    run_id = int(run_id)
    b = Builder()
    with open(dom_path, encoding="utf-8") as f:
        b.feed(f.read())
    root = b.root
    db = sqlite3.connect(db_path)
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")

    failures.extend(inert_failures(root))

    version = db.execute(
        "SELECT b.version FROM run_plugins p JOIN plugin_builds b ON b.id = p.plugin_build_id"
        " WHERE p.run_id = ? AND b.name = ?", (run_id, impl)).fetchone()
    expect(version is not None, "the run links no build of the implementation")
    names = [n.text() for n in root.find_all("span", "subject-name")]
    expect(impl in names, "implementation name %r not shown as text (got %r)" % (impl, names))
    versions = [n.text() for n in root.find_all("span", "subject-version")]
    if version:
        expect(version[0] in versions, "version %r not shown as text (got %r)" % (version[0], versions))
    expect(impl in [n.text() for n in root.find_all("td", "plugin-name")],
           "implementation name not in the plugin table")

    # The matrix.
    certs = db.execute("SELECT variant, dtype, verdict, profile, cases, elements FROM certificates"
                       " WHERE run_id = ? AND implementation = ?", (run_id, impl)).fetchall()
    tables = [t for t in root.find_all("table", "matrix") if t.attrs.get("data-implementation") == impl]
    expect(len(tables) == 1, "one matrix for the implementation, got %d" % len(tables))
    cells = list(tables[0].find_all("td", "cell")) if tables else []
    expect(len(cells) == len(certs), "%d matrix cells, %d certificates" % (len(cells), len(certs)))
    by_key = {(c.attrs.get("data-variant"), c.attrs.get("data-dtype")): c for c in cells}
    for variant, dtype, verdict, profile, cases, elements in certs:
        c = by_key.get((variant, dtype))
        expect(c is not None, "no matrix cell for %s %s" % (variant, dtype))
        if c is None:
            continue
        shown = [s.text() for s in c.find_all("span", "verdict")]
        expect(shown == [verdict], "%s %s: cell says %r, database %r" % (variant, dtype, shown, verdict))
        expect(c.attrs.get("data-verdict") == verdict, "%s %s: data-verdict" % (variant, dtype))
        expect([s.text() for s in c.find_all("span", "profile")] == [profile],
               "%s %s: profile" % (variant, dtype))
        expect(c.attrs.get("data-cases") == str(cases) and c.attrs.get("data-elements") == str(elements),
               "%s %s: cases/elements %s/%s, database %d/%d" % (variant, dtype, c.attrs.get("data-cases"),
                                                                c.attrs.get("data-elements"), cases, elements))
        # The cell sits in the row of its variant and the column of its dtype.
        row = c.parent
        header = [th.text() for th in row.find_all("th")]
        expect(header == [variant], "%s %s: the cell is in row %r" % (variant, dtype, header))
        index = [x for x in row.children if x.tag in ("td", "th")].index(c)
        thead = [th.text() for th in tables[0].find_all("th") if th.parent.parent.tag == "thead"]
        expect(index < len(thead) and thead[index] == dtype,
               "%s %s: the cell is in column %r" % (variant, dtype, thead[index] if index < len(thead) else None))

    held = sum(1 for c in certs if c[2].startswith("CONFORMANT"))
    summary = list(root.find_all(id="claims-held"))
    expect(len(summary) == 1 and summary[0].attrs.get("data-held") == str(held)
           and summary[0].attrs.get("data-total") == str(len(certs))
           and summary[0].text() == "%d of %d claims hold" % (held, len(certs)),
           "claims held: %r" % ([s.text() for s in summary],))

    # Counts per class, in detail and in total.
    counts = db.execute("SELECT implementation, variant, dtype, class, elements, cases FROM counts"
                        " WHERE run_id = ?", (run_id,)).fetchall()
    table = list(root.find_all("table", id="counts"))
    rows = list(table[0].find_all("tr")) if table else []
    shown = {}
    for r in rows:
        if "data-class" not in r.attrs:
            continue
        key = (r.attrs["data-implementation"], r.attrs["data-variant"], r.attrs["data-dtype"],
               r.attrs["data-class"])
        e = [td.text() for td in r.find_all("td", "elements")]
        k = [td.text() for td in r.find_all("td", "cases")]
        shown[key] = (int(e[0]), int(k[0]))
    want = {(a, b, c, d): (e, f) for a, b, c, d, e, f in counts}
    expect(shown == want, "counts table differs from the database:\n  shown %r\n  db    %r" % (shown, want))
    totals = {}
    for a, b, c, d, e, f in counts:
        x = totals.setdefault(d, [0, 0])
        x[0] += e
        x[1] += f
    shown = {}
    for t in root.find_all("table", id="class-totals"):
        for r in t.find_all("tr"):
            if "data-class" in r.attrs:
                shown[r.attrs["data-class"]] = [int(next(r.find_all("td", "elements")).text()),
                                                int(next(r.find_all("td", "cases")).text())]
    expect(shown == totals, "class totals %r, database %r" % (shown, totals))

    # Findings: one article per signature the run saw.
    sigs = {row[0]: row[1] for row in db.execute(
        "SELECT g.signature_id, g.occurrences FROM signature_runs g WHERE g.run_id = ?", (run_id,))}
    arts = {int(a.attrs["data-signature"]): a for a in root.find_all("article", "finding")}
    expect(set(arts) == set(sigs), "findings %r, database %r" % (sorted(arts), sorted(sigs)))
    for sig, art in arts.items():
        expect(art.attrs.get("data-occurrences") == str(sigs.get(sig)), "signature %d occurrences" % sig)
        for div in art.find_all("div", "reproducer"):
            rid = int(div.attrs["data-reproducer"])
            got = db.execute("SELECT signature_id FROM reproducers WHERE id = ?", (rid,)).fetchone()
            expect(got is not None and got[0] == sig, "reproducer %d is not of signature %d" % (rid, sig))
            pre = [p.text() for p in div.find_all("pre", "replay")]
            expect(pre == ["divergence replay --db %s repro:%d" % (shown_db, rid)],
                   "replay command %r" % (pre,))

    # ULP histograms: one figure per claim with wrong values, bars as stored.
    hist = {}
    for i, v, d, bucket, n in db.execute(
            "SELECT implementation, variant, dtype, bucket, elements FROM ulp_histograms WHERE run_id = ?",
            (run_id,)):
        hist.setdefault((i, v, d), {})[bucket] = n
    figs = {}
    for fig in root.find_all("figure", "ulp-histogram"):
        key = (fig.attrs["data-implementation"], fig.attrs["data-variant"], fig.attrs["data-dtype"])
        bars = {int(r.attrs["data-bucket"]): int(r.attrs["data-elements"])
                for r in fig.find_all("rect", "bar") if int(r.attrs["data-elements"])}
        figs[key] = bars
        expect(fig.attrs.get("data-total") == str(sum(bars.values())), "histogram total of %r" % (key,))
        expect(len(list(fig.find_all("svg"))) == 1, "histogram of %r is not one inline SVG" % (key,))
    expect(figs == hist, "histograms %r, database %r" % (figs, hist))
    expect(len(list(root.find_all("figure", id="operand-classes"))) == (1 if sigs else 0),
           "operand-class plot")

    for f in failures:
        print("check_html: " + f)
    print("check_html: %d cells, %d counts, %d findings, %d histograms checked; %d failures"
          % (len(cells), len(counts), len(arts), len(figs), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
