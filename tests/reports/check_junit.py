# SPDX-License-Identifier: MIT
"""Reads a JUnit XML report back the way CI tools do (a standard XML
parser) and checks its counts against the database.

usage: check_junit.py REPORT.xml DB RUN_ID

One testcase per certificate of the run, a <failure> exactly for the
claims that do not hold, totals on <testsuites> and each <testsuite>, the
suite named after the plugin (name and version as text), each failure
naming the classes the database counts for its claim and carrying a
replay command of a reproducer of that claim.
"""
import sqlite3
import sys
import xml.etree.ElementTree as ET

failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)


def main():
    path, db_path, run_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
    root = ET.parse(path).getroot()
    db = sqlite3.connect(db_path)
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")
    certs = db.execute("SELECT implementation, variant, dtype, verdict FROM certificates"
                       " WHERE run_id = ?", (run_id,)).fetchall()
    want_fail = {(i, v, d): verdict for i, v, d, verdict in certs
                 if not verdict.startswith("CONFORMANT")}

    expect(root.tag == "testsuites", "root is <%s>" % root.tag)
    cases = root.findall("./testsuite/testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    expect(len(cases) == len(certs), "%d testcases, %d certificates" % (len(cases), len(certs)))
    expect(len(failed) == len(want_fail), "%d failures, %d claims that do not hold"
           % (len(failed), len(want_fail)))
    expect(root.get("tests") == str(len(cases)) and root.get("failures") == str(len(failed)),
           "testsuites totals %s/%s" % (root.get("tests"), root.get("failures")))
    for suite in root.findall("testsuite"):
        sc = suite.findall("testcase")
        sf = [c for c in sc if c.find("failure") is not None]
        expect(suite.get("tests") == str(len(sc)) and suite.get("failures") == str(len(sf)),
               "suite %r totals" % suite.get("name"))
        props = {p.get("name"): p.get("value") for p in suite.findall("./properties/property")}
        expect(props.get("run") == str(run_id), "property run = %r" % props.get("run"))

    builds = db.execute("SELECT b.name, b.version FROM run_plugins p JOIN plugin_builds b"
                        " ON b.id = p.plugin_build_id WHERE p.run_id = ?", (run_id,)).fetchall()
    names = {s.get("name") for s in root.findall("testsuite")}
    for name, version in builds:
        expect("%s %s" % (name, version) in names, "no suite named %r (got %r)" % (name, names))

    for c in cases:
        impl = c.get("classname")[len("divergence."):]
        variant, dtype = c.get("name").split(" ")[:2]
        key = (impl, variant, dtype)
        f = c.find("failure")
        expect(key in {k[:3] for k in certs}, "testcase %r is no certificate" % (key,))
        if key not in want_fail:
            expect(f is None, "%r holds but has a failure" % (key,))
            continue
        expect(f is not None, "%r does not hold but has no failure" % (key,))
        if f is None:
            continue
        expect(f.get("type") == want_fail[key], "%r: failure type %r" % (key, f.get("type")))
        classes = db.execute("SELECT class, elements FROM counts WHERE run_id = ? AND implementation = ?"
                             " AND variant = ? AND dtype = ? AND class <> 'match'",
                             (run_id, impl, variant, dtype)).fetchall()
        for cls, n in classes:
            expect("%s %d" % (cls, n) in f.get("message"), "%r: message %r lacks %s %d"
                   % (key, f.get("message"), cls, n))
            expect("%s: %d elements" % (cls, n) in (f.text or ""), "%r: text lacks %s" % (key, cls))
        repro = db.execute("SELECT min(r.id) FROM reproducers r JOIN signatures s ON s.id = r.signature_id"
                           " WHERE s.implementation = ? AND s.variant = ? AND s.dtype = ?",
                           (impl, variant, dtype)).fetchone()[0]
        if repro is not None:
            expect("divergence replay --db " in (f.text or ""), "%r: no replay command" % (key,))

    for m in failures:
        print("check_junit: " + m)
    print("check_junit: %d testcases, %d failures checked; %d problems" % (len(cases), len(failed), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
