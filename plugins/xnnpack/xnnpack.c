/* SPDX-License-Identifier: MIT */
/*
 * plugins/xnnpack/xnnpack.c: XNNPACK's Divide operator behind the
 * Divergence ABI.
 *
 * What XNNPACK documents (Debian 12's libxnnpack-dev, git 2022-02-16,
 * /usr/include/xnnpack.h): one division operator, xnn_create_divide_nd_f32
 * / xnn_setup_divide_nd_f32, f32 only (this version has no f16 divide),
 * numpy broadcasting of both inputs, at most XNN_MAX_TENSOR_DIMS (6)
 * dimensions, the result clamped to [output_min, output_max], and input
 * arrays that XNNPACK may read up to XNN_EXTRA_BYTES past their end.
 *
 * Claims: f32 under every variant. The element rule of every variant is
 * IEEE division for f32; the shape rules that are not numpy broadcasting
 * (ONNX Div-1/6 legacy, OpenVINO pdpd, equal shapes) are a reshape of B
 * (plugins/common/adapter.h), so XNNPACK's own broadcasting does the work.
 * Every other dtype is DVG_UNSUPPORTED.
 *
 * The adapter
 *  - creates one operator with output_min = -inf, output_max = +inf (no
 *    clamping asked for) and runs it without a thread pool, or with a
 *    pthreadpool of open_with's thread count (ABI 1.1) when that is > 1;
 *  - passes rank > 6 to XNNPACK as it is: XNNPACK refuses it, the adapter
 *    answers DVG_UNSUPPORTED, and the certificate shows it;
 *  - copies A and B into buffers with XNN_EXTRA_BYTES of slack, as the
 *    header asks of every caller (the host's buffers end flush against a
 *    guard page);
 *  - takes no configuration.
 * Declared deviations: flush-to-zero and denormals-are-zero. xnn_run_operator
 * runs every operator with PTHREADPOOL_FLAG_DISABLE_DENORMALS (XNNPACK's
 * src/operator-run.c), which pthreadpool.h documents as "disable support
 * for denormalized numbers ... for the duration of the computation" (on
 * x86: MXCSR FTZ and DAZ, restored afterwards), in each of the pool's
 * threads, and also without a thread pool.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthreadpool.h>
#include <xnnpack.h>

#include "../common/adapter.h"

#ifndef XNNPACK_VERSION
#define XNNPACK_VERSION "unknown"
#endif

static dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
static dvg_descriptor descriptor;

struct dvg_iut {
    xnn_operator_t op;
    pthreadpool_t pool; /* open_with's threads (> 1); NULL: the calling thread */
    void *pad[2];       /* padded copies of A and B */
    size_t pad_cap[2];
    char error[256];
};

static void xnn_close(dvg_iut *iut)
{
    if (!iut)
        return;
    if (iut->op)
        xnn_delete_operator(iut->op);
    if (iut->pool)
        pthreadpool_destroy(iut->pool);
    free(iut->pad[0]);
    free(iut->pad[1]);
    free(iut);
}

/* Opens an instance whose operator runs on a pthreadpool of `threads`
 * threads (the calling thread and threads - 1 workers); 0 or 1: on the
 * calling thread, without a pool. */
static int32_t xnn_open_threads(const char *config, uint32_t threads, dvg_iut **out)
{
    dvg_iut *iut;
    if (!config || !out)
        return DVG_FAILURE;
    if (config[0])
        return DVG_FAILURE; /* no configuration */
    if (xnn_initialize(NULL) != xnn_status_success)
        return DVG_FAILURE;
    iut = calloc(1, sizeof *iut);
    if (!iut)
        return DVG_FAILURE;
    if ((threads > 1 && !(iut->pool = pthreadpool_create(threads > 1024 ? 1024 : threads))) ||
        xnn_create_divide_nd_f32(-INFINITY, INFINITY, 0, &iut->op) != xnn_status_success) {
        xnn_close(iut);
        return DVG_FAILURE;
    }
    *out = iut;
    return DVG_OK;
}

static int32_t xnn_open(const char *config, dvg_iut **out)
{
    return xnn_open_threads(config, 0, out);
}

/* ABI 1.1: the host's thread count as the pthreadpool's. */
static int32_t xnn_open_with(const char *config, const dvg_open_options *options, dvg_iut **out)
{
    return xnn_open_threads(config, options && options->size >= 8 ? options->threads : 0, out);
}

static int32_t plan(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs, const dvg_tensor *a,
                    const dvg_tensor *b, adapter_shapes *s)
{
    int32_t st = adapter_plan(variant, attrs, a, b, s, iut->error, sizeof iut->error);
    if (st != DVG_OK)
        return st;
    if (a->dtype != DVG_DTYPE_F32 || b->dtype != DVG_DTYPE_F32)
        return adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                            "XNNPACK divides f32 only (dtype %u)", a->dtype);
    return adapter_require_claim(claims, descriptor.n_claims, variant, a->dtype, "", iut->error,
                                 sizeof iut->error);
}

static int32_t xnn_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                                const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                                int64_t *shape)
{
    return adapter_output_shape(plan, iut, variant, attrs, a, b, rank, shape);
}

/* A copy of n bytes of `src` with XNN_EXTRA_BYTES of slack after it. */
static const float *padded(dvg_iut *iut, int i, const void *src, size_t n)
{
    size_t need = n + XNN_EXTRA_BYTES;
    if (need > iut->pad_cap[i]) {
        void *p = realloc(iut->pad[i], need);
        if (!p)
            return NULL;
        iut->pad[i] = p;
        iut->pad_cap[i] = need;
    }
    if (n)
        memcpy(iut->pad[i], src, n);
    memset((char *)iut->pad[i] + n, 0, XNN_EXTRA_BYTES);
    return iut->pad[i];
}

static int32_t xnn_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                           const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    adapter_shapes s;
    size_t da[DVG_MAX_RANK], db[DVG_MAX_RANK];
    const float *pa, *pb;
    enum xnn_status xs;
    int32_t st;
    if (!iut)
        return DVG_FAILURE;
    st = plan(iut, variant, attrs, a, b, &s);
    if (st != DVG_OK)
        return st;
    st = adapter_check_tensors(&s, a, b, c, iut->error, sizeof iut->error);
    if (st != DVG_OK)
        return st;
    if (s.a_rank > XNN_MAX_TENSOR_DIMS || s.b_rank > XNN_MAX_TENSOR_DIMS)
        return adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                            "XNNPACK takes at most XNN_MAX_TENSOR_DIMS = %d dimensions "
                            "(A has %u, B %u)", XNN_MAX_TENSOR_DIMS, s.a_rank, s.b_rank);
    if (s.count == 0)
        return DVG_OK;
    for (uint32_t k = 0; k < s.a_rank; k++)
        da[k] = (size_t)s.a[k];
    for (uint32_t k = 0; k < s.b_rank; k++)
        db[k] = (size_t)s.b[k];
    pa = padded(iut, 0, a->data, (size_t)a->nbytes);
    pb = padded(iut, 1, b->data, (size_t)b->nbytes);
    if (!pa || !pb)
        return adapter_fail(iut->error, sizeof iut->error, DVG_FAILURE, "out of memory");
    xs = xnn_setup_divide_nd_f32(iut->op, s.a_rank, da, s.b_rank, db, pa, pb, c->data,
                                 iut->pool);
    if (xs != xnn_status_success)
        return adapter_fail(iut->error, sizeof iut->error, DVG_FAILURE,
                            "xnn_setup_divide_nd_f32: status %d", (int)xs);
    xs = xnn_run_operator(iut->op, iut->pool);
    if (xs != xnn_status_success)
        return adapter_fail(iut->error, sizeof iut->error, DVG_FAILURE,
                            "xnn_run_operator: status %d", (int)xs);
    return DVG_OK;
}

static const char *xnn_last_error(dvg_iut *iut)
{
    return iut ? iut->error : "no instance";
}

static dvg_descriptor descriptor = {
    sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR,
    "xnnpack", XNNPACK_VERSION,
    0, 0, claims,
    /* PTHREADPOOL_FLAG_DISABLE_DENORMALS: FTZ and DAZ during every run */
    DVG_DEV_FLUSH_SUBNORMAL_OUTPUT | DVG_DEV_SUBNORMAL_INPUT_ZERO, 0,
    xnn_open, xnn_output_shape, xnn_compute, xnn_last_error, xnn_close,
    DVG_CAP_THREADS, 0, 0, NULL, xnn_open_with, /* ABI 1.1: honours the thread count */
};

__attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    if (!descriptor.n_claims) {
        uint32_t dtypes[DVG_VARIANT_COUNT];
        for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
            dtypes[v] = ADAPTER_DT(DVG_DTYPE_F32);
        descriptor.n_claims = adapter_build_claims(dtypes, claims, sizeof claims / sizeof claims[0]);
    }
    return &descriptor;
}
