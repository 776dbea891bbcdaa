/* SPDX-License-Identifier: MIT */
/*
 * This file contains the space of a sweep: how many pairs, rows, chunks
 * and batches a dtype has, the edge table of f32 and f64 (TestFloat's
 * boundary exponents x significand patterns), which chunk holds which
 * rows, and which chunks belong to a shard.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"
#include "oracle/edges.h"
#include "oracle/value.h"

const char *const sweep_layout_names[] = {"numpy", "axis0", "flat"};



static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The edge table of a float dtype, TestFloat's way: the oracle's boundary
 * exponents crossed with its significand patterns (oracle/edges.h), both
 * signs, sorted, unique. */
static int edge_table(space *sp)
{
    oracle_float_format f;
    if (!oracle_float_format_of(sp->dtype, &f))
        return -1;
    const int F = f.frac_bits;
    uint64_t exps[ORACLE_EDGE_MAX_EXPONENTS], sigs[ORACLE_EDGE_MAX_SIGNIFICANDS];
    uint32_t n_exps = (uint32_t)oracle_edge_exponents(sp->dtype, exps);
    uint32_t n_sigs = (uint32_t)oracle_edge_significands(sp->dtype, sigs);
    uint64_t *t = dvg_malloc((size_t)n_exps * n_sigs * 2 * sizeof *t);
    if (!t)
        return -1;
    uint64_t n = 0;
    for (uint32_t i = 0; i < n_exps; i++) {
        for (uint32_t s = 0; s < n_sigs; s++)
            for (uint64_t sign = 0; sign < 2; sign++)
                t[n++] = (sign << (f.exp_bits + F)) | (exps[i] << F) | sigs[s];
    }
    qsort(t, (size_t)n, sizeof *t, cmp_u64);
    uint64_t u = 0;
    for (uint64_t i = 0; i < n; i++)
        if (u == 0 || t[u - 1] != t[i])
            t[u++] = t[i];
    sp->table = t;
    sp->n = (uint32_t)u;
    sp->n_rows = u;
    sp->table_exps = n_exps;
    sp->table_sigs = n_sigs;
    return 0;
}

static uint32_t pow2_floor(uint64_t x)
{
    uint32_t p = 1;
    while ((uint64_t)p * 2 <= x && p < (1u << 30))
        p *= 2;
    return p;
}

/* Sizes the space of dtype: rows, chunks, batches. */
int sweep_space_init(space *sp, uint32_t dtype, uint64_t random_pairs, uint64_t seed,
                      uint32_t batch_pairs, int layout, char *err, size_t errlen)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    memset(sp, 0, sizeof *sp);
    sp->dtype = dtype;
    sp->bits = d->bits;
    sp->mask = oracle_dtype_mask(dtype);
    sp->layout = layout;
    if (d->bits <= 16) {
        sp->n = 1u << d->bits;
        sp->n_rows = sp->n;
    } else if (d->kind == DVG_KIND_FLOAT) {
        sp->structured = 1;
        if (edge_table(sp)) {
            snprintf(err, errlen, "out of memory for the edge table");
            return -1;
        }
        if (random_pairs % RANDOM_ROW) {
            snprintf(err, errlen, "--random %" PRIu64 ": random pairs come in rows of %u; "
                     "give a multiple of %u", random_pairs, RANDOM_ROW, RANDOM_ROW);
            return -1;
        }
        sp->random_pairs = random_pairs;
        sp->seed = seed;
    } else {
        snprintf(err, errlen, "%s has 2^%u pairs and no edge table here: sweep takes f16, "
                 "bf16, i16, u16, i8, u8, i4, u4 (every pair) or f32, f64 (structured); "
                 "use certify or fuzz", d->tag, 2 * d->bits);
        return -1;
    }
    if (!batch_pairs)
        batch_pairs = DEFAULT_BATCH_PAIRS;
    uint64_t k = batch_pairs / sp->n;
    sp->k = pow2_floor(k ? k : 1);
    if (sp->k > sp->n_rows)
        sp->k = (uint32_t)sp->n_rows;
    /* About 2^24 pairs per chunk, a whole number of batches. */
    uint64_t rpc = ((UINT64_C(1) << 24) / sp->n) / sp->k * sp->k;
    sp->rows_per_chunk = rpc < sp->k ? sp->k : rpc;
    if (sp->rows_per_chunk > sp->n_rows)
        sp->rows_per_chunk = sp->n_rows;
    sp->product_chunks = (sp->n_rows + sp->rows_per_chunk - 1) / sp->rows_per_chunk;
    sp->random_rows = sp->random_pairs / RANDOM_ROW;
    sp->random_chunks = (sp->random_rows + RANDOM_CHUNK_ROWS - 1) / RANDOM_CHUNK_ROWS;
    uint64_t rk = batch_pairs / RANDOM_ROW;
    sp->random_k = pow2_floor(rk ? rk : 1);
    if (sp->random_k > RANDOM_CHUNK_ROWS)
        sp->random_k = RANDOM_CHUNK_ROWS;
    sp->n_chunks = sp->product_chunks + sp->random_chunks;
    sp->cols = dvg_malloc(oracle_nbytes(dtype, sp->n) + 8);
    if (!sp->cols) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t j = 0; j < sp->n; j++)
        oracle_store(dtype, sp->cols, j, sp->table ? sp->table[j] : j);
    return 0;
}

void sweep_space_free(space *sp)
{
    dvg_free(sp->table);
    dvg_free(sp->cols);
    sp->table = NULL;
    sp->cols = NULL;
}

/* Rows and pairs of chunk c. */
void sweep_chunk_rows(const space *sp, uint64_t c, int *random, uint64_t *first,
                       uint64_t *rows, uint32_t *n)
{
    if (c < sp->product_chunks) {
        *random = 0;
        *first = c * sp->rows_per_chunk;
        *rows = sp->n_rows - *first < sp->rows_per_chunk ? sp->n_rows - *first
                                                          : sp->rows_per_chunk;
        *n = sp->n;
    } else {
        *random = 1;
        *first = (c - sp->product_chunks) * RANDOM_CHUNK_ROWS;
        *rows = sp->random_rows - *first < RANDOM_CHUNK_ROWS ? sp->random_rows - *first
                                                              : RANDOM_CHUNK_ROWS;
        *n = RANDOM_ROW;
    }
}

uint64_t sweep_chunk_pairs(const space *sp, uint64_t c)
{
    int random;
    uint64_t first, rows;
    uint32_t n;
    sweep_chunk_rows(sp, c, &random, &first, &rows, &n);
    return rows * n;
}

/* Value `i` of the product's other operand (and a product row's fixed
 * operand). */
uint64_t sweep_product_value(const space *sp, uint64_t i)
{
    return sp->table ? sp->table[i] : i;
}


int sweep_chunk_in_shard(const sweep_options *o, uint64_t c)
{
    return run_shard_holds(o->shard_index, o->shard_count, c);
}
