/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/float_gen.h: operand generators for the float division
 * tests and benchmarks, TestFloat-style: an edge table, boundary exponents
 * crossed with significand patterns, constructed near-tie and exact-tie
 * quotients, and uniform random bit patterns, all from fixed seeds.
 *
 * Values are raw bit patterns, zero-extended in a uint64_t.
 */
#ifndef TESTS_ORACLE_FLOAT_GEN_H
#define TESTS_ORACLE_FLOAT_GEN_H

#include <stddef.h>
#include <stdint.h>

/* A binary float format: `ebits` exponent bits, `fbits` fraction bits. */
typedef struct tfmt {
    uint32_t dtype;  /* DVG_DTYPE_* */
    const char *tag; /* "f16", ... */
    int ebits;
    int fbits;
} tfmt;

#define TFMT_COUNT 4
extern const tfmt tfmt_all[TFMT_COUNT]; /* f16, bf16, f32, f64 */

/* The format of `dtype`, or NULL. */
const tfmt *tfmt_get(uint32_t dtype);

/* Derived facts. */
int tfmt_width(const tfmt *f);            /* ebits + fbits + 1 */
uint64_t tfmt_mask(const tfmt *f);        /* all bits of the format */
int64_t tfmt_bias(const tfmt *f);
int64_t tfmt_emin(const tfmt *f);         /* 1 - bias: exponent of the smallest normal */
int64_t tfmt_emax(const tfmt *f);         /* bias: exponent of the largest finite */
uint64_t tfmt_default_nan(const tfmt *f); /* the oracle's default NaN */

int tfmt_is_nan(const tfmt *f, uint64_t v);

/* 1 when x and y are the same bits, or both NaN. */
int tfmt_same(const tfmt *f, uint64_t x, uint64_t y);

/* The oracle's exact path (f16_div, ...) on raw bits. */
uint64_t tfmt_exact_div(const tfmt *f, uint64_t a, uint64_t b);

/*
 * Encodes (-1)^sign * n * 2^e (n > 0) exactly into *out. Returns 0, or -1
 * when the value is not representable (too many significant bits for its
 * exponent, or out of range); *out is then unchanged.
 */
int tfmt_encode(const tfmt *f, int sign, uint64_t n, int64_t e, uint64_t *out);

/* splitmix64. */
uint64_t tgen_next(uint64_t *state);

/* The edge table, both signs: zeros, subnormal min/max, normal min, max
 * finite, infinities, quiet and signalling NaN, 1 and neighbours, powers
 * of two, small odd integers. Returns the count (at most 256). */
size_t tgen_edges(const tfmt *f, uint64_t *out);

/* Boundary exponents x significand patterns (runs of ones from either
 * end, single bits, alternating bits), both signs. Returns the count
 * written, at most `cap`. */
size_t tgen_testfloat(const tfmt *f, uint64_t *out, size_t cap);

/*
 * One constructed operand pair whose quotient is hard to round: a near-tie
 * quotient (within about 2^-2p relative of a midpoint) in the normal or
 * the subnormal range, an exact tie in the subnormal range, a tie or near
 * tie between the largest subnormal and the smallest normal, a near-half
 * of the smallest subnormal, or a quotient at the overflow boundary.
 */
void tgen_near_tie(const tfmt *f, uint64_t *state, uint64_t *a, uint64_t *b);

/* A mixed source: even calls give edge-derived pairs (pool x pool, edge
 * table x pool, near ties), odd calls uniform random bit patterns. */
typedef struct tgen {
    const tfmt *f;
    uint64_t state;
    uint64_t count;
    uint64_t *pool; /* edge table + TestFloat values */
    size_t n_pool;
    size_t n_edges; /* the first n_edges of pool are the edge table */
} tgen;

/* Returns 0, -1 when out of memory. */
int tgen_open(tgen *g, const tfmt *f, uint64_t seed);
void tgen_close(tgen *g); /* accepts a zeroed struct */
void tgen_pair(tgen *g, uint64_t *a, uint64_t *b);

#endif /* TESTS_ORACLE_FLOAT_GEN_H */
