# SPDX-License-Identifier: MIT
"""Checks the page of several runs (divergence report --runs / --latest-per-plugin)
against the database, in each of its three forms.

usage: check_runs.py dom|md|json FILE DB DB_PATH_IN_REPORT RUN_ID...|latest

FILE is the DOM Chromium dumped from the HTML page (dom), the Markdown
page (md) or the JSON (json); RUN_ID... the runs the page was made of, in
the order given to --runs, or `latest`: the runs --latest-per-plugin takes.

Asserts, from the tables the report reads (runs, certificates,
signature_runs, signatures, reproducers, run_plugins):
- the matrix: one table per variant (open), a row per dtype and one
  column per implementation certified in those runs (it fits 1280 px),
  each cell the verdict and case count of
  the certificate of the latest run (highest id) that has one, with that
  run's id; "-" where none has; the cell's class is its verdict's kind;
- the hazards (where the specs leave room): one row per (hazard class,
  plugin set, variant family) of the signatures the runs that compare
  plugins saw (each signature once), with the variants and dtypes it
  spans, its number of signatures, and its example (its lowest
  signature): its pair and the operands of its one-element reproducer,
  the expected value, what each implementation gave there ("-" for one
  outside the set) and the command that replays it;
- the departures: one row per bug of those runs' departing signatures (a
  signature in no bug: per implementation and class), with its class,
  kind, locus, number of signatures, variants, dtypes and the replay
  command of its lowest signature;
- every signature: one row per finding the runs that compare plugins saw,
  with its plugin set, pair, class, operand classes, expected value, what
  each plugin of the set gave (the first reproducer's actual, naming every
  plugin), its signature and the command that replays that reproducer, as
  a hazard row when the class is a hazard class, folded (inside a
  <details>) in HTML;
- the runs: each run's kind and status, and the command that renders its
  own report, with the database path as the shell word it is;
- the order a person reads: matrix, hazards, departures, every signature,
  runs;
- (dom) nothing active: no script, no event handler, no external
  reference (check_html.inert_failures); the number of table rows outside
  <details> is printed ("visible rows: N").
Prints one line per failure; exit 1 on any.
"""
import json
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_html import Builder, inert_failures  # noqa: E402  (one DOM parser)

# docs/diff.md: the classes of a portability hazard; any other class of a
# diff finding is a departure (the judge's class).
HAZARDS = {"int-div-zero", "int-min-neg-one", "float-div-zero-undefined",
           "unsigned-inf-sign", "nan-sign-or-payload", "declared-deviation"}

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def verdict_kind(verdict):
    """reports/model.c report_verdict_kind."""
    if verdict == "CONFORMANT":
        return "conformant"
    if verdict.startswith("CONFORMANT"):
        return "conformant-profile"
    return {"NONCONFORMANT": "nonconformant", "CRASHED": "crashed",
            "UNSUPPORTED": "unsupported"}.get(verdict, "other")


def shell_word(text):
    """reports/escape.c esc_shell_word."""
    if text and re.fullmatch(r"[A-Za-z0-9_./:=@%+,-]+", text):
        return text
    return "'" + text.replace("'", "'\\''") + "'"


def family(variant):
    """reports/runs_model.c runs_variant_family: the name without "-N"."""
    return re.sub(r"(?<=.)-[0-9]+$", "", variant)


def given_cell(given, plugin_set, name):
    """What NAME gave in the text "n1: v1; n2: v2" of a set's reproducer
    (reports/runs_model.c runs_given_cell): "-" outside the set."""
    names = plugin_set.split("|")
    if name not in names:
        return "-"
    at = given
    for k, n in enumerate(names):
        if not at.startswith(n + ": "):
            return "?"
        value = at[len(n) + 2:]
        end = len(value)
        if k + 1 < len(names):
            i = value.find("; " + names[k + 1] + ": ")
            end = i if i >= 0 else end
        if n == name:
            return value[:end]
        at = value[end + 2:]
    return "?"


def operand_words(db, sig, rid):
    """The hex values of the operands of a one-element first reproducer,
    or None when it is not one element."""
    row = db.execute("SELECT s.dtype, r.a, r.b FROM reproducers r JOIN signatures s"
                     " ON s.id = r.signature_id WHERE r.signature_id = ?"
                     " ORDER BY r.run_id = ? DESC, r.id LIMIT 1", (sig, rid)).fetchone()
    if not row:
        return None
    dtype, a, b = row
    bits = {"i4": 4, "u4": 4}.get(dtype, len(a) * 8)
    if len(a) != len(b) or len(a) != max(1, bits // 8):
        return None
    mask = (1 << bits) - 1
    return [int.from_bytes(a, "little") & mask, int.from_bytes(b, "little") & mask]


class Facts:
    """What the database holds for the runs of the page."""

    def __init__(self, db, runs, shown_db):
        self.runs = runs
        self.run = {}
        for rid in runs:
            row = db.execute("SELECT kind, status FROM runs WHERE id = ?", (rid,)).fetchone()
            expect(row is not None, "run %d is not in the database" % rid)
            self.run[rid] = row or ("?", "?")
        q = ",".join("?" * len(runs))
        self.certs = db.execute(
            "SELECT run_id, implementation, variant, dtype, verdict, cases, elements"
            " FROM certificates WHERE run_id IN (%s)" % q, runs).fetchall()
        # The matrix: the latest run's certificate of each claim.
        self.cells = {}
        for rid, impl, variant, dtype, verdict, cases, _ in self.certs:
            old = self.cells.get((impl, variant, dtype))
            if old is None or rid > old[0]:
                self.cells[(impl, variant, dtype)] = (rid, verdict, cases)
        self.impls = {k[0] for k in self.cells}
        self.cols = {(k[1], k[2]) for k in self.cells}
        # The findings of the runs that compare plugins (diff runs, and
        # differential fuzz runs: a finding of a plugin set "a|b"), each
        # with its first reproducer.
        self.findings = []
        for rid in runs:
            sets = db.execute(
                "SELECT count(*) FROM signature_runs g JOIN signatures s"
                " ON s.id = g.signature_id WHERE g.run_id = ? AND instr(s.implementation, '|')",
                (rid,)).fetchone()[0]
            if self.run[rid][0] != "diff" and not sets:
                continue
            for sig, impl, variant, dtype, cls, operands in db.execute(
                    "SELECT s.id, s.implementation, s.variant, s.dtype, s.class, s.operand_class"
                    " FROM signature_runs g JOIN signatures s ON s.id = g.signature_id"
                    " WHERE g.run_id = ?", (rid,)):
                rep = db.execute(
                    "SELECT expected, actual, id FROM reproducers WHERE signature_id = ?"
                    " ORDER BY run_id = ? DESC, id LIMIT 1", (sig, rid)).fetchone()
                expect(rep is not None, "sig:%d has no reproducer" % sig)
                expected, given, repro = rep if rep else ("", "", None)
                replay = ("divergence replay --db %s repro:%d" % (shell_word(shown_db), repro)
                          if repro is not None else "")
                self.findings.append((rid, impl, variant, dtype, cls, operands, expected or "",
                                      given or "", sig, replay))
                if cls in HAZARDS:
                    for p in impl.split("|"):
                        expect(re.search(r"(^|; )%s: [^;]" % re.escape(p), given or ""),
                               "sig:%d: what each gives %r does not name %s" % (sig, given, p))
        # Each signature once (its latest run), grouped: hazards by (class,
        # plugin set, dtype), departures by bug.
        latest = {}
        for f in self.findings:
            if f[8] not in latest or f[0] > latest[f[8]][0]:
                latest[f[8]] = f
        self.hazard_rows, self.departure_rows = {}, {}
        for f in sorted(latest.values(), key=lambda f: f[8]):
            rid, impl, variant, dtype, cls, operands, expected, given, sig, replay = f
            if cls in HAZARDS:
                row = self.hazard_rows.setdefault((cls, impl, family(variant)), {
                    "n": 0, "variants": set(), "dtypes": set(), "example": f,
                    "operands": operand_words(db, sig, rid)})
                row["dtypes"].add(dtype)
            else:
                bug = db.execute("SELECT bug_id FROM signatures WHERE id = ?", (sig,)).fetchone()[0]
                info = db.execute("SELECT class, kind, locus FROM bugs WHERE id = ?",
                                  (bug,)).fetchone() if bug else None
                key = (impl, str(bug)) if info else (impl, "-", cls)
                row = self.departure_rows.setdefault(key, {
                    "n": 0, "variants": set(), "dtypes": set(), "example": f,
                    "class": info[0] if info else cls, "kind": info[1] if info else "",
                    "locus": info[2] if info else ""})
                row["dtypes"].add(dtype)
            row["n"] += 1
            row["variants"].add(variant)

        # The implementations of each run (reports/model.c report_implementations).
        self.run_impls = {}
        for rid in runs:
            names = set()
            for sql in ("SELECT b.name FROM run_plugins p JOIN plugin_builds b"
                        " ON b.id = p.plugin_build_id WHERE p.run_id = ?",
                        "SELECT implementation FROM certificates WHERE run_id = ?",
                        "SELECT implementation FROM counts WHERE run_id = ?",
                        "SELECT s.implementation FROM signature_runs g JOIN signatures s"
                        " ON s.id = g.signature_id WHERE g.run_id = ?"):
                names.update(r[0] for r in db.execute(sql, (rid,)))
            self.run_impls[rid] = names
        n_hazards = sum(1 for f in self.findings if f[4] in HAZARDS)
        self.summary = "%d matrix cells, %d diff findings (%d hazards), %d runs" % (
            len(self.cells), len(self.findings), n_hazards, len(runs))

    def command(self, shown_db, rid):
        return "divergence report --db %s --run %d --format html" % (shell_word(shown_db), rid)


def in_details(n):
    n = n.parent
    while n is not None:
        if n.tag == "details":
            return True
        n = n.parent
    return False


visible_rows = None


def split_header(th):
    """The text of a column header <th>VARIANT<br>DTYPE</th>: (variant, dtype)."""
    parts, cur = [], []
    for p in th.parts:
        if isinstance(p, str):
            cur.append(p)
        elif p.tag == "br":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(p.text())
    parts.append("".join(cur))
    return tuple(parts)


def cells_of(tr):
    return [x for x in tr.children if x.tag in ("td", "th")]


def table_of(root, section):
    sec = list(root.find_all("section", id=section))
    expect(len(sec) == 1, "one section #%s, got %d" % (section, len(sec)))
    tables = list(sec[0].find_all("table")) if sec else []
    expect(len(tables) == 1, "one table in #%s, got %d" % (section, len(tables)))
    return list(tables[0].find_all("tr")) if tables else []


def check_dom(path, facts, shown_db):
    b = Builder()
    with open(path, encoding="utf-8") as f:
        b.feed(f.read())
    root = b.root
    failures.extend(inert_failures(root))

    # The matrix: claims down, implementations across, one table per
    # variant (details.variant, open), each row a dtype.
    sec = list(root.find_all("section", id="matrix"))
    expect(len(sec) == 1, "one section #matrix, got %d" % len(sec))
    groups = list(sec[0].find_all("details", "variant")) if sec else []
    shown_cols = []
    shown_impls = None
    n_cells = 0
    for g in groups:
        expect("open" in g.attrs, "matrix: variant %r folded" % g.attrs.get("data-variant"))
        variant = g.attrs.get("data-variant")
        tables = list(g.find_all("table"))
        expect(len(tables) == 1, "matrix %s: %d tables" % (variant, len(tables)))
        rows = list(tables[0].find_all("tr")) if tables else []
        header = [th.text() for th in cells_of(rows[0])[1:]] if rows else []
        if shown_impls is None:
            shown_impls = header
        expect(header == shown_impls, "matrix %s: columns %r, %r before" % (variant, header, shown_impls))
        for tr in rows[1:]:
            cells = cells_of(tr)
            dtype = cells[0].text()
            shown_cols.append((variant, dtype))
            expect(len(cells) == len(header) + 1, "%s %s: %d cells" % (variant, dtype, len(cells) - 1))
            for impl, td in zip(header, cells[1:]):
                want = facts.cells.get((impl, variant, dtype))
                where = "%s %s %s" % (impl, variant, dtype)
                if want is None:
                    expect(td.text() == "-" and "v-none" in td.attrs.get("class", ""),
                           "%s: no certificate, the cell says %r" % (where, td.text()))
                    continue
                rid, verdict, cases = want
                n_cells += 1
                shown = [s.text() for s in td.find_all("span", "verdict")]
                expect(shown == [verdict], "%s: verdict %r, database %r" % (where, shown, verdict))
                counts = [s.text() for s in td.find_all("span", "profile")]
                expect(counts == ["%d cases, run %d" % (cases, rid)],
                       "%s: %r, database %d cases in run %d" % (where, counts, cases, rid))
                expect(td.attrs.get("class", "").split() == ["v-" + verdict_kind(verdict)],
                       "%s: class %r for %r" % (where, td.attrs.get("class"), verdict))
    expect(set(shown_cols) == facts.cols and len(shown_cols) == len(facts.cols),
           "matrix claims %r, database %r" % (shown_cols, sorted(facts.cols)))
    expect(sorted(shown_impls or []) == sorted(facts.impls),
           "matrix columns %r, database %r" % (shown_impls, sorted(facts.impls)))
    expect(len(shown_impls or []) <= 12, "matrix: %d columns, a 1280 px screen holds about 12"
           % len(shown_impls or []))
    expect(n_cells == len(facts.cells), "%d certificate cells, database %d" % (n_cells, len(facts.cells)))

    # The order a person reads.
    ids = [n.attrs.get("id") for n in root.walk() if n.tag == "section"]
    want_order = ["matrix", "hazards", "departures", "signatures", "runs-list"]
    expect([i for i in ids if i in want_order] == want_order, "sections in order %r" % ids)

    # The hazards: one row per (class, plugin set, dtype).
    rows = table_of(root, "hazards")
    head = [th.text() for th in cells_of(rows[0])] if rows else []
    given_names = head[6:-1]
    expect(head[:6] == ["hazard class", "variants", "dtypes", "signatures", "example", "expected"]
           and head[-1:] == ["reproducer"], "hazard table header %r" % head)
    shown = {}
    for tr in rows[1:]:
        t = [td.text() for td in cells_of(tr)]
        if len(t) == 1 and t[0].startswith("No "):
            continue
        expect(tr.attrs.get("class") == "hazard-row", "hazard table row class %r" % tr.attrs)
        if len(t) != len(head):
            failures.append("hazard row of %d cells: %r" % (len(t), t))
            continue
        key = (t[0], tr.attrs.get("data-set"), tr.attrs.get("data-family"))
        shown[key] = (tr, t)
    expect(set(shown) == set(facts.hazard_rows),
           "hazard rows differ:\n  shown %r\n  db    %r" % (sorted(shown), sorted(facts.hazard_rows)))
    for key, (tr, t) in shown.items():
        want = facts.hazard_rows.get(key)
        if not want:
            continue
        ex = want["example"]
        expect(t[3] == str(want["n"]), "%r: %s signatures, database %d" % (key, t[3], want["n"]))
        expect(set(t[1].split(", ")) == want["variants"],
               "%r: variants %r, database %r" % (key, t[1], sorted(want["variants"])))
        expect(set(t[2].split(", ")) == want["dtypes"],
               "%r: dtypes %r, database %r" % (key, t[2], sorted(want["dtypes"])))
        expect(t[4].startswith("%s %s: " % (ex[2], ex[3])),
               "%r: example %r, database %s %s" % (key, t[4], ex[2], ex[3]))
        expect(tr.attrs.get("data-signature") == str(ex[8]),
               "%r: example sig:%s, database sig:%d" % (key, tr.attrs.get("data-signature"), ex[8]))
        expect(t[5] == ex[6], "%r: expected %r, database %r" % (key, t[5], ex[6]))
        for name, cell in zip(given_names, t[6:-1]):
            w = given_cell(ex[7], key[1], name)
            expect(cell == w, "%r: %s gives %r, database %r" % (key, name, cell, w))
        expect(set(key[1].split("|")) <= set(given_names),
               "%r: a plugin of the set has no column (%r)" % (key, given_names))
        if want["operands"] is not None:
            got = [int(x, 16) for x in re.findall(r"0x([0-9a-f]+)", t[4])]
            expect(got == want["operands"], "%r: operands %r, database %r" % (key, t[4], want["operands"]))
        expect(t[-1] == ex[9], "%r: replay %r, database %r" % (key, t[-1], ex[9]))

    # The departures: one row per bug.
    rows = table_of(root, "departures")
    shown = {}
    for tr in rows[1:]:
        t = [td.text() for td in cells_of(tr)]
        if len(t) == 1 and t[0].startswith("No "):
            continue
        if len(t) != 10:
            failures.append("departure row of %d cells: %r" % (len(t), t))
            continue
        shown[(t[0], t[1]) if t[1] != "-" else (t[0], "-", t[2])] = t
    expect(set(shown) == set(facts.departure_rows),
           "departure rows differ:\n  shown %r\n  db    %r"
           % (sorted(shown), sorted(facts.departure_rows)))
    for key, t in shown.items():
        want = facts.departure_rows.get(key)
        if want:
            got = (t[2], t[3], t[4], t[5], set(t[6].split(", ")), set(t[7].split(", ")), t[9])
            exp = (want["class"], want["kind"], want["locus"], str(want["n"]), want["variants"],
                   want["dtypes"], want["example"][9])
            expect(got == exp, "departure %r: %r, database %r" % (key, got, exp))

    # Every signature, folded.
    sec = list(root.find_all("section", id="signatures"))
    expect(sec and list(sec[0].find_all("details")), "the signatures are not folded")
    rows = table_of(root, "signatures")
    shown = []
    for tr in rows[1:]:
        t = [td.text() for td in cells_of(tr)]
        if len(t) != 10:
            failures.append("hazard table row of %d cells: %r" % (len(t), t))
            continue
        sig = int(t[8][4:]) if t[8].startswith("sig:") and t[8][4:].isdigit() else -1
        code = [c.text() for c in cells_of(tr)[9].find_all("code", "replay")]
        expect(code == [t[9]], "sig:%d: the reproducer cell is not one <code>: %r" % (sig, code))
        shown.append((int(t[0]), t[1], t[2], t[3], t[4], t[5], t[6], t[7], sig, t[9]))
        want_cls = "hazard" if t[4] in HAZARDS else "departure"
        expect(tr.attrs.get("class") == want_cls,
               "sig:%d (%s): row class %r, want %r" % (sig, t[4], tr.attrs.get("class"), want_cls))
    expect(sorted(shown) == sorted(facts.findings),
           "hazard table differs from the database:\n  shown %r\n  db    %r"
           % (sorted(shown), sorted(facts.findings)))

    # Each run with the command that renders its own report.
    global visible_rows
    visible_rows = sum(1 for n in root.walk() if n.tag == "tr" and not in_details(n))
    rows = table_of(root, "runs-list")
    shown = {}
    for tr in rows[1:]:
        t = cells_of(tr)
        code = [c.text() for c in t[4].find_all("code")] if len(t) == 5 else []
        shown[int(t[0].text())] = (t[1].text(), t[2].text(),
                                   set(t[3].text().split(", ")) - {""}, code)
    want = {rid: (facts.run[rid][0], facts.run[rid][1], facts.run_impls[rid],
                  [facts.command(shown_db, rid)]) for rid in facts.runs}
    expect(shown == want, "runs table %r, database %r" % (shown, want))
    expect(len(rows) - 1 == len(facts.runs), "%d rows in the runs table" % (len(rows) - 1))
    summary = list(root.find_all("p", id="runs"))
    expect(len(summary) == 1 and summary[0].attrs.get("data-runs") == str(len(facts.runs))
           and summary[0].text() == "%d runs, %d implementations certified"
           % (len(facts.runs), len(facts.impls)),
           "summary %r" % ([s.text() for s in summary],))


def md_cells(line):
    """The cells of a Markdown table row, unescaped (reports/escape.c esc_md)."""
    cells, cur, i = [], [], 1
    while i < len(line):
        c = line[i]
        if c == "\\" and i + 1 < len(line):
            cur.append(line[i + 1])
            i += 2
            continue
        if c == "|":
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    return [x.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") for x in cells]


def md_table(lines, heading):
    """The rows of the first table after HEADING, header row first."""
    try:
        at = lines.index(heading)
    except ValueError:
        failures.append("no %r" % heading)
        return []
    rows = []
    for line in lines[at + 1:]:
        if line.startswith("## "):
            break
        if line.startswith("| ") and not line.startswith("| ---"):
            rows.append(md_cells(line))
    return rows


def check_md(path, facts, shown_db):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    # one table per variant ("### VARIANT"), claims down, implementations across
    shown_cols, shown_impls, n_cells = [], None, 0
    variant = None
    in_matrix = False
    for ln in lines:
        if ln.startswith("## "):
            in_matrix = ln.startswith("## Certificates")
            continue
        if not in_matrix:
            continue
        if ln.startswith("### "):
            variant = ln[4:].strip()
            header = None
            continue
        if not ln.startswith("| ") or ln.startswith("| ---"):
            continue
        r = md_cells(ln)
        if header is None:
            header = r[1:]
            if shown_impls is None:
                shown_impls = header
            expect(header == shown_impls, "md: %s: columns %r" % (variant, header))
            continue
        dtype = r[0]
        shown_cols.append((variant, dtype))
        expect(len(r) == len(header) + 1, "md: %s %s: %d cells" % (variant, dtype, len(r) - 1))
        for impl, cell in zip(header, r[1:]):
            want = facts.cells.get((impl, variant, dtype))
            if want is None:
                expect(cell == "-", "md: %s %s %s: no certificate, %r" % (impl, variant, dtype, cell))
                continue
            n_cells += 1
            rid, verdict, cases = want
            text = "%s (%d cases, run %d)" % (verdict, cases, rid)
            expect(cell == text, "md: %s %s %s: %r, database %r" % (impl, variant, dtype, cell, text))
    expect(set(shown_cols) == facts.cols and len(shown_cols) == len(facts.cols),
           "md: matrix claims %r, database %r" % (shown_cols, sorted(facts.cols)))
    expect(sorted(shown_impls or []) == sorted(facts.impls),
           "md: matrix columns %r, database %r" % (shown_impls, sorted(facts.impls)))
    expect(n_cells == len(facts.cells), "md: %d cells, database %d" % (n_cells, len(facts.cells)))

    heads = [ln for ln in lines if ln.startswith("## ")]
    want_order = ["## Certificates", "## Where the specs leave room",
                  "## Departures from the oracle, by bug", "## Every signature", "## Runs"]
    expect(heads == want_order, "md: headings %r" % heads)
    rows = md_table(lines, "## Where the specs leave room")
    head = rows[0] if rows else []
    names = head[6:-1]
    shown = {}
    for r in rows[1:]:
        if len(r) != len(head):
            failures.append("md: hazard row %r" % (r,))
            continue
        members = frozenset(n for n, c in zip(names, r[6:-1]) if c != "-")
        shown[(r[0], members, family(r[1].split(", ")[0]))] = r
    want = {(k[0], frozenset(k[1].split("|")), k[2]): v for k, v in facts.hazard_rows.items()}
    expect(set(shown) == set(want), "md: hazard rows differ:\n  shown %r\n  db    %r"
           % (sorted(shown), sorted(want)))
    for key, r in shown.items():
        w = want.get(key)
        if not w:
            continue
        ex = w["example"]
        got = (r[3], set(r[1].split(", ")), set(r[2].split(", ")), r[5], r[-1],
               [c for c in r[6:-1]], r[4].split(": ")[0])
        exp = (str(w["n"]), w["variants"], w["dtypes"], ex[6], ex[9],
               [given_cell(ex[7], ex[1], n) for n in names], "%s %s" % (ex[2], ex[3]))
        expect(got == exp, "md: hazard %r: %r, database %r" % (key, got, exp))
    rows = md_table(lines, "## Departures from the oracle, by bug")
    shown = {}
    for r in rows[1:]:
        if len(r) != 10:
            failures.append("md: departure row %r" % (r,))
            continue
        shown[(r[0], r[1]) if r[1] != "-" else (r[0], "-", r[2])] = r
    expect(set(shown) == set(facts.departure_rows), "md: departure rows differ:\n  shown %r\n  db    %r"
           % (sorted(shown), sorted(facts.departure_rows)))
    for key, r in shown.items():
        w = facts.departure_rows.get(key)
        if w:
            got = (r[2], r[5], set(r[6].split(", ")), set(r[7].split(", ")), r[9])
            exp = (w["class"], str(w["n"]), w["variants"], w["dtypes"], w["example"][9])
            expect(got == exp, "md: departure %r: %r, database %r" % (key, got, exp))
    rows = md_table(lines, "## Every signature")
    shown = []
    for r in rows[1:]:
        if len(r) != 9 or not r[7].startswith("sig:"):
            failures.append("md: signature row %r" % (r,))
            continue
        shown.append((int(r[0]), r[1], r[2], r[3], r[4], r[5], r[6], int(r[7][4:]), r[8]))
    want = [f[:6] + f[7:] for f in facts.findings]  # no expected column
    expect(sorted(shown) == sorted(want),
           "md: signatures differ:\n  shown %r\n  db    %r" % (sorted(shown), sorted(want)))

    shown = [ln for ln in lines if ln.startswith("- run ")]
    want = ["- run %d (%s): `%s`" % (rid, facts.run[rid][0], facts.command(shown_db, rid))
            for rid in facts.runs]
    expect(shown == want, "md: runs %r, database %r" % (shown, want))


def check_json(path, facts, shown_db):
    with open(path, encoding="utf-8") as f:
        d = json.load(f)
    runs = [(r["id"], r["kind"], r["status"]) for r in d["runs"]]
    want = [(rid,) + tuple(facts.run[rid]) for rid in facts.runs]
    expect(runs == want, "json: runs %r, database %r" % (runs, want))
    certs = sorted((c["run"], c["implementation"], c["variant"], c["dtype"], c["verdict"], c["cases"],
                    c["elements"]) for c in d["certificates"])
    expect(certs == sorted(facts.certs),
           "json: certificates differ:\n  shown %r\n  db    %r" % (certs, sorted(facts.certs)))
    keys = list(d)
    expect(keys == ["certificates", "hazards", "departures", "diff", "runs"], "json: keys %r" % keys)
    shown = {}
    for x in d["hazards"]:
        ex = x["example"]
        shown[(x["class"], x["implementations"], x["family"])] = (
            x["signatures"], len(x["signature_ids"]), set(x["variants"].split(", ")),
            set(x["dtypes"].split(", ")), ex["signature"], ex["variant"], ex["dtype"],
            ex["expected"], ex["given"], ex["replay"])
    want = {}
    for k, w in facts.hazard_rows.items():
        ex = w["example"]
        want[k] = (w["n"], w["n"], w["variants"], w["dtypes"], ex[8], ex[2], ex[3], ex[6],
                   {n: given_cell(ex[7], k[1], n) for n in k[1].split("|")}, ex[9])
    expect(shown == want, "json: hazards differ:\n  shown %r\n  db    %r" % (shown, want))
    shown = {}
    for x in d["departures"]:
        key = (x["implementation"], str(x["bug"])) if x["bug"] is not None else \
            (x["implementation"], "-", x["class"])
        shown[key] = (x["class"], x["kind"], x["locus"], x["signatures"], set(x["variants"].split(", ")),
                      set(x["dtypes"].split(", ")), x["replay"])
    want = {k: (w["class"], w["kind"], w["locus"], w["n"], w["variants"], w["dtypes"], w["example"][9])
            for k, w in facts.departure_rows.items()}
    expect(shown == want, "json: departures differ:\n  shown %r\n  db    %r" % (shown, want))
    shown = []
    for x in d["diff"]:
        expect(x["hazard"] == (x["class"] in HAZARDS),
               "json: sig:%d (%s) hazard %r" % (x["signature"], x["class"], x["hazard"]))
        shown.append((x["run"], x["implementation"], x["variant"], x["dtype"], x["class"],
                      x["operand_class"], x["given"], x["signature"], x["replay"]))
    want = [f[:6] + f[7:] for f in facts.findings]
    expect(sorted(shown) == sorted(want),
           "json: diff differs:\n  shown %r\n  db    %r" % (sorted(shown), sorted(want)))


def latest_runs(db):
    """--latest-per-plugin's runs: the newest run with certificates of each
    implementation (in the order of their first certificate), then the
    newest diff run (docs/diff.md)."""
    runs = [r[0] for r in db.execute("SELECT max(run_id) FROM certificates GROUP BY implementation"
                                     " ORDER BY min(run_id)")]
    last = db.execute("SELECT max(id) FROM runs WHERE kind = 'diff'").fetchone()[0]
    if last is not None and last not in runs:
        runs.append(last)
    return runs


def main():
    if len(sys.argv) < 6 or sys.argv[1] not in ("dom", "md", "json"):
        print(__doc__)
        return 2
    form, path, db_path, shown_db = sys.argv[1:5]
    db = sqlite3.connect(db_path)
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")
    if sys.argv[5:] == ["latest"]:
        runs = latest_runs(db)
    else:
        runs = [int(x) for x in sys.argv[5:]]
    facts = Facts(db, runs, shown_db)
    {"dom": check_dom, "md": check_md, "json": check_json}[form](path, facts, shown_db)
    for f in failures:
        print("check_runs %s: %s" % (form, f))
    if visible_rows is not None:
        print("check_runs %s: visible rows: %d" % (form, visible_rows))
    print("check_runs %s: %s checked; %d failures" % (form, facts.summary, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
