/* SPDX-License-Identifier: MIT */
/*
 * reports/report_format.h: the writers' contract, private to reports/:
 * one writer per format, called by the dispatcher (reports/report.c).
 * Each writes the whole document for model `m` (reports/model.h) to `f`;
 * write errors show in ferror(f). report_junit returns -1 when out of
 * memory (nothing written), else 0. `m` stays owned by the caller.
 */
#ifndef REPORTS_REPORT_FORMAT_H
#define REPORTS_REPORT_FORMAT_H

#include <stdio.h>
#include "reports/model.h"
#include "reports/runs_model.h"

void report_html(const report_model *m, FILE *f);

/* The HTML report's style sheet (report_html.c), shared by the page of
 * several runs (report_runs.c). */
extern const char report_html_style[];

/* The page of several runs (report_runs.c): its model (reports/runs_model.h,
 * built from one report model per run, in the order given) in HTML,
 * Markdown or JSON; `row` is the writers' scratch for one table row. */
void report_runs_html(const runs_page *p, FILE *f, runs_row *row);
void report_runs_markdown(const runs_page *p, FILE *f, runs_row *row);
void report_runs_json(const runs_page *p, FILE *f, runs_row *row);
int report_junit(const report_model *m, FILE *f);
void report_markdown(const report_model *m, FILE *f);
void report_json(const report_model *m, FILE *f);

#endif /* REPORTS_REPORT_FORMAT_H */
