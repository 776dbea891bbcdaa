/* SPDX-License-Identifier: MIT */
/*
 * tests/mutants/mutant.h: the one deliberate bug of each mutant.
 *
 * Included only by plugins/reference/reference.c, and only when it is
 * compiled with -DDVG_MUTANT=MUTANT_<NAME> (tests/mutants/CMakeLists.txt
 * does that once per mutant, with -DDVG_MUTANT_NAME="<name>"). Each
 * section below defines one or two of the reference kernel's mutation
 * hooks (see "Mutation points" there); every other hook keeps its
 * reference definition. README.md says which difference class the harness
 * must report for each mutant.
 *
 * Helpers here may use what reference.c defines before the hook block:
 * dtype_bits[], the ld_* / st_* element accessors, shape_count(), and its
 * headers (<string.h>, <math.h>).
 */
#ifndef TESTS_MUTANT_H
#define TESTS_MUTANT_H

#include <stdint.h>

#define MUTANT_RECIP_MUL          1  /* floats: a * (1 / b) */
#define MUTANT_FLUSH_SUBNORMALS   2  /* subnormal float results become signed zero */
#define MUTANT_FLOOR_NOT_TRUNC    3  /* floors where truncation is due */
#define MUTANT_TRUNC_NOT_FLOOR    4  /* truncates where floor is due */
#define MUTANT_INT_VIA_DOUBLE     5  /* integer quotient through double */
#define MUTANT_WRONG_INF_SIGN     6  /* float x / ±0 is always +inf */
#define MUTANT_NAN_TO_NUM         7  /* NaN results become +0 */
#define MUTANT_BCAST_IGNORES_A1   8  /* numpy: A with a stretched 1-dim read as A[0] */
#define MUTANT_CRASH_INT_MIN      9  /* plain C integer division: SIGFPE */
#define MUTANT_HANG              10  /* loops forever when some B element is 3 */
#define MUTANT_OOB_WRITE         11  /* writes one element past C */
#define MUTANT_WRITES_INPUT      12  /* flips a bit of A */
#define MUTANT_SKIP_LAST         13  /* leaves C's last element unwritten */
#define MUTANT_NONDETERMINISTIC  14  /* every second call flips a bit of C[0] */
#define MUTANT_CLAIMS_UNSUPPORTED 15 /* claims onnx-div-7 i32, answers unsupported */
#define MUTANT_WRONG_ABI_MAJOR   16  /* descriptor says ABI major 2 */
#define MUTANT_NO_ENTRY          17  /* exports no dvg_iut_descriptor */
/* Shape-path mutants: right everywhere but on one path of the kind a tiled
 * kernel has; the certify cases of harness/cases/shapes.h must reach them. */
#define MUTANT_REMAINDER_17      18  /* last dim 17, rank >= 3: each row's last element wrong */
#define MUTANT_ROW_BCAST_32K1    19  /* B one row of 32k+1 (k >= 1): each row's last element wrong */
#define MUTANT_THRESHOLD_4MI     20  /* above 4 Mi elements: each 1 Mi chunk's first element wrong */
#define MUTANT_OUTER_PRODUCT     21  /* A (n,1) / B (1,m) or (m), m > 16 not a multiple of 16 */
#define MUTANT_RANK8_STRIDE      22  /* rank 8 with an operand broadcast: the last element wrong */
#define MUTANT_ALIGN_A_VS_C      23  /* A as large as C, A's offset mod 16 not C's: one element wrong */
/* Hardware modes, declared (issue 17): CONFORMANT under their profile. */
#define MUTANT_HW_DAZ            24  /* divides with MXCSR.DAZ set, declares it */
#define MUTANT_HW_FTZ            25  /* divides with MXCSR.FZ set, declares it */
#define MUTANT_ARM_FTZ           26  /* flush-to-zero with tininess after rounding, declared */
#define MUTANT_FTZ_WRONG_NORMAL  27  /* HW_FTZ, and results in [1, 2) off by one ULP */
#define MUTANT_BF16_TRUNCATES    28  /* bf16 quotients truncated, not rounded */
#define MUTANT_WRITES_PADDING    29  /* odd i4/u4 count: writes the high nibble of C's last byte */
#define MUTANT_OTHER_UNSPECIFIED 30  /* conformant, other unspecified choices (tests/diff) */
/* Undefined input refused or crashed on (tests/refusal): a case holding an
 * integer x / 0 or INT_MIN / -1 is answered as a whole. */
#define MUTANT_REFUSES_UNDEFINED 31  /* DVG_FAILURE; correct elsewhere: CONFORMANT */
#define MUTANT_SIGFPE_UNDEFINED  32  /* raises SIGFPE: CRASHED */
#define MUTANT_REFUSES_AND_FLOORS 33 /* refuses, and floors where truncation is due */
/* Calling contexts (issue 25, ABI 1.1 capabilities): right in the one
 * call the judge makes, wrong as its users call it. */
#define MUTANT_STATIC_SCRATCH    34  /* computes through a static buffer; declares
                                        two instances usable at once */
#define MUTANT_STATIC_SCRATCH_UNDECLARED 35 /* the same, declaring nothing */
#define MUTANT_IN_PLACE_A        36  /* clears C before it reads A; declares in place on A */
#define MUTANT_SPLIT_3           37  /* with 3 or more threads the middle parts end
                                        one grain early; declares threads */
#define MUTANT_POOL_AFFINITY     41  /* its own pool: OMP_NUM_THREADS, else its affinity
                                        mask's CPUs; split_3's split; declares nothing */
/* ISA dispatch (issue 25): a path chosen from CPUID. */
#define MUTANT_ISA_AVX2_TAIL     38  /* AVX2 without AVX-512: f32 remainder of the 8-wide loop 1 ULP up */
#define MUTANT_ISA_FORCIBLE      39  /* the same, and declares avx512/avx2/sse4.2 levels (ABI 1.1) */
#define MUTANT_ISA_MASKLOAD      40  /* conformant; reads A's f32 tail with vmaskmovps (QEMU faults) */
/* State kept between calls (issue 26): right alone, wrong after a call. */
#define MUTANT_CACHE_SHAPES      44  /* kernel cache keyed by the shapes only, not the dtype */
#define MUTANT_CACHE_ATTR        45  /* cache keyed by shapes and dtype, not the rounding attribute */
#define MUTANT_LEAK_256K         46  /* every compute leaks a 256 KiB workspace it wrote */
#define MUTANT_SHAPE_CACHE       47  /* maps 256 KiB per new shape, kept (a bounded cache) */
#define MUTANT_SHAPE_CACHE_UNBOUNDED 49 /* maps 8 MiB per new shape, kept, without a bound */
#define MUTANT_LATE_WRITER       48  /* a helper thread rewrites C's first element 1 ms after
                                        compute returned */
/* Shape families of issue 26 (numbered apart from the other mutants of that issue). */
#define MUTANT_TILE_8X8          50  /* 8x8 tiles: last two dims >= 16, rows not a multiple of 8 */
#define MUTANT_FLOAT_4MI         51  /* claims onnx-div-14 f32, i32 only; floats above 4 Mi wrong */
#define MUTANT_SHIFT_POW2        52  /* OpenVINO trunc, i32: one-element B of 2^k divides by a shift */
/* Slow paths (issue 26): right values, far more work on some shapes. */
#define MUTANT_QUADRATIC         60  /* B broadcast: each element of C re-walks B's last dim */

/* Raw bits of element i of a tensor whose elements are `bits` wide. */
static inline uint64_t mutant_elem_get(uint32_t bits, const uint8_t *p, int64_t i)
{
    switch (bits) {
    case 4: return ld_u4(p, i);
    case 8: return ld_u8(p, i);
    case 16: return ld_u16(p, i);
    case 32: return ld_u32(p, i);
    default: return ld_u64(p, i);
    }
}

static inline void mutant_elem_set(uint32_t bits, uint8_t *p, int64_t i, uint64_t v)
{
    switch (bits) {
    case 4: st_u4(p, i, (uint8_t)v); break;
    case 8: st_u8(p, i, (uint8_t)v); break;
    case 16: st_u16(p, i, (uint16_t)v); break;
    case 32: st_u32(p, i, (uint32_t)v); break;
    default: st_u64(p, i, v); break;
    }
}

/* Makes element i of C wrong: the lowest exponent bit of a float, the
 * lowest bit of an integer, flipped. */
static inline void mutant_corrupt(dvg_tensor *c, int64_t i)
{
    uint32_t bits = dtype_bits[c->dtype];
    uint32_t at = c->dtype == DVG_DTYPE_F16    ? 10
                  : c->dtype == DVG_DTYPE_BF16 ? 7
                  : c->dtype == DVG_DTYPE_F32  ? 23
                  : c->dtype == DVG_DTYPE_F64  ? 52
                                               : 0;
    mutant_elem_set(bits, c->data, i, mutant_elem_get(bits, c->data, i) ^ (UINT64_C(1) << at));
}

/* Makes the last element of each row (last dimension) of C wrong. */
static inline void mutant_corrupt_row_ends(dvg_tensor *c, int64_t count)
{
    int64_t inner = c->rank ? c->shape[c->rank - 1] : 1;
    for (int64_t i = inner - 1; inner > 0 && i < count; i += inner)
        mutant_corrupt(c, i);
}

/* Makes the first element of each 1 Mi chunk after the first wrong when C
 * has more than 4 Mi elements: a threaded path's partition. */
static inline void mutant_corrupt_chunks(dvg_tensor *c, int64_t count)
{
    if (count > (INT64_C(1) << 22))
        for (int64_t i = INT64_C(1) << 20; i < count; i += INT64_C(1) << 20)
            mutant_corrupt(c, i);
}

/* Elements of a dvg_tensor's shape (no overflow: the call was valid). */
static inline int64_t mutant_count(const dvg_tensor *t)
{
    int64_t n = 1;
    for (uint32_t k = 0; k < t->rank; k++)
        n *= t->shape[k];
    return n;
}

#ifndef DVG_MUTANT_NAME
#error "DVG_MUTANT_NAME must name the mutant"
#endif
#ifndef MUTANT_IUT_NAME /* a build may name itself (tests/nightly/builds.h) */
#define MUTANT_IUT_NAME "divergence-mutant-" DVG_MUTANT_NAME
#endif

#if DVG_MUTANT == MUTANT_RECIP_MUL
#define MUTANT_FDIV(x, y) ((x) * (1 / (y)))

#elif DVG_MUTANT == MUTANT_FLUSH_SUBNORMALS
/* Bits of a float result with `frac` fraction and `ebits` exponent bits:
 * a subnormal keeps only its sign. */
static inline uint64_t mutant_flush(uint64_t bits, int frac, int ebits)
{
    uint64_t fmask = (UINT64_C(1) << frac) - 1, emask = (UINT64_C(1) << ebits) - 1;
    if (((bits >> frac) & emask) == 0 && (bits & fmask) != 0)
        return bits & (UINT64_C(1) << (frac + ebits));
    return bits;
}
#define MUTANT_FBITS(bits, frac, ebits) mutant_flush((bits), (frac), (ebits))

#elif DVG_MUTANT == MUTANT_FLOOR_NOT_TRUNC
#define MUTANT_ROUNDING(r) ((void)(r), DVG_ROUND_FLOOR)

#elif DVG_MUTANT == MUTANT_TRUNC_NOT_FLOOR
#define MUTANT_ROUNDING(r) ((void)(r), DVG_ROUND_TRUNC)

#elif DVG_MUTANT == MUTANT_INT_VIA_DOUBLE
/* The quotient toward zero computed in double, clamped to the int64 or
 * uint64 range (so the mutant is wrong, not undefined). Exact below 2^53. */
static inline int64_t mutant_sdiv_double(int64_t a, int64_t b)
{
    double q = trunc((double)a / (double)b);
    if (q >= 0x1p63)
        return INT64_MAX;
    if (q < -0x1p63)
        return INT64_MIN;
    return (int64_t)q;
}
static inline uint64_t mutant_udiv_double(uint64_t a, uint64_t b)
{
    double q = trunc((double)a / (double)b);
    return q >= 0x1p64 ? UINT64_MAX : (uint64_t)q;
}
#define MUTANT_IDIV(T, a, b)                                                  \
    ((T)-1 > (T)0 ? (T)mutant_udiv_double((uint64_t)(a), (uint64_t)(b))          \
                  : (T)mutant_sdiv_double((int64_t)(a), (int64_t)(b)))

#elif DVG_MUTANT == MUTANT_WRONG_INF_SIGN
#define MUTANT_FDIV(x, y) ((y) == 0 ? fabs((x) / (y)) : (x) / (y))

#elif DVG_MUTANT == MUTANT_NAN_TO_NUM
static inline uint64_t mutant_nan_to_zero(uint64_t bits, int frac, int ebits)
{
    uint64_t fmask = (UINT64_C(1) << frac) - 1, emask = (UINT64_C(1) << ebits) - 1;
    return ((bits >> frac) & emask) == emask && (bits & fmask) != 0 ? 0 : bits;
}
#define MUTANT_FBITS(bits, frac, ebits) mutant_nan_to_zero((bits), (frac), (ebits))

#elif DVG_MUTANT == MUTANT_BCAST_IGNORES_A1
/* When one of A's own size-1 dims is stretched (leading dims A lacks do not
 * count), every A stride becomes 0: each element reads A[0]. Right only
 * when A holds one element. */
static inline void mutant_numpy_plan(uint32_t rank, const int64_t *dims, int64_t *as,
                                     const dvg_tensor *a)
{
    int stretched = 0;
    for (uint32_t k = rank - a->rank; k < rank; k++)
        stretched |= a->shape[k - (rank - a->rank)] == 1 && dims[k] != 1;
    if (stretched)
        memset(as, 0, rank * sizeof as[0]);
}
#define MUTANT_NUMPY_PLAN(rank, dims, as, a) mutant_numpy_plan((rank), (dims), (as), (a))

#elif DVG_MUTANT == MUTANT_CRASH_INT_MIN
#define MUTANT_INT_GUARD 0

#elif DVG_MUTANT == MUTANT_HANG
/* Bits of the value 3 per dtype (f16 0x4200, bf16 0x4040, ...). */
static const uint64_t mutant_three[DVG_DTYPE_COUNT] = {
    [DVG_DTYPE_F16] = 0x4200, [DVG_DTYPE_BF16] = 0x4040,
    [DVG_DTYPE_F32] = 0x40400000, [DVG_DTYPE_F64] = UINT64_C(0x4008000000000000),
    [DVG_DTYPE_I4] = 3, [DVG_DTYPE_I8] = 3, [DVG_DTYPE_I16] = 3, [DVG_DTYPE_I32] = 3,
    [DVG_DTYPE_I64] = 3, [DVG_DTYPE_U4] = 3, [DVG_DTYPE_U8] = 3, [DVG_DTYPE_U16] = 3,
    [DVG_DTYPE_U32] = 3, [DVG_DTYPE_U64] = 3,
};
static inline int32_t mutant_hang(const dvg_tensor *b)
{
    int64_t n;
    if (shape_count(b->rank, b->shape, &n) < 0)
        return DVG_OK;
    for (int64_t i = 0; i < n; i++)
        if (mutant_elem_get(dtype_bits[b->dtype], b->data, i) == mutant_three[b->dtype])
            for (volatile unsigned long spin = 0;; spin++) {
            }
    return DVG_OK;
}
#define MUTANT_BEFORE(variant, a, b, c, count) mutant_hang(b)

#elif DVG_MUTANT == MUTANT_OOB_WRITE
/* One element's bytes (one byte for i4/u4) just past C's buffer. */
static inline void mutant_oob_write(dvg_tensor *c)
{
    uint32_t width = dtype_bits[c->dtype] < 8 ? 1 : dtype_bits[c->dtype] / 8;
    volatile uint8_t *end = (uint8_t *)c->data + c->nbytes;
    for (uint32_t i = 0; i < width; i++)
        end[i] = 0x5A;
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_oob_write(c)

#elif DVG_MUTANT == MUTANT_WRITES_INPUT
static inline void mutant_writes_input(const dvg_tensor *a)
{
    if (a->nbytes > 0 && a->data)
        *(volatile uint8_t *)a->data ^= 1u;
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_writes_input(a)

#elif DVG_MUTANT == MUTANT_SKIP_LAST
/* The last element keeps what C held before the call. */
static uint64_t mutant_saved;
static inline int32_t mutant_save_last(const dvg_tensor *c, int64_t count)
{
    if (count > 0)
        mutant_saved = mutant_elem_get(dtype_bits[c->dtype], c->data, count - 1);
    return DVG_OK;
}
static inline void mutant_restore_last(dvg_tensor *c, int64_t count)
{
    mutant_elem_set(dtype_bits[c->dtype], c->data, count - 1, mutant_saved);
}
#define MUTANT_BEFORE(variant, a, b, c, count) mutant_save_last((c), (count))
#define MUTANT_AFTER(variant, a, b, c, count) mutant_restore_last((c), (count))

#elif DVG_MUTANT == MUTANT_NONDETERMINISTIC
/* Calls counted per process; even calls flip the low bit of C[0]. */
static unsigned long mutant_calls;
static inline void mutant_perturb(dvg_tensor *c)
{
    if (++mutant_calls % 2 == 0)
        *(uint8_t *)c->data ^= 1u;
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_perturb(c)

#elif DVG_MUTANT == MUTANT_CLAIMS_UNSUPPORTED
#define MUTANT_BEFORE(variant, a, b, c, count)                                \
    ((variant) == DVG_VARIANT_ONNX_DIV_7 && (c)->dtype == DVG_DTYPE_I32         \
         ? DVG_UNSUPPORTED                                                    \
         : DVG_OK)

#elif DVG_MUTANT == MUTANT_WRONG_ABI_MAJOR
#define MUTANT_ABI_MAJOR 2

#elif DVG_MUTANT == MUTANT_NO_ENTRY
#define MUTANT_ENTRY dvg_iut_descriptor_v0

#elif DVG_MUTANT == MUTANT_REMAINDER_17
/* A 16-wide loop whose remainder of one element is stored wrong, at rank
 * 3 and above. */
static inline void mutant_remainder_17(dvg_tensor *c, int64_t count)
{
    if (c->rank >= 3 && c->shape[c->rank - 1] == 17)
        mutant_corrupt_row_ends(c, count);
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_remainder_17((c), (count))

#elif DVG_MUTANT == MUTANT_ROW_BCAST_32K1
/* The "B is one row" path: B's elements are exactly C's last dimension,
 * C has more than one row, the row is 32k+1 long (k >= 1). */
static inline void mutant_row_bcast(const dvg_tensor *b, dvg_tensor *c, int64_t count)
{
    int64_t inner = c->rank ? c->shape[c->rank - 1] : 1;
    if (b->rank >= 1 && b->shape[b->rank - 1] == inner && mutant_count(b) == inner &&
        count > inner && inner > 1 && inner % 32 == 1)
        mutant_corrupt_row_ends(c, count);
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_row_bcast((b), (c), (count))

#elif DVG_MUTANT == MUTANT_THRESHOLD_4MI
/* The threaded path above 4 Mi elements, in chunks of 1 Mi: each chunk's
 * first element but the first chunk's is wrong. */
#define MUTANT_AFTER(variant, a, b, c, count) mutant_corrupt_chunks((c), (count))

#elif DVG_MUTANT == MUTANT_OUTER_PRODUCT
/* A (n,1) against B (1,m) or (m): an outer-product path whose 16-wide
 * loop gets the remainder of each row wrong. */
static inline void mutant_outer(const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c,
                                int64_t count)
{
    if (a->rank != 2 || c->rank != 2 || a->shape[1] != 1 || a->shape[0] < 2)
        return;
    int64_t m = c->shape[1];
    int b_row = (b->rank == 1 && b->shape[0] == m) ||
                (b->rank == 2 && b->shape[0] == 1 && b->shape[1] == m);
    if (b_row && m > 16 && m % 16 != 0)
        mutant_corrupt_row_ends(c, count);
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_outer((a), (b), (c), (count))

#elif DVG_MUTANT == MUTANT_RANK8_STRIDE
/* Rank 8 with either operand broadcast along one of its own 8 axes: the
 * last element (where every index is at its end) is wrong. */
static inline void mutant_rank8(const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c,
                                int64_t count)
{
    int bcast = 0;
    if (c->rank != 8)
        return;
    for (uint32_t k = 0; k < 8; k++)
        bcast |= (a->rank == 8 && a->shape[k] != c->shape[k]) ||
                 (b->rank == 8 && b->shape[k] != c->shape[k]);
    if (bcast)
        mutant_corrupt(c, count - 1);
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_rank8((a), (b), (c), (count))

#elif DVG_MUTANT == MUTANT_ALIGN_A_VS_C
/* The elementwise path (A as many elements as C) of a kernel that peels C
 * to a 16-byte boundary and then reads A with aligned vector loads: when
 * A does not sit at C's offset modulo 16 its unaligned fallback gets the
 * first element of the vector body wrong. The default placement puts
 * tensors of one byte size at one offset, so only cases placed by their
 * data offsets (divcase.offsets) reach it. */
static inline void mutant_align(const dvg_tensor *a, dvg_tensor *c, int64_t count)
{
    uint32_t bits = dtype_bits[c->dtype];
    uintptr_t pa = (uintptr_t)a->data, pc = (uintptr_t)c->data;
    if (bits < 8 || mutant_count(a) != count || (pa - pc) % 16 == 0)
        return;
    uintptr_t peel = (16 - pc % 16) % 16; /* bytes before C's first 16-byte line */
    if (peel % (bits / 8) == 0 && (int64_t)(peel / (bits / 8)) < count)
        mutant_corrupt(c, (int64_t)(peel / (bits / 8)));
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_align((a), (c), (count))
#elif DVG_MUTANT == MUTANT_HW_DAZ
/* x86 only: f32 and f64 divide in SSE with MXCSR.DAZ (bit 6); f16 and bf16
 * are widened in integer code and keep their subnormals. */
#define MUTANT_MXCSR(csr) ((csr) | 0x0040u)
#define MUTANT_DEVIATIONS DVG_DEV_SUBNORMAL_INPUT_ZERO

#elif DVG_MUTANT == MUTANT_HW_FTZ || DVG_MUTANT == MUTANT_FTZ_WRONG_NORMAL
/* x86 only: MXCSR.FZ (bit 15) flushes a result that is tiny before
 * rounding, 0x00ffffff / 2 included. f16 and bf16 round a double quotient
 * in integer code: not flushed. */
#define MUTANT_MXCSR(csr) ((csr) | 0x8000u)
#define MUTANT_DEVIATIONS DVG_DEV_FLUSH_SUBNORMAL_OUTPUT
#if DVG_MUTANT == MUTANT_FTZ_WRONG_NORMAL
/* ... and a normal result in [1, 2) other than 1 is one ULP off. */
static inline uint64_t mutant_off_in_one_two(uint64_t bits, int frac, int ebits)
{
    uint64_t fmask = (UINT64_C(1) << frac) - 1, bias = (UINT64_C(1) << (ebits - 1)) - 1;
    return ((bits >> frac) & ((UINT64_C(1) << ebits) - 1)) == bias && (bits & fmask) ? bits ^ 1
                                                                                      : bits;
}
#define MUTANT_FBITS(bits, frac, ebits) mutant_off_in_one_two((bits), (frac), (ebits))
#endif

#elif DVG_MUTANT == MUTANT_ARM_FTZ
/* Arm's FPCR.FZ, in software: a result is flushed when it is tiny after
 * rounding, i.e. the quotient rounded to the format's precision with an
 * unbounded exponent is below the smallest normal. Scaling the dividend by
 * 2^p (exact: |x| < 4 wherever it matters) rounds the quotient at the
 * precision alone. 0x00ffffff / 2 flushes here too; a quotient in
 * [2^-126 - 2^-151, 2^-126) rounds to 2^-126 and is not flushed (x86 flushes
 * it). f16 and bf16 divide in double: never tiny there. */
static inline float mutant_arm_ftz_f32(float x, float y)
{
    float q = x / y;
    if (q != 0 && fabsf(q) <= 0x1p-126f && fabsf((x * 0x1p24f) / y) < 0x1p-102f)
        return copysignf(0.0f, q);
    return q;
}
static inline double mutant_arm_ftz_f64(double x, double y)
{
    double q = x / y;
    if (q != 0 && fabs(q) <= 0x1p-1022 && fabs((x * 0x1p53) / y) < 0x1p-969)
        return copysign(0.0, q);
    return q;
}
#define MUTANT_FDIV(x, y) \
    _Generic((x), float: mutant_arm_ftz_f32, default: mutant_arm_ftz_f64)((x), (y))
#define MUTANT_DEVIATIONS DVG_DEV_FLUSH_SUBNORMAL_OUTPUT

#elif DVG_MUTANT == MUTANT_BF16_TRUNCATES
/* bf16: the double quotient truncated toward zero to bf16's 8 significant
 * bits before it is rounded (so rounding has nothing left to do): 3 / 0x007f
 * gives 0x7f41 instead of 0x7f42 (issue 18.1). f16 is rounded as it should. */
static inline double mutant_truncate_bf16(double d, int frac, int ebits)
{
    uint64_t x;
    if (frac != 7 || ebits != 8)
        return d;
    memcpy(&x, &d, sizeof x);
    x &= ~((UINT64_C(1) << (52 - frac)) - 1);
    memcpy(&d, &x, sizeof d);
    return d;
}
#define MUTANT_NARROW(d, frac, ebits) narrow(mutant_truncate_bf16((d), (frac), (ebits)), (frac), (ebits))

#elif DVG_MUTANT == MUTANT_WRITES_PADDING
/* An odd number of 4-bit elements: the last byte's high nibble is no
 * element, and this kernel writes it. */
static inline void mutant_write_padding(dvg_tensor *c, int64_t count)
{
    if (dtype_bits[c->dtype] == 4 && (count & 1))
        ((uint8_t *)c->data)[c->nbytes - 1] ^= 0xF0u;
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_write_padding((c), (count))

#elif DVG_MUTANT == MUTANT_OTHER_UNSPECIFIED
/* Not a bug: the choices a spec leaves free made otherwise than the
 * reference makes them - integer x / 0 is -1 (all ones for unsigned
 * types), INT_MIN / -1 is INT_MAX, a NaN result is negative with the
 * lowest payload bit set. It conforms everywhere; `divergence diff`
 * against the reference must name each difference as a hazard. */
#define MUTANT_INT_ZERO(T) ((T)-1)
/* A second build (tests/diff, mutant_other_unspecified_v2: the same name)
 * with MUTANT_OTHER_INT_MIN_AS_REFERENCE leaves INT_MIN / -1 as the
 * reference makes it: a later diff of the same set no longer sees that
 * hazard, and `divergence query fixed` lists it. */
#ifndef MUTANT_OTHER_INT_MIN_AS_REFERENCE
#define MUTANT_INT_MIN_NEG1(T, MIN) ((T)(-((MIN) + 1)))
#endif
static inline uint64_t mutant_negative_nan(uint64_t bits, int frac, int ebits)
{
    uint64_t fmask = (UINT64_C(1) << frac) - 1, emask = (UINT64_C(1) << ebits) - 1;
    if (((bits >> frac) & emask) == emask && (bits & fmask) != 0)
        return bits | (UINT64_C(1) << (frac + ebits)) | 1u;
    return bits;
}
#define MUTANT_FBITS(bits, frac, ebits) mutant_negative_nan((bits), (frac), (ebits))

#elif DVG_MUTANT == MUTANT_TILE_8X8
/* A kernel tiled 8x8 over C's last two dims whose remainder-row tile is
 * stored wrong: with both dims >= 16 and the second-to-last not a
 * multiple of 8, each matrix's last element (the bottom-right remainder
 * tile) is wrong. */
static inline void mutant_tile(dvg_tensor *c, int64_t count)
{
    if (c->rank < 2)
        return;
    int64_t h = c->shape[c->rank - 2], w = c->shape[c->rank - 1];
    if (h >= 16 && w >= 16 && h % 8 != 0)
        for (int64_t i = h * w - 1; i < count; i += h * w)
            mutant_corrupt(c, i);
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_tile((c), (count))

#elif DVG_MUTANT == MUTANT_FLOAT_4MI
/* Claims onnx-div-14 f32 and i32 only (two claims the large tier's
 * rotation over claims gives 2^19 and 2^20 at most), and its float path
 * partitions wrong above 4 Mi elements (the chunks of threshold_4mi). */
#define MUTANT_CLAIMS {DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32}, {DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I32}
static inline void mutant_float_4mi(dvg_tensor *c, int64_t count)
{
    if (c->dtype == DVG_DTYPE_F16 || c->dtype == DVG_DTYPE_BF16 || c->dtype == DVG_DTYPE_F32 ||
        c->dtype == DVG_DTYPE_F64)
        mutant_corrupt_chunks(c, count);
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_float_4mi((c), (count))

#elif DVG_MUTANT == MUTANT_SHIFT_POW2
/* OpenVINO Divide-1 with m_pythondiv=false (truncation): an i32 fast path
 * (a vector arithmetic shift) for a one-element divisor 2^k (k >= 1),
 * which floors: a negative dividend with a remainder is one too low (-3 /
 * 2 gives -2). */
static inline void mutant_shift(uint32_t variant, int trunc, const dvg_tensor *a,
                                const dvg_tensor *b, dvg_tensor *c, int64_t count)
{
    uint32_t bits = dtype_bits[c->dtype];
    if (variant != DVG_VARIANT_OPENVINO_DIVIDE_1 || !trunc || c->dtype != DVG_DTYPE_I32 ||
        mutant_count(b) != 1 || mutant_count(a) != count)
        return;
    uint64_t d = mutant_elem_get(bits, b->data, 0);
    if (d < 2 || (d & (d - 1)) || (d >> (bits - 1)) & 1)
        return; /* not a positive power of two */
    int k = 0;
    while ((UINT64_C(1) << k) != d)
        k++;
    for (int64_t i = 0; i < count; i++) {
        uint64_t x = mutant_elem_get(bits, a->data, i);
        int64_t v = (int64_t)(x << (64 - bits)) >> (64 - bits); /* sign-extended */
        mutant_elem_set(bits, c->data, i, (uint64_t)(v >> k));
    }
}
/* floors() is the reference's, visible where the hook expands (compute). */
#define MUTANT_AFTER_ATTRS(variant, at, a, b, c, count) \
    mutant_shift((variant), !floors((variant), (at)), (a), (b), (c), (count))
#elif DVG_MUTANT == MUTANT_STATIC_SCRATCH || DVG_MUTANT == MUTANT_STATIC_SCRATCH_UNDECLARED
/* A file-scope scratch array, as kernels that stage their output do: C is
 * computed into it and copied out, so two calls at once (two instances,
 * each on its own thread) read each other's elements. One call at a time
 * it is right, in place too. The first build declares what it breaks
 * (NONCONFORMANT: instances-not-concurrent); the second declares nothing
 * (CONFORMANT, with the row "re-entrant: no"). */
#define MUTANT_SCRATCH 1
#if DVG_MUTANT == MUTANT_STATIC_SCRATCH
#define MUTANT_CAPABILITIES \
    (DVG_CAP_INSTANCES_CONCURRENT | DVG_CAP_IN_PLACE_A | DVG_CAP_IN_PLACE_B | DVG_CAP_THREADS)
#else
#define MUTANT_CAPABILITIES 0
#endif

#elif DVG_MUTANT == MUTANT_IN_PLACE_A
/* Clears C (its whole elements) before computing, as a kernel that
 * zero-fills its output first, unless C is B's buffer: its author checked
 * the aliasing of one operand and not the other. Harmless unless C is A's
 * buffer, as ONNX Runtime's memory planner and PyTorch's div_ make it.
 * Declares in place on A (every capability, as the reference). */
static inline int32_t mutant_clear_c(const dvg_tensor *b, dvg_tensor *c, int64_t count)
{
    if (c->data != b->data)
        memset(c->data, 0, (size_t)((uint64_t)count * dtype_bits[c->dtype] / 8));
    return DVG_OK;
}
#define MUTANT_BEFORE(variant, a, b, c, count) mutant_clear_c((b), (c), (count))

#elif DVG_MUTANT == MUTANT_SPLIT_3
/* A work split whose middle parts (there are some from 3 threads on) end
 * one grain before the next part starts: with open_with's threads at 3 or
 * more, 64 elements per middle part are never written. One and two
 * threads are right; it declares DVG_CAP_THREADS. */
#define MUTANT_SPLIT_END(k, t, next) ((k) > 0 ? (next) - SPLIT_GRAIN : (next))

#elif DVG_MUTANT == MUTANT_POOL_AFFINITY
/* A library that sizes its own thread pool from the machine, as OpenMP
 * runtimes do: OMP_NUM_THREADS when set, else the CPUs of its affinity
 * mask (open_with's count ignored), with split_3's split: 1 and 2 threads
 * are right, from 3 on 64 elements per middle part are never written. It
 * declares no capability: its users with 4 cores get wrong answers all
 * the same. */
#include <sched.h>
static inline uint32_t mutant_pool(void)
{
    const char *omp = getenv("OMP_NUM_THREADS");
    long v = omp && *omp ? strtol(omp, NULL, 10) : 0;
    cpu_set_t set;
    if (v >= 1 && v <= 64)
        return (uint32_t)v;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) >= 1)
        return (uint32_t)CPU_COUNT(&set);
    return 1;
}
#define MUTANT_THREADS(asked) ((void)(asked), mutant_pool())
#define MUTANT_SPLIT_END(k, t, next) ((k) > 0 ? (next) - SPLIT_GRAIN : (next))

#elif DVG_MUTANT == MUTANT_REFUSES_UNDEFINED || DVG_MUTANT == MUTANT_SIGFPE_UNDEFINED || \
    DVG_MUTANT == MUTANT_REFUSES_AND_FLOORS
/* The guard notes that the case holds an element whose result the specs
 * leave undefined (it still gives the reference's value there); the
 * compute then ends as a whole: a failure status (the refusal ONNX
 * Runtime and libtorch give on integer x / 0) or SIGFPE (Eigen's). */
#include <signal.h>
static int mutant_undefined;
#define MUTANT_INT_ZERO(T) (mutant_undefined = 1, (T)0)
#define MUTANT_INT_MIN_NEG1(T, MIN) (mutant_undefined = 1, (T)(MIN))
#define MUTANT_BEFORE(variant, a, b, c, count) (mutant_undefined = 0, DVG_OK)
#if DVG_MUTANT == MUTANT_SIGFPE_UNDEFINED
#define MUTANT_AFTER(variant, a, b, c, count) ((void)(mutant_undefined && raise(SIGFPE)))
#else
#define MUTANT_REFUSE(variant, a, b, c, count) (mutant_undefined ? DVG_FAILURE : DVG_OK)
#endif
#if DVG_MUTANT == MUTANT_REFUSES_AND_FLOORS
#define MUTANT_ROUNDING(r) ((void)(r), DVG_ROUND_FLOOR)
#endif

#elif DVG_MUTANT == MUTANT_CACHE_SHAPES || DVG_MUTANT == MUTANT_CACHE_ATTR
/* A compiled-kernel cache of the kind a JIT keeps, keyed by too little:
 * CACHE_SHAPES by the operands' shapes alone, CACHE_ATTR by the shapes and
 * the dtype but not the integer rounding the attributes ask for. A call
 * whose key finds an entry built for another dtype (or rounding) runs
 * that entry's kernel: here, every element of C comes out with its low
 * bit flipped. Alone on a fresh process every call is right. */
#define MUTANT_CACHE_SLOTS 64
typedef struct mutant_cache_entry {
    int used;
    uint32_t ra, rb, dtype;
    int64_t da[DVG_MAX_RANK], db[DVG_MAX_RANK];
    int floors;
} mutant_cache_entry;
static mutant_cache_entry mutant_cache[MUTANT_CACHE_SLOTS];
static unsigned mutant_cache_next;
static inline void mutant_cached(const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c,
                                 int64_t count, int floors)
{
    for (unsigned k = 0; k < MUTANT_CACHE_SLOTS; k++) {
        mutant_cache_entry *e = &mutant_cache[k];
        if (!e->used || e->ra != a->rank || e->rb != b->rank ||
            memcmp(e->da, a->shape, a->rank * sizeof e->da[0]) ||
            memcmp(e->db, b->shape, b->rank * sizeof e->db[0]))
            continue;
#if DVG_MUTANT == MUTANT_CACHE_ATTR
        if (e->dtype != a->dtype)
            continue;
        int stale = e->floors != floors;
#else
        int stale = e->dtype != a->dtype;
#endif
        if (stale)
            for (int64_t i = 0; i < count; i++) {
                uint32_t bits = dtype_bits[c->dtype];
                mutant_elem_set(bits, c->data, i, mutant_elem_get(bits, c->data, i) ^ 1u);
            }
        return;
    }
    mutant_cache_entry *e = &mutant_cache[mutant_cache_next++ % MUTANT_CACHE_SLOTS];
    memset(e, 0, sizeof *e);
    e->used = 1;
    e->ra = a->rank;
    e->rb = b->rank;
    e->dtype = a->dtype;
    e->floors = floors;
    memcpy(e->da, a->shape, a->rank * sizeof e->da[0]);
    memcpy(e->db, b->shape, b->rank * sizeof e->db[0]);
}
/* `floors` is the rounding ref_compute picked (the attributes resolved). */
#define MUTANT_AFTER(variant, a, b, c, count) mutant_cached((a), (b), (c), (count), floors((variant), &at))

#elif DVG_MUTANT == MUTANT_QUADRATIC
/* A broadcast path that re-walks B's row for every element of C (as a
 * kernel recomputing a broadcast index by scanning would): the values are
 * the reference's, the work count x (B's last dim) when B has fewer
 * elements than C and a last dim of 2 or more. */
static inline void mutant_rewalk(const dvg_tensor *b, int64_t count)
{
    int64_t nb = 1, row = b->rank ? b->shape[b->rank - 1] : 1;
    for (uint32_t k = 0; k < b->rank; k++)
        nb *= b->shape[k];
    if (row < 2 || nb >= count)
        return;
    uint32_t bits = dtype_bits[b->dtype];
    uint64_t sum = 0;
    for (int64_t i = 0; i < count; i++) {
        for (int64_t j = 0; j < row; j++)
            sum += mutant_elem_get(bits, b->data, (i + j) % row);
        __asm__ volatile("" : "+r"(sum)); /* each element's walk is done */
    }
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_rewalk((b), (count))
#elif DVG_MUTANT == MUTANT_LEAK_256K
/* A workspace of 256 KiB per compute, written (so it is resident) and
 * never freed: right on every call, until memory runs out. */
static void *volatile mutant_leaked; /* the last one, chained to the one before */
static inline void mutant_leak(void)
{
    void **p = malloc(256u << 10);
    if (p) {
        memset(p, 0x5a, 256u << 10);
        *p = mutant_leaked;
        mutant_leaked = p;
    }
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_leak()
#elif DVG_MUTANT == MUTANT_SHAPE_CACHE || DVG_MUTANT == MUTANT_SHAPE_CACHE_UNBOUNDED
/* A kernel cache of the kind a JIT keeps (oneDNN's primitive cache): the
 * first call of each (dtype, A's shape, B's shape) maps a "kernel" and
 * keeps it; a call whose shapes were seen adds nothing. SHAPE_CACHE maps
 * 256 KiB per shape and keeps at most 1024 (256 MiB: a cache with a
 * bound); SHAPE_CACHE_UNBOUNDED maps 8 MiB per shape and never stops.
 * Mapped, not touched: the address space grows, not the resident memory.
 * Every value is the reference's. */
#include <sys/mman.h>
#if DVG_MUTANT == MUTANT_SHAPE_CACHE
#define MUTANT_SHAPE_BYTES ((size_t)256 << 10)
#define MUTANT_SHAPE_SLOTS 1024u
#else
#define MUTANT_SHAPE_BYTES ((size_t)8 << 20)
#define MUTANT_SHAPE_SLOTS 65536u
#endif
static uint64_t mutant_shape_keys[MUTANT_SHAPE_SLOTS];
static unsigned mutant_shape_n;
static inline void mutant_shape_cache(const dvg_tensor *a, const dvg_tensor *b)
{
    uint64_t key = 1469598103934665603u ^ a->dtype;
    for (uint32_t k = 0; k < a->rank; k++)
        key = (key ^ (uint64_t)a->shape[k]) * 1099511628211u;
    key = (key ^ 0xb) * 1099511628211u;
    for (uint32_t k = 0; k < b->rank; k++)
        key = (key ^ (uint64_t)b->shape[k]) * 1099511628211u;
    for (unsigned i = 0; i < mutant_shape_n; i++)
        if (mutant_shape_keys[i] == key)
            return;
    if (mutant_shape_n == MUTANT_SHAPE_SLOTS)
        return;
    void *kernel = mmap(NULL, MUTANT_SHAPE_BYTES, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (kernel != MAP_FAILED)
        mutant_shape_keys[mutant_shape_n++] = key;
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_shape_cache((a), (b))
#elif DVG_MUTANT == MUTANT_LATE_WRITER
/* Hands the last step to a helper thread and returns without waiting for
 * it, as a kernel that posts its epilogue to a worker thread: C is right
 * when compute returns, and 1 ms later the helper (named "late-writer")
 * writes C's first element again, wrong (its low bit flipped). */
#include <time.h>
static void *mutant_late(void *arg)
{
    pthread_setname_np(pthread_self(), "late-writer");
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
    volatile uint8_t *c0 = arg;
    *c0 ^= 1u;
    return NULL;
}
static inline void mutant_late_writer(dvg_tensor *c)
{
    pthread_t t;
    pthread_attr_t at;
    if (!c->nbytes || pthread_attr_init(&at) != 0)
        return;
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &at, mutant_late, c->data);
    pthread_attr_destroy(&at);
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_late_writer(c)
#elif DVG_MUTANT == MUTANT_ISA_AVX2_TAIL || DVG_MUTANT == MUTANT_ISA_FORCIBLE
/* Dispatches on CPUID as real kernels do (__builtin_cpu_supports reads
 * it), or takes the level open_with forced (isa_forcible declares them):
 * the AVX-512 path and the SSE one are right; the AVX2 path (AVX2 without
 * AVX-512F, an x86-64-v3 machine) rounds the remainder of its 8-wide loop
 * wrong, the last count % 8 f32 quotients one ULP up. An AVX-512 host
 * never takes that path by itself. */
static inline void mutant_isa_tail(const char *isa, dvg_tensor *c, int64_t count)
{
    __builtin_cpu_init();
    int avx2_path = isa ? !strcmp(isa, "avx2")
                        : __builtin_cpu_supports("avx2") && !__builtin_cpu_supports("avx512f");
    if (c->dtype != DVG_DTYPE_F32 || !avx2_path)
        return;
    for (int64_t i = count - count % 8; i < count; i++) {
        uint64_t bits = mutant_elem_get(32, c->data, i);
        if ((bits & 0x7f800000u) != 0x7f800000u && (bits & 0x7fffffffu) != 0)
            mutant_elem_set(32, c->data, i, bits + 1);
    }
}
#define MUTANT_AFTER_ISA(isa, c, count) mutant_isa_tail((isa), (c), (count))
#if DVG_MUTANT == MUTANT_ISA_FORCIBLE
#define MUTANT_ISA_LEVELS                                  \
    {sizeof(dvg_isa_level), 0, "avx512", "v4"},            \
    {sizeof(dvg_isa_level), 0, "avx2", "v3"},              \
    {sizeof(dvg_isa_level), 0, "sse4.2", "v2"},
#endif

#elif DVG_MUTANT == MUTANT_ISA_MASKLOAD
/* Not a bug: on an AVX2 CPU it reads the last count % 8 f32 elements of A
 * with a masked load (vmaskmovps), as vectorised kernels load a tail. The
 * masked-off lanes past A's end are never touched on hardware; QEMU's
 * emulation reads them and faults on the guard page: an
 * out-of-bounds-read only the emulator makes (emulation-only,
 * unconfirmed). */
#include <immintrin.h>
__attribute__((target("avx2"))) static inline void mutant_maskload(const dvg_tensor *a)
{
    int64_t n = mutant_count(a), tail = n % 8;
    if (a->dtype != DVG_DTYPE_F32 || !tail || !__builtin_cpu_supports("avx2"))
        return;
    __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)tail),
                                   _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    volatile float sink = _mm256_cvtss_f32(_mm256_maskload_ps((const float *)a->data + (n - tail), m));
    (void)sink;
}
#define MUTANT_AFTER(variant, a, b, c, count) mutant_maskload(a)

#else
#error "unknown DVG_MUTANT"
#endif

#endif /* TESTS_MUTANT_H */
