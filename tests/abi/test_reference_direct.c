/* SPDX-License-Identifier: MIT */
/*
 * tests/abi/test_reference_direct.c: a smoke test of the reference kernel
 * (build/plugins/reference.so) loaded with dlopen in this process, against
 * answers worked out by hand: every variant's shape rules (ONNX legacy
 * axis, numpy, OpenVINO pdpd, equal shapes) including invalid input,
 * floor and truncation, the unspecified integer cases, packed i4/u4, f16
 * and bf16 rounding with subnormals, rank 0, zero-size dimensions, rank 8,
 * and the caller's FP environment left as it was. The certification
 * against the oracle is the harness's job; this only checks that the
 * kernel loads and gives the answers a person can check on paper.
 *
 * Usage: test_reference_direct PATH/reference.so
 */
#include <dlfcn.h>
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "check.h"
#include "divergence/iut.h"

static const dvg_descriptor *D;
static dvg_iut *I;

#define V(id) DVG_VARIANT_##id
#define T(id) DVG_DTYPE_##id
#define DIMS(...) ((const int64_t[]){__VA_ARGS__})
#define NDIMS(...) ((uint32_t)(sizeof(DIMS(__VA_ARGS__)) / sizeof(int64_t)))

static dvg_attrs defaults(void)
{
    dvg_attrs at;
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    at.axis = -1;
    at.pythondiv = 1;
    at.auto_broadcast = DVG_BROADCAST_NUMPY;
    return at;
}

static dvg_tensor tensor(uint32_t dtype, uint32_t rank, const int64_t *dims, const void *data,
                         uint64_t nbytes)
{
    dvg_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.rank = rank; /* may exceed DVG_MAX_RANK, to be refused */
    for (uint32_t k = 0; k < rank && k < DVG_MAX_RANK; k++)
        t.shape[k] = dims[k];
    t.data = (void *)(uintptr_t)data; /* the ABI's tensor is not const */
    t.nbytes = nbytes;
    return t;
}

/* An output tensor: divide() sets its shape from output_shape. */
static dvg_tensor output(uint32_t dtype, void *data, uint64_t nbytes)
{
    dvg_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.data = data;
    t.nbytes = nbytes;
    return t;
}

/* output_shape, then (when it says DVG_OK) compute into c, whose shape is
 * set from output_shape. Returns output_shape's status when it is not OK,
 * else compute's. */
static int32_t divide(uint32_t variant, const dvg_attrs *at, const dvg_tensor *a,
                      const dvg_tensor *b, dvg_tensor *c)
{
    uint32_t rank = 99;
    int64_t shape[DVG_MAX_RANK];
    int32_t s = D->output_shape(I, variant, at, a, b, &rank, shape);
    if (s != DVG_OK)
        return s;
    c->dtype = a->dtype;
    c->rank = rank;
    memset(c->shape, 0, sizeof c->shape);
    memcpy(c->shape, shape, rank * sizeof shape[0]);
    s = D->compute(I, variant, at, a, b, c);
    if (s != DVG_OK)
        fprintf(stderr, "  compute: %s\n", D->last_error(I));
    return s;
}

/* Shape validity only: output_shape's status and, when OK, the shape. */
static int32_t shape_of(uint32_t variant, const dvg_attrs *at, uint32_t ra, const int64_t *da,
                        uint32_t rb, const int64_t *db, uint32_t *rank, int64_t *shape)
{
    dvg_tensor a = tensor(T(F32), ra, da, NULL, 0), b = tensor(T(F32), rb, db, NULL, 0);
    return D->output_shape(I, variant, at, &a, &b, rank, shape);
}

static int same_shape(uint32_t rank, const int64_t *shape, uint32_t er, const int64_t *e)
{
    return rank == er && !memcmp(shape, e, er * sizeof e[0]);
}

static uint32_t f32_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void test_descriptor(void)
{
    int dup = 0;
    CHECK(D->size == sizeof(dvg_descriptor));
    CHECK(D->abi_major == DVG_ABI_MAJOR && D->abi_minor == DVG_ABI_MINOR);
    CHECK(D->name && !strcmp(D->name, "divergence-reference"));
    CHECK(D->version && D->version[0]);
    CHECK(D->reserved0 == 0 && D->deviations == 0);
    /* 3 + 7 + 7 + 8 + 12 + 14 + 14 pairs, none twice */
    CHECKF(D->n_claims == 65, "%u claims", D->n_claims);
    for (uint32_t i = 0; i < D->n_claims; i++)
        for (uint32_t j = i + 1; j < D->n_claims; j++)
            dup += D->claims[i].variant == D->claims[j].variant &&
                   D->claims[i].dtype == D->claims[j].dtype;
    CHECK(dup == 0);
    CHECK(D->open && D->output_shape && D->compute && D->last_error && D->close);
}

static int is_claimed(uint32_t v, uint32_t t)
{
    for (uint32_t i = 0; i < D->n_claims; i++)
        if (D->claims[i].variant == v && D->claims[i].dtype == t)
            return 1;
    return 0;
}

static void test_claims(void)
{
    uint32_t rank;
    int64_t shape[DVG_MAX_RANK];
    dvg_attrs at = defaults();
    dvg_tensor a = tensor(T(I32), 1, DIMS(2), NULL, 0), b = a;

    CHECK(is_claimed(V(ONNX_DIV_1), T(F16)) && !is_claimed(V(ONNX_DIV_1), T(I32)));
    CHECK(is_claimed(V(ONNX_DIV_6), T(U64)) && !is_claimed(V(ONNX_DIV_6), T(BF16)));
    CHECK(is_claimed(V(ONNX_DIV_13), T(BF16)) && !is_claimed(V(ONNX_DIV_13), T(I8)));
    CHECK(is_claimed(V(ONNX_DIV_14), T(U16)) && !is_claimed(V(ONNX_DIV_14), T(I4)));
    CHECK(is_claimed(V(OPENVINO_DIVIDE_1), T(I4)) && is_claimed(V(OPENVINO_DIVIDE_1), T(U4)));
    CHECK(is_claimed(V(SONNX_DIV), T(U64)) && is_claimed(V(SONNX_DIV), T(I4)));

    CHECK(D->output_shape(I, V(ONNX_DIV_1), &at, &a, &b, &rank, shape) == DVG_UNSUPPORTED);
    CHECK(D->last_error(I)[0] != '\0');
    CHECK(D->output_shape(I, 99, &at, &a, &b, &rank, shape) == DVG_UNSUPPORTED);
    b.dtype = T(I64);
    CHECK(D->output_shape(I, V(ONNX_DIV_7), &at, &a, &b, &rank, shape) == DVG_INVALID_INPUT);
}

static void test_f32(void)
{
    const float a[] = {1, 2, 3, -4, 0, 1e30f, -1, 1};
    const float b[] = {2, 4, -8, 0, 0, 1e-30f, -0.0f, 3};
    float c[8];
    dvg_attrs at = defaults();
    dvg_tensor ta = tensor(T(F32), 2, DIMS(2, 4), a, sizeof a);
    dvg_tensor tb = tensor(T(F32), 2, DIMS(2, 4), b, sizeof b);
    dvg_tensor tc = output(T(F32), c, sizeof c);

    CHECK(divide(V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_OK);
    CHECK(same_shape(tc.rank, tc.shape, 2, DIMS(2, 4)));
    CHECK(c[0] == 0.5f && c[1] == 0.5f && c[2] == -0.375f);
    CHECK(isinf(c[3]) && c[3] < 0);           /* -4 / +0 = -inf */
    CHECK(isnan(c[4]));                       /* 0 / 0 */
    CHECK(isinf(c[5]) && c[5] > 0);           /* 1e30 / 1e-30 overflows */
    CHECK(isinf(c[6]) && c[6] > 0);           /* -1 / -0 = +inf */
    CHECK(f32_bits(c[7]) == 0x3EAAAAABu);     /* 1/3 rounded to nearest */
}

static void test_int_rounding(void)
{
    const int32_t a[] = {-7, 7, 7, -7, 6, INT32_MIN, 5, 0};
    const int32_t b[] = {2, 2, -2, -2, -3, -1, 0, 0};
    /* truncation and floor, with x/0 = 0 and INT_MIN/-1 = INT_MIN */
    const int32_t trunc[] = {-3, 3, -3, 3, -2, INT32_MIN, 0, 0};
    const int32_t floor[] = {-4, 3, -4, 3, -2, INT32_MIN, 0, 0};
    int32_t c[8];
    dvg_attrs at = defaults();
    dvg_tensor ta = tensor(T(I32), 1, DIMS(8), a, sizeof a);
    dvg_tensor tb = tensor(T(I32), 1, DIMS(8), b, sizeof b);
    dvg_tensor tc = output(T(I32), c, sizeof c);

    CHECK(divide(V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, trunc, sizeof c));
    CHECK(divide(V(ONNX_DIV_14), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, trunc, sizeof c));
    at.broadcast = 0;
    CHECK(divide(V(ONNX_DIV_6), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, trunc, sizeof c));
    at = defaults(); /* OpenVINO: pythondiv defaults to 1: floor */
    CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &tb, &tc) == DVG_OK &&
          !memcmp(c, floor, sizeof c));
    at.pythondiv = 0;
    CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &tb, &tc) == DVG_OK &&
          !memcmp(c, trunc, sizeof c));
    at = defaults(); /* SONNX: floor, unless int_rounding says trunc */
    CHECK(divide(V(SONNX_DIV), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, floor, sizeof c));
    at.int_rounding = DVG_ROUND_FLOOR;
    CHECK(divide(V(SONNX_DIV), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, floor, sizeof c));
    at.int_rounding = DVG_ROUND_TRUNC;
    CHECK(divide(V(SONNX_DIV), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, trunc, sizeof c));
}

static void test_int_types(void)
{
    dvg_attrs at = defaults();
    {
        const int8_t a[] = {-128, -128, -7, 127, -1};
        const int8_t b[] = {-1, 3, 2, -128, 2};
        const int8_t floor[] = {-128, -43, -4, -1, -1};
        int8_t c[5];
        dvg_tensor ta = tensor(T(I8), 1, DIMS(5), a, 5), tb = tensor(T(I8), 1, DIMS(5), b, 5);
        dvg_tensor tc = output(T(I8), c, 5);
        CHECK(divide(V(SONNX_DIV), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, floor, 5));
    }
    {
        /* 2^53 + 1 survives only in integer arithmetic */
        const int64_t a[] = {INT64_C(9007199254740993), INT64_MAX, INT64_MIN, -9, INT64_MIN};
        const int64_t b[] = {1, 2, -1, 4, 7};
        const int64_t trunc[] = {INT64_C(9007199254740993), INT64_C(4611686018427387903),
                                 INT64_MIN, -2, INT64_C(-1317624576693539401)};
        int64_t c[5];
        dvg_tensor ta = tensor(T(I64), 1, DIMS(5), a, sizeof a);
        dvg_tensor tb = tensor(T(I64), 1, DIMS(5), b, sizeof b);
        dvg_tensor tc = output(T(I64), c, sizeof c);
        CHECK(divide(V(ONNX_DIV_13), &at, &ta, &tb, &tc) == DVG_OK &&
              !memcmp(c, trunc, sizeof c));
    }
    {
        const uint64_t a[] = {UINT64_MAX, UINT64_MAX, 7, 5};
        const uint64_t b[] = {3, 1, 2, 0};
        const uint64_t q[] = {UINT64_C(6148914691236517205), UINT64_MAX, 3, 0};
        uint64_t c[4];
        dvg_tensor ta = tensor(T(U64), 1, DIMS(4), a, sizeof a);
        dvg_tensor tb = tensor(T(U64), 1, DIMS(4), b, sizeof b);
        dvg_tensor tc = output(T(U64), c, sizeof c);
        CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &tb, &tc) == DVG_OK &&
              !memcmp(c, q, sizeof c));
    }
    {
        const uint16_t a[] = {65535, 1000, 9};
        const uint16_t b[] = {2, 1001, 0};
        const uint16_t q[] = {32767, 0, 0};
        uint16_t c[3];
        dvg_tensor ta = tensor(T(U16), 1, DIMS(3), a, sizeof a);
        dvg_tensor tb = tensor(T(U16), 1, DIMS(3), b, sizeof b);
        dvg_tensor tc = output(T(U16), c, sizeof c);
        CHECK(divide(V(ONNX_DIV_14), &at, &ta, &tb, &tc) == DVG_OK && !memcmp(c, q, sizeof c));
    }
}

/* i4: elements -7 7 5 -8 3 / 2 2 -2 -1 0, packed low nibble first. */
static void test_packed(void)
{
    const uint8_t a[] = {0x79, 0x85, 0x03}, b[] = {0x22, 0xFE, 0x00};
    uint8_t c[3];
    dvg_attrs at = defaults();
    dvg_tensor ta = tensor(T(I4), 1, DIMS(5), a, 3), tb = tensor(T(I4), 1, DIMS(5), b, 3);
    dvg_tensor tc = output(T(I4), c, 3);

    /* floor: -4 3 -3 -8(INT_MIN/-1) 0(x/0) = 0xC 0x3 0xD 0x8 0x0; the pad
     * nibble of the last byte is left alone */
    memset(c, 0xAA, sizeof c);
    CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &tb, &tc) == DVG_OK);
    CHECKF(c[0] == 0x3C && c[1] == 0x8D && c[2] == 0xA0, "%02x %02x %02x", c[0], c[1], c[2]);
    /* truncation: -3 3 -2 -8 0 */
    at.pythondiv = 0;
    memset(c, 0x55, sizeof c);
    CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &tb, &tc) == DVG_OK);
    CHECKF(c[0] == 0x3D && c[1] == 0x8E && c[2] == 0x50, "%02x %02x %02x", c[0], c[1], c[2]);
    /* scalar B = -2 broadcast over the packed A, through SONNX's equal
     * shapes refusing it and OpenVINO numpy accepting it */
    {
        const uint8_t two[] = {0x0E};
        dvg_tensor ts = tensor(T(I4), 0, NULL, two, 1);
        at = defaults();
        memset(c, 0, sizeof c);
        /* floor(-7/-2)=3, floor(7/-2)=-4, floor(5/-2)=-3, floor(-8/-2)=4, floor(3/-2)=-2 */
        CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &ts, &tc) == DVG_OK);
        CHECKF(c[0] == 0xC3 && c[1] == 0x4D && c[2] == 0x0E, "%02x %02x %02x", c[0], c[1],
               c[2]);
        CHECK(divide(V(SONNX_DIV), &at, &ta, &ts, &tc) == DVG_INVALID_INPUT);
    }
    /* u4: 15/4 = 3, 9/2 = 4, 8/0 = 0 */
    {
        const uint8_t ua[] = {0x9F, 0x08}, ub[] = {0x24, 0x00};
        uint8_t uc[2] = {0xFF, 0xFF};
        dvg_tensor tua = tensor(T(U4), 1, DIMS(3), ua, 2), tub = tensor(T(U4), 1, DIMS(3), ub, 2);
        dvg_tensor tuc = output(T(U4), uc, 2);
        CHECK(divide(V(SONNX_DIV), &at, &tua, &tub, &tuc) == DVG_OK);
        CHECKF(uc[0] == 0x43 && uc[1] == 0xF0, "%02x %02x", uc[0], uc[1]);
    }
}

static void test_f16_bf16(void)
{
    dvg_attrs at = defaults();
    {
        /* 1/3 = 0x3555; 2^-24 / 2 ties to 0; 3*2^-24 / 2 ties to 2*2^-24;
         * 2^-14 / 2 = 0x0200 (subnormal); 65504 / 0.5 overflows; 1 / -0 */
        const uint16_t a[] = {0x3C00, 0x0001, 0x0003, 0x0400, 0x7BFF, 0x3C00, 0x8001, 0x7E00};
        const uint16_t b[] = {0x4200, 0x4000, 0x4000, 0x4000, 0x3800, 0x8000, 0x3C00, 0x3C00};
        const uint16_t q[] = {0x3555, 0x0000, 0x0002, 0x0200, 0x7C00, 0xFC00, 0x8001};
        uint16_t c[8];
        dvg_tensor ta = tensor(T(F16), 1, DIMS(8), a, sizeof a);
        dvg_tensor tb = tensor(T(F16), 1, DIMS(8), b, sizeof b);
        dvg_tensor tc = output(T(F16), c, sizeof c);
        CHECK(divide(V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_OK);
        for (int i = 0; i < 7; i++)
            CHECKF(c[i] == q[i], "f16 %d: %04x, not %04x", i, c[i], q[i]);
        CHECKF((c[7] & 0x7C00) == 0x7C00 && (c[7] & 0x03FF), "NaN in, %04x out", c[7]);
    }
    {
        /* 1/3 = 0x3EAB; least subnormal / 2 ties to 0; 3 lsb / 2 -> 2 lsb;
         * least normal 2^-126 / 2 = 0x0040; 1/0; (1 + 2^-7) / (1 - 2^-8)
         * = 1.01171875... rounds to 0x3F82 */
        const uint16_t a[] = {0x3F80, 0x0001, 0x0003, 0x0080, 0x3F80, 0x3F81};
        const uint16_t b[] = {0x4040, 0x4000, 0x4000, 0x4000, 0x0000, 0x3F7F};
        const uint16_t q[] = {0x3EAB, 0x0000, 0x0002, 0x0040, 0x7F80, 0x3F82};
        uint16_t c[6];
        dvg_tensor ta = tensor(T(BF16), 1, DIMS(6), a, sizeof a);
        dvg_tensor tb = tensor(T(BF16), 1, DIMS(6), b, sizeof b);
        dvg_tensor tc = output(T(BF16), c, sizeof c);
        CHECK(divide(V(ONNX_DIV_13), &at, &ta, &tb, &tc) == DVG_OK);
        for (int i = 0; i < 6; i++)
            CHECKF(c[i] == q[i], "bf16 %d: %04x, not %04x", i, c[i], q[i]);
    }
}

/* ONNX Div-1/6 legacy broadcasting, on shapes alone and with values. */
static void test_onnx_legacy(void)
{
    uint32_t r;
    int64_t s[DVG_MAX_RANK];
    const int64_t *A = DIMS(2, 3, 4, 5);
    dvg_attrs at = defaults();

    /* broadcast=0: equal shapes only */
    CHECK(shape_of(V(ONNX_DIV_1), &at, 4, A, 4, A, &r, s) == DVG_OK && same_shape(r, s, 4, A));
    CHECK(shape_of(V(ONNX_DIV_1), &at, 4, A, 2, DIMS(4, 5), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 0, NULL, &r, s) == DVG_INVALID_INPUT);
    at.broadcast = 1; /* the examples of the Div-1/Div-6 text */
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 0, NULL, &r, s) == DVG_OK && same_shape(r, s, 4, A));
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 2, DIMS(1, 1), &r, s) == DVG_OK);
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 1, DIMS(5), &r, s) == DVG_OK);
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 2, DIMS(4, 5), &r, s) == DVG_OK &&
          same_shape(r, s, 4, A));
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 2, DIMS(3, 4), &r, s) == DVG_INVALID_INPUT);
    at.axis_set = 1;
    at.axis = 1;
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 2, DIMS(3, 4), &r, s) == DVG_OK);
    at.axis = 0;
    CHECK(shape_of(V(ONNX_DIV_1), &at, 4, A, 1, DIMS(2), &r, s) == DVG_OK);
    at.axis = 3; /* runs past A */
    CHECK(shape_of(V(ONNX_DIV_1), &at, 4, A, 2, DIMS(3, 4), &r, s) == DVG_INVALID_INPUT);
    at.axis = -1;
    CHECK(shape_of(V(ONNX_DIV_1), &at, 4, A, 1, DIMS(5), &r, s) == DVG_INVALID_INPUT);
    at.axis_set = 0; /* no size-1 expansion, B never larger than A */
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 2, DIMS(1, 5), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 5, DIMS(1, 2, 3, 4, 5), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 5, DIMS(1, 1, 1, 1, 1), &r, s) == DVG_INVALID_INPUT);
    at.broadcast = 2;
    CHECK(shape_of(V(ONNX_DIV_6), &at, 4, A, 1, DIMS(5), &r, s) == DVG_INVALID_INPUT);

    /* values: A (2,3,4,5) = 0..119, B (3,4) = 1..12 at axis 1 */
    {
        double a[120], b[12], c[120];
        int ok = 1;
        for (int i = 0; i < 120; i++)
            a[i] = i;
        for (int i = 0; i < 12; i++)
            b[i] = i + 1;
        dvg_tensor ta = tensor(T(F64), 4, A, a, sizeof a);
        dvg_tensor tb = tensor(T(F64), 2, DIMS(3, 4), b, sizeof b);
        dvg_tensor tc = output(T(F64), c, sizeof c);
        at = defaults();
        at.broadcast = 1;
        at.axis_set = 1;
        at.axis = 1;
        CHECK(divide(V(ONNX_DIV_6), &at, &ta, &tb, &tc) == DVG_OK);
        for (int i = 0; i < 2; i++)
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 4; k++)
                    for (int l = 0; l < 5; l++) {
                        int e = ((i * 3 + j) * 4 + k) * 5 + l;
                        ok &= c[e] == a[e] / b[j * 4 + k];
                    }
        CHECK(ok);
        CHECK(c[119] == 119.0 / 12.0 && c[5] == 5.0 / 2.0);
    }
    /* integers in Div-6: truncation with B (1,) broadcast */
    {
        const int32_t a[] = {-7, 7, -6};
        const int32_t b[] = {4};
        int32_t c[3];
        dvg_tensor ta = tensor(T(I32), 1, DIMS(3), a, sizeof a);
        dvg_tensor tb = tensor(T(I32), 1, DIMS(1), b, sizeof b);
        dvg_tensor tc = output(T(I32), c, sizeof c);
        at = defaults();
        at.broadcast = 1;
        CHECK(divide(V(ONNX_DIV_6), &at, &ta, &tb, &tc) == DVG_OK);
        CHECK(c[0] == -1 && c[1] == 1 && c[2] == -1);
    }
}

/* OpenVINO pdpd broadcasting. */
static void test_pdpd(void)
{
    uint32_t r;
    int64_t s[DVG_MAX_RANK];
    const int64_t *A = DIMS(2, 3, 4);
    dvg_attrs at = defaults();
    at.auto_broadcast = DVG_BROADCAST_PDPD;

    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(4), &r, s) == DVG_OK &&
          same_shape(r, s, 3, A));
    /* axis -1 = rank(A) - rank(B) = 1 before (3,1) loses its trailing 1 */
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 2, DIMS(3, 1), &r, s) == DVG_OK);
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 2, DIMS(4, 1), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 2, DIMS(1, 4), &r, s) == DVG_OK);
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 0, NULL, &r, s) == DVG_OK);
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 4, DIMS(1, 2, 3, 4), &r, s) ==
          DVG_INVALID_INPUT); /* only B -> A */
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 1, DIMS(4), 3, A, &r, s) == DVG_INVALID_INPUT);
    at.axis = 1;
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(3), &r, s) == DVG_OK);
    at.axis = 0;
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 2, DIMS(2, 3), &r, s) == DVG_OK);
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(3), &r, s) == DVG_INVALID_INPUT);
    at.axis = 2;
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(3), &r, s) == DVG_INVALID_INPUT);
    at.axis = 3; /* the window runs past A */
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(4), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(1), &r, s) == DVG_OK);
    at.axis = -2;
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(4), &r, s) == DVG_INVALID_INPUT);

    /* values: A (2,3,4) = 8 everywhere, B (3,1) = 1 2 4 at axis -1 (= 1):
     * C[i][j][k] = 8 / B[j] */
    {
        float a[24], c[24];
        const float b[] = {1, 2, 4};
        int ok = 1;
        for (int i = 0; i < 24; i++)
            a[i] = 8;
        dvg_tensor ta = tensor(T(F32), 3, A, a, sizeof a);
        dvg_tensor tb = tensor(T(F32), 2, DIMS(3, 1), b, sizeof b);
        dvg_tensor tc = output(T(F32), c, sizeof c);
        at = defaults();
        at.auto_broadcast = DVG_BROADCAST_PDPD;
        CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &tb, &tc) == DVG_OK);
        CHECK(same_shape(tc.rank, tc.shape, 3, A));
        for (int i = 0; i < 24; i++)
            ok &= c[i] == 8 / b[(i / 4) % 3];
        CHECK(ok);
    }
    /* a 1 inside the window broadcasts: A (2,3), B (1,3) at axis 0 */
    {
        const int32_t a[] = {-7, 8, 9, 10, -11, 12};
        const int32_t b[] = {2, -3, 4};
        const int32_t q[] = {-4, -3, 2, 5, 3, 3}; /* floor */
        int32_t c[6];
        dvg_tensor ta = tensor(T(I32), 2, DIMS(2, 3), a, sizeof a);
        dvg_tensor tb = tensor(T(I32), 2, DIMS(1, 3), b, sizeof b);
        dvg_tensor tc = output(T(I32), c, sizeof c);
        at = defaults();
        at.auto_broadcast = DVG_BROADCAST_PDPD;
        at.axis = 0;
        CHECK(divide(V(OPENVINO_DIVIDE_1), &at, &ta, &tb, &tc) == DVG_OK &&
              !memcmp(c, q, sizeof c));
    }
    /* none: equal shapes; an unknown value is invalid */
    at = defaults();
    at.auto_broadcast = DVG_BROADCAST_NONE;
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 3, A, &r, s) == DVG_OK);
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 1, DIMS(4), &r, s) == DVG_INVALID_INPUT);
    at.auto_broadcast = 7;
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 3, A, 3, A, &r, s) == DVG_INVALID_INPUT);
}

static void test_numpy(void)
{
    uint32_t r;
    int64_t s[DVG_MAX_RANK];
    dvg_attrs at = defaults();

    /* the OpenVINO example: (8,1,6,1) and (7,1,5) give (8,7,6,5) */
    CHECK(shape_of(V(OPENVINO_DIVIDE_1), &at, 4, DIMS(8, 1, 6, 1), 3, DIMS(7, 1, 5), &r, s) ==
              DVG_OK &&
          same_shape(r, s, 4, DIMS(8, 7, 6, 5)));
    CHECK(shape_of(V(ONNX_DIV_7), &at, 2, DIMS(2, 3), 1, DIMS(4), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(ONNX_DIV_7), &at, 2, DIMS(2, 3), 2, DIMS(3, 2), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(ONNX_DIV_7), &at, 0, NULL, 0, NULL, &r, s) == DVG_OK && r == 0);
    CHECK(shape_of(V(ONNX_DIV_7), &at, 2, DIMS(1, 0), 1, DIMS(3), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(ONNX_DIV_7), &at, 2, DIMS(2, 0), 1, DIMS(1), &r, s) == DVG_OK &&
          same_shape(r, s, 2, DIMS(2, 0)));
    CHECK(shape_of(V(ONNX_DIV_7), &at, 8, DIMS(1, 2, 1, 2, 1, 2, 1, 2), 8,
                   DIMS(2, 1, 2, 1, 2, 1, 2, 1), &r, s) == DVG_OK &&
          same_shape(r, s, 8, DIMS(2, 2, 2, 2, 2, 2, 2, 2)));
    CHECK(shape_of(V(ONNX_DIV_7), &at, 9, DIMS(1, 1, 1, 1, 1, 1, 1, 1, 1), 0, NULL, &r, s) ==
          DVG_INVALID_INPUT);
    CHECK(shape_of(V(ONNX_DIV_7), &at, 1, DIMS(-1), 0, NULL, &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(SONNX_DIV), &at, 1, DIMS(3), 1, DIMS(1), &r, s) == DVG_INVALID_INPUT);
    CHECK(shape_of(V(SONNX_DIV), &at, 1, DIMS(3), 1, DIMS(3), &r, s) == DVG_OK);

    /* values, both operands broadcast: A (2,1) = 6 -6, B (1,3) = 1 2 4 */
    {
        const int64_t a[] = {6, -6}, b[] = {1, 2, 4};
        const int64_t q[] = {6, 3, 1, -6, -3, -1};
        int64_t c[6];
        dvg_tensor ta = tensor(T(I64), 2, DIMS(2, 1), a, sizeof a);
        dvg_tensor tb = tensor(T(I64), 2, DIMS(1, 3), b, sizeof b);
        dvg_tensor tc = output(T(I64), c, sizeof c);
        CHECK(divide(V(ONNX_DIV_13), &at, &ta, &tb, &tc) == DVG_OK &&
              same_shape(tc.rank, tc.shape, 2, DIMS(2, 3)) && !memcmp(c, q, sizeof c));
    }
    /* rank 0 / rank 0 */
    {
        const double a = 1, b = 8;
        double c = 0;
        dvg_tensor ta = tensor(T(F64), 0, NULL, &a, 8), tb = tensor(T(F64), 0, NULL, &b, 8);
        dvg_tensor tc = output(T(F64), &c, 8);
        CHECK(divide(V(ONNX_DIV_14), &at, &ta, &tb, &tc) == DVG_OK && tc.rank == 0 &&
              c == 0.125);
    }
    /* zero-size: nothing to read or write, NULL buffers allowed */
    {
        dvg_tensor ta = tensor(T(F32), 3, DIMS(2, 0, 3), NULL, 0);
        dvg_tensor tb = tensor(T(F32), 1, DIMS(3), (const float[]){1, 2, 3}, 12);
        dvg_tensor tc = output(T(F32), NULL, 0);
        CHECK(divide(V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_OK &&
              same_shape(tc.rank, tc.shape, 3, DIMS(2, 0, 3)));
    }
}

/* Every stride pattern of the index walk against a naive loop: numpy
 * broadcasting of all shape pairs of rank <= 3 with dims 1..3 (f64, so the
 * host's division is the expected value). */
static void test_walk(void)
{
    int cases = 0, bad = 0;
    dvg_attrs at = defaults();
    double a[27], b[27], c[27];
    for (int i = 0; i < 27; i++) {
        a[i] = 100 + i;
        b[i] = 1 + i;
    }
    for (int ra = 0; ra <= 3; ra++)
        for (int rb = 0; rb <= 3; rb++)
            for (int ca = 0; ca < 27; ca++)
                for (int cb = 0; cb < 27; cb++) {
                    int64_t da[3], db[3], dout[3];
                    int64_t sa[3], sb[3], na = 1, nb = 1, nc = 1;
                    int r = ra > rb ? ra : rb, ok = 1;
                    if (ca >= (ra == 0 ? 1 : ra == 1 ? 3 : ra == 2 ? 9 : 27) ||
                        cb >= (rb == 0 ? 1 : rb == 1 ? 3 : rb == 2 ? 9 : 27))
                        continue;
                    for (int k = 0, x = ca; k < ra; k++, x /= 3)
                        da[k] = 1 + x % 3;
                    for (int k = 0, x = cb; k < rb; k++, x /= 3)
                        db[k] = 1 + x % 3;
                    for (int k = 0; k < r; k++) {
                        int64_t ea = k >= r - ra ? da[k - (r - ra)] : 1;
                        int64_t eb = k >= r - rb ? db[k - (r - rb)] : 1;
                        if (ea != eb && ea != 1 && eb != 1)
                            ok = 0;
                        dout[k] = ea == 1 ? eb : ea;
                        nc *= dout[k];
                    }
                    for (int k = ra - 1; k >= 0; k--) {
                        sa[k] = na;
                        na *= da[k];
                    }
                    for (int k = rb - 1; k >= 0; k--) {
                        sb[k] = nb;
                        nb *= db[k];
                    }
                    dvg_tensor ta = tensor(T(F64), (uint32_t)ra, da, a, (uint64_t)na * 8);
                    dvg_tensor tb = tensor(T(F64), (uint32_t)rb, db, b, (uint64_t)nb * 8);
                    dvg_tensor tc = output(T(F64), c, sizeof c);
                    int32_t st = divide(V(ONNX_DIV_7), &at, &ta, &tb, &tc);
                    cases++;
                    if (!ok) {
                        bad += st != DVG_INVALID_INPUT;
                        continue;
                    }
                    if (st != DVG_OK || !same_shape(tc.rank, tc.shape, (uint32_t)r, dout)) {
                        bad++;
                        continue;
                    }
                    for (int64_t e = 0; e < nc; e++) {
                        int64_t rest = e, ia = 0, ib = 0;
                        for (int k = r - 1; k >= 0; k--) {
                            int64_t i = rest % dout[k];
                            rest /= dout[k];
                            if (k >= r - ra && da[k - (r - ra)] != 1)
                                ia += i * sa[k - (r - ra)];
                            if (k >= r - rb && db[k - (r - rb)] != 1)
                                ib += i * sb[k - (r - rb)];
                        }
                        if (c[e] != a[ia] / b[ib]) {
                            bad++;
                            break;
                        }
                    }
                }
    CHECKF(bad == 0, "%d of %d shape pairs wrong", bad, cases);
    CHECK(cases > 1000);
}

static void test_misuse(void)
{
    const float a[] = {1, 2}, b[] = {1, 2};
    float c[2];
    dvg_attrs at = defaults();
    dvg_tensor ta = tensor(T(F32), 1, DIMS(2), a, sizeof a);
    dvg_tensor tb = tensor(T(F32), 1, DIMS(2), b, sizeof b);
    dvg_tensor tc = output(T(F32), c, sizeof c);
    dvg_iut *other = NULL;

    tc.rank = 1;
    tc.shape[0] = 3;

    /* C with the wrong shape, a short buffer: refused, not overrun */
    CHECK(D->compute(I, V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_FAILURE);
    tc.shape[0] = 2;
    tc.nbytes = 4;
    CHECK(D->compute(I, V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_FAILURE);
    tc.nbytes = 8;
    tc.dtype = T(F64);
    CHECK(D->compute(I, V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_FAILURE);
    tc.dtype = T(F32);
    CHECK(D->compute(I, V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_OK);
    CHECK(D->compute(I, V(ONNX_DIV_7), NULL, &ta, &tb, &tc) == DVG_OK); /* defaults */
    at.size = 8;
    CHECK(D->compute(I, V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_FAILURE);

    /* the error text belongs to its instance */
    CHECK(D->open("", &other) == DVG_OK && other);
    CHECK(strstr(D->last_error(I), "attrs") != NULL);
    CHECK(D->last_error(other) && D->last_error(other)[0] == '\0');
    D->close(other);
    D->close(NULL);
    other = NULL;
    CHECK(D->open("fast=1", &other) == DVG_FAILURE && other == NULL);
}

/* The caller's rounding mode and FTZ/DAZ are neither used nor changed. */
static void test_fp_environment(void)
{
    const float a[] = {1, 0x1p-126f}, b[] = {3, 2};
    float c[2];
    dvg_attrs at = defaults();
    dvg_tensor ta = tensor(T(F32), 1, DIMS(2), a, sizeof a);
    dvg_tensor tb = tensor(T(F32), 1, DIMS(2), b, sizeof b);
    dvg_tensor tc = output(T(F32), c, sizeof c);
#if defined(__x86_64__)
    unsigned int csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u); /* FTZ | DAZ */
#endif
    tc.rank = 1;
    tc.shape[0] = 2;
    fesetround(FE_DOWNWARD);
    CHECK(D->compute(I, V(ONNX_DIV_7), &at, &ta, &tb, &tc) == DVG_OK);
    CHECK(fegetround() == FE_DOWNWARD);
#if defined(__x86_64__)
    CHECK((_mm_getcsr() & 0x8040u) == 0x8040u);
    _mm_setcsr(csr);
#endif
    fesetround(FE_TONEAREST);
    CHECKF(f32_bits(c[0]) == 0x3EAAAAABu, "1/3 = %08x", f32_bits(c[0]));
    CHECKF(f32_bits(c[1]) == 0x00400000u, "2^-126 / 2 = %08x", f32_bits(c[1]));
}

int main(int argc, char **argv)
{
    void *so;
    dvg_entry_fn entry;

    if (argc != 2) {
        fprintf(stderr, "usage: %s PATH/reference.so\n", argv[0]);
        return 2;
    }
    so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!so) {
        fprintf(stderr, "%s\n", dlerror());
        return 1;
    }
    *(void **)&entry = dlsym(so, DVG_ENTRY_SYMBOL);
    CHECK(entry != NULL);
    if (!entry)
        return check_done("test_reference_direct");
    D = entry();
    CHECK(D->open("", &I) == DVG_OK && I);

    test_descriptor();
    test_claims();
    test_f32();
    test_int_rounding();
    test_int_types();
    test_packed();
    test_f16_bf16();
    test_onnx_legacy();
    test_pdpd();
    test_numpy();
    test_walk();
    test_misuse();
    test_fp_environment();

    D->close(I);
    dlclose(so);
    return check_done("test_reference_direct");
}
