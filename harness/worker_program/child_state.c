/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/child_state.c: the process state every plugin call must
 * leave as it found it.
 *
 * This file contains, for the child, the snapshots and comparisons of the
 * FP environment (rounding, flush-to-zero, denormals-are-zero, traps, x87
 * precision), of the signal dispositions and mask and of the interval
 * timers, and the bracket around each plugin call. Each call starts from
 * the state in force after open(); what a call leaves changed is reported
 * (ctl_reply.fp_changed, sig_changed) and put back, so later calls, and
 * their verdicts, do not depend on it.
 */
#include "harness/worker_program/program.h"

#include <fenv.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>

void child_take_fp(fp_state *s)
{
    memset(s, 0, sizeof *s);
    fegetenv(&s->env);
    s->round = fegetround();
#if defined(__x86_64__) || defined(__i386__)
    s->mxcsr = __builtin_ia32_stmxcsr();
    __asm__ volatile("fnstcw %0" : "=m"(s->x87cw));
#elif defined(__aarch64__)
    __asm__ volatile("mrs %0, fpcr" : "=r"(s->fpcr));
#endif
}

/* WORKER_FP_* bits in which b differs from a. Exception flags (sticky
 * status) are not state a caller inherits in a harmful way: ignored. */
uint32_t child_diff_fp(const fp_state *a, const fp_state *b)
{
    uint32_t d = 0;
#if defined(__x86_64__) || defined(__i386__)
    uint32_t m = a->mxcsr ^ b->mxcsr;
    uint32_t c = (uint32_t)(a->x87cw ^ b->x87cw);
    if ((m & 0x6000u) || (c & 0x0c00u))
        d |= WORKER_FP_ROUNDING;
    if (m & 0x8000u)
        d |= WORKER_FP_FTZ;
    if (m & 0x0040u)
        d |= WORKER_FP_DAZ;
    if ((m & 0x1f80u) || (c & 0x003fu))
        d |= WORKER_FP_TRAPS;
    if (c & 0x0300u)
        d |= WORKER_FP_PRECISION;
    if ((m & ~0xffffu) || (c & 0xf0c0u))
        d |= WORKER_FP_OTHER;
#elif defined(__aarch64__)
    uint64_t c = a->fpcr ^ b->fpcr;
    if (c & (UINT64_C(3) << 22))
        d |= WORKER_FP_ROUNDING;
    if (c & ((UINT64_C(1) << 24) | (UINT64_C(1) << 19)))
        d |= WORKER_FP_FTZ;
    if (c & UINT64_C(0x9f00))
        d |= WORKER_FP_TRAPS;
    if (c & ~(UINT64_C(3) << 22 | UINT64_C(1) << 24 | UINT64_C(1) << 19 | UINT64_C(0x9f00)))
        d |= WORKER_FP_OTHER;
#else
    if (a->round != b->round)
        d |= WORKER_FP_ROUNDING;
    if (memcmp(&a->env, &b->env, sizeof a->env) != 0 && !d)
        d |= WORKER_FP_OTHER;
#endif
    return d;
}

/* The dispositions that matter to the worker and to a caller of the
 * plugin (the fault signals the worker classifies by, the timers'
 * signals, SIGPIPE, SIGCHLD and the usual terminators) and the mask. */
static const int watched_signals[] = {SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,    SIGABRT, SIGTRAP,
                                      SIGSYS,  SIGXCPU, SIGXFSZ, SIGALRM,   SIGVTALRM,
                                      SIGPROF, SIGPIPE, SIGCHLD, SIGINT,    SIGTERM, SIGHUP};
#define SIG_WATCHED (sizeof watched_signals / sizeof watched_signals[0])
_Static_assert(SIG_WATCHED == CHILD_WATCHED_SIGNALS, "sig_state holds every watched signal");

void child_take_signals(sig_state *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < SIG_WATCHED; i++)
        sigaction(watched_signals[i], NULL, &s->sa[i]);
    sigprocmask(SIG_SETMASK, NULL, &s->mask);
}

static int sa_same(const struct sigaction *a, const struct sigaction *b)
{
    const int flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART | SA_NODEFER | SA_RESETHAND |
                      SA_NOCLDSTOP | SA_NOCLDWAIT;
    if ((a->sa_flags & flags) != (b->sa_flags & flags))
        return 0;
    if (a->sa_flags & SA_SIGINFO)
        return a->sa_sigaction == b->sa_sigaction;
    return a->sa_handler == b->sa_handler;
}

/* Compares the signal state with `base`, puts back what differs and
 * returns the WORKER_SIG_* bits (*first: the first signal whose
 * disposition changed). */
static uint32_t sig_check(const sig_state *base, int32_t *first)
{
    uint32_t d = 0;
    *first = 0;
    for (size_t i = 0; i < SIG_WATCHED; i++) {
        struct sigaction now;
        if (sigaction(watched_signals[i], NULL, &now) != 0)
            continue;
        if (!sa_same(&now, &base->sa[i])) {
            if (!d)
                *first = watched_signals[i];
            d |= WORKER_SIG_HANDLER;
            sigaction(watched_signals[i], &base->sa[i], NULL);
        }
    }
    sigset_t mask;
    if (sigprocmask(SIG_SETMASK, NULL, &mask) == 0) {
        for (int sig = 1; sig < 65; sig++)
            if (sigismember(&mask, sig) != sigismember(&base->mask, sig)) {
                d |= WORKER_SIG_MASK;
                sigprocmask(SIG_SETMASK, &base->mask, NULL);
                break;
            }
    }
    static const int timers[] = {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF};
    for (size_t i = 0; i < sizeof timers / sizeof timers[0]; i++) {
        struct itimerval it;
        if (getitimer(timers[i], &it) == 0 &&
            (it.it_value.tv_sec || it.it_value.tv_usec)) {
            static const struct itimerval off;
            setitimer(timers[i], &off, NULL);
            d |= WORKER_SIG_TIMER;
        }
    }
    return d;
}

/* What one call starts from and is checked against. */
void child_begin_call(const call_base *cb)
{
    child_cpu_budget(cb->cpu_s);
    fesetenv(&cb->fp.env);
}

/* After a call: the FP environment every time (it costs no syscall, and
 * the next child_begin_call would hide a change); the signal state after the
 * last call of a case only (a change left by an earlier call of it is
 * still there then). */
void child_end_call(const call_base *cb, const ctl_request *q, ctl_reply *rep)
{
    fp_state now;
    child_take_fp(&now);
    rep->fp_changed = child_diff_fp(&cb->fp, &now);
    if (rep->fp_changed)
        fesetenv(&cb->fp.env);
    if (q->check_signals)
        rep->sig_changed = sig_check(&cb->sig, &rep->sig_signal);
}
