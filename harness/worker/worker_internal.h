/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/worker_internal.h: what the files of harness/worker share
 * privately (nothing outside this folder includes it).
 *
 * The worker is split by the process a piece runs in and by concern:
 *   wire.c          the protocol both sides speak (wire.h)
 *   main.c          the worker program (divergence-worker): its main
 *   child.c         the worker program: its set-up from the control
 *                   block, fault and exit handlers, loading the plugin,
 *                   serving requests
 *   zygote.c        both sides of the zygote: the loaded worker forks a
 *                   runner per life of the worker's process, so a crash
 *                   costs a fork, not a reload
 *   child_limits.c  the worker program's descriptors and limits
 *   isolate.c       the worker's Landlock rules, the plugin's libraries
 *                   loaded first in reduced mode, the keeper that reaps
 *                   what the plugin left where no cgroup does
 *   child_state.c   the FP environment and signal state a call must leave
 *                   as it found it
 *   child_late.c    the output read-only after a compute returned, the
 *                   plugin's threads still active watched a few ms
 *   child_probe.c   the worker program's side of a probe (two threads at
 *                   once, in place: worker_probe)
 *   probe.c         worker_probe, the harness's side
 *   launch.c        starting the worker program: the sandbox's spec
 *                   (harness/sandbox/sandbox.h), the fork and exec (the
 *                   harness's side)
 *   parent.c        worker_new/free, spawning, stopping, one call
 *   output.c        the plugin's output shown escaped and prefixed
 *   fault.c         how the end of a child becomes a worker_result
 *   request.c       what worker_run and the batch runs share: the operand
 *                   arena, requests, reading replies into results
 *   run.c           worker_run: one case, two computes, element flags
 *   batch.c         the batch API (batch.h)
 *   result.c        worker_result: names, reset, free, descriptions
 *
 * The order of a worker's layers, and the one place an emulator goes.
 * A start (launch_spawn, then child_main) puts the layers in place in
 * this order: (1) in the launch's child, its own session, the cgroup, the
 * unprivileged uid, a fresh session keyring, PR_SET_PDEATHSIG; (2)
 * bubblewrap's namespaces and view, or nothing more in reduced mode; (3)
 * the outer filter, installed by bubblewrap or the launch just before the
 * exec of the worker program; (4) in the worker program (child_main):
 * the keeper, Landlock, the limits, no_new_privs, the worker's own filter
 * (CONFINE_BASE); then READY, the check from outside, and the plugin.
 * Issue 25 runs the worker under an emulator (worker_options.cpu_model:
 * qemu-x86_64-static -cpu Haswell|Nehalem WORKER), inside which new user
 * namespaces, Landlock and seccomp_load all fail, so every layer is in
 * place before the emulator starts, and everything in place survives exec
 * (namespaces, ids, cgroup, keyring, both filters, Landlock, limits). The
 * place is in child_main, after step (4) and before READY: the worker
 * program execs the emulator (its descriptor WORKER_FD_EMULATOR, opened
 * close-on-exec before Landlock) on VIEW_PROGRAM with CHILD_EMULATED and
 * the Landlock bit, and the emulated worker program goes straight to
 * READY with that bit. What that needs, and only there: the emulator's
 * file in the view (view_add_static at VIEW_EMULATOR; in reduced mode the
 * program's closure in Landlock's reads); Landlock's execute right on that
 * one file; CONFINE_EMULATOR letting that one exec through (execveat of
 * WORKER_FD_EMULATOR with AT_EMPTY_PATH, which seccomp can compare); no
 * zygote (worker_new sets no_zygote), so the whole filter is installed
 * before the exec. The attestation is unchanged: it reads /proc of the
 * same process, which the exec keeps (docs/sandbox.md, "The emulator").
 *
 * Grants (issues 28, 29; grant.h, grant.c). A plugin that needs more than
 * a division kernel (PoCL execs /usr/bin/ld from open(); CUDA opens device
 * nodes) gets it as data, never as code of its own, and only when the
 * caller names it (--grant NAME, worker_options.grants): launch_prepare
 * resolves the grant's table row on this host (grant_plan_build) and adds
 * its objects and programs with their closure and its files to the view
 * (view_add_objects, view_add_file), its folders and devices to
 * bubblewrap's arguments (--ro-bind, --dev-bind), its variables to the
 * environment; the control block carries its process flags and the paths
 * Landlock gives the execute right (a program and its loader) or write
 * access (a device) to (child_isolate). Exec during open() only: the
 * worker installs CONFINE_OPEN (no exec or process rule) instead of its
 * first filter and adds CONFINE_EXEC when open() returns, before any
 * compute (runners inherit it). A grant needs the view: reduced mode
 * refuses it. The sandbox line names every grant and what it added
 * (worker_describe_sandbox), from the table, not from the worker.
 *
 * The worker program never allocates through dvg_malloc (an injected
 * failure must not leak into it) and never returns: it leaves through
 * _exit only. The harness's side of a launch (launch.c) does everything
 * that allocates before it forks; between fork and exec it only calls
 * what is safe in a child of a threaded process.
 */
#ifndef HARNESS_WORKER_INTERNAL_H
#define HARNESS_WORKER_INTERNAL_H

#include <fenv.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "harness/cases/divcase.h"
#include "harness/sandbox/sandbox.h"
#include "harness/worker/wire.h"
#include "harness/worker/worker.h"
#include "oracle/shape.h"

/* How long a new worker may take to set up its sandbox, before the plugin
 * is loaded (the harness's own work; slow only on a loaded machine). */
#define WORKER_SETUP_MS 60000

/* The descriptors the worker program starts with (launch.c places them):
 * 0 /dev/null, 1 the plugin's stdout, 2 what the set-up has to say (the
 * program moves 7 there), 3 the channel, 4 the operand arena, 5 a
 * read-only descriptor of it, 6 the control block, 7 the plugin's stderr. */
#define WORKER_FD_CHANNEL 3
#define WORKER_FD_ARENA 4
#define WORKER_FD_ARENA_RO 5
#define WORKER_FD_CTL 6
#define WORKER_FD_STDERR 7
#define WORKER_FD_COUNT 8

struct worker {
    char *path;
    char *config;
    worker_options opt;
    size_t page;

    int memfd;              /* the operand arena, kept across children;
                               sealed against shrinking (a plugin that
                               truncated it would fault the parent) */
    int rofd;               /* a read-only descriptor of it */
    int outfd;              /* capture of the plugin's stdout/stderr, -1 */
    uint64_t out_shown;     /* bytes of it copied to stderr so far */
    uint8_t *arena;         /* parent's mapping of it */
    uint64_t arena_size;
    uint64_t slot_pages[3]; /* the slots of A, B and the output in it
                               (worker_layout_case): the most pages each
                               tensor needed so far; they only grow, so
                               the pages of the arena and the child's
                               mappings of them serve every later case */

    pid_t pid;              /* 0: no child; the process this one forked
                               (bubblewrap, the keeper or the worker
                               program); with a zygote: its runner, which
                               is the zygote's child, not ours */
    pid_t wpid;             /* the worker program's process (the one that
                               serves calls when there is no zygote) */
    int ready;              /* child loaded and open */
    int sock;               /* parent end, -1 */
    int pidfd;              /* -1 when the kernel has none */
    ctl_block *ctl;         /* shared with the current child (and with
                               the zygote and its runners) */
    size_t ctl_size;
    uint32_t seq;
    uint32_t run_seq;       /* the first request of the current worker_run
                               (a late write of an earlier one is another
                               case's: worker_result.late_earlier) */
    char late_case[64];     /* the case of the last compute that returned */
    uint64_t spawns;        /* processes that served calls */
    uint64_t loads;         /* children that loaded the plugin */

    pid_t zpid;             /* the zygote's process this one forked
                               (zygote.c), 0: none */
    int zsock;              /* parent end of its channel, -1 */
    int zpidfd;             /* its pidfd, -1 */
    uint32_t zseq;
    ctl_map zshape;         /* what the zygote wrote of its shape buffer and
                               stack before any runner could change it */
    uint64_t zstack_top, zstack_limit;

    /* launch.c */
    sandbox_plan sb;             /* how it is confined (harness/sandbox), set
                               by launch_prepare, kept for every start */
    int hook;               /* SANDBOX_HOOK_*: DIVERGENCE_TEST_SANDBOX */
    int emu_model;          /* cpumodel.h's index; CPUM_NATIVE: none */
    int setupfd;            /* what bubblewrap or the launch says, -1 */
    int infofd;             /* bubblewrap's --info-fd, read end, -1 */
    uint32_t layers;        /* attested for the current life (attest.c) */

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
 * launch.c
 * ---------------------------------------------------------------------- */

/* Before a worker's first start: the mode, the programs, the view, the
 * environment, the cgroup, the seccomp program. 0; 1 with r (LOAD_ERROR,
 * SETUP: --sandbox strict and a layer this host cannot give); -1 with
 * worker_errmsg. */
int launch_prepare(worker *w, worker_result *r);

/* Starts the worker program with `chan` (the child's end of the channel)
 * and the control block's memfd ctlfd: sets w->pid (the process forked),
 * w->pidfd. 0 or -1 with worker_errmsg. */
int launch_spawn(worker *w, int chan, int ctlfd);

/* After the worker's READY: its process id as this process sees it (the
 * process bubblewrap or the keeper started), 0 when unknown. */
pid_t launch_worker_pid(worker *w);

/* What bubblewrap or the launch said before the worker ran, sanitized,
 * into buf (cap bytes; "" when nothing). Empties it. */
void launch_setup_text(worker *w, char *buf, size_t cap);

/* After a life of the worker: kills what is left of it (its cgroup) and
 * closes the descriptors of that life. */
void launch_end_life(worker *w);

/* Releases what launch_prepare made (the view, the environment, the
 * copy, the cgroup after killing what is in it). Accepts a worker never
 * prepared. */
void launch_free(worker *w);

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
 * records of the control block. 0; -1 when the zygote made none (it is
 * gone, or cannot fork): drop it and load afresh; -2 when the runner does
 * not show its zygote's layers from outside (worker_errmsg): a harness
 * error, the run ends. */
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
 * placed by c->offsets, each at the end of its slot: the slots of A, B and
 * the output lie one after the other from arena offset 0, each as large as
 * the most pages its tensor needed in this worker's life (grown here when
 * c needs more). Mapping a slot costs page faults once; a case that fits
 * the slots reuses the pages and the child's mappings as they are. */
void worker_layout_case(worker *w, const divcase *c, uint64_t c_bytes, ctl_region g[3]);

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
 * The worker program: child.c, zygote.c, child_limits.c, isolate.c,
 * child_state.c. All of it runs only in the worker's processes.
 * ---------------------------------------------------------------------- */

/* What the worker program learns from its control block (child.c). */
typedef struct child_setup {
    worker_options opt;      /* its limits, timeout, quiet, confine,
                                no_zygote (config and env unused) */
    size_t page;
    int mode;                /* LAUNCH_* */
    int keeper;              /* 1: keep a reaper (isolate.c) */
    const char *plugin;      /* the path to dlopen */
    const char *config;      /* open()'s string */
    const char **preload;    /* LAUNCH_REDUCED: load these first */
    uint32_t n_preload;
    const char **read;       /* LAUNCH_REDUCED: what Landlock lets it read */
    uint32_t n_read;
    uint32_t grant_flags;    /* GRANT_* (grant.h) */
    const char **exec;       /* Landlock's execute right (a grant's programs) */
    uint32_t n_exec;
    const char **dev;        /* devices it may read and write (a grant's) */
    uint32_t n_dev;
    const char *emulator;    /* the emulator to exec, "" native */
    const char *program;     /* the worker program, as the worker sees it */
    const char *emu_cpu;     /* QEMU's -cpu model */
    int emulated;            /* 1: this is the worker program under the
                                emulator, its layers set (CHILD_EMULATED) */
    uint32_t inner;          /* then: the Landlock bit it was handed */
} child_setup;

/* The descriptor of the emulator the worker program execs (O_CLOEXEC,
 * opened before Landlock), and the one argument the emulated worker
 * program gets before the Landlock bit: the layers are in place. */
#define WORKER_FD_EMULATOR SANDBOX_FD_EMULATOR
#define CHILD_EMULATED "--emulated"

/* The worker program: reads its set-up from the control block on
 * WORKER_FD_CTL, then child_main. argv: none, or CHILD_EMULATED and the
 * inner layer bits (decimal) when the worker program exec'd the emulator
 * on itself. */
__attribute__((noreturn)) void child_program(int argc, char **argv);

/* The worker's life: set-up, loading, then requests until the parent
 * quits it or goes. */
__attribute__((noreturn)) void child_main(const child_setup *cs, ctl_block *b);

/* child.c, for child_probe.c: a tensor's slot mapped and unmapped, an
 * instance opened as the first one was, the plugin's last_error text. */
int child_map(int fd, const ctl_region *r, int prot, size_t page, ctl_map *m);
void child_unmap(ctl_map *m);
int32_t child_open(const dvg_descriptor *d, const child_setup *cs, dvg_iut **out);
void child_last_error(const dvg_descriptor *d, dvg_iut *iut, char *dst);

/* child_probe.c: OP_PROBE (worker_probe) on the case's tensors ta, tb, tc
 * (mapped as for a compute): in place, one compute with A's or B's data
 * pointer at C's; two threads, the solo runs and the rounds. Writes
 * rep->status (the first that is not DVG_OK, with its last_error text),
 * rep->probe_rounds; rep->internal when the probe itself failed. */
void child_probe(const dvg_descriptor *d, dvg_iut *iut, const child_setup *cs,
                 const ctl_request *q, const dvg_tensor *ta, const dvg_tensor *tb,
                 dvg_tensor *tc, size_t page, ctl_reply *rep);

/* zygote.c */

/* 1 when this process can become a zygote: one thread (the plugin left
 * none running after open()) and a kernel with pidfds. */
int child_can_fork(void);

/* Threads of this process (/proc/self/stat), 0 when unknown. */
long child_count_threads(void);

/* The zygote's life after its hello on `sock`: forks a runner per
 * OP_FORK, reaps it on OP_REAP, exits on OP_QUIT or when the channel
 * closes. Returns only in a runner, set up (fd 3 its own channel, its own
 * process group, PR_SET_PDEATHSIG, CONFINE_PROCS when `confined`), to
 * serve requests as any child does. */
void child_serve_forks(int sock, int confined, int mode);

/* child_limits.c */

/* Moves the plugin's stderr (fd 7) to fd 2 and closes every descriptor
 * from WORKER_FD_COUNT on. */
void child_fds(void);

/* RLIMIT_CORE 0 and the limits of o (worker_options.limit_*); no
 * RLIMIT_AS where grant_flags has GRANT_NO_AS_LIMIT. */
void child_limits(const worker_options *o, size_t page, uint32_t grant_flags);


/* Moves the RLIMIT_CPU soft limit to `budget` seconds past what the child
 * has used so far (0: no limit), at most once a second of wall time. */
void child_cpu_budget(uint32_t budget);


/* isolate.c */

/* Landlock (LAUNCH_FULL: read the view, write the scratch; LAUNCH_REDUCED:
 * read cs->read and what every process reads), after, where cs->keeper
 * says so, forking a keeper that stays outside, reaps whatever the
 * plugin leaves and ends as the worker ends (it never returns). Returns
 * WORKER_LAYER_LANDLOCK when Landlock is in force, else 0. */
uint32_t child_isolate(const child_setup *cs);

/* LAUNCH_REDUCED: dlopens cs->preload in order (the plugin's libraries by
 * the paths the harness resolved, so that the plugin's copy finds them
 * loaded). 0, or -1 with the loader's message in err. */
int child_preload(const child_setup *cs, char *err, size_t cap);

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

/* ------------------------------------------------------------------------
 * child_late.c: writes after a compute returned
 * ---------------------------------------------------------------------- */

/* The longest the worker watches the plugin's active threads after a
 * compute returned, before it replies (milliseconds). */
#define LATE_WINDOW_MS 25

/* After compute `seq` returned: the output's pages (out) read-only, the
 * plugin's threads named in b->late, and a wait of at most LATE_WINDOW_MS
 * while one of them is active. Nothing when the serving thread is alone. */
void child_late_arm(ctl_block *b, const ctl_map *out, uint32_t seq, size_t page);

/* Before the next compute or probe: the output writable again. */
void child_late_release(ctl_block *b);

#endif /* HARNESS_WORKER_INTERNAL_H */
