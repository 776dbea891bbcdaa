/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/request.c: what worker_run and the batch runs share.
 *
 * This file contains the parent's operand arena (the memfd both sides map,
 * grown and never shrunk) and the layout of the tensors in it (each in a
 * slot that keeps its pages from case to case, ending flush with its
 * pages, or at the case's data offsets), the
 * check of the output's slack around its data,
 * the result's output buffers, the request a case makes, and the reading
 * of a reply into a result: a plugin status, the process state a call
 * left changed, the outcome of side effects found after a run, and the
 * per-element flags of two runs.
 */
#include "harness/worker/worker_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"

/* Makes the arena at least `need` bytes. The arena only grows: the slots
 * in it keep their pages from case to case (worker_layout_case), and a
 * larger mapping is the old one extended (mremap), so no page already
 * touched is faulted in again. */
int worker_fit_arena(worker *w, uint64_t need)
{
    if (need <= w->arena_size)
        return 0;
    uint64_t size = need;
    /* Small arenas double, so a run of growing cases remaps rarely. */
    uint64_t twice = w->arena_size * 2;
    if (twice > need && twice <= (UINT64_C(64) << 20))
        size = twice;
    struct stat st;
    if (fstat(w->memfd, &st) != 0 ||
        ((uint64_t)st.st_size < size && ftruncate(w->memfd, (off_t)size) != 0)) {
        int e = errno;
        worker_set_err(w, "cannot size the operand memory to %llu bytes: %s%s",
                (unsigned long long)size, strerror(e),
                e == EFBIG ? " (the file size limit, ulimit -f, is below it)" : "");
        return -1;
    }
    void *p = w->arena ? mremap(w->arena, (size_t)w->arena_size, (size_t)size, MREMAP_MAYMOVE)
                       : mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, w->memfd, 0);
    if (p == MAP_FAILED) {
        worker_set_err(w, "cannot map %llu bytes of operand memory: %s", (unsigned long long)size,
                strerror(errno));
        return -1;
    }
    w->arena = p;
    w->arena_size = size;
    return 0;
}

void worker_layout_region(ctl_region *g, uint64_t off, uint64_t nbytes, int at, size_t page)
{
    g->off = off;
    g->nbytes = nbytes;
    g->pages = (nbytes + page - 1) / page;
    g->pad = g->pages * page - nbytes;
    if (at < 0)
        return;
    if (!nbytes) {
        g->pad = (uint64_t)at; /* nothing mapped; only the pointer */
        return;
    }
    /* The page offset is a multiple of 64: start at the last 64-byte
     * line + at that leaves room for the data, a page more when none
     * does. */
    if (g->pad < (uint64_t)at) {
        g->pages++;
        g->pad += page;
    }
    g->pad -= (g->pad - (uint64_t)at) % 64;
}

void worker_layout_case(worker *w, const divcase *c, uint64_t c_bytes, ctl_region g[3])
{
    size_t page = w->page;
    const divcase_offsets *o = &c->offsets;
    int at[3] = {-1, -1, -1};
    for (int i = 0; i < 3 && o->set; i++)
        at[i] = o->at[i] & 63;
    worker_layout_region(&g[R_A], 0, c->a_bytes, at[DIVCASE_A], page);
    worker_layout_region(&g[R_B], 0, c->b_bytes, at[DIVCASE_B], page);
    worker_layout_region(&g[R_OUT], 0, c_bytes, at[DIVCASE_C], page);
    uint64_t slot = 0;
    for (int i = R_A; i <= R_OUT; i++) {
        if (g[i].pages > w->slot_pages[i])
            w->slot_pages[i] = g[i].pages;
        g[i].slot_off = slot;
        g[i].slot_pages = w->slot_pages[i];
        g[i].off = slot + (g[i].slot_pages - g[i].pages) * page;
        slot += g[i].slot_pages * page;
    }
}

/* The first byte of o[from, to) that differs from pat[i % n] (i: its
 * offset from o), or UINT64_MAX. Whole runs of 64 bytes (a multiple of
 * every pattern length the worker uses: 1, 2, 4, 8) are compared at once. */
static uint64_t pattern_mismatch(const uint8_t *o, uint64_t from, uint64_t to, const uint8_t *pat,
                                 uint32_t n)
{
    uint8_t run[64];
    for (uint32_t i = 0; i < sizeof run; i++)
        run[i] = pat[i % n];
    uint64_t i = from;
    while (i < to && i % 64)
        if (o[i] != pat[i % n])
            return i;
        else
            i++;
    if (64 % n == 0)
        for (; i + 64 <= to && !memcmp(o + i, run, 64); i += 64)
            ;
    for (; i < to; i++)
        if (o[i] != pat[i % n])
            return i;
    return UINT64_MAX;
}

int worker_slack_changed(const uint8_t *o, const ctl_region *g, size_t page,
                         const uint8_t *pat, uint32_t n, int64_t *at)
{
    uint64_t end = g->pad + g->nbytes, size = g->pages * page;
    if (!g->pages)
        return 0; /* nothing mapped: an empty tensor's pad is only its pointer's */
    uint64_t i = pattern_mismatch(o, 0, g->pad, pat, n);
    if (i != UINT64_MAX) {
        *at = (int64_t)i - (int64_t)g->pad;
        return 1;
    }
    i = pattern_mismatch(o, end, size, pat, n);
    if (i != UINT64_MAX) {
        *at = (int64_t)(i - g->pad);
        return 1;
    }
    return 0;
}

int worker_fit_buffers(worker *w, worker_result *r, uint64_t nbytes, uint64_t count)
{
    if (nbytes > r->cap_bytes_ || !r->out1 || !r->out2) {
        uint64_t n = nbytes ? nbytes : 1;
        uint8_t *a = dvg_realloc(r->out1, (size_t)n);
        if (a)
            r->out1 = a;
        uint8_t *b = a ? dvg_realloc(r->out2, (size_t)n) : NULL;
        if (b)
            r->out2 = b;
        if (!a || !b) {
            worker_set_err(w, "out of memory for %llu output bytes", (unsigned long long)nbytes);
            return -1;
        }
        r->cap_bytes_ = n;
    }
    if (count > r->cap_count_ || !r->flags) {
        uint64_t n = count ? count : 1;
        uint8_t *f = dvg_realloc(r->flags, (size_t)n);
        if (!f) {
            worker_set_err(w, "out of memory for %llu element flags", (unsigned long long)count);
            return -1;
        }
        r->flags = f;
        r->cap_count_ = n;
    }
    return 0;
}

static uint32_t status_outcome(int32_t st)
{
    switch (st) {
    case DVG_OK:
        return WORKER_OUT_OK;
    case DVG_INVALID_INPUT:
        return WORKER_OUT_INVALID_INPUT;
    case DVG_UNSUPPORTED:
        return WORKER_OUT_UNSUPPORTED;
    case DVG_FAILURE:
        return WORKER_OUT_FAILURE;
    default:
        return WORKER_OUT_BAD_STATUS;
    }
}

/* A non-OK plugin status into r. */
void worker_take_status(worker_result *r, uint32_t stage, int32_t st, const char *text)
{
    r->outcome = status_outcome(st);
    r->stage = stage;
    r->status = st;
    if (r->outcome == WORKER_OUT_BAD_STATUS)
        worker_set_msg(r, "status %d is no DVG_ status; last_error: %s", (int)st, text);
    else
        wire_copy_text(r->message, sizeof r->message, text);
}

int worker_shape_ok(const oracle_shape *s)
{
    if (s->rank > DVG_MAX_RANK)
        return 0;
    for (uint32_t k = 0; k < s->rank; k++)
        if (s->dims[k] < 0)
            return 0;
    return 1;
}

/* Shape elements, or UINT64_MAX when the product overflows the oracle's
 * limit. */
uint64_t worker_shape_count(const oracle_shape *s)
{
    uint64_t n = 1;
    for (uint32_t k = 0; k < s->rank; k++) {
        uint64_t d = (uint64_t)s->dims[k];
        if (d == 0)
            return 0;
        if (n > ORACLE_MAX_ELEMENTS / d)
            return UINT64_MAX;
        n *= d;
    }
    return n;
}

/* The outcome of side effects found after a run that returned DVG_OK. */
void worker_side_outcome(worker_result *r, int64_t slack_at)
{
    if (r->side_effects & WORKER_SIDE_SLACK) {
        r->outcome = WORKER_OUT_OOB_WRITE;
        r->fault_region = WORKER_REGION_OUT;
        r->fault_offset = slack_at;
        worker_set_msg(r, "byte %lld of the output (%s) changed", (long long)slack_at,
                       slack_at < 0 ? "before its start" : "past its end");
    } else if (r->side_effects & (WORKER_SIDE_INPUT_A | WORKER_SIDE_INPUT_B)) {
        r->outcome = WORKER_OUT_INPUT_MUTATED;
        r->fault_region = (r->side_effects & WORKER_SIDE_INPUT_A) ? WORKER_REGION_A
                                                                   : WORKER_REGION_B;
        worker_set_msg(r, "the bytes of %s changed during compute",
                r->fault_region == WORKER_REGION_A ? "A" : "B");
    }
}

/* r->flags from the two runs in r->out1 and r->out2, made into outputs
 * whose elements i held q1[i % period] and q2[i % period] before (period
 * a power of two): unwritten where each run left its poison,
 * nondeterministic where the runs differ otherwise. */
void worker_flag_elements(worker_result *r, const uint64_t *q1, const uint64_t *q2,
                          uint32_t period)
{
    /* Where the two runs agree byte for byte, no element is
     * nondeterministic, and none is unwritten (it would have to equal
     * both poisons): those elements are flagged 0 a block at a time. */
    const uint64_t block = 4096;
    for (uint64_t at = 0; at < r->count; at += block) {
        uint64_t n = r->count - at < block ? r->count - at : block;
        uint64_t lo = oracle_nbytes(r->dtype, at), hi = oracle_nbytes(r->dtype, at + n);
        if ((at + n) % 2 == 0 && !memcmp(r->out1 + lo, r->out2 + lo, (size_t)(hi - lo))) {
            memset(r->flags + at, 0, (size_t)n);
            continue;
        }
        for (uint64_t i = at; i < at + n; i++) {
            uint64_t v1 = oracle_load(r->dtype, r->out1, i);
            uint64_t v2 = oracle_load(r->dtype, r->out2, i);
            uint8_t f = 0;
            if (v1 == q1[i & (period - 1)] && v2 == q2[i & (period - 1)]) {
                f = WORKER_ELEM_UNWRITTEN;
                if (!r->n_unwritten++)
                    r->first_unwritten = i;
            } else if (v1 != v2) {
                f = WORKER_ELEM_NONDET;
                if (!r->n_nondet++)
                    r->first_nondet = i;
            }
            r->flags[i] = f;
        }
    }
}

/* The state a call left changed (the child put it back). */
void worker_take_leaks(worker_result *r, const ctl_reply *rep)
{
    uint32_t fp = rep->fp_changed & (WORKER_FP_OTHER * 2 - 1);
    uint32_t sig = rep->sig_changed & (WORKER_SIG_TIMER * 2 - 1);
    if (fp) {
        r->fp_changed |= fp;
        r->side_effects |= WORKER_SIDE_FP_STATE;
    }
    if (sig) {
        if ((sig & WORKER_SIG_HANDLER) && !(r->sig_changed & WORKER_SIG_HANDLER) &&
            rep->sig_signal > 0 && rep->sig_signal < 65)
            r->sig_changed_signal = rep->sig_signal;
        r->sig_changed |= sig;
        r->side_effects |= WORKER_SIDE_SIGNAL_STATE;
    }
}

void worker_fill_request(ctl_request *q, const divcase *c)
{
    memset(q, 0, sizeof *q);
    q->variant = c->variant;
    q->dtype = c->dtype;
    q->attrs = c->attrs;
    q->rank[0] = c->a_shape.rank;
    q->rank[1] = c->b_shape.rank;
    memcpy(q->shape[0], c->a_shape.dims, sizeof q->shape[0]);
    memcpy(q->shape[1], c->b_shape.dims, sizeof q->shape[1]);
    q->region[R_A].nbytes = c->a_bytes;
    q->region[R_B].nbytes = c->b_bytes;
}

