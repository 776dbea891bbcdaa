/* SPDX-License-Identifier: MIT */
/*
 * This file contains the life of a division case: allocation of its
 * operand buffers through the allocation hook, deep copies, and freeing;
 * and the text of its data offsets, as case files and the store write
 * them. What a case means is in divcase.h.
 */
#include "harness/cases/divcase.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"

int divcase_alloc(divcase *c, uint64_t max_elements)
{
    return divcase_alloc_pooled(c, max_elements, NULL);
}

/* Takes a buffer of `bytes` from pool slot k, or allocates one. */
static uint8_t *pool_take(divcase_pool *pool, int k, uint64_t bytes)
{
    if (!pool || bytes < DIVCASE_POOL_MIN_BYTES || pool->cap[k] < bytes)
        return dvg_calloc(1, bytes ? bytes : 1);
    uint8_t *p = pool->buf[k];
    pool->lent[k] = p;
    pool->lent_cap[k] = pool->cap[k];
    pool->buf[k] = NULL;
    pool->cap[k] = 0;
    p[bytes - 1] = 0;
    return p;
}

/* Gives buffer p of `bytes` back to pool slot k (the larger one stays). */
static void pool_give(divcase_pool *pool, int k, uint8_t *p, uint64_t bytes)
{
    if (pool && p && p == pool->lent[k]) {
        bytes = pool->lent_cap[k];
        pool->lent[k] = NULL;
    }
    if (!pool || bytes < DIVCASE_POOL_MIN_BYTES || bytes <= pool->cap[k]) {
        dvg_free(p);
        return;
    }
    dvg_free(pool->buf[k]);
    pool->buf[k] = p;
    pool->cap[k] = bytes;
}

int divcase_alloc_pooled(divcase *c, uint64_t max_elements, divcase_pool *pool)
{
    uint64_t na = oracle_shape_count(&c->a_shape);
    uint64_t nb = oracle_shape_count(&c->b_shape);
    if (na > max_elements || nb > max_elements)
        return -1;
    c->a_bytes = oracle_nbytes(c->dtype, na);
    c->b_bytes = oracle_nbytes(c->dtype, nb);
    c->a = pool_take(pool, 0, c->a_bytes);
    c->b = pool_take(pool, 1, c->b_bytes);
    if (!c->a || !c->b) {
        pool_give(pool, 0, c->a, c->a_bytes);
        pool_give(pool, 1, c->b, c->b_bytes);
        c->a = c->b = NULL;
        return -1;
    }
    return 0;
}

void divcase_free_pooled(divcase *c, divcase_pool *pool)
{
    if (!c)
        return;
    pool_give(pool, 0, c->a, c->a_bytes);
    pool_give(pool, 1, c->b, c->b_bytes);
    c->a = c->b = NULL;
    divcase_free(c);
}

void divcase_pool_free(divcase_pool *pool)
{
    if (!pool)
        return;
    dvg_free(pool->buf[0]);
    dvg_free(pool->buf[1]);
    memset(pool, 0, sizeof *pool);
}

void divcase_free(divcase *c)
{
    if (!c)
        return;
    dvg_free(c->a);
    dvg_free(c->b);
    dvg_free(c->expect);
    memset(c, 0, sizeof *c);
}

int divcase_copy(divcase *dst, const divcase *src)
{
    *dst = *src;
    dst->a = dst->b = NULL;
    dst->expect = NULL;
    dst->a = dvg_malloc(src->a_bytes ? src->a_bytes : 1);
    dst->b = dvg_malloc(src->b_bytes ? src->b_bytes : 1);
    if (src->expect)
        dst->expect = dvg_malloc(src->expect_count * sizeof *src->expect);
    if (!dst->a || !dst->b || (src->expect && !dst->expect)) {
        divcase_free(dst);
        return -1;
    }
    memcpy(dst->a, src->a, src->a_bytes);
    memcpy(dst->b, src->b, src->b_bytes);
    if (src->expect)
        memcpy(dst->expect, src->expect, src->expect_count * sizeof *src->expect);
    return 0;
}

uint32_t divcase_data_offset(const divcase *c, int which, uint64_t nbytes)
{
    if (c->offsets.set)
        return c->offsets.at[which] & 63u;
    return (uint32_t)((0 - nbytes) & 63u);
}

char *divcase_offsets_format(const divcase_offsets *o, char *buf, size_t len)
{
    if (!len)
        return buf;
    if (!o->set)
        buf[0] = '\0';
    else
        snprintf(buf, len, "a=%u b=%u c=%u", (unsigned)o->at[DIVCASE_A],
                 (unsigned)o->at[DIVCASE_B], (unsigned)o->at[DIVCASE_C]);
    return buf;
}

int divcase_offsets_parse(const char *text, divcase_offsets *o, char *why, size_t len)
{
    divcase_offsets r;
    memset(&r, 0, sizeof r);
    int given[3] = {0, 0, 0};
    const char *q = text;
    for (;;) {
        while (*q == ' ' || *q == '\t')
            q++;
        if (!*q)
            break;
        int k = *q == 'a' ? DIVCASE_A : *q == 'b' ? DIVCASE_B : *q == 'c' ? DIVCASE_C : -1;
        if (k < 0 || q[1] != '=') {
            snprintf(why, len, "'%.20s' is not a=N, b=N or c=N", q);
            return -1;
        }
        if (given[k]++) {
            snprintf(why, len, "%c given twice", *q);
            return -1;
        }
        q += 2;
        unsigned v = 0;
        int digits = 0;
        while (*q >= '0' && *q <= '9' && v < 1000) {
            v = v * 10 + (unsigned)(*q++ - '0');
            digits++;
        }
        if (!digits || v > 63 || (*q && *q != ' ' && *q != '\t')) {
            snprintf(why, len, "the offset of %c is not a number of bytes from 0 to 63",
                     "abc"[k]);
            return -1;
        }
        r.at[k] = (uint8_t)v;
        r.set = 1;
    }
    *o = r;
    return 0;
}
