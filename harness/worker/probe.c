/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/probe.c: worker_probe, the harness's side of a probe
 * (worker.h): case c once more, with C in A's or B's buffer, or with two
 * threads at once, its outputs compared element by element with the
 * one-thread answers.
 *
 * The case's regions are laid out as for worker_run (the arena's slots of
 * A, B and the output); the two-thread kinds add three regions past them,
 * each placed in its page as A's or the output's is (the same alignment):
 * the second job's A (A's bytes reversed: any bytes are values of every
 * dtype), its output and its solo answer. Every output region is filled
 * with run 1's poison first, so untouched bytes (an i4/u4 padding nibble)
 * agree between them.
 */
#include "harness/worker/worker_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/text.h"
#include "oracle/dtype.h"

const char *worker_probe_name(uint32_t kind)
{
    switch (kind) {
    case WORKER_PROBE_INSTANCES: return "two instances at once";
    case WORKER_PROBE_INSTANCE: return "one instance from two threads";
    case WORKER_PROBE_IN_PLACE_A: return "in place on A";
    case WORKER_PROBE_IN_PLACE_B: return "in place on B";
    }
    return "?";
}

int worker_probe_applies(const divcase *c, const worker_result *base, uint32_t kind)
{
    if (!base->computed || !base->count)
        return 0;
    if (kind == WORKER_PROBE_IN_PLACE_A)
        return oracle_shape_equal(&c->a_shape, &base->shape) && c->a_bytes == base->nbytes;
    if (kind == WORKER_PROBE_IN_PLACE_B)
        return oracle_shape_equal(&c->b_shape, &base->shape) && c->b_bytes == base->nbytes;
    return kind == WORKER_PROBE_INSTANCES || kind == WORKER_PROBE_INSTANCE;
}

/* Fills the pages of region g with run 1's poison. */
static void poison_region(worker *w, const ctl_region *g)
{
    uint8_t poison[WORKER_POISON_BYTES];
    worker_poison(0, poison);
    for (uint64_t i = 0; i < g->pages * w->page; i += WORKER_POISON_BYTES)
        memcpy(w->arena + g->off + i, poison, WORKER_POISON_BYTES);
}

/* Region `like` placed at arena offset *at (its own slot), *at moved past it. */
static ctl_region place_like(const ctl_region *like, uint64_t *at, size_t page)
{
    ctl_region g = *like;
    g.slot_off = g.off = *at;
    g.slot_pages = g.pages;
    *at += g.pages * page;
    return g;
}

uint64_t worker_outputs_differ(uint32_t dtype, uint64_t count, const uint8_t *want,
                               const uint8_t *got, uint64_t *first)
{
    uint64_t n = 0;
    *first = UINT64_MAX;
    for (uint64_t i = 0; i < count; i++)
        if (oracle_load(dtype, want, i) != oracle_load(dtype, got, i) && !n++)
            *first = i;
    return n;
}

/* Counts the elements of got that differ from want into pr, for job
 * `which` (job 1 first: its first difference is the one named). */
static void compare(const worker_result *base, const uint8_t *want, const uint8_t *got,
                    uint32_t which, worker_probe_result *pr)
{
    uint64_t first, n = worker_outputs_differ(base->dtype, base->count, want, got, &first);
    if (n && !pr->n_differ) {
        pr->first_differ = first;
        pr->which = which;
    }
    pr->n_differ += n;
}

/* Lays out the probe's regions (g: the case's; p: the second job's A,
 * output and reference, for the two-call probes) and fills them: the
 * operands, poison, the output preset to A or B for the in-place probes,
 * A reversed for the second job. 0, or -1 with the worker's error. */
static int stage_probe(worker *w, const divcase *c, const worker_result *base, uint32_t kind,
                       ctl_region g[3], ctl_region p[3])
{
    size_t page = w->page;
    uint64_t nbytes = base->nbytes;
    memset(p, 0, 3 * sizeof p[0]);
    worker_layout_case(w, c, nbytes, g);
    uint64_t end = g[R_OUT].slot_off + g[R_OUT].slot_pages * page;
    int pairs = kind == WORKER_PROBE_INSTANCES || kind == WORKER_PROBE_INSTANCE;
    if (pairs) {
        p[P_A2] = place_like(&g[R_A], &end, page);
        p[P_OUT2] = place_like(&g[R_OUT], &end, page);
        p[P_REF2] = place_like(&g[R_OUT], &end, page);
    }
    if (worker_fit_arena(w, end) != 0)
        return -1;
    uint8_t *arena = w->arena;
    if (c->a_bytes)
        memcpy(arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes);
    if (c->b_bytes)
        memcpy(arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes);
    poison_region(w, &g[R_OUT]);
    uint8_t *out = arena + g[R_OUT].off + g[R_OUT].pad;
    if (kind == WORKER_PROBE_IN_PLACE_A)
        memcpy(out, c->a, (size_t)nbytes);
    else if (kind == WORKER_PROBE_IN_PLACE_B)
        memcpy(out, c->b, (size_t)nbytes);
    if (pairs) {
        uint8_t *a2 = arena + p[P_A2].off + p[P_A2].pad;
        for (uint64_t i = 0; i < c->a_bytes; i++)
            a2[i] = c->a[c->a_bytes - 1 - i];
        poison_region(w, &p[P_OUT2]);
        poison_region(w, &p[P_REF2]);
    }
    return 0;
}

int worker_probe(worker *w, const divcase *c, const worker_result *base, uint32_t kind,
                 worker_probe_result *pr, worker_result *r)
{
    memset(pr, 0, sizeof *pr);
    pr->kind = kind;
    pr->first_differ = UINT64_MAX;
    worker_reset_result(r);
    if (!worker_probe_applies(c, base, kind)) {
        worker_set_err(w, "case %s: probe '%s' does not apply", c->id, worker_probe_name(kind));
        return -1;
    }
    int ready = worker_ready(w, r);
    if (ready < 0)
        return -1;
    if (ready) {
        snprintf(pr->note, sizeof pr->note, "the plugin did not load again");
        return 0;
    }
    ctl_region g[3], p[3];
    if (stage_probe(w, c, base, kind, g, p))
        return -1;
    int pairs = kind == WORKER_PROBE_INSTANCES || kind == WORKER_PROBE_INSTANCE;
    ctl_request *q = &w->ctl->req;
    worker_fill_request(q, c);
    q->rank[2] = base->shape.rank;
    memcpy(q->shape[2], base->shape.dims, sizeof q->shape[2]);
    memcpy(q->region, g, sizeof g);
    memcpy(q->probe_region, p, sizeof p);
    q->probe = kind;
    q->probe_ms = WORKER_PROBE_MS;
    q->check_signals = 1;
    if (worker_call_child(w, OP_PROBE, WORKER_STAGE_PROBE, r)) {
        char line[WORKER_MESSAGE_MAX];
        snprintf(pr->note, sizeof pr->note, "%s: %.400s", worker_probe_name(kind),
                 worker_result_format(r, line, sizeof line));
        return 0;
    }
    ctl_reply rep = w->ctl->rep;
    text_sanitize_inplace(rep.message, sizeof rep.message);
    if (rep.seq != w->seq || rep.internal) {
        worker_lose_child(w, 2, WORKER_STAGE_PROBE,
                          rep.internal ? rep.message : "the worker answered another request", r);
        snprintf(pr->note, sizeof pr->note, "%s: %.400s", worker_probe_name(kind), r->message);
        pr->internal = (int32_t)rep.internal;
        return 0;
    }
    worker_take_leaks(r, &rep);
    pr->rounds = rep.probe_rounds;
    if (rep.probe_skip) {
        pr->internal = 1;
        snprintf(pr->note, sizeof pr->note, "%s: %.400s", worker_probe_name(kind), rep.message);
        return 0;
    }
    if (rep.status != DVG_OK) {
        worker_take_status(r, WORKER_STAGE_PROBE, rep.status, rep.message);
        snprintf(pr->note, sizeof pr->note, "%s: status %d (%.400s)", worker_probe_name(kind),
                 (int)rep.status, r->message);
        return 0;
    }
    r->outcome = WORKER_OUT_OK;
    pr->ran = 1;
    uint8_t *arena = w->arena; /* where stage_probe placed the regions */
    compare(base, base->out1, arena + g[R_OUT].off + g[R_OUT].pad, 1, pr);
    if (pairs)
        compare(base, arena + p[P_REF2].off + p[P_REF2].pad,
                arena + p[P_OUT2].off + p[P_OUT2].pad, 2, pr);
    if (pr->n_differ)
        snprintf(pr->note, sizeof pr->note,
                 "%s: %" PRIu64 " elements differ from the one-thread answer (first: element %"
                 PRIu64 "%s)",
                 worker_probe_name(kind), pr->n_differ, pr->first_differ,
                 pr->which == 2 ? " of the second job, A reversed" : "");
    if (pairs && pr->n_differ)
        snprintf(pr->note + strlen(pr->note), sizeof pr->note - strlen(pr->note),
                 " after %u calls at once", pr->rounds);
    return 0;
}
