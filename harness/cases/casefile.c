/* SPDX-License-Identifier: MIT */
/*
 * The case-file parser. cases/README.md is the format as people read it;
 * this file is the same format as a machine reads it:
 *
 *   file     := line*
 *   line     := blank | comment | "case" NAME | KEY ":" VALUE | BLANK VALUE
 *   KEY      := variant | dtype | attr | requirement | a.shape | a | b.shape
 *             | b | expect.shape | expect | offsets | note
 *
 * A line that begins with a blank continues the VALUE of the key above it.
 * A block is read whole, then checked and expanded into divcases by
 * build_block(); the first problem stops the parse with "FILE:LINE: ...".
 * Each value token is the oracle's case-file literal (oracle/value.h:
 * oracle_value_parse_literal), rounding included.
 */
#include "harness/cases/casefile_internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/base/datadir.h"
#include "oracle/dtype.h"
#include "oracle/requirements.h"
#include "oracle/rules.h"
#include "oracle/shape.h"
#include "oracle/value.h"
#include "oracle/variant.h"


static const char *const key_names[K_COUNT] = {
    "variant", "dtype", "attr", "requirement", "a.shape", "a",
    "b.shape", "b", "expect.shape", "expect", "offsets", "note",
};

#define KEY_LIST                                                                   \
    "variant, dtype, attr, requirement, a.shape, a, b.shape, b, expect.shape, expect, "    \
    "offsets, note"

static int key_is_shape(int k)
{
    return k == K_A_SHAPE || k == K_B_SHAPE || k == K_EXPECT_SHAPE;
}

int casefile_fail(parser *p, uint32_t line, const char *fmt, ...)
{
    if (!p->err)
        return -1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->err->line = line;
    if (line)
        snprintf(p->err->text, sizeof p->err->text, "%s:%u: %s", p->path, (unsigned)line, msg);
    else
        snprintf(p->err->text, sizeof p->err->text, "%s: %s", p->path, msg);
    return -1;
}

/* ---------------------------------------------------------------------------
 * Blocks
 * ------------------------------------------------------------------------- */

/* Splits the segments of field k into tokens (blanks separate them; in
 * value lists commas do too). */
static int split_field(parser *p, int k)
{
    field *fl = &p->fields[k];
    int commas = k == K_A || k == K_B || k == K_EXPECT;
    fl->tok_first = p->n_toks;
    fl->tok_count = 0;
    for (size_t i = 0; i < fl->seg_count; i++) {
        segment *sg = &p->segs[fl->seg_first + i];
        char *q = sg->text;
        for (;;) {
            while (*q && (isspace((unsigned char)*q) || (commas && *q == ',')))
                q++;
            if (!*q)
                break;
            char *start = q;
            while (*q && !isspace((unsigned char)*q) && !(commas && *q == ','))
                q++;
            if (*q)
                *q++ = '\0';
            if (dvg_grow((void **)&p->toks, &p->cap_toks, p->n_toks + 1, sizeof *p->toks))
                return casefile_fail(p, sg->line, "out of memory");
            p->toks[p->n_toks++] = (token){start, sg->line};
            fl->tok_count++;
        }
    }
    return 0;
}

static const token *toks_of(parser *p, int k)
{
    return p->toks + p->fields[k].tok_first;
}

/* Element count of a shape, or UINT64_MAX when it exceeds `limit`. */
static uint64_t count_within(const oracle_shape *s, uint64_t limit)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        if (s->dims[i] == 0)
            return 0;
    for (uint32_t i = 0; i < s->rank; i++) {
        uint64_t d = (uint64_t)s->dims[i];
        if (n > limit / d)
            return UINT64_MAX;
        n *= d;
    }
    return n > limit ? UINT64_MAX : n;
}

static int parse_shape_field(parser *p, int k, oracle_shape *s, uint64_t *count)
{
    field *fl = &p->fields[k];
    oracle_error oe;
    const char *text = p->segs[fl->seg_first].text;
    char buf[128];
    if (oracle_shape_parse(text, s, &oe))
        return casefile_fail(p, fl->line, "%s: %s", key_names[k], oe.text);
    *count = count_within(s, p->max_elements);
    if (*count == UINT64_MAX)
        return casefile_fail(p, fl->line, "%s %s holds more than the limit of %" PRIu64
                    " elements per tensor", key_names[k],
                    oracle_shape_format(s, buf, sizeof buf), p->max_elements);
    return 0;
}

/* Checks that a value list matches the element count (generators: any). */
static int check_count(parser *p, int k, const char *shape_key, const oracle_shape *s,
                       uint64_t count)
{
    field *fl = &p->fields[k];
    const token *t = toks_of(p, k);
    char buf[128];
    if (fl->tok_count && casefile_is_generator(t[0].s))
        return 0;
    if ((uint64_t)fl->tok_count != count)
        return casefile_fail(p, fl->line, "%s: %zu value%s for %s %s, which holds %" PRIu64
                    " element%s", key_names[k], fl->tok_count, fl->tok_count == 1 ? "" : "s",
                    shape_key, oracle_shape_format(s, buf, sizeof buf), count,
                    count == 1 ? "" : "s");
    return 0;
}

static void meta_free(casefile_meta *m)
{
    if (m)
        dvg_free(m->runs);
}

static int set_push(parser *p, divcase *c, casefile_meta *m)
{
    casefile_set *s = p->set;
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        if (cap > SIZE_MAX / sizeof *s->cases)
            return casefile_fail(p, m->line, "too many cases");
        divcase *cases = dvg_realloc(s->cases, cap * sizeof *cases);
        if (!cases)
            return casefile_fail(p, m->line, "out of memory");
        s->cases = cases;
        casefile_meta *meta = dvg_realloc(s->meta, cap * sizeof *meta);
        if (!meta)
            return casefile_fail(p, m->line, "out of memory");
        s->meta = meta;
        s->cap = cap;
    }
    s->cases[s->count] = *c;
    s->meta[s->count] = *m;
    s->count++;
    return 0;
}

static const char *variant_names(char *buf, size_t len)
{
    buf[0] = '\0';
    for (uint32_t i = 0; i < oracle_variant_count(); i++) {
        if (i)
            strncat(buf, ", ", len - strlen(buf) - 1);
        strncat(buf, oracle_variant_at(i)->name, len - strlen(buf) - 1);
    }
    return buf;
}

static const char *dtype_names(uint32_t mask, char *buf, size_t len)
{
    buf[0] = '\0';
    for (uint32_t d = 1; d < DVG_DTYPE_COUNT; d++)
        if (mask >> d & 1u) {
            if (buf[0])
                strncat(buf, " ", len - strlen(buf) - 1);
            strncat(buf, oracle_dtype_tag(d), len - strlen(buf) - 1);
        }
    return buf;
}

/* Builds one divcase for (variant v, dtype d) of the current block. */
static int build_one(parser *p, const oracle_variant *v, uint32_t dtype, int multi_v,
                     int multi_d, const dvg_attrs *attrs, const oracle_shape *as,
                     const oracle_shape *bs, const oracle_shape *es, uint64_t e_count,
                     const char *const *reqs, uint32_t n_reqs, int invalid,
                     const divcase_offsets *offsets)
{
    divcase c;
    casefile_meta m;
    field *f = p->fields;
    int rc = -1;
    memset(&c, 0, sizeof c);
    memset(&m, 0, sizeof m);

    snprintf(c.id, sizeof c.id, "%s%s%s%s%s", p->name, multi_v ? ":" : "",
             multi_v ? v->name : "", multi_d ? ":" : "", multi_d ? oracle_dtype_tag(dtype) : "");
    c.variant = v->id;
    c.dtype = dtype;
    c.attrs = *attrs;
    c.a_shape = *as;
    c.b_shape = *bs;
    c.offsets = *offsets;
    for (uint32_t i = 0; i < n_reqs; i++)
        c.requirements[i] = reqs[i];
    c.n_requirements = n_reqs;
    size_t plen = strlen(p->path);
    if (plen + 12 < sizeof c.source)
        snprintf(c.source, sizeof c.source, "%s:%u", p->path, (unsigned)p->line);
    else
        snprintf(c.source, sizeof c.source, "...%s:%u",
                 p->path + plen - (sizeof c.source - 16), (unsigned)p->line);
    c.expect_invalid = invalid;
    if (f[K_EXPECT_SHAPE].line) {
        c.expect_shape = *es;
        c.has_expect_shape = 1;
    }

    memcpy(m.name, p->name, sizeof m.name);
    m.path = p->path;
    m.line = p->line;
    m.expect_line = f[K_EXPECT].line;
    m.expect_shape_line = f[K_EXPECT_SHAPE].line;
    m.block = p->set->n_blocks;

    if (divcase_alloc(&c, p->max_elements)) {
        casefile_fail(p, p->line, "out of memory for the operands of case '%s'", p->name);
        goto done;
    }
    sink ka = {dtype, c.a, NULL}, kb = {dtype, c.b, NULL};
    if (casefile_fill_values(p, "a", toks_of(p, K_A), f[K_A].tok_count,
                    oracle_shape_count(as), &ka, 0, NULL, NULL) ||
        casefile_fill_values(p, "b", toks_of(p, K_B), f[K_B].tok_count,
                    oracle_shape_count(bs), &kb, 0, NULL, NULL))
        goto done;
    if (f[K_EXPECT].line && !invalid) {
        if (e_count > SIZE_MAX / sizeof *c.expect) {
            casefile_fail(p, f[K_EXPECT].line, "too many expected values");
            goto done;
        }
        c.expect = dvg_malloc((size_t)(e_count ? e_count : 1) * sizeof *c.expect);
        if (!c.expect) {
            casefile_fail(p, f[K_EXPECT].line, "out of memory for the expected values");
            goto done;
        }
        c.expect_count = e_count;
        sink ke = {dtype, NULL, c.expect};
        if (casefile_fill_values(p, "expect", toks_of(p, K_EXPECT),
                        f[K_EXPECT].tok_count, e_count, &ke, 1, &m.runs, &m.n_runs))
            goto done;
    }
    if (set_push(p, &c, &m))
        goto done;
    return 0;
done:
    divcase_free(&c);
    meta_free(&m);
    return rc;
}

/* Checks the block just read and appends its cases to the set. */
/* The block's required keys are there, and every list field split into
 * tokens. 0 or -1. */
static int check_fields(parser *p)
{
    field *f = p->fields;
    static const int required[] = {K_VARIANT, K_DTYPE, K_REQUIREMENT, K_A_SHAPE, K_A,
                                   K_B_SHAPE, K_B};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!f[required[i]].line)
            return casefile_fail(p, p->line, "case '%s' has no '%s:' line", p->name,
                        key_names[required[i]]);
    if (!f[K_EXPECT].line && !f[K_EXPECT_SHAPE].line)
        return casefile_fail(p, p->line, "case '%s' states no expectation: write 'expect.shape: ...' "
                    "(and optionally 'expect: VALUES') or 'expect: invalid'", p->name);
    for (int k = 0; k < K_COUNT; k++)
        if (f[k].line && !key_is_shape(k) && k != K_NOTE && split_field(p, k))
            return -1;
    return 0;
}

/* The variants named, into vs[0..*nv). 0 or -1. */
static int parse_variants(parser *p, const oracle_variant **vs, size_t *nv)
{
    char buf[400];
    field *f = p->fields;
    const token *t = toks_of(p, K_VARIANT);
    *nv = f[K_VARIANT].tok_count;
    if (!*nv)
        return casefile_fail(p, f[K_VARIANT].line, "variant: no variant named (known: %s)",
                    variant_names(buf, sizeof buf));
    for (size_t i = 0; i < *nv; i++) {
        const oracle_variant *v = oracle_variant_by_name(t[i].s);
        if (!v)
            return casefile_fail(p, t[i].line, "variant: unknown variant '%s' (known: %s)", t[i].s,
                        variant_names(buf, sizeof buf));
        for (size_t j = 0; j < i; j++)
            if (vs[j] == v)
                return casefile_fail(p, t[i].line, "variant: '%s' named twice", t[i].s);
        vs[i] = v;
    }
    return 0;
}

/* The dtypes named, into ds[0..*nd), each in every variant's list. 0 or -1. */
static int parse_dtypes(parser *p, const oracle_variant *const *vs, size_t nv, uint32_t *ds,
                        size_t *nd)
{
    char buf[400];
    field *f = p->fields;
    const token *t = toks_of(p, K_DTYPE);
    *nd = f[K_DTYPE].tok_count;
    if (!*nd)
        return casefile_fail(p, f[K_DTYPE].line, "dtype: no dtype named");
    for (size_t i = 0; i < *nd; i++) {
        uint32_t d = oracle_dtype_by_tag(t[i].s);
        if (d == DVG_DTYPE_NONE)
            return casefile_fail(p, t[i].line, "dtype: unknown dtype '%s' (known: %s)", t[i].s,
                        dtype_names(~0u, buf, sizeof buf));
        for (size_t j = 0; j < i; j++)
            if (ds[j] == d)
                return casefile_fail(p, t[i].line, "dtype: '%s' named twice", t[i].s);
        for (size_t j = 0; j < nv; j++)
            if (!oracle_variant_has_dtype(vs[j], d))
                return casefile_fail(p, t[i].line, "dtype: %s is not in the type list of %s (%s)",
                            t[i].s, vs[j]->name, dtype_names(vs[j]->dtypes, buf, sizeof buf));
        ds[i] = d;
    }
    return 0;
}

/* The requirement IDs, into reqs[0..*n). 0 or -1. */
static int parse_requirements(parser *p, const char **reqs, uint32_t *n)
{
    field *f = p->fields;
    const token *t = toks_of(p, K_REQUIREMENT);
    *n = 0;
    if (!f[K_REQUIREMENT].tok_count)
        return casefile_fail(p, f[K_REQUIREMENT].line, "requirement: no requirement ID named");
    for (size_t i = 0; i < f[K_REQUIREMENT].tok_count; i++) {
        const oracle_requirement *r = oracle_requirement_find(t[i].s);
        if (!r)
            return casefile_fail(p, t[i].line, "requirement: unknown requirement ID '%s' (see "
                        "'divergence cases --matrix')", t[i].s);
        for (uint32_t j = 0; j < *n; j++)
            if (reqs[j] == r->id)
                return casefile_fail(p, t[i].line, "requirement: '%s' named twice", t[i].s);
        if (*n == DIVCASE_MAX_REQUIREMENTS)
            return casefile_fail(p, t[i].line, "requirement: more than %d requirement IDs",
                        DIVCASE_MAX_REQUIREMENTS);
        reqs[(*n)++] = r->id;
    }
    return 0;
}

/* The expectation: *invalid, or the expected shape *es (*e_count
 * elements) when given. 0 or -1. */
static int parse_expect(parser *p, int *invalid, oracle_shape *es, uint64_t *e_count)
{
    field *f = p->fields;
    *invalid = 0;
    *e_count = 0;
    memset(es, 0, sizeof *es);
    if (f[K_EXPECT].line) {
        const token *t = toks_of(p, K_EXPECT);
        size_t n = f[K_EXPECT].tok_count;
        for (size_t i = 0; i < n; i++)
            if (!strcmp(t[i].s, "invalid") && (n != 1))
                return casefile_fail(p, t[i].line, "expect: 'invalid' stands alone on its line");
        *invalid = n == 1 && !strcmp(t[0].s, "invalid");
        if (*invalid && f[K_EXPECT_SHAPE].line)
            return casefile_fail(p, f[K_EXPECT_SHAPE].line,
                        "expect.shape: contradicts 'expect: invalid' (line %u)",
                        (unsigned)f[K_EXPECT].line);
        if (!*invalid && !f[K_EXPECT_SHAPE].line)
            return casefile_fail(p, f[K_EXPECT].line,
                        "expect: values need an 'expect.shape:' line giving their shape");
    }
    if (f[K_EXPECT_SHAPE].line && parse_shape_field(p, K_EXPECT_SHAPE, es, e_count))
        return -1;
    if (f[K_EXPECT].line && !*invalid && check_count(p, K_EXPECT, "expect.shape", es, *e_count))
        return -1;
    return 0;
}

/* The data offsets: "a=N b=N c=N", one left out is 0. 0 or -1. */
static int parse_offsets(parser *p, divcase_offsets *offsets)
{
    field *f = p->fields;
    memset(offsets, 0, sizeof *offsets);
    if (!f[K_OFFSETS].line)
        return 0;
    char text[128] = "", why[128];
    const token *t = toks_of(p, K_OFFSETS);
    if (!f[K_OFFSETS].tok_count)
        return casefile_fail(p, f[K_OFFSETS].line, "offsets: no offset given (a=N b=N c=N)");
    for (size_t i = 0; i < f[K_OFFSETS].tok_count; i++) {
        if (strlen(text) + strlen(t[i].s) + 2 > sizeof text)
            return casefile_fail(p, t[i].line, "offsets: too long");
        strcat(text, " ");
        strcat(text, t[i].s);
    }
    if (divcase_offsets_parse(text, offsets, why, sizeof why))
        return casefile_fail(p, f[K_OFFSETS].line, "offsets: %s", why);
    return 0;
}

/* The attributes of variant v: its defaults with the block's. 0 or -1. */
static int parse_attrs(parser *p, const oracle_variant *v, dvg_attrs *attrs)
{
    field *f = p->fields;
    oracle_error oe;
    oracle_attrs_default(v, attrs);
    const token *t = toks_of(p, K_ATTR);
    for (size_t j = 0; j < f[K_ATTR].tok_count; j++) {
        char kv[128];
        const char *eq = strchr(t[j].s, '=');
        if (!eq || eq == t[j].s || strlen(t[j].s) >= sizeof kv)
            return casefile_fail(p, t[j].line, "attr: '%s' is not key=value", t[j].s);
        memcpy(kv, t[j].s, strlen(t[j].s) + 1);
        kv[eq - t[j].s] = '\0';
        for (size_t q = 0; q < j; q++)
            if (!strncmp(t[q].s, kv, strlen(kv)) && t[q].s[strlen(kv)] == '=')
                return casefile_fail(p, t[j].line, "attr: '%s' given twice", kv);
        if (oracle_attrs_set(v, attrs, kv, kv + (eq - t[j].s) + 1, &oe))
            return casefile_fail(p, t[j].line, "attr: %s", oe.text);
    }
    return 0;
}

static int build_block(parser *p)
{
    field *f = p->fields;
    const oracle_variant *vs[DVG_VARIANT_COUNT];
    uint32_t ds[DVG_DTYPE_COUNT];
    size_t nv, nd;
    const char *reqs[DIVCASE_MAX_REQUIREMENTS];
    uint32_t n_reqs;
    oracle_shape as, bs, es;
    uint64_t a_count, b_count, e_count;
    int invalid;
    divcase_offsets offsets;
    /* everything checked, shapes and counts too, before anything is allocated */
    if (check_fields(p) || parse_variants(p, vs, &nv) || parse_dtypes(p, vs, nv, ds, &nd) ||
        parse_requirements(p, reqs, &n_reqs) || parse_shape_field(p, K_A_SHAPE, &as, &a_count) ||
        parse_shape_field(p, K_B_SHAPE, &bs, &b_count) ||
        check_count(p, K_A, "a.shape", &as, a_count) ||
        check_count(p, K_B, "b.shape", &bs, b_count) || parse_expect(p, &invalid, &es, &e_count) ||
        parse_offsets(p, &offsets))
        return -1;
    /* attributes, per variant; then every (variant, dtype) */
    for (size_t i = 0; i < nv; i++) {
        dvg_attrs attrs;
        if (parse_attrs(p, vs[i], &attrs))
            return -1;
        for (size_t j = 0; j < nd; j++) {
            oracle_rules r;
            oracle_error oe;
            if (oracle_rules_resolve(vs[i]->id, ds[j], &attrs, &r, &oe))
                return casefile_fail(p, f[K_ATTR].line ? f[K_ATTR].line : f[K_DTYPE].line, "%s",
                            oe.text);
            if (p->want && !p->want(p->want_ctx, vs[i]->id, ds[j]))
                continue;
            if (build_one(p, vs[i], ds[j], nv > 1, nd > 1, &attrs, &as, &bs, &es, e_count,
                          reqs, n_reqs, invalid, &offsets))
                return -1;
        }
    }
    return 0;
}

static void block_reset(parser *p)
{
    memset(p->fields, 0, sizeof p->fields);
    p->n_segs = 0;
    p->n_toks = 0;
    p->last_key = -1;
    p->in_block = 0;
}

static int finish_block(parser *p)
{
    if (!p->in_block)
        return 0;
    int rc = build_block(p);
    if (!rc)
        p->set->n_blocks++;
    block_reset(p);
    return rc;
}

static int valid_name_char(char c)
{
    return isalnum((unsigned char)c) || strchr("._+/-=@", c);
}

static int start_block(parser *p, char *rest, uint32_t line)
{
    if (finish_block(p))
        return -1;
    while (isspace((unsigned char)*rest))
        rest++;
    if (!*rest)
        return casefile_fail(p, line, "'case' needs a name: case NAME");
    size_t n = strlen(rest);
    for (size_t i = 0; i < n; i++)
        if (!valid_name_char(rest[i]))
            return casefile_fail(p, line, "case name '%s': '%c' is not allowed (letters, digits and "
                        "._+/-=@ only; one word)", rest, rest[i]);
    if (n > CASEFILE_MAX_NAME)
        return casefile_fail(p, line, "case name '%s' is longer than %d characters", rest,
                    CASEFILE_MAX_NAME);
    for (size_t i = 0; i < p->n_names; i++)
        if (!strcmp(p->names[i].name, rest))
            return casefile_fail(p, line, "duplicate case name '%s' (first at %s:%u)", rest,
                        p->names[i].path, (unsigned)p->names[i].line);
    if (dvg_grow((void **)&p->names, &p->cap_names, p->n_names + 1, sizeof *p->names))
        return casefile_fail(p, line, "out of memory");
    block_name *b = &p->names[p->n_names++];
    memcpy(b->name, rest, n + 1);
    b->path = p->path;
    b->line = line;
    memcpy(p->name, rest, n + 1);
    p->line = line;
    p->in_block = 1;
    return 0;
}

static int add_segment(parser *p, int k, char *text, uint32_t line)
{
    if (dvg_grow((void **)&p->segs, &p->cap_segs, p->n_segs + 1, sizeof *p->segs))
        return casefile_fail(p, line, "out of memory");
    p->segs[p->n_segs++] = (segment){text, line};
    p->fields[k].seg_count++;
    return 0;
}

static int parse_line(parser *p, char *s, uint32_t line)
{
    char *hash = strchr(s, '#');
    if (hash)
        *hash = '\0';
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    if (!n)
        return 0;
    if (isspace((unsigned char)s[0])) {
        if (!p->in_block || p->last_key < 0)
            return casefile_fail(p, line, "indented line continues no 'key:' line above it");
        if (key_is_shape(p->last_key))
            return casefile_fail(p, line, "%s: a shape is written on one line", key_names[p->last_key]);
        while (isspace((unsigned char)*s))
            s++;
        return add_segment(p, p->last_key, s, line);
    }
    if (!strncmp(s, "case", 4) && (s[4] == '\0' || isspace((unsigned char)s[4])))
        return start_block(p, s + 4, line);
    char *colon = strchr(s, ':');
    if (!colon)
        return casefile_fail(p, line, "expected 'case NAME' or 'key: value', got '%.60s'", s);
    char *end = colon;
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    int k = -1;
    for (int i = 0; i < K_COUNT; i++)
        if (!strcmp(s, key_names[i]))
            k = i;
    if (k < 0) {
        if (!strcmp(s, "case"))
            return casefile_fail(p, line, "write 'case NAME' without a colon");
        return casefile_fail(p, line, "unknown key '%.60s' (keys: " KEY_LIST ")", s);
    }
    if (!p->in_block)
        return casefile_fail(p, line, "'%s:' before the first 'case NAME' line", s);
    if (p->fields[k].line)
        return casefile_fail(p, line, "'%s:' given twice in case '%s' (first at line %u)", s, p->name,
                    (unsigned)p->fields[k].line);
    char *text = colon + 1;
    while (isspace((unsigned char)*text))
        text++;
    p->fields[k].line = line;
    p->fields[k].seg_first = p->n_segs;
    p->fields[k].seg_count = 0;
    p->last_key = k;
    return add_segment(p, k, text, line);
}

/* Parses buf[0..len-1] (buf has room for len + 1 bytes and is modified). */
static int parse_buffer(parser *p, char *buf, size_t len)
{
    size_t pos = 0;
    uint32_t line = 0;
    block_reset(p);
    while (pos < len) {
        line++;
        char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        if (memchr(buf + pos, '\0', end - pos))
            return casefile_fail(p, line, "NUL byte in a text file");
        buf[end] = '\0';
        if (parse_line(p, buf + pos, line))
            return -1;
        pos = end + 1;
    }
    return finish_block(p);
}

/* ---------------------------------------------------------------------------
 * Files, directories and the set
 * ------------------------------------------------------------------------- */

static const char *set_add_path(casefile_set *s, const char *path)
{
    size_t cap = s->n_paths;
    char **q = dvg_realloc(s->paths, (cap + 1) * sizeof *q);
    if (!q)
        return NULL;
    s->paths = q;
    q[s->n_paths] = dvg_strdup(path);
    if (!q[s->n_paths])
        return NULL;
    return q[s->n_paths++];
}

static int parse_text(parser *p, const char *label, const char *text, size_t len)
{
    p->path = set_add_path(p->set, label);
    if (!p->path) {
        p->path = label;
        return casefile_fail(p, 0, "out of memory");
    }
    if ((uint64_t)len > CASEFILE_MAX_FILE_BYTES)
        return casefile_fail(p, 0, "%zu bytes, more than the limit of %" PRIu64, len,
                    CASEFILE_MAX_FILE_BYTES);
    char *buf = dvg_malloc(len + 1);
    if (!buf)
        return casefile_fail(p, 0, "out of memory");
    memcpy(buf, text, len);
    buf[len] = '\0';
    int rc = parse_buffer(p, buf, len);
    /* Tokens point into buf; the cases copied what they keep. */
    dvg_free(buf);
    return rc;
}

static int parse_file(parser *p, const char *path)
{
    /* Not blocking: a FIFO or a device given as a case file is refused,
     * not waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *fp = fd >= 0 ? fdopen(fd, "rb") : NULL;
    char *buf = NULL;
    int rc = -1;
    p->path = path;
    if (!fp) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return casefile_fail(p, 0, "cannot open: %s", strerror(e));
    }
    struct stat st;
    if (fstat(fileno(fp), &st)) {
        casefile_fail(p, 0, "cannot stat: %s", strerror(errno));
        goto done;
    }
    if (!S_ISREG(st.st_mode)) {
        casefile_fail(p, 0, "not a regular file");
        goto done;
    }
    if ((uint64_t)st.st_size > CASEFILE_MAX_FILE_BYTES) {
        casefile_fail(p, 0, "%" PRIu64 " bytes, more than the limit of %" PRIu64, (uint64_t)st.st_size,
             CASEFILE_MAX_FILE_BYTES);
        goto done;
    }
    size_t len = (size_t)st.st_size;
    buf = dvg_malloc(len + 1);
    if (!buf) {
        casefile_fail(p, 0, "out of memory");
        goto done;
    }
    if (len && fread(buf, 1, len, fp) != len) {
        casefile_fail(p, 0, "read error");
        goto done;
    }
    p->path = set_add_path(p->set, path);
    if (!p->path) {
        p->path = path;
        casefile_fail(p, 0, "out of memory");
        goto done;
    }
    rc = parse_buffer(p, buf, len);
done:
    dvg_free(buf);
    fclose(fp);
    return rc;
}

static int cmp_names(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && !strcmp(s + n - m, suffix);
}

static int walk(parser *p, const char *dir, int depth)
{
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    p->path = dir;
    if (depth > CASEFILE_MAX_DEPTH)
        return casefile_fail(p, 0, "directories nested deeper than %d levels", CASEFILE_MAX_DEPTH);
    DIR *d = opendir(dir);
    if (!d)
        return casefile_fail(p, 0, "cannot open directory: %s", strerror(errno));
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (dvg_grow((void **)&names, &cap, n + 1, sizeof *names) ||
            !(names[n] = dvg_strdup(e->d_name))) {
            casefile_fail(p, 0, "out of memory");
            goto done;
        }
        n++;
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(dir) + strlen(names[i]) + 2;
        char *full = dvg_malloc(len);
        if (!full) {
            p->path = dir;
            casefile_fail(p, 0, "out of memory");
            goto done;
        }
        snprintf(full, len, "%s/%s", dir, names[i]);
        struct stat st;
        int r = 0;
        if (stat(full, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                r = walk(p, full, depth + 1);
            else if (S_ISREG(st.st_mode) && ends_with(names[i], ".case"))
                r = parse_file(p, full);
        }
        dvg_free(full);
        if (r)
            goto done;
    }
    rc = 0;
done:
    closedir(d);
    for (size_t i = 0; i < n; i++)
        dvg_free(names[i]);
    dvg_free(names);
    return rc;
}

static int parser_open(parser *p, uint64_t max_elements, casefile_error *err)
{
    memset(p, 0, sizeof *p);
    p->err = err;
    p->max_elements = max_elements ? max_elements : CASEFILE_DEFAULT_MAX_ELEMENTS;
    p->last_key = -1;
    p->path = "";
    if (err) {
        err->line = 0;
        err->text[0] = '\0';
    }
    p->set = dvg_calloc(1, sizeof *p->set);
    return p->set ? 0 : -1;
}

static int parser_close(parser *p, int rc, casefile_set **out)
{
    dvg_free(p->segs);
    dvg_free(p->toks);
    dvg_free(p->names);
    if (rc) {
        casefile_set_free(p->set);
        return -1;
    }
    *out = p->set;
    return 0;
}

/* casefile_load, building only the cases `want` wants (NULL: all). */
static int load_wanted(const char *path, uint64_t max_elements, casefile_want_fn want,
                       const void *want_ctx, casefile_set **out, casefile_error *err)
{
    parser p;
    if (parser_open(&p, max_elements, err)) {
        p.path = path;
        return casefile_fail(&p, 0, "out of memory");
    }
    p.want = want;
    p.want_ctx = want_ctx;
    struct stat st;
    int rc;
    p.path = path;
    if (stat(path, &st))
        rc = casefile_fail(&p, 0, "cannot open: %s", strerror(errno));
    else if (S_ISDIR(st.st_mode))
        rc = walk(&p, path, 0);
    else
        rc = parse_file(&p, path);
    return parser_close(&p, rc, out);
}

int casefile_load(const char *path, uint64_t max_elements, casefile_set **out,
                  casefile_error *err)
{
    return load_wanted(path, max_elements, NULL, NULL, out, err);
}

int casefile_parse_string(const char *label, const char *text, size_t len,
                          uint64_t max_elements, casefile_set **out, casefile_error *err)
{
    parser p;
    if (parser_open(&p, max_elements, err)) {
        p.path = label;
        return casefile_fail(&p, 0, "out of memory");
    }
    int rc = parse_text(&p, label, text, len);
    return parser_close(&p, rc, out);
}

void casefile_set_free(casefile_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->count; i++) {
        divcase_free(&set->cases[i]);
        meta_free(&set->meta[i]);
    }
    dvg_free(set->cases);
    dvg_free(set->meta);
    for (size_t i = 0; i < set->n_paths; i++)
        dvg_free(set->paths[i]);
    dvg_free(set->paths);
    dvg_free(set);
}

uint32_t casefile_elem_line(const casefile_meta *m, uint64_t index)
{
    if (!m->n_runs)
        return m->expect_line;
    uint32_t lo = 0, hi = m->n_runs;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (m->runs[mid].first <= index)
            lo = mid;
        else
            hi = mid;
    }
    return m->runs[lo].line;
}

int casefile_load_conformance(const char *dir, casefile_want_fn want, const void *want_ctx,
                              casefile_set **out, casefile_error *err)
{
    char found[DATADIR_PATH_MAX], where[2 * DATADIR_PATH_MAX];
    *out = NULL;
    memset(err, 0, sizeof *err);
    if (!dir) {
        if (datadir_find("cases", found, sizeof found, where, sizeof where)) {
            snprintf(err->text, sizeof err->text,
                     "%.400s; --cases DIR names the cases, --cases \"\" none", where);
            return -1;
        }
        dir = found;
    } else if (dir[0] && access(dir, F_OK) != 0) {
        snprintf(err->text, sizeof err->text, "cases directory %.440s does not exist", dir);
        return -1;
    }
    if (!dir[0] || access(dir, F_OK) != 0)
        return 0;
    return load_wanted(dir, CASEFILE_DEFAULT_MAX_ELEMENTS, want, want_ctx, out, err);
}
