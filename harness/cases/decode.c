/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/decode.c: the total decoder from fuzzer bytes to a divcase, and its
 * inverse. The byte format (version 1) is described in fuzz/README.md;
 * in short, fields are read in this order, every one of them total:
 *
 *   layout    1 byte   below 0x80: the explicit layout below (the encoder
 *                      writes 1); 0x80 and above: the shape-path layout
 *   variant   1 byte   index into the variant table, modulo its size
 *   dtype     1 byte   index into the variant's dtypes, modulo their count
 *   attrs     6 or 7   broadcast, axis_set, axis (1 byte, or 0xf0..0xff and
 *                      one signed byte), m_pythondiv, auto_broadcast,
 *                      int_rounding
 *   shapes    1 byte   generator (explicit pair, or a pair built from one
 *                      shape: equal, numpy partners, a window at the axis,
 *                      all ones, scalar), then its shapes and parameters,
 *                      then optionally one change that breaks the pair
 *   A, B      1 byte   operand mode (raw bits, edge-biased bytes, or a
 *                      seeded generator), then the elements
 *
 * The shape-path layout reads variant, dtype and attrs the same way, then
 * the answers to the shape-path walker's choices (harness/cases/shapes.h,
 * shapes_choose: one byte per choice, modulo its count), which draw A and B
 * and the attributes that select their rule under an element budget of
 * max_elements, then A and B as above.
 *
 * When the bytes run out, reads return 0 and the remaining operand
 * elements come from gen_value() seeded by a hash of the whole input, so a
 * short input still makes full, edge-biased tensors.
 */
#include "harness/cases/decode.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cases/gen.h"
#include "harness/cases/shapes.h"
#include "oracle/dtype.h"
#include "oracle/rules.h"
#include "oracle/variant.h"

#define FUZZ_DEFAULT_MAX_ELEMENTS 64u
#define FUZZ_MAX_ENCODE_ELEMENTS (UINT64_C(1) << 24)
#define FUZZ_AXIS_MIN (-64)
#define FUZZ_AXIS_MAX 64

/* ---- the reader ---------------------------------------------------------- */

void decode_reader_init(decode_reader *r, const uint8_t *data, size_t size)
{
    r->data = data;
    r->size = data ? size : 0;
    r->pos = 0;
}

uint8_t decode_read_u8(decode_reader *r)
{
    return r->pos < r->size ? r->data[r->pos++] : 0;
}

uint64_t decode_read_le(decode_reader *r, unsigned nbytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < nbytes && i < 8; i++)
        v |= (uint64_t)decode_read_u8(r) << (8 * i);
    return v;
}

int decode_reader_done(const decode_reader *r)
{
    return r->pos >= r->size;
}

void decode_limits_default(decode_limits *lim)
{
    memset(lim, 0, sizeof *lim);
    lim->max_elements = FUZZ_DEFAULT_MAX_ELEMENTS;
}

/* ---- tables ---------------------------------------------------------------- */

/* Rank byte: RANK_TAB[b & 15] (small ranks more often, every rank 0..8). */
static const uint8_t RANK_TAB[16] = {0, 1, 2, 3, 1, 2, 3, 4, 2, 1, 5, 6, 7, 8, 3, 2};

/* Dimension byte: below DIM_LONG, DIM_TAB[b & 31] (small sizes, 1 often, 0
 * once); DIM_LONG and above: a 4-byte little-endian size follows. */
#define DIM_LONG 0xf8u
static const uint8_t DIM_TAB[32] = {1, 2, 3, 4, 1, 2, 3, 5, 1, 2, 6, 7, 1, 2, 3, 4,
                                    8, 1, 2, 3, 0, 2, 1, 3, 4, 9, 16, 2, 1, 3, 5, 2};

/* Axis byte: below AXIS_LONG, AXIS_TAB[b & 15] (0 for a zero byte; -1, 0
 * and small axes often, -2 now and then); AXIS_LONG and above: one signed
 * byte follows, clamped to [-64, 64]. */
#define AXIS_LONG 0xf0u
static const int8_t AXIS_TAB[16] = {0, -1, 1, 2, -1, 0, 3, 1, -1, 4, -2, 5, 2, 6, 7, 9};

/* Layout byte: below this the explicit layout (format version 1), from it
 * on the shape-path layout. */
#define LAYOUT_SHAPE_PATH 0x80u

/* Shape generators. */
enum {
    G_EXPLICIT,   /* A and B each written out */
    G_EQUAL,      /* B = A = S */
    G_NUMPY_B,    /* A = S, B a numpy partner of S */
    G_NUMPY_A,    /* B = S, A a numpy partner of S */
    G_NUMPY_BOTH, /* A and B both partners of S (S may be the output) */
    G_WINDOW,     /* A = S, B a window of S (at the axis for pdpd/legacy) */
    G_ONES,       /* A = S, B all ones of a rank <= rank(S) */
    G_SCALAR      /* A = S, B rank 0 */
};

/* Generator byte: table[b & 15] for the decoded shape rule; the top bits
 * break the pair afterwards, one time in 8 (numpy, which forgives more:
 * one in 4). Index 0 is G_EXPLICIT in every table. */
static const uint8_t GEN_EQUAL_TAB[16] = {
    G_EXPLICIT, G_EQUAL, G_EQUAL, G_EQUAL, G_EQUAL, G_EQUAL, G_EQUAL, G_EQUAL,
    G_EQUAL, G_EQUAL, G_EQUAL, G_EQUAL, G_NUMPY_B, G_NUMPY_A, G_ONES, G_SCALAR};
static const uint8_t GEN_NUMPY_TAB[16] = {
    G_EXPLICIT, G_EQUAL, G_EQUAL, G_NUMPY_B, G_NUMPY_B, G_NUMPY_B, G_NUMPY_A, G_NUMPY_A,
    G_NUMPY_A, G_NUMPY_BOTH, G_NUMPY_BOTH, G_NUMPY_BOTH, G_ONES, G_SCALAR, G_WINDOW, G_EXPLICIT};
static const uint8_t GEN_WINDOW_TAB[16] = {
    G_EXPLICIT, G_EQUAL, G_EQUAL, G_WINDOW, G_WINDOW, G_WINDOW, G_WINDOW, G_WINDOW,
    G_WINDOW, G_WINDOW, G_ONES, G_ONES, G_SCALAR, G_NUMPY_B, G_NUMPY_A, G_EXPLICIT};
#define GEN_BREAK(b, rule) ((rule) == ORACLE_SHAPE_NUMPY ? ((b) >> 6) == 3 : ((b) >> 5) == 7)

/* Operand mode byte: (b & 3): 0 raw element bytes, 1 and 2 edge-biased
 * element bytes, 3 a seeded generator (4 bytes of seed). */
#define OP_RAW 0u
#define OP_EDGE 1u
#define OP_GEN 3u

/* Edge-biased element byte s:
 *   s < 0x80         edge value (s % n) of gen_edge_values
 *   0x80 .. 0xbf     next to an edge: one more byte picks the edge, s & 7 the step
 *   0xc0 .. 0xdf     the small number (s & 31) - 16 (integer, or the float)
 *   0xe0 .. 0xff     raw bits: ceil(bits / 8) bytes follow, little-endian */
#define EL_NEAR 0x80u
#define EL_SMALL 0xc0u
#define EL_RAW 0xe0u
static const int8_t NEAR_STEP[8] = {1, -1, 2, -2, 3, -3, 8, -8};

/* ---- helpers ------------------------------------------------------------- */

/* Bookkeeping a coverage-guided engine learns nothing from: left out of the
 * coverage instrumentation, which costs more than the work itself. */
#if defined(__clang__) && __clang_major__ >= 13
#define NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define NO_COVERAGE
#endif

NO_COVERAGE static uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

static uint64_t sat_count(const oracle_shape *s)
{
    uint64_t n = 1;
    for (uint32_t i = 0; i < s->rank; i++)
        n = sat_mul(n, (uint64_t)s->dims[i]);
    return n;
}

/* Elements of numpy's output when the pair broadcasts; an upper bound (the
 * larger of each right-aligned pair) when it does not. */
static uint64_t numpy_bound(const oracle_shape *a, const oracle_shape *b)
{
    uint32_t rank = a->rank > b->rank ? a->rank : b->rank;
    uint64_t n = 1;
    for (uint32_t k = 0; k < rank; k++) {
        int ia = (int)k - (int)(rank - a->rank), ib = (int)k - (int)(rank - b->rank);
        uint64_t da = ia >= 0 ? (uint64_t)a->dims[ia] : 1, db = ib >= 0 ? (uint64_t)b->dims[ib] : 1;
        uint64_t d = da == 1 ? db : db == 1 ? da : (da > db ? da : db);
        n = sat_mul(n, d);
    }
    return n;
}

static int shapes_fit(const oracle_shape *a, const oracle_shape *b, uint32_t rule, uint64_t maxe)
{
    if (sat_count(a) > maxe || sat_count(b) > maxe)
        return 0;
    return rule != ORACLE_SHAPE_NUMPY || numpy_bound(a, b) <= maxe;
}

/* Shrinks the pair until it fits: every dimension above maxe becomes maxe,
 * then the largest size D anywhere becomes D / 2 everywhere, until A, B
 * (and numpy's output) fit. A map of sizes applied to both shapes keeps
 * equal dimensions equal and ones one, so a compatible pair stays
 * compatible. */
static void shrink_shapes(oracle_shape *a, oracle_shape *b, uint32_t rule, uint64_t maxe)
{
    oracle_shape *s[2] = {a, b};
    for (int t = 0; t < 2; t++)
        for (uint32_t i = 0; i < s[t]->rank; i++)
            if ((uint64_t)s[t]->dims[i] > maxe)
                s[t]->dims[i] = (int64_t)maxe;
    while (!shapes_fit(a, b, rule, maxe)) {
        int64_t d = 0;
        for (int t = 0; t < 2; t++)
            for (uint32_t i = 0; i < s[t]->rank; i++)
                if (s[t]->dims[i] > d)
                    d = s[t]->dims[i];
        if (d <= 1)
            break; /* cannot happen: counts are then <= 1 <= maxe */
        for (int t = 0; t < 2; t++)
            for (uint32_t i = 0; i < s[t]->rank; i++)
                if (s[t]->dims[i] == d)
                    s[t]->dims[i] = d / 2;
    }
}

/* The dtypes of a variant, in ABI order; returns their count. */
NO_COVERAGE static uint32_t variant_dtypes(const oracle_variant *v, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t d = 1; d < DVG_DTYPE_COUNT; d++)
        if (oracle_variant_has_dtype(v, d))
            out[n++] = d;
    return n;
}

NO_COVERAGE static int claim_usable(const dvg_claim *c)
{
    return oracle_variant_has_dtype(oracle_variant_get(c->variant), c->dtype);
}

NO_COVERAGE static int claimed(const decode_limits *lim, uint32_t variant, uint32_t dtype)
{
    for (uint32_t i = 0; i < lim->n_claims; i++)
        if (lim->claims[i].variant == variant && lim->claims[i].dtype == dtype)
            return 1;
    return 0;
}

/* The (variant, dtype) of selector bytes vs, ts: the ts-th dtype of the
 * vs-th variant; with claims, an unclaimed pair maps onto the usable claims
 * (those the variant table allows) by (vs * 256 + ts) modulo their count.
 * A claim list with no usable pair is ignored. */
static void pick_pair(uint8_t vs, uint8_t ts, const decode_limits *lim, uint32_t *variant,
                      uint32_t *dtype)
{
    const oracle_variant *v = oracle_variant_at(vs % oracle_variant_count());
    uint32_t dts[DVG_DTYPE_COUNT];
    uint32_t n = variant_dtypes(v, dts);
    *variant = v->id;
    *dtype = dts[ts % n];
    if (!lim->claims || !lim->n_claims || claimed(lim, *variant, *dtype))
        return;
    uint32_t usable = 0;
    for (uint32_t i = 0; i < lim->n_claims; i++)
        usable += (uint32_t)claim_usable(&lim->claims[i]);
    if (!usable)
        return;
    uint32_t k = (((uint32_t)vs << 8) | ts) % usable;
    for (uint32_t i = 0; i < lim->n_claims; i++) {
        if (!claim_usable(&lim->claims[i]))
            continue;
        if (k-- == 0) {
            *variant = lim->claims[i].variant;
            *dtype = lim->claims[i].dtype;
            return;
        }
    }
}

static int64_t read_axis(decode_reader *r)
{
    uint8_t b = decode_read_u8(r);
    if (b >= AXIS_LONG) {
        int64_t x = (int8_t)decode_read_u8(r);
        return x < FUZZ_AXIS_MIN ? FUZZ_AXIS_MIN : x > FUZZ_AXIS_MAX ? FUZZ_AXIS_MAX : x;
    }
    return AXIS_TAB[b & 15];
}

static int64_t read_dim(decode_reader *r)
{
    uint8_t b = decode_read_u8(r);
    if (b >= DIM_LONG)
        return (int64_t)decode_read_le(r, 4);
    return DIM_TAB[b & 31];
}

static void read_shape(decode_reader *r, oracle_shape *s)
{
    memset(s, 0, sizeof *s);
    s->rank = RANK_TAB[decode_read_u8(r) & 15];
    for (uint32_t i = 0; i < s->rank; i++)
        s->dims[i] = read_dim(r);
}

/* A numpy partner of s: some leading dims dropped, some dims set to 1. */
static void read_partner(decode_reader *r, const oracle_shape *s, oracle_shape *out)
{
    uint8_t d = decode_read_u8(r), mask = decode_read_u8(r);
    uint32_t drop = (d & 0x80) ? (d & 0x7f) % (s->rank + 1) : 0;
    memset(out, 0, sizeof *out);
    out->rank = s->rank - drop;
    for (uint32_t i = 0; i < out->rank; i++)
        out->dims[i] = ((mask >> i) & 1) ? 1 : s->dims[i + drop];
}

/* A window of s for B: at the axis the attributes give when the rule uses
 * one (pdpd axis -1 and ONNX legacy without axis: a suffix), else where
 * the bytes say; some dims set to 1 (pdpd broadcasts them, ONNX legacy
 * refuses them); for pdpd, trailing ones (which the rule trims). */
static void read_window(decode_reader *r, const oracle_shape *s, uint32_t rule,
                        const dvg_attrs *at, oracle_shape *out)
{
    uint8_t l = decode_read_u8(r), mask = decode_read_u8(r), t = decode_read_u8(r);
    uint32_t rank = s->rank, start, len, trailing = t % 3;
    int suffix = 0, fixed = 0;
    int64_t axis = at->axis;
    if (rule == ORACLE_SHAPE_PDPD) {
        suffix = axis == -1;
        fixed = axis >= 0 && axis <= (int64_t)rank;
    } else if (rule == ORACLE_SHAPE_ONNX_LEGACY) {
        suffix = !at->axis_set;
        fixed = at->axis_set && axis >= 0 && axis <= (int64_t)rank;
        if ((mask & 0xc0) != 0xc0)
            mask = 0; /* ones in B: mostly not, for the legacy rule */
    }
    if (rule != ORACLE_SHAPE_PDPD && !(t & 0x80))
        trailing = 0; /* trailing ones matter to pdpd; elsewhere now and then */
    if (suffix) {
        len = l % (rank + 1);
        if (trailing > rank - len)
            trailing = rank - len;
        start = rank - len - trailing;
    } else {
        start = fixed ? (uint32_t)axis : (uint32_t)((l >> 4) % (rank + 1));
        len = (l & 15) % (rank - start + 1);
        if (trailing > rank - len)
            trailing = rank - len;
    }
    memset(out, 0, sizeof *out);
    out->rank = len;
    for (uint32_t k = 0; k < len; k++)
        out->dims[k] = ((mask >> k) & 1) ? 1 : s->dims[start + k];
    while (trailing-- && out->rank < DVG_MAX_RANK)
        out->dims[out->rank++] = 1;
}

/* One change that (most likely) breaks a compatible pair. */
static void read_break(decode_reader *r, oracle_shape *a, oracle_shape *b)
{
    uint8_t k = decode_read_u8(r), x = decode_read_u8(r), y = decode_read_u8(r);
    oracle_shape *s = (k & 1) ? a : b;
    switch ((k >> 1) & 3) {
    case 0: /* change one dimension */
        if (s->rank) {
            uint32_t i = x % s->rank;
            int64_t d = DIM_TAB[y & 31];
            s->dims[i] = d <= 1 || d == s->dims[i] ? s->dims[i] + 2 : d; /* not 1: 1s broadcast */
        }
        break;
    case 1: /* append one */
        if (s->rank < DVG_MAX_RANK)
            s->dims[s->rank++] = DIM_TAB[y & 31];
        break;
    case 2: /* drop the last */
        if (s->rank)
            s->dims[--s->rank] = 0;
        break;
    default: /* prepend one */
        if (s->rank < DVG_MAX_RANK) {
            memmove(&s->dims[1], &s->dims[0], s->rank * sizeof s->dims[0]);
            s->dims[0] = DIM_TAB[y & 31];
            s->rank++;
        }
        break;
    }
}

static void read_shapes(decode_reader *r, uint32_t rule, const dvg_attrs *at, oracle_shape *a,
                        oracle_shape *b)
{
    uint8_t m = decode_read_u8(r);
    const uint8_t *tab = rule == ORACLE_SHAPE_NUMPY ? GEN_NUMPY_TAB
                         : rule == ORACLE_SHAPE_EQUAL ? GEN_EQUAL_TAB
                                                      : GEN_WINDOW_TAB;
    oracle_shape s;
    read_shape(r, &s);
    switch (tab[m & 15]) {
    case G_EXPLICIT:
        *a = s;
        read_shape(r, b);
        break;
    case G_EQUAL:
        *a = *b = s;
        break;
    case G_NUMPY_B:
        *a = s;
        read_partner(r, &s, b);
        break;
    case G_NUMPY_A:
        *b = s;
        read_partner(r, &s, a);
        break;
    case G_NUMPY_BOTH:
        read_partner(r, &s, a);
        read_partner(r, &s, b);
        break;
    case G_WINDOW:
        *a = s;
        read_window(r, &s, rule, at, b);
        break;
    case G_ONES: {
        *a = s;
        memset(b, 0, sizeof *b);
        b->rank = decode_read_u8(r) % (s.rank + 1);
        for (uint32_t i = 0; i < b->rank; i++)
            b->dims[i] = 1;
        break;
    }
    default: /* G_SCALAR */
        *a = s;
        memset(b, 0, sizeof *b);
        break;
    }
    if (GEN_BREAK(m, rule))
        read_break(r, a, b);
}

/* The bits of the small integer k (|k| <= 16) in a float format. */
static uint64_t float_of_small(const oracle_float_format *f, int k)
{
    if (k == 0)
        return 0;
    uint64_t sign = k < 0, m = (uint64_t)(k < 0 ? -k : k);
    int e = 0;
    while ((m >> (e + 1)) != 0)
        e++;
    uint64_t bias = (UINT64_C(1) << (f->exp_bits - 1)) - 1;
    uint64_t frac = (m - (UINT64_C(1) << e)) << (f->frac_bits - e);
    return (sign << (f->exp_bits + f->frac_bits)) | ((bias + (uint64_t)e) << f->frac_bits) | frac;
}

static unsigned elem_bytes(uint32_t dtype)
{
    return (oracle_dtype(dtype)->bits + 7) / 8;
}

/* Reads `n` elements of `dtype` into buf. */
static void read_operands(decode_reader *r, uint32_t dtype, uint8_t *buf, uint64_t n,
                          uint64_t input_hash, uint64_t stream)
{
    uint8_t mode = decode_read_u8(r) & 3;
    uint64_t mask = oracle_dtype_mask(dtype);
    unsigned w = elem_bytes(dtype);
    size_t n_edges;
    const uint64_t *edges = gen_edge_values(dtype, &n_edges);
    oracle_float_format ff = {0, 0};
    int is_float = oracle_float_format_of(dtype, &ff);
    gen_rng g;
    int seeded = 0;
    if (mode == OP_GEN) {
        uint64_t seed = decode_read_le(r, 4);
        gen_seed(&g, seed, stream);
        seeded = 1;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        if (!seeded && decode_reader_done(r)) {
            /* Out of bytes: the rest from the generator, seeded by the input. */
            gen_seed(&g, input_hash, stream);
            seeded = 1;
        }
        if (seeded) {
            v = gen_value(&g, dtype);
        } else if (mode == OP_RAW) {
            v = decode_read_le(r, w);
        } else {
            uint8_t s = decode_read_u8(r);
            if (s < EL_NEAR) {
                v = edges[s % n_edges];
            } else if (s < EL_SMALL) {
                v = edges[decode_read_u8(r) % n_edges] + (uint64_t)(int64_t)NEAR_STEP[s & 7];
            } else if (s < EL_RAW) {
                int k = (int)(s & 31) - 16;
                v = is_float ? float_of_small(&ff, k) : (uint64_t)(int64_t)k;
            } else {
                v = decode_read_le(r, w);
            }
        }
        oracle_store(dtype, buf, i, v & mask);
    }
}

/* ---- decode ---------------------------------------------------------------- */

/* The shape-path walker's chooser over the input: one byte per choice
 * (two, or eight, for counts above 256 or 65536), modulo the count; no byte
 * for a choice of one. */
static uint64_t byte_below(void *ctx, uint64_t n)
{
    decode_reader *r = ctx;
    if (n <= 1)
        return 0;
    return decode_read_le(r, n <= 256 ? 1 : n <= 65536 ? 2 : 8) % n;
}

int decode_case(const uint8_t *data, size_t size, const decode_limits *lim, divcase *out)
{
    decode_limits dflt;
    if (!lim) {
        decode_limits_default(&dflt);
        lim = &dflt;
    }
    uint64_t maxe = lim->max_elements ? lim->max_elements : 1;
    decode_reader rd;
    decode_reader_init(&rd, data, size);
    uint64_t hash = fnv1a(rd.data, rd.size);

    memset(out, 0, sizeof *out);
    uint8_t layout = decode_read_u8(&rd);
    uint8_t vs = decode_read_u8(&rd), ts = decode_read_u8(&rd);
    pick_pair(vs, ts, lim, &out->variant, &out->dtype);
    const oracle_variant *v = oracle_variant_get(out->variant);
    oracle_attrs_default(v, &out->attrs);
    out->attrs.broadcast = decode_read_u8(&rd) & 1;
    out->attrs.axis_set = decode_read_u8(&rd) & 1;
    out->attrs.axis = read_axis(&rd);
    out->attrs.pythondiv = (decode_read_u8(&rd) & 1) ^ 1;
    out->attrs.auto_broadcast = (uint32_t)((decode_read_u8(&rd) % 3 + 1) % 3);
    out->attrs.int_rounding = (uint32_t)(decode_read_u8(&rd) % 3);

    shapes_spec path;
    if (layout >= LAYOUT_SHAPE_PATH) {
        shapes_chooser ch = {byte_below, &rd};
        shapes_choose(&ch, out->variant, maxe, &path);
        shapes_spec_attrs(&path, &out->attrs);
        out->a_shape = path.a;
        out->b_shape = path.b;
        snprintf(out->source, sizeof out->source, "%s", path.what);
    }
    oracle_rules rules;
    uint32_t rule = ORACLE_SHAPE_EQUAL;
    if (oracle_rules_resolve(out->variant, out->dtype, &out->attrs, &rules, NULL) == ORACLE_OK)
        rule = rules.shape_rule;
    if (layout < LAYOUT_SHAPE_PATH)
        read_shapes(&rd, rule, &out->attrs, &out->a_shape, &out->b_shape);
    shrink_shapes(&out->a_shape, &out->b_shape, rule, maxe); /* a drawn path fits already */

    snprintf(out->id, sizeof out->id, "fuzz:%016" PRIx64, hash);
    if (divcase_alloc(out, maxe)) {
        memset(out, 0, sizeof *out);
        return -1;
    }
    read_operands(&rd, out->dtype, out->a, oracle_shape_count(&out->a_shape), hash, 1);
    read_operands(&rd, out->dtype, out->b, oracle_shape_count(&out->b_shape), hash, 2);
    return 0;
}

/* ---- encode ---------------------------------------------------------------- */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    int failed;
} wbuf;

static void put(wbuf *w, uint8_t b)
{
    if (w->failed)
        return;
    if (w->n == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 256;
        uint8_t *p = dvg_realloc(w->p, cap);
        if (!p) {
            w->failed = 1;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    w->p[w->n++] = b;
}

static void put_le(wbuf *w, uint64_t v, unsigned nbytes)
{
    for (unsigned i = 0; i < nbytes; i++)
        put(w, (uint8_t)(v >> (8 * i)));
}

static int index_of(const uint8_t *tab, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        if (tab[i] == v)
            return (int)i;
    return -1;
}

static void put_shape(wbuf *w, const oracle_shape *s)
{
    put(w, (uint8_t)index_of(RANK_TAB, sizeof RANK_TAB, s->rank));
    for (uint32_t i = 0; i < s->rank; i++) {
        int k = index_of(DIM_TAB, sizeof DIM_TAB, (uint64_t)s->dims[i]);
        if (k >= 0) {
            put(w, (uint8_t)k);
        } else {
            put(w, DIM_LONG);
            put_le(w, (uint64_t)s->dims[i], 4);
        }
    }
}

static int edge_index(const uint64_t *edges, size_t n, uint64_t v)
{
    for (size_t i = 0; i < n; i++)
        if (edges[i] == v)
            return (int)i;
    return -1;
}

/* Writes the operands in the shorter of raw and edge-biased mode. */
static void put_operands(wbuf *w, uint32_t dtype, const uint8_t *buf, uint64_t n)
{
    unsigned wb = elem_bytes(dtype);
    size_t n_edges;
    const uint64_t *edges = gen_edge_values(dtype, &n_edges);
    uint64_t edge_cost = 0;
    for (uint64_t i = 0; i < n; i++)
        edge_cost += edge_index(edges, n_edges, oracle_load(dtype, buf, i)) >= 0 ? 1 : 1 + wb;
    if (edge_cost < n * wb) {
        put(w, OP_EDGE);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t v = oracle_load(dtype, buf, i);
            int k = edge_index(edges, n_edges, v);
            if (k >= 0) {
                put(w, (uint8_t)k);
            } else {
                put(w, EL_RAW);
                put_le(w, v, wb);
            }
        }
    } else {
        put(w, OP_RAW);
        for (uint64_t i = 0; i < n; i++)
            put_le(w, oracle_load(dtype, buf, i), wb);
    }
}

/* 1 when the format holds c's variant, dtype, attributes and shapes. */
static int encodable(const divcase *c)
{
    const oracle_variant *v = oracle_variant_get(c->variant);
    const dvg_attrs *at = &c->attrs;
    if (!v || !oracle_variant_has_dtype(v, c->dtype))
        return 0;
    if ((at->broadcast != 0 && at->broadcast != 1) || (at->axis_set != 0 && at->axis_set != 1) ||
        at->axis < FUZZ_AXIS_MIN || at->axis > FUZZ_AXIS_MAX ||
        (at->pythondiv != 0 && at->pythondiv != 1) || at->auto_broadcast > 2 ||
        at->int_rounding > 2 || at->reserved0 || at->reserved1 || at->size != sizeof *at)
        return 0;
    const oracle_shape *s[2] = {&c->a_shape, &c->b_shape};
    for (int t = 0; t < 2; t++) {
        if (s[t]->rank > DVG_MAX_RANK)
            return 0;
        for (uint32_t i = 0; i < s[t]->rank; i++)
            if (s[t]->dims[i] < 0 || s[t]->dims[i] > (int64_t)UINT32_MAX)
                return 0;
        if (sat_count(s[t]) > FUZZ_MAX_ENCODE_ELEMENTS)
            return 0;
    }
    uint64_t na = oracle_shape_count(&c->a_shape), nb = oracle_shape_count(&c->b_shape);
    if ((na && !c->a) || (nb && !c->b) || c->a_bytes < oracle_nbytes(c->dtype, na) ||
        c->b_bytes < oracle_nbytes(c->dtype, nb))
        return 0;
    return 1;
}

int decode_limits_admit(const decode_limits *lim, const divcase *c)
{
    decode_limits dflt;
    if (!lim) {
        decode_limits_default(&dflt);
        lim = &dflt;
    }
    if (!encodable(c))
        return 0;
    if (lim->claims && lim->n_claims) {
        uint32_t usable = 0;
        for (uint32_t i = 0; i < lim->n_claims; i++)
            usable += (uint32_t)claim_usable(&lim->claims[i]);
        if (usable && !claimed(lim, c->variant, c->dtype))
            return 0;
    }
    oracle_rules rules;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &rules, NULL) != ORACLE_OK)
        return 0;
    return shapes_fit(&c->a_shape, &c->b_shape, rules.shape_rule,
                      lim->max_elements ? lim->max_elements : 1);
}

int decode_encode(const divcase *c, uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    if (!encodable(c))
        return -1;
    const oracle_variant *v = oracle_variant_get(c->variant);
    uint32_t vi = 0;
    while (oracle_variant_at(vi) != v)
        vi++;
    uint32_t dts[DVG_DTYPE_COUNT], ti = 0;
    uint32_t n = variant_dtypes(v, dts);
    while (ti < n && dts[ti] != c->dtype)
        ti++;
    const dvg_attrs *at = &c->attrs;

    wbuf w = {0};
    put(&w, DECODE_FORMAT_VERSION);
    put(&w, (uint8_t)vi);
    put(&w, (uint8_t)ti);
    put(&w, (uint8_t)at->broadcast);
    put(&w, (uint8_t)at->axis_set);
    int ai = -1;
    for (int i = 0; i < 16 && ai < 0; i++)
        if (AXIS_TAB[i] == at->axis)
            ai = i;
    if (ai >= 0) {
        put(&w, (uint8_t)ai);
    } else {
        put(&w, AXIS_LONG);
        put(&w, (uint8_t)(int8_t)at->axis);
    }
    put(&w, (uint8_t)(at->pythondiv ^ 1));
    put(&w, (uint8_t)((at->auto_broadcast + 2) % 3));
    put(&w, (uint8_t)at->int_rounding);
    put(&w, 0); /* G_EXPLICIT, not broken */
    put_shape(&w, &c->a_shape);
    put_shape(&w, &c->b_shape);
    put_operands(&w, c->dtype, c->a, oracle_shape_count(&c->a_shape));
    put_operands(&w, c->dtype, c->b, oracle_shape_count(&c->b_shape));
    if (w.failed) {
        dvg_free(w.p);
        return -1;
    }
    *out = w.p;
    *size = w.n;
    return 0;
}
