/* SPDX-License-Identifier: MIT */
/*
 * tests/worker/cpuid_plugin.c: a plugin that tells what CPU it sees. Its
 * version string is "avx512f=N avx2=N sse4_2=N" from
 * __builtin_cpu_supports (CPUID, as dispatching kernels read it), taken when
 * the descriptor is asked for; it divides i32 (truncating; x / 0 = 0). A
 * compute whose A[0] is 0x7E5C instead tries to exec the worker program
 * and stores -errno of that try (0: it ran) into C[0]: an emulated
 * worker's filter must refuse every exec but the emulator's own.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "divergence/iut.h"

#define EXEC_TRIGGER 0x7E5C

struct dvg_iut {
    int unused;
};

static char version[64];

static int32_t cp_open(const char *config, dvg_iut **out)
{
    (void)config;
    *out = calloc(1, sizeof **out);
    return *out ? DVG_OK : DVG_FAILURE;
}

static int32_t cp_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                               const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                               int64_t *shape)
{
    (void)iut, (void)variant, (void)attrs, (void)b;
    *rank = a->rank;
    memcpy(shape, a->shape, a->rank * sizeof *shape);
    return DVG_OK;
}

static int32_t cp_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                          const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    (void)iut, (void)variant, (void)attrs;
    const int32_t *x = a->data, *y = b->data;
    int32_t *z = c->data;
    uint64_t n = c->nbytes / 4;
    if (n && x[0] == EXEC_TRIGGER) {
        char *argv[] = {"worker", NULL}, *envp[] = {NULL};
        execve("/usr/libexec/worker", argv, envp);
        z[0] = -errno;
        for (uint64_t i = 1; i < n; i++)
            z[i] = 0;
        return DVG_OK;
    }
    for (uint64_t i = 0; i < n; i++)
        z[i] = y[i] == 0                              ? 0
               : (x[i] == INT32_MIN && y[i] == -1) ? INT32_MIN
                                                      : x[i] / y[i];
    return DVG_OK;
}

static const char *cp_last_error(dvg_iut *iut)
{
    (void)iut;
    return "";
}

static void cp_close(dvg_iut *iut)
{
    free(iut);
}

static const dvg_claim claims[] = {{DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_I32}};

static const dvg_descriptor descriptor = {
    .size = sizeof(dvg_descriptor),
    .abi_major = DVG_ABI_MAJOR,
    .abi_minor = DVG_ABI_MINOR,
    .name = "test-cpuid",
    .version = version,
    .n_claims = 1,
    .claims = claims,
    .deviations = DVG_DEV_INT_DIV_ZERO_VALUE,
    .int_div_zero_value = 0,
    .open = cp_open,
    .output_shape = cp_output_shape,
    .compute = cp_compute,
    .last_error = cp_last_error,
    .close = cp_close,
};

__attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    __builtin_cpu_init();
    snprintf(version, sizeof version, "avx512f=%d avx2=%d sse4_2=%d",
             __builtin_cpu_supports("avx512f") != 0, __builtin_cpu_supports("avx2") != 0,
             __builtin_cpu_supports("sse4.2") != 0);
    return &descriptor;
}
