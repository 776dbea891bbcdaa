/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/result.c: the worker_result and the words for it.
 *
 * This file contains the names of outcomes, stages, load errors and
 * signals, the reset and release of a worker_result, the setting of its
 * message, and the one-line descriptions of a result, of the FP bits and
 * of the process state a call left changed (worker.h).
 */
#include "harness/worker/worker_internal.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"

#define NAME_(ID, name) name,
static const char *const outcome_names[] = {WORKER_OUTCOME_LIST(NAME_)};
static const char *const stage_names[] = {WORKER_STAGE_LIST(NAME_)};
static const char *const load_names[] = {WORKER_LOAD_LIST(NAME_)};
#undef NAME_

const char *worker_outcome_name(uint32_t outcome)
{
    return outcome < WORKER_OUT_COUNT_ ? outcome_names[outcome] : "?";
}

const char *worker_stage_name(uint32_t stage)
{
    return stage < WORKER_STAGE_COUNT_ ? stage_names[stage] : "?";
}

const char *worker_load_error_name(uint32_t load_error)
{
    return load_error < WORKER_LOAD_COUNT_ ? load_names[load_error] : "?";
}

const char *worker_signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGSEGV, "SIGSEGV"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},
        {SIGABRT, "SIGABRT"}, {SIGTRAP, "SIGTRAP"}, {SIGSYS, "SIGSYS"},   {SIGKILL, "SIGKILL"},
        {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGHUP, "SIGHUP"},
        {SIGPIPE, "SIGPIPE"}, {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"}, {SIGALRM, "SIGALRM"},
        {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}, {SIGSTKFLT, "SIGSTKFLT"},
        {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGCHLD, "SIGCHLD"},
        {SIGCONT, "SIGCONT"}, {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"},
        {SIGTTOU, "SIGTTOU"}, {SIGURG, "SIGURG"}, {SIGIO, "SIGIO"},
        {SIGWINCH, "SIGWINCH"}, {SIGPWR, "SIGPWR"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "signal";
}

void worker_set_msg(worker_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

void worker_reset_result(worker_result *r)
{
    uint8_t *o1 = r->out1, *o2 = r->out2, *f = r->flags;
    uint64_t cb = r->cap_bytes_, cc = r->cap_count_;
    memset(r, 0, sizeof *r);
    r->out1 = o1;
    r->out2 = o2;
    r->flags = f;
    r->cap_bytes_ = cb;
    r->cap_count_ = cc;
    r->shape_status = -1;
    r->compute_status[0] = r->compute_status[1] = -1;
    r->first_unwritten = r->first_nondet = UINT64_MAX;
    r->fault_write = -1;
    r->wait_status = -1;
    r->exit_code = -1;
}

void worker_result_free(worker_result *r)
{
    if (!r)
        return;
    dvg_free(r->out1);
    dvg_free(r->out2);
    dvg_free(r->flags);
    memset(r, 0, sizeof *r);
}

char *worker_fp_describe(uint32_t fp, char *buf, size_t len)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {
        {WORKER_FP_ROUNDING, "rounding mode"}, {WORKER_FP_FTZ, "flush-to-zero"},
        {WORKER_FP_DAZ, "denormals-are-zero"}, {WORKER_FP_TRAPS, "exception traps"},
        {WORKER_FP_PRECISION, "x87 precision"}, {WORKER_FP_OTHER, "other control bits"},
    };
    size_t used = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((fp & names[i].bit) && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     names[i].name);
    return buf;
}

char *worker_caps_describe(uint64_t caps, char *buf, size_t len)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } names[] = {
        {DVG_CAP_INSTANCES_CONCURRENT, "instances-concurrent"},
        {DVG_CAP_INSTANCE_CONCURRENT, "instance-concurrent"},
        {DVG_CAP_IN_PLACE_A, "in-place-a"},
        {DVG_CAP_IN_PLACE_B, "in-place-b"},
        {DVG_CAP_THREADS, "threads"},
    };
    size_t used = 0;
    if (!len)
        return buf;
    snprintf(buf, len, "none");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if ((caps & names[i].bit) && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     names[i].name);
    return buf;
}

char *worker_leak_describe(const worker_result *r, char *buf, size_t len)
{
    char fp[128];
    size_t used = 0;
    if (!len)
        return buf;
    buf[0] = '\0';
    if (r->side_effects & WORKER_SIDE_FP_STATE)
        used += (size_t)snprintf(buf, len, "the FP environment left changed (%s)",
                                 worker_fp_describe(r->fp_changed, fp, sizeof fp));
    if ((r->side_effects & WORKER_SIDE_SIGNAL_STATE) && used < len)
        snprintf(buf + used, len - used, "%s%s%s%s%s%s%s", used ? "; " : "",
                 "left changed: ",
                 (r->sig_changed & WORKER_SIG_HANDLER) ? "the disposition of " : "",
                 (r->sig_changed & WORKER_SIG_HANDLER)
                     ? worker_signal_name(r->sig_changed_signal)
                     : "",
                 (r->sig_changed & WORKER_SIG_MASK)
                     ? ((r->sig_changed & WORKER_SIG_HANDLER) ? ", the signal mask" : "the signal mask")
                     : "",
                 (r->sig_changed & WORKER_SIG_TIMER) &&
                         (r->sig_changed & (WORKER_SIG_HANDLER | WORKER_SIG_MASK))
                     ? ", "
                     : "",
                 (r->sig_changed & WORKER_SIG_TIMER) ? "an armed interval timer (alarm)" : "");
    return buf;
}

char *worker_result_format(const worker_result *r, char *buf, size_t len)
{
    if (!len)
        return buf;
    if (r->outcome == WORKER_OUT_OK)
        snprintf(buf, len, "ok (%s%s%llu unwritten, %llu nondeterministic)",
                 r->computed ? "computed, " : "not computed, ",
                 r->has_shape ? "" : "no shape, ", (unsigned long long)r->n_unwritten,
                 (unsigned long long)r->n_nondet);
    else if (r->outcome == WORKER_OUT_LOAD_ERROR)
        snprintf(buf, len, "%s (%s) in %s: %s", worker_outcome_name(r->outcome),
                 worker_load_error_name(r->load_error), worker_stage_name(r->stage),
                 r->message);
    else
        snprintf(buf, len, "%s in %s: %s", worker_outcome_name(r->outcome),
                 worker_stage_name(r->stage), r->message);
    return buf;
}
