/* SPDX-License-Identifier: MIT */
/*
 * tests/cuda/test_cuda_descriptor.c: a CUDA plugin's descriptor needs no
 * device, and open() without one fails cleanly. Loads the plugin with
 * dlopen in this process (the harness loads it in a worker; `divergence
 * plugins` opens an instance, which needs a device) and checks:
 *  - name, ABI, declared deviations as the flavour says;
 *  - the claims are exactly the reference kernel's (every pair docs/semantics.md
 *    lists, i4 and u4 included);
 *  - the version names the toolkit (nvcc VERSION) and, where there is no
 *    device, why ("no device (cudaError...)");
 *  - open() with a malformed config fails and leaves *out alone; without a
 *    device open("") fails too. With one (the emulated plugin's host
 *    device, or a GPU), open("") succeeds, compute divides, and a forked
 *    copy of the process refuses to compute (CUDA does not survive fork);
 *  - every entry point answers a NULL instance without crashing.
 *
 * Usage: test_cuda_descriptor PLUGIN.so NAME DEVIATIONS NVCC_VERSION REFERENCE.so
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "divergence/iut.h"

static const dvg_descriptor *load(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    dvg_entry_fn entry;
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return NULL;
    }
    *(void **)&entry = dlsym(h, DVG_ENTRY_SYMBOL);
    return entry ? entry() : NULL;
}

static int has_claim(const dvg_descriptor *d, dvg_claim c)
{
    for (uint32_t i = 0; i < d->n_claims; i++)
        if (d->claims[i].variant == c.variant && d->claims[i].dtype == c.dtype)
            return 1;
    return 0;
}

/* C = A / B for onnx-div-7 f32, A = {6, -1}, B = {3}: the status, and C. */
static int32_t divide(const dvg_descriptor *d, dvg_iut *iut, float c[2])
{
    static const float a[2] = {6.0f, -1.0f}, b[1] = {3.0f};
    dvg_attrs at;
    dvg_tensor ta, tb, tc;
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    at.axis = -1;
    at.pythondiv = 1;
    at.auto_broadcast = DVG_BROADCAST_NUMPY;
    memset(&ta, 0, sizeof ta);
    ta.dtype = DVG_DTYPE_F32;
    ta.rank = 1;
    ta.shape[0] = 2;
    ta.data = (void *)(uintptr_t)a;
    ta.nbytes = sizeof a;
    tb = ta;
    tb.shape[0] = 1;
    tb.data = (void *)(uintptr_t)b;
    tb.nbytes = sizeof b;
    tc = ta;
    tc.data = c;
    tc.nbytes = 2 * sizeof c[0];
    c[0] = c[1] = 0.0f;
    return d->compute(iut, DVG_VARIANT_ONNX_DIV_7, &at, &ta, &tb, &tc);
}

/* An opened instance divides; in a forked child it answers DVG_FAILURE,
 * naming fork, without calling CUDA. */
static void check_fork(const dvg_descriptor *d, dvg_iut *iut)
{
    float c[2];
    int status = 0;
    pid_t pid;
    CHECK(divide(d, iut, c) == DVG_OK);
    CHECKF(c[0] == 2.0f && c[1] == -1.0f / 3.0f, "6 / 3 = %g, -1 / 3 = %g", c[0], c[1]);
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        int ok = divide(d, iut, c) == DVG_FAILURE && strstr(d->last_error(iut), "fork()");
        if (!ok)
            fprintf(stderr, "in a forked child: compute did not refuse (%s)\n",
                    d->last_error(iut));
        _exit(ok ? 0 : 1);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the forked child computed");
    CHECK(divide(d, iut, c) == DVG_OK && c[0] == 2.0f); /* the parent still does */
}

int main(int argc, char **argv)
{
    const dvg_descriptor *d, *ref;
    dvg_iut *iut = NULL, *const sentinel = (dvg_iut *)(uintptr_t)0x1;
    char want[64];
    int no_device;

    if (argc != 6) {
        fprintf(stderr, "usage: %s PLUGIN.so NAME DEVIATIONS NVCC_VERSION REFERENCE.so\n",
                argv[0]);
        return 2;
    }
    d = load(argv[1]);
    ref = load(argv[5]);
    CHECK(d != NULL);
    CHECK(ref != NULL);
    if (!d || !ref)
        return check_done("test_cuda_descriptor");

    CHECK(d->size == sizeof(dvg_descriptor));
    CHECK(d->abi_major == DVG_ABI_MAJOR && d->abi_minor == DVG_ABI_MINOR);
    CHECKF(!strcmp(d->name, argv[2]), "name '%s', expected '%s'", d->name, argv[2]);
    CHECKF(d->deviations == strtoull(argv[3], NULL, 0), "deviations %llu, expected %s",
           (unsigned long long)d->deviations, argv[3]);

    /* The claims: the reference kernel's, no more, no fewer. */
    CHECKF(d->n_claims == ref->n_claims, "%u claims, the reference has %u", d->n_claims,
           ref->n_claims);
    for (uint32_t i = 0; i < ref->n_claims; i++)
        CHECKF(has_claim(d, ref->claims[i]), "variant %u dtype %u not claimed",
               ref->claims[i].variant, ref->claims[i].dtype);

    /* The version: toolkit first, then the driver and devices or why not. */
    snprintf(want, sizeof want, "nvcc %s, runtime ", argv[4]);
    CHECKF(!strncmp(d->version, want, strlen(want)), "version '%s' does not start with '%s'",
           d->version, want);
    no_device = strstr(d->version, "no device (cudaError") != NULL;
    CHECKF(no_device || strstr(d->version, "device 0: "), "version '%s' names neither a "
           "device nor why there is none", d->version);
    printf("%s: version: %s\n", d->name, d->version);

    /* open(): malformed configs fail whatever the machine has. */
    static const char *const bad[] = {"device", "device=", "device=-1", "device=x", "device=0 ",
                                      "flavour=intrinsic", "device=1024", " device=0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        iut = sentinel;
        CHECKF(d->open(bad[i], &iut) == DVG_FAILURE, "open(\"%s\") did not fail", bad[i]);
        CHECKF(iut == sentinel, "open(\"%s\") wrote *out on failure", bad[i]);
    }
    iut = sentinel;
    CHECK(d->open("device=1023", &iut) == DVG_FAILURE); /* no machine has that many */
    CHECK(iut == sentinel);
    /* open("") needs a device. */
    iut = sentinel;
    if (no_device) {
        CHECK(d->open("", &iut) == DVG_FAILURE);
        CHECK(iut == sentinel);
    } else {
        CHECK(d->open("", &iut) == DVG_OK && iut != sentinel && iut != NULL);
        if (iut != sentinel && iut != NULL) {
            check_fork(d, iut);
            d->close(iut);
        }
    }

    /* A NULL instance. */
    dvg_attrs at;
    dvg_tensor t;
    uint32_t rank;
    int64_t shape[DVG_MAX_RANK];
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    memset(&t, 0, sizeof t);
    t.dtype = DVG_DTYPE_F32;
    CHECK(d->output_shape(NULL, DVG_VARIANT_ONNX_DIV_7, &at, &t, &t, &rank, shape) ==
          DVG_FAILURE);
    CHECK(d->compute(NULL, DVG_VARIANT_ONNX_DIV_7, &at, &t, &t, &t) == DVG_FAILURE);
    CHECK(d->last_error(NULL) != NULL);
    d->close(NULL);
    return check_done("test_cuda_descriptor");
}
