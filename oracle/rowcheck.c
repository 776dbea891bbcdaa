/* SPDX-License-Identifier: MIT */
/*
 * oracle/rowcheck.c: the bulk check of sweeps (see rowcheck.h): a scalar
 * routine through oracle_expect_n that defines what is listed, vector
 * kernels per dtype that list the same elements faster, and the one-time
 * self-check that compares the two before a kernel is used.
 *
 * Compiled with -frounding-math -fsignaling-nans (oracle/CMakeLists.txt):
 * the divisions must stay inside the window of the FP environment guard.
 */
#include "oracle/rowcheck.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/edges.h"
#include "oracle/expect.h"
#include "oracle/fpenv.h"
#include "oracle/prng.h"
#include "oracle/variant.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_AVX2 1
#else
#define HAVE_AVX2 0
#endif

/* ------------------------------------------------------------------------
 * Shared helpers
 * ---------------------------------------------------------------------- */

/* 1 when x / ±0 is answered by a rule other than IEEE's under r (float
 * dtypes): such elements are always listed. */
static int route_zero_divisor(const oracle_rules *r)
{
    return r->kind == DVG_KIND_FLOAT && r->float_div_zero != ORACLE_FDZ_IEEE;
}

static int is_float_zero(uint32_t dtype, uint64_t bits)
{
    return (bits & (oracle_dtype_mask(dtype) >> 1)) == 0;
}

/* With row->repoison: elements [from, to) that are not in list[0..n_list)
 * (ascending) set to the poison pattern. */
static void repoison_unlisted(const oracle_row *row, uint32_t from, uint32_t to,
                              const uint32_t *list, uint32_t n_list)
{
    if (!row->repoison)
        return;
    uint32_t dtype = row->rules->dtype;
    uint64_t poison = row->poison & oracle_dtype_mask(dtype);
    uint32_t li = 0;
    while (li < n_list && list[li] < from)
        li++;
    for (uint32_t j = from; j < to; j++) {
        if (li < n_list && list[li] == j) {
            li++;
            continue;
        }
        oracle_store(dtype, row->repoison, j, poison);
    }
}

/* ------------------------------------------------------------------------
 * The scalar routine: the definition of what is listed.
 * ---------------------------------------------------------------------- */

#define CHUNK 256

int oracle_rowcheck_scalar(const oracle_row *row, uint32_t *list, oracle_row_result *res)
{
    const oracle_rules *r = row->rules;
    const oracle_dtype_info *d = oracle_dtype(r->dtype);
    if (!d)
        return -1;
    uint64_t mask = oracle_dtype_mask(r->dtype);
    uint64_t poison = row->poison & mask;
    int route = route_zero_divisor(r);
    uint64_t a[CHUNK], b[CHUNK];
    oracle_elem e[CHUNK];
    memset(res, 0, sizeof *res);
    for (uint32_t base = 0; base < row->n; base += CHUNK) {
        uint32_t m = row->n - base < CHUNK ? row->n - base : CHUNK;
        for (uint32_t i = 0; i < m; i++) {
            uint64_t v = oracle_load(r->dtype, row->v, base + i);
            a[i] = row->fixed_is_a ? row->fixed & mask : v;
            b[i] = row->fixed_is_a ? v : row->fixed & mask;
        }
        oracle_expect_n(r, a, b, m, e);
        for (uint32_t i = 0; i < m; i++) {
            uint64_t actual = oracle_load(r->dtype, row->out, base + i);
            int is_poison = actual == poison;
            int ok = !is_poison && (e[i].kind == ORACLE_EXACT || e[i].kind == ORACLE_ANY_NAN) &&
                     oracle_elem_accepts(r->dtype, &e[i], actual) &&
                     !(route && is_float_zero(r->dtype, b[i]));
            res->poison += (uint32_t)is_poison;
            if (!ok)
                list[res->listed++] = base + i;
            else if (row->count_subnormal && d->kind == DVG_KIND_FLOAT &&
                     e[i].kind == ORACLE_EXACT &&
                     oracle_operand_class(r->dtype, e[i].bits) == ORACLE_OPERAND_SUBNORMAL)
                res->subnormal++;
        }
    }
    repoison_unlisted(row, 0, row->n, list, res->listed);
    return 0;
}

/* ------------------------------------------------------------------------
 * The vector kernels (x86-64, AVX2 and F16C). Each does whole groups of
 * eight (four for f64) and returns how many elements it did; the scalar
 * routine does the rest.
 * ---------------------------------------------------------------------- */
#if HAVE_AVX2

#define TARGET __attribute__((target("avx2,f16c,bmi2")))
#define INLINE __attribute__((target("avx2,f16c,bmi2"), always_inline)) static inline

/* Appends base + k for each set bit k of `mask`. */
static inline uint32_t emit(uint32_t *list, uint32_t at, uint32_t base, uint32_t mask)
{
    while (mask) {
        list[at++] = base + (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1;
    }
    return at;
}

/* Eight 16-bit lane masks (all-ones or zero) as eight bits. */
INLINE uint32_t mask16(__m128i m)
{
    return (uint32_t)_pext_u32((uint32_t)_mm_movemask_epi8(m), 0x5555u);
}

INLINE uint32_t mask32(__m256i m)
{
    return (uint32_t)_mm256_movemask_ps(_mm256_castsi256_ps(m));
}

/* Loads of eight elements (unaligned). */
INLINE __m128i ld128(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
INLINE __m128i ld64(const void *p) { return _mm_loadl_epi64((const __m128i *)p); }
INLINE __m256i ld256(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }

/* ---- f16 and bf16 ---- */

INLINE __m256 widen_bf16(__m128i h)
{
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}

INLINE __m128i narrow_bf16(__m256 q)
{
    const __m256i one = _mm256_set1_epi32(1), half = _mm256_set1_epi32(0x7FFF);
    __m256i bits = _mm256_castps_si256(q);
    __m256i top = _mm256_srli_epi32(bits, 16);
    __m256i rounded = _mm256_srli_epi32(
        _mm256_add_epi32(bits, _mm256_add_epi32(half, _mm256_and_si256(top, one))), 16);
    __m256i quiet = _mm256_or_si256(top, _mm256_set1_epi32(0x40));
    __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(q, q, _CMP_UNORD_Q));
    __m256i v = _mm256_blendv_epi8(rounded, quiet, nan);
    return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08));
}

/* bf = 0: f16 (exponent field 0x7C00), 1: bf16 (0x7F80). The slow
 * step of eight elements, where one differs or a zero divisor is routed. */
INLINE uint32_t half_group(int bf, const uint8_t *vp, __m128i e, __m128i g, int route_v,
                           int count_sub, uint32_t j, uint32_t *list, uint32_t at,
                           uint32_t *npois, uint32_t *nsub, __m128i pois, uint8_t *rp)
{
    const __m128i abs = _mm_set1_epi16(0x7FFF), zero = _mm_setzero_si128();
    const __m128i inf = _mm_set1_epi16(bf ? 0x7F80 : 0x7C00);
    const __m128i min_normal = _mm_set1_epi16(bf ? 0x0080 : 0x0400);
    const __m128i ones = _mm_set1_epi32(-1);
    __m128i ea = _mm_and_si128(e, abs), ga = _mm_and_si128(g, abs);
    __m128i ok = _mm_or_si128(_mm_cmpeq_epi16(e, g),
                              _mm_and_si128(_mm_cmpgt_epi16(ea, inf), _mm_cmpgt_epi16(ga, inf)));
    __m128i p = _mm_cmpeq_epi16(g, pois);
    __m128i bad = _mm_or_si128(_mm_xor_si128(ok, ones), p);
    if (route_v)
        bad = _mm_or_si128(bad, _mm_cmpeq_epi16(_mm_and_si128(ld128(vp), abs), zero));
    if (count_sub) {
        __m128i sub = _mm_andnot_si128(bad, _mm_and_si128(_mm_cmpgt_epi16(ea, zero),
                                                          _mm_cmpgt_epi16(min_normal, ea)));
        *nsub += (uint32_t)__builtin_popcount(mask16(sub));
    }
    uint32_t mb = mask16(bad);
    if (rp) /* the poison where nothing is listed */
        _mm_storeu_si128((__m128i *)rp, _mm_blendv_epi8(pois, g, bad));
    if (mb) {
        *npois += (uint32_t)__builtin_popcount(mask16(p));
        at = emit(list, at, j, mb);
    }
    return at;
}

/* What a half-precision row check has found so far. */
typedef struct half_state {
    uint32_t at, npois, nsub;
    uint32_t steps; /* 16-element steps counted into acc since its last flush */
    __m128i acc;    /* subnormal counts per 16-bit lane */
} half_state;

INLINE void half_flush(half_state *st)
{
    __m128i w = _mm_madd_epi16(st->acc, _mm_set1_epi16(1));
    w = _mm_add_epi32(w, _mm_srli_si128(w, 8));
    w = _mm_add_epi32(w, _mm_srli_si128(w, 4));
    st->nsub += (uint32_t)_mm_cvtsi128_si32(w);
    st->acc = _mm_setzero_si128();
    st->steps = 0;
}

/* Elements [j, end) of the row (end - j a multiple of 8), sixteen a step,
 * each expected quotient computed by one float division: when all equal
 * their expected bits and none is the poison (the common case: no NaN to
 * compare by class, no routed zero divisor), only their subnormals are
 * counted, in 16-bit lane counters. */
INLINE void half_range(int bf, int count_sub, const oracle_row *row, int route, uint32_t j,
                       uint32_t end, uint32_t *list, half_state *st)
{
    const uint8_t *v = row->v, *o = row->out;
    const uint16_t fixed16 = (uint16_t)row->fixed;
    const __m128i abs = _mm_set1_epi16(0x7FFF), zero = _mm_setzero_si128();
    const __m128i min_normal = _mm_set1_epi16(bf ? 0x0080 : 0x0400);
    const __m128i pois = _mm_set1_epi16((short)(uint16_t)row->poison);
    const int route_v = route && row->fixed_is_a;
    uint8_t *const rp = row->repoison;
    __m256 f = bf ? widen_bf16(_mm_set1_epi16((short)fixed16))
                  : _mm256_cvtph_ps(_mm_set1_epi16((short)fixed16));
    uint32_t n16 = j + ((end - j) & ~15u);
#define HALF_EXPECT(vb)                                                                     \
    (bf ? narrow_bf16(row->fixed_is_a ? _mm256_div_ps(f, widen_bf16(vb))                   \
                                      : _mm256_div_ps(widen_bf16(vb), f))                  \
        : _mm256_cvtps_ph(row->fixed_is_a ? _mm256_div_ps(f, _mm256_cvtph_ps(vb))          \
                                          : _mm256_div_ps(_mm256_cvtph_ps(vb), f),         \
                          _MM_FROUND_TO_NEAREST_INT))
    for (; j < n16; j += 16) {
        __m128i e0 = HALF_EXPECT(ld128(v + 2 * j)), e1 = HALF_EXPECT(ld128(v + 2 * j + 16));
        __m128i g0 = ld128(o + 2 * j), g1 = ld128(o + 2 * j + 16);
        __m128i ok0 = _mm_andnot_si128(_mm_cmpeq_epi16(g0, pois), _mm_cmpeq_epi16(e0, g0));
        __m128i ok1 = _mm_andnot_si128(_mm_cmpeq_epi16(g1, pois), _mm_cmpeq_epi16(e1, g1));
        __m128i eq = _mm_packs_epi16(ok0, ok1);
        if (!route_v && _mm_movemask_epi8(eq) == 0xFFFF) {
            if (rp) {
                _mm_storeu_si128((__m128i *)(rp + 2 * j), pois);
                _mm_storeu_si128((__m128i *)(rp + 2 * j + 16), pois);
            }
            if (!count_sub)
                continue;
            __m128i a0 = _mm_and_si128(e0, abs), a1 = _mm_and_si128(e1, abs);
            st->acc = _mm_sub_epi16(st->acc, _mm_andnot_si128(_mm_cmpeq_epi16(a0, zero),
                                                              _mm_cmpgt_epi16(min_normal, a0)));
            st->acc = _mm_sub_epi16(st->acc, _mm_andnot_si128(_mm_cmpeq_epi16(a1, zero),
                                                              _mm_cmpgt_epi16(min_normal, a1)));
            if (++st->steps == 8192) /* 16384 counts at most per lane: flush */
                half_flush(st);
            continue;
        }
        st->at = half_group(bf, v + 2 * j, e0, g0, route_v, count_sub, j, list, st->at,
                            &st->npois, &st->nsub, pois, rp ? rp + 2 * j : NULL);
        st->at = half_group(bf, v + 2 * j + 16, e1, g1, route_v, count_sub, j + 8, list, st->at,
                            &st->npois, &st->nsub, pois, rp ? rp + 2 * j + 16 : NULL);
    }
    for (; j < end; j += 8) {
        __m128i e = HALF_EXPECT(ld128(v + 2 * j));
        st->at = half_group(bf, v + 2 * j, e, ld128(o + 2 * j), route_v, count_sub, j, list,
                            st->at, &st->npois, &st->nsub, pois, rp ? rp + 2 * j : NULL);
    }
#undef HALF_EXPECT
}

/*
 * A row whose v holds every value in ascending bit order (every_value):
 * v runs through blocks of one sign and one exponent field e, the
 * significands in order. With the fixed operand's quotients by (or of)
 * the block of exponent field `bias` (1.0 to 2.0) in a table T, those of
 * any other block are T scaled by a power of two: RN(x * 2^d) =
 * RN(x) * 2^d when x and x * 2^d both lie where the format is normal,
 * which holds when the exponent fields of RN(x) and RN(x) * 2^d are at
 * least 2 and at most the largest finite one (a quotient that rounded up
 * to the smallest normal may have come from below it, where the grid is
 * coarser). The scaled bits are T + (d << significand bits), the sign
 * flipped for a negative v. A block where that does not hold for every
 * entry of T, and the blocks of zeros and subnormals, infinities and
 * NaNs, are done by half_range. So most blocks cost a load, an add and a
 * compare per element instead of a division; the listing is the same.
 */
INLINE int half_scaled(int bf, int count_sub, const oracle_row *row, int route, uint32_t *list,
                       half_state *st)
{
    const int mbits = bf ? 7 : 10, block = 1 << mbits;
    const int bias = bf ? 127 : 15, emax = bf ? 254 : 30, efields = bf ? 256 : 32;
    const __m128i pois = _mm_set1_epi16((short)(uint16_t)row->poison);
    const __m256i pois256 = _mm256_set1_epi16((short)(uint16_t)row->poison);
    const int pois_field = (int)((row->poison & 0x7FFF) >> mbits);
    const int pois_normal = pois_field >= 1 && pois_field <= emax;
    uint8_t *const rp = row->repoison;
    uint16_t unit[1024], table[1024];
    for (int m = 0; m < block; m++)
        unit[m] = (uint16_t)((bias << mbits) | m);
    /* T: one division per significand, as half_range does it */
    const __m256 f = bf ? widen_bf16(_mm_set1_epi16((short)(uint16_t)row->fixed))
                        : _mm256_cvtph_ps(_mm_set1_epi16((short)(uint16_t)row->fixed));
    for (int m = 0; m < block; m += 8) {
        __m128i u = ld128(unit + m), q;
        if (bf)
            q = narrow_bf16(row->fixed_is_a ? _mm256_div_ps(f, widen_bf16(u))
                                            : _mm256_div_ps(widen_bf16(u), f));
        else
            q = _mm256_cvtps_ph(row->fixed_is_a ? _mm256_div_ps(f, _mm256_cvtph_ps(u))
                                                : _mm256_div_ps(_mm256_cvtph_ps(u), f),
                                _MM_FROUND_TO_NEAREST_INT);
        _mm_storeu_si128((__m128i *)(table + m), q);
    }
    int tmin = efields, tmax = -1;
    for (int m = 0; m < block; m++) {
        int ex = (table[m] & 0x7FFF) >> mbits;
        tmin = ex < tmin ? ex : tmin;
        tmax = ex > tmax ? ex : tmax;
    }
    if (tmin < 2 || tmax > emax)
        return 0; /* a zero, subnormal, infinite or NaN entry: no scaling */
    const uint8_t *o = row->out;
    for (int sign = 0; sign < 2; sign++) {
        for (int e = 0; e < efields; e++) {
            uint32_t j0 = ((uint32_t)sign << 15) | ((uint32_t)e << mbits);
            int d = row->fixed_is_a ? bias - e : e - bias;
            if (e == 0 || e == efields - 1 || tmin + d < 2 || tmax + d > emax) {
                half_range(bf, count_sub, row, route, j0, j0 + (uint32_t)block, list, st);
                continue;
            }
            /* + 0x8000 flips the sign bit (the carry out is dropped) */
            const __m256i add = _mm256_set1_epi16((short)(uint16_t)(d * block + sign * 0x8000));
            for (int m = 0; m < block; m += 32) {
                uint32_t j = j0 + (uint32_t)m;
                __m256i e0 = _mm256_add_epi16(ld256(table + m), add);
                __m256i e1 = _mm256_add_epi16(ld256(table + m + 16), add);
                __m256i g0 = ld256(o + 2 * j), g1 = ld256(o + 2 * j + 32);
                __m256i eq = _mm256_and_si256(_mm256_cmpeq_epi16(e0, g0),
                                              _mm256_cmpeq_epi16(e1, g1));
                if (pois_normal) /* else an element equal to a normal e is no poison */
                    eq = _mm256_andnot_si256(_mm256_or_si256(_mm256_cmpeq_epi16(g0, pois256),
                                                             _mm256_cmpeq_epi16(g1, pois256)),
                                             eq);
                if (_mm256_movemask_epi8(eq) == -1) {
                    if (rp) {
                        _mm256_storeu_si256((__m256i *)(rp + 2 * j), pois256);
                        _mm256_storeu_si256((__m256i *)(rp + 2 * j + 32), pois256);
                    }
                    continue; /* all normal: no subnormal to count */
                }
                const uint8_t *vp = (const uint8_t *)row->v + 2 * j;
                const __m256i es[2] = {e0, e1}, gs[2] = {g0, g1};
                for (int q = 0; q < 4; q++) {
                    __m256i eh = es[q / 2], gh = gs[q / 2];
                    __m128i e8 = q % 2 ? _mm256_extracti128_si256(eh, 1) : _mm256_castsi256_si128(eh);
                    __m128i g8 = q % 2 ? _mm256_extracti128_si256(gh, 1) : _mm256_castsi256_si128(gh);
                    st->at = half_group(bf, vp + 16 * q, e8, g8, 0, count_sub, j + 8 * (uint32_t)q,
                                        list, st->at, &st->npois, &st->nsub, pois,
                                        rp ? rp + 2 * j + 16 * q : NULL);
                }
            }
        }
    }
    return 1;
}

INLINE uint32_t half_kernel(int bf, int count_sub, const oracle_row *row, int route,
                            uint32_t *list, oracle_row_result *res)
{
    half_state st = {res->listed, 0, 0, 0, _mm_setzero_si128()};
    uint32_t n8 = row->n & ~7u;
    if (!(row->every_value && row->n == 65536 &&
          half_scaled(bf, count_sub, row, route, list, &st)))
        half_range(bf, count_sub, row, route, 0, n8, list, &st);
    half_flush(&st);
    res->listed = st.at;
    res->poison += st.npois;
    res->subnormal += st.nsub;
    return n8;
}

TARGET static uint32_t check_f16(const oracle_row *row, int route, uint32_t *list,
                                 oracle_row_result *res)
{
    return row->count_subnormal ? half_kernel(0, 1, row, route, list, res)
                                : half_kernel(0, 0, row, route, list, res);
}

TARGET static uint32_t check_bf16(const oracle_row *row, int route, uint32_t *list,
                                  oracle_row_result *res)
{
    return row->count_subnormal ? half_kernel(1, 1, row, route, list, res)
                                : half_kernel(1, 0, row, route, list, res);
}

/* ---- f32 ---- */

TARGET static uint32_t check_f32(const oracle_row *row, int route, uint32_t *list,
                                 oracle_row_result *res)
{
    const uint8_t *v = row->v, *o = row->out;
    uint32_t fixed32 = (uint32_t)row->fixed;
    float ff;
    memcpy(&ff, &fixed32, sizeof ff);
    const __m256 f = _mm256_set1_ps(ff);
    const __m256i abs = _mm256_set1_epi32(0x7FFFFFFF), zero = _mm256_setzero_si256();
    const __m256i min_normal = _mm256_set1_epi32(0x00800000);
    const __m256i pois = _mm256_set1_epi32((int)(uint32_t)row->poison);
    const __m256i ones = _mm256_set1_epi32(-1);
    uint32_t n8 = row->n & ~7u, at = res->listed, npois = 0, nsub = 0;
    for (uint32_t j = 0; j < n8; j += 8) {
        __m256 x = _mm256_loadu_ps((const float *)(const void *)(v + 4 * j));
        __m256i g = _mm256_loadu_si256((const __m256i *)(const void *)(o + 4 * j));
        __m256 q = row->fixed_is_a ? _mm256_div_ps(f, x) : _mm256_div_ps(x, f);
        __m256i e = _mm256_castps_si256(q);
        __m256 gf = _mm256_castsi256_ps(g);
        __m256i both_nan = _mm256_castps_si256(
            _mm256_and_ps(_mm256_cmp_ps(q, q, _CMP_UNORD_Q), _mm256_cmp_ps(gf, gf, _CMP_UNORD_Q)));
        __m256i ok = _mm256_or_si256(_mm256_cmpeq_epi32(e, g), both_nan);
        __m256i p = _mm256_cmpeq_epi32(g, pois);
        __m256i bad = _mm256_or_si256(_mm256_xor_si256(ok, ones), p);
        if (route && row->fixed_is_a)
            bad = _mm256_or_si256(bad, _mm256_cmpeq_epi32(
                                           _mm256_and_si256(_mm256_castps_si256(x), abs), zero));
        if (row->count_subnormal) {
            __m256i ea = _mm256_and_si256(e, abs);
            __m256i in = _mm256_and_si256(_mm256_cmpgt_epi32(ea, zero),
                                          _mm256_cmpgt_epi32(min_normal, ea));
            __m256i sub = _mm256_andnot_si256(bad, in);
            nsub += (uint32_t)__builtin_popcount(mask32(sub));
        }
        uint32_t mb = mask32(bad);
        if (mb) {
            npois += (uint32_t)__builtin_popcount(mask32(p));
            at = emit(list, at, j, mb);
        }
    }
    res->listed = at;
    res->poison += npois;
    res->subnormal += nsub;
    return n8;
}

/* ---- f64 ---- */

TARGET static uint32_t check_f64(const oracle_row *row, int route, uint32_t *list,
                                 oracle_row_result *res)
{
    const uint8_t *v = row->v, *o = row->out;
    double fd;
    memcpy(&fd, &row->fixed, sizeof fd);
    const __m256d f = _mm256_set1_pd(fd);
    const __m256i abs = _mm256_set1_epi64x(0x7FFFFFFFFFFFFFFF), zero = _mm256_setzero_si256();
    const __m256i min_normal = _mm256_set1_epi64x(0x0010000000000000);
    const __m256i pois = _mm256_set1_epi64x((long long)row->poison);
    const __m256i ones = _mm256_set1_epi32(-1);
    uint32_t n4 = row->n & ~3u, at = res->listed, npois = 0, nsub = 0;
    for (uint32_t j = 0; j < n4; j += 4) {
        __m256d x = _mm256_loadu_pd((const double *)(const void *)(v + 8 * j));
        __m256i g = _mm256_loadu_si256((const __m256i *)(const void *)(o + 8 * j));
        __m256d q = row->fixed_is_a ? _mm256_div_pd(f, x) : _mm256_div_pd(x, f);
        __m256i e = _mm256_castpd_si256(q);
        __m256d gd = _mm256_castsi256_pd(g);
        __m256i both_nan = _mm256_castpd_si256(
            _mm256_and_pd(_mm256_cmp_pd(q, q, _CMP_UNORD_Q), _mm256_cmp_pd(gd, gd, _CMP_UNORD_Q)));
        __m256i ok = _mm256_or_si256(_mm256_cmpeq_epi64(e, g), both_nan);
        __m256i p = _mm256_cmpeq_epi64(g, pois);
        __m256i bad = _mm256_or_si256(_mm256_xor_si256(ok, ones), p);
        if (route && row->fixed_is_a)
            bad = _mm256_or_si256(bad, _mm256_cmpeq_epi64(
                                           _mm256_and_si256(_mm256_castpd_si256(x), abs), zero));
        if (row->count_subnormal) {
            __m256i ea = _mm256_and_si256(e, abs);
            __m256i in = _mm256_and_si256(_mm256_cmpgt_epi64(ea, zero),
                                          _mm256_cmpgt_epi64(min_normal, ea));
            __m256i sub = _mm256_andnot_si256(bad, in);
            nsub += (uint32_t)__builtin_popcount(
                (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(sub)));
        }
        uint32_t mb = (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(bad));
        if (mb) {
            npois += (uint32_t)__builtin_popcount(
                (unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(p)));
            at = emit(list, at, j, mb);
        }
    }
    res->listed = at;
    res->poison += npois;
    res->subnormal += nsub;
    return n4;
}

/* ---- 8- and 16-bit integers: verified, not divided ---- */

/* kind: 0 i16, 1 u16, 2 i8, 3 u8. Eight elements as int32 lanes. */
INLINE __m256i widen_int(int kind, const uint8_t *p)
{
    switch (kind) {
    case 0: return _mm256_cvtepi16_epi32(ld128(p));
    case 1: return _mm256_cvtepu16_epi32(ld128(p));
    case 2: return _mm256_cvtepi8_epi32(ld64(p));
    default: return _mm256_cvtepu8_epi32(ld64(p));
    }
}

/* Lanes of eight raw elements equal to the poison, as int32 lane masks. */
INLINE __m256i poison_lanes(int kind, const uint8_t *p, uint64_t poison)
{
    if (kind <= 1)
        return _mm256_cvtepi16_epi32(
            _mm_cmpeq_epi16(ld128(p), _mm_set1_epi16((short)(uint16_t)poison)));
    return _mm256_cvtepi8_epi32(_mm_cmpeq_epi8(ld64(p), _mm_set1_epi8((char)(uint8_t)poison)));
}

INLINE uint32_t int_kernel(int kind, const oracle_row *row, uint32_t *list, oracle_row_result *res)
{
    const uint8_t *v = row->v, *o = row->out;
    const int size = kind <= 1 ? 2 : 1, is_signed = kind == 0 || kind == 2;
    const int floor = row->rules->int_rounding == DVG_ROUND_FLOOR;
    uint64_t fb = row->fixed & oracle_dtype_mask(row->rules->dtype);
    int32_t fixed = is_signed ? (int32_t)oracle_int_value(row->rules->dtype, fb) : (int32_t)fb;
    const __m256i f = _mm256_set1_epi32(fixed), zero = _mm256_setzero_si256();
    const __m256i ones = _mm256_set1_epi32(-1), one = _mm256_set1_epi32(1);
    uint32_t n8 = row->n & ~7u, at = res->listed, npois = 0;
    uint8_t *const rp = row->repoison;
    const __m128i pois16 = _mm_set1_epi16((short)(uint16_t)row->poison);
    const __m128i pois8 = _mm_set1_epi8((char)(uint8_t)row->poison);
    for (uint32_t j = 0; j < n8; j += 8) {
        __m256i x = widen_int(kind, v + size * j);
        __m256i q = widen_int(kind, o + size * j);
        __m256i a = row->fixed_is_a ? f : x, b = row->fixed_is_a ? x : f;
        __m256i prod = _mm256_mullo_epi32(q, b);
        __m256i r = _mm256_sub_epi32(a, prod), ok;
        if (is_signed) {
            __m256i small = _mm256_cmpgt_epi32(_mm256_abs_epi32(b), _mm256_abs_epi32(r));
            __m256i side = _mm256_xor_si256(r, floor ? b : a);
            __m256i sign_ok = _mm256_or_si256(_mm256_cmpeq_epi32(r, zero),
                                              _mm256_cmpgt_epi32(side, ones)); /* side >= 0 */
            ok = _mm256_and_si256(small, sign_ok);
        } else {
            /* prod <= a (no borrow) and r + 1 <= b, unsigned */
            __m256i no_borrow = _mm256_cmpeq_epi32(_mm256_max_epu32(prod, a), a);
            __m256i r1 = _mm256_add_epi32(r, one);
            __m256i below = _mm256_cmpeq_epi32(_mm256_max_epu32(r1, b), b);
            ok = _mm256_and_si256(no_borrow, _mm256_andnot_si256(_mm256_cmpeq_epi32(b, zero), below));
        }
        __m256i p = poison_lanes(kind, o + size * j, row->poison);
        __m256i bad = _mm256_or_si256(_mm256_xor_si256(ok, ones), p);
        uint32_t mb = mask32(bad);
        if (rp && !mb) { /* the poison where nothing is listed */
            if (size == 2)
                _mm_storeu_si128((__m128i *)(rp + 2 * j), pois16);
            else
                _mm_storel_epi64((__m128i *)(rp + j), pois8);
        } else if (rp) {
            __m128i m16 = _mm_packs_epi32(_mm256_castsi256_si128(bad),
                                          _mm256_extracti128_si256(bad, 1));
            if (size == 2)
                _mm_storeu_si128((__m128i *)(rp + 2 * j),
                                 _mm_blendv_epi8(pois16, ld128(o + 2 * j), m16));
            else
                _mm_storel_epi64((__m128i *)(rp + j),
                                 _mm_blendv_epi8(pois8, ld64(o + j), _mm_packs_epi16(m16, m16)));
        }
        if (mb) {
            npois += (uint32_t)__builtin_popcount(mask32(p));
            at = emit(list, at, j, mb);
        }
    }
    res->listed = at;
    res->poison += npois;
    return n8;
}

TARGET static uint32_t check_i16(const oracle_row *row, int route, uint32_t *list,
                                 oracle_row_result *res)
{
    (void)route;
    return int_kernel(0, row, list, res);
}
TARGET static uint32_t check_u16(const oracle_row *row, int route, uint32_t *list,
                                 oracle_row_result *res)
{
    (void)route;
    return int_kernel(1, row, list, res);
}
TARGET static uint32_t check_i8(const oracle_row *row, int route, uint32_t *list,
                                 oracle_row_result *res)
{
    (void)route;
    return int_kernel(2, row, list, res);
}
TARGET static uint32_t check_u8(const oracle_row *row, int route, uint32_t *list,
                                 oracle_row_result *res)
{
    (void)route;
    return int_kernel(3, row, list, res);
}

typedef uint32_t kernel_fn(const oracle_row *row, int route, uint32_t *list, oracle_row_result *res);

/* 1 when dtype's kernel puts the poison back itself (row->repoison). */
static int kernel_repoisons(uint32_t dtype)
{
    return dtype == DVG_DTYPE_F16 || dtype == DVG_DTYPE_BF16 || oracle_dtype(dtype)->kind != DVG_KIND_FLOAT;
}

static kernel_fn *kernel_of(uint32_t dtype)
{
    switch (dtype) {
    case DVG_DTYPE_F16: return check_f16;
    case DVG_DTYPE_BF16: return check_bf16;
    case DVG_DTYPE_F32: return check_f32;
    case DVG_DTYPE_F64: return check_f64;
    case DVG_DTYPE_I16: return check_i16;
    case DVG_DTYPE_U16: return check_u16;
    case DVG_DTYPE_I8: return check_i8;
    case DVG_DTYPE_U8: return check_u8;
    default: return NULL;
    }
}

/* 1 when this CPU (and its OS) runs the AVX2, F16C and BMI2 kernels. F16C
 * is read from CPUID leaf 1 (ECX bit 29): clang 14's __builtin_cpu_supports
 * does not know "f16c"; the AVX2 test covers the OS's saving of YMM state. */
static int cpu_ok(void)
{
    static int known = -1;
    int v = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (v < 0) {
        unsigned eax, ebx, ecx, edx;
        __builtin_cpu_init();
        v = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
            __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C);
        __atomic_store_n(&known, v, __ATOMIC_RELAXED);
    }
    return v;
}
#else
typedef uint32_t kernel_fn(const oracle_row *row, int route, uint32_t *list, oracle_row_result *res);
static kernel_fn *kernel_of(uint32_t dtype) { (void)dtype; return NULL; }
static int kernel_repoisons(uint32_t dtype) { (void)dtype; return 0; }
static int cpu_ok(void) { return 0; }
#endif /* HAVE_AVX2 */

int oracle_rowcheck_vector(const oracle_row *row, uint32_t *list, oracle_row_result *res)
{
    kernel_fn *k = kernel_of(row->rules->dtype);
    if (!k || !cpu_ok())
        return -1;
    const oracle_rules *r = row->rules;
    int route = route_zero_divisor(r);
    memset(res, 0, sizeof *res);
    /* A zero divisor fixed for the whole row under a rule that is not
     * IEEE's: every element is listed. */
    if (route && !row->fixed_is_a && is_float_zero(r->dtype, row->fixed))
        return oracle_rowcheck_scalar(row, list, res);
    oracle_fpenv g;
    oracle_fpenv_enter(&g);
    uint32_t done = k(row, route, list, res);
    oracle_fpenv_leave(&g);
    if (!kernel_repoisons(r->dtype))
        repoison_unlisted(row, 0, done, list, res->listed);
    if (done < row->n) {
        const oracle_dtype_info *d = oracle_dtype(r->dtype);
        oracle_row tail = *row;
        uint64_t skip = (uint64_t)done * d->bits / 8; /* done is a multiple of 4 */
        tail.v = (const uint8_t *)row->v + skip;
        tail.out = (const uint8_t *)row->out + skip;
        if (row->repoison)
            tail.repoison = (uint8_t *)row->repoison + skip;
        tail.n = row->n - done;
        oracle_row_result tr;
        uint32_t *tail_list = list + res->listed;
        oracle_rowcheck_scalar(&tail, tail_list, &tr);
        for (uint32_t i = 0; i < tr.listed; i++)
            tail_list[i] += done;
        res->listed += tr.listed;
        res->poison += tr.poison;
        res->subnormal += tr.subnormal;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The self-check
 * ---------------------------------------------------------------------- */

enum { STATE_UNKNOWN = 0, STATE_ON, STATE_OFF };
static int state_[DVG_DTYPE_COUNT];
static pthread_mutex_t state_lock_ = PTHREAD_MUTEX_INITIALIZER;

/* Fixed operands worth checking: the dtype's edge values (oracle/edges.h)
 * and two random ones. Returns the count (<= ORACLE_EDGE_MAX_VALUES + 2). */
static uint32_t fixed_values(uint32_t dtype, uint64_t *out, uint64_t *state)
{
    uint64_t mask = oracle_dtype_mask(dtype);
    size_t n_edges;
    const uint64_t *edges = oracle_edge_values(dtype, &n_edges);
    uint32_t n = 0;
    for (size_t i = 0; i < n_edges; i++)
        out[n++] = edges[i];
    for (int i = 0; i < 2; i++)
        out[n++] = oracle_prng_next(state) & mask;
    return n;
}

/* Rules to check a dtype under: variants that have it, with their
 * defaults and the other integer rounding where an attribute selects it,
 * one per kind of answer (float x/0 rule; integer rounding). */
static int same_kind(const oracle_rules *a, const oracle_rules *b)
{
    return a->kind == DVG_KIND_FLOAT ? a->float_div_zero == b->float_div_zero
                                     : a->int_rounding == b->int_rounding;
}

static uint32_t rule_set(uint32_t dtype, oracle_rules *out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < oracle_variant_count() && n + 2 <= cap; i++) {
        const oracle_variant *v = oracle_variant_at(i);
        if (!oracle_variant_has_dtype(v, dtype))
            continue;
        dvg_attrs at;
        oracle_error e;
        oracle_attrs_default(v, &at);
        for (int pass = 0; pass < 2; pass++) {
            if (pass) {
                if (!(v->attr_keys & (ORACLE_ATTR_PYTHONDIV | ORACLE_ATTR_INT_ROUNDING)))
                    break;
                at.pythondiv = !at.pythondiv;
                at.int_rounding = DVG_ROUND_TRUNC;
            }
            if (oracle_rules_resolve(v->id, dtype, &at, &out[n], &e) != ORACLE_OK)
                continue;
            int known = 0;
            for (uint32_t k = 0; k < n && !known; k++)
                known = same_kind(&out[k], &out[n]);
            n += (uint32_t)!known;
        }
    }
    return n;
}

/* Compares the vector and scalar listings of one row; 1 when equal. */
static int same_listing(const oracle_row *row, uint32_t *l1, uint32_t *l2)
{
    oracle_row_result r1, r2;
    if (oracle_rowcheck_vector(row, l1, &r1) || oracle_rowcheck_scalar(row, l2, &r2))
        return 0;
    return r1.listed == r2.listed && r1.poison == r2.poison && r1.subnormal == r2.subnormal &&
           memcmp(l1, l2, r1.listed * sizeof *l1) == 0;
}

/* The self-check's buffers for rows of n elements. */
typedef struct scratch {
    uint8_t *v, *out;
    uint32_t *l1, *l2;
    uint64_t *a, *b;
    oracle_elem *e;
} scratch;

static void scratch_free(scratch *s)
{
    free(s->v);
    free(s->out);
    free(s->l1);
    free(s->l2);
    free(s->a);
    free(s->b);
    free(s->e);
}

/* 1 when every buffer was had (else none is kept). */
static int scratch_alloc(scratch *s, uint32_t dtype, uint32_t n)
{
    size_t bytes = oracle_nbytes(dtype, n);
    s->v = malloc(bytes);
    s->out = malloc(bytes);
    s->l1 = malloc(n * sizeof *s->l1);
    s->l2 = malloc(n * sizeof *s->l2);
    s->a = malloc(n * sizeof *s->a);
    s->b = malloc(n * sizeof *s->b);
    s->e = malloc(n * sizeof *s->e);
    if (s->v && s->out && s->l1 && s->l2 && s->a && s->b && s->e)
        return 1;
    scratch_free(s);
    return 0;
}

/*
 * The self-check of rows with every_value (f16 and bf16: the kernel
 * scales quotients): rows of every value against fixed operands that
 * scale everywhere (1), nowhere (a subnormal, the largest finite) and in
 * part (a small and a large normal), in both roles, exact and one bit off
 * with a poisoned element, under each rule set's first entry and one that
 * routes x/0; the listing must equal the scalar one.
 */
static int check_every_value(uint32_t dtype, const oracle_rules *rules, uint32_t n_rules)
{
    oracle_float_format f;
    if ((dtype != DVG_DTYPE_F16 && dtype != DVG_DTYPE_BF16) || oracle_float_format_of(dtype, &f))
        return 1;
    const uint32_t n = 65536;
    const uint64_t one = (uint64_t)(((1u << f.exp_bits) - 1) >> 1) << f.frac_bits;
    const uint64_t fixed[] = {one, 1, (uint64_t)((1u << (f.exp_bits - 1)) - 1) << f.frac_bits | 5,
                              one - (3u << f.frac_bits) + 9, one + (9u << f.frac_bits) + 0x8003u,
                              (((1u << f.exp_bits) - 2u) << f.frac_bits) | ((1u << f.frac_bits) - 1)};
    scratch sc;
    const int have = scratch_alloc(&sc, dtype, n);
    int ok = have;
    uint16_t *v = (uint16_t *)sc.v, *out = (uint16_t *)sc.out;
    uint64_t *a = sc.a, *b = sc.b;
    for (uint32_t i = 0; ok && i < n; i++)
        v[i] = (uint16_t)i;
    for (uint32_t k = 0; ok && k < n_rules; k++) {
        if (k > 0 && !route_zero_divisor(&rules[k]))
            continue;
        for (size_t fi = 0; ok && fi < sizeof fixed / sizeof fixed[0]; fi++)
            for (int role = 0; ok && role < 2; role++) {
                for (uint32_t i = 0; i < n; i++) {
                    a[i] = role ? fixed[fi] & 0xFFFF : i;
                    b[i] = role ? i : fixed[fi] & 0xFFFF;
                }
                oracle_expect_n(&rules[k], a, b, n, sc.e);
                for (int off = 0; ok && off < 2; off++) {
                    for (uint32_t i = 0; i < n; i++)
                        out[i] = (uint16_t)(sc.e[i].bits ^ (uint64_t)(off && i % 7 == 0));
                    oracle_row row = {&rules[k], fixed[fi] & 0xFFFF, role, v, out, n,
                                      off ? out[n / 3] : 0x7DA5u, off, 1, NULL};
                    ok = same_listing(&row, sc.l1, sc.l2);
                }
                if (k > 0)
                    break; /* the routing rule: one role is enough */
            }
        if (k > 0)
            break;
    }
    if (have)
        scratch_free(&sc);
    return ok;
}

/*
 * The self-check of one dtype: rows of the fixed operands (the edge table
 * and two random values, both roles) against every value of an 8-bit or
 * smaller dtype, or against the edge values and others of a wider one
 * (4096 in all for a 16-bit type, one in 16; 1024 random ones beyond),
 * with the exact results, the exact results
 * with their lowest bit flipped, and a poisoned element, under each rule
 * set; the vector listing must equal the scalar one.
 */
static int check_dtype(uint32_t dtype)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    /* 8-bit and smaller: every value; 16-bit: 4096 values - the fixed ones
     * (edges), then one of every 16 with its low nibble varied; wider: 1024
     * values, the fixed ones then random bits (the fixed operands are the
     * whole edge table, 37 of them for a float, so the rows stay as cheap
     * as the start-up of a short sweep needs) */
    uint32_t n = d->bits <= 8 ? (uint32_t)1 << d->bits : d->bits == 16 ? 4096 : 1024;
    uint64_t mask = oracle_dtype_mask(dtype), state = 0x726f77636865636bu ^ dtype;
    uint64_t fixed[ORACLE_EDGE_MAX_VALUES + 2];
    oracle_rules rules[32];
    uint32_t n_fixed = fixed_values(dtype, fixed, &state);
    uint32_t n_rules = rule_set(dtype, rules, 32);
    scratch sc;
    const int have = scratch_alloc(&sc, dtype, n);
    int ok = have && n_rules > 0;
    uint8_t *v = sc.v, *out = sc.out;
    uint32_t *l1 = sc.l1, *l2 = sc.l2;
    uint64_t *a = sc.a, *b = sc.b;
    oracle_elem *e = sc.e;
    for (uint32_t i = 0; ok && i < n; i++) {
        uint64_t x = d->bits <= 8 ? i : d->bits == 16 ? i * 16 + (i % 16) : oracle_prng_next(&state);
        if (d->bits > 8 && i < n_fixed)
            x = fixed[i];
        oracle_store(dtype, v, i, x & mask);
    }
    for (uint32_t k = 0; ok && k < n_rules; k++) {
        for (uint32_t fi = 0; ok && fi < n_fixed; fi++) {
            for (int role = 0; ok && role < 2; role++) {
                oracle_row row = {&rules[k], fixed[fi], role, v, out, n, 0, (int)(fi & 1), 0, NULL};
                for (uint32_t i = 0; i < n; i++) {
                    uint64_t x = oracle_load(dtype, v, i);
                    a[i] = role ? fixed[fi] : x;
                    b[i] = role ? x : fixed[fi];
                }
                oracle_expect_n(&rules[k], a, b, n, e);
                for (int variant = 0; ok && variant < 3; variant += 2) {
                    for (uint32_t i = 0; i < n; i++)
                        oracle_store(dtype, out, i, (e[i].bits ^ (variant == 1 ? 1 : 0)) & mask);
                    if (variant == 2) /* one bit off, and a poisoned element */
                        for (uint32_t i = 0; i < n; i++)
                            oracle_store(dtype, out, i, (e[i].bits ^ 1) & mask);
                    row.poison = variant == 2 ? oracle_load(dtype, out, n / 3)
                                              : mask & 0xA5A5A5A5A5A5A5A5u;
                    ok = same_listing(&row, l1, l2);
                }
            }
        }
    }
    if (have)
        scratch_free(&sc);
    return ok && check_every_value(dtype, rules, n_rules);
}

int oracle_rowcheck_selfcheck(uint32_t dtype)
{
    if (dtype >= DVG_DTYPE_COUNT)
        return 0;
    pthread_mutex_lock(&state_lock_);
    if (state_[dtype] == STATE_UNKNOWN) {
        const char *off = getenv("DIVERGENCE_NO_FASTPATH");
        int on = kernel_of(dtype) && cpu_ok() && !(off && off[0] && strcmp(off, "0") != 0);
        __atomic_store_n(&state_[dtype], on && check_dtype(dtype) ? STATE_ON : STATE_OFF,
                         __ATOMIC_RELEASE);
    }
    int on = state_[dtype] == STATE_ON;
    pthread_mutex_unlock(&state_lock_);
    return on;
}

static int enabled(uint32_t dtype)
{
    return dtype < DVG_DTYPE_COUNT && __atomic_load_n(&state_[dtype], __ATOMIC_ACQUIRE) == STATE_ON;
}

const char *oracle_rowcheck_method(uint32_t dtype)
{
    return enabled(dtype) ? "avx2" : "scalar";
}

int oracle_rowcheck_repoison_fused(uint32_t dtype)
{
    return oracle_dtype(dtype) && kernel_of(dtype) && cpu_ok() && enabled(dtype) &&
           kernel_repoisons(dtype);
}

int oracle_rowcheck(const oracle_row *row, uint32_t *list, oracle_row_result *res)
{
    if (!oracle_dtype(row->rules->dtype))
        return -1;
    if (enabled(row->rules->dtype))
        return oracle_rowcheck_vector(row, list, res);
    return oracle_rowcheck_scalar(row, list, res);
}
