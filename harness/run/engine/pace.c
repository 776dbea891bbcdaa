/* SPDX-License-Identifier: MIT */
/*
 * This file contains the pace book (see pace.h): the plugin's time per
 * element by dtype and size, the median of a case's peers, and the words
 * of a performance cliff.
 */
#include "harness/run/engine/pace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/dtype.h"

uint64_t pace_run_ns(const worker_result *wr, int run)
{
    return wr->compute_cpu_ns[run] ? wr->compute_cpu_ns[run] : wr->compute_ns[run];
}

int pace_main_thread_ns(int pid, uint64_t *ns)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/schedstat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    unsigned long long v = 0;
    int ok = fscanf(f, "%llu", &v) == 1;
    fclose(f);
    *ns = v;
    return ok ? 0 : -1;
}

uint64_t pace_case_ns(const worker_result *wr)
{
    if (!wr->computed)
        return 0;
    uint64_t a = pace_run_ns(wr, 0), b = pace_run_ns(wr, 1);
    return a < b ? a : b;
}

static uint32_t log2_of(uint64_t n)
{
    uint32_t k = 0;
    while (n >>= 1)
        k++;
    return k;
}

static int cmp_float(const void *x, const void *y)
{
    float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

int pace_judge(const pace_book *b, uint32_t dtype, uint64_t count, uint64_t ns, pace_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (b->off || dtype >= DVG_DTYPE_COUNT || count < PACE_MIN_ELEMENTS || !ns)
        return 0;
    uint32_t k = log2_of(count);
    v->lo = k - PACE_BAND; /* count >= 2^10: no wrap */
    if (v->lo < log2_of(PACE_MIN_ELEMENTS))
        v->lo = log2_of(PACE_MIN_ELEMENTS); /* none smaller is kept */
    v->hi = k + PACE_BAND;
    float peer[PACE_KEEP];
    uint32_t have = b->n[dtype] < PACE_KEEP ? b->n[dtype] : PACE_KEEP;
    for (uint32_t i = 0; i < have; i++) {
        const pace_sample *s = &b->s[dtype][i];
        if (s->log2 >= v->lo && s->log2 <= v->hi)
            peer[v->peers++] = s->ns;
    }
    v->ns_per = (double)ns / (double)count;
    if (v->peers < PACE_PEERS)
        return 0;
    qsort(peer, v->peers, sizeof peer[0], cmp_float);
    v->median = v->peers & 1 ? peer[v->peers / 2]
                             : 0.5 * ((double)peer[v->peers / 2 - 1] + (double)peer[v->peers / 2]);
    return pace_is_cliff(v->ns_per, v->median, ns);
}

int pace_is_cliff(double ns_per, double median, uint64_t ns)
{
    return ns >= PACE_MIN_NS && median > 0 && ns_per >= PACE_RATIO * median;
}

double pace_median_of_note(const char *note)
{
    /* "... of 2^lo..2^hi elements (M ns per element)": the last parenthesis */
    const char *open = note ? strrchr(note, '(') : NULL;
    double median = 0;
    char tail[16] = "";
    if (!open || strstr(note, " times the median of ") == NULL ||
        sscanf(open, "(%lf ns per %15[a-z])", &median, tail) != 2 || strcmp(tail, "element") != 0)
        return 0;
    return median > 0 ? median : 0;
}

void pace_add(pace_book *b, uint32_t dtype, uint64_t count, uint64_t ns)
{
    if (b->off || dtype >= DVG_DTYPE_COUNT || count < PACE_MIN_ELEMENTS || !ns)
        return;
    pace_sample *s = &b->s[dtype][b->n[dtype] % PACE_KEEP];
    s->ns = (float)((double)ns / (double)count);
    s->log2 = (uint8_t)log2_of(count);
    b->n[dtype]++;
}

void pace_describe(const pace_verdict *v, uint32_t dtype, uint64_t count, uint64_t ns,
                   char *note, size_t len)
{
    snprintf(note, len,
             "compute took %.3g ns per element (%" PRIu64 " elements, %.3g ms; timed twice, the "
             "lesser), %.0f times the median of %u earlier %s cases of 2^%u..2^%u elements "
             "(%.3g ns per element)",
             v->ns_per, count, (double)ns / 1e6, v->ns_per / v->median, v->peers,
             oracle_dtype_tag(dtype), v->lo, v->hi + 1, v->median);
}
