/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/casefile.h: the text format of the conformance cases (the .case
 * files under cases/, described for people in cases/README.md) and its
 * parser.
 *
 * A file holds blocks that begin with a `case NAME` line and go on with
 * `key: value` lines; `#` starts a comment; a line that begins with a blank
 * continues the value of the key above it. A block that names several
 * variants or dtypes expands into one divcase per (variant, dtype) pair.
 *
 * Everything read from a file is validated before it is used, and every
 * problem is answered with one message of the form "FILE:LINE: what is
 * wrong". Sizes (the file, the element count of each shape, the number of
 * values written) are checked against their maxima before anything is
 * allocated. All memory comes from harness/base/alloc.h.
 */
#ifndef HARNESS_CASEFILE_H
#define HARNESS_CASEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/cases/divcase.h"

/* Default largest element count of one tensor of a case (A, B or the
 * expected output): 2^24. */
#define CASEFILE_DEFAULT_MAX_ELEMENTS (UINT64_C(1) << 24)

/* Largest case file read (bytes) and deepest directory walked. */
#define CASEFILE_MAX_FILE_BYTES (UINT64_C(64) << 20)
#define CASEFILE_MAX_DEPTH 8

/* Longest case name (bytes, without the NUL). */
#define CASEFILE_MAX_NAME 63

/* One run of expected elements written on one line: elements
 * first..(next run's first - 1) of the `expect:` list come from `line`. */
typedef struct casefile_run {
    uint64_t first;
    uint32_t line;
} casefile_run;

/* Where one parsed case came from, beside its divcase. */
typedef struct casefile_meta {
    const char *path;            /* the file, as opened; owned by the set */
    char name[CASEFILE_MAX_NAME + 1]; /* the block's name as written */
    uint32_t line;               /* line of `case NAME` */
    uint32_t expect_line;        /* line of `expect:` (0 when absent) */
    uint32_t expect_shape_line;  /* line of `expect.shape:` (0 when absent) */
    casefile_run *runs;          /* lines of the expected elements; owned */
    uint32_t n_runs;
    uint32_t block;              /* index of the `case` block in the set
                                    (cases expanded from one block share it) */
} casefile_meta;

/*
 * A parsed set of cases. cases[i] and meta[i] describe the same case, in
 * file order, files in name order. Owner: the caller of casefile_load /
 * casefile_parse_string, until casefile_set_free.
 */
typedef struct casefile_set {
    divcase *cases;
    casefile_meta *meta;
    size_t count;
    size_t cap;
    uint32_t n_blocks;           /* `case` blocks read */
    char **paths;                /* every file read; owned */
    size_t n_paths;
} casefile_set;

/* The one error a failed parse reports. */
typedef struct casefile_error {
    uint32_t line;               /* 0 when the error is not at a line */
    char text[512];              /* "FILE:LINE: message", NUL-terminated */
} casefile_error;

/*
 * Parses `path`: a case file, or a directory whose `*.case` files (and those
 * of its subdirectories, names starting with '.' skipped, at most
 * CASEFILE_MAX_DEPTH levels) are read in byte order of their names.
 * `max_elements` bounds each tensor of each case (0: the default). Case
 * names must be unique across the whole set.
 *
 * Returns 0 and a new set in *out, or -1 with *err filled (nothing in *out).
 * `path` is copied; `err` may be NULL.
 */
int casefile_load(const char *path, uint64_t max_elements, casefile_set **out,
                  casefile_error *err);

/* Whether a load builds the cases of (variant, dtype): 1 yes, 0 no. */
typedef int (*casefile_want_fn)(const void *ctx, uint32_t variant, uint32_t dtype);

/*
 * The conformance cases a command runs: those of `dir` when it is given
 * ("" for none), else those of the data directory's cases/ (datadir_find).
 * With `want`, only the cases of the (variant, dtype) pairs it wants are
 * built (their operands generated, their values checked): a command that
 * judges some claims does not pay for the others' million-element cases.
 * Every block is still read, its fields, shapes and attributes checked,
 * and its name checked unique; `divergence cases --check` builds them all.
 * Returns 0 with a new set in *out, or NULL when there are none; -1 with
 * the reason in err->text (no command name in it): no data directory, a
 * named directory that does not exist, or a case file that does not parse.
 */
int casefile_load_conformance(const char *dir, casefile_want_fn want, const void *want_ctx,
                              casefile_set **out, casefile_error *err);

/*
 * Parses `len` bytes of case-file text, reported as coming from `label`
 * (used in messages and casefile_meta.path). The text need not be
 * NUL-terminated and is not modified. Same result as casefile_load.
 */
int casefile_parse_string(const char *label, const char *text, size_t len,
                          uint64_t max_elements, casefile_set **out,
                          casefile_error *err);

/* Frees the set, its cases and everything they own. Accepts NULL. */
void casefile_set_free(casefile_set *set);

/* The line an expected element `index` of case `m` was written on (the
 * `expect:` line when unknown). */
uint32_t casefile_elem_line(const casefile_meta *m, uint64_t index);

/*
 * Parses one value token as the bits of `dtype` (as a case file's operand,
 * so `nan`, `unspecified` and the like are refused where they do not fit).
 * For tests and tools. Returns 0 and *bits, or -1 with the reason in
 * why[0..len-1].
 */
int casefile_parse_value(uint32_t dtype, const char *text, uint64_t *bits,
                         char *why, size_t len);

/* Elements past which casefile_write gives the expected output's shape
 * alone, not its elements. */
#define CASEFILE_WRITE_MAX_EXPECT 4096u

/*
 * Writes case c to `out` as one block of the format, the inverse of the
 * parser: casefile_load of what it writes gives back c's variant, dtype,
 * attributes (as oracle_attrs_format writes them), shapes, operand bytes
 * (each element's bits in hex: NaN payloads, -0 and i4/u4 nibbles as
 * they are; an odd i4/u4 tensor's padding nibble is 0, as the parser
 * leaves it) and data offsets. The block is named `name` (NULL: c->id),
 * any byte a case name may not hold made '-', cut at CASEFILE_MAX_NAME;
 * it cites c's requirements (none: the sentence every quotient of its
 * variant answers to) and states the oracle's expectation: `invalid`, or
 * the output shape and, up to CASEFILE_WRITE_MAX_EXPECT elements, each
 * element's answer. Returns 0, or -1 with the reason in err->text (may be
 * NULL): a variant, dtype or attribute the oracle refuses, or a write
 * error of `out`.
 */
int casefile_write(FILE *out, const char *name, const divcase *c, casefile_error *err);

#endif /* HARNESS_CASEFILE_H */
