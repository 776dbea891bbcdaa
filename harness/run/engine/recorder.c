/* SPDX-License-Identifier: MIT */
/*
 * This file contains the finding recorder (see recorder.h): the sightings
 * a command adds (departures and hazards, each with its words and its
 * reproducer case), the rule that keeps a sighting whole or only counts
 * it, the move of sightings from one recorder to another, and the one
 * place where a sighting becomes the store's finding.
 */
#include "harness/run/engine/recorder.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/run/engine/crosscheck.h"

struct recorder_sighting {
    uint32_t tag;
    long sig;                /* index into recorder.sig */
    int whole;               /* 1: c is held (owned) */
    int hazard;              /* HAZARD_*, or -1 for a departure */
    divcase c;
    int64_t element;         /* in c; -1: the whole case */
    verdict_example ex;
    uint64_t ulps;
    char *expected, *actual, *note; /* owned; NULL: none */
    char *calls;             /* the earlier calls it needs; owned; NULL: none */
    int64_t sig_id;          /* after recorder_write */
};

struct recorder_signature {
    char *implementation;    /* owned */
    const char *cls;         /* a static class or hazard name */
    char operand[64];
    uint32_t whole;          /* whole sightings */
    size_t first;            /* the first whole one */
    uint64_t counted;        /* sightings only counted */
};

void recorder_init(recorder *r, uint32_t max_whole, uint64_t max_bytes)
{
    memset(r, 0, sizeof *r);
    r->max_whole = max_whole;
    r->max_bytes = max_bytes;
}

static void sighting_free(recorder_sighting *s)
{
    if (s->whole)
        divcase_free(&s->c);
    dvg_free(s->expected);
    dvg_free(s->actual);
    dvg_free(s->note);
    dvg_free(s->calls);
    memset(s, 0, sizeof *s);
}

void recorder_clear(recorder *r)
{
    for (size_t i = 0; i < r->n; i++)
        sighting_free(&r->s[i]);
    for (size_t k = 0; k < r->n_sig; k++)
        dvg_free(r->sig[k].implementation);
    r->n = r->n_sig = 0;
    r->bytes = 0;
    r->full = 0;
}

void recorder_free(recorder *r)
{
    if (!r)
        return;
    recorder_clear(r);
    dvg_free(r->s);
    dvg_free(r->sig);
    r->s = NULL;
    r->sig = NULL;
    r->cap = r->cap_sig = 0;
}

/* A copy of s (NULL: NULL); *failed set when memory runs out. */
static char *dup_text(const char *s, int *failed)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = dvg_malloc(n);
    if (d)
        memcpy(d, s, n);
    else
        *failed = 1;
    return d;
}

/* The signature (implementation, class, operand classes), made when new:
 * its index, or -1 out of memory. */
static long signature_of(recorder *r, const char *implementation, const char *cls,
                         const char *operand)
{
    for (size_t k = 0; k < r->n_sig; k++)
        if (r->sig[k].cls == cls && !strcmp(r->sig[k].operand, operand) &&
            !strcmp(r->sig[k].implementation, implementation))
            return (long)k;
    int failed = 0;
    if (dvg_grow((void **)&r->sig, &r->cap_sig, r->n_sig + 1, sizeof *r->sig))
        return -1;
    recorder_signature *g = &r->sig[r->n_sig];
    memset(g, 0, sizeof *g);
    g->implementation = dup_text(implementation, &failed);
    if (failed)
        return -1;
    g->cls = cls;
    snprintf(g->operand, sizeof g->operand, "%s", operand);
    return (long)r->n_sig++;
}

/* 1 when a sighting of signature g with `bytes` of operands is kept
 * whole (recorder.h); sets r->full when the byte limit turns it down. */
static int keeps_whole(recorder *r, const recorder_signature *g, uint64_t bytes)
{
    if (!g->whole)
        return 1;
    if (g->whole >= r->max_whole || r->full)
        return 0;
    if (r->bytes + bytes > r->max_bytes) {
        r->full = 1;
        return 0;
    }
    return 1;
}

/* Appends a sighting of signature k; its case `c` (copied, or moved when
 * *owned) when kept whole. Returns its index, or -1 out of memory. */
static long append(recorder *r, long k, const divcase *c, int *owned, recorder_sighting *proto)
{
    assert(k >= 0 && (size_t)k < r->n_sig);
    if (dvg_grow((void **)&r->s, &r->cap, r->n + 1, sizeof *r->s))
        return -1;
    recorder_signature *g = &r->sig[k];
    recorder_sighting *s = &r->s[r->n];
    *s = *proto;
    s->sig = k;
    s->tag = r->tag;
    uint64_t bytes = c ? c->a_bytes + c->b_bytes : 0;
    s->whole = c && keeps_whole(r, g, bytes);
    if (s->whole) {
        if (*owned) {
            s->c = *c;
            *owned = 0;
        } else if (divcase_copy(&s->c, c)) {
            s->whole = 0;
            return -1;
        }
        if (!g->whole++)
            g->first = r->n;
        r->bytes += bytes;
        /* the limits of recorder.h: the first sighting always, then
         * max_whole and max_bytes */
        assert(g->whole == 1 || (g->whole <= r->max_whole && r->bytes <= r->max_bytes));
    } else {
        g->counted++;
    }
    return (long)r->n++;
}

/* Adds a sighting: its words copied. -1 out of memory. */
static long add(recorder *r, const char *implementation, const char *cls, int hazard,
                const divcase *c, int *owned, int64_t element, const verdict_example *ex,
                const char *actual, const char *note)
{
    verdict_words w;
    verdict_example_words(c->dtype, ex, &w);
    long k = signature_of(r, implementation, cls, w.operand);
    if (k < 0)
        return -1;
    int failed = 0;
    recorder_sighting proto;
    memset(&proto, 0, sizeof proto);
    proto.hazard = hazard;
    proto.element = element;
    proto.ex = *ex;
    proto.ulps = hazard < 0 && ex->cls == ORACLE_CLASS_WRONG_VALUE ? ex->ulps : UINT64_MAX;
    proto.expected = dup_text(ex->index == UINT64_MAX ? NULL : w.expected, &failed);
    proto.actual = dup_text(actual ? actual : ex->index == UINT64_MAX ? NULL : w.actual, &failed);
    proto.note = dup_text(note, &failed);
    long i = failed ? -1 : append(r, k, c, owned, &proto);
    if (i < 0)
        sighting_free(&proto);
    return i;
}

long recorder_departure(recorder *r, const char *implementation, const trial *t,
                        const divcase *c, const verdict_example *ex, const char *note)
{
    divcase tmp;
    int owned = 0;
    const divcase *rc = t ? trial_reproducer_case(t, c, ex, &tmp, &owned) : c;
    int64_t element = ex->index == UINT64_MAX ? -1 : owned ? 0 : (int64_t)ex->index;
    long i = add(r, implementation, oracle_class_name(ex->cls), -1, rc, &owned, element, ex, NULL,
                 note ? note : ex->note[0] ? ex->note : NULL);
    if (owned)
        divcase_free(&tmp);
    return i;
}

long recorder_hazard(recorder *r, const char *implementation, uint32_t hazard, const divcase *c,
                     const verdict_example *ex, const char *given, const char *note)
{
    int owned = 0;
    return add(r, implementation, hazard_name(hazard), (int)hazard, c, &owned,
               (int64_t)ex->index, ex, given, note);
}

void recorder_set_calls(recorder *r, long handle, char *text)
{
    assert(handle >= 0 && (size_t)handle < r->n);
    recorder_sighting *s = &r->s[handle];
    dvg_free(s->calls);
    s->calls = text;
}

size_t recorder_count(const recorder *r)
{
    return r->n;
}

uint32_t recorder_tag(const recorder *r, size_t i)
{
    assert(i < r->n);
    return r->s[i].tag;
}

const verdict_example *recorder_example(const recorder *r, size_t i)
{
    assert(i < r->n);
    return &r->s[i].ex;
}

int recorder_is_departure(const recorder *r, size_t i)
{
    assert(i < r->n);
    return r->s[i].hazard < 0;
}

long recorder_take(recorder *r, recorder *from, size_t i)
{
    assert(i < from->n && r != from);
    recorder_sighting *f = &from->s[i];
    const recorder_signature *fg = &from->sig[f->sig];
    long k = signature_of(r, fg->implementation, fg->cls, fg->operand);
    if (k < 0)
        return -1;
    recorder_sighting proto = *f;
    int owned = f->whole;
    /* the strings and the case now belong to r (or are freed with proto) */
    f->expected = f->actual = f->note = f->calls = NULL;
    f->whole = 0;
    memset(&f->c, 0, sizeof f->c);
    proto.whole = 0;
    long at = append(r, k, owned ? &proto.c : NULL, &owned, &proto);
    if (owned)
        divcase_free(&proto.c);
    if (at < 0) {
        sighting_free(&proto);
        return -1;
    }
    return at;
}

/* The store's finding of sighting s: the one place a stored finding is
 * built. */
static void finding_of(const recorder *r, const recorder_sighting *s, store_finding *f)
{
    const recorder_signature *g = &r->sig[s->sig];
    *f = (store_finding){
        .implementation = g->implementation,
        .cls = s->ex.cls,
        .class_name = s->hazard < 0 ? NULL : g->cls,
        .operand_class = g->operand,
        .c = &s->c,
        .element = s->element,
        .expected = s->expected,
        .actual = s->actual,
        .ulps = s->ulps,
        .note = s->note,
        .calls_before = s->calls,
    };
}

int recorder_write(recorder *r, store *db, int64_t run_id, uint64_t *new_signatures)
{
    store_finding f;
    for (size_t i = 0; i < r->n; i++) {
        recorder_sighting *s = &r->s[i];
        if (!s->whole)
            continue;
        int is_new = 0;
        finding_of(r, s, &f);
        if (store_record_finding(db, run_id, &f, &s->sig_id, &is_new))
            return -1;
        if (new_signatures)
            *new_signatures += (uint64_t)is_new;
    }
    /* The sightings only counted: occurrences with a dropped reproducer,
     * as the store counts those past its own limit. */
    int rc = 0;
    store_set_reproducer_limit(db, 0);
    for (size_t k = 0; k < r->n_sig && rc == 0; k++) {
        if (!r->sig[k].whole)
            continue;
        finding_of(r, &r->s[r->sig[k].first], &f);
        for (uint64_t n = 0; n < r->sig[k].counted && rc == 0; n++)
            rc = store_record_finding(db, run_id, &f, NULL, NULL);
    }
    store_set_reproducer_limit(db, STORE_DEFAULT_REPRODUCERS);
    return rc;
}

int64_t recorder_signature_id(const recorder *r, long handle)
{
    if (handle < 0 || (size_t)handle >= r->n)
        return 0;
    const recorder_sighting *s = &r->s[handle];
    return s->whole ? s->sig_id : r->sig[s->sig].whole ? r->s[r->sig[s->sig].first].sig_id : 0;
}

int64_t recorder_first_of_class(const recorder *r, uint32_t cls)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->s[i].whole && r->s[i].hazard < 0 && r->s[i].ex.cls == cls)
            return r->s[i].sig_id;
    return 0;
}
