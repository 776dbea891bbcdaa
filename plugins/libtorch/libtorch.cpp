/* SPDX-License-Identifier: MIT */
/*
 * plugins/libtorch/libtorch.cpp: PyTorch's torch.div (ATen's at::div_out)
 * on the CPU behind the Divergence ABI.
 *
 * What PyTorch documents (Debian 12's libtorch-dev 1.13.1; torch.div):
 * div(input, other, rounding_mode=None) with numpy-style broadcasting and
 * type promotion. rounding_mode None is true division ("equivalent to
 * true division in Python (the / operator) and NumPy (np.true_divide)");
 * "trunc" rounds the quotient toward zero ("C-style integer division");
 * "floor" rounds it down ("Python-style integer division", numpy's
 * floor_divide). CPU dtypes: float16, bfloat16, float32, float64, int8,
 * int16, int32, int64, uint8 (1.13 has no uint16/32/64). Integer division
 * by zero raises "ZeroDivisionError" (a c10::Error).
 *
 * Claims: f16, bf16, f32, f64, i8, i16, i32, i64, u8 under every variant
 * whose type list has them. Floats use rounding_mode None (IEEE division);
 * integers use "trunc" for the ONNX variants, and for OpenVINO "floor" when
 * m_pythondiv is true (its default) and "trunc" when false; SONNX "floor"
 * unless int_rounding is trunc. Other dtypes: DVG_UNSUPPORTED.
 *
 * The adapter plans the shapes (plugins/common/adapter.h); numpy variants
 * hand A's and B's own shapes to torch, whose broadcasting does the work;
 * ONNX Div-1/6 legacy and OpenVINO pdpd broadcasting hand torch B reshaped
 * (no copy). Tensors are wrapped with at::from_blob (no copies) and the
 * result is written by at::div_out straight into C. A c10::Error (integer
 * x / 0) is answered DVG_FAILURE with torch's message. open_with's thread
 * count (ABI 1.1) is ATen's intra-op thread count. No deviation is
 * declared: torch leaves flush-to-zero off (torch.set_flush_denormal is
 * False by default) and integer x / 0 raises rather than giving a value.
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include "../common/adapter.h"

#ifndef LIBTORCH_VERSION
#define LIBTORCH_VERSION "unknown"
#endif

struct dvg_iut {
    char error[512];
};

namespace {

extern dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
extern dvg_descriptor descriptor;

/* The torch scalar type of a Divergence dtype; false when torch has none. */
bool scalar_type_of(uint32_t dtype, at::ScalarType *out)
{
    switch (dtype) {
    case DVG_DTYPE_F16: *out = at::kHalf; return true;
    case DVG_DTYPE_BF16: *out = at::kBFloat16; return true;
    case DVG_DTYPE_F32: *out = at::kFloat; return true;
    case DVG_DTYPE_F64: *out = at::kDouble; return true;
    case DVG_DTYPE_I8: *out = at::kChar; return true;
    case DVG_DTYPE_I16: *out = at::kShort; return true;
    case DVG_DTYPE_I32: *out = at::kInt; return true;
    case DVG_DTYPE_I64: *out = at::kLong; return true;
    case DVG_DTYPE_U8: *out = at::kByte; return true;
    }
    return false;
}

int32_t plan(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs, const dvg_tensor *a,
             const dvg_tensor *b, adapter_shapes *s)
{
    at::ScalarType t;
    int32_t st = adapter_plan(variant, attrs, a, b, s, iut->error, sizeof iut->error);
    if (st == DVG_OK && !scalar_type_of(a->dtype, &t))
        st = adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                          "torch 1.13 has no CPU dtype for dtype %u", a->dtype);
    else if (st == DVG_OK)
        st = adapter_require_claim(claims, descriptor.n_claims, variant, a->dtype, "", iut->error,
                                   sizeof iut->error);
    return st;
}

int32_t torch_open(const char *config, dvg_iut **out)
{
    if (!config || !out || config[0])
        return DVG_FAILURE; /* no configuration */
    *out = new (std::nothrow) dvg_iut();
    return *out ? DVG_OK : DVG_FAILURE;
}

/* ABI 1.1: the host's thread count as ATen's intra-op thread count
 * (process-wide: OpenMP's team size, and caffe2's pthreadpool, which
 * at::set_num_threads builds again at that size, 4 ms to 75 ms here). It
 * returns at once: certify's contexts once reported libtorch's thread-count
 * worker as hanging in open, but the worker's start (sandbox, loading
 * libtorch_cpu, open) takes 0.9 s to 2.4 s on a loaded 2-core machine with
 * and without this call, against certify's 2 s default --timeout; the load
 * was the slow part (docs/findings.md). */
int32_t torch_open_with(const char *config, const dvg_open_options *options, dvg_iut **out)
{
    if (options && options->size >= 8 && options->threads > 0) {
        try {
            at::set_num_threads((int)(options->threads > 1024 ? 1024 : options->threads));
        } catch (...) {
            return DVG_FAILURE;
        }
    }
    return torch_open(config, out);
}

int32_t torch_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                           const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                           int64_t *shape)
{
    return adapter_output_shape(plan, iut, variant, attrs, a, b, rank, shape);
}

int32_t torch_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                      const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    adapter_shapes s;
    at::ScalarType type;
    if (!iut)
        return DVG_FAILURE;
    int32_t st = plan(iut, variant, attrs, a, b, &s);
    if (st == DVG_OK)
        st = adapter_check_tensors(&s, a, b, c, iut->error, sizeof iut->error);
    if (st != DVG_OK || s.count == 0)
        return st;
    scalar_type_of(a->dtype, &type);
    c10::optional<c10::string_view> mode; /* None: true division */
    if (!at::isFloatingType(type))
        mode = adapter_floors(variant, attrs) ? "floor" : "trunc";
    try {
        at::TensorOptions opt = at::TensorOptions().dtype(type).device(at::kCPU);
        at::Tensor ta = at::from_blob(const_cast<void *>(a->data),
                                      at::IntArrayRef(s.a, s.a_rank), opt);
        at::Tensor tb = at::from_blob(const_cast<void *>(b->data),
                                      at::IntArrayRef(s.b, s.b_rank), opt);
        at::Tensor tc = at::from_blob(c->data, at::IntArrayRef(s.out, s.rank), opt);
        at::div_out(tc, ta, tb, mode);
    } catch (const c10::Error &e) {
        return adapter_fail(iut->error, sizeof iut->error, DVG_FAILURE, "torch: %s",
                            e.what_without_backtrace());
    } catch (const std::exception &e) {
        return adapter_fail(iut->error, sizeof iut->error, DVG_FAILURE, "torch: %s", e.what());
    }
    return DVG_OK;
}

const char *torch_last_error(dvg_iut *iut)
{
    return iut ? iut->error : "no instance";
}

void torch_close(dvg_iut *iut)
{
    delete iut;
}

dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
dvg_descriptor descriptor = {
    sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR,
    "libtorch", LIBTORCH_VERSION,
    0, 0, claims,
    0, 0, /* no deviations */
    torch_open, torch_output_shape, torch_compute, torch_last_error, torch_close,
    DVG_CAP_THREADS, 0, 0, nullptr, torch_open_with, /* ABI 1.1: honours the thread count */
};

} // namespace

extern "C" __attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    if (!descriptor.n_claims) {
        uint32_t dtypes[DVG_VARIANT_COUNT] = {0};
        for (uint32_t v = 1; v < DVG_VARIANT_COUNT; v++)
            dtypes[v] = ADAPTER_FLOATS | ADAPTER_DT(DVG_DTYPE_I8) | ADAPTER_DT(DVG_DTYPE_I16) |
                        ADAPTER_DT(DVG_DTYPE_I32) | ADAPTER_DT(DVG_DTYPE_I64) |
                        ADAPTER_DT(DVG_DTYPE_U8);
        descriptor.n_claims =
            adapter_build_claims(dtypes, claims, sizeof claims / sizeof claims[0]);
    }
    return &descriptor;
}
