/* SPDX-License-Identifier: MIT */
/*
 * This file contains the edge values of every dtype (see edges.h): the
 * per-dtype table the generators, the fuzz decoder, the corpus tool, the
 * campaign's simplifier and the self-checks of the fast paths draw from,
 * and TestFloat's boundary exponents and significand patterns the sweeps
 * cross into their grid. Everything is built from the dtype's widths in
 * integer arithmetic, so the tables are the same on every machine.
 */
#include "oracle/edges.h"

#include <string.h>

#include "oracle/dtype.h"

static uint64_t edge_tables[DVG_DTYPE_COUNT][ORACLE_EDGE_MAX_VALUES];
static size_t edge_counts[DVG_DTYPE_COUNT];

static size_t float_edges(oracle_float_format f, uint64_t *t)
{
    uint64_t bias = (UINT64_C(1) << (f.exp_bits - 1)) - 1, emax = (UINT64_C(1) << f.exp_bits) - 1;
    uint64_t fmax = (UINT64_C(1) << f.frac_bits) - 1, top = UINT64_C(1) << (f.frac_bits - 1);
    const uint64_t mags[] = {
        oracle_float_pack(f, 0, 0, 0),                 /* 0 */
        oracle_float_pack(f, 0, 0, 1),                 /* smallest subnormal */
        oracle_float_pack(f, 0, 0, fmax),              /* largest subnormal */
        oracle_float_pack(f, 0, 0, top),               /* mid subnormal */
        oracle_float_pack(f, 0, 1, 0),                 /* smallest normal */
        oracle_float_pack(f, 0, 1, 1),
        oracle_float_pack(f, 0, emax - 1, fmax),       /* largest finite */
        oracle_float_pack(f, 0, emax - 1, 0),
        oracle_float_pack(f, 0, emax, 0),              /* inf */
        oracle_float_pack(f, 0, bias, 0),              /* 1 */
        oracle_float_pack(f, 0, bias, 1),              /* 1 + ulp */
        oracle_float_pack(f, 0, bias - 1, fmax),       /* largest below 1 */
        oracle_float_pack(f, 0, bias + 1, 0),          /* 2 */
        oracle_float_pack(f, 0, bias + 1, top),        /* 3 */
        oracle_float_pack(f, 0, bias - 1, 0),          /* 0.5 */
        oracle_float_pack(f, 0, bias + 2, UINT64_C(3) << (f.frac_bits - 2)), /* 7 */
        oracle_float_pack(f, 0, bias, fmax),           /* 2 - ulp */
    };
    size_t k = 0;
    for (size_t i = 0; i < sizeof mags / sizeof mags[0]; i++) {
        t[k++] = mags[i];
        t[k++] = mags[i] | (UINT64_C(1) << (f.exp_bits + f.frac_bits));
    }
    t[k++] = oracle_float_pack(f, 0, emax, top); /* quiet NaN */
    t[k++] = oracle_float_pack(f, 1, emax, top); /* negative quiet NaN */
    t[k++] = oracle_float_pack(f, 0, emax, 1);   /* signalling NaN */
    return k;
}

static size_t int_edges(uint32_t dtype, uint64_t *t)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    uint64_t mask = oracle_dtype_mask(dtype);
    size_t k = 0;
    t[k++] = 0;
    t[k++] = 1;
    t[k++] = 2;
    t[k++] = 3;
    t[k++] = 7 & mask;
    t[k++] = mask;     /* -1, or UINT_MAX */
    t[k++] = mask - 1; /* -2, or UINT_MAX - 1 */
    t[k++] = (mask - 2) & mask;
    t[k++] = (mask - 6) & mask; /* -7 */
    t[k++] = mask >> 1;         /* INT_MAX */
    t[k++] = (mask >> 1) + 1;   /* INT_MIN, or 2^(n-1) */
    t[k++] = ((mask >> 1) + 2) & mask;
    t[k++] = ((mask >> 1) - 1) & mask;
    if (d->bits >= 64) {
        /* Large int64 values that lose exactness through double. */
        t[k++] = (UINT64_C(1) << 53) + 1;
        t[k++] = (uint64_t)-(int64_t)((UINT64_C(1) << 53) + 1);
        t[k++] = (UINT64_C(1) << 62) + 3;
        t[k++] = UINT64_C(0x7ffffffffffffc01);
        t[k++] = UINT64_C(0x8000000000000001);
    } else if (d->bits >= 32) {
        t[k++] = (UINT64_C(1) << 24) + 1; /* inexact in float */
        t[k++] = ((uint64_t)-(int64_t)((UINT64_C(1) << 24) + 1)) & mask;
    }
    return k;
}

const uint64_t *oracle_edge_values(uint32_t dtype, size_t *n)
{
    if (!oracle_dtype(dtype)) {
        *n = 0;
        return NULL;
    }
    if (!__atomic_load_n(&edge_counts[dtype], __ATOMIC_ACQUIRE)) {
        /* Built on first use; the result is the same in every thread, so a
         * race only writes identical values. */
        uint64_t t[ORACLE_EDGE_MAX_VALUES];
        oracle_float_format f;
        size_t k = oracle_float_format_of(dtype, &f) ? float_edges(f, t) : int_edges(dtype, t);
        memcpy(edge_tables[dtype], t, k * sizeof t[0]);
        __atomic_store_n(&edge_counts[dtype], k, __ATOMIC_RELEASE);
    }
    *n = __atomic_load_n(&edge_counts[dtype], __ATOMIC_ACQUIRE);
    return edge_tables[dtype];
}

size_t oracle_edge_exponents(uint32_t dtype, uint64_t *out)
{
    oracle_float_format f;
    if (!oracle_float_format_of(dtype, &f))
        return 0;
    const int64_t all_ones = ((int64_t)1 << f.exp_bits) - 1, bias = all_ones >> 1;
    const int64_t p = f.frac_bits + 1;
    const int64_t exps[] = {
        0, 1, 2, 3, p / 2, p, bias - p - 1, bias - p, bias - p / 2, bias - 2, bias - 1,
        bias, bias + 1, bias + 2, bias + p / 2, bias + p, bias + p + 1,
        all_ones - p - 1, all_ones - 4, all_ones - 3, all_ones - 2, all_ones - 1, all_ones,
    };
    size_t n = 0;
    for (size_t i = 0; i < sizeof exps / sizeof exps[0]; i++)
        if (exps[i] >= 0 && exps[i] <= all_ones)
            out[n++] = (uint64_t)exps[i];
    return n;
}

size_t oracle_edge_significands(uint32_t dtype, uint64_t *out)
{
    oracle_float_format f;
    if (!oracle_float_format_of(dtype, &f))
        return 0;
    const int F = f.frac_bits;
    const uint64_t frac_mask = (UINT64_C(1) << F) - 1;
    size_t n = 0;
    out[n++] = 0;
    out[n++] = frac_mask;
    out[n++] = UINT64_C(0x5555555555555555) & frac_mask;
    out[n++] = UINT64_C(0xAAAAAAAAAAAAAAAA) & frac_mask;
    out[n++] = UINT64_C(0x3333333333333333) & frac_mask;
    out[n++] = UINT64_C(0xF0F0F0F0F0F0F0F0) & frac_mask;
    for (int i = 1; i < F; i++) {
        out[n++] = (UINT64_C(1) << i) - 1;
        out[n++] = frac_mask ^ ((UINT64_C(1) << i) - 1);
    }
    for (int i = 0; i < F; i++) {
        out[n++] = UINT64_C(1) << i;
        out[n++] = frac_mask ^ (UINT64_C(1) << i);
    }
    return n;
}
