/* SPDX-License-Identifier: MIT */
/*
 * This file contains the resource watch of a worker's life (see leak.h):
 * samples read from /proc of the child that serves the calls, and the
 * rule that calls their growth a leak.
 */
#include "harness/run/engine/leak.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

void leak_init(leak_watch *lw)
{
    memset(lw, 0, sizeof *lw);
}

/* Reads the sample of process pid. 0, or -1 (it is gone). */
/* An AddressSanitizer build (the worker program and the plugin's mallocs
 * under ASan's allocator): its quarantine holds freed memory back, so a
 * worker's memory grows from call to call without a leak. There memory is
 * not judged; descriptors and threads still are. */
#if defined(__SANITIZE_ADDRESS__)
#define LEAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEAK_SANITIZED 1
#endif
#endif
#ifndef LEAK_SANITIZED
#define LEAK_SANITIZED 0
#endif

static int read_sample(int pid, leak_sample *s)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long long v;
        if (sscanf(line, "RssAnon: %llu kB", &v) == 1)
            s->anon = (uint64_t)v << 10;
        else if (sscanf(line, "VmSize: %llu kB", &v) == 1)
            s->mapped = (uint64_t)v << 10;
        else if (sscanf(line, "Threads: %llu", &v) == 1)
            s->threads = v;
    }
    fclose(f);
    snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            s->fds += e->d_name[0] != '.';
        closedir(d);
    }
    return 0;
}

/* Steady growth of the field at `off` over the samples: every step up
 * and none below a quarter of the mean step, `min` in all, into *total. */
static int steady(const leak_watch *lw, size_t off, uint64_t min, uint64_t *total)
{
    const leak_sample *s = lw->s;
    uint64_t first = *(const uint64_t *)((const char *)&s[0] + off);
    uint64_t last = *(const uint64_t *)((const char *)&s[lw->n - 1] + off);
    if (last <= first || last - first < min)
        return 0;
    uint64_t mean = (last - first) / (lw->n - 1);
    for (uint32_t i = 1; i < lw->n; i++) {
        uint64_t a = *(const uint64_t *)((const char *)&s[i - 1] + off);
        uint64_t b = *(const uint64_t *)((const char *)&s[i] + off);
        if (b <= a || (b - a) * 4 < mean)
            return 0;
    }
    *total = last - first;
    return 1;
}

static void new_life(leak_watch *lw, uint64_t life)
{
    memset(lw, 0, sizeof *lw);
    lw->life = life;
}

int leak_note(leak_watch *lw, const worker *w, char *note, size_t len)
{
    uint64_t life = worker_spawns(w);
    if (life != lw->life)
        new_life(lw, life);
    lw->calls++;
    int pid = worker_pid(w);
    if (lw->calls % LEAK_EVERY || pid <= 0)
        return 0;
    leak_sample s;
    memset(&s, 0, sizeof s);
    if (read_sample(pid, &s))
        return 0;
    s.call = lw->calls;
    if (lw->n == LEAK_SAMPLES) {
        memmove(lw->s, lw->s + 1, (LEAK_SAMPLES - 1) * sizeof lw->s[0]);
        lw->n--;
    }
    lw->growing = lw->n == 0 ? 1 : lw->growing && s.anon > lw->s[lw->n - 1].anon;
    lw->s[lw->n++] = s;
    if (lw->reported || lw->n < LEAK_SAMPLES)
        return 0;
    uint64_t calls = lw->s[lw->n - 1].call - lw->s[0].call, total;
    static const struct {
        size_t off;
        uint64_t min;
        const char *what;
        int bytes;
    } kinds[] = {
        {offsetof(leak_sample, anon), LEAK_MIN_BYTES, "resident memory", 1},
        {offsetof(leak_sample, mapped), LEAK_MIN_BYTES, "mapped memory", 1},
        {offsetof(leak_sample, fds), LEAK_MIN_COUNT, "open file descriptors", 0},
        {offsetof(leak_sample, threads), LEAK_MIN_COUNT, "threads", 0},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if ((LEAK_SANITIZED && kinds[k].bytes) || !steady(lw, kinds[k].off, kinds[k].min, &total))
            continue;
        lw->reported = 1;
        if (kinds[k].bytes)
            snprintf(note, len,
                     "%s grew %" PRIu64 " KiB per call (a case: output_shape and compute twice), "
                     "steadily, over the last %" PRIu64 " calls (%" PRIu64
                     " MiB in all; %" PRIu64 " calls in this worker life)",
                     kinds[k].what, total / calls >> 10, calls, total >> 20, lw->calls);
        else
            snprintf(note, len,
                     "%s grew by %" PRIu64 " over the last %" PRIu64
                     " calls (one per %" PRIu64 " calls, steadily; %" PRIu64
                     " now, %" PRIu64 " calls in this worker life)",
                     kinds[k].what, total, calls, calls / total,
                     *(const uint64_t *)((const char *)&lw->s[lw->n - 1] + kinds[k].off),
                     lw->calls);
        return 1;
    }
    return 0;
}

int leak_explains_failure(const leak_watch *lw, const worker *w, char *note, size_t len)
{
    if (LEAK_SANITIZED || lw->life != worker_spawns(w) || !(lw->reported || (lw->growing && lw->n >= 3)))
        return 0;
    const leak_sample *a = &lw->s[0], *b = &lw->s[lw->n - 1];
    uint64_t calls = b->call > a->call ? b->call - a->call : 1;
    snprintf(note, len,
             "after %" PRIu64 " calls of this worker life, whose resident memory grew %" PRIu64
             " KiB per call (%" PRIu64 " MiB at the last sample)",
             lw->calls, (b->anon > a->anon ? b->anon - a->anon : 0) / calls >> 10, b->anon >> 20);
    return 1;
}
