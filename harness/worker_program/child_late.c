/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/child_late.c: the worker program's watch for writes after
 * a compute returned (issue 26, late writes and lingering threads).
 *
 * When a compute returns, the output's pages are made read-only
 * (child_late_arm) until the next compute or probe (child_late_release):
 * a thread the plugin left running that writes into the output then
 * faults, at whatever time it writes, and the fault handler's record
 * (thread, name, time) with the block's ctl_late (which call returned,
 * when, which threads were alive) lets the parent name it a late write of
 * that call (fault.c). A and B are read-only always. After the release
 * the block still names those pages: a later fault there by another
 * thread than the serving one (the next layout mapped them otherwise) is
 * still that call's late write.
 *
 * So that the fault comes while the call that caused it is still the one
 * waiting for its reply, the worker then looks at the process's other
 * threads (/proc/self/task) and waits, polling every LATE_POLL_US, up to
 * LATE_WINDOW_MS while any of them is active:
 *   - sleeping on a timer (nanosleep, clock_nanosleep, a futex, poll or
 *     epoll wait with a timeout): about to wake and do something;
 *   - started during this call (not seen after the previous one) and not
 *     parked.
 * A thread parked on a futex, poll or read with no timeout (the idle
 * workers of a thread pool: OpenMP, oneDNN, ONNX Runtime, libtorch) or
 * spinning (running, and seen after the previous call too: OpenMP's
 * spin-wait) costs no wait. Whatever writes later still faults; the
 * parent then knows from ctl_late which earlier call it was. A process
 * alone costs one read of /proc/self/stat per compute; threads that were
 * all parked after the previous call, and are as many now, are looked at
 * again on one call in LATE_SAMPLE (the protection stays on every call).
 */
#include "harness/worker_program/program.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LATE_POLL_US 200
#define LATE_MAX_SEEN 64

/* Threads seen after the previous call, and after this one so far
 * (runner-private: this file runs on the serving thread only). */
static int32_t late_seen[LATE_MAX_SEEN], late_now[LATE_MAX_SEEN];
static uint32_t late_n_seen, late_n_now;
/* What the last scan saw (the thread count, whether one was active, the
 * names), and the calls since. */
#define LATE_SAMPLE 16
static long late_last_threads;
static uint32_t late_last_active, late_calls;
static char late_names[CTL_LATE_THREADS];
/* The protected range, kept here too: the block is the plugin's to write. */
static uint64_t late_lo, late_hi;

static uint64_t late_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int late_was_seen(int32_t tid)
{
    for (uint32_t i = 0; i < late_n_seen; i++)
        if (late_seen[i] == tid)
            return 1;
    return 0;
}

/* 1 when the thread's current system call, as /proc/self/task/TID/syscall
 * shows it ("NR a0 a1 a2 a3 a4 a5 sp pc"), is a wait with a timeout or a
 * sleep; 0 a wait without one; -1 not in a system call or unknown. */
static int late_timed_wait(const char *sc)
{
    char *end;
    long nr = strtol(sc, &end, 10);
    if (end == sc)
        return -1; /* "running" */
    unsigned long long arg[6] = {0};
    const char *p = end;
    for (int i = 0; i < 6; i++) {
        arg[i] = strtoull(p, &end, 16);
        if (end == p)
            break;
        p = end;
    }
    switch (nr) {
#ifdef __x86_64__
    case 35:  /* nanosleep */
    case 230: /* clock_nanosleep */
        return 1;
    case 202: /* futex: timeout in a3 */
        return arg[3] != 0;
    case 7:   /* poll: timeout in a2 (int) */
        return (int)arg[2] >= 0;
    case 232: /* epoll_wait */
    case 281: /* epoll_pwait */
        return (int)arg[3] >= 0;
    case 271: /* ppoll */
        return arg[2] != 0;
    case 23:  /* select */
    case 270: /* pselect6 */
        return arg[4] != 0;
    case 0:   /* read */
    case 45:  /* recvfrom */
    case 47:  /* recvmsg */
    case 34:  /* pause */
    case 61:  /* wait4 */
    case 130: /* rt_sigsuspend */
        return 0;
#endif
    default:
        return -1;
    }
}

/* Looks at the process's threads other than the serving one: their names
 * into the block (as they are now: a thread may name itself late), their
 * ids into late_now; returns how many are active (see above). */
static uint32_t late_scan(ctl_late *l, int32_t self)
{
    DIR *d = opendir("/proc/self/task");
    if (!d)
        return 0;
    uint32_t alive = 0, active = 0;
    size_t at = 0;
    late_n_now = 0;
    l->threads[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int32_t tid = (int32_t)strtol(e->d_name, NULL, 10);
        if (tid <= 0 || tid == self)
            continue;
        char path[64], buf[512], comm[32];
        snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
        if (!sandbox_read_small(path, buf, sizeof buf))
            continue; /* gone */
        const char *rp = strrchr(buf, ')');
        char state = rp && rp[1] == ' ' ? rp[2] : '?';
        if (state == 'Z' || state == 'X')
            continue;
        alive++;
        int act;
        if (state == 'R') {
            act = !late_was_seen(tid); /* a pool's spinner was there before */
        } else {
            snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
            int timed = sandbox_read_small(path, buf, sizeof buf) ? late_timed_wait(buf) : -1;
            act = timed == 1 || (timed == -1 && !late_was_seen(tid));
        }
        active += (uint32_t)act;
        if (at + 40 < sizeof l->threads) {
            snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)tid);
            if (!sandbox_read_small(path, comm, sizeof comm))
                snprintf(comm, sizeof comm, "?");
            comm[strcspn(comm, "\n")] = '\0';
            at += (size_t)snprintf(l->threads + at, sizeof l->threads - at, "%s'%.15s' (%d%s)",
                                   at ? ", " : "", comm, (int)tid, act ? ", active" : "");
        }
        if (late_n_now < LATE_MAX_SEEN)
            late_now[late_n_now++] = tid;
    }
    closedir(d);
    l->alive = alive;
    l->active = active;
    return active;
}

void child_late_arm(ctl_block *b, const ctl_map *out, uint32_t seq, size_t page)
{
    ctl_late *l = &b->late;
    memset(l, 0, sizeof *l);
    l->returned_ns = late_now_ns();
    l->seq = seq;
    /* One thread (the serving one): nothing is left to write late. */
    long threads = child_count_threads();
    if (threads == 1) {
        late_n_seen = 0;
        late_last_threads = 1;
        return;
    }
    if (out->lo && out->hi - out->page > page) {
        l->lo = out->page;
        l->hi = out->hi - page; /* the upper guard stays PROT_NONE */
        l->data = out->data;
        if (mprotect((void *)(uintptr_t)l->lo, (size_t)(l->hi - l->lo), PROT_READ) == 0) {
            late_lo = l->lo;
            late_hi = l->hi;
            __atomic_store_n(&l->armed, 1, __ATOMIC_SEQ_CST);
        }
    }
    int32_t self = (int32_t)syscall(SYS_gettid);
    l->server = self;
    /* The same threads as after the previous call, none of them active
     * then: a parked pool; looked at again on one call in LATE_SAMPLE. */
    if (threads == late_last_threads && !late_last_active && ++late_calls % LATE_SAMPLE != 0) {
        memcpy(l->threads, late_names, sizeof l->threads);
        l->alive = (uint32_t)threads - 1;
        return;
    }
    late_last_threads = threads;
    uint64_t until = l->returned_ns + (uint64_t)LATE_WINDOW_MS * 1000000u;
    uint32_t active = late_scan(l, self);
    while (active && late_hi) {
        struct timespec ts = {0, LATE_POLL_US * 1000};
        nanosleep(&ts, NULL);
        uint64_t now = late_now_ns();
        if (now >= until)
            break;
        active = late_scan(l, self);
    }
    l->waited_us = (uint32_t)((late_now_ns() - l->returned_ns) / 1000u);
    memcpy(late_seen, late_now, late_n_now * sizeof late_now[0]);
    late_n_seen = late_n_now;
    late_last_active = active;
    memcpy(late_names, l->threads, sizeof late_names);
}

void child_late_release(ctl_block *b)
{
    __atomic_store_n(&b->late.armed, 0, __ATOMIC_SEQ_CST);
    if (late_hi > late_lo)
        mprotect((void *)(uintptr_t)late_lo, (size_t)(late_hi - late_lo), PROT_READ | PROT_WRITE);
    late_lo = late_hi = 0;
}
