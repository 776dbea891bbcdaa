/* SPDX-License-Identifier: MIT */
/*
 * tests/worker/test_plugin.c: one tiny IUT, built once per TEST_PLUGIN_MODE
 * (wp_<mode>.so). Every mode divides f32 and i32 correctly (equal shapes,
 * or B of one element broadcast), and misbehaves only where the mode says,
 * mostly at the elements whose A is TRIGGER, so that after a failure the
 * next, ordinary request on a restarted worker succeeds.
 */
#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <fcntl.h>
#include <unistd.h>

#include "divergence/iut.h"

#define MODE_GOOD 0
#define MODE_SEGV 1       /* null dereference at a TRIGGER element */
#define MODE_FPE 2        /* i32 divides with plain C: INT_MIN / -1 traps */
#define MODE_OOB 3        /* writes one element past the output (TRIGGER) */
#define MODE_UNDERFLOW 4  /* writes one element before the output (TRIGGER) */
#define MODE_WRITE_A 5    /* mprotects A writable and writes it (TRIGGER) */
#define MODE_HANG 6       /* spins forever (TRIGGER) */
#define MODE_EXIT 7       /* exit(3) (TRIGGER) */
#define MODE_UNWRITTEN 8  /* never writes the last element */
#define MODE_NONDET 9     /* element 0 counts the calls */
#define MODE_PAIR 10      /* crashes only when two TRIGGER elements meet */
#define MODE_ABI2 11      /* abi_major 2 */
#define MODE_NOENTRY 12   /* exports no entry symbol */
#define MODE_NULLFN 13    /* compute is NULL */
#define MODE_MANYCLAIMS 14 /* n_claims 5000 */
#define MODE_BADCLAIM 15  /* claims dtype 99 */
#define MODE_NULLDESC 16  /* the entry returns NULL */
#define MODE_OPENFAIL 17  /* open returns DVG_FAILURE */
#define MODE_LOADSEGV 18  /* the entry returns a wild pointer */
#define MODE_BADSHAPE 19  /* output_shape: rank 9 under onnx-div-14, writes
                             shape[8] under onnx-div-7 */
#define MODE_ABI10 20     /* an ABI 1.0 descriptor (its size ends at close) */
#define MODE_ABI11 21     /* ABI 1.1: capabilities, two ISA levels, open_with */
#define MODE_BADLEVEL 22  /* ABI 1.1 with an ISA level needing x86-64 "v9" */

#ifndef TEST_PLUGIN_MODE
#define TEST_PLUGIN_MODE MODE_GOOD
#endif
#define MODE TEST_PLUGIN_MODE
#ifndef TEST_PLUGIN_NAME
#define TEST_PLUGIN_NAME "plugin"
#endif

#define TRIGGER 0x7E57          /* A value that makes a mode misbehave */
#define TRIGGER_FAIL 0x7E58     /* every mode: compute returns DVG_FAILURE */
#define TRIGGER_FDS 0x7E59      /* every mode: C = number of open fds < 64 */
#define TRIGGER_PRIVS 0x7E5A    /* every mode: C = PR_GET_NO_NEW_PRIVS */
#define TRIGGER_ADDR 0x7E5B     /* every mode: C = the data pointers of A, B
                                   and C modulo 64, in bits 0, 8 and 16 */
#define TRIGGER_OPTS 0x7E5C     /* every mode: C = what open_with got: threads
                                   + 1000 * (its isa: 0 NULL, 1 "avx2", 2
                                   "scalar", 3 other); -1 when open was called */

#if defined(TEST_PLUGIN_DEP)
int wp_dep_value(void);
#endif

struct dvg_iut {
    char error[128];
    int calls;
    int32_t opts; /* TRIGGER_OPTS's answer */
};

static void *tp_idle_thread(void *arg)
{
    for (;;)
        pause();
    return arg;
}

/* Every mode: a config "count:PATH" appends a line to PATH at each open(),
 * so a test can count how often the plugin was loaded and opened;
 * "thread-count:PATH" also leaves a thread running (a thread pool). */
static void tp_count_open(const char *config)
{
    if (strncmp(config, "thread-", 7) == 0) {
        pthread_t t;
        if (pthread_create(&t, NULL, tp_idle_thread, NULL) == 0)
            pthread_detach(t);
        config += 7;
    }
    if (strncmp(config, "count:", 6) != 0)
        return;
    int fd = open(config + 6, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ssize_t put = write(fd, "open\n", 5);
        (void)put;
        close(fd);
    }
}

static int32_t tp_open(const char *config, dvg_iut **out)
{
    if (config)
        tp_count_open(config);
    if (MODE == MODE_OPENFAIL)
        return DVG_FAILURE;
    dvg_iut *iut = calloc(1, sizeof *iut);
    if (!iut)
        return DVG_FAILURE;
#if defined(TEST_PLUGIN_DEP)
    iut->calls = wp_dep_value() - 7;
#endif
    iut->opts = -1;
    *out = iut;
    return DVG_OK;
}

static int32_t tp_open_with(const char *config, const dvg_open_options *o, dvg_iut **out)
{
    int32_t st = tp_open(config, out);
    if (st == DVG_OK && o) {
        int isa = !o->isa ? 0 : !strcmp(o->isa, "avx2") ? 1 : !strcmp(o->isa, "scalar") ? 2 : 3;
        (*out)->opts = (int32_t)o->threads + 1000 * isa;
    }
    return st;
}

static const dvg_isa_level levels[] = {
    {sizeof(dvg_isa_level), 0, "avx2", MODE == MODE_BADLEVEL ? "v9" : "v3"},
    {sizeof(dvg_isa_level), 0, "scalar", ""},
};

static void tp_close(dvg_iut *iut)
{
    free(iut);
}

static const char *tp_last_error(dvg_iut *iut)
{
    return iut->error;
}

static uint64_t count_of(const dvg_tensor *t)
{
    uint64_t n = 1;
    for (uint32_t k = 0; k < t->rank; k++)
        n *= (uint64_t)t->shape[k];
    return n;
}

static int32_t tp_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                               const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                               int64_t *shape)
{
    (void)attrs;
    if (a->dtype != DVG_DTYPE_F32 && a->dtype != DVG_DTYPE_I32 && a->dtype != DVG_DTYPE_I4) {
        snprintf(iut->error, sizeof iut->error, "dtype %u is not supported", a->dtype);
        return DVG_UNSUPPORTED;
    }
    if (MODE == MODE_BADSHAPE && variant == DVG_VARIANT_ONNX_DIV_14) {
        *rank = 9;
        return DVG_OK;
    }
    if (MODE == MODE_BADSHAPE && variant == DVG_VARIANT_ONNX_DIV_7)
        shape[DVG_MAX_RANK] = 1; /* one past the buffer */
    int same = a->rank == b->rank;
    for (uint32_t k = 0; same && k < a->rank; k++)
        same = a->shape[k] == b->shape[k];
    if (!same && count_of(b) != 1) {
        snprintf(iut->error, sizeof iut->error, "shapes differ");
        return DVG_INVALID_INPUT;
    }
    *rank = a->rank;
    for (uint32_t k = 0; k < a->rank; k++)
        shape[k] = a->shape[k];
    return DVG_OK;
}

static int open_fds(void)
{
    int n = 0;
    for (int fd = 0; fd < 64; fd++)
        if (fcntl(fd, F_GETFD) >= 0)
            n++;
    return n;
}

static int32_t tp_compute(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                          const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    (void)variant;
    (void)attrs;
    uint64_t n = count_of(c), nb = count_of(b);
    iut->calls++;
    if (c->dtype == DVG_DTYPE_F32) {
        const float *x = a->data, *y = b->data;
        float *z = c->data;
        for (uint64_t i = 0; i < n; i++)
            if (!(MODE == MODE_UNWRITTEN && i == n - 1))
                z[i] = x[i] / y[nb == 1 ? 0 : i];
        if (MODE == MODE_NONDET && n)
            z[0] = (float)iut->calls;
        return DVG_OK;
    }
    if (c->dtype == DVG_DTYPE_I4) {
        /* Packed nibbles, low first; the unused high nibble of an odd
         * count's last byte is left alone. */
        const uint8_t *x = a->data, *y = b->data;
        uint8_t *z = c->data;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t j = nb == 1 ? 0 : i;
            int p = (x[i / 2] >> (4 * (i & 1))) & 0xf, q = (y[j / 2] >> (4 * (j & 1))) & 0xf;
            p = p >= 8 ? p - 16 : p;
            q = q >= 8 ? q - 16 : q;
            int v = q == 0 ? 0 : (p == -8 && q == -1) ? -8 : p / q;
            if (MODE == MODE_NONDET && i == 0)
                v = iut->calls;
            if (MODE == MODE_UNWRITTEN && i == n - 1)
                continue;
            int shift = 4 * (int)(i & 1);
            z[i / 2] = (uint8_t)((z[i / 2] & ~(0xf << shift)) | ((v & 0xf) << shift));
        }
        return DVG_OK;
    }
    const int32_t *x = a->data, *y = b->data;
    int32_t *z = c->data;
    int triggers = 0;
    for (uint64_t i = 0; i < n; i++) {
        int32_t p = x[i], q = y[nb == 1 ? 0 : i];
        if (p == TRIGGER_FAIL) {
            snprintf(iut->error, sizeof iut->error, "trigger failure at element %llu",
                     (unsigned long long)i);
            return DVG_FAILURE;
        }
        if (p == TRIGGER_FDS) {
            z[i] = open_fds();
            continue;
        }
        if (p == TRIGGER_PRIVS) {
            z[i] = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
            continue;
        }
        if (p == TRIGGER_OPTS) {
            z[i] = iut->opts;
            continue;
        }
        if (p == TRIGGER_ADDR) {
            z[i] = (int32_t)(((uintptr_t)a->data & 63) | ((uintptr_t)b->data & 63) << 8 |
                             ((uintptr_t)c->data & 63) << 16);
            continue;
        }
        if (p == TRIGGER) {
            triggers++;
            if (MODE == MODE_SEGV) {
                volatile int32_t *null = (volatile int32_t *)(uintptr_t)(p - TRIGGER);
                z[i] = *null;
            } else if (MODE == MODE_OOB) {
                z[n] = 1;
            } else if (MODE == MODE_UNDERFLOW) {
                z[-1] = 1;
            } else if (MODE == MODE_WRITE_A) {
                uintptr_t page = (uintptr_t)&x[i] & ~(uintptr_t)4095;
                mprotect((void *)page, 4096, PROT_READ | PROT_WRITE); /* must fail */
                ((int32_t *)(uintptr_t)x)[i] = 0;
            } else if (MODE == MODE_HANG) {
                for (volatile int spin = 0;; spin++)
                    ;
            } else if (MODE == MODE_EXIT) {
                exit(3);
            } else if (MODE == MODE_PAIR && triggers == 2) {
                volatile int32_t *null = (volatile int32_t *)(uintptr_t)(p - TRIGGER);
                z[i] = *null;
            }
        }
        if (MODE == MODE_UNWRITTEN && i == n - 1)
            continue;
        if (MODE == MODE_FPE)
            z[i] = p / q;
        else if (q == 0)
            z[i] = 0;
        else if (p == INT32_MIN && q == -1)
            z[i] = INT32_MIN;
        else
            z[i] = p / q;
    }
    if (MODE == MODE_NONDET && n)
        z[0] = iut->calls;
    return DVG_OK;
}

static const dvg_claim claims[] = {
    {DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32},
    {DVG_VARIANT_ONNX_DIV_13, MODE == MODE_BADCLAIM ? 99u : DVG_DTYPE_I32},
};

static const dvg_descriptor descriptor = {
    .size = MODE == MODE_ABI10 ? offsetof(dvg_descriptor, capabilities) : sizeof(dvg_descriptor),
    .abi_major = MODE == MODE_ABI2 ? 2 : DVG_ABI_MAJOR,
    .abi_minor = MODE == MODE_ABI10 ? 0 : DVG_ABI_MINOR,
    .name = "test-" TEST_PLUGIN_NAME,
    .version = "1.0",
    .n_claims = MODE == MODE_MANYCLAIMS ? 5000u : 2u,
    .claims = claims,
    .deviations = DVG_DEV_INT_DIV_ZERO_VALUE,
    .int_div_zero_value = 0,
    .open = tp_open,
    .output_shape = tp_output_shape,
    .compute = MODE == MODE_NULLFN ? NULL : tp_compute,
    .last_error = tp_last_error,
    .close = tp_close,
    /* ABI 1.1 (MODE_ABI10's size leaves them out: never read) */
    .capabilities = MODE == MODE_ABI11 || MODE == MODE_ABI10
                        ? DVG_CAP_IN_PLACE_A | DVG_CAP_THREADS : 0,
    .n_isa_levels = MODE == MODE_ABI11 || MODE == MODE_BADLEVEL || MODE == MODE_ABI10 ? 2u : 0u,
    .isa_levels = levels,
    .open_with = MODE == MODE_ABI11 || MODE == MODE_ABI10 ? tp_open_with : NULL,
};

#if MODE == MODE_NOENTRY
__attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor_v0(void)
#else
__attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
#endif
{
    if (MODE == MODE_NULLDESC)
        return NULL;
    if (MODE == MODE_LOADSEGV)
        return (const dvg_descriptor *)(uintptr_t)16;
    return &descriptor;
}
