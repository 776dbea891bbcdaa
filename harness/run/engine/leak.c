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

static uint64_t field(const leak_sample *s, size_t off)
{
    return *(const uint64_t *)((const char *)s + off);
}

int leak_read(const worker *w, leak_sample *s)
{
    int pid = worker_pid(w);
    memset(s, 0, sizeof *s);
    return pid > 0 ? read_sample(pid, s) : -1;
}

/* Steady growth of the field at `off` over the samples: every step up
 * and none below a quarter of the mean step, `min` in all, into *total;
 * the least and most bytes per call of a step into *lo, *hi. */
static int steady(const leak_watch *lw, size_t off, uint64_t min, uint64_t *total, uint64_t *lo,
                  uint64_t *hi)
{
    const leak_sample *s = lw->s;
    uint64_t first = field(&s[0], off), last = field(&s[lw->n - 1], off);
    if (last <= first || last - first < min)
        return 0;
    uint64_t mean = (last - first) / (lw->n - 1);
    *lo = UINT64_MAX;
    *hi = 0;
    for (uint32_t i = 1; i < lw->n; i++) {
        uint64_t a = field(&s[i - 1], off), b = field(&s[i], off);
        if (b <= a || (b - a) * 4 < mean)
            return 0;
        uint64_t calls = s[i].call > s[i - 1].call ? s[i].call - s[i - 1].call : 1;
        uint64_t per = (b - a) / calls;
        *lo = per < *lo ? per : *lo;
        *hi = per > *hi ? per : *hi;
    }
    *total = last - first;
    return 1;
}

static void new_life(leak_watch *lw, uint64_t life)
{
    memset(lw, 0, sizeof *lw);
    lw->life = life;
}

/* A cache (lw->cache) that grew past LEAK_CACHE_MAX_BYTES in the life:
 * LEAK_FOUND with its words in note. */
static int cache_past_bound(leak_watch *lw, char *note, size_t len)
{
    const leak_sample *last = &lw->s[lw->n - 1];
    uint64_t a = field(&lw->base, lw->grew), b = field(last, lw->grew);
    if (!lw->cache || b <= a || b - a <= LEAK_CACHE_MAX_BYTES)
        return LEAK_NONE;
    lw->reported = 1;
    snprintf(note, len,
             "%s grew %" PRIu64 " MiB over %" PRIu64 " calls of this worker life, past the "
             "bound of %" PRIu64 " MiB for a cache (identical calls added nothing: it grows "
             "%" PRIu64 "-%" PRIu64 " KiB per new shape, without a bound)",
             lw->grew_what, (b - a) >> 20, lw->calls, LEAK_CACHE_MAX_BYTES >> 20,
             lw->step_lo >> 10, lw->step_hi >> 10);
    return LEAK_FOUND;
}

int leak_note(leak_watch *lw, const worker *w, char *note, size_t len)
{
    uint64_t life = worker_spawns(w);
    if (life != lw->life)
        new_life(lw, life);
    lw->calls++;
    int pid = worker_pid(w);
    if (lw->calls % LEAK_EVERY || pid <= 0)
        return LEAK_NONE;
    leak_sample s;
    memset(&s, 0, sizeof s);
    if (read_sample(pid, &s))
        return LEAK_NONE;
    s.call = lw->calls;
    if (!lw->base.call)
        lw->base = s;
    if (lw->n == LEAK_SAMPLES) {
        memmove(lw->s, lw->s + 1, (LEAK_SAMPLES - 1) * sizeof lw->s[0]);
        lw->n--;
    }
    lw->growing = lw->n == 0 ? 1 : lw->growing && s.anon > lw->s[lw->n - 1].anon;
    lw->s[lw->n++] = s;
    if (lw->reported)
        return LEAK_NONE;
    if (cache_past_bound(lw, note, len))
        return LEAK_FOUND;
    if (lw->n < LEAK_SAMPLES)
        return LEAK_NONE;
    uint64_t calls = lw->s[lw->n - 1].call - lw->s[0].call, total, lo, hi;
    /* descriptors and threads first: their growth is a leak as it is */
    static const struct {
        size_t off;
        uint64_t min;
        const char *what;
        int bytes;
    } kinds[] = {
        {offsetof(leak_sample, fds), LEAK_MIN_COUNT, "open file descriptors", 0},
        {offsetof(leak_sample, threads), LEAK_MIN_COUNT, "threads", 0},
        {offsetof(leak_sample, anon), LEAK_MIN_BYTES, "resident memory", 1},
        {offsetof(leak_sample, mapped), LEAK_MIN_BYTES, "mapped memory", 1},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if ((LEAK_SANITIZED && kinds[k].bytes) ||
            !steady(lw, kinds[k].off, kinds[k].min, &total, &lo, &hi))
            continue;
        if (kinds[k].bytes) {
            snprintf(note, len,
                     "%s grew %" PRIu64 " KiB per call (a case: output_shape and compute twice), "
                     "steadily, over the last %" PRIu64 " calls (%" PRIu64
                     " MiB in all; %" PRIu64 " calls in this worker life)",
                     kinds[k].what, total / calls >> 10, calls, total >> 20, lw->calls);
            lw->grew = kinds[k].off;
            lw->grew_what = kinds[k].what;
            lw->step_lo = lw->cache && lw->step_lo < lo ? lw->step_lo : lo;
            lw->step_hi = lw->step_hi > hi ? lw->step_hi : hi;
            return LEAK_SUSPECT;
        }
        lw->reported = 1;
        snprintf(note, len,
                 "%s grew by %" PRIu64 " over the last %" PRIu64
                 " calls (one per %" PRIu64 " calls, steadily; %" PRIu64
                 " now, %" PRIu64 " calls in this worker life)",
                 kinds[k].what, total, calls, calls / total, field(&lw->s[lw->n - 1], kinds[k].off),
                 lw->calls);
        return LEAK_FOUND;
    }
    return LEAK_NONE;
}

/* What b holds more than a, resident or mapped (the larger). */
static uint64_t added_bytes(const leak_sample *a, const leak_sample *b)
{
    uint64_t anon = b->anon > a->anon ? b->anon - a->anon : 0;
    uint64_t mapped = b->mapped > a->mapped ? b->mapped - a->mapped : 0;
    return anon > mapped ? anon : mapped;
}

int leak_repeated(leak_watch *lw, const leak_sample s[3], uint32_t repeats, char *note,
                  size_t len)
{
    uint64_t added = s ? added_bytes(&s[0], &s[2]) : 0;
    int keeps = !s || (added_bytes(&s[0], &s[1]) >= LEAK_REPEAT_MIN_BYTES / 2 &&
                       added_bytes(&s[1], &s[2]) >= LEAK_REPEAT_MIN_BYTES / 2);
    if (!keeps) {
        /* a cache: its figure now, then watched on over a fresh window */
        const leak_sample *last = &lw->s[lw->n - 1];
        uint64_t a = field(&lw->base, lw->grew), b = field(last, lw->grew);
        lw->cache = 1;
        lw->cache_bytes = b > a ? b - a : 0;
        lw->cache_calls = last->call;
        lw->n = 0;
        return LEAK_NONE;
    }
    lw->reported = 1;
    size_t used = strlen(note);
    if (used < len) {
        if (s)
            snprintf(note + used, len - used,
                     "; %" PRIu32 " identical calls of one case added %" PRIu64
                     " KiB more (not a cache)", repeats, added >> 10);
        else
            snprintf(note + used, len - used,
                     "; the worker life ended while one case was repeated");
    }
    return LEAK_FOUND;
}

void leak_cache_figure(const leak_watch *lw, leak_cache *out)
{
    memset(out, 0, sizeof *out);
    if (!lw->cache)
        return;
    out->bytes = lw->cache_bytes;
    out->calls = lw->cache_calls;
    out->lo = lw->step_lo;
    out->hi = lw->step_hi;
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
