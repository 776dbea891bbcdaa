/* SPDX-License-Identifier: MIT */
/*
 * plugins/eigen/eigen.cpp: Eigen's coefficient-wise quotient behind the
 * Divergence ABI.
 *
 * What Eigen documents (Debian 12's libeigen3-dev 3.4.0): operator/ of two
 * arrays (or tensors) of the same scalar type is the coefficient-wise
 * quotient, scalar_quotient_op, i.e. the scalar type's own `a / b`; the
 * Tensor module (unsupported/Eigen/CXX11/Tensor) adds broadcast(), which
 * repeats a tensor along the dimensions given. Scalar types: float, double,
 * Eigen::half (binary16), Eigen::bfloat16, and every built-in integer type.
 *
 * Claims: f16, bf16, f32, f64 under every variant whose type list has them;
 * i8, i16, i32, i64, u8, u16, u32, u64 under the ONNX variants, whose
 * integer rule (truncation, which C++'s `/` is) is one rule. The OpenVINO
 * and SONNX integer rules are chosen by an attribute (floor by default)
 * that Eigen's quotient has no way to follow, so those pairs are not
 * claimed. i4 and u4 have no Eigen scalar type: DVG_UNSUPPORTED.
 *
 * The adapter plans the shapes (plugins/common/adapter.h), pads both views
 * to rank 8 (leading 1s), maps the host's buffers as row-major TensorMaps
 * (no copies), and evaluates C = A.broadcast(ra) / B.broadcast(rb) (or
 * C = A / B when no operand is broadcast) on the calling thread, or, with
 * open_with's thread count (ABI 1.1) above 1, on a ThreadPoolDevice of
 * that many threads (Eigen's tiled, multi-threaded executor). Built
 * with the project's flags (no -march: the x86-64 baseline, SSE2 packets).
 * No deviation is declared: Eigen documents none for the quotient (integer
 * x / 0 is C++'s, undefined behaviour).
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#define EIGEN_USE_THREADS /* the Tensor module's ThreadPoolDevice */
#include <Eigen/Core>
#include <unsupported/Eigen/CXX11/Tensor>

#include "../common/adapter.h"

#define EIGEN_ADAPTER_RANK 8

struct dvg_iut {
    /* open_with's threads (> 1): a pool of that many and a device on it;
     * else nullptr: the calling thread. */
    Eigen::ThreadPool *pool;
    Eigen::ThreadPoolDevice *device;
    char error[256];
};

namespace {

extern dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
extern dvg_descriptor descriptor;

typedef Eigen::array<Eigen::Index, EIGEN_ADAPTER_RANK> dims8;

/* The view's dims left-padded with 1s to rank 8. */
dims8 pad8(const int64_t *d, uint32_t rank)
{
    dims8 out;
    for (uint32_t k = 0; k < EIGEN_ADAPTER_RANK; k++)
        out[k] = k < EIGEN_ADAPTER_RANK - rank ? 1 : d[k - (EIGEN_ADAPTER_RANK - rank)];
    return out;
}

template <typename T>
void divide(dvg_iut *iut, const adapter_shapes &s, const void *a, const void *b, void *c)
{
    typedef Eigen::Tensor<T, EIGEN_ADAPTER_RANK, Eigen::RowMajor> tensor;
    const dims8 da = pad8(s.a, s.a_rank), db = pad8(s.b, s.b_rank), dc = pad8(s.out, s.rank);
    Eigen::TensorMap<const tensor> A(static_cast<const T *>(a), da);
    Eigen::TensorMap<const tensor> B(static_cast<const T *>(b), db);
    Eigen::TensorMap<tensor> C(static_cast<T *>(c), dc);
    dims8 ra, rb;
    bool same = true;
    for (int k = 0; k < EIGEN_ADAPTER_RANK; k++) {
        ra[k] = da[k] == dc[k] ? 1 : dc[k]; /* da[k] is 1 here */
        rb[k] = db[k] == dc[k] ? 1 : dc[k];
        same = same && ra[k] == 1 && rb[k] == 1;
    }
    if (same && iut->device)
        C.device(*iut->device) = A / B;
    else if (same)
        C = A / B;
    else if (iut->device)
        C.device(*iut->device) = A.broadcast(ra) / B.broadcast(rb);
    else
        C = A.broadcast(ra) / B.broadcast(rb);
}

typedef void divide_fn(dvg_iut *, const adapter_shapes &, const void *, const void *, void *);

divide_fn *divide_for(uint32_t dtype)
{
    switch (dtype) {
    case DVG_DTYPE_F16: return divide<Eigen::half>;
    case DVG_DTYPE_BF16: return divide<Eigen::bfloat16>;
    case DVG_DTYPE_F32: return divide<float>;
    case DVG_DTYPE_F64: return divide<double>;
    case DVG_DTYPE_I8: return divide<int8_t>;
    case DVG_DTYPE_I16: return divide<int16_t>;
    case DVG_DTYPE_I32: return divide<int32_t>;
    case DVG_DTYPE_I64: return divide<int64_t>;
    case DVG_DTYPE_U8: return divide<uint8_t>;
    case DVG_DTYPE_U16: return divide<uint16_t>;
    case DVG_DTYPE_U32: return divide<uint32_t>;
    case DVG_DTYPE_U64: return divide<uint64_t>;
    }
    return nullptr;
}

int32_t plan(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs, const dvg_tensor *a,
             const dvg_tensor *b, adapter_shapes *s)
{
    int32_t st = adapter_plan(variant, attrs, a, b, s, iut->error, sizeof iut->error);
    if (st == DVG_OK && !divide_for(a->dtype))
        st = adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                          "Eigen has no scalar type for dtype %u", a->dtype);
    else if (st == DVG_OK)
        st = adapter_require_claim(claims, descriptor.n_claims, variant, a->dtype,
                                   ": Eigen's integer quotient truncates, the variant's rule is "
                                   "an attribute", iut->error, sizeof iut->error);
    return st;
}

void eigen_close(dvg_iut *iut)
{
    if (!iut)
        return;
    delete iut->device;
    delete iut->pool;
    delete iut;
}

/* Opens an instance that evaluates on a ThreadPoolDevice of `threads`
 * threads (the caller waits for them); 0 or 1: on the calling thread. */
int32_t eigen_open_threads(const char *config, uint32_t threads, dvg_iut **out)
{
    if (!config || !out || config[0])
        return DVG_FAILURE; /* no configuration */
    dvg_iut *iut = new (std::nothrow) dvg_iut();
    if (!iut)
        return DVG_FAILURE;
    if (threads > 1) {
        int n = (int)(threads > 1024 ? 1024 : threads);
        try { /* std::thread throws when no thread can be had */
            iut->pool = new Eigen::ThreadPool(n);
            iut->device = new Eigen::ThreadPoolDevice(iut->pool, n);
        } catch (...) {
            iut->device = nullptr;
        }
        if (!iut->device) {
            eigen_close(iut);
            return DVG_FAILURE;
        }
    }
    *out = iut;
    return DVG_OK;
}

int32_t eigen_open(const char *config, dvg_iut **out)
{
    return eigen_open_threads(config, 0, out);
}

/* ABI 1.1: the host's thread count as the ThreadPoolDevice's. */
int32_t eigen_open_with(const char *config, const dvg_open_options *options, dvg_iut **out)
{
    return eigen_open_threads(config, options && options->size >= 8 ? options->threads : 0, out);
}

int32_t eigen_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                           const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                           int64_t *shape)
{
    return adapter_output_shape(plan, iut, variant, attrs, a, b, rank, shape);
}

int32_t eigen_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                      const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    adapter_shapes s;
    if (!iut)
        return DVG_FAILURE;
    int32_t st = plan(iut, variant, attrs, a, b, &s);
    if (st == DVG_OK)
        st = adapter_check_tensors(&s, a, b, c, iut->error, sizeof iut->error);
    if (st != DVG_OK || s.count == 0)
        return st;
    divide_for(a->dtype)(iut, s, a->data, b->data, c->data);
    return DVG_OK;
}

const char *eigen_last_error(dvg_iut *iut)
{
    return iut ? iut->error : "no instance";
}

#define STR_(x) #x
#define STR(x) STR_(x)

dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
dvg_descriptor descriptor = {
    sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR,
    "eigen", STR(EIGEN_WORLD_VERSION) "." STR(EIGEN_MAJOR_VERSION) "." STR(EIGEN_MINOR_VERSION),
    0, 0, claims,
    0, 0, /* no deviations */
    eigen_open, eigen_output_shape, eigen_compute, eigen_last_error, eigen_close,
    DVG_CAP_THREADS, 0, 0, nullptr, eigen_open_with, /* ABI 1.1: honours the thread count */
};

} // namespace

extern "C" __attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    if (!descriptor.n_claims) {
        const uint32_t ints = ADAPTER_INTS & ~(ADAPTER_DT(DVG_DTYPE_I4) | ADAPTER_DT(DVG_DTYPE_U4));
        uint32_t dtypes[DVG_VARIANT_COUNT] = {0};
        for (uint32_t v = 1; v < DVG_VARIANT_COUNT; v++)
            dtypes[v] = ADAPTER_FLOATS;
        for (uint32_t v : {DVG_VARIANT_ONNX_DIV_6, DVG_VARIANT_ONNX_DIV_7, DVG_VARIANT_ONNX_DIV_13,
                           DVG_VARIANT_ONNX_DIV_14})
            dtypes[v] |= ints;
        descriptor.n_claims =
            adapter_build_claims(dtypes, claims, sizeof claims / sizeof claims[0]);
    }
    return &descriptor;
}
