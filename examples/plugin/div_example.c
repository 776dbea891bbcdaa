/* SPDX-License-Identifier: MIT */
/*
 * This file contains a complete Divergence plugin, the template a vendor
 * copies: it wraps a division kernel (here a plain loop) behind the one
 * header of the SDK, <divergence/iut.h>, and claims ONNX Div-14 for f32
 * and i32. It builds with find_package(Divergence) (CMakeLists.txt) or
 * pkg-config (Makefile) and is certified with
 *
 *     divergence certify --plugin ./div_example.so
 *
 * What a kernel must do, in short: output_shape and compute apply
 * ONNX's multidirectional (NumPy) broadcasting; compute writes every
 * element of C and nothing else, reads A and B only (they may sit at any
 * byte offset: load and store through memcpy), and never crashes: integer
 * x / 0 and INT_MIN / -1 are unspecified (any value conforms), so they are
 * answered without dividing. Only dvg_iut_descriptor is exported (the
 * build hides everything else). The descriptor's capabilities (ABI 1.1)
 * say which calling patterns the kernel is safe under: declare only what
 * holds, the harness checks each one.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <divergence/iut.h>

#define EXAMPLE_EXPORT __attribute__((visibility("default")))

struct dvg_iut {
    char error[128];
};

static const dvg_claim claims[] = {
    {DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32},
    {DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I32},
};

static int32_t example_open(const char *config, dvg_iut **out)
{
    (void)config;
    dvg_iut *iut = calloc(1, sizeof *iut);
    if (!iut)
        return DVG_FAILURE;
    *out = iut;
    return DVG_OK;
}

static void example_close(dvg_iut *iut)
{
    free(iut);
}

static const char *example_last_error(dvg_iut *iut)
{
    return iut->error;
}

/* NumPy broadcasting of A and B: the output's rank and shape; 0, or -1
 * when a pair of dimensions is neither equal nor 1. */
static int broadcast_shape(const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                           int64_t *shape)
{
    uint32_t r = a->rank > b->rank ? a->rank : b->rank;
    for (uint32_t i = 0; i < r; i++) {
        int64_t da = i < r - a->rank ? 1 : a->shape[i - (r - a->rank)];
        int64_t db = i < r - b->rank ? 1 : b->shape[i - (r - b->rank)];
        if (da != db && da != 1 && db != 1)
            return -1;
        shape[i] = da == 1 ? db : da;
    }
    *rank = r;
    return 0;
}

/* Checks the call: the variant and dtype claimed, A and B alike. */
static int32_t check_call(dvg_iut *iut, uint32_t variant, const dvg_tensor *a,
                          const dvg_tensor *b)
{
    if (variant != DVG_VARIANT_ONNX_DIV_14 ||
        (a->dtype != DVG_DTYPE_F32 && a->dtype != DVG_DTYPE_I32)) {
        strcpy(iut->error, "only onnx-div-14 f32 and i32");
        return DVG_UNSUPPORTED;
    }
    if (b->dtype != a->dtype || a->rank > DVG_MAX_RANK || b->rank > DVG_MAX_RANK) {
        strcpy(iut->error, "A and B differ in dtype, or a rank is above 8");
        return DVG_INVALID_INPUT;
    }
    return DVG_OK;
}

static int32_t example_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                                    const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                                    int64_t *shape)
{
    (void)attrs;
    int32_t rc = check_call(iut, variant, a, b);
    if (rc != DVG_OK)
        return rc;
    if (broadcast_shape(a, b, rank, shape)) {
        strcpy(iut->error, "shapes do not broadcast");
        return DVG_INVALID_INPUT;
    }
    return DVG_OK;
}

/* The kernel: one element. */
static void div_f32(const unsigned char *pa, const unsigned char *pb, unsigned char *pc)
{
    float x, y, z;
    memcpy(&x, pa, 4);
    memcpy(&y, pb, 4);
    z = x / y;
    memcpy(pc, &z, 4);
}

static void div_i32(const unsigned char *pa, const unsigned char *pb, unsigned char *pc)
{
    int32_t x, y, z;
    memcpy(&x, pa, 4);
    memcpy(&y, pb, 4);
    if (y == 0)
        z = 0; /* unspecified: any value */
    else if (y == -1)
        z = (int32_t)(0u - (uint32_t)x); /* INT_MIN / -1 wraps */
    else
        z = x / y; /* C truncates toward zero, as ONNX does */
    memcpy(pc, &z, 4);
}

static int32_t example_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                               const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    int64_t shape[DVG_MAX_RANK], sa[DVG_MAX_RANK], sb[DVG_MAX_RANK], idx[DVG_MAX_RANK];
    uint32_t r;
    int32_t rc = example_output_shape(iut, variant, attrs, a, b, &r, shape);
    if (rc != DVG_OK)
        return rc;
    /* Element strides of A and B over the output's dimensions; 0 where a
     * dimension of size 1 (or a missing leading one) is broadcast. */
    int64_t stride_a = 1, stride_b = 1, n = 1;
    for (uint32_t i = r; i-- > 0;) {
        int64_t da = i < r - a->rank ? 1 : a->shape[i - (r - a->rank)];
        int64_t db = i < r - b->rank ? 1 : b->shape[i - (r - b->rank)];
        sa[i] = da == 1 ? 0 : stride_a;
        sb[i] = db == 1 ? 0 : stride_b;
        stride_a *= da;
        stride_b *= db;
        idx[i] = 0;
        n *= shape[i];
    }
    void (*one)(const unsigned char *, const unsigned char *, unsigned char *) =
        a->dtype == DVG_DTYPE_F32 ? div_f32 : div_i32;
    const unsigned char *pa = a->data, *pb = b->data;
    unsigned char *pc = c->data;
    int64_t oa = 0, ob = 0;
    for (int64_t k = 0; k < n; k++) {
        one(pa + 4 * oa, pb + 4 * ob, pc + 4 * k);
        /* The next output index, last dimension fastest. */
        for (uint32_t i = r; i-- > 0;) {
            oa += sa[i];
            ob += sb[i];
            if (++idx[i] < shape[i])
                break;
            oa -= sa[i] * shape[i];
            ob -= sb[i] * shape[i];
            idx[i] = 0;
        }
    }
    return DVG_OK;
}

static const dvg_descriptor descriptor = {
    .size = sizeof(dvg_descriptor),
    .abi_major = DVG_ABI_MAJOR,
    .abi_minor = DVG_ABI_MINOR,
    .name = "example-div",
    .version = "1.0.0",
    .n_claims = sizeof claims / sizeof claims[0],
    .claims = claims,
    .open = example_open,
    .output_shape = example_output_shape,
    .compute = example_compute,
    .last_error = example_last_error,
    .close = example_close,
    /* ABI 1.1: what the harness may do with it, and holds it to. The kernel
     * keeps no state between calls (two instances, or one from two
     * threads, at once) and reads A[i] and B[i] before it writes C[i] (C
     * may be A's or B's buffer). It runs on the caller's thread alone, so
     * it declares no thread count (DVG_CAP_THREADS) and no open_with. */
    .capabilities = DVG_CAP_INSTANCES_CONCURRENT | DVG_CAP_INSTANCE_CONCURRENT |
                    DVG_CAP_IN_PLACE_A | DVG_CAP_IN_PLACE_B,
};

EXAMPLE_EXPORT const dvg_descriptor *dvg_iut_descriptor(void)
{
    return &descriptor;
}
