/* SPDX-License-Identifier: MIT */
/*
 * fuzz/fuzz_casefile.c: the case-file parser fuzz target. Feeds the bytes to
 * casefile_parse_string (harness/cases/casefile.h) as one file and frees what it
 * returns. Besides the sanitizers' checks, a parsed set must be coherent
 * (ranks, operand sizes, expectations, element bounds) and a refused one
 * must carry a NUL-terminated message; anything else traps.
 */
#include <stdint.h>
#include <string.h>

#include "harness/cases/casefile.h"
#include "oracle/dtype.h"
#include "oracle/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CASEFILE_MAX_ELEMENTS 4096u

static int case_coherent(const divcase *c)
{
    if (!oracle_dtype(c->dtype) || c->a_shape.rank > DVG_MAX_RANK ||
        c->b_shape.rank > DVG_MAX_RANK)
        return 0;
    uint64_t na = oracle_shape_count(&c->a_shape), nb = oracle_shape_count(&c->b_shape);
    if (na > FUZZ_CASEFILE_MAX_ELEMENTS || nb > FUZZ_CASEFILE_MAX_ELEMENTS)
        return 0;
    if (c->a_bytes != oracle_nbytes(c->dtype, na) || c->b_bytes != oracle_nbytes(c->dtype, nb) ||
        !c->a || !c->b)
        return 0;
    if (c->expect && c->expect_count > FUZZ_CASEFILE_MAX_ELEMENTS)
        return 0;
    if (c->n_requirements > DIVCASE_MAX_REQUIREMENTS)
        return 0;
    return memchr(c->id, 0, sizeof c->id) && memchr(c->source, 0, sizeof c->source);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    casefile_set *set = NULL;
    casefile_error err;
    memset(&err, 0, sizeof err);
    if (casefile_parse_string("fuzz.case", (const char *)data, size, FUZZ_CASEFILE_MAX_ELEMENTS,
                              &set, &err) == 0) {
        if (!set)
            __builtin_trap();
        for (size_t i = 0; i < set->count; i++)
            if (!case_coherent(&set->cases[i]))
                __builtin_trap();
        casefile_set_free(set);
    } else if (set || !memchr(err.text, 0, sizeof err.text) || !err.text[0]) {
        __builtin_trap();
    }
    return 0;
}
