/* SPDX-License-Identifier: MIT */
/*
 * This file contains the one allocation hook of the harness
 * (harness/base/alloc.h): malloc, calloc, realloc and strdup that count
 * every allocation and fail the Nth (and, sticky, every one after it) when
 * a test asks. The counter and the settings are C11 atomics: the job
 * threads of a certify or fuzz run allocate at the same time, and each
 * allocation takes its own number.
 */
#include "harness/base/alloc.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic uint64_t alloc_count;
static _Atomic uint64_t fail_at;
static atomic_int fail_sticky;

static int should_fail(void)
{
    /* Relaxed: the count orders nothing else, it only numbers the calls. */
    uint64_t nth = atomic_fetch_add_explicit(&alloc_count, 1, memory_order_relaxed) + 1;
    uint64_t at = atomic_load_explicit(&fail_at, memory_order_acquire);
    if (at == 0)
        return 0;
    return atomic_load_explicit(&fail_sticky, memory_order_relaxed) ? nth >= at : nth == at;
}

void *dvg_malloc(size_t n)
{
    return should_fail() ? NULL : malloc(n ? n : 1);
}

void *dvg_calloc(size_t count, size_t n)
{
    return should_fail() ? NULL : calloc(count ? count : 1, n ? n : 1);
}

void *dvg_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : realloc(p, n ? n : 1);
}

char *dvg_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = dvg_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

void dvg_free(void *p)
{
    free(p);
}

uint64_t dvg_alloc_fail_at(uint64_t nth, int sticky)
{
    /* Turned off first, so no allocation between the steps fails by the
     * old setting against the new count. */
    atomic_store(&fail_at, 0);
    uint64_t made = atomic_exchange(&alloc_count, 0);
    atomic_store(&fail_sticky, sticky);
    atomic_store(&fail_at, nth);
    return made;
}

uint64_t dvg_alloc_count(void)
{
    return atomic_load(&alloc_count);
}

int dvg_grow(void **arr, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) {
        if (n > SIZE_MAX / 2 / size)
            return -1;
        n *= 2;
    }
    void *q = dvg_realloc(*arr, n * size);
    if (!q)
        return -1;
    *arr = q;
    *cap = n;
    return 0;
}
