/* SPDX-License-Identifier: MIT */
/*
 * plugins/cuda/cuda.c: CUDA Div kernels behind the Divergence ABI, the host
 * side (the kernels: kernels.cu, through kernels.h).
 *
 * One source, three plugin files, one per flavour (CUDA_PLUGIN_FLAVOUR):
 *   cuda.so            name "cuda":           IEEE division (div.rn)
 *   cuda-intrinsic.so  name "cuda-intrinsic": __fdividef, __hdiv
 *   cuda-fast-math.so  name "cuda-fast-math": the IEEE code compiled with
 *                      --use_fast_math (declares FTZ and DAZ: nvcc documents
 *                      that it implies --ftz=true for single precision)
 * The flavour is the file's, not open()'s config: the harness keys a plugin
 * build on (name, version, file hash) and records no config, and `divergence
 * diff` passes none, so a flavour chosen by config would be certified, stored
 * and compared under one name.
 *
 * What a framework's host-side wrapper does, per compute: copy A and B to
 * device buffers (kept and grown across calls, as a caching allocator
 * does), launch one kernel on the instance's stream, copy C back, wait. The
 * shapes are planned by plugins/common/adapter.h (numpy views) and turned
 * into an index walk the kernel follows (kernels.h): ONNX legacy
 * broadcasting with axis, numpy, OpenVINO none / numpy / pdpd, equal shapes.
 * Claims: every (variant, dtype) pair docs/semantics.md lists, i4 and u4
 * included. Integer x / 0 is 0 and INT_MIN / -1 is INT_MIN, never divided.
 *
 * The descriptor needs no device: the claims are static, and the version
 * (built once in dvg_iut_descriptor) names the toolkit, the runtime and
 * driver versions and the visible devices, or why there is none. open()
 * takes the device: config "" or "device=N" (default 0); without a usable
 * device it fails and says why on stderr (the harness shows the plugin's
 * stderr). open() creates the device's context, so the CUDA driver's own
 * threads run from then on; CUDA does not survive fork(), so an instance
 * used in a process other than the one that opened it answers DVG_FAILURE
 * instead of calling CUDA (DIVERGENCE_NO_ZYGOTE=1 keeps the harness's
 * worker from forking one).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>

#include <cuda_runtime_api.h>

#include "../common/adapter.h"
#include "kernels.h"

#ifndef CUDA_PLUGIN_FLAVOUR
#define CUDA_PLUGIN_FLAVOUR CUDA_FLAVOUR_IEEE
#endif
#ifndef CUDA_NVCC_VERSION
#define CUDA_NVCC_VERSION "unknown"
#endif

#if CUDA_PLUGIN_FLAVOUR == CUDA_FLAVOUR_IEEE
#define CUDA_PLUGIN_NAME "cuda"
#define CUDA_PLUGIN_DEVIATIONS 0
#elif CUDA_PLUGIN_FLAVOUR == CUDA_FLAVOUR_INTRINSIC
#define CUDA_PLUGIN_NAME "cuda-intrinsic"
#define CUDA_PLUGIN_DEVIATIONS 0
#elif CUDA_PLUGIN_FLAVOUR == CUDA_FLAVOUR_FAST_MATH
#define CUDA_PLUGIN_NAME "cuda-fast-math"
#define CUDA_PLUGIN_DEVIATIONS (DVG_DEV_FLUSH_SUBNORMAL_OUTPUT | DVG_DEV_SUBNORMAL_INPUT_ZERO)
#else
#error "CUDA_PLUGIN_FLAVOUR must be one of CUDA_FLAVOUR_*"
#endif

struct dvg_iut {
    int device;
    pid_t pid;                /* the process that opened the instance */
    cudaStream_t stream;
    void *buf[3];             /* device buffers of A, B, C */
    size_t cap[3];            /* their sizes in bytes */
    char error[512];
};

static dvg_claim claims[DVG_VARIANT_COUNT * DVG_DTYPE_COUNT];
static char version[240];
static dvg_descriptor descriptor;

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int32_t fail(dvg_iut *iut, int32_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(iut->error, sizeof iut->error, fmt, ap);
    va_end(ap);
    return status;
}

/* "cudaErrorNoDevice (100): no CUDA-capable device is detected". */
static const char *cuda_text(cudaError_t e, char *buf, size_t len)
{
    snprintf(buf, len, "%s (%d): %s", cudaGetErrorName(e), (int)e, cudaGetErrorString(e));
    return buf;
}

/* ------------------------------------------------------------------------
 * Shapes: the variant's rule (adapter.h) as an index walk.
 * ---------------------------------------------------------------------- */
static int32_t plan(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                    const dvg_tensor *a, const dvg_tensor *b, adapter_shapes *s)
{
    int32_t st = adapter_plan(variant, attrs, a, b, s, iut->error, sizeof iut->error);
    if (st != DVG_OK)
        return st;
    if (a->dtype != b->dtype)
        return fail(iut, DVG_INVALID_INPUT, "A has dtype %u and B dtype %u; the variant needs "
                    "one type", a->dtype, b->dtype);
    if (!adapter_claimed(claims, descriptor.n_claims, variant, a->dtype))
        return fail(iut, DVG_UNSUPPORTED, "(variant %u, dtype %u) is not claimed", variant,
                    a->dtype);
    return DVG_OK;
}

/* Row-major element strides of a view's dims. */
static void view_strides(uint32_t rank, const int64_t *dims, int64_t *stride)
{
    uint64_t n = 1;
    for (uint32_t k = rank; k-- > 0;) {
        stride[k] = (int64_t)n;
        n *= (uint64_t)dims[k];
    }
}

/* The index walk of a planned case (s->count > 0): per output dimension the
 * stride into each view (0 where the view is broadcast), size-1 dimensions
 * dropped, neighbours that are contiguous in A, B and C merged. */
static void walk(const adapter_shapes *s, cuda_plan *p)
{
    int64_t sa[DVG_MAX_RANK], sb[DVG_MAX_RANK];
    uint32_t n = 0;
    view_strides(s->a_rank, s->a, sa);
    view_strides(s->b_rank, s->b, sb);
    memset(p, 0, sizeof *p);
    p->count = s->count;
    for (uint32_t k = 0; k < s->rank; k++) {
        const int ka = (int)k - (int)(s->rank - s->a_rank);
        const int kb = (int)k - (int)(s->rank - s->b_rank);
        const int64_t d = s->out[k];
        const int64_t as = ka < 0 || (s->a[ka] == 1 && d != 1) ? 0 : sa[ka];
        const int64_t bs = kb < 0 || (s->b[kb] == 1 && d != 1) ? 0 : sb[kb];
        if (d == 1)
            continue;
        if (n > 0 && p->as[n - 1] == as * d && p->bs[n - 1] == bs * d) {
            p->dims[n - 1] *= d;
            p->as[n - 1] = as;
            p->bs[n - 1] = bs;
        } else {
            p->dims[n] = d;
            p->as[n] = as;
            p->bs[n] = bs;
            n++;
        }
    }
    if (n == 0) { /* one element */
        p->dims[0] = 1;
        n = 1;
    }
    p->rank = n;
}

/* Bits of one element of dtype d. */
static uint32_t elem_bits(uint32_t d)
{
#define CUDA_BITS_(ID, tag, value, bits, kind) \
    case value: return bits;
    switch (d) { DVG_DTYPE_LIST(CUDA_BITS_) }
#undef CUDA_BITS_
    return 0;
}

/* Bytes of a tensor's elements; checks that its buffer holds them and that
 * it has the dtype of the case. */
static int32_t tensor_bytes(dvg_iut *iut, const dvg_tensor *t, uint32_t dtype, char which,
                            uint64_t *bytes)
{
    uint64_t n = 1;
    if (t->dtype != dtype)
        return fail(iut, DVG_FAILURE, "%c has dtype %u, not %u", which, t->dtype, dtype);
    for (uint32_t k = 0; k < t->rank; k++) {
        if (t->shape[k] && n > (UINT64_C(1) << 56) / (uint64_t)t->shape[k])
            return fail(iut, DVG_FAILURE, "%c has more than 2^56 elements", which);
        n *= (uint64_t)t->shape[k];
    }
    *bytes = (n * elem_bits(dtype) + 7) / 8;
    if (t->nbytes < *bytes || (*bytes && !t->data))
        return fail(iut, DVG_FAILURE, "%c: %llu bytes%s for %llu elements", which,
                    (unsigned long long)t->nbytes, t->data ? "" : " (NULL)",
                    (unsigned long long)n);
    return DVG_OK;
}

/* ------------------------------------------------------------------------
 * Device memory.
 * ---------------------------------------------------------------------- */
static int32_t reserve(dvg_iut *iut, int i, uint64_t bytes)
{
    char text[200];
    cudaError_t e;
    if (bytes <= iut->cap[i])
        return DVG_OK;
    if (iut->buf[i])
        cudaFree(iut->buf[i]);
    iut->buf[i] = NULL;
    iut->cap[i] = 0;
    e = cudaMalloc(&iut->buf[i], (size_t)bytes);
    if (e != cudaSuccess) {
        iut->buf[i] = NULL;
        return fail(iut, DVG_FAILURE, "cudaMalloc(%llu bytes) for %c: %s",
                    (unsigned long long)bytes, "ABC"[i], cuda_text(e, text, sizeof text));
    }
    iut->cap[i] = (size_t)bytes;
    return DVG_OK;
}

/* ------------------------------------------------------------------------
 * The entry points.
 * ---------------------------------------------------------------------- */
static int32_t cuda_open(const char *config, dvg_iut **out)
{
    char text[200];
    int count = 0, device = 0;
    cudaError_t e;
    dvg_iut *iut;

    if (!config || !out)
        return DVG_FAILURE;
    if (config[0]) {
        char *end = NULL;
        long v = strncmp(config, "device=", 7) ? -1 : strtol(config + 7, &end, 10);
        if (v < 0 || v > 1023 || !end || end == config + 7 || *end) {
            fprintf(stderr, CUDA_PLUGIN_NAME ": config \"%s\": expected \"\" or \"device=N\"\n",
                    config);
            return DVG_FAILURE;
        }
        device = (int)v;
    }
    e = cudaGetDeviceCount(&count); /* leaves count alone when it fails */
    if (e != cudaSuccess || count == 0) {
        fprintf(stderr, CUDA_PLUGIN_NAME ": no CUDA device: cudaGetDeviceCount: %s\n",
                e != cudaSuccess ? cuda_text(e, text, sizeof text) : "0 devices");
        return DVG_FAILURE;
    }
    if (device >= count) {
        fprintf(stderr, CUDA_PLUGIN_NAME ": no CUDA device %d: %d device%s visible\n", device,
                count, count == 1 ? "" : "s");
        return DVG_FAILURE;
    }
    iut = calloc(1, sizeof *iut);
    if (!iut)
        return DVG_FAILURE;
    iut->device = device;
    iut->pid = getpid();
    /* The context is created here, not in the first compute: its threads
     * then exist before the harness decides whether to fork a runner. */
    if ((e = cudaSetDevice(device)) != cudaSuccess || (e = cudaFree(NULL)) != cudaSuccess ||
        (e = cudaStreamCreateWithFlags(&iut->stream, cudaStreamNonBlocking)) != cudaSuccess) {
        fprintf(stderr, CUDA_PLUGIN_NAME ": CUDA device %d: %s\n", device,
                cuda_text(e, text, sizeof text));
        free(iut);
        return DVG_FAILURE;
    }
    *out = iut;
    return DVG_OK;
}

static int32_t cuda_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                                 const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                                 int64_t *shape)
{
    adapter_shapes s;
    int32_t st;
    if (!iut)
        return DVG_FAILURE;
    if (!rank || !shape)
        return fail(iut, DVG_FAILURE, "rank or shape is NULL");
    st = plan(iut, variant, attrs, a, b, &s);
    if (st == DVG_OK) {
        *rank = s.rank;
        memcpy(shape, s.out, s.rank * sizeof shape[0]);
    }
    return st;
}

static int32_t cuda_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                            const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    char text[200];
    adapter_shapes s;
    cuda_plan p;
    uint64_t na, nb, nc, copy;
    uint32_t dtype;
    int nibbles, odd;
    cudaError_t e;
    int32_t st;

    if (!iut)
        return DVG_FAILURE;
    if (getpid() != iut->pid)
        return fail(iut, DVG_FAILURE, "the instance was opened in process %d and is used in "
                    "process %d, a fork: CUDA does not survive fork() (run the harness with "
                    "DIVERGENCE_NO_ZYGOTE=1)", (int)iut->pid, (int)getpid());
    if (!c)
        return fail(iut, DVG_FAILURE, "C is NULL");
    st = plan(iut, variant, attrs, a, b, &s);
    if (st != DVG_OK)
        return st;
    dtype = a->dtype;
    if (c->rank != s.rank || memcmp(c->shape, s.out, s.rank * sizeof s.out[0]))
        return fail(iut, DVG_FAILURE, "C does not have the output shape");
    if ((st = tensor_bytes(iut, a, dtype, 'A', &na)) != DVG_OK ||
        (st = tensor_bytes(iut, b, dtype, 'B', &nb)) != DVG_OK ||
        (st = tensor_bytes(iut, c, dtype, 'C', &nc)) != DVG_OK)
        return st;
    if (s.count == 0)
        return DVG_OK;
    walk(&s, &p);
    if ((st = reserve(iut, 0, na)) != DVG_OK || (st = reserve(iut, 1, nb)) != DVG_OK ||
        (st = reserve(iut, 2, nc)) != DVG_OK)
        return st;

    /* In, one kernel, out. For i4/u4 with an odd count the high nibble of
     * C's last byte is the host's: that byte is merged on the host. */
    nibbles = elem_bits(dtype) == 4;
    odd = nibbles && (s.count & 1);
    copy = odd ? nc - 1 : nc;
    if ((e = cudaMemcpyAsync(iut->buf[0], a->data, na, cudaMemcpyHostToDevice, iut->stream)) ||
        (e = cudaMemcpyAsync(iut->buf[1], b->data, nb, cudaMemcpyHostToDevice, iut->stream)))
        return fail(iut, DVG_FAILURE, "copying A and B to device %d: %s", iut->device,
                    cuda_text(e, text, sizeof text));
    e = (cudaError_t)cuda_kernels_launch(CUDA_PLUGIN_FLAVOUR, dtype, adapter_floors(variant, attrs),
                                         &p, iut->buf[0], iut->buf[1], iut->buf[2], iut->stream);
    if (e != cudaSuccess)
        return fail(iut, DVG_FAILURE, "kernel launch for dtype %u: %s", dtype,
                    cuda_text(e, text, sizeof text));
    if (copy && (e = cudaMemcpyAsync(c->data, iut->buf[2], copy, cudaMemcpyDeviceToHost,
                                     iut->stream)))
        return fail(iut, DVG_FAILURE, "copying C from device %d: %s", iut->device,
                    cuda_text(e, text, sizeof text));
    if (odd) {
        uint8_t last = 0, *host = (uint8_t *)c->data + nc - 1;
        if ((e = cudaMemcpyAsync(&last, (uint8_t *)iut->buf[2] + nc - 1, 1,
                                 cudaMemcpyDeviceToHost, iut->stream)) ||
            (e = cudaStreamSynchronize(iut->stream)))
            return fail(iut, DVG_FAILURE, "copying C's last byte from device %d: %s",
                        iut->device, cuda_text(e, text, sizeof text));
        *host = (uint8_t)((*host & 0xF0u) | (last & 0x0Fu));
    }
    if ((e = cudaStreamSynchronize(iut->stream)) != cudaSuccess)
        return fail(iut, DVG_FAILURE, "running the kernel for dtype %u on device %d: %s",
                    dtype, iut->device, cuda_text(e, text, sizeof text));
    return DVG_OK;
}

static const char *cuda_last_error(dvg_iut *iut)
{
    return iut ? iut->error : "no instance";
}

static void cuda_close(dvg_iut *iut)
{
    if (!iut)
        return;
    if (getpid() == iut->pid) { /* a forked copy must not call CUDA */
        for (int i = 0; i < 3; i++)
            if (iut->buf[i])
                cudaFree(iut->buf[i]);
        cudaStreamDestroy(iut->stream);
    }
    free(iut);
}

/* The kernel module's version from /proc/driver/nvidia/version ("NVRM
 * version: NVIDIA UNIX ... Kernel Module  580.159.04  Release ..."): the
 * first word of digits and dots with two dots; "" when there is none. */
static void kernel_module_version(char *out, size_t len)
{
    char line[256], *w, *save = NULL;
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    out[0] = '\0';
    if (!f)
        return;
    if (fgets(line, sizeof line, f))
        for (w = strtok_r(line, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
            int dots = 0, ok = w[0] >= '0' && w[0] <= '9';
            for (const char *q = w; *q && ok; q++)
                dots += *q == '.', ok = (*q >= '0' && *q <= '9') || *q == '.';
            if (ok && dots == 2) {
                snprintf(out, len, "%s", w);
                break;
            }
        }
    fclose(f);
}

/* "nvcc 13.0.88, runtime 13.0, driver 13.0 (580.159.04), device 0: NVIDIA
 * H100 80GB HBM3 sm_90", or the reason there is no device. */
static void describe(void)
{
    char text[200], module[64];
    int rt = 0, drv = 0, count = 0;
    size_t n;
    cudaError_t e;
    cudaRuntimeGetVersion(&rt);
    if (cudaDriverGetVersion(&drv) != cudaSuccess)
        drv = 0;
    kernel_module_version(module, sizeof module);
    n = (size_t)snprintf(version, sizeof version, "nvcc %s, runtime %d.%d, ", CUDA_NVCC_VERSION,
                         rt / 1000, rt % 1000 / 10);
    if (drv)
        n += (size_t)snprintf(version + n, sizeof version - n, "driver %d.%d%s%s%s, ",
                              drv / 1000, drv % 1000 / 10, module[0] ? " (" : "", module,
                              module[0] ? ")" : "");
    else
        n += (size_t)snprintf(version + n, sizeof version - n, "no driver, ");
    e = cudaGetDeviceCount(&count); /* leaves count alone when it fails */
    if (e != cudaSuccess || count == 0) {
        snprintf(version + n, sizeof version - n, "no device (%s)",
                 e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
        return;
    }
    for (int d = 0; d < count && n < sizeof version; d++) {
        struct cudaDeviceProp prop;
        e = cudaGetDeviceProperties(&prop, d);
        if (e != cudaSuccess)
            n += (size_t)snprintf(version + n, sizeof version - n, "%sdevice %d: %s",
                                  d ? "; " : "", d, cuda_text(e, text, sizeof text));
        else
            n += (size_t)snprintf(version + n, sizeof version - n, "%sdevice %d: %s sm_%d%d",
                                  d ? "; " : "", d, prop.name, prop.major, prop.minor);
    }
}

static pthread_once_t described = PTHREAD_ONCE_INIT;

static void init(void)
{
    uint32_t dtypes[DVG_VARIANT_COUNT];
    for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
        dtypes[v] = ADAPTER_FLOATS | ADAPTER_INTS;
    descriptor = (dvg_descriptor){
        sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR,
        CUDA_PLUGIN_NAME, version,
        0, 0, claims,
        CUDA_PLUGIN_DEVIATIONS, 0,
        cuda_open, cuda_output_shape, cuda_compute, cuda_last_error, cuda_close,
        0, 0, 0, NULL, NULL, /* ABI 1.1: no capability declared, no open_with */
    };
    descriptor.n_claims = adapter_build_claims(dtypes, claims, sizeof claims / sizeof claims[0]);
    describe();
}

__attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    pthread_once(&described, init);
    return &descriptor;
}
