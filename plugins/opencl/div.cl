/* SPDX-License-Identifier: MIT */
/*
 * plugins/opencl/div.cl: the Div kernels of the OpenCL adapter, in OpenCL C
 * 1.2. opencl.c embeds this file and builds it in open() with the user's
 * build options, plus
 *
 *   -D DVG_FLAVOUR=0|1|2   the f32 quotient: a / b, native_divide(a, b),
 *                          half_divide(a, b) (bf16 divides through it too)
 *   -D DVG_HAS_FP64        the device has cl_khr_fp64: div_f64
 *   -D DVG_HAS_FP16        the device has cl_khr_fp16: div_f16
 *
 * One work-item per output element (i4/u4: per output byte, two elements).
 * Broadcasting is index arithmetic: the host reduces every variant's shape
 * rule to `plan` = {rank, dims[8], A's element strides[8], B's[8]}, a
 * stride 0 where the operand is broadcast, and the _strided kernels turn
 * the output index into the operands' indices. Operands of the output's
 * shape go to the plain kernels (ELEMENTWISE below).
 *
 * Integers are exact: OpenCL C leaves x / 0 undefined (and INT_MIN / -1
 * overflows), so the kernels never divide by 0 or -1: the divisor is
 * replaced by 1 first (no trap, whatever the compiler vectorises or
 * speculates), and the result is chosen afterwards: x / 0 = 0 (declared as
 * DVG_DEV_INT_DIV_ZERO_VALUE), x / -1 = -x and INT_MIN / -1 = INT_MIN.
 * Signed types exist in two roundings: toward zero (_trunc) and toward
 * negative infinity (_floor).
 */
#if DVG_FLAVOUR == 1
#define FDIV(x, y) native_divide((x), (y))
#elif DVG_FLAVOUR == 2
#define FDIV(x, y) half_divide((x), (y))
#else
#define FDIV(x, y) ((x) / (y))
#endif

/* The operands' element offsets of output element i. */
#define OFFSETS(i, ia, ib)                                                    \
    ulong ia = 0, ib = 0;                                                     \
    {                                                                         \
        ulong r_ = (i);                                                       \
        for (int k_ = (int)plan[0] - 1; k_ >= 0; k_--) {                      \
            ulong d_ = (ulong)plan[1 + k_], x_ = r_ % d_;                     \
            r_ /= d_;                                                         \
            ia += x_ * (ulong)plan[9 + k_];                                   \
            ib += x_ * (ulong)plan[17 + k_];                                  \
        }                                                                     \
    }

/* Two kernels per operation, as a library has them: NAME for operands of
 * the output's shape (c[i] = OP(a[i], b[i]) on every work-item, the
 * buffers padded to the launch; the loop a compiler vectorises), and
 * NAME_strided for every broadcast, c[i] = OP(a[ia], b[ib]) for the n
 * output elements. The same arguments for both. */
#define ELEMENTWISE(NAME, T, OP)                                              \
    __kernel void NAME(__global const T *a, __global const T *b,              \
                       __global T *c, ulong n, __constant long *plan)         \
    {                                                                         \
        size_t i = get_global_id(0);                                          \
        c[i] = OP(a[i], b[i]);                                                \
    }                                                                         \
    __kernel void NAME##_strided(__global const T *a, __global const T *b,    \
                                 __global T *c, ulong n,                      \
                                 __constant long *plan)                       \
    {                                                                         \
        ulong i = get_global_id(0);                                           \
        if (i >= n)                                                           \
            return;                                                           \
        OFFSETS(i, ia, ib);                                                   \
        c[i] = OP(a[ia], b[ib]);                                              \
    }

/* ---- floats ---------------------------------------------------------- */
float f32_div(float x, float y) { return FDIV(x, y); }
ELEMENTWISE(div_f32, float, f32_div)

/* bf16 through f32: widening is exact, the f32 quotient is rounded to
 * bf16 to nearest even in integer arithmetic (no FP mode or fast-math
 * option can change it). With a correctly rounded f32 quotient the result
 * is the correctly rounded bf16 quotient: 24 >= 2 * 8 + 2, and in the
 * subnormal range both grids keep their 16-bit gap. */
ushort bf16_div(ushort x, ushort y)
{
    uint u = as_uint(FDIV(as_float((uint)x << 16), as_float((uint)y << 16)));
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep it a quiet NaN */
        return (ushort)((u >> 16) | 0x0040u);
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
ELEMENTWISE(div_bf16, ushort, bf16_div)

#ifdef DVG_HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
double f64_div(double x, double y) { return x / y; }
ELEMENTWISE(div_f64, double, f64_div)
#endif

#ifdef DVG_HAS_FP16
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
half f16_div(half x, half y) { return x / y; }
ELEMENTWISE(div_f16, half, f16_div)
#endif

/* ---- integers -------------------------------------------------------- */
#define SIGNED(tag, T, MIN)                                                   \
    T tag##_trunc(T x, T y)                                                   \
    {                                                                         \
        T s = (y == 0 || y == -1) ? (T)1 : y;                                 \
        T q = (T)(x / s);                                                     \
        return y == 0 ? (T)0 : y == -1 ? (x == (T)(MIN) ? x : (T)-x) : q;     \
    }                                                                         \
    T tag##_floor(T x, T y)                                                   \
    {                                                                         \
        T s = (y == 0 || y == -1) ? (T)1 : y;                                 \
        T q = (T)(x / s), r = (T)(x % s);                                     \
        if (r != 0 && ((r < 0) != (s < 0)))                                   \
            q = (T)(q - 1);                                                   \
        return y == 0 ? (T)0 : y == -1 ? (x == (T)(MIN) ? x : (T)-x) : q;     \
    }
#define UNSIGNED(tag, T)                                                      \
    T tag##_div(T x, T y)                                                     \
    {                                                                         \
        T s = y == 0 ? (T)1 : y;                                              \
        return y == 0 ? (T)0 : (T)(x / s);                                    \
    }

SIGNED(i8, char, -128)
SIGNED(i16, short, -32768)
SIGNED(i32, int, INT_MIN)
SIGNED(i64, long, LONG_MIN)
SIGNED(i4, int, -8)
UNSIGNED(u8, uchar)
UNSIGNED(u16, ushort)
UNSIGNED(u32, uint)
UNSIGNED(u64, ulong)
UNSIGNED(u4, uint)

ELEMENTWISE(div_i8_trunc, char, i8_trunc)
ELEMENTWISE(div_i8_floor, char, i8_floor)
ELEMENTWISE(div_i16_trunc, short, i16_trunc)
ELEMENTWISE(div_i16_floor, short, i16_floor)
ELEMENTWISE(div_i32_trunc, int, i32_trunc)
ELEMENTWISE(div_i32_floor, int, i32_floor)
ELEMENTWISE(div_i64_trunc, long, i64_trunc)
ELEMENTWISE(div_i64_floor, long, i64_floor)
ELEMENTWISE(div_u8, uchar, u8_div)
ELEMENTWISE(div_u16, ushort, u16_div)
ELEMENTWISE(div_u32, uint, u32_div)
ELEMENTWISE(div_u64, ulong, u64_div)

/* i4/u4: two elements per byte, low nibble first; one work-item per output
 * byte, so no two work-items write one byte. With an odd count the high
 * nibble of the last byte is 0 here; the host keeps C's own. One kernel
 * (strided) for every shape. */
int nibble(__global const uchar *p, ulong i) { return (p[i >> 1] >> ((i & 1) * 4)) & 0xF; }
int nibble_signed(__global const uchar *p, ulong i)
{
    int v = nibble(p, i);
    return v >= 8 ? v - 16 : v;
}

#define NIBBLES(NAME, LOAD, OP)                                               \
    __kernel void NAME(__global const uchar *a, __global const uchar *b,      \
                       __global uchar *c, ulong n, __constant long *plan)     \
    {                                                                         \
        ulong j = get_global_id(0);                                           \
        uint out = 0;                                                         \
        if (2 * j >= n)                                                       \
            return;                                                           \
        for (uint h = 0; h < 2 && 2 * j + h < n; h++) {                       \
            OFFSETS(2 * j + h, ia, ib);                                       \
            out |= ((uint)OP(LOAD(a, ia), LOAD(b, ib)) & 0xFu) << (4 * h);    \
        }                                                                     \
        c[j] = (uchar)out;                                                    \
    }

NIBBLES(div_i4_trunc_strided, nibble_signed, i4_trunc)
NIBBLES(div_i4_floor_strided, nibble_signed, i4_floor)
NIBBLES(div_u4_strided, (uint)nibble, u4_div)
