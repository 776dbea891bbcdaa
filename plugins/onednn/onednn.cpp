/* SPDX-License-Identifier: MIT */
/*
 * plugins/onednn/onednn.cpp: oneDNN's binary primitive with
 * algorithm::binary_div behind the Divergence ABI.
 *
 * What oneDNN documents (Debian 12's libdnnl-dev 2.6.3; dev_guide_binary
 * and dev_guide_data_types of v2.x): dst = src0 / src1 element-wise; all
 * tensors have the same number of dimensions (1 to DNNL_MAX_NDIMS = 12),
 * and a dimension of 1 in either source broadcasts (since 2.4); data types
 * f32, bf16, f16, s8, u8 (s32 is a oneDNN data type the binary primitive
 * accepts as well); integer sources are computed in f32 and the result is
 * converted back with saturation, rounding to nearest (the data-types
 * guide, in outline).
 *
 * Claims: f32, bf16, f16 under every variant whose type list has them;
 * s8 (i8), u8, s32 (i32) under the ONNX variants, whose integer rule
 * (truncation) is one rule; the OpenVINO and SONNX integer rules are
 * chosen by an attribute that oneDNN has no way to follow, so those pairs
 * are not claimed. f16 is documented, but the CPU engine of 2.6 creates an
 * f16 primitive only on processors with AVX512-FP16; elsewhere the adapter
 * answers DVG_UNSUPPORTED and the certificate says so.
 *
 * The adapter plans the shapes (plugins/common/adapter.h), pads both views
 * to the output rank (rank 0 becomes (1)), describes the host's buffers as
 * dense row-major memory (no copies) and runs the primitive on a CPU
 * stream, with open_with's thread count (ABI 1.1) as the OpenMP team size
 * (set before each call: it is the calling thread's). The version string names the instruction set oneDNN dispatches
 * to (ONEDNN_MAX_CPU_ISA lowers it), since bf16 and f16 results depend on
 * it. No deviation is declared: oneDNN documents no flush-to-zero for this
 * primitive (the bf16 flush on AVX512-BF16 processors is the instruction's,
 * undocumented by oneDNN: a finding), and no single value for integer x / 0.
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <new>

#include <dnnl.hpp>
#include <omp.h>

#include "../common/adapter.h"

struct dvg_iut {
    dnnl::engine engine;
    dnnl::stream stream;
    int threads; /* open_with's count; 0: OpenMP's own (OMP_NUM_THREADS, or the CPUs) */
    char error[512];
};

namespace {

extern dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
extern dvg_descriptor descriptor;

/* The oneDNN data type of a Divergence dtype, or undef. */
dnnl::memory::data_type data_type_of(uint32_t dtype)
{
    using dt = dnnl::memory::data_type;
    switch (dtype) {
    case DVG_DTYPE_F32: return dt::f32;
    case DVG_DTYPE_BF16: return dt::bf16;
    case DVG_DTYPE_F16: return dt::f16;
    case DVG_DTYPE_I8: return dt::s8;
    case DVG_DTYPE_U8: return dt::u8;
    case DVG_DTYPE_I32: return dt::s32;
    }
    return dt::undef;
}

/* A dense row-major descriptor of `rank` dims (rank 0: one element). */
dnnl::memory::desc dense(const int64_t *dims, uint32_t rank, dnnl::memory::data_type type)
{
    dnnl::memory::dims d, strides;
    if (rank == 0) {
        d.push_back(1);
        strides.push_back(1);
        return dnnl::memory::desc(d, type, strides);
    }
    d.assign(dims, dims + rank);
    strides.resize(rank);
    int64_t s = 1;
    for (uint32_t k = rank; k-- > 0;) {
        strides[k] = s;
        s *= dims[k] > 0 ? dims[k] : 1;
    }
    return dnnl::memory::desc(d, type, strides);
}

int32_t plan(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs, const dvg_tensor *a,
             const dvg_tensor *b, adapter_shapes *s)
{
    int32_t st = adapter_plan(variant, attrs, a, b, s, iut->error, sizeof iut->error);
    if (st != DVG_OK)
        return st;
    if (data_type_of(a->dtype) == dnnl::memory::data_type::undef)
        return adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                            "oneDNN has no data type for dtype %u", a->dtype);
    if (int32_t unclaimed = adapter_require_claim(claims, descriptor.n_claims, variant, a->dtype,
                                                  "", iut->error, sizeof iut->error))
        return unclaimed;
    adapter_pad(s);
    return DVG_OK;
}

/* Opens an instance whose primitives run on `threads` OpenMP threads (0:
 * OpenMP's default). */
int32_t dnnl_open_threads(const char *config, uint32_t threads, dvg_iut **out)
{
    if (!config || !out || config[0])
        return DVG_FAILURE; /* no configuration */
    try {
        dvg_iut *iut = new dvg_iut();
        iut->threads = (int)(threads > 1024 ? 1024 : threads);
        iut->engine = dnnl::engine(dnnl::engine::kind::cpu, 0);
        iut->stream = dnnl::stream(iut->engine);
        *out = iut;
        return DVG_OK;
    } catch (...) {
        return DVG_FAILURE;
    }
}

int32_t dnnl_open(const char *config, dvg_iut **out)
{
    return dnnl_open_threads(config, 0, out);
}

/* ABI 1.1: the host's thread count as the OpenMP team size of this build's
 * runtime (DNNL_CPU_RUNTIME is OMP in Debian's 2.6: oneDNN's parallel
 * sections take omp_get_max_threads() threads). */
int32_t dnnl_open_with(const char *config, const dvg_open_options *options, dvg_iut **out)
{
    return dnnl_open_threads(config, options && options->size >= 8 ? options->threads : 0, out);
}

int32_t dnnl_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                          const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                          int64_t *shape)
{
    return adapter_output_shape(plan, iut, variant, attrs, a, b, rank, shape);
}

int32_t dnnl_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs, const dvg_tensor *a,
                     const dvg_tensor *b, dvg_tensor *c)
{
    adapter_shapes s;
    if (!iut)
        return DVG_FAILURE;
    int32_t st = plan(iut, variant, attrs, a, b, &s);
    if (st == DVG_OK)
        st = adapter_check_tensors(&s, a, b, c, iut->error, sizeof iut->error);
    if (st != DVG_OK || s.count == 0)
        return st;
    const dnnl::memory::data_type type = data_type_of(a->dtype);
    dnnl::binary::primitive_desc pd;
    /* OpenMP's thread count is the calling thread's: set on every call,
     * from whichever thread the host calls. */
    if (iut->threads)
        omp_set_num_threads(iut->threads);
    try {
        dnnl::memory::desc ma = dense(s.a, s.rank, type), mb = dense(s.b, s.rank, type),
                           mc = dense(s.out, s.rank, type);
        dnnl::binary::desc d(dnnl::algorithm::binary_div, ma, mb, mc);
        pd = dnnl::binary::primitive_desc(d, iut->engine);
    } catch (const dnnl::error &e) {
        return adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                            "oneDNN creates no binary_div primitive for this case (%s, "
                            "status %d)", e.what(), (int)e.status);
    }
    try {
        dnnl::binary prim(pd);
        dnnl::memory ma(pd.src0_desc(), iut->engine, const_cast<void *>(a->data));
        dnnl::memory mb(pd.src1_desc(), iut->engine, const_cast<void *>(b->data));
        dnnl::memory mc(pd.dst_desc(), iut->engine, c->data);
        prim.execute(iut->stream, {{DNNL_ARG_SRC_0, ma}, {DNNL_ARG_SRC_1, mb}, {DNNL_ARG_DST, mc}});
        iut->stream.wait();
    } catch (const dnnl::error &e) {
        return adapter_fail(iut->error, sizeof iut->error, DVG_FAILURE, "oneDNN: %s (status %d)",
                            e.what(), (int)e.status);
    } catch (const std::exception &e) {
        return adapter_fail(iut->error, sizeof iut->error, DVG_FAILURE, "%s", e.what());
    }
    return DVG_OK;
}

/* The instruction set oneDNN dispatches to: its results depend on it
 * (docs/findings.md), so the version string names it. */
const char *isa_name(dnnl_cpu_isa_t isa)
{
    switch (isa) {
    case dnnl_cpu_isa_sse41: return "sse41";
    case dnnl_cpu_isa_avx: return "avx";
    case dnnl_cpu_isa_avx2: return "avx2";
    case dnnl_cpu_isa_avx2_vnni: return "avx2_vnni";
    case dnnl_cpu_isa_avx512_core: return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni: return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16: return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx: return "avx512_core_amx";
    default: return "other";
    }
}

const char *dnnl_last_error(dvg_iut *iut)
{
    return iut ? iut->error : "no instance";
}

void dnnl_close(dvg_iut *iut)
{
    delete iut;
}

dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
char version[96];
dvg_descriptor descriptor = {
    sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR,
    "onednn", version,
    0, 0, claims,
    0, 0, /* no deviations */
    dnnl_open, dnnl_output_shape, dnnl_compute, dnnl_last_error, dnnl_close,
    DVG_CAP_THREADS, 0, 0, nullptr, dnnl_open_with, /* ABI 1.1: honours the thread count */
};

} // namespace

extern "C" __attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    if (!descriptor.n_claims) {
        const uint32_t floats = ADAPTER_DT(DVG_DTYPE_F32) | ADAPTER_DT(DVG_DTYPE_BF16) |
                                ADAPTER_DT(DVG_DTYPE_F16);
        const uint32_t ints = ADAPTER_DT(DVG_DTYPE_I8) | ADAPTER_DT(DVG_DTYPE_U8) |
                              ADAPTER_DT(DVG_DTYPE_I32);
        uint32_t dtypes[DVG_VARIANT_COUNT] = {0};
        for (uint32_t v = 1; v < DVG_VARIANT_COUNT; v++)
            dtypes[v] = floats;
        for (uint32_t v : {DVG_VARIANT_ONNX_DIV_6, DVG_VARIANT_ONNX_DIV_7, DVG_VARIANT_ONNX_DIV_13,
                           DVG_VARIANT_ONNX_DIV_14})
            dtypes[v] |= ints;
        const dnnl_version_t *v = dnnl_version();
        std::snprintf(version, sizeof version, "%d.%d.%d (isa %s)", v->major, v->minor, v->patch,
                      isa_name(dnnl_get_effective_cpu_isa()));
        descriptor.n_claims =
            adapter_build_claims(dtypes, claims, sizeof claims / sizeof claims[0]);
    }
    return &descriptor;
}
