/* SPDX-License-Identifier: MIT */
/*
 * This file contains the writer of the case-file format (casefile.h,
 * casefile_write), the inverse of its parser: one block whose variant,
 * dtype, attributes, shapes, operands (their bits, so every NaN payload
 * and i4/u4 nibble comes back), data offsets and expectation (the
 * oracle's: the output shape and each element's answer, or `invalid`)
 * load back into the same case.
 */
#include "harness/cases/casefile.h"

#include <inttypes.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/rules.h"
#include "oracle/shape.h"
#include "oracle/variant.h"

/* Values per line of a value list (later lines continue it). */
#define VALUES_PER_LINE 16

/* A case name from `name`: letters, digits and ._+/-=@ kept, any other
 * byte '-', at most CASEFILE_MAX_NAME bytes; "case" when empty. */
static void clean_name(const char *name, char *out)
{
    size_t n = 0;
    for (const char *s = name ? name : ""; *s && n < CASEFILE_MAX_NAME; s++) {
        char ch = *s;
        int keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                   (ch >= '0' && ch <= '9') || strchr("._+/-=@", ch);
        out[n++] = keep && ch ? ch : '-';
    }
    if (!n)
        memcpy(out, "case", (n = 4));
    out[n] = '\0';
}

/* The requirement a case that names none is written with: the spec
 * sentence every quotient of its variant answers to. */
static const char *fallback_requirement(uint32_t variant, uint32_t dtype)
{
    const char *v = oracle_variant_get(variant)->name;
    if (!strncmp(v, "openvino", 8))
        return "OV-DIVIDE-FORMULA";
    if (!strncmp(v, "sonnx", 5))
        return oracle_dtype(dtype)->kind == DVG_KIND_FLOAT ? "SONNX-FLOAT-QUOTIENT"
                                                            : "SONNX-INT-FLOOR";
    return "ONNX-SAME-TYPE";
}

/* The `attr:` value: the attributes as oracle_attrs_format writes them,
 * but for OpenVINO's default axis (-1) when it was not given, which the
 * parser would read as given. */
static void attr_text(const oracle_variant *v, const dvg_attrs *a, char *buf, size_t len)
{
    oracle_attrs_format(v, a, buf, len);
    char *axis = strstr(buf, "axis=");
    if (a->axis_set || a->axis != -1 || !axis)
        return;
    char *end = strchr(axis, ' ');
    if (end)
        memmove(axis, end + 1, strlen(end + 1) + 1);
    else
        axis[axis > buf ? -1 : 0] = '\0';
}

static void write_shape(FILE *out, const char *key, const oracle_shape *s)
{
    fprintf(out, "%s: ", key);
    if (!s->rank)
        fputs("()", out);
    for (uint32_t k = 0; k < s->rank; k++)
        fprintf(out, "%s%" PRId64, k ? "x" : "", s->dims[k]);
    fputc('\n', out);
}

/* `key: v0 v1 ...`, each value's bits in hex, VALUES_PER_LINE a line. */
static void write_values(FILE *out, const char *key, uint32_t dtype, const uint8_t *p,
                         uint64_t n)
{
    fprintf(out, "%s:", key);
    for (uint64_t i = 0; i < n; i++)
        fprintf(out, "%s0x%" PRIx64, i && i % VALUES_PER_LINE == 0 ? "\n   " : " ",
                oracle_load(dtype, p, i));
    fputc('\n', out);
}

/* The oracle's answer for one element, as `expect:` writes it. */
static void write_elem(FILE *out, const oracle_elem *e)
{
    switch (e->kind) {
    case ORACLE_ANY_NAN: fputs("nan", out); break;
    case ORACLE_ANY_INF: fputs("any-inf", out); break;
    case ORACLE_UNSPECIFIED: fputs("unspecified", out); break;
    default: fprintf(out, "0x%" PRIx64, e->bits); break;
    }
}

/* The expectation: `expect: invalid`, or the output shape and, up to
 * CASEFILE_WRITE_MAX_EXPECT elements, each element's answer. 0 or -1. */
static int write_expect(FILE *out, const divcase *c, const oracle_rules *r, casefile_error *err)
{
    oracle_plan p;
    oracle_error why;
    int rc = oracle_plan_shapes(r, &c->a_shape, &c->b_shape, &p, &why);
    if (rc == ORACLE_INVALID) {
        fputs("expect: invalid\n", out);
        return 0;
    }
    if (rc != ORACLE_OK) {
        snprintf(err->text, sizeof err->text, "case %s: %s", c->id, why.text);
        return -1;
    }
    write_shape(out, "expect.shape", &p.out);
    if (p.count > CASEFILE_WRITE_MAX_EXPECT)
        return 0;
    fputs("expect:", out);
    for (uint64_t i = 0; i < p.count; i++) {
        uint64_t ao, bo;
        oracle_elem e;
        oracle_plan_offsets(&p, i, &ao, &bo);
        oracle_expect(r, oracle_load(c->dtype, c->a, ao), oracle_load(c->dtype, c->b, bo), &e);
        fputs(i && i % VALUES_PER_LINE == 0 ? "\n   " : " ", out);
        write_elem(out, &e);
    }
    fputc('\n', out);
    return 0;
}

int casefile_write(FILE *out, const char *name, const divcase *c, casefile_error *err)
{
    casefile_error none;
    if (!err)
        err = &none;
    err->line = 0;
    err->text[0] = '\0';
    oracle_rules r;
    oracle_error why;
    if (!oracle_dtype(c->dtype) || !oracle_variant_get(c->variant) ||
        oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, &why)) {
        snprintf(err->text, sizeof err->text, "case %s: %s", c->id,
                 oracle_dtype(c->dtype) && oracle_variant_get(c->variant) ? why.text
                                                                         : "unknown variant or dtype");
        return -1;
    }
    const oracle_variant *v = oracle_variant_get(c->variant);
    char cname[CASEFILE_MAX_NAME + 1], attrs[160], offs[32];
    clean_name(name ? name : c->id, cname);
    fprintf(out, "case %s\n", cname);
    fprintf(out, "note: written by casefile_write from case %.95s%s%.159s\n", c->id,
            c->source[0] ? ", " : "", c->source);
    fprintf(out, "variant: %s\ndtype: %s\n", v->name, oracle_dtype_tag(c->dtype));
    attr_text(v, &c->attrs, attrs, sizeof attrs);
    if (attrs[0])
        fprintf(out, "attr: %s\n", attrs);
    fputs("requirement:", out);
    for (uint32_t i = 0; i < c->n_requirements; i++)
        fprintf(out, " %s", c->requirements[i]);
    if (!c->n_requirements)
        fprintf(out, " %s", fallback_requirement(c->variant, c->dtype));
    fputc('\n', out);
    if (c->offsets.set)
        fprintf(out, "offsets: %s\n", divcase_offsets_format(&c->offsets, offs, sizeof offs));
    write_shape(out, "a.shape", &c->a_shape);
    write_values(out, "a", c->dtype, c->a, oracle_shape_count(&c->a_shape));
    write_shape(out, "b.shape", &c->b_shape);
    write_values(out, "b", c->dtype, c->b, oracle_shape_count(&c->b_shape));
    if (write_expect(out, c, &r, err))
        return -1;
    if (ferror(out)) {
        snprintf(err->text, sizeof err->text, "case %s: write error", c->id);
        return -1;
    }
    return 0;
}
