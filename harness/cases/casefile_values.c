/* SPDX-License-Identifier: MIT */
/*
 * This file contains the values of the case-file parser: one value token
 * (the oracle's case-file literal, oracle_value_parse_literal, rounding
 * included; expected values may also be nan, any-inf, unspecified), and the
 * value lists and generators (fill, iota, repeat, each, random) that fill an
 * operand's bytes or the expected elements.
 */
#include "harness/cases/casefile_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"
#include "oracle/prng.h"
#include "oracle/value.h"

/* ---------------------------------------------------------------------------
 * One value token
 * ------------------------------------------------------------------------- */


static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* One token as an operand (expect 0) or an expected value (expect 1): the
 * oracle's case-file literal (oracle_value_parse_literal), the reason in
 * why[0..len) on failure. */
static int parse_token(uint32_t dtype, const char *t, int expect, value *out, char *why,
                       size_t len)
{
    oracle_error err;
    uint32_t kind;
    if (oracle_value_parse_literal(dtype, t, expect, &out->bits, &kind, &err) != ORACLE_OK) {
        if (why && len)
            snprintf(why, len, "%s", err.text);
        return -1;
    }
    out->kind = (uint8_t)kind;
    return 0;
}

int casefile_parse_value(uint32_t dtype, const char *text, uint64_t *bits, char *why,
                         size_t len)
{
    value v;
    if (!text || parse_token(dtype, text, 0, &v, why, len))
        return -1;
    *bits = v.bits;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Generators
 * ------------------------------------------------------------------------- */

/* The edge values `random` draws from a quarter of the time: the float and
 * integer edge classes of docs/semantics.md. Returns the count (<= 32). */
static size_t edge_values(uint32_t dtype, uint64_t *out)
{
    static const char *const float_edges[] = {
        "0", "-0", "1", "-1", "2", "-2", "3", "0.5",
        "min_sub", "-min_sub", "max_sub", "-max_sub", "min_normal", "-min_normal",
        "max", "-max", "inf", "-inf", "nan", "-nan", "snan",
    };
    static const char *const int_edges[] = {"0", "1", "2", "3", "7", "min", "max"};
    const oracle_dtype_info *d = oracle_dtype(dtype);
    uint64_t mask = oracle_dtype_mask(dtype);
    size_t n = 0;
    value v;
    if (d->kind == DVG_KIND_FLOAT) {
        for (size_t i = 0; i < sizeof float_edges / sizeof float_edges[0]; i++)
            if (!parse_token(dtype, float_edges[i], 0, &v, NULL, 0))
                out[n++] = v.bits;
        return n;
    }
    for (size_t i = 0; i < sizeof int_edges / sizeof int_edges[0]; i++)
        if (!parse_token(dtype, int_edges[i], 0, &v, NULL, 0))
            out[n++] = v.bits;
    uint64_t smax = d->kind == DVG_KIND_SIGNED ? mask >> 1 : mask;
    out[n++] = (smax - 1) & mask;                 /* just below max */
    if (d->kind == DVG_KIND_SIGNED) {
        out[n++] = (smax + 2) & mask;             /* min + 1 */
        out[n++] = mask;                          /* -1 */
        out[n++] = (0 - UINT64_C(2)) & mask;      /* -2 */
        out[n++] = (0 - UINT64_C(7)) & mask;      /* -7 */
    }
    return n;
}

/* Where generated or listed values go: operand bytes or expected elements. */

static void sink_put(const sink *k, uint64_t i, value v)
{
    if (k->bytes) {
        oracle_store(k->dtype, k->bytes, i, v.bits);
    } else {
        memset(&k->elems[i], 0, sizeof k->elems[i]);
        k->elems[i].bits = v.bits;
        k->elems[i].kind = v.kind;
    }
}

int casefile_is_generator(const char *t)
{
    return !strcmp(t, "fill") || !strcmp(t, "iota") || !strcmp(t, "repeat") ||
           !strcmp(t, "each") || !strcmp(t, "random");
}

static int parse_i64(const char *t, int64_t *out)
{
    const char *s = t;
    int neg = 0;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    if (!is_digit(*s))
        return -1;
    uint64_t mag = 0;
    for (; *s; s++) {
        if (!is_digit(*s) || mag > (UINT64_MAX - 9) / 10)
            return -1;
        mag = mag * 10 + (uint64_t)(*s - '0');
    }
    if (neg ? mag > (UINT64_C(1) << 63) : mag > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return 0;
}

/* ---------------------------------------------------------------------------
 * Generators, and value lists
 * ------------------------------------------------------------------------- */

/* `fill V`. 0 or -1. */
static int gen_fill(parser *p, const char *what, const token *t, size_t n, uint64_t count,
                    const sink *k, int expect)
{
    char why[sizeof ((oracle_error *)0)->text];
    value v;
    if (n != 2)
        return casefile_fail(p, t[0].line, "%s: 'fill' takes one value (fill V), got %zu", what, n - 1);
    if (parse_token(k->dtype, t[1].s, expect, &v, why, sizeof why))
        return casefile_fail(p, t[1].line, "%s: %s", what, why);
    for (uint64_t i = 0; i < count; i++)
        sink_put(k, i, v);
    return 0;
}

/* `iota START [STEP]`. 0 or -1. */
static int gen_iota(parser *p, const char *what, const token *t, size_t n, uint64_t count,
                    const sink *k)
{
    int64_t start, step = 1, x;
    uint32_t line = t[0].line;
    value v;
    if (n < 2 || n > 3)
        return casefile_fail(p, line, "%s: 'iota' takes START [STEP], got %zu values", what, n - 1);
    if (parse_i64(t[1].s, &start))
        return casefile_fail(p, t[1].line, "%s: iota START '%s' is not a 64-bit integer", what, t[1].s);
    if (n == 3 && parse_i64(t[2].s, &step))
        return casefile_fail(p, t[2].line, "%s: iota STEP '%s' is not a 64-bit integer", what, t[2].s);
    x = start;
    for (uint64_t i = 0; i < count; i++) {
        if (oracle_value_from_int(k->dtype, x, &v.bits) != ORACLE_OK)
            return casefile_fail(p, line, "%s: iota element %" PRIu64 " is %" PRId64 ", not a value of %s",
                        what, i, x, oracle_dtype_tag(k->dtype));
        v.kind = ORACLE_EXACT;
        sink_put(k, i, v);
        if (i + 1 < count &&
            ((step > 0 && x > INT64_MAX - step) || (step < 0 && x < INT64_MIN - step)))
            return casefile_fail(p, line, "%s: iota element %" PRIu64 " leaves the 64-bit range", what,
                        i + 1);
        x += i + 1 < count ? step : 0;
    }
    return 0;
}

/* `repeat V...`: the list over and over; `each N V...`: every value N
 * times in turn, then over again. 0 or -1. */
static int gen_repeat(parser *p, const char *what, const token *t, size_t n, uint64_t count,
                      const sink *k, int expect)
{
    char why[sizeof ((oracle_error *)0)->text];
    const char *g = t[0].s;
    uint32_t line = t[0].line;
    int each = g[0] == 'e';
    int64_t times = 1;
    size_t first = each ? 2 : 1;
    if (each && (n < 2 || parse_i64(t[1].s, &times) || times < 1))
        return casefile_fail(p, n < 2 ? line : t[1].line, "%s: 'each' takes a positive count N, then values",
                    what);
    if (n <= first)
        return casefile_fail(p, line, "%s: '%s' needs at least one value", what, g);
    value *list = dvg_malloc((n - first) * sizeof *list);
    if (!list)
        return casefile_fail(p, line, "out of memory");
    int rc = 0;
    for (size_t i = first; i < n && rc == 0; i++)
        if (parse_token(k->dtype, t[i].s, expect, &list[i - first], why, sizeof why))
            rc = casefile_fail(p, t[i].line, "%s: %s", what, why);
    for (uint64_t i = 0; i < count && rc == 0; i++)
        sink_put(k, i, list[(i / (uint64_t)times) % (n - first)]);
    dvg_free(list);
    return rc;
}

/* `random SEED [uniform]`: operands only. 0 or -1. */
static int gen_random(parser *p, const char *what, const token *t, size_t n, uint64_t count,
                      const sink *k, int expect)
{
    uint32_t line = t[0].line;
    if (expect)
        return casefile_fail(p, line, "%s: 'random' makes operands; expected values come from the "
                    "oracle or are written out", what);
    if (n < 2 || n > 3)
        return casefile_fail(p, line, "%s: 'random' takes SEED [uniform], got %zu values", what, n - 1);
    int64_t seed;
    if (parse_i64(t[1].s, &seed) || seed < 0)
        return casefile_fail(p, t[1].line, "%s: random SEED '%s' is not a non-negative integer", what,
                    t[1].s);
    int uniform = 0;
    if (n == 3) {
        if (strcmp(t[2].s, "uniform"))
            return casefile_fail(p, t[2].line, "%s: random takes 'uniform' or nothing after SEED, "
                        "got '%s'", what, t[2].s);
        uniform = 1;
    }
    uint64_t edges[32], state = (uint64_t)seed, mask = oracle_dtype_mask(k->dtype);
    size_t n_edges = edge_values(k->dtype, edges);
    value v;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t r = oracle_prng_next(&state);
        v.bits = (!uniform && (r & 3) == 0) ? edges[(r >> 2) % n_edges]
                                             : oracle_prng_next(&state) & mask;
        v.kind = ORACLE_EXACT;
        sink_put(k, i, v);
    }
    return 0;
}

int casefile_fill_values(parser *p, const char *what, const token *t,
                       size_t n, uint64_t count, const sink *k, int expect,
                       casefile_run **runs, uint32_t *n_runs)
{
    char why[sizeof ((oracle_error *)0)->text]; /* the oracle's reason, whole */
    value v;
    size_t cap_runs = 0;
    if (runs) {
        *runs = NULL;
        *n_runs = 0;
    }
    if (n && casefile_is_generator(t[0].s)) {
        const char *g = t[0].s;
        if (runs) {
            if (dvg_grow((void **)runs, &cap_runs, 1, sizeof **runs))
                return casefile_fail(p, t[0].line, "out of memory");
            (*runs)[0] = (casefile_run){0, t[0].line};
            *n_runs = 1;
        }
        if (!strcmp(g, "fill"))
            return gen_fill(p, what, t, n, count, k, expect);
        if (!strcmp(g, "iota"))
            return gen_iota(p, what, t, n, count, k);
        if (!strcmp(g, "repeat") || !strcmp(g, "each"))
            return gen_repeat(p, what, t, n, count, k, expect);
        return gen_random(p, what, t, n, count, k, expect);
    }
    /* A list of exactly `count` values. */
    for (size_t i = 0; i < n; i++) {
        if (parse_token(k->dtype, t[i].s, expect, &v, why, sizeof why))
            return casefile_fail(p, t[i].line, "%s: %s", what, why);
        sink_put(k, i, v);
        if (runs && (!*n_runs || (*runs)[*n_runs - 1].line != t[i].line)) {
            if (dvg_grow((void **)runs, &cap_runs, (size_t)*n_runs + 1, sizeof **runs))
                return casefile_fail(p, t[i].line, "out of memory");
            (*runs)[(*n_runs)++] = (casefile_run){i, t[i].line};
        }
    }
    return 0;
}
