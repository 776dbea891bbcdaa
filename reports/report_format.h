/* SPDX-License-Identifier: MIT */
/*
 * reports/report_format.h: the writers of each format, private to
 * reports/. Each writes the whole document for model `m` to `f`; write
 * errors show in ferror(f). report_junit returns -1 when out of memory
 * (nothing written), else 0.
 */
#ifndef REPORTS_REPORT_FORMAT_H
#define REPORTS_REPORT_FORMAT_H

#include <stdio.h>
#include "reports/model.h"

void report_html(const report_model *m, FILE *f);
int report_junit(const report_model *m, FILE *f);
void report_markdown(const report_model *m, FILE *f);
void report_json(const report_model *m, FILE *f);

/* Helpers shared by the writers. */

/* The cert, counts of one claim: counts[*first .. *first + *n). */
void report_claim_counts(const report_model *m, const report_key *k, size_t *first, size_t *n);

/* The histogram of a claim, or NULL. */
const report_hist *report_claim_hist(const report_model *m, const report_key *k);

/* 1 when a and b name the same (implementation, variant, dtype). */
int report_same_claim(const report_key *a, const report_key *b);

/* Claims held and total. */
void report_claim_totals(const report_model *m, size_t *held, size_t *total);

/* The plugin version of an implementation in this run ("" if none). */
const char *report_version_of(const report_model *m, const char *implementation);

/* The distinct implementations of the run (plugins, certificates, counts,
 * findings), at most max. Returns how many. */
size_t report_implementations(const report_model *m, const char **out, size_t max);

/* The rows (variants, in variant order) and columns (dtypes, in dtype
 * order) of the certificate matrix of `impl`, at most max (and
 * REPORT_MAX_AXIS) each. */
#define REPORT_MAX_AXIS 64
void report_matrix_axes(const report_model *m, const char *impl, const char **rows, size_t *nr,
                        const char **cols, size_t *nc, size_t max);

/* The certificate of (impl, variant, dtype), or NULL. */
const report_cert *report_find_cert(const report_model *m, const char *impl, const char *variant,
                                    const char *dtype);

#endif /* REPORTS_REPORT_FORMAT_H */
