/* SPDX-License-Identifier: MIT */
#include "harness/base/alloc.h"

#include <stdlib.h>
#include <string.h>

static uint64_t alloc_count;
static uint64_t fail_at;
static int fail_sticky;

static int should_fail(void)
{
    alloc_count++;
    if (fail_at == 0)
        return 0;
    return fail_sticky ? alloc_count >= fail_at : alloc_count == fail_at;
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
    uint64_t made = alloc_count;
    alloc_count = 0;
    fail_at = nth;
    fail_sticky = sticky;
    return made;
}

uint64_t dvg_alloc_count(void)
{
    return alloc_count;
}
