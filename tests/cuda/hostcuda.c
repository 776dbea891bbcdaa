/* SPDX-License-Identifier: MIT */
/*
 * tests/cuda/hostcuda.c: the CUDA runtime calls of plugins/cuda/cuda.c,
 * answered on the host, for the emulated CUDA plugin the tests certify
 * where there is no GPU (with tests/cuda/emulate.cpp, which runs the
 * kernels' per-element code on the CPU). One device, "host emulation";
 * device memory is host memory, filled with 0xA5 when allocated so that
 * an element the kernels leave unwritten shows in C; streams are
 * synchronous. Nothing of the real runtime is linked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

static struct CUstream_st *const the_stream = (struct CUstream_st *)(uintptr_t)0x5757;

cudaError_t cudaGetDeviceCount(int *count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    return device == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

cudaError_t cudaMalloc(void **p, size_t bytes)
{
    *p = malloc(bytes ? bytes : 1);
    if (!*p)
        return cudaErrorMemoryAllocation;
    memset(*p, 0xA5, bytes);
    return cudaSuccess;
}

cudaError_t cudaFree(void *p)
{
    free(p);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    (void)kind;
    if (stream != the_stream)
        return cudaErrorInvalidResourceHandle;
    memcpy(dst, src, bytes);
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags)
{
    (void)flags;
    *stream = the_stream;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    return stream == the_stream ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    return stream == the_stream ? cudaSuccess : cudaErrorInvalidResourceHandle;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    *v = 0; /* no driver */
    return cudaSuccess;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    if (device != 0)
        return cudaErrorInvalidDevice;
    memset(prop, 0, sizeof *prop);
    snprintf(prop->name, sizeof prop->name, "host emulation");
    return cudaSuccess;
}

const char *cudaGetErrorName(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    default: return "cudaError";
    }
}

const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : "host emulation error";
}
