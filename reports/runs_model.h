/* SPDX-License-Identifier: MIT */
/*
 * reports/runs_model.h: what the page of several runs (`divergence report
 * --runs` / `--latest-per-plugin`, reports/report.h) shows, built once
 * from the run models (reports/model.h) and shared by its three writers
 * (report_runs.c: HTML, Markdown, JSON), in the order a person reads it:
 *
 *   1. the matrix of implementations x (variant, dtype), each cell the
 *      certificate of the latest run that has one;
 *   2. the hazards: one row per (hazard class, plugin set, variant
 *      family: onnx-div, openvino-divide, sonnx-div), the variants and
 *      dtypes it spans, its signatures, one example and what each
 *      implementation gives there;
 *   3. the departures from the oracle, one row per bug (docs/store.md,
 *      "bugs") with its signatures, variants, dtypes and one example;
 *   4. every signature of the runs that compare plugins, one row each
 *      (folded in HTML; JSON "diff");
 *   5. the runs, each with the command that renders its own report.
 *
 * Private to reports/. Every pointer points into the run models, which
 * must outlive the page; every string came from the database and is
 * escaped by the writers.
 */
#ifndef REPORTS_RUNS_MODEL_H
#define REPORTS_RUNS_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "harness/judge/verdict.h"
#include "reports/model.h"

/* Rows and columns of the matrix, at most this many each; the
 * implementations of the hazard table, at most this many. */
#define RUNS_MAX_AXIS 128

/* One finding of one run. */
typedef struct runs_finding {
    const report_model *m;
    const report_finding *f;
} runs_finding;

/* A row of the hazard table: the hazard signatures of one class, plugin
 * set and variant family (runs_variant_family), members[first .. first +
 * n) of runs_page.hazard_sigs; the first is the example (the lowest
 * signature id). */
typedef struct runs_hazard {
    const char *cls, *set;
    char family[64];
    size_t first, n;
} runs_hazard;

/* A row of the departures: the signatures of one bug (or, for a finding
 * the store put in no bug, of one implementation and class),
 * runs_page.departure_sigs[first .. first + n) by signature id; the first
 * is the example. bug: the bug's row in its run's model, NULL when none. */
typedef struct runs_departure {
    const report_bug *bug;
    const char *implementation, *cls;
    size_t first, n;
} runs_departure;

typedef struct runs_page {
    const report_model *const *m;  /* the runs, in the order given */
    size_t n;
    /* 1. the matrix */
    const char *rows[RUNS_MAX_AXIS];     /* implementations certified */
    size_t nr;
    const report_key *cols[RUNS_MAX_AXIS]; /* (variant, dtype), in order */
    size_t nc;
    /* 2. the hazards: the implementations of their plugin sets (the
     * matrix's order first), one column each */
    const char *given[RUNS_MAX_AXIS]; /* into given_names */
    size_t n_given;
    char given_names[RUNS_MAX_AXIS][256];
    runs_finding *hazard_sigs;     /* each signature once (its latest run) */
    size_t n_hazard_sigs;
    runs_hazard *hazards;
    size_t n_hazards;
    /* 3. the departures */
    runs_finding *departure_sigs;
    size_t n_departure_sigs;
    runs_departure *departures;
    size_t n_departures;
    /* 4. signatures seen only under emulation (report_finding.
     * emulation_only): no departure, a section of their own */
    size_t n_emulation_only;
} runs_page;

/* The cells of one row of the hazard or departure table, as text (the
 * writers escape them), in the table's column order, with the words they
 * are made of. Large (the per-implementation cells): one per writer. */
#define RUNS_ROW_MAX (RUNS_MAX_AXIS + 16)
typedef struct runs_row {
    const char *cell[RUNS_ROW_MAX];
    size_t n;
    char signatures[32], bug[32];
    char operands[2 * VERDICT_TEXT_MAX + 160];
    char variants[512], dtypes[256];
    char example[2 * VERDICT_TEXT_MAX + 4 * 128 + 600];
    char replay[4400];
    char given[RUNS_MAX_AXIS][2 * VERDICT_TEXT_MAX];
} runs_row;

/* The header of the hazard table: hazard class, variants, dtypes,
 * signatures, example ("variant dtype: a / b"), expected, one column per
 * implementation of p->given, reproducer. Writes the names to out (RUNS_ROW_MAX) and
 * returns how many. */
size_t runs_hazard_header(const runs_page *p, const char **out);

/* Hazard row h of the page: its cells in the header's order (what each
 * implementation gives on the example, "-" outside the set). */
void runs_hazard_row(const runs_page *p, size_t h, runs_row *r);

/* The header of the departure table (RUNS_DEPARTURE_COLUMNS names):
 * implementation, bug, class, kind, locus, signatures, variants, dtypes,
 * example, reproducer. */
#define RUNS_DEPARTURE_COLUMNS 10
extern const char *const runs_departure_header[RUNS_DEPARTURE_COLUMNS];

/* Departure row d of the page: its cells in the header's order; the bug
 * "-" for signatures in no bug; the example "variant dtype: operands,
 * expected X, got Y" or the note of a finding about a whole case. */
void runs_departure_row(const runs_page *p, size_t d, runs_row *r);

/* Builds the page of runs m[0 .. n). 0, or -1 out of memory (*p is then
 * empty). Free with runs_page_free. */
int runs_page_build(const report_model *const *m, size_t n, runs_page *p);

/* Frees what the page owns (not the models) and zeroes it. Accepts NULL. */
void runs_page_free(runs_page *p);

/* The certificate of (impl, column) in the latest of the runs (the
 * highest id, whatever the order of --runs) that has one, with its run's
 * id in *run; NULL when none. */
const report_cert *runs_cert_of(const runs_page *p, const char *impl, const report_key *col,
                                int64_t *run);

/* 1 when run m compares plugins: a diff run, or a differential fuzz (or
 * import) run, whose hazards are findings of a plugin set ("a|b"). */
int runs_compares_plugins(const report_model *m);

/* 1 when finding f is a portability hazard (its class is no judge class:
 * a hazard class of `divergence diff`), 0 when it is a departure. */
int runs_is_hazard(const report_finding *f);

/* What the finding's first reproducer recorded each plugin giving
 * ("name: value; name: value"), or "". */
const char *runs_given_text(const report_finding *f);

/* What plugin `name` gave in hazard finding f (the part of
 * runs_given_text that names it): its value's words, or how its run
 * ended; "-" when it is not in the finding's plugin set, "?" when the
 * recorded text does not name it. Writes buf (len bytes) and returns it. */
const char *runs_given_cell(const report_finding *f, const char *name, char *buf, size_t len);

/* The expected value of the finding's first reproducer, or "". */
const char *runs_expected_text(const report_finding *f);

/* The operands of the finding's example element: "0 (0x00000000) / 0
 * (0x00000000)" when its first reproducer is a case of one element, else
 * its operand classes ("zero/zero"), or "" for a finding about a whole
 * case. Writes buf (len bytes) and returns it. */
const char *runs_operands_text(const report_finding *f, char *buf, size_t len);

/* The family of variant `name`: its name without a trailing "-N"
 * version ("onnx-div-14": "onnx-div"; "sonnx-div" as it is). Writes buf
 * (len bytes) and returns it. */
const char *runs_variant_family(const char *name, char *buf, size_t len);

/* The distinct variants (what 'v') or dtypes ('d') of findings
 * s[0 .. n), in variant or dtype order, joined by ", ". Writes buf (len
 * bytes) and returns it. */
const char *runs_axis_text(const runs_finding *s, size_t n, char what, char *buf, size_t len);

/* The command that replays the finding's first reproducer, or "" when it
 * has none. Writes buf (len bytes) and returns it. */
const char *runs_replay_text(const report_model *m, const report_finding *f, char *buf,
                             size_t len);

#endif /* REPORTS_RUNS_MODEL_H */
