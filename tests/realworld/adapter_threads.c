/* SPDX-License-Identifier: MIT */
/*
 * tests/realworld/adapter_threads.c: does a library adapter honour ABI
 * 1.1's thread count? Loads the plugin in this process (dlopen), opens an
 * instance with open_with(threads = N) (N = 0: with open, the plugin's
 * default), divides two f32 tensors of 2^22 elements under onnx-div-14 a
 * few times, and prints
 *     threads N: before B, peak P, after A
 * B: this process's threads (/proc/self/task) after loading, P: the most
 * seen while the divisions run (a sampler thread, itself not counted,
 * reads /proc/self/task every 100 us), A: after close. The thread pools
 * the libraries keep (OpenMP, ONNX Runtime's intra-op pool, pthreadpool,
 * Eigen's ThreadPool) stay for the process's life or the instance's, so P
 * minus B is the pool the count gave. Exit 1 when the plugin does not
 * declare DVG_CAP_THREADS (with N > 0) or a call fails, 2 on usage.
 *
 * test_adapter_threads.sh runs it at 1 and 3 threads, each in its own
 * process (OpenMP's pool is process-wide), and compares.
 *
 * Usage: adapter_threads PLUGIN.so N
 */
#include <dirent.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "divergence/iut.h"

#define ELEMENTS (1u << 22)
#define ROUNDS 8

static atomic_int sampling = 1;
static atomic_int peak;

static int task_count(void)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    int n = 0;
    if (!d)
        return -1;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void *sampler(void *arg)
{
    const struct timespec pause = {0, 100000};
    (void)arg;
    while (atomic_load(&sampling)) {
        int n = task_count() - 1; /* not this thread */
        if (n > atomic_load(&peak))
            atomic_store(&peak, n);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static dvg_tensor tensor(void *data)
{
    dvg_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = DVG_DTYPE_F32;
    t.rank = 2;
    t.shape[0] = 1024;
    t.shape[1] = ELEMENTS / 1024;
    t.data = data;
    t.nbytes = (uint64_t)ELEMENTS * sizeof(float);
    return t;
}

int main(int argc, char **argv)
{
    const dvg_descriptor *(*entry)(void);
    const dvg_descriptor *D;
    dvg_iut *iut = NULL;
    dvg_open_options opt;
    dvg_attrs at;
    pthread_t th;
    float *a, *b, *c;
    void *h;
    int before, after, st = 1;
    char *end;
    unsigned long n;

    if (argc != 3 || (n = strtoul(argv[2], &end, 10), *end) || n > 1024) {
        fprintf(stderr, "usage: adapter_threads PLUGIN.so N (0..1024)\n");
        return 2;
    }
    h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "adapter_threads: %s\n", dlerror());
        return 2;
    }
    *(void **)&entry = dlsym(h, "dvg_iut_descriptor");
    D = entry ? entry() : NULL;
    if (!D || D->size < sizeof *D || D->abi_minor < 1) {
        fprintf(stderr, "adapter_threads: %s: no ABI 1.1 descriptor\n", argv[1]);
        return 2;
    }
    if (n && (!(D->capabilities & DVG_CAP_THREADS) || !D->open_with)) {
        fprintf(stderr, "adapter_threads: %s does not declare DVG_CAP_THREADS\n", D->name);
        return 1;
    }
    a = malloc((size_t)ELEMENTS * sizeof *a);
    b = malloc((size_t)ELEMENTS * sizeof *b);
    c = malloc((size_t)ELEMENTS * sizeof *c);
    if (!a || !b || !c)
        return 2;
    for (uint32_t i = 0; i < ELEMENTS; i++) {
        a[i] = (float)i + 1.0f;
        b[i] = (float)(i % 1000) + 3.0f;
    }
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    at.axis = -1;
    at.pythondiv = 1;
    at.auto_broadcast = DVG_BROADCAST_NUMPY;
    memset(&opt, 0, sizeof opt);
    opt.size = sizeof opt;
    opt.threads = (uint32_t)n;

    before = task_count();
    if (pthread_create(&th, NULL, sampler, NULL))
        return 2;
    if ((n ? D->open_with("", &opt, &iut) : D->open("", &iut)) != DVG_OK) {
        fprintf(stderr, "adapter_threads: %s: open failed\n", D->name);
        goto done;
    }
    for (int r = 0; r < ROUNDS; r++) {
        dvg_tensor ta = tensor(a), tb = tensor(b), tc = tensor(c);
        if (D->compute(iut, DVG_VARIANT_ONNX_DIV_14, &at, &ta, &tb, &tc) != DVG_OK) {
            fprintf(stderr, "adapter_threads: %s: compute: %s\n", D->name, D->last_error(iut));
            goto done;
        }
    }
    for (uint32_t i = 0; i < ELEMENTS; i += 4097)
        if (c[i] != a[i] / b[i]) {
            fprintf(stderr, "adapter_threads: %s: element %u is wrong\n", D->name, i);
            goto done;
        }
    st = 0;
done:
    D->close(iut);
    atomic_store(&sampling, 0);
    pthread_join(th, NULL);
    after = task_count();
    printf("threads %lu: before %d, peak %d, after %d\n", n, before, atomic_load(&peak), after);
    free(a);
    free(b);
    free(c);
    return st;
}
