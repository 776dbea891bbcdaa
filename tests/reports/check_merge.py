# SPDX-License-Identifier: MIT
"""Compares what one run holds in two databases.

usage: check_merge.py DB_A RUN_A DB_B RUN_B [--run-only | --keys]

Counts, certificates, ULP histograms, the signatures the run saw (by key:
occurrences in the run and in all, reproducers stored and dropped) and the
reproducers of those signatures (case, element, expected, actual, operand
bytes) must be equal. Run and signature ids may differ. --run-only: B
holds other runs too, so only what belongs to the run is compared (not
the signatures' totals, status and stored reproducers). --keys: as
--run-only, the signatures by their key alone (a fuzz campaign's shards
record a signature once per shard, not once per campaign).
"""
import sqlite3
import sys


def load(path, run, run_only, keys=False):
    db = sqlite3.connect(path)
    db.text_factory = lambda raw: raw.decode("utf-8", "replace")
    q = lambda sql: sorted(db.execute(sql, (run,)).fetchall(), key=repr)  # noqa: E731
    tables = {
        "counts": q("SELECT implementation, variant, dtype, class, elements, cases FROM counts"
                    " WHERE run_id = ?"),
        "certificates": q("SELECT implementation, variant, dtype, verdict, profile, cases, elements"
                          " FROM certificates WHERE run_id = ?"),
        "ulp_histograms": q("SELECT implementation, variant, dtype, bucket, elements"
                            " FROM ulp_histograms WHERE run_id = ?"),
        "signatures": q("SELECT s.implementation, s.variant, s.dtype, s.class, s.operand_class"
                        + ("" if keys else ", g.occurrences") + ("" if run_only else
                        ", s.occurrences, s.reproducers_dropped, s.status,"
                        " (SELECT count(*) FROM reproducers r WHERE r.signature_id = s.id)") +
                        " FROM signature_runs g JOIN signatures s ON s.id = g.signature_id"
                        " WHERE g.run_id = ?"),
        "reproducers": q("SELECT s.implementation, s.variant, s.dtype, s.class, s.operand_class,"
                         " r.case_id, r.element, r.expected, r.actual, r.ulps, hex(r.a), hex(r.b),"
                         " r.attrs FROM reproducers r JOIN signatures s ON s.id = r.signature_id"
                         " WHERE r.run_id = ?"),
    }
    if run_only:
        del tables["reproducers"]
    return tables


def main():
    keys = "--keys" in sys.argv[5:]
    run_only = keys or "--run-only" in sys.argv[5:]
    a = load(sys.argv[1], int(sys.argv[2]), run_only, keys)
    b = load(sys.argv[3], int(sys.argv[4]), run_only, keys)
    problems = 0
    for table in a:
        if a[table] != b[table]:
            problems += 1
            only_a = [r for r in a[table] if r not in b[table]][:5]
            only_b = [r for r in b[table] if r not in a[table]][:5]
            print("check_merge: %s differ (%d vs %d rows)\n  only in A: %r\n  only in B: %r"
                  % (table, len(a[table]), len(b[table]), only_a, only_b))
    print("check_merge: %s; %d tables differ" % (
        ", ".join("%d %s" % (len(a[t]), t) for t in a), problems))
    if not a["counts"] or not a["signatures"]:
        print("check_merge: nothing to compare")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
