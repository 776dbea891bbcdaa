/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/divcase.h: one division case, the unit every part of Divergence
 * passes around: the case files, the generators, the fuzzers, the workers,
 * the verdicts and the store all speak it.
 *
 * A case is a variant, its attributes, a dtype, the shapes of A and B and
 * their dense operand bytes. Optional fields carry what a case file wrote
 * down (its expected output, or that the input is invalid) and where the
 * case came from.
 */
#ifndef HARNESS_DIVCASE_H
#define HARNESS_DIVCASE_H

#include <stddef.h>
#include <stdint.h>
#include "divergence/iut.h"
#include "oracle/expect.h"
#include "oracle/shape.h"

#define DIVCASE_MAX_REQUIREMENTS 8

/* Where the worker places the data of A, B and C (the output), by index
 * DIVCASE_A, DIVCASE_B, DIVCASE_C. With `set` 0, the default, each tensor
 * ends flush against the guard page after it, so its start is wherever its
 * byte size puts it. With `set` 1, tensor i's data starts at[i] bytes
 * (0..63) past a 64-byte line and ends fewer than 64 bytes before the
 * guard page; the output's bytes there (the tail slack) are checked as
 * the slack before it is (worker.h). The ABI promises no alignment. */
enum { DIVCASE_A, DIVCASE_B, DIVCASE_C };
typedef struct divcase_offsets {
    uint32_t set;                /* 0: the default placement; 1: at[] */
    uint8_t at[3];               /* bytes past a 64-byte line, 0..63 */
} divcase_offsets;

typedef struct divcase {
    char id[96];                 /* "spec/onnx-legacy-axis1" or "gen:seed:17" */
    uint32_t variant;            /* DVG_VARIANT_* */
    uint32_t dtype;              /* DVG_DTYPE_* */
    dvg_attrs attrs;             /* every field filled (variant defaults) */
    oracle_shape a_shape, b_shape;
    uint8_t *a, *b;              /* dense operand bytes; owned by the case */
    uint64_t a_bytes, b_bytes;   /* == oracle_nbytes(dtype, elements) */
    divcase_offsets offsets;     /* where the data of A, B and C start */

    /* What a case file wrote down; the oracle must agree with it. */
    int expect_invalid;          /* 1: the file says the input is invalid */
    oracle_shape expect_shape;   /* when has_expect_shape */
    int has_expect_shape;
    oracle_elem *expect;         /* NULL, or one per output element; owned */
    uint64_t expect_count;

    /* Requirement IDs the case checks (static strings from the requirement
     * table), and where it came from. */
    const char *requirements[DIVCASE_MAX_REQUIREMENTS];
    uint32_t n_requirements;
    char source[160];            /* "cases/spec_onnx_legacy.case:42" or "" */
} divcase;

/* Allocates operand buffers for the shapes already set in c (zeroed) and
 * sets a_bytes/b_bytes. Returns 0, or -1 on allocation failure or when
 * the shapes hold more than `max_elements` elements. */
int divcase_alloc(divcase *c, uint64_t max_elements);

/* Frees what the case owns and zeroes it. Accepts NULL. */
void divcase_free(divcase *c);

/* Operand buffers handed from one case to the next of a stream (the shape
 * paths' size tiers reach 2^24 elements): a buffer the kernel has already
 * given pages to costs no page faults when it is filled again. Zero it
 * before its first use; free it with divcase_pool_free. */
typedef struct divcase_pool {
    uint8_t *buf[2];            /* per operand (A, B): a buffer, or NULL */
    uint64_t cap[2];            /* its bytes */
    const uint8_t *lent[2];     /* the buffer a case holds now, */
    uint64_t lent_cap[2];       /* and its bytes */
} divcase_pool;

/* Operands from this size up go through the pool; smaller ones are
 * allocated as divcase_alloc does. */
#define DIVCASE_POOL_MIN_BYTES (UINT64_C(64) << 10)

/* divcase_alloc, taking each operand buffer of DIVCASE_POOL_MIN_BYTES or
 * more from *pool when it holds one large enough (pool NULL: divcase_alloc).
 * Such a buffer is not zeroed but for its last byte: for a caller that
 * writes every element (the i4/u4 padding nibble is then 0, as
 * divcase_alloc leaves it). 0, or -1 as divcase_alloc. */
int divcase_alloc_pooled(divcase *c, uint64_t max_elements, divcase_pool *pool);

/* divcase_free, giving the case's large operand buffers to *pool (pool
 * keeps the larger buffer of each operand; pool NULL: divcase_free). */
void divcase_free_pooled(divcase *c, divcase_pool *pool);

/* Frees the pool's buffers and zeroes it. Accepts NULL. */
void divcase_pool_free(divcase_pool *pool);

/* The byte offset from a 64-byte line at which the worker places the data
 * of tensor `which` (DIVCASE_A, _B, _C) of case c when it holds nbytes
 * bytes: c->offsets.at[which] when c->offsets.set, else where ending flush
 * with a page puts it, (-nbytes) modulo 64. */
uint32_t divcase_data_offset(const divcase *c, int which, uint64_t nbytes);

/* Writes "a=3 b=17 c=42" (the case-file syntax of `offsets:`) for o into
 * buf, or "" when o->set is 0. Returns buf. */
char *divcase_offsets_format(const divcase_offsets *o, char *buf, size_t len);

/* Parses the text divcase_offsets_format writes (keys a, b and c, each at
 * most once, in any order, separated by blanks; one left out is 0; "" is
 * the default placement) into *o. Returns 0, or -1 with the reason in
 * why[0..len-1]. */
int divcase_offsets_parse(const char *text, divcase_offsets *o, char *why, size_t len);

/* Deep copy of src into *dst (dst is overwritten, not freed). 0 or -1. */
int divcase_copy(divcase *dst, const divcase *src);

#endif /* HARNESS_DIVCASE_H */
