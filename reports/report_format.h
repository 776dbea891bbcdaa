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

void report_html(const report_model *m, FILE *f);
int report_junit(const report_model *m, FILE *f);
void report_markdown(const report_model *m, FILE *f);
void report_json(const report_model *m, FILE *f);

#endif /* REPORTS_REPORT_FORMAT_H */
