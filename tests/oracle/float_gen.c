/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/float_gen.c: see float_gen.h.
 */
#include "float_gen.h"

#include <stdlib.h>

#include "divergence/iut.h"
#include "oracle/exact.h"

const tfmt tfmt_all[TFMT_COUNT] = {
    { DVG_DTYPE_F16, "f16", 5, 10 },
    { DVG_DTYPE_BF16, "bf16", 8, 7 },
    { DVG_DTYPE_F32, "f32", 8, 23 },
    { DVG_DTYPE_F64, "f64", 11, 52 },
};

const tfmt *tfmt_get(uint32_t dtype)
{
    for (int i = 0; i < TFMT_COUNT; i++)
        if (tfmt_all[i].dtype == dtype)
            return &tfmt_all[i];
    return NULL;
}

int tfmt_width(const tfmt *f) { return f->ebits + f->fbits + 1; }

uint64_t tfmt_mask(const tfmt *f)
{
    int w = tfmt_width(f);
    return w == 64 ? ~(uint64_t)0 : ((uint64_t)1 << w) - 1;
}

int64_t tfmt_bias(const tfmt *f) { return ((int64_t)1 << (f->ebits - 1)) - 1; }
int64_t tfmt_emin(const tfmt *f) { return 1 - tfmt_bias(f); }
int64_t tfmt_emax(const tfmt *f) { return tfmt_bias(f); }

uint64_t tfmt_default_nan(const tfmt *f)
{
    uint64_t exp_all_ones = ((uint64_t)1 << f->ebits) - 1;
    return (exp_all_ones << f->fbits) | ((uint64_t)1 << (f->fbits - 1));
}

int tfmt_is_nan(const tfmt *f, uint64_t v)
{
    uint64_t exp_all_ones = ((uint64_t)1 << f->ebits) - 1;
    uint64_t frac_mask = ((uint64_t)1 << f->fbits) - 1;
    return ((v >> f->fbits) & exp_all_ones) == exp_all_ones && (v & frac_mask) != 0;
}

int tfmt_same(const tfmt *f, uint64_t x, uint64_t y)
{
    if (tfmt_is_nan(f, x) || tfmt_is_nan(f, y))
        return tfmt_is_nan(f, x) && tfmt_is_nan(f, y);
    return x == y;
}

uint64_t tfmt_exact_div(const tfmt *f, uint64_t a, uint64_t b)
{
    switch (f->dtype) {
    case DVG_DTYPE_F16:  return f16_div((dvg_f16){ (uint16_t)a }, (dvg_f16){ (uint16_t)b }).v;
    case DVG_DTYPE_BF16: return bf16_div((dvg_bf16){ (uint16_t)a }, (dvg_bf16){ (uint16_t)b }).v;
    case DVG_DTYPE_F32:  return f32_div((dvg_f32){ (uint32_t)a }, (dvg_f32){ (uint32_t)b }).v;
    default:             return f64_div((dvg_f64){ a }, (dvg_f64){ b }).v;
    }
}

int tfmt_encode(const tfmt *f, int sign, uint64_t n, int64_t e, uint64_t *out)
{
    const int F = f->fbits;
    const int64_t unit_min = tfmt_emin(f) - F; /* exponent of the smallest subnormal */
    const uint64_t hidden = (uint64_t)1 << F;
    const int64_t exp_all_ones = ((int64_t)1 << f->ebits) - 1;
    uint64_t bits;

    if (n == 0) {
        *out = (uint64_t)(sign != 0) << (f->ebits + F);
        return 0;
    }
    while (n >> (F + 1)) { /* more than p significant bits: drop trailing zeros */
        if (n & 1)
            return -1;
        n >>= 1;
        e++;
    }
    while (e < unit_min) { /* below the subnormal unit: drop trailing zeros */
        if (n & 1)
            return -1;
        n >>= 1;
        e++;
    }
    while (n < hidden && e > unit_min) { /* normalise where the range allows */
        n <<= 1;
        e--;
    }
    if (n >= hidden) {
        int64_t biased = e + F + tfmt_bias(f);
        if (biased >= exp_all_ones)
            return -1;
        bits = ((uint64_t)biased << F) | (n - hidden);
    } else {
        bits = n; /* subnormal */
    }
    *out = bits | ((uint64_t)(sign != 0) << (f->ebits + F));
    return 0;
}

uint64_t tgen_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (hi >= lo). */
static int64_t rand_range(uint64_t *state, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(tgen_next(state) % (uint64_t)(hi - lo + 1));
}

size_t tgen_edges(const tfmt *f, uint64_t *out)
{
    const uint64_t frac_mask = ((uint64_t)1 << f->fbits) - 1;
    const uint64_t all_ones = ((uint64_t)1 << f->ebits) - 1;
    const uint64_t bias = all_ones >> 1;
    const uint64_t sign = (uint64_t)1 << (f->ebits + f->fbits);
    const uint64_t top = (uint64_t)1 << (f->fbits - 1);
#define E(x) ((uint64_t)(x) << f->fbits)
    const uint64_t mags[] = {
        0, 1, 2, 3, 5, top - 1, top, top | 1, frac_mask - 1, frac_mask,
        E(1), E(1) | 1, E(1) | top, E(1) | frac_mask, E(2), E(2) | 1,
        E(all_ones - 1) | frac_mask, E(all_ones - 1) | (frac_mask - 1), E(all_ones - 1),
        E(all_ones - 2) | frac_mask, E(all_ones - 2),
        E(all_ones), E(all_ones) | top, E(all_ones) | top | 1, E(all_ones) | 1,
        E(all_ones) | frac_mask,
        E(bias), E(bias) | 1, E(bias) | 2, E(bias - 1) | frac_mask, E(bias - 1) | (frac_mask - 1),
        E(bias + 1), E(bias - 1), E(bias + 1) | top, E(bias) | top,
        E(bias + 2) | (top >> 1), E(bias + 2) | top | (top >> 1), E(bias + 3) | (top >> 2),
        E(bias) | frac_mask, E(bias) | (frac_mask >> 1), E(bias) | (frac_mask - 1),
        E(bias) | (0x5555555555555555u & frac_mask), E(bias) | (0xAAAAAAAAAAAAAAAAu & frac_mask),
        E(bias + f->fbits), E(bias - f->fbits), E(bias + f->fbits + 1), E(bias - f->fbits - 1),
        E(bias + bias / 2), E(bias - bias / 2), E(3), E(f->fbits), E(all_ones - 1 - f->fbits),
    };
#undef E
    size_t n = 0;
    for (size_t i = 0; i < sizeof mags / sizeof mags[0]; i++) {
        out[n++] = mags[i];
        out[n++] = mags[i] | sign;
    }
    return n;
}

size_t tgen_testfloat(const tfmt *f, uint64_t *out, size_t cap)
{
    const int F = f->fbits;
    const uint64_t frac_mask = ((uint64_t)1 << F) - 1;
    const int64_t all_ones = ((int64_t)1 << f->ebits) - 1;
    const int64_t bias = all_ones >> 1;
    const int64_t p = F + 1;
    const int64_t exps[] = {
        0, 1, 2, 3, p / 2, p, bias - p - 1, bias - p, bias - p / 2, bias - 2, bias - 1,
        bias, bias + 1, bias + 2, bias + p / 2, bias + p, bias + p + 1,
        all_ones - p - 1, all_ones - 4, all_ones - 3, all_ones - 2, all_ones - 1, all_ones,
    };
    uint64_t sigs[4 * 64 + 16];
    size_t n_sigs = 0, n = 0;

    sigs[n_sigs++] = 0;
    sigs[n_sigs++] = frac_mask;
    sigs[n_sigs++] = 0x5555555555555555u & frac_mask;
    sigs[n_sigs++] = 0xAAAAAAAAAAAAAAAAu & frac_mask;
    sigs[n_sigs++] = 0x3333333333333333u & frac_mask;
    sigs[n_sigs++] = 0xF0F0F0F0F0F0F0F0u & frac_mask;
    for (int i = 1; i < F; i++) {
        sigs[n_sigs++] = ((uint64_t)1 << i) - 1;            /* run of ones at the bottom */
        sigs[n_sigs++] = frac_mask ^ (((uint64_t)1 << i) - 1); /* run of ones at the top */
    }
    for (int i = 0; i < F; i++) {
        sigs[n_sigs++] = (uint64_t)1 << i;                  /* single bit */
        sigs[n_sigs++] = frac_mask ^ ((uint64_t)1 << i);    /* single zero */
    }
    for (size_t i = 0; i < sizeof exps / sizeof exps[0]; i++) {
        if (exps[i] < 0 || exps[i] > all_ones)
            continue;
        for (size_t j = 0; j < n_sigs; j++) {
            uint64_t v = ((uint64_t)exps[i] << F) | sigs[j];
            for (int s = 0; s < 2 && n < cap; s++)
                out[n++] = v | ((uint64_t)s << (f->ebits + F));
        }
    }
    return n;
}

static int bit_length(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }
static int trailing_zeros(uint64_t x) { return x ? __builtin_ctzll(x) : 64; }

/* Inverse of an odd x modulo 2^64 (Newton's iteration). */
static uint64_t inverse_odd(uint64_t x)
{
    uint64_t y = x; /* correct to 3 bits */
    for (int i = 0; i < 5; i++)
        y *= 2 - x * y;
    return y;
}

/*
 * Scales integer significands A (dividend) and B (divisor) by 2^ea and 2^eb
 * with ea - eb = d, eb drawn uniformly from the values where both are
 * representable; random signs. Returns 0, or -1 when no eb works.
 */
static int place(const tfmt *f, uint64_t *state, uint64_t A, uint64_t B, int64_t d,
                 uint64_t *a, uint64_t *b)
{
    const int64_t unit_min = tfmt_emin(f) - f->fbits;
    const int64_t emax = tfmt_emax(f);
    int64_t lo, hi, eb;
    uint64_t r;

    if (A == 0 || B == 0 || bit_length(A) > f->fbits + 1 || bit_length(B) > f->fbits + 1)
        return -1;
    lo = unit_min - trailing_zeros(B);
    if (unit_min - trailing_zeros(A) - d > lo)
        lo = unit_min - trailing_zeros(A) - d;
    hi = emax - bit_length(B) + 1;
    if (emax - bit_length(A) + 1 - d < hi)
        hi = emax - bit_length(A) + 1 - d;
    if (lo > hi)
        return -1;
    eb = rand_range(state, lo, hi);
    r = tgen_next(state);
    if (tfmt_encode(f, (int)(r & 1), A, eb + d, a) != 0)
        return -1;
    if (tfmt_encode(f, (int)((r >> 1) & 1), B, eb, b) != 0)
        return -1;
    return 0;
}

/* A small odd offset: +-1, +-3, +-5, +-7. */
static int64_t small_odd(uint64_t *state)
{
    uint64_t r = tgen_next(state);
    int64_t v = (int64_t)(2 * (r % 4) + 1);
    return (r >> 8) & 1 ? -v : v;
}

/*
 * For the divisor significand B (odd, at most p bits), the dividend A with
 * A / B = M / 2^s - r / (B * 2^s), where M = r * B^-1 mod 2^s: a quotient
 * within r / (B * 2^s) of M / 2^s. Returns A and M.
 */
static uint64_t solve_near(uint64_t B, int s, int64_t r, uint64_t *M)
{
    uint64_t mod_mask = s == 64 ? ~(uint64_t)0 : ((uint64_t)1 << s) - 1;
    uint64_t m = ((uint64_t)r * inverse_odd(B)) & mod_mask;
    __int128 prod = (__int128)((unsigned __int128)m * B) - r;
    *M = m;
    return (uint64_t)(prod >> s);
}

/* A random odd significand of exactly p bits. */
static uint64_t random_sig(const tfmt *f, uint64_t *state)
{
    uint64_t frac_mask = ((uint64_t)1 << f->fbits) - 1;
    return ((uint64_t)1 << f->fbits) | (tgen_next(state) & frac_mask) | 1;
}

void tgen_near_tie(const tfmt *f, uint64_t *state, uint64_t *a, uint64_t *b)
{
    const int F = f->fbits, p = F + 1;
    const int64_t emin = tfmt_emin(f), emax = tfmt_emax(f);

    for (int attempt = 0; attempt < 64; attempt++) {
        uint64_t kind = tgen_next(state) % 8, A, B, M;
        int64_t r = small_odd(state), d, e;
        int k;

        switch (kind) {
        case 0:
        case 1:
        case 7:
            /* Normal range: M has p+1 bits, odd: a midpoint of binade e. */
            B = random_sig(f, state);
            A = solve_near(B, p + 1, r, &M);
            if (M < ((uint64_t)1 << p))
                continue; /* quotient not in [1, 2) * 2^e: try another B */
            if (kind == 7) {
                e = (tgen_next(state) & 1) ? emin : emax;
            } else {
                switch (tgen_next(state) % 8) {
                case 0: e = emin; break;
                case 1: e = emax; break;
                case 2: e = emin + 1; break;
                case 3: e = emax - 1; break;
                default: e = rand_range(state, emin, emax); break;
                }
            }
            /* A / B ~ M / 2^(p+1) = (M / 2^p) / 2, so 2^(ea-eb) = 2^(e+1). */
            d = e + 1;
            break;
        case 2:
        case 3:
            /* Subnormal range: M odd below 2^(k+1), the midpoint
             * M * 2^(emin - F - 1); k = 0 gives half the smallest
             * subnormal, k = F the top of the subnormal range. */
            k = (int)rand_range(state, 0, F);
            B = random_sig(f, state);
            A = solve_near(B, k + 1, r, &M);
            /* A / B ~ M / 2^(k+1), quotient M * 2^(emin - F - 1). */
            d = emin - F - 1 + k + 1;
            break;
        case 4: {
            /* An exact tie in the subnormal range: (M * c) / c * 2^d with
             * M odd, the quotient exactly M * 2^(emin - F - 1). */
            uint64_t c;
            k = (int)rand_range(state, 0, F);
            M = (tgen_next(state) & (((uint64_t)1 << (k + 1)) - 1)) | 1;
            c = (tgen_next(state) & (((uint64_t)1 << (p - bit_length(M))) - 1)) | 1;
            A = M * c;
            B = c;
            d = emin - F - 1;
            break;
        }
        case 5:
            /* Between the largest subnormal and the smallest normal: the
             * midpoint (2^p - 1) * 2^(emin - p) (exact: it rounds up to the
             * smallest normal) and its neighbours, or near ties of it. */
            M = ((uint64_t)1 << p) - 1 - 2 * (tgen_next(state) % 3);
            if (tgen_next(state) & 1) {
                A = M;
                B = 1;
                d = emin - F - 1;
            } else {
                /* B = r * M^-1 mod 2^p has at most p bits. */
                B = ((uint64_t)r * inverse_odd(M)) & (((uint64_t)1 << p) - 1);
                A = (uint64_t)(((__int128)((unsigned __int128)M * B) - r) >> p);
                d = emin - F - 1 + p;
            }
            break;
        default: { /* 6 */
            /* The overflow boundary: near-all-ones over near-1 or near-2
             * significands, scaled so the quotient straddles 2^(emax+1). */
            uint64_t r2 = tgen_next(state);
            A = ((uint64_t)1 << p) - 1 - (r2 & 7);
            if ((r2 >> 3) & 1) {
                B = ((uint64_t)1 << (p - 1)) + ((r2 >> 4) & 7); /* A / B ~ 2 */
                d = emax;                                        /* quotient ~ 2^(emax+1) */
            } else {
                B = ((uint64_t)1 << p) - 1 - ((r2 >> 4) & 7);   /* A / B ~ 1 */
                d = emax + 1;
            }
            d -= (int64_t)((r2 >> 8) % 2); /* or one binade below */
            break;
        }
        }
        if (place(f, state, A, B, d, a, b) == 0)
            return;
    }
    /* Nothing placed (rare): a uniform pair. */
    *a = tgen_next(state) & tfmt_mask(f);
    *b = tgen_next(state) & tfmt_mask(f);
}

int tgen_open(tgen *g, const tfmt *f, uint64_t seed)
{
    size_t cap = 256 + 32 * (4 * 64 + 16) * 2;
    g->f = f;
    g->state = seed;
    g->count = 0;
    g->pool = malloc(cap * sizeof *g->pool);
    if (!g->pool)
        return -1;
    g->n_edges = tgen_edges(f, g->pool);
    g->n_pool = g->n_edges + tgen_testfloat(f, g->pool + g->n_edges, cap - g->n_edges);
    return 0;
}

void tgen_close(tgen *g)
{
    free(g->pool);
    g->pool = NULL;
}

void tgen_pair(tgen *g, uint64_t *a, uint64_t *b)
{
    uint64_t mask = tfmt_mask(g->f);
    uint64_t r;

    if (g->count++ & 1) {
        *a = tgen_next(&g->state) & mask;
        *b = tgen_next(&g->state) & mask;
        return;
    }
    r = tgen_next(&g->state);
    switch (r % 10) {
    case 0: case 1: case 2: case 3:
        *a = g->pool[(r >> 8) % g->n_pool];
        *b = g->pool[(r >> 36) % g->n_pool];
        break;
    case 4:
        *a = g->pool[(r >> 8) % g->n_edges];
        *b = g->pool[(r >> 36) % g->n_pool];
        break;
    case 5:
        *a = g->pool[(r >> 8) % g->n_pool];
        *b = g->pool[(r >> 36) % g->n_edges];
        break;
    default:
        tgen_near_tie(g->f, &g->state, a, b);
        break;
    }
}
