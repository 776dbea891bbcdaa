/* SPDX-License-Identifier: MIT */
/*
 * casefile_write, the inverse of the case-file parser: every case of
 * cases/ (argv[1]) and generated cases of every variant and dtype (random
 * shapes and broadcasting, invalid inputs, rank 0, empty tensors, odd
 * i4/u4 counts, data offsets, shape paths up to 2^12 + 1 elements) go
 * load -> write -> load and come back the same: variant, dtype,
 * attributes, shapes, operand bytes, offsets and the expectation; and
 * writing the reloaded case gives the same text again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness/cases/casefile.h"
#include "harness/cases/gen.h"
#include "harness/cases/shapes.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

/* The text casefile_write gives for c (malloc'd), or NULL. */
static char *written(const divcase *c, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    casefile_error err;
    int rc = casefile_write(out, NULL, c, &err);
    fclose(out);
    CHECKF(rc == 0, "case %s: %s", c->id, err.text);
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}

/* s past its first n lines. */
static const char *skip_lines(const char *s, int n)
{
    while (n-- > 0 && (s = strchr(s, '\n')))
        s++;
    return s ? s : "";
}

/* The same attributes as the variant reads them (an attribute the variant
 * has not is no part of the case; whether an axis was given matters to
 * ONNX's legacy broadcasting only). */
static int same_attrs(uint32_t variant, const dvg_attrs *x, const dvg_attrs *y)
{
    const oracle_variant *v = oracle_variant_get(variant);
    char tx[160], ty[160];
    oracle_attrs_format(v, x, tx, sizeof tx);
    oracle_attrs_format(v, y, ty, sizeof ty);
    return !strcmp(tx, ty) &&
           (!(v->attr_keys & ORACLE_ATTR_BROADCAST) || x->axis_set == y->axis_set);
}

static int same_elems(const divcase *x, const divcase *y)
{
    if (!x->expect || !y->expect)
        return 1; /* one of them states the shape alone */
    if (x->expect_count != y->expect_count)
        return 0;
    for (uint64_t i = 0; i < x->expect_count; i++)
        if (x->expect[i].kind != y->expect[i].kind ||
            (x->expect[i].kind == ORACLE_EXACT && x->expect[i].bits != y->expect[i].bits))
            return 0;
    return 1;
}

/* c -> text -> case: the same case, and the same text once more. */
static void round_trip(const divcase *c)
{
    size_t len;
    char *text = written(c, &len);
    if (!text)
        return;
    casefile_set *set = NULL;
    casefile_error err;
    int rc = casefile_parse_string("written.case", text, len, 0, &set, &err);
    CHECKF(rc == 0 && set->count == 1, "case %s: its text does not load back: %s\n%.600s", c->id,
           rc ? err.text : "more than one case", text);
    if (rc == 0 && set->count == 1) {
        const divcase *d = &set->cases[0];
        CHECKF(d->variant == c->variant && d->dtype == c->dtype, "case %s: variant or dtype",
               c->id);
        CHECKF(same_attrs(c->variant, &d->attrs, &c->attrs), "case %s: attributes", c->id);
        CHECKF(oracle_shape_equal(&d->a_shape, &c->a_shape) &&
               oracle_shape_equal(&d->b_shape, &c->b_shape), "case %s: shapes", c->id);
        CHECKF(d->a_bytes == c->a_bytes && d->b_bytes == c->b_bytes &&
               !memcmp(d->a, c->a, c->a_bytes) && !memcmp(d->b, c->b, c->b_bytes),
               "case %s: operand bytes", c->id);
        CHECKF(d->offsets.set == c->offsets.set &&
               (!c->offsets.set || !memcmp(d->offsets.at, c->offsets.at, 3)),
               "case %s: offsets", c->id);
        if (c->expect_invalid || c->has_expect_shape) /* from a case file: its expectation */
            CHECKF(d->expect_invalid == c->expect_invalid &&
                   (!c->has_expect_shape || oracle_shape_equal(&d->expect_shape, &c->expect_shape)) &&
                   same_elems(c, d), "case %s: the expectation", c->id);
        size_t len2;
        char *again = written(d, &len2);
        /* but for its name and note, which say where it came from */
        const char *x = skip_lines(text, 2), *y = again ? skip_lines(again, 2) : "";
        CHECKF(again && !strcmp(x, y), "case %s: writing the loaded case gives other text", c->id);
        free(again);
    }
    casefile_set_free(set);
    free(text);
}

/* Generated cases of every (variant, dtype) the table allows. */
static uint64_t generated(void)
{
    uint64_t n = 0;
    for (uint32_t vi = 0; vi < oracle_variant_count(); vi++) {
        const oracle_variant *v = oracle_variant_at(vi);
        for (uint32_t d = 1; d < DVG_DTYPE_COUNT; d++) {
            if (!oracle_variant_has_dtype(v, d))
                continue;
            gen_rng g;
            gen_seed(&g, 7, (uint64_t)vi * 64 + d);
            for (int i = 0; i < 12; i++) { /* one in three invalid */
                divcase c;
                CHECK(gen_case(&g, v->id, d, NULL, 1, 3, i < 6 ? 5 : 64, "gen", &c) == 0);
                round_trip(&c);
                divcase_free(&c);
                n++;
            }
            for (int i = 0; i < 6; i++) { /* drawn shape paths, some with offsets */
                shapes_spec s;
                divcase c;
                shapes_draw(&g, v->id, d, i < 3 ? 7 : 4097, &s);
                CHECK(shapes_case(&g, v->id, d, &s, "shape", &c) == 0);
                round_trip(&c);
                divcase_free(&c);
                n++;
            }
            divcase e;
            CHECK(gen_edge_case(v->id, d, NULL, "edges", &e) == 0);
            round_trip(&e);
            divcase_free(&e);
            n++;
        }
    }
    return n;
}

/* Cases whose operands a round trip must keep bit for bit: NaN payloads
 * and odd i4/u4 counts, an offset of every tensor. */
static void bits(void)
{
    static const char text[] =
        "case bits/f16\nvariant: onnx-div-14\ndtype: f16\nrequirement: IEEE-INVALID-NAN\n"
        "offsets: a=2 b=62 c=30\na.shape: 3\na: 0x7e01 0xfc00 0x8000\nb.shape: 3\n"
        "b: 0xfd55 0x0001 0x7bff\nexpect.shape: 3\n"
        "case bits/i4\nvariant: openvino-divide-1\ndtype: i4 u4\nrequirement: SEM-SUBBYTE-PACKING\n"
        "a.shape: 5\na: 0x7 0xf 0x8 0x1 0x3\nb.shape: 5\nb: 0x2 0x3 0x5 0x7 0x1\n"
        "expect.shape: 5\n"
        "case bits/scalar\nvariant: sonnx-div\ndtype: i8\nrequirement: SONNX-R1\n"
        "a.shape: ()\na: -7\nb.shape: ()\nb: 2\nexpect.shape: ()\nexpect: -4\n"
        "case bits/empty\nvariant: onnx-div-7\ndtype: f64\nrequirement: ONNX-NUMPY-BCAST\n"
        "a.shape: 0x3\na:\nb.shape: 4\nb: 1 2 3 4\nexpect: invalid\n";
    casefile_set *set = NULL;
    casefile_error err;
    CHECKF(casefile_parse_string("bits.case", text, sizeof text - 1, 0, &set, &err) == 0, "%s",
           err.text);
    for (size_t i = 0; set && i < set->count; i++)
        round_trip(&set->cases[i]);
    casefile_set_free(set);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_casefile_write CASES_DIR\n");
        return 2;
    }
    bits();
    casefile_set *set = NULL;
    casefile_error err;
    CHECKF(casefile_load(argv[1], 0, &set, &err) == 0, "%s", err.text);
    for (size_t i = 0; set && i < set->count; i++)
        round_trip(&set->cases[i]);
    printf("%zu cases of %s and %llu generated ones written and loaded back\n",
           set ? set->count : 0, argv[1], (unsigned long long)generated());
    casefile_set_free(set);
    return check_done("casefile_write");
}
