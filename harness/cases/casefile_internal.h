/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/casefile_internal.h: what the parser's files share
 * (private to harness/cases; the contract is casefile.h):
 *   casefile.c         lines, blocks, files and the set
 *   casefile_values.c  one value token, and the value lists and generators
 *                      that fill a tensor or the expected elements
 *   casefile_write.c   the writer, the parser's inverse
 */
#ifndef HARNESS_CASEFILE_INTERNAL_H
#define HARNESS_CASEFILE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "harness/cases/casefile.h"
#include "oracle/expect.h"

/* ---------------------------------------------------------------------------
 * Keys
 * ------------------------------------------------------------------------- */

enum {
    K_VARIANT,
    K_DTYPE,
    K_ATTR,
    K_REQUIREMENT,
    K_A_SHAPE,
    K_A,
    K_B_SHAPE,
    K_B,
    K_EXPECT_SHAPE,
    K_EXPECT,
    K_OFFSETS,
    K_NOTE,
    K_COUNT
};

/* ---------------------------------------------------------------------------
 * Parser state
 * ------------------------------------------------------------------------- */

typedef struct segment {
    char *text;    /* into the file buffer, NUL-terminated */
    uint32_t line;
} segment;

typedef struct field {
    uint32_t line;               /* 0: absent */
    size_t seg_first, seg_count; /* its segments */
    size_t tok_first, tok_count; /* its tokens, once split */
} field;

typedef struct token {
    const char *s;
    uint32_t line;
} token;

/* A block's name and where it was, for the check that names are unique. */
typedef struct block_name {
    char name[CASEFILE_MAX_NAME + 1];
    const char *path;       /* owned by set->paths */
    uint32_t line;
} block_name;

typedef struct parser {
    casefile_set *set;
    const char *path;       /* owned by set->paths */
    uint64_t max_elements;
    casefile_error *err;

    int in_block;
    char name[CASEFILE_MAX_NAME + 1];
    uint32_t line;          /* of `case NAME` */
    field fields[K_COUNT];
    int last_key;           /* key the next continuation line belongs to, or -1 */

    segment *segs;
    size_t n_segs, cap_segs;
    token *toks;
    size_t n_toks, cap_toks;

    casefile_want_fn want;  /* NULL: every (variant, dtype) built */
    const void *want_ctx;
    block_name *names;      /* every block read, built or not */
    size_t n_names, cap_names;
} parser;

/* Formats "path:line: message" (line 0: "path: message") into the
 * parser's error. Returns -1. */
int casefile_fail(parser *p, uint32_t line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A value as the case file states it: exact bits, or (expected values
 * only) one of the oracle's looser answers. */
typedef struct value {
    uint64_t bits;
    uint8_t kind; /* ORACLE_EXACT .. ORACLE_UNSPECIFIED */
} value;

/* Where filled values go: an operand's dense bytes or the expected
 * elements. */
typedef struct sink {
    uint32_t dtype;
    uint8_t *bytes;        /* operands: dense buffer */
    oracle_elem *elems;    /* expected values */
} sink;

/* 1 when token t names a generator (fill, iota, repeat, each, random). */
int casefile_is_generator(const char *t);

/*
 * Fills `count` values of `what` ("a", "b", "expect") from tokens t[0..n-1]:
 * a generator, or exactly `count` values (checked by the caller). For
 * expected values, records the line runs in *runs. 0, or -1 (the
 * parser's error set).
 */
int casefile_fill_values(parser *p, const char *what, const token *t, size_t n, uint64_t count,
                         const sink *k, int expect, casefile_run **runs, uint32_t *n_runs);

#endif /* HARNESS_CASEFILE_INTERNAL_H */
