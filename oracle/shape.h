/* SPDX-License-Identifier: MIT */
/*
 * oracle/shape.h: output shapes and broadcasting plans.
 *
 * A plan maps every output element to the A and B elements it divides:
 * for output index (i0..i{r-1}), A's element is sum(i_k * a_stride[k]) and
 * B's is sum(i_k * b_stride[k]); a stride of 0 is a broadcast dimension.
 */
#ifndef ORACLE_SHAPE_H
#define ORACLE_SHAPE_H

#include <stdint.h>
#include "divergence/iut.h"
#include "oracle/error.h"
#include "oracle/rules.h"

/* Largest element count of one tensor the oracle plans for (2^40). */
#define ORACLE_MAX_ELEMENTS (UINT64_C(1) << 40)

typedef struct oracle_shape {
    uint32_t rank;                /* 0..DVG_MAX_RANK */
    int64_t dims[DVG_MAX_RANK];   /* each >= 0; entries past rank zero */
} oracle_shape;

typedef struct oracle_plan {
    oracle_shape out;                  /* output shape */
    int64_t a_stride[DVG_MAX_RANK];    /* element strides into A per out dim */
    int64_t b_stride[DVG_MAX_RANK];    /* element strides into B per out dim */
    uint64_t count;                    /* output elements (product of dims) */
    uint64_t a_count, b_count;         /* elements of A and of B */
} oracle_plan;

/* 1 when a and b have the same rank and dimensions, else 0. */
int oracle_shape_equal(const oracle_shape *a, const oracle_shape *b);

/* Number of elements of a shape (1 for rank 0). */
uint64_t oracle_shape_count(const oracle_shape *s);

/*
 * Plans C = A / B under r->shape_rule. ORACLE_INVALID when the shapes (or
 * the axis attribute) are invalid for the rule, with the reason and its
 * requirement ID in *why; ORACLE_EUSAGE for a rank above DVG_MAX_RANK, a
 * negative dimension, or more than ORACLE_MAX_ELEMENTS elements.
 */
int oracle_plan_shapes(const oracle_rules *r, const oracle_shape *a,
                       const oracle_shape *b, oracle_plan *out, oracle_error *why);

/* Formats a shape as "(2, 3, 4)" or "()" into buf; returns buf. */
char *oracle_shape_format(const oracle_shape *s, char *buf, size_t len);

/*
 * Parses "2x3x4", "(2, 3, 4)", "2,3,4", "[]" or "()" (rank 0). Returns
 * ORACLE_OK or ORACLE_EUSAGE with the position of the problem in *err.
 */
int oracle_shape_parse(const char *text, oracle_shape *out, oracle_error *err);

/* Offsets of output element `index` (row-major) into A and B. */
void oracle_plan_offsets(const oracle_plan *p, uint64_t index, uint64_t *a_off,
                         uint64_t *b_off);

#endif /* ORACLE_SHAPE_H */
