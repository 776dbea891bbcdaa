/* SPDX-License-Identifier: MIT */
/*
 * This file contains the call history of a worker's life and its probe
 * (see history.h): a departure tried alone on a fresh child, then after
 * the calls before it, and those calls minimised by delta debugging.
 */
#include "harness/run/engine/history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cases/casefile.h"
#include "oracle/compare.h"

void history_init(history *h)
{
    memset(h, 0, sizeof *h);
}

int history_current(const history *h, const worker *w)
{
    return h->life == worker_spawns(w);
}

/* FNV-1a over the ranks and dims of c's operands. */
static uint64_t shapes_hash(const divcase *c)
{
    uint64_t x = UINT64_C(14695981039346656037);
    const oracle_shape *sh[2] = {&c->a_shape, &c->b_shape};
    for (int k = 0; k < 2; k++) {
        x = (x ^ sh[k]->rank) * UINT64_C(1099511628211);
        for (uint32_t i = 0; i < sh[k]->rank; i++)
            x = (x ^ (uint64_t)sh[k]->dims[i]) * UINT64_C(1099511628211);
    }
    return x;
}

static void push_hashed(history *h, const worker *w, uint64_t key, uint64_t hash)
{
    uint64_t life = worker_spawns(w);
    if (life != h->life) {
        h->n = 0;
        h->calls = 0;
        h->life = life;
    }
    if (h->n == HISTORY_MAX) { /* the oldest half goes at once */
        uint32_t keep = HISTORY_MAX / 2;
        memmove(h->keys, h->keys + (HISTORY_MAX - keep), keep * sizeof h->keys[0]);
        memmove(h->shapes, h->shapes + (HISTORY_MAX - keep), keep * sizeof h->shapes[0]);
        h->n = keep;
    }
    h->keys[h->n] = key;
    h->shapes[h->n++] = hash;
    h->calls++;
}

void history_push(history *h, const worker *w, uint64_t key, const divcase *c)
{
    push_hashed(h, w, key, shapes_hash(c));
}

/* One test: a fresh child, the calls keys[0..n), then c. 1 when c shows
 * class cls, 0 when not, SHOWS_UNSURE when c did not run to an answer
 * there (it hung, crashed or failed, and cls is none of those: a loaded
 * machine, not the calls before, may be why), -1 on a harness error. */
#define SHOWS_UNSURE 2
static int shows(trial *probe, const history_source *src, const uint64_t *keys, uint32_t n,
                 const divcase *c, uint32_t cls, uint32_t *tests)
{
    (*tests)++;
    worker_renew(probe->w);
    for (uint32_t i = 0; i < n; i++) {
        divcase e;
        memset(&e, 0, sizeof e);
        if (src->build(src->ctx, keys[i], &e)) {
            snprintf(probe->error, sizeof probe->error, "out of memory building an earlier call");
            return -1;
        }
        int v = trial_run(probe, &e, NULL, NULL, NULL);
        src->release(src->ctx, &e);
        if (v < 0)
            return -1;
    }
    verdict_tally tally;
    memset(&tally, 0, sizeof tally);
    if (trial_run(probe, c, &tally, NULL, NULL) < 0)
        return -1;
    if (tally.counts[cls] > 0 || tally.class_cases[cls] > 0)
        return 1;
    static const uint32_t no_answer[] = {ORACLE_CLASS_HANG, ORACLE_CLASS_CRASH,
                                         ORACLE_CLASS_FAILURE};
    for (size_t i = 0; i < sizeof no_answer / sizeof no_answer[0]; i++)
        if (tally.class_cases[no_answer[i]] || tally.counts[no_answer[i]])
            return SHOWS_UNSURE;
    return 0;
}

/* shows(), where an unsure test counts as one that did not show. */
static int shows_surely(trial *probe, const history_source *src, const uint64_t *keys,
                        uint32_t n, const divcase *c, uint32_t cls, uint32_t *tests)
{
    int v = shows(probe, src, keys, n, c, cls, tests);
    return v == SHOWS_UNSURE ? 0 : v;
}

/* Delta debugging (Zeller's ddmin) over the calls s[0..*n): the subsets
 * and complements of a growing number of chunks, order kept, while one
 * still shows the class. *n shrinks in place. 0, or -1. */
static int ddmin(trial *probe, const history_source *src, uint64_t *s, uint32_t *n,
                 const divcase *c, uint32_t cls, uint32_t *tests)
{
    uint32_t chunks = 2;
    uint64_t cand[HISTORY_WINDOW];
    while (*n >= 2 && *tests < HISTORY_MAX_TESTS) {
        int reduced = 0;
        uint32_t len = *n;
        /* each chunk alone, then each complement */
        for (int pass = 0; pass < 2 && !reduced; pass++) {
            for (uint32_t k = 0; k < chunks && !reduced && *tests < HISTORY_MAX_TESTS; k++) {
                uint32_t from = (uint32_t)((uint64_t)len * k / chunks);
                uint32_t to = (uint32_t)((uint64_t)len * (k + 1) / chunks);
                uint32_t m = 0;
                for (uint32_t i = 0; i < len; i++)
                    if ((i >= from && i < to) == (pass == 0))
                        cand[m++] = s[i];
                if (m == 0 || m == len)
                    continue;
                int v = shows_surely(probe, src, cand, m, c, cls, tests);
                if (v < 0)
                    return -1;
                if (v) {
                    memcpy(s, cand, m * sizeof s[0]);
                    *n = m;
                    reduced = 1;
                    chunks = pass == 0 ? 2 : (chunks > 2 ? chunks - 1 : 2);
                }
            }
        }
        if (!reduced) {
            if (chunks >= len)
                break;
            chunks = chunks * 2 < len ? chunks * 2 : len;
        }
    }
    return 0;
}

/* The history after a probe: the last test's calls (their shapes from
 * the old history, `old`) and c. */
static void history_set(history *h, const worker *w, const uint64_t *keys, uint32_t n,
                        uint64_t key, const divcase *c)
{
    static _Thread_local history old;
    old = *h;
    h->n = 0;
    h->calls = 0;
    h->life = worker_spawns(w);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t hash = 0;
        for (uint32_t j = old.n; j-- > 0;)
            if (old.keys[j] == keys[i]) {
                hash = old.shapes[j];
                break;
            }
        push_hashed(h, w, keys[i], hash);
    }
    history_push(h, w, key, c);
}

int history_explain(history *h, trial *probe, const divcase *c, uint64_t key, uint32_t cls,
                    const history_source *src, history_finding *out)
{
    memset(out, 0, sizeof *out);
    uint64_t s[HISTORY_WINDOW];
    uint32_t all = history_current(h, probe->w) ? h->n : 0;
    uint32_t n = all < HISTORY_WINDOW ? all : HISTORY_WINDOW;
    memcpy(s, h->keys + (all - n), n * sizeof s[0]);
    /* alone, twice: a dependency is claimed only for a case that twice
     * ran to an answer without the class on a fresh child */
    int v = shows(probe, src, NULL, 0, c, cls, &out->tests);
    if (v == 0)
        v = shows(probe, src, NULL, 0, c, cls, &out->tests);
    if (v != 0) {
        if (v > 0)
            history_set(h, probe->w, NULL, 0, key, c);
        /* alone it gave no answer: nothing can be said of the calls before */
        return v < 0 ? -1 : v == SHOWS_UNSURE ? 2 : 0;
    }
    /* the latest calls with c's shapes, one at a time */
    uint64_t mine = shapes_hash(c);
    uint32_t tried = 0;
    for (uint32_t i = all; i-- > 0 && tried < HISTORY_SAME_SHAPES;) {
        if (h->shapes[i] != mine)
            continue;
        tried++;
        uint64_t one = h->keys[i];
        v = shows_surely(probe, src, &one, 1, c, cls, &out->tests);
        if (v < 0)
            return -1;
        if (v) {
            out->keys[0] = one;
            out->n = 1;
            history_set(h, probe->w, &one, 1, key, c);
            return 1;
        }
    }
    if (n == 0) {
        history_set(h, probe->w, NULL, 0, key, c);
        return 2;
    }
    v = shows_surely(probe, src, s, n, c, cls, &out->tests);
    if (v <= 0) {
        history_set(h, probe->w, s, n, key, c);
        return v < 0 ? -1 : 2;
    }
    if (ddmin(probe, src, s, &n, c, cls, &out->tests))
        return -1;
    /* The last test may have been one that did not show: end where the
     * minimised sequence leaves the plugin. */
    if (shows_surely(probe, src, s, n, c, cls, &out->tests) < 0)
        return -1;
    memcpy(out->keys, s, n * sizeof s[0]);
    out->n = n;
    history_set(h, probe->w, s, n, key, c);
    return 1;
}

int history_probes_class(uint32_t cls)
{
    return cls != ORACLE_CLASS_HANG && cls != ORACLE_CLASS_EARLIER_CALLS &&
           cls != ORACLE_CLASS_RESOURCE_LEAK && cls != ORACLE_CLASS_LATE_WRITE &&
           cls != ORACLE_CLASS_PERFORMANCE_CLIFF && cls < 64;
}

void history_describe(const history_source *src, uint32_t cls, const history_finding *f,
                      char *note, size_t len)
{
    char ids[320];
    size_t at = 0;
    ids[0] = '\0';
    for (uint32_t i = 0; i < f->n && at < sizeof ids; i++) {
        divcase e;
        memset(&e, 0, sizeof e);
        if (src->build(src->ctx, f->keys[i], &e))
            break;
        int w = snprintf(ids + at, sizeof ids - at, "%s%s", i ? ", " : "", e.id);
        src->release(src->ctx, &e);
        if (w < 0)
            break;
        at += (size_t)w;
    }
    snprintf(note, len,
             "%s only after %u earlier call%s on the same worker (%s); alone on a fresh worker "
             "the case conforms (%u probe runs)",
             oracle_class_name(cls), f->n, f->n == 1 ? "" : "s", ids, f->tests);
}

int history_calls_text(const history_source *src, const uint64_t *keys, uint32_t n, char **text)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = -1;
    *text = NULL;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        divcase e;
        char name[160];
        memset(&e, 0, sizeof e);
        if (src->build(src->ctx, keys[i], &e))
            goto done;
        snprintf(name, sizeof name, "call%u-%s", i + 1, e.id);
        int w = casefile_write(f, name, &e, NULL);
        src->release(src->ctx, &e);
        if (w)
            goto done;
    }
    rc = 0;
done:
    if (fclose(f))
        rc = -1;
    if (rc == 0) {
        *text = dvg_malloc(len + 1);
        if (*text) {
            memcpy(*text, buf ? buf : "", len);
            (*text)[len] = '\0';
        } else {
            rc = -1;
        }
    }
    free(buf); /* open_memstream's, from the C library */
    return rc;
}
