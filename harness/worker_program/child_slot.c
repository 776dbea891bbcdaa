/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/child_slot.c: what the worker program's request
 * loop (child.c) and its probe (child_probe.c) both use: a tensor's slot
 * mapped between guard pages, moved within its slot and unmapped; an
 * instance of the plugin opened as the first one was; the plugin's
 * last_error text copied into a reply.
 */
#include "harness/worker_program/program.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>

/* Makes the pages of region r, the last r->pages of the slot mapped at
 * m (held: the region it showed before, NULL: none), accessible with
 * `prot` and the slot's pages below them PROT_NONE: a guard as large as
 * the slot leaves, so reading before the data faults as before it did
 * one page below. Only the pages whose access changes are touched; the
 * others keep their page-table entries. 0 or -1. */
static int child_place(const ctl_region *r, const ctl_region *held, int prot, size_t page,
                       ctl_map *m)
{
    uint64_t top = m->hi - page; /* the upper guard */
    uint64_t first = top - r->pages * page, was = held ? top - held->pages * page : top;
    if (first < was && mprotect((void *)(uintptr_t)first, (size_t)(was - first), prot) != 0)
        return -1;
    if (first > was && mprotect((void *)(uintptr_t)was, (size_t)(first - was), PROT_NONE) != 0)
        return -1;
    m->page = first;
    m->data = m->page + r->pad;
    m->end = m->data + r->nbytes;
    return 0;
}

/* Maps the slot of one tensor into [guard][slot pages][guard], its
 * region's pages accessible (child_place); 0 or -1. */
int child_map(int fd, const ctl_region *r, int prot, size_t page, ctl_map *m)
{
    size_t total = (size_t)(r->slot_pages + 2) * page;
    uint8_t *lo = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
    if (lo == MAP_FAILED)
        return -1;
    if (r->slot_pages) {
        void *p = mmap(lo + page, (size_t)r->slot_pages * page, PROT_NONE, MAP_SHARED | MAP_FIXED,
                       fd, (off_t)r->slot_off);
        if (p == MAP_FAILED) {
            munmap(lo, total);
            return -1;
        }
    }
    m->lo = (uint64_t)(uintptr_t)lo;
    m->hi = m->lo + total;
    if (child_place(r, NULL, prot, page, m) != 0) {
        munmap(lo, total);
        memset(m, 0, sizeof *m);
        return -1;
    }
    return 0;
}

void child_unmap(ctl_map *m)
{
    if (m->lo)
        munmap((void *)(uintptr_t)m->lo, (size_t)(m->hi - m->lo));
    memset(m, 0, sizeof *m);
}

/* Keeps mapping *m when its slot is the one `want` names (only the
 * region's place at the slot's end moves), maps the slot afresh
 * otherwise. 0 or -1. */
int child_fit(int fd, const ctl_region *want, ctl_region *have, int prot, size_t page,
                     ctl_map *m)
{
    if (m->lo && have->slot_off == want->slot_off && have->slot_pages == want->slot_pages &&
        want->pages <= want->slot_pages) {
        if (child_place(want, have, prot, page, m) != 0)
            return -1;
        *have = *want;
        return 0;
    }
    child_unmap(m);
    if (want->pages > want->slot_pages || child_map(fd, want, prot, page, m) != 0)
        return -1;
    *have = *want;
    return 0;
}

void child_last_error(const dvg_descriptor *d, dvg_iut *iut, char *dst)
{
    const char *e = d->last_error(iut);
    wire_copy_text(dst, WORKER_MESSAGE_MAX, e ? e : "(last_error returned NULL)");
}

/* Opens an instance: open_with (ABI 1.1, when the descriptor has it)
 * with the set-up's threads and ISA, else open. */
int32_t child_open(const dvg_descriptor *d, const child_setup *cs, dvg_iut **out)
{
    if (d->size >= DESCRIPTOR_V1_1_SIZE && d->open_with) {
        dvg_open_options oo;
        memset(&oo, 0, sizeof oo);
        oo.size = sizeof oo;
        oo.threads = cs->opt.threads;
        oo.isa = cs->opt.isa[0] ? cs->opt.isa : NULL;
        return d->open_with(cs->config, &oo, out);
    }
    return d->open(cs->config, out);
}
