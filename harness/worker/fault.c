/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/fault.c: how the end of a child becomes a worker_result.
 *
 * This file contains what the parent concludes when a child is gone or
 * must go: a hang (the deadline passed, or the CPU limit), a protocol
 * violation, a fault recorded by the child's handler (believed only when
 * the exit status agrees) classified by its address against the guarded
 * mappings (out-of-bounds write or read, input mutated, stack overflow, a
 * plain crash), a kill by a signal, or an exit (the plugin's exit(), or
 * the child's own exit codes, wire.h).
 */
#include "harness/worker/worker_internal.h"

#include "harness/base/text.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>

static const char *const region_names[] = {"nothing", "A", "B", "output", "shape buffer"};

/* Classifies a fault address against the maps relevant to `stage`. */
static void classify_fault(const ctl_map *maps, uint32_t stage, const ctl_fault *f,
                           worker_result *r)
{
    r->outcome = WORKER_OUT_CRASH;
    r->signal = f->signo;
    r->sig_code = f->code;
    r->fault_addr = f->addr;
    r->fault_write = f->write < -1 || f->write > 1 ? -1 : f->write;
    const char *sname = worker_signal_name(f->signo);
    if (f->code <= 0) /* SI_USER, SI_TKILL, SI_QUEUE: si_addr is no address */
        worker_set_msg(r, "%s (%d), raised by the plugin's process itself (abort, raise or kill)",
                sname, f->signo);
    else
        worker_set_msg(r, "%s (%d) at address 0x%llx", sname, f->signo, (unsigned long long)f->addr);
    if ((f->signo != SIGSEGV && f->signo != SIGBUS) || f->code <= 0)
        return; /* raised by the process itself, or not a memory fault */
    int first = R_A, last = R_OUT;
    if (stage == WORKER_STAGE_SHAPE)
        first = last = R_SHAPE;
    else if (stage != WORKER_STAGE_COMPUTE1 && stage != WORKER_STAGE_COMPUTE2)
        return;
    for (int i = first; i <= last; i++) {
        const ctl_map *m = &maps[i];
        /* Untrusted: a map must be ordered to be believed. */
        if (!(m->lo <= m->page && m->page <= m->data && m->data <= m->end && m->end < m->hi))
            continue;
        if (f->addr < m->lo || f->addr >= m->hi)
            continue;
        uint32_t region = (uint32_t)i + 1; /* R_A -> WORKER_REGION_A ... */
        r->fault_region = region;
        r->fault_offset = (int64_t)(f->addr - m->data);
        int in_guard = f->addr < m->page || f->addr >= m->end;
        int is_input = i == R_A || i == R_B;
        if (in_guard) {
            /* Unknown direction: past an input most likely a read, past
             * the output or the shape buffer a write. */
            int write = r->fault_write == 1 || (r->fault_write == -1 && !is_input);
            r->outcome = write ? WORKER_OUT_OOB_WRITE : WORKER_OUT_OOB_READ;
            worker_set_msg(r, "%s %s byte %lld of the %s (%llu bytes), %s", sname,
                    write ? "writing" : "reading", (long long)r->fault_offset,
                    region_names[region], (unsigned long long)(m->end - m->data),
                    f->addr < m->page ? "before its start" : "past its end");
        } else if (is_input && r->fault_write != 0) {
            r->outcome = WORKER_OUT_INPUT_MUTATED;
            worker_set_msg(r, "%s writing byte %lld of %s, which is mapped read-only", sname,
                    (long long)r->fault_offset, region_names[region]);
        }
        return;
    }
}

/* 1 when fault f is a write after compute returned (child_late.c): a
 * memory fault, out of a compute, in the output's pages while they were
 * read-only (the range must be the output map's own to be believed), or in
 * an input's pages; or, once the next compute began, a fault by another
 * thread than the serving one in the pages that were protected (mapped
 * otherwise since). r then says so. */
static int classify_late(const ctl_map *maps, const ctl_late *l, const ctl_fault *f,
                         worker *w, worker_result *r)
{
    if ((f->signo != SIGSEGV && f->signo != SIGBUS) || f->code <= 0 || f->write == 0 ||
        !l->seq || l->armed > 1)
        return 0;
    int in_compute = f->stage == WORKER_STAGE_COMPUTE1 || f->stage == WORKER_STAGE_COMPUTE2 ||
                     f->stage == WORKER_STAGE_PROBE;
    if (l->armed ? in_compute : f->tid == l->server || !l->server)
        return 0; /* released: only another thread's write counts */
    const ctl_map *o = &maps[R_OUT];
    uint32_t region = 0;
    const ctl_map *m = NULL;
    ctl_map was = {l->lo, l->lo, l->data, l->hi, l->hi};
    if (l->hi > l->lo && f->addr >= l->lo && f->addr < l->hi) {
        if (l->armed && !(o->hi && l->lo == o->page && l->hi == o->hi - w->page))
            return 0; /* armed pages must be the output map's own to be believed */
        region = WORKER_REGION_OUT;
        m = l->armed ? o : &was;
    }
    for (int i = R_A; !m && l->armed && i <= R_B; i++)
        if (maps[i].hi && f->addr >= maps[i].page && f->addr < maps[i].end) {
            region = (uint32_t)i + 1;
            m = &maps[i];
        }
    if (!m)
        return 0;
    static const char *const what[] = {"", "A", "B", "the output"};
    r->outcome = WORKER_OUT_LATE_WRITE;
    r->fault_region = region;
    r->fault_offset = (int64_t)(f->addr - m->data);
    r->late_earlier = l->seq < w->run_seq;
    memcpy(r->late_case, w->late_case, sizeof r->late_case);
    char comm[sizeof f->comm + 1], threads[CTL_LATE_THREADS + 1];
    wire_copy_text(comm, sizeof comm, f->comm);
    wire_copy_text(threads, sizeof threads, l->threads);
    text_sanitize_inplace(comm, sizeof comm);
    text_sanitize_inplace(threads, sizeof threads);
    uint64_t us = f->ns > l->returned_ns ? (f->ns - l->returned_ns) / 1000u : 0;
    worker_set_msg(r, "thread '%s' (%d) wrote byte %lld of %s %llu us after compute returned%s%s; "
                   "threads of the plugin alive then: %s",
                   comm, (int)f->tid, (long long)r->fault_offset, what[region],
                   (unsigned long long)us, r->late_earlier ? " in case " : "",
                   r->late_earlier ? r->late_case : "", threads[0] ? threads : "none seen");
    return 1;
}

/* A fault record the exit status agrees with, into r: a late write, or
 * the fault's class, with the words for the CPU and file size limits and
 * for a stack overflow (a SIGSEGV within a MiB of the stack's limit below
 * its top). */
static void explain_fault(worker *w, const ctl_fault *f, const ctl_map *maps,
                          const ctl_late *late, uint64_t stack_top, uint64_t stack_limit,
                          worker_result *r)
{
    if (f->stage > WORKER_STAGE_NONE && f->stage < WORKER_STAGE_COUNT_)
        r->stage = f->stage;
    if (classify_late(maps, late, f, w, r))
        return;
    classify_fault(maps, r->stage, f, r);
    if (f->signo == SIGXCPU) {
        r->outcome = WORKER_OUT_HANG;
        worker_set_msg(r, "the call used more than its %u s of CPU time (SIGXCPU); the worker "
                   "was stopped", (unsigned)w->opt.limit_cpu_s);
    } else if (r->outcome == WORKER_OUT_CRASH && f->signo == SIGSEGV && stack_limit &&
               f->addr < stack_top && stack_top - f->addr <= stack_limit + (UINT64_C(1) << 20) &&
               stack_top - f->addr + (UINT64_C(1) << 20) >= stack_limit) {
        worker_set_msg(r, "SIGSEGV at address 0x%llx: stack overflow (the stack limit is %llu KiB)",
                (unsigned long long)f->addr, (unsigned long long)(stack_limit >> 10));
    } else if (f->signo == SIGXFSZ) {
        worker_set_msg(r, "SIGXFSZ: the plugin wrote past the file size limit of %llu bytes "
                   "(its stdout and stderr count)",
                (unsigned long long)w->opt.limit_fsize_bytes);
    }
}

/*
 * The child is gone (or must go): reaps it and fills r. `why` is
 * 0 the child died on its own, 1 the deadline passed (hang), 2 it broke
 * the protocol (`detail` says how).
 */
void worker_lose_child(worker *w, int why, uint32_t stage, const char *detail,
                       worker_result *r)
{
    int by_bwrap = w->sb.mode == LAUNCH_FULL && !w->zpid; /* the status is bubblewrap's */
    int st = worker_reap_child(w);
    ctl_block *b = w->ctl;
    ctl_fault f;
    ctl_exit x;
    ctl_late late;
    ctl_map maps[R_COUNT];
    uint64_t stack_top = 0, stack_limit = 0;
    memset(&f, 0, sizeof f);
    memset(&x, 0, sizeof x);
    memset(&late, 0, sizeof late);
    memset(maps, 0, sizeof maps);
    if (b) {
        f = b->fault;
        x = b->exitrec;
        late = b->late;
        memcpy(maps, b->map, sizeof maps);
        stack_top = b->stack_top;
        stack_limit = b->stack_limit;
    }
    worker_release_child(w);
    if (!r)
        return;
    r->stage = stage;
    r->wait_status = st;
    if (why == 1) {
        r->outcome = WORKER_OUT_HANG;
        worker_set_msg(r, "no answer within %u ms; the worker was killed",
                (unsigned)w->opt.timeout_ms);
        return;
    }
    if (why == 2) {
        r->outcome = WORKER_OUT_PROTOCOL;
        worker_set_msg(r, "%s; it was killed", detail);
        return;
    }
    /* A fault record is believed only when the exit status agrees. */
    if (f.magic == FAULT_MAGIC && wire_is_fault_signal(f.signo) && st != -1 && WIFEXITED(st) &&
        WEXITSTATUS(st) == CHILD_EXIT_FAULT + f.signo) {
        explain_fault(w, &f, maps, &late, stack_top, stack_limit, r);
        return;
    }
    /* bubblewrap ends as its command did, but a signal becomes an exit
     * status of 128 + the signal. */
    int sig = st != -1 && WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    if (!sig && by_bwrap && st != -1 && WIFEXITED(st) && WEXITSTATUS(st) > 128 &&
        WEXITSTATUS(st) < 128 + 65 && x.magic != EXIT_MAGIC)
        sig = WEXITSTATUS(st) - 128;
    if (sig) {
        r->outcome = WORKER_OUT_CRASH;
        r->signal = sig;
        uint64_t oom = cg_oom_kills(&w->sb.cg);
        if (sig == SIGKILL && oom > w->sb.cg.oom_seen) {
            w->sb.cg.oom_seen = oom;
            worker_set_msg(r, "killed by SIGKILL: out of memory, past the worker's memory limit "
                              "(%llu MiB above what it used when set up; memfd and tmpfs pages "
                              "count)",
                           (unsigned long long)(w->opt.limit_as_bytes >> 20));
        } else {
            worker_set_msg(r, "killed by %s (%d)", worker_signal_name(r->signal), r->signal);
        }
        return;
    }
    r->outcome = WORKER_OUT_EXIT;
    if (st != -1 && WIFEXITED(st)) {
        r->exit_code = WEXITSTATUS(st);
        if (x.magic == EXIT_MAGIC && (x.status & 0xff) == r->exit_code) {
            if (x.stage > WORKER_STAGE_NONE && x.stage < WORKER_STAGE_COUNT_)
                r->stage = x.stage;
            worker_set_msg(r, "the plugin called exit(%d)", (int)x.status);
        } else if (r->exit_code == CHILD_EXIT_SETUP) {
            worker_set_msg(r, "the worker could not set itself up (status %d)", r->exit_code);
        } else if (r->exit_code == CHILD_EXIT_CHANNEL) {
            r->outcome = WORKER_OUT_PROTOCOL;
            worker_set_msg(r, "the plugin closed or replaced the worker's channel (fd 3), which it "
                       "did not open");
        } else {
            worker_set_msg(r, "the worker exited with status %d", r->exit_code);
        }
    } else {
        worker_set_msg(r, "the worker ended; its status is unknown");
    }
}

