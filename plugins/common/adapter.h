/* SPDX-License-Identifier: MIT */
/*
 * plugins/common/adapter.h: what the adapters of real libraries
 * (plugins/xnnpack, onednn, eigen, libtorch, onnxruntime) share, header-only,
 * C11 and C++17. Like every plugin they see the public ABI
 * (include/divergence/iut.h) and nothing else of Divergence.
 *
 * The libraries divide; the adapters only map a case onto the library's
 * API. The one piece of the variants' rules that an adapter must supply
 * itself is the shape rule when a library knows only numpy broadcasting:
 *
 *   adapter_plan() decides, from the variant's rules (docs/semantics.md), the
 *   output shape or that the input is invalid, and gives A and B as "numpy
 *   views": shapes with the same elements in the same order (a reshape, no
 *   data moves) that numpy broadcasting maps onto the output exactly as the
 *   variant maps A and B. numpy variants keep A's and B's own shapes, so the
 *   library's own broadcasting is what is tested; ONNX Div-1/6 legacy
 *   broadcasting and OpenVINO pdpd put B's dims at `axis` of a rank(A)
 *   shape of 1s; equal-shape rules keep both shapes.
 *
 * Also: the dtype lists of the variants (to build claims), the integer
 * rounding a (variant, attributes) pair asks for, and element sizes.
 */
#ifndef DVG_PLUGINS_ADAPTER_H
#define DVG_PLUGINS_ADAPTER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "divergence/iut.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ADAPTER_DT(x) (UINT32_C(1) << (x))
#define ADAPTER_FLOATS                                                                   \
    (ADAPTER_DT(DVG_DTYPE_F16) | ADAPTER_DT(DVG_DTYPE_BF16) | ADAPTER_DT(DVG_DTYPE_F32) | \
     ADAPTER_DT(DVG_DTYPE_F64))
#define ADAPTER_INTS                                                                     \
    (ADAPTER_DT(DVG_DTYPE_I4) | ADAPTER_DT(DVG_DTYPE_I8) | ADAPTER_DT(DVG_DTYPE_I16) |   \
     ADAPTER_DT(DVG_DTYPE_I32) | ADAPTER_DT(DVG_DTYPE_I64) | ADAPTER_DT(DVG_DTYPE_U4) |   \
     ADAPTER_DT(DVG_DTYPE_U8) | ADAPTER_DT(DVG_DTYPE_U16) | ADAPTER_DT(DVG_DTYPE_U32) |   \
     ADAPTER_DT(DVG_DTYPE_U64))

/* The type list of each variant, as docs/semantics.md gives it (SONNX: with the
 * types only its contents list names). */
static inline uint32_t adapter_variant_dtypes(uint32_t variant)
{
    const uint32_t div1 = ADAPTER_DT(DVG_DTYPE_F16) | ADAPTER_DT(DVG_DTYPE_F32) |
                          ADAPTER_DT(DVG_DTYPE_F64);
    const uint32_t div6 = div1 | ADAPTER_DT(DVG_DTYPE_I32) | ADAPTER_DT(DVG_DTYPE_I64) |
                          ADAPTER_DT(DVG_DTYPE_U32) | ADAPTER_DT(DVG_DTYPE_U64);
    const uint32_t div13 = div6 | ADAPTER_DT(DVG_DTYPE_BF16);
    const uint32_t div14 = div13 | ADAPTER_DT(DVG_DTYPE_I8) | ADAPTER_DT(DVG_DTYPE_I16) |
                           ADAPTER_DT(DVG_DTYPE_U8) | ADAPTER_DT(DVG_DTYPE_U16);
    switch (variant) {
    case DVG_VARIANT_ONNX_DIV_1: return div1;
    case DVG_VARIANT_ONNX_DIV_6:
    case DVG_VARIANT_ONNX_DIV_7: return div6;
    case DVG_VARIANT_ONNX_DIV_13: return div13;
    case DVG_VARIANT_ONNX_DIV_14: return div14;
    case DVG_VARIANT_OPENVINO_DIVIDE_1:
    case DVG_VARIANT_SONNX_DIV: return ADAPTER_FLOATS | ADAPTER_INTS;
    }
    return 0;
}

/* Fills claims[] (room for cap) with every (variant, dtype) pair where
 * `dtypes[variant]` (a mask of ADAPTER_DT bits, indexed by DVG_VARIANT_*)
 * meets the variant's type list, in variant then dtype order. Returns the
 * count. */
static inline uint32_t adapter_build_claims(const uint32_t dtypes[DVG_VARIANT_COUNT],
                                            dvg_claim *claims, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t v = 1; v < DVG_VARIANT_COUNT; v++)
        for (uint32_t d = 1; d < DVG_DTYPE_COUNT; d++)
            if ((dtypes[v] & adapter_variant_dtypes(v) & ADAPTER_DT(d)) && n < cap) {
                claims[n].variant = v;
                claims[n].dtype = d;
                n++;
            }
    return n;
}

/* 1 when (variant, dtype) is one of the n claims. Adapters answer
 * DVG_UNSUPPORTED for the pairs they do not claim, so that a library that
 * could run a pair only by the wrong rule (truncating where the variant's
 * attributes ask for floor) is never asked to. */
static inline int adapter_claimed(const dvg_claim *claims, uint32_t n, uint32_t variant,
                                  uint32_t dtype)
{
    for (uint32_t i = 0; i < n; i++)
        if (claims[i].variant == variant && claims[i].dtype == dtype)
            return 1;
    return 0;
}

/* 1 when `mask` holds dtype d. */
static inline int adapter_has(uint32_t mask, uint32_t d)
{
    return d > 0 && d < DVG_DTYPE_COUNT && (mask & ADAPTER_DT(d)) != 0;
}

/* Bytes of one element (i4/u4: 0, they are packed). */
static inline uint32_t adapter_elem_bytes(uint32_t dtype)
{
#define ADAPTER_BYTES_(ID, tag, value, bits, kind) \
    case value: return (bits) >= 8 ? (bits) / 8 : 0;
    switch (dtype) { DVG_DTYPE_LIST(ADAPTER_BYTES_) }
#undef ADAPTER_BYTES_
    return 0;
}

/* 1 when integer division under (variant, attrs) rounds toward negative
 * infinity, 0 when it truncates: OpenVINO floors when m_pythondiv is true
 * (its default), SONNX floors unless int_rounding says trunc (its seed
 * text), ONNX truncates. */
static inline int adapter_floors(uint32_t variant, const dvg_attrs *at)
{
    if (variant == DVG_VARIANT_OPENVINO_DIVIDE_1)
        return at->pythondiv != 0;
    if (variant == DVG_VARIANT_SONNX_DIV)
        return at->int_rounding != DVG_ROUND_TRUNC;
    return 0;
}

/* A case planned onto numpy broadcasting. */
typedef struct adapter_shapes {
    uint32_t rank;                 /* output rank */
    int64_t out[DVG_MAX_RANK];     /* output shape */
    uint32_t a_rank, b_rank;       /* the numpy views of A and B */
    int64_t a[DVG_MAX_RANK], b[DVG_MAX_RANK];
    int64_t count;                 /* output elements */
    int a_broadcast;               /* 1: some dim of A (as padded to `rank`) is
                                      1 where the output's is not, or A's rank
                                      is below it */
} adapter_shapes;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static inline int32_t adapter_fail(char *err, size_t len, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return status;
}

/* DVG_OK when the adapter claims (variant, dtype) (adapter_claimed),
 * else DVG_UNSUPPORTED with "(variant V, dtype D) is not claimed" and
 * `why` (may be "") in err. */
static inline int32_t adapter_require_claim(const dvg_claim *claims, uint32_t n,
                                            uint32_t variant, uint32_t dtype, const char *why,
                                            char *err, size_t len)
{
    if (adapter_claimed(claims, n, variant, dtype))
        return DVG_OK;
    return adapter_fail(err, len, DVG_UNSUPPORTED, "(variant %u, dtype %u) is not claimed%s",
                        variant, dtype, why);
}

/* An adapter's planning of a call: the shapes, and whether it runs it
 * (DVG_OK) or what it answers instead, with the reason in the instance. */
typedef int32_t (*adapter_plan_fn)(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                                   const dvg_tensor *a, const dvg_tensor *b, adapter_shapes *s);

/* An adapter's output_shape: `plan`, and on DVG_OK the planned output
 * shape into *rank and shape[]. */
static inline int32_t adapter_output_shape(adapter_plan_fn plan, dvg_iut *iut, uint32_t variant,
                                           const dvg_attrs *attrs, const dvg_tensor *a,
                                           const dvg_tensor *b, uint32_t *rank, int64_t *shape)
{
    adapter_shapes s;
    if (!iut || !rank || !shape)
        return DVG_FAILURE;
    int32_t st = plan(iut, variant, attrs, a, b, &s);
    if (st == DVG_OK) {
        *rank = s.rank;
        memcpy(shape, s.out, s.rank * sizeof shape[0]);
    }
    return st;
}

/* Left-pads the views to the output rank with 1s (for libraries that
 * want equal ranks). */
static inline void adapter_pad(adapter_shapes *s)
{
    int64_t t[DVG_MAX_RANK] = {0};
    uint32_t k;
    for (k = 0; k < s->rank; k++)
        t[k] = k < s->rank - s->a_rank ? 1 : s->a[k - (s->rank - s->a_rank)];
    memcpy(s->a, t, sizeof t);
    for (k = 0; k < s->rank; k++)
        t[k] = k < s->rank - s->b_rank ? 1 : s->b[k - (s->rank - s->b_rank)];
    memcpy(s->b, t, sizeof t);
    s->a_rank = s->b_rank = s->rank;
}

static inline int32_t adapter_plan_numpy(const dvg_tensor *a, const dvg_tensor *b,
                                         adapter_shapes *s, char *err, size_t len)
{
    uint32_t r = a->rank > b->rank ? a->rank : b->rank;
    s->rank = r;
    for (uint32_t k = 0; k < r; k++) {
        int ka = (int)k - (int)(r - a->rank), kb = (int)k - (int)(r - b->rank);
        int64_t da = ka >= 0 ? a->shape[ka] : 1, db = kb >= 0 ? b->shape[kb] : 1;
        if (da != db && da != 1 && db != 1)
            return adapter_fail(err, len, DVG_INVALID_INPUT, "numpy broadcasting: dimension "
                                "%u: A has %lld, B has %lld", k, (long long)da, (long long)db);
        s->out[k] = da == 1 ? db : da;
    }
    s->a_rank = a->rank;
    s->b_rank = b->rank;
    memcpy(s->a, a->shape, sizeof s->a);
    memcpy(s->b, b->shape, sizeof s->b);
    return DVG_OK;
}

/* B -> A with B's dims (the first `rb` of them) at `axis`: the view of B is
 * rank(A) 1s with B's dims from axis on. */
static inline void adapter_b_at_axis(const dvg_tensor *a, const dvg_tensor *b, uint32_t rb,
                                     int64_t axis, adapter_shapes *s)
{
    s->rank = s->a_rank = s->b_rank = a->rank;
    memcpy(s->out, a->shape, sizeof s->out);
    memcpy(s->a, a->shape, sizeof s->a);
    for (uint32_t k = 0; k < a->rank; k++)
        s->b[k] = 1;
    for (uint32_t k = 0; k < rb; k++)
        s->b[axis + k] = b->shape[k];
}

/*
 * Plans C = A / B under the variant's shape rule (attrs: the host's block,
 * every field filled). DVG_INVALID_INPUT with the reason in err when the
 * rule rejects the shapes; DVG_UNSUPPORTED for an unknown variant;
 * DVG_FAILURE for a malformed tensor. Does not look at dtypes or data.
 */
static inline int32_t adapter_plan(uint32_t variant, const dvg_attrs *at, const dvg_tensor *a,
                                   const dvg_tensor *b, adapter_shapes *s, char *err,
                                   size_t len)
{
    const dvg_tensor *t[2] = {a, b};
    int32_t st;
    memset(s, 0, sizeof *s);
    if (!a || !b || !at)
        return adapter_fail(err, len, DVG_FAILURE, "NULL tensor or attributes");
    if (at->size < sizeof(dvg_attrs))
        return adapter_fail(err, len, DVG_FAILURE, "attrs->size %u is below the ABI 1.0 block",
                            at->size);
    for (int i = 0; i < 2; i++) {
        if (t[i]->rank > DVG_MAX_RANK)
            return adapter_fail(err, len, DVG_INVALID_INPUT, "rank of %c is %u", "AB"[i],
                                t[i]->rank);
        for (uint32_t k = 0; k < t[i]->rank; k++)
            if (t[i]->shape[k] < 0)
                return adapter_fail(err, len, DVG_INVALID_INPUT, "dimension %u of %c is %lld",
                                    k, "AB"[i], (long long)t[i]->shape[k]);
    }
    switch (variant) {
    case DVG_VARIANT_ONNX_DIV_1:
    case DVG_VARIANT_ONNX_DIV_6:
        if (at->broadcast == 1) { /* B -> A; no size-1 expansion */
            int one = 1;
            int64_t axis;
            if (b->rank > a->rank)
                return adapter_fail(err, len, DVG_INVALID_INPUT, "legacy broadcasting: rank "
                                    "of B (%u) exceeds rank of A (%u)", b->rank, a->rank);
            for (uint32_t k = 0; k < b->rank; k++)
                one = one && b->shape[k] == 1;
            if (one) { /* a scalar or 1-element B, `axis` aside */
                adapter_b_at_axis(a, b, 0, 0, s);
                break;
            }
            axis = at->axis_set ? at->axis : (int64_t)(a->rank - b->rank);
            if (axis < 0 || axis > (int64_t)(a->rank - b->rank))
                return adapter_fail(err, len, DVG_INVALID_INPUT, "legacy broadcasting: axis "
                                    "%lld is outside 0..%u", (long long)axis,
                                    a->rank - b->rank);
            for (uint32_t k = 0; k < b->rank; k++)
                if (b->shape[k] != a->shape[axis + k])
                    return adapter_fail(err, len, DVG_INVALID_INPUT, "legacy broadcasting: "
                                        "dimension %u of B differs from dimension %lld of A",
                                        k, (long long)(axis + k));
            adapter_b_at_axis(a, b, b->rank, axis, s);
            break;
        }
        if (at->broadcast != 0)
            return adapter_fail(err, len, DVG_INVALID_INPUT, "broadcast is %d", at->broadcast);
        goto equal;
    case DVG_VARIANT_ONNX_DIV_7:
    case DVG_VARIANT_ONNX_DIV_13:
    case DVG_VARIANT_ONNX_DIV_14:
        st = adapter_plan_numpy(a, b, s, err, len);
        if (st != DVG_OK)
            return st;
        break;
    case DVG_VARIANT_OPENVINO_DIVIDE_1:
        if (at->auto_broadcast == DVG_BROADCAST_NUMPY) {
            st = adapter_plan_numpy(a, b, s, err, len);
            if (st != DVG_OK)
                return st;
            break;
        }
        if (at->auto_broadcast == DVG_BROADCAST_PDPD) {
            int64_t axis = at->axis;
            uint32_t rb = b->rank;
            if (b->rank > a->rank)
                return adapter_fail(err, len, DVG_INVALID_INPUT, "pdpd broadcasting: rank of "
                                    "B (%u) exceeds rank of A (%u)", b->rank, a->rank);
            if (axis == -1)
                axis = (int64_t)(a->rank - b->rank);
            if (axis < 0)
                return adapter_fail(err, len, DVG_INVALID_INPUT, "pdpd broadcasting: axis "
                                    "%lld", (long long)axis);
            while (rb > 0 && b->shape[rb - 1] == 1)
                rb--;
            if (axis > (int64_t)a->rank || (int64_t)rb > (int64_t)a->rank - axis)
                return adapter_fail(err, len, DVG_INVALID_INPUT, "pdpd broadcasting: B runs "
                                    "past A from axis %lld", (long long)axis);
            for (uint32_t k = 0; k < rb; k++)
                if (b->shape[k] != a->shape[axis + k] && b->shape[k] != 1)
                    return adapter_fail(err, len, DVG_INVALID_INPUT, "pdpd broadcasting: "
                                        "dimension %u of B differs from dimension %lld of A",
                                        k, (long long)(axis + k));
            adapter_b_at_axis(a, b, rb, axis, s);
            break;
        }
        if (at->auto_broadcast != DVG_BROADCAST_NONE)
            return adapter_fail(err, len, DVG_INVALID_INPUT, "auto_broadcast %u",
                                at->auto_broadcast);
        goto equal;
    case DVG_VARIANT_SONNX_DIV:
    equal:
        if (a->rank != b->rank || memcmp(a->shape, b->shape, a->rank * sizeof a->shape[0]))
            return adapter_fail(err, len, DVG_INVALID_INPUT, "the shapes of A and B differ "
                                "and the variant does not broadcast");
        s->rank = s->a_rank = s->b_rank = a->rank;
        memcpy(s->out, a->shape, sizeof s->out);
        memcpy(s->a, a->shape, sizeof s->a);
        memcpy(s->b, b->shape, sizeof s->b);
        break;
    default:
        return adapter_fail(err, len, DVG_UNSUPPORTED, "unknown variant %u", variant);
    }
    s->count = 1;
    for (uint32_t k = 0; k < s->rank; k++)
        s->count *= s->out[k];
    for (uint32_t k = 0; k < s->rank; k++) {
        uint32_t off = s->rank - s->a_rank;
        if ((k < off && s->out[k] != 1) || (k >= off && s->a[k - off] != s->out[k]))
            s->a_broadcast = 1;
    }
    return DVG_OK;
}

/*
 * The checks every compute shares: A, B and C have one dtype, C has the
 * planned shape, the buffers hold their elements. DVG_FAILURE with the
 * reason otherwise.
 */
static inline int32_t adapter_check_tensors(const adapter_shapes *s, const dvg_tensor *a,
                                            const dvg_tensor *b, const dvg_tensor *c,
                                            char *err, size_t len)
{
    const dvg_tensor *t[3] = {a, b, c};
    uint32_t bytes = adapter_elem_bytes(a->dtype);
    if (!c)
        return adapter_fail(err, len, DVG_FAILURE, "C is NULL");
    if (b->dtype != a->dtype || c->dtype != a->dtype)
        return adapter_fail(err, len, DVG_FAILURE, "A, B and C differ in dtype");
    if (c->rank != s->rank || memcmp(c->shape, s->out, s->rank * sizeof s->out[0]))
        return adapter_fail(err, len, DVG_FAILURE, "C does not have the output shape");
    if (!bytes)
        return adapter_fail(err, len, DVG_UNSUPPORTED, "sub-byte dtype %u", a->dtype);
    for (int i = 0; i < 3; i++) {
        uint64_t n = 1;
        for (uint32_t k = 0; k < t[i]->rank; k++)
            n *= (uint64_t)t[i]->shape[k];
        if (t[i]->nbytes < n * bytes || (n && !t[i]->data))
            return adapter_fail(err, len, DVG_FAILURE, "%c: %llu bytes for %llu elements",
                                "ABC"[i], (unsigned long long)t[i]->nbytes,
                                (unsigned long long)n);
    }
    return DVG_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* DVG_PLUGINS_ADAPTER_H */
