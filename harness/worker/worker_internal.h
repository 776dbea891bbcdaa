/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/worker_internal.h: what the files of harness/worker share
 * privately (nothing outside this folder includes it).
 *
 * The worker is split by the process a piece runs in and by concern:
 *   wire.c          the protocol both sides speak (wire.h)
 *   child.c         the child: its entry, fault and exit handlers, loading
 *                   the plugin, serving requests
 *   zygote.c        both sides of the zygote: the loaded child forks a
 *                   runner per life of the worker's process, so a crash
 *                   costs a fork, not a reload
 *   sandbox.c       the child's set-up before the plugin: descriptors,
 *                   limits, the seccomp filter (libseccomp)
 *   isolate.c       namespaces, the read-only view, Landlock, the keeper
 *                   that ends as the plugin's process ends; naming the
 *                   layers (worker_describe_layers)
 *   child_state.c   the FP environment and signal state a call must leave
 *                   as it found it
 *   parent.c        worker_new/free, spawning, stopping, one call
 *   output.c        the plugin's output shown escaped and prefixed
 *   fault.c         how the end of a child becomes a worker_result
 *   request.c       what worker_run and the batch runs share: the operand
 *                   arena, requests, reading replies into results
 *   run.c           worker_run: one case, two computes, element flags
 *   batch.c         the batch API (batch.h)
 *   result.c        worker_result: names, reset, free, descriptions
 *
 * The child never allocates through dvg_malloc (an injected failure must
 * not leak into it) and never returns: it leaves through _exit only.
 */
#ifndef HARNESS_WORKER_INTERNAL_H
#define HARNESS_WORKER_INTERNAL_H

#include <fenv.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "harness/cases/divcase.h"
#include "harness/worker/wire.h"
#include "harness/worker/worker.h"
#include "oracle/shape.h"

/* How long a new child may take to set up its sandbox, before the plugin
 * is loaded (the harness's own work; slow only on a loaded machine). */
#define WORKER_SETUP_MS 60000

struct worker {
    char *path;
    char *config;
    worker_options opt;
    size_t page;

    int memfd;              /* the operand arena, kept across children;
                               sealed against shrinking (a plugin that
                               truncated it would fault the parent) */
    int outfd;              /* capture of the plugin's stdout/stderr, -1 */
    uint64_t out_shown;     /* bytes of it copied to stderr so far */
    uint8_t *arena;         /* parent's mapping of it */
    uint64_t arena_size;
    uint64_t arena_live;    /* bytes of it that may hold pages */

    pid_t pid;              /* 0: no child; with a zygote: its runner,
                               which is the zygote's child, not ours */
    int ready;              /* child loaded and open */
    int sock;               /* parent end, -1 */
    int pidfd;              /* -1 when the kernel has none */
    ctl_block *ctl;         /* shared with the current child (and with
                               the zygote and its runners) */
    size_t ctl_size;
    uint32_t seq;
    uint64_t spawns;        /* processes that served calls */
    uint64_t loads;         /* children that loaded the plugin */

    pid_t zpid;             /* the zygote (zygote.c), 0: none */
    int zsock;              /* parent end of its channel, -1 */
    int zpidfd;             /* its pidfd, -1 */
    uint32_t zseq;
    ctl_map zshape;         /* what the zygote wrote of its shape buffer and
                               stack before any runner could change it */
    uint64_t zstack_top, zstack_limit;

    int has_info;
    worker_info info;
    char err[256];
};


/* Milliseconds of CLOCK_MONOTONIC: the clock of every deadline. */
static inline int64_t worker_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------
 * result.c
 * ---------------------------------------------------------------------- */

/* Zeroes r for a new request, keeping its buffers, with the "did not
 * happen" values: statuses -1, first_* UINT64_MAX, fault_write,
 * wait_status and exit_code -1. */
void worker_reset_result(worker_result *r);

/* r->message from a printf format (truncated to WORKER_MESSAGE_MAX - 1). */
void worker_set_msg(worker_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------------
 * parent.c
 * ---------------------------------------------------------------------- */

/* The text worker_errmsg returns, from a printf format. */
void worker_set_err(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Kills what is left of the child's process group, reaps the child and
 * returns its wait status (-1 when it cannot be had). The control block
 * stays mapped for the caller to read; worker_release_child drops it. */
int worker_reap_child(worker *w);

/* Closes the parent's end of the channel and the pidfd and unmaps the
 * control block (kept while a zygote holds it). */
void worker_release_child(worker *w);

/* Sends the request in ctl->req (op and stage set here, a new seq) and
 * waits up to timeout_ms for its reply. Returns 0 with the reply in
 * ctl->rep, or 1 after filling r with the child's end (worker_lose_child).
 * Drains the captured output into r either way. */
int worker_call_child(worker *w, uint32_t op, uint32_t stage, worker_result *r);

/* ------------------------------------------------------------------------
 * zygote.c, the parent's side
 * ---------------------------------------------------------------------- */

/* Asks the zygote (w->zpid) for a runner and makes it the worker's child
 * (pid, sock, pidfd; ready), after clearing the fault, exit and mapping
 * records of the control block. 0, or -1 when the zygote made none (it is
 * gone, or cannot fork): drop it and load afresh. */
int worker_fork_runner(worker *w);

/* Kills the runner (w->pid, its pidfd and its process group) and has the
 * zygote reap it: its wait status, or -1 when the zygote did not answer
 * (then the zygote is dropped too). */
int worker_reap_runner(worker *w);

/* Quits the zygote, waits a while, kills its group and reaps it; closes
 * its channel and pidfd. The control block stays mapped. No-op without. */
void worker_drop_zygote(worker *w);

/* ------------------------------------------------------------------------
 * output.c
 * ---------------------------------------------------------------------- */

/* Writes len bytes the plugin printed (buf[len] must be a NUL) to stderr,
 * each line prefixed "plugin NAME: ", every unsafe code point
 * (harness/base/text.h) escaped. */
void worker_show_output(const worker *w, const char *buf, size_t len);

/* ------------------------------------------------------------------------
 * fault.c
 * ---------------------------------------------------------------------- */

/*
 * The child is gone (or must go): reaps it, releases it and fills r (may
 * be NULL) with how it ended. `why` is 0 the child died on its own, 1 the
 * deadline passed (hang), 2 it broke the protocol (`detail` says how).
 * `stage` is the stage of the call in flight.
 */
void worker_lose_child(worker *w, int why, uint32_t stage, const char *detail,
                       worker_result *r);

/* ------------------------------------------------------------------------
 * request.c: what worker_run and the batch runs share
 * ---------------------------------------------------------------------- */

/* Makes the arena at least `need` bytes (mapped at w->arena). 0, or -1
 * with worker_errmsg. */
int worker_fit_arena(worker *w, uint64_t need);

/* A region of nbytes data bytes at arena offset off (page-aligned): with
 * at < 0 its data ends flush with its last page; with at 0..63 it starts
 * `at` bytes past a 64-byte line and ends fewer than 64 bytes before the
 * end of its last page (the tail slack). */
void worker_layout_region(ctl_region *g, uint64_t off, uint64_t nbytes, int at, size_t page);

/* The regions A, B and output of case c, whose output has c_bytes bytes,
 * one after the other from arena offset 0, placed by c->offsets. */
void worker_layout_case(const worker *w, const divcase *c, uint64_t c_bytes, ctl_region g[3]);

/* 1 when a byte of the slack of output region g (before its data, and
 * after it up to the end of its pages), mapped at o (the region's first
 * page), differs from the pattern pat[i % n] it was filled with (i: the
 * byte's offset from o), with *at its offset from the data start
 * (negative before it); 0 when the slack is intact. */
int worker_slack_changed(const uint8_t *o, const ctl_region *g, size_t page,
                         const uint8_t *pat, uint32_t n, int64_t *at);

/* Grows r->out1 and r->out2 to nbytes and r->flags to count (at least 1
 * each). 0, or -1 with worker_errmsg. */
int worker_fit_buffers(worker *w, worker_result *r, uint64_t nbytes, uint64_t count);

/* A non-OK plugin status st of the call at `stage` into r, with the
 * plugin's last_error text. */
void worker_take_status(worker_result *r, uint32_t stage, int32_t st, const char *text);

/* 1 when s has a rank of at most DVG_MAX_RANK and no negative dimension. */
int worker_shape_ok(const oracle_shape *s);

/* Elements of s, or UINT64_MAX when the product passes ORACLE_MAX_ELEMENTS. */
uint64_t worker_shape_count(const oracle_shape *s);

/* The FP and signal state a call left changed (the child put it back),
 * from its reply into r. */
void worker_take_leaks(worker_result *r, const ctl_reply *rep);

/* Zeroes *q and fills it with c's variant, dtype, attributes, A and B. */
void worker_fill_request(ctl_request *q, const divcase *c);

/* The outcome of side effects found after a run that returned DVG_OK
 * (slack_at: the offset of the first changed slack byte from the output's
 * start, negative before it). */
void worker_side_outcome(worker_result *r, int64_t slack_at);

/* r->flags from the two runs in r->out1 and r->out2, made into outputs
 * whose elements i held q1[i % period] and q2[i % period] before (period a
 * power of two: 2 for a pattern of one element and an i4/u4 byte):
 * unwritten where each run left its poison, nondeterministic where the
 * runs differ otherwise. */
void worker_flag_elements(worker_result *r, const uint64_t *q1, const uint64_t *q2,
                          uint32_t period);

/* ------------------------------------------------------------------------
 * The child: child.c, sandbox.c, child_state.c. All of it runs only in the
 * forked child.
 * ---------------------------------------------------------------------- */

/* The child's life: set-up, loading, then requests until the parent quits
 * it or goes. `sock_in` is its end of the channel, `b` the control block. */
__attribute__((noreturn)) void child_main(worker *w, pid_t parent, int sock_in, ctl_block *b);

/* zygote.c */

/* 1 when this process can become a zygote: one thread (the plugin left
 * none running after open()) and a kernel with pidfds. */
int child_can_fork(void);

/* The zygote's life after its hello on `sock`: forks a runner per
 * OP_FORK, reaps it on OP_REAP, exits on OP_QUIT or when the channel
 * closes. Returns only in a runner, set up (fd 3 its own channel, its own
 * process group, PR_SET_PDEATHSIG, CONFINE_PROCS when `confined`), to
 * serve requests as any child does. */
void child_serve_forks(int sock, int confined);

/* sandbox.c */

/* Moves the socket and the arena to fds 3 and 4, a read-only view of the
 * arena to 5 (*rofd; 4 when none can be had), stdin to /dev/null, stdout
 * away from the harness's stdout, and closes every other descriptor. */
void child_fds(int sock, int memfd, int outfd, int quiet, int *rofd);

/* RLIMIT_CORE 0 and the limits of o (worker_options.limit_*). */
void child_limits(const worker_options *o, size_t page);

/* Reads the small file at `path` (a /proc/self file) into buf, at most
 * len - 1 bytes, NUL-terminated: the byte count, or 0 when it cannot. */
size_t child_read_small(const char *path, char *buf, size_t len);

/* Moves the RLIMIT_CPU soft limit to `budget` seconds past what the child
 * has used so far (0: no limit), at most once a second of wall time. */
void child_cpu_budget(uint32_t budget);

/* Installs the parts of the seccomp filter (worker_options.confine,
 * libseccomp) that `parts` names; 1 when it is in force. Needs
 * no_new_privs. Each call stacks one more filter.
 *   CONFINE_BASE   exec, ptrace, process_vm_*, pidfd_getfd, io_uring,
 *                  the TIOCSTI and TIOCLINUX ioctls, and, without
 *                  WORKER_LAYER_NET in `layers` (what child_isolate set
 *                  up), sockets other than AF_UNIX
 *   CONFINE_PROCS  fork, vfork, clone (threads allowed), clone3,
 *                  pidfd_send_signal, signals to other processes, setpgid
 *                  and setsid; the pids it allows are the caller's (install
 *                  it in the process it is for: a runner adds it after its
 *                  fork and its setpgid) */
#define CONFINE_BASE 1
#define CONFINE_PROCS 2
#define CONFINE_ALL (CONFINE_BASE | CONFINE_PROCS)
int child_confine(int parts, uint32_t layers);
/* isolate.c */

/* The namespaces, the read-only view, the reduced environment, the
 * dropped capabilities and Landlock (worker_options.sandbox). Forks: the
 * caller stays outside as the keeper and never returns (it ends as the
 * plugin's process ends); it returns in the plugin's process, with the
 * WORKER_LAYER_* bits in force, w->path made the plugin's real path. */
uint32_t child_isolate(worker *w);

/* child_state.c */

/* The FP environment: fenv_t and the control registers it may not hold. */
typedef struct fp_state {
    fenv_t env;
    int round;
#if defined(__x86_64__) || defined(__i386__)
    uint32_t mxcsr;
    uint16_t x87cw;
#elif defined(__aarch64__)
    uint64_t fpcr;
#endif
} fp_state;

/* The dispositions of the signals that matter (child_state.c lists them)
 * and the signal mask. */
#define CHILD_WATCHED_SIGNALS 17
typedef struct sig_state {
    struct sigaction sa[CHILD_WATCHED_SIGNALS];
    sigset_t mask;
} sig_state;

/* What one call starts from and is checked against. */
typedef struct call_base {
    fp_state fp;
    sig_state sig;
    uint32_t cpu_s;
} call_base;

/* The FP environment now. */
void child_take_fp(fp_state *s);

/* WORKER_FP_* bits in which b differs from a (exception flags ignored). */
uint32_t child_diff_fp(const fp_state *a, const fp_state *b);

/* The signal state now. */
void child_take_signals(sig_state *s);

/* Before a plugin call: its CPU budget, the FP environment of cb. */
void child_begin_call(const call_base *cb);

/* After a plugin call: what it left changed into rep (and put back). */
void child_end_call(const call_base *cb, const ctl_request *q, ctl_reply *rep);

#endif /* HARNESS_WORKER_INTERNAL_H */
