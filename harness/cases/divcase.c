/* SPDX-License-Identifier: MIT */
/*
 * This file contains the life of a division case: allocation of its
 * operand buffers through the allocation hook, deep copies, and freeing.
 * What a case means is in divcase.h.
 */
#include "harness/cases/divcase.h"

#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"

int divcase_alloc(divcase *c, uint64_t max_elements)
{
    uint64_t na = oracle_shape_count(&c->a_shape);
    uint64_t nb = oracle_shape_count(&c->b_shape);
    if (na > max_elements || nb > max_elements)
        return -1;
    c->a_bytes = oracle_nbytes(c->dtype, na);
    c->b_bytes = oracle_nbytes(c->dtype, nb);
    c->a = dvg_calloc(1, c->a_bytes ? c->a_bytes : 1);
    c->b = dvg_calloc(1, c->b_bytes ? c->b_bytes : 1);
    if (!c->a || !c->b) {
        dvg_free(c->a);
        dvg_free(c->b);
        c->a = c->b = NULL;
        return -1;
    }
    return 0;
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
