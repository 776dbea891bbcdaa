/* SPDX-License-Identifier: MIT */
/*
 * reports/report.h: reports of one run, for people and for CI.
 *
 *  - HTML: one self-contained page (no script, no network, no external
 *    asset; a Content-Security-Policy that forbids them) that reads
 *    top-down: the certificate matrix (variant x dtype, with profile), the
 *    bugs with their signatures beneath, each finding with its reproducers
 *    and replay command, counts per difference class, ULP-error histograms
 *    and the operand classes of findings as inline SVG, the coverage of
 *    each claim (folded), and the run's metadata (host, CPU features,
 *    plugin builds and hashes, seed, shards).
 *  - JUnit XML: one testsuite per implementation, one testcase per
 *    claimed (variant, dtype); a claim that does not hold is a <failure>
 *    carrying the class counts, reproducers and replay commands.
 *  - Markdown and JSON summaries of the same.
 *
 * Every string read from the store is escaped for its format
 * (reports/escape.h). `divergence report` is the command (cmd_report.c).
 */
#ifndef REPORTS_REPORT_H
#define REPORTS_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "harness/store/store.h"

typedef enum report_format {
    REPORT_HTML,
    REPORT_JUNIT,
    REPORT_MARKDOWN,
    REPORT_JSON
} report_format;

/* "html", "junit", "md" (or "markdown"), "json". 0, or -1 when unknown. */
int report_format_parse(const char *name, report_format *out);

/*
 * The newest run (highest id) that loaded a build of plugin `name` or
 * holds certificates, counts or findings of it; with `name` NULL, the
 * newest run of the database. 0 with *run_id, or -1 with the reason in
 * err ("no run of plugin X" / "the database holds no run").
 */
int report_latest_run(store *s, const char *name, int64_t *run_id, char *err, size_t errlen);

/*
 * Writes the report of run `run_id` in format `fmt` to `out`: only the
 * data of implementation `implementation` when it is not NULL. db_path:
 * the database path the replay commands name. Returns 0, or -1 with the
 * reason in err (no such run, the store failed, out of memory, a write
 * error on out).
 */
int report_write(store *s, const char *db_path, int64_t run_id, const char *implementation,
                 report_format fmt, FILE *out, char *err, size_t errlen);

/* The most runs one report of several runs shows. */
#define REPORT_MAX_RUNS 64

/*
 * The runs of `--latest-per-plugin`: for each implementation that has
 * certificates, its newest run that holds some (in the order the
 * implementations were first certified), then the newest run of kind
 * diff, if any. At most max into runs[], their number into *n. 0, or -1
 * with the reason in err (the store failed; none at all).
 */
int report_latest_runs(store *s, int64_t *runs, size_t max, size_t *n, char *err, size_t errlen);

/*
 * Writes one report of the n runs runs[] (1 <= n <= REPORT_MAX_RUNS) in
 * format fmt (HTML, Markdown or JSON; JUnit is refused), summary first
 * (reports/runs_model.h): the matrix of implementations x (variant,
 * dtype) with each certificate's verdict and counts (a later run's
 * certificate of a claim replaces an earlier one's), one row per hazard
 * class, plugin set and dtype with what each implementation gives on an
 * example, the departures by bug, every signature of the runs that
 * compare plugins (folded) and the command that renders each run's own
 * report.
 * Returns 0, or -1 with the reason in err.
 */
int report_write_runs(store *s, const char *db_path, const int64_t *runs, size_t n,
                      report_format fmt, FILE *out, char *err, size_t errlen);

#endif /* REPORTS_REPORT_H */
