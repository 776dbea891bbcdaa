/* SPDX-License-Identifier: MIT */
/*
 * Output shapes and broadcasting plans for the four shape rules: equal
 * shapes, numpy multidirectional, PaddlePaddle (OpenVINO pdpd) and ONNX
 * legacy broadcast=1.
 */
#include "oracle/shape.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t oracle_shape_count(const oracle_shape *s)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        n *= (uint64_t)s->dims[i];
    return n;
}

int oracle_shape_equal(const oracle_shape *a, const oracle_shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (uint32_t i = 0; i < a->rank; i++)
        if (a->dims[i] != b->dims[i])
            return 0;
    return 1;
}

char *oracle_shape_format(const oracle_shape *s, char *buf, size_t len)
{
    size_t used = 0;
    int n = snprintf(buf, len, "(");
    used = n > 0 ? (size_t)n : 0;
    for (uint32_t i = 0; i < s->rank && used < len; i++) {
        n = snprintf(buf + used, len - used, "%s%" PRId64, i ? ", " : "", s->dims[i]);
        used += n > 0 ? (size_t)n : 0;
    }
    if (s->rank == 1 && used < len) {
        n = snprintf(buf + used, len - used, ",");
        used += n > 0 ? (size_t)n : 0;
    }
    if (used < len)
        snprintf(buf + used, len - used, ")");
    return buf;
}

int oracle_shape_parse(const char *text, oracle_shape *out, oracle_error *err)
{
    oracle_shape s;
    memset(&s, 0, sizeof s);
    const char *p = text;
    while (isspace((unsigned char)*p) || *p == '(' || *p == '[')
        p++;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (!*p || *p == ')' || *p == ']')
            break;
        if (!isdigit((unsigned char)*p))
            return oracle_fail(err, ORACLE_EUSAGE, NULL,
                               "shape '%s': expected a dimension at position %d", text,
                               (int)(p - text) + 1);
        if (s.rank == DVG_MAX_RANK)
            return oracle_fail(err, ORACLE_EUSAGE, "SEM-RANK-LIMITS",
                               "shape '%s': rank above %d", text, DVG_MAX_RANK);
        char *end;
        errno = 0;
        unsigned long long d = strtoull(p, &end, 10);
        if (errno || d > (unsigned long long)ORACLE_MAX_ELEMENTS)
            return oracle_fail(err, ORACLE_EUSAGE, NULL,
                               "shape '%s': dimension at position %d is too large", text,
                               (int)(p - text) + 1);
        s.dims[s.rank++] = (int64_t)d;
        p = end;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == 'x' || *p == ',' || *p == '*')
            p++;
    }
    while (*p == ')' || *p == ']' || isspace((unsigned char)*p))
        p++;
    if (*p)
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "shape '%s': unexpected '%c' at position %d", text, *p,
                           (int)(p - text) + 1);
    *out = s;
    return ORACLE_OK;
}

/* Row-major element strides of a shape. */
static void dense_strides(const oracle_shape *s, int64_t *stride)
{
    int64_t st = 1;
    for (int i = (int)s->rank - 1; i >= 0; i--) {
        stride[i] = st;
        st *= s->dims[i] ? s->dims[i] : 1;
    }
}

static int check_shape(const oracle_shape *s, const char *name, oracle_error *why)
{
    if (s->rank > DVG_MAX_RANK)
        return oracle_fail(why, ORACLE_EUSAGE, "SEM-RANK-LIMITS", "%s has rank %u, above %d",
                           name, (unsigned)s->rank, DVG_MAX_RANK);
    uint64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++) {
        if (s->dims[i] < 0)
            return oracle_fail(why, ORACLE_EUSAGE, NULL, "%s dimension %u is negative (%" PRId64 ")",
                               name, (unsigned)i, s->dims[i]);
        if (s->dims[i] && n > ORACLE_MAX_ELEMENTS / (uint64_t)s->dims[i])
            return oracle_fail(why, ORACLE_EUSAGE, NULL, "%s holds more than 2^40 elements", name);
        n *= (uint64_t)s->dims[i];
    }
    if (n > ORACLE_MAX_ELEMENTS)
        return oracle_fail(why, ORACLE_EUSAGE, NULL, "%s holds more than 2^40 elements", name);
    return ORACLE_OK;
}

static int plan_equal(const oracle_rules *r, const oracle_shape *a, const oracle_shape *b,
                      oracle_plan *p, oracle_error *why)
{
    if (!oracle_shape_equal(a, b)) {
        char sa[128], sb[128];
        return oracle_fail(why, ORACLE_INVALID, r->shape_requirement,
                           "%s requires equal shapes here, A is %s and B is %s",
                           r->variant->name, oracle_shape_format(a, sa, sizeof sa),
                           oracle_shape_format(b, sb, sizeof sb));
    }
    p->out = *a;
    dense_strides(a, p->a_stride);
    dense_strides(b, p->b_stride);
    return ORACLE_OK;
}

static int plan_numpy(const oracle_rules *r, const oracle_shape *a, const oracle_shape *b,
                      oracle_plan *p, oracle_error *why)
{
    int64_t as[DVG_MAX_RANK], bs[DVG_MAX_RANK];
    dense_strides(a, as);
    dense_strides(b, bs);
    uint32_t rank = a->rank > b->rank ? a->rank : b->rank;
    p->out.rank = rank;
    for (uint32_t k = 0; k < rank; k++) {
        /* Align from the right: out dim k is A dim k - (rank - a->rank). */
        int ia = (int)k - (int)(rank - a->rank), ib = (int)k - (int)(rank - b->rank);
        int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;
        int64_t d;
        if (da == db || db == 1)
            d = da;
        else if (da == 1)
            d = db;
        else {
            char sa[128], sb[128];
            return oracle_fail(why, ORACLE_INVALID, r->shape_requirement,
                               "numpy broadcasting: A %s and B %s differ in output dimension %u "
                               "(%" PRId64 " vs %" PRId64 ") and neither is 1",
                               oracle_shape_format(a, sa, sizeof sa),
                               oracle_shape_format(b, sb, sizeof sb), (unsigned)k, da, db);
        }
        p->out.dims[k] = d;
        p->a_stride[k] = (ia >= 0 && da != 1) ? as[ia] : 0;
        p->b_stride[k] = (ib >= 0 && db != 1) ? bs[ib] : 0;
    }
    return ORACLE_OK;
}

/* B's dims [0, nb) must match A's starting at axis; `ones_broadcast` says
 * whether a 1 in B broadcasts (pdpd) or must match exactly (ONNX legacy). */
static int plan_window(const oracle_rules *r, const oracle_shape *a, const oracle_shape *b,
                       uint32_t nb, int64_t axis, int ones_broadcast, const char *req,
                       oracle_plan *p, oracle_error *why)
{
    char sa[128], sb[128];
    if (axis < 0 || (uint64_t)axis + nb > a->rank)
        return oracle_fail(why, ORACLE_INVALID, req,
                           "B %s placed at axis %" PRId64 " runs past A %s",
                           oracle_shape_format(b, sb, sizeof sb), axis,
                           oracle_shape_format(a, sa, sizeof sa));
    int64_t bs[DVG_MAX_RANK];
    dense_strides(b, bs);
    p->out = *a;
    dense_strides(a, p->a_stride);
    for (uint32_t k = 0; k < a->rank; k++)
        p->b_stride[k] = 0;
    for (uint32_t k = 0; k < nb; k++) {
        int64_t da = a->dims[axis + k], db = b->dims[k];
        if (db == da)
            p->b_stride[axis + k] = db == 1 ? 0 : bs[k];
        else if (db == 1 && ones_broadcast)
            p->b_stride[axis + k] = 0;
        else
            return oracle_fail(why, ORACLE_INVALID,
                               (db == 1 && !ones_broadcast) ? "ONNX-LEGACY-NO-1DIM" : req,
                               "B %s at axis %" PRId64 ": B dimension %u is %" PRId64
                               " but A dimension %" PRId64 " is %" PRId64 "%s",
                               oracle_shape_format(b, sb, sizeof sb), axis, (unsigned)k, db,
                               axis + k, da,
                               (db == 1 && !ones_broadcast) ? " (1-dim expansion doesn't work)"
                                                            : "");
    }
    (void)r;
    return ORACLE_OK;
}

static int plan_pdpd(const oracle_rules *r, const oracle_shape *a, const oracle_shape *b,
                     oracle_plan *p, oracle_error *why)
{
    char sa[128], sb[128];
    if (b->rank > a->rank)
        return oracle_fail(why, ORACLE_INVALID, "SEM-PDPD-RULES",
                           "pdpd broadcasting needs rank(B) <= rank(A); A %s, B %s",
                           oracle_shape_format(a, sa, sizeof sa),
                           oracle_shape_format(b, sb, sizeof sb));
    int64_t axis = r->attrs.axis;
    if (axis == -1)
        axis = (int64_t)a->rank - (int64_t)b->rank; /* before trimming */
    else if (axis < 0)
        return oracle_fail(why, ORACLE_INVALID, "SEM-PDPD-RULES",
                           "pdpd axis %" PRId64 ": only -1 may be negative", axis);
    uint32_t nb = b->rank;
    while (nb > 0 && b->dims[nb - 1] == 1)
        nb--; /* trailing dims of size 1 in B are ignored */
    return plan_window(r, a, b, nb, axis, 1, "SEM-PDPD-RULES", p, why);
}

static int plan_onnx_legacy(const oracle_rules *r, const oracle_shape *a, const oracle_shape *b,
                            oracle_plan *p, oracle_error *why)
{
    char sa[128], sb[128];
    if (b->rank > a->rank)
        return oracle_fail(why, ORACLE_INVALID, "ONNX-LEGACY-RHS-ONLY",
                           "broadcast=1 broadcasts B to A only; B %s has a higher rank than A %s",
                           oracle_shape_format(b, sb, sizeof sb),
                           oracle_shape_format(a, sa, sizeof sa));
    if (oracle_shape_count(b) == 1) {
        /* "element size 1 (including a scalar tensor and any tensor with
         * rank equal to or smaller than the first tensor)" */
        p->out = *a;
        dense_strides(a, p->a_stride);
        for (uint32_t k = 0; k < a->rank; k++)
            p->b_stride[k] = 0;
        return ORACLE_OK;
    }
    int64_t axis;
    if (r->attrs.axis_set) {
        axis = r->attrs.axis;
        if (axis < 0)
            return oracle_fail(why, ORACLE_INVALID, "ONNX-LEGACY-BCAST-SUBSET",
                               "axis %" PRId64 ": the Div-1/Div-6 text defines no negative axis",
                               axis);
    } else {
        axis = (int64_t)a->rank - (int64_t)b->rank; /* suffix matching */
    }
    return plan_window(r, a, b, b->rank, axis, 0, "ONNX-LEGACY-BCAST-SUBSET", p, why);
}

int oracle_plan_shapes(const oracle_rules *r, const oracle_shape *a, const oracle_shape *b,
                       oracle_plan *out, oracle_error *why)
{
    int rc = check_shape(a, "A", why);
    if (!rc)
        rc = check_shape(b, "B", why);
    if (rc)
        return rc;
    oracle_plan p;
    memset(&p, 0, sizeof p);
    switch (r->shape_rule) {
    case ORACLE_SHAPE_EQUAL:
        rc = plan_equal(r, a, b, &p, why);
        break;
    case ORACLE_SHAPE_NUMPY:
        rc = plan_numpy(r, a, b, &p, why);
        break;
    case ORACLE_SHAPE_PDPD:
        rc = plan_pdpd(r, a, b, &p, why);
        break;
    case ORACLE_SHAPE_ONNX_LEGACY:
        rc = plan_onnx_legacy(r, a, b, &p, why);
        break;
    default:
        rc = oracle_fail(why, ORACLE_EUSAGE, NULL, "unresolved shape rule %u",
                         (unsigned)r->shape_rule);
    }
    if (rc)
        return rc;
    rc = check_shape(&p.out, "the output", why);
    if (rc)
        return rc;
    p.count = oracle_shape_count(&p.out);
    p.a_count = oracle_shape_count(a);
    p.b_count = oracle_shape_count(b);
    *out = p;
    return ORACLE_OK;
}

void oracle_plan_offsets(const oracle_plan *p, uint64_t index, uint64_t *a_off, uint64_t *b_off)
{
    uint64_t ao = 0, bo = 0;
    for (int k = (int)p->out.rank - 1; k >= 0; k--) {
        uint64_t d = (uint64_t)p->out.dims[k];
        uint64_t i = d ? index % d : 0;
        index = d ? index / d : 0;
        ao += i * (uint64_t)p->a_stride[k];
        bo += i * (uint64_t)p->b_stride[k];
    }
    *a_off = ao;
    *b_off = bo;
}
