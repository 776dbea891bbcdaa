/* SPDX-License-Identifier: MIT */
/*
 * plugins/reference/elements.h: the reference kernel's element types and
 * element access, and the exact conversions of f16 and bf16 to and from
 * double. Included once, by reference.c (and so by every mutant build of
 * it), before the mutation points: nothing here is a hook.
 */
#ifndef REFERENCE_ELEMENTS_H
#define REFERENCE_ELEMENTS_H

/* ------------------------------------------------------------------------
 * Element types and element access. Tensors are little-endian host bytes
 * with no alignment promise, so every access goes through memcpy (which
 * compiles to a plain load or store). i4/u4: two per byte, low nibble
 * first.
 * ---------------------------------------------------------------------- */
#define DTYPE_BITS_(ID, tag, value, bits, kind) [value] = bits,
static const uint8_t dtype_bits[DVG_DTYPE_COUNT] = {DVG_DTYPE_LIST(DTYPE_BITS_)};
#undef DTYPE_BITS_

#define DEFINE_LD(tag, T)                                                    \
    static inline T ld_##tag(const uint8_t *p, int64_t i)                    \
    {                                                                        \
        T v;                                                                 \
        memcpy(&v, p + i * (int64_t)sizeof(T), sizeof(T));                   \
        return v;                                                            \
    }
#define DEFINE_ST(tag, T)                                                    \
    static inline void st_##tag(uint8_t *p, int64_t i, T v)                  \
    {                                                                        \
        memcpy(p + i * (int64_t)sizeof(T), &v, sizeof(T));                   \
    }
#define DEFINE_LDST(tag, T) DEFINE_LD(tag, T) DEFINE_ST(tag, T)
DEFINE_LDST(i8, int8_t)
DEFINE_LDST(i16, int16_t)
DEFINE_LDST(i32, int32_t)
DEFINE_LDST(i64, int64_t)
DEFINE_LDST(u8, uint8_t)
DEFINE_LDST(u16, uint16_t)
DEFINE_LDST(u32, uint32_t)
DEFINE_LDST(u64, uint64_t)
DEFINE_LD(f32, float) /* float results are stored as bits */
DEFINE_LD(f64, double)
#undef DEFINE_LD
#undef DEFINE_ST
#undef DEFINE_LDST

static inline uint8_t ld_u4(const uint8_t *p, int64_t i)
{
    return (uint8_t)((p[i >> 1] >> ((i & 1) * 4)) & 0xFu);
}

static inline int8_t ld_i4(const uint8_t *p, int64_t i)
{
    int v = ld_u4(p, i);
    return (int8_t)(v >= 8 ? v - 16 : v);
}

/* Writes one nibble and leaves its neighbour as it was. */
static inline void st_u4(uint8_t *p, int64_t i, uint8_t v)
{
    unsigned shift = (unsigned)(i & 1) * 4u;
    p[i >> 1] = (uint8_t)((p[i >> 1] & ~(0xFu << shift)) | ((v & 0xFu) << shift));
}

static inline void st_i4(uint8_t *p, int64_t i, int8_t v)
{
    st_u4(p, i, (uint8_t)v);
}

/* Elements of a tensor: its count in *n (0 when a dimension is 0). Returns
 * -1 when the count exceeds 2^56 (its byte size would not fit). */
static int shape_count(uint32_t rank, const int64_t *dims, int64_t *n)
{
    int64_t count = 1;
    for (uint32_t k = 0; k < rank; k++)
        if (dims[k] == 0) {
            *n = 0;
            return 0;
        }
    for (uint32_t k = 0; k < rank; k++) {
        if (dims[k] > (INT64_C(1) << 56) / count)
            return -1;
        count *= dims[k];
    }
    *n = count;
    return 0;
}

/* ------------------------------------------------------------------------
 * Floats. f16 and bf16 go through double; both conversions are exact bit
 * manipulations, independent of the FP environment.
 * ---------------------------------------------------------------------- */

/* The value of a binary format with `frac` fraction and `ebits` exponent
 * bits (f16: 10, 5; bf16: 7, 8), exactly, as a double. */
static inline double widen(uint32_t h, int frac, int ebits)
{
    const uint32_t emask = (1u << ebits) - 1u, bias = (1u << (ebits - 1)) - 1u;
    const uint64_t sign = (uint64_t)((h >> (frac + ebits)) & 1u) << 63;
    const uint32_t e = (h >> frac) & emask, m = h & ((1u << frac) - 1u);
    uint64_t x;
    double d;
    if (e == emask) { /* inf, NaN (payload kept, signaling stays signaling) */
        x = sign | UINT64_C(0x7FF0000000000000) | ((uint64_t)m << (52 - frac));
    } else if (e == 0) { /* zero, subnormal: m * 2^(1 - bias - frac) */
        uint64_t scale_bits = (uint64_t)(1023 + 1 - (int)bias - frac) << 52;
        double scale;
        memcpy(&scale, &scale_bits, sizeof scale);
        d = (double)m * scale;
        return sign ? -d : d;
    } else {
        x = sign | ((uint64_t)(e - bias + 1023u) << 52) | ((uint64_t)m << (52 - frac));
    }
    memcpy(&d, &x, sizeof d);
    return d;
}

/* d rounded to the nearest value of the format (frac, ebits), ties to
 * even, subnormals kept, overflow to inf; NaN stays a quiet NaN with the
 * top of its payload. Returns the bits. */
static inline uint32_t narrow(double d, int frac, int ebits)
{
    const uint32_t emask = (1u << ebits) - 1u;
    const int bias = (1 << (ebits - 1)) - 1;
    uint64_t x, sig, rem, half, q;
    uint32_t sign;
    int e, shift;

    memcpy(&x, &d, sizeof x);
    sign = (uint32_t)(x >> 63) << (frac + ebits);
    e = (int)((x >> 52) & 0x7FF);
    sig = x & UINT64_C(0xFFFFFFFFFFFFF);
    if (e == 0x7FF) {
        if (sig == 0)
            return sign | (emask << frac);
        return sign | (emask << frac) | (1u << (frac - 1)) | (uint32_t)(sig >> (52 - frac));
    }
    if (e == 0) /* zero or a double subnormal: far below half the least subnormal */
        return sign;
    e -= 1023;
    if (e > bias) /* at least 2^(emax + 1) */
        return sign | (emask << frac);
    sig |= UINT64_C(1) << 52;
    shift = 52 - frac;
    if (e < 1 - bias) /* subnormal in the target format */
        shift += (1 - bias) - e;
    if (shift > 62) /* below a quarter of the least subnormal */
        return sign;
    q = sig >> shift;
    rem = sig & ((UINT64_C(1) << shift) - 1);
    half = UINT64_C(1) << (shift - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    if (e < 1 - bias) /* q == 2^frac is the least normal: the bits are right */
        return sign | (uint32_t)q;
    /* the implicit bit of q adds one to the exponent field; a carry out of
     * the significand rounds up to the next binade or to inf */
    return sign | (uint32_t)(((uint64_t)(e + bias - 1) << frac) + q);
}

#endif /* REFERENCE_ELEMENTS_H */
