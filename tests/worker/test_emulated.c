/* SPDX-License-Identifier: MIT */
/*
 * tests/worker/test_emulated.c: the emulated worker (worker_options
 * .cpu_model). Under "x86-64-v3" a plugin's CPUID shows AVX2 without
 * AVX-512, under "x86-64-v2" SSE4.2 without AVX2; the layers attested from
 * outside are the native worker's; computes give the right answers; the
 * plugin cannot exec anything (the filter lets the worker program's one
 * exec of the emulator through, no other); a name the table does not know
 * is refused; with no emulator installed (DIVERGENCE_EMULATOR="") a start
 * is a LOAD_ERROR (SETUP) that names qemu-user-static.
 *
 * Usage: test_emulated PLUGIN_DIR
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "harness/base/cpumodel.h"
#include "harness/cases/divcase.h"
#include "harness/worker/worker.h"
#include "oracle/variant.h"

static char plugin[4096];

static worker *start(const char *model, worker_result *r)
{
    worker_options o;
    worker_options_limited(&o);
    snprintf(o.cpu_model, sizeof o.cpu_model, "%s", model);
    worker *w = NULL;
    if (worker_new(plugin, &o, &w) != 0)
        return NULL;
    CHECKF(worker_start(w, r) == 0, "%s: worker_start: %s", model, worker_errmsg(w));
    return w;
}

/* An i32 case of n elements, A[0] = first. */
static void make_case(divcase *c, uint64_t n, int32_t first)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "emulated/%llu", (unsigned long long)n);
    c->variant = DVG_VARIANT_ONNX_DIV_13;
    c->dtype = DVG_DTYPE_I32;
    oracle_attrs_default(oracle_variant_get(c->variant), &c->attrs);
    c->a_shape.rank = c->b_shape.rank = 1;
    c->a_shape.dims[0] = c->b_shape.dims[0] = (int64_t)n;
    if (divcase_alloc(c, UINT64_C(1) << 20) != 0)
        exit(1);
    int32_t *a = (int32_t *)c->a, *b = (int32_t *)c->b;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = (int32_t)(i * 7919) - 1000;
        b[i] = (int32_t)(i % 7) - 3;
    }
    a[0] = first;
}

static int32_t out_at(const worker_result *r, uint64_t i)
{
    int32_t v;
    memcpy(&v, r->out1 + 4 * i, 4);
    return v;
}

/* One model: the CPUID it shows, its layers, a right compute, no exec. */
static void check_model(const char *model, const char *want_version, uint32_t native_layers)
{
    worker_result r = WORKER_RESULT_INIT;
    worker *w = start(model, &r);
    CHECKF(w != NULL, "%s: worker_new", model);
    if (!w)
        return;
    const worker_info *info = worker_get_info(w);
    CHECKF(info && !strcmp(info->version, want_version), "%s: the plugin saw \"%s\", want \"%s\"",
           model, info ? info->version : "(no info)", want_version);
    CHECKF(info && info->layers == native_layers, "%s: layers 0x%x, native 0x%x", model,
           info ? info->layers : 0, native_layers);
    CHECKF(info && !strcmp(info->cpu_model, cpum_get(cpum_find(model))->name),
           "%s: info names cpu %s", model, info ? info->cpu_model : "");
    divcase c;
    make_case(&c, 37, 12345);
    CHECK(worker_run(w, &c, &c.a_shape, &r) == 0);
    int right = r.outcome == WORKER_OUT_OK && r.computed && r.count == 37;
    const int32_t *a = (const int32_t *)c.a, *b = (const int32_t *)c.b;
    for (uint64_t i = 0; right && i < 37; i++)
        right = out_at(&r, i) == (b[i] ? a[i] / b[i] : 0);
    CHECKF(right, "%s: compute: %s", model, r.message);
    divcase_free(&c);
    make_case(&c, 4, 0x7E5C);
    CHECK(worker_run(w, &c, &c.a_shape, &r) == 0);
    CHECKF(r.outcome == WORKER_OUT_OK && r.computed && out_at(&r, 0) == -EACCES,
           "%s: the plugin's execve gave %d (want -EACCES), %s", model,
           r.computed ? out_at(&r, 0) : 0, r.message);
    divcase_free(&c);
    worker_free(w);
    worker_result_free(&r);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_emulated PLUGIN_DIR\n");
        return 2;
    }
    snprintf(plugin, sizeof plugin, "%s/cpuid_plugin.so", argv[1]);
    /* An AddressSanitizer build runs no emulator (cpum_no_emulator_why);
     * asked without cpum_emulator, whose answer the child below must make
     * afresh. */
    if (strstr(cpum_no_emulator_why(), "AddressSanitizer")) {
        printf("skipped: %s\n", cpum_no_emulator_why());
        return 77;
    }

    /* No emulator: a child process, whose first look finds none. */
    pid_t pid = fork();
    if (pid == 0) {
        setenv("DIVERGENCE_EMULATOR", "", 1);
        worker_result r = WORKER_RESULT_INIT;
        worker_options o;
        worker_options_default(&o);
        snprintf(o.cpu_model, sizeof o.cpu_model, "haswell");
        worker *w = NULL;
        int ok = worker_new(plugin, &o, &w) == 0 && worker_start(w, &r) == 1 &&
                 r.outcome == WORKER_OUT_LOAD_ERROR && r.load_error == WORKER_LOAD_SETUP &&
                 strstr(r.message, "qemu-user-static") != NULL;
        if (!ok)
            fprintf(stderr, "no emulator: %s\n", r.message);
        worker_free(w);
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECKF(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
           "without an emulator an emulated start must be a LOAD_ERROR naming it");

    /* A name the table does not know. */
    worker_options o;
    worker_options_default(&o);
    snprintf(o.cpu_model, sizeof o.cpu_model, "pentium4");
    worker *w = NULL;
    CHECK(worker_new(plugin, &o, &w) != 0);

    if (cpum_host_level() == 0 || cpum_emulator(NULL, 0, NULL, 0) != 0) {
        printf("test_emulated: no x86-64 emulator here; only the refusals checked\n");
        return check_done("test_emulated");
    }
    /* Native first: its layers are what an emulated worker must show. */
    worker_result r = WORKER_RESULT_INIT;
    w = start("", &r);
    const worker_info *info = w ? worker_get_info(w) : NULL;
    CHECK(info != NULL);
    uint32_t layers = info ? info->layers : 0;
    char want[64];
    snprintf(want, sizeof want, "avx512f=%d avx2=%d sse4_2=1", cpum_host_level() >= 4,
             cpum_host_level() >= 3);
    CHECKF(info && !strcmp(info->version, want), "native: the plugin saw \"%s\", want \"%s\"",
           info ? info->version : "", want);
    CHECK(info && !strcmp(info->cpu_model, "native"));
    worker_free(w);
    worker_result_free(&r);

    check_model("x86-64-v3", "avx512f=0 avx2=1 sse4_2=1", layers);
    check_model("nehalem", "avx512f=0 avx2=0 sse4_2=1", layers);
    return check_done("test_emulated");
}
