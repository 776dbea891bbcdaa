/* SPDX-License-Identifier: MIT */
/*
 * plugins/onnxruntime/onnxruntime.c: ONNX Runtime's CPU Div kernel, through
 * its C API, behind the Divergence ABI.
 *
 * What ONNX Runtime documents (1.29.0, from npm: the library of
 * onnxruntime-node, the headers of com.github.asus4.onnxruntime; see
 * scripts/fetch-onnxruntime.sh): it runs ONNX models; its CPU execution
 * provider implements Div from opset 7 on (docs/OperatorKernels.md). A
 * Div-1 or Div-6 model - the legacy `broadcast` attribute - does not load
 * ("Could not find an implementation for Div(6)"), and neither does a
 * bfloat16 Div. Integer x / 0 is refused with an error ("Integer division
 * by zero", element_wise_ops.cc).
 *
 * Claims: onnx-div-7, onnx-div-13 and onnx-div-14, each with every type of
 * its ONNX type list but bf16 (the types the CPU kernel loads with: float16,
 * float, double, int32, int64, uint32, uint64, and for opset 14 also int8,
 * int16, uint8, uint16). Everything else is DVG_UNSUPPORTED: Div-1/6 models
 * do not load, and the OpenVINO and SONNX variants are not ONNX opsets.
 *
 * The adapter builds, per (opset, element type), a one-node model in memory
 * - ModelProto{ir_version 8, opset_import {"" , opset}, graph {node
 * Div(A, B) -> C, inputs A, B and output C typed tensor(T) without a shape}}
 * - serialised here by a ten-line protobuf writer (field numbers of
 * onnx.proto), and keeps its session for every later case of that opset
 * and type. Each case wraps the host's buffers as input OrtValues (no
 * copies), lets ORT allocate the output, checks its shape against the
 * variant's (plugins/common/adapter.h) and copies it into C. Sessions run
 * on one intra-op thread without spinning (the harness runs one case at a
 * time), or on open_with's thread count (ABI 1.1); everything else is
 * ORT's default (graph optimisations included).
 * ORT's log goes to stderr at level FATAL only: its errors come back as
 * statuses. Telemetry is off (ORT_DISABLE_TELEMETRY=1, set before the
 * first CreateEnv unless the caller set it): on, ORT sends it from a
 * background thread through libcurl, which ignores SIGPIPE process-wide
 * while it sends, so a call that happens to run then leaves SIGPIPE
 * changed (docs/findings.md, R3); `--env ORT_DISABLE_TELEMETRY=0` shows
 * it. No deviation is declared: ORT's default session leaves denormals
 * alone ("session.set_denormal_as_zero" is off) and gives no value for
 * integer x / 0 (it refuses it).
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <onnxruntime_c_api.h>

#include "../common/adapter.h"

#define MAX_SESSIONS 16

typedef struct cached_session {
    int64_t opset;
    int32_t elem;
    OrtSession *s;
} cached_session;

static dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
static dvg_descriptor descriptor;

struct dvg_iut {
    const OrtApi *ort;
    OrtEnv *env;
    OrtSessionOptions *options;
    OrtMemoryInfo *cpu;
    cached_session sessions[MAX_SESSIONS];
    int n_sessions;
    char error[512];
};

/* ------------------------------------------------------------------------
 * The model, as protobuf wire bytes: varints, and length-delimited fields
 * whose length is known because nested messages are built first.
 * ---------------------------------------------------------------------- */
typedef struct buf {
    uint8_t b[512]; /* the whole model takes about 200 bytes */
    size_t n;
} buf;

static void put_varint(buf *o, uint64_t v)
{
    do {
        o->b[o->n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
        v >>= 7;
    } while (v);
}

static void put_int(buf *o, uint32_t field, uint64_t v) /* wire type 0 */
{
    put_varint(o, (uint64_t)field << 3);
    put_varint(o, v);
}

static void put_bytes(buf *o, uint32_t field, const void *p, size_t n) /* wire type 2 */
{
    assert(o->n + n + 16 <= sizeof o->b); /* fixed names and types: never more */
    put_varint(o, (uint64_t)field << 3 | 2);
    put_varint(o, n);
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static void put_str(buf *o, uint32_t field, const char *s)
{
    put_bytes(o, field, s, strlen(s));
}

static void put_msg(buf *o, uint32_t field, const buf *m)
{
    put_bytes(o, field, m->b, m->n);
}

/* ValueInfoProto{name, type: TypeProto{tensor_type: {elem_type}}}, no shape. */
static void value_info(buf *o, uint32_t field, const char *name, int32_t elem)
{
    buf tensor = {{0}, 0}, type = {{0}, 0}, vi = {{0}, 0};
    put_int(&tensor, 1, (uint64_t)elem);  /* TypeProto.Tensor.elem_type */
    put_msg(&type, 1, &tensor);           /* TypeProto.tensor_type */
    put_str(&vi, 1, name);                /* ValueInfoProto.name */
    put_msg(&vi, 2, &type);               /* ValueInfoProto.type */
    put_msg(o, field, &vi);
}

static void div_model(buf *model, int64_t opset, int32_t elem)
{
    buf node = {{0}, 0}, graph = {{0}, 0}, op = {{0}, 0};
    put_str(&node, 1, "A");        /* NodeProto.input */
    put_str(&node, 1, "B");
    put_str(&node, 2, "C");        /* NodeProto.output */
    put_str(&node, 3, "div");      /* NodeProto.name */
    put_str(&node, 4, "Div");      /* NodeProto.op_type */
    put_msg(&graph, 1, &node);     /* GraphProto.node */
    put_str(&graph, 2, "divergence"); /* GraphProto.name */
    value_info(&graph, 11, "A", elem); /* GraphProto.input */
    value_info(&graph, 11, "B", elem);
    value_info(&graph, 12, "C", elem); /* GraphProto.output */
    put_str(&op, 1, "");           /* OperatorSetIdProto.domain */
    put_int(&op, 2, (uint64_t)opset);
    model->n = 0;
    put_int(model, 1, 8);          /* ModelProto.ir_version */
    put_str(model, 2, "divergence"); /* ModelProto.producer_name */
    put_msg(model, 7, &graph);     /* ModelProto.graph */
    put_msg(model, 8, &op);        /* ModelProto.opset_import */
}

/* ------------------------------------------------------------------------
 * ORT calls.
 * ---------------------------------------------------------------------- */

/* Takes an OrtStatus: 0 when NULL (success), else the message into
 * iut->error and -1. */
static int ort_failed(dvg_iut *iut, OrtStatus *st, const char *what)
{
    if (!st)
        return 0;
    snprintf(iut->error, sizeof iut->error, "%s: %s", what, iut->ort->GetErrorMessage(st));
    iut->ort->ReleaseStatus(st);
    return -1;
}

static int64_t opset_of(uint32_t variant)
{
    switch (variant) {
    case DVG_VARIANT_ONNX_DIV_1: return 1;
    case DVG_VARIANT_ONNX_DIV_6: return 6;
    case DVG_VARIANT_ONNX_DIV_7: return 7;
    case DVG_VARIANT_ONNX_DIV_13: return 13;
    case DVG_VARIANT_ONNX_DIV_14: return 14;
    }
    return 0;
}

static int32_t elem_of(uint32_t dtype)
{
    switch (dtype) {
    case DVG_DTYPE_F16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16;
    case DVG_DTYPE_BF16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16;
    case DVG_DTYPE_F32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT;
    case DVG_DTYPE_F64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE;
    case DVG_DTYPE_I8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8;
    case DVG_DTYPE_I16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16;
    case DVG_DTYPE_I32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32;
    case DVG_DTYPE_I64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64;
    case DVG_DTYPE_U8: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8;
    case DVG_DTYPE_U16: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16;
    case DVG_DTYPE_U32: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32;
    case DVG_DTYPE_U64: return ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64;
    }
    return 0;
}

/* The session for (opset, elem), created on first use. NULL with the
 * reason in iut->error when ORT refuses the model. */
static OrtSession *session_for(dvg_iut *iut, int64_t opset, int32_t elem)
{
    buf model;
    OrtSession *s = NULL;
    for (int i = 0; i < iut->n_sessions; i++)
        if (iut->sessions[i].opset == opset && iut->sessions[i].elem == elem)
            return iut->sessions[i].s;
    div_model(&model, opset, elem);
    if (ort_failed(iut, iut->ort->CreateSessionFromArray(iut->env, model.b, model.n,
                                                         iut->options, &s),
                   "ONNX Runtime refuses the Div model"))
        return NULL;
    if (iut->n_sessions == MAX_SESSIONS) { /* never with the claims made */
        iut->ort->ReleaseSession(iut->sessions[0].s);
        memmove(iut->sessions, iut->sessions + 1, (MAX_SESSIONS - 1) * sizeof(cached_session));
        iut->n_sessions--;
    }
    iut->sessions[iut->n_sessions].opset = opset;
    iut->sessions[iut->n_sessions].elem = elem;
    iut->sessions[iut->n_sessions++].s = s;
    return s;
}

static void ort_close(dvg_iut *iut)
{
    if (!iut)
        return;
    for (int i = 0; i < iut->n_sessions; i++)
        iut->ort->ReleaseSession(iut->sessions[i].s);
    if (iut->cpu)
        iut->ort->ReleaseMemoryInfo(iut->cpu);
    if (iut->options)
        iut->ort->ReleaseSessionOptions(iut->options);
    if (iut->env)
        iut->ort->ReleaseEnv(iut->env);
    free(iut);
}

/* Opens an instance whose sessions run on `threads` intra-op threads. */
static int32_t ort_open_threads(const char *config, uint32_t threads, dvg_iut **out)
{
    const OrtApiBase *base = OrtGetApiBase();
    dvg_iut *iut;
    if (!config || !out || config[0] || !base)
        return DVG_FAILURE; /* no configuration */
    iut = calloc(1, sizeof *iut);
    if (!iut)
        return DVG_FAILURE;
    iut->ort = base->GetApi(ORT_API_VERSION);
    setenv("ORT_DISABLE_TELEMETRY", "1", 0); /* the caller's own setting wins */
    if (!iut->ort ||
        ort_failed(iut, iut->ort->CreateEnv(ORT_LOGGING_LEVEL_FATAL, "divergence", &iut->env),
                   "CreateEnv") ||
        ort_failed(iut, iut->ort->CreateSessionOptions(&iut->options), "CreateSessionOptions") ||
        ort_failed(iut, iut->ort->SetIntraOpNumThreads(iut->options, (int)threads),
                   "SetIntraOpNumThreads") ||
        ort_failed(iut, iut->ort->SetInterOpNumThreads(iut->options, 1), "SetInterOpNumThreads") ||
        ort_failed(iut, iut->ort->AddSessionConfigEntry(iut->options,
                                                         "session.intra_op.allow_spinning", "0"),
                   "AddSessionConfigEntry") ||
        ort_failed(iut, iut->ort->CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault,
                                                      &iut->cpu),
                   "CreateCpuMemoryInfo")) {
        ort_close(iut);
        return DVG_FAILURE;
    }
    *out = iut;
    return DVG_OK;
}

static int32_t ort_open(const char *config, dvg_iut **out)
{
    return ort_open_threads(config, 1, out);
}

/* ABI 1.1: the host's thread count (0: one, as open) as ORT's intra-op
 * thread count. */
static int32_t ort_open_with(const char *config, const dvg_open_options *options, dvg_iut **out)
{
    uint32_t threads = options && options->size >= 8 && options->threads ? options->threads : 1;
    return ort_open_threads(config, threads > 256 ? 256 : threads, out);
}

static int32_t plan(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs, const dvg_tensor *a,
                    const dvg_tensor *b, adapter_shapes *s)
{
    int32_t st = adapter_plan(variant, attrs, a, b, s, iut->error, sizeof iut->error);
    if (st != DVG_OK)
        return st;
    if (!opset_of(variant))
        return adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                            "ONNX Runtime runs ONNX variants only");
    if (!elem_of(a->dtype))
        return adapter_fail(iut->error, sizeof iut->error, DVG_UNSUPPORTED,
                            "no ONNX element type for dtype %u", a->dtype);
    return adapter_require_claim(claims, descriptor.n_claims, variant, a->dtype, "", iut->error,
                                 sizeof iut->error);
}

static int32_t ort_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                                const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                                int64_t *shape)
{
    return adapter_output_shape(plan, iut, variant, attrs, a, b, rank, shape);
}

static int32_t ort_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                           const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    static const char *const in_names[2] = {"A", "B"}, *const out_names[1] = {"C"};
    const OrtApi *ort;
    adapter_shapes s;
    OrtSession *session;
    OrtValue *in[2] = {NULL, NULL}, *out = NULL;
    OrtTensorTypeAndShapeInfo *info = NULL;
    int64_t dims[DVG_MAX_RANK];
    size_t rank = 0;
    void *data = NULL;
    int32_t st, elem;

    if (!iut)
        return DVG_FAILURE;
    ort = iut->ort;
    st = plan(iut, variant, attrs, a, b, &s);
    if (st == DVG_OK)
        st = adapter_check_tensors(&s, a, b, c, iut->error, sizeof iut->error);
    if (st != DVG_OK || s.count == 0)
        return st;
    elem = elem_of(a->dtype);
    session = session_for(iut, opset_of(variant), elem);
    if (!session)
        return DVG_UNSUPPORTED;
    st = DVG_FAILURE;
    if (ort_failed(iut, ort->CreateTensorWithDataAsOrtValue(iut->cpu, (void *)a->data,
                                                            (size_t)a->nbytes, s.a, s.a_rank,
                                                            elem, &in[0]),
                   "input A") ||
        ort_failed(iut, ort->CreateTensorWithDataAsOrtValue(iut->cpu, (void *)b->data,
                                                            (size_t)b->nbytes, s.b, s.b_rank,
                                                            elem, &in[1]),
                   "input B") ||
        ort_failed(iut, ort->Run(session, NULL, in_names, (const OrtValue *const *)in, 2,
                                 out_names, 1, &out),
                   "Run") ||
        ort_failed(iut, ort->GetTensorTypeAndShape(out, &info), "GetTensorTypeAndShape") ||
        ort_failed(iut, ort->GetDimensionsCount(info, &rank), "GetDimensionsCount"))
        goto done;
    if (rank != s.rank ||
        ort_failed(iut, ort->GetDimensions(info, dims, rank), "GetDimensions") ||
        memcmp(dims, s.out, rank * sizeof dims[0])) {
        if (rank != s.rank || !iut->error[0] || strncmp(iut->error, "GetDimensions", 13))
            snprintf(iut->error, sizeof iut->error, "ONNX Runtime's output has rank %zu and "
                     "not the variant's shape", rank);
        goto done;
    }
    if (ort_failed(iut, ort->GetTensorMutableData(out, &data), "GetTensorMutableData"))
        goto done;
    memcpy(c->data, data, (size_t)s.count * adapter_elem_bytes(a->dtype));
    st = DVG_OK;
done:
    if (info)
        ort->ReleaseTensorTypeAndShapeInfo(info);
    if (out)
        ort->ReleaseValue(out);
    if (in[0])
        ort->ReleaseValue(in[0]);
    if (in[1])
        ort->ReleaseValue(in[1]);
    return st;
}

static const char *ort_last_error(dvg_iut *iut)
{
    return iut ? iut->error : "no instance";
}

static char version[64];
static dvg_descriptor descriptor = {
    sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR,
    "onnxruntime", version,
    0, 0, claims,
    0, 0, /* no deviations */
    ort_open, ort_output_shape, ort_compute, ort_last_error, ort_close,
    DVG_CAP_THREADS, 0, 0, NULL, ort_open_with, /* ABI 1.1: honours the thread count */
};

__attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    if (!descriptor.n_claims) {
        const OrtApiBase *base = OrtGetApiBase();
        uint32_t dtypes[DVG_VARIANT_COUNT] = {0};
        const uint32_t types = ~ADAPTER_DT(DVG_DTYPE_BF16); /* within each type list */
        dtypes[DVG_VARIANT_ONNX_DIV_7] = types;
        dtypes[DVG_VARIANT_ONNX_DIV_13] = types;
        dtypes[DVG_VARIANT_ONNX_DIV_14] = types;
        snprintf(version, sizeof version, "%s", base ? base->GetVersionString() : "unknown");
        descriptor.n_claims = adapter_build_claims(dtypes, claims, sizeof claims / sizeof claims[0]);
    }
    return &descriptor;
}
