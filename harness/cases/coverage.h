/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/coverage.h: what a set of cases exercised, as a
 * certificate shows it per claim (docs/store.md, "coverage"): the output
 * ranks, the output's inner (last) dimensions, the broadcast pattern
 * classes and the element-count tiers, each read from a case's plan, and
 * the offsets from a 64-byte line at which the worker placed the data of
 * A, B and C.
 */
#ifndef HARNESS_CASES_COVERAGE_H
#define HARNESS_CASES_COVERAGE_H

#include <stddef.h>
#include <stdint.h>
#include "harness/cases/divcase.h"
#include "oracle/shape.h"

/* Inner sizes kept one by one: 0 .. COVERAGE_MAX_INNER; larger ones are
 * counted as one entry. */
#define COVERAGE_MAX_INNER 1025

typedef struct case_coverage {
    uint64_t cases;
    uint32_t ranks;                               /* bit r: output rank r */
    uint64_t inner[COVERAGE_MAX_INNER / 64 + 1];  /* bit n: inner size n */
    int inner_above;                              /* an inner size above the max */
    uint32_t patterns;                            /* bit k: coverage_pattern_name(k) */
    uint32_t tiers;                               /* bit k: coverage_tier_name(k) */
    uint64_t offsets[3];                          /* bit k of [DIVCASE_A, _B, _C]:
                                                     that tensor's data at k bytes
                                                     past a 64-byte line */
} case_coverage;

/* The broadcast pattern classes and the tiers, by bit index. */
#define COVERAGE_PATTERNS 10
#define COVERAGE_TIERS 8

/* Name of pattern k ("same-shape", "scalar-a", ..., "empty") or of tier
 * k ("0", "1", "2-15", ..., "1M+"); NULL past the end. */
const char *coverage_pattern_name(uint32_t k);
const char *coverage_tier_name(uint32_t k);

/* The broadcast pattern class of a plan (its index). */
uint32_t coverage_pattern_of(const oracle_plan *p);

/* Empties *c. */
void coverage_clear(case_coverage *c);

/* Adds what *from holds to *to: its cases, and every rank, inner size,
 * pattern, tier and offset (the coverage of both sets of cases). */
void coverage_merge(case_coverage *to, const case_coverage *from);

/* Adds one judged case, given by its plan. */
void coverage_add_plan(case_coverage *c, const oracle_plan *p);

/* Adds where the worker placed the data of case dc with plan p
 * (divcase_data_offset); tensors of no bytes are left out. */
void coverage_add_offsets(case_coverage *c, const divcase *dc, const oracle_plan *p);

/* Writes the data offsets as text: "A 0-63; B 0,4,8-12; C 60" (a tensor
 * with none left out; "" when none). Truncated as coverage_format's
 * lists are. */
void coverage_format_offsets(const case_coverage *c, char *buf, size_t len);

/*
 * Writes the lists as text, comma-separated: ranks ("0,1,2"), inner
 * sizes as ranges ("0-5,16,17", ">1025" for the larger ones), patterns
 * and tiers by name. Each buffer gets at least "" and is truncated to its
 * length (the last entry cut at a comma, "..." appended).
 */
void coverage_format(const case_coverage *c, char *ranks, size_t ranks_len, char *inner,
                     size_t inner_len, char *patterns, size_t patterns_len, char *tiers,
                     size_t tiers_len);

#endif /* HARNESS_CASES_COVERAGE_H */
