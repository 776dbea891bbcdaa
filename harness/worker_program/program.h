/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/program.h: what the files of the worker program
 * (divergence-worker) share privately (nothing outside this folder
 * includes it). The program runs only inside the sandbox: it reads its
 * set-up from the control block (harness/worker/wire.h, the one message
 * it takes from the harness), puts its own layers in place (Landlock, the
 * limits, its seccomp filter: harness/sandbox/sandbox.h), loads the plugin
 * and serves requests.
 *
 *   main.c          its main
 *   child.c         its set-up from the control block, fault and exit
 *                   handlers, loading the plugin, serving requests
 *   zygote.c        the zygote's server: the loaded worker forks a runner
 *                   per life of the worker's process, so a crash costs a
 *                   fork, not a reload (its client: harness/worker/life.c)
 *   child_limits.c  its descriptors and limits
 *   isolate.c       its Landlock rules, the plugin's libraries loaded
 *                   first in reduced mode, the keeper that reaps what the
 *                   plugin left where no cgroup does
 *   child_state.c   the FP environment and signal state a call must leave
 *                   as it found it
 *   child_late.c    the output read-only after a compute returned, the
 *                   plugin's threads still active watched a few ms
 *   child_probe.c   its side of a probe (two threads at once, in place:
 *                   worker_probe)
 *   child_slot.c    what child.c and child_probe.c share: a tensor's slot
 *                   mapped and unmapped, an instance opened, last_error
 *
 * The order of a worker's layers, and the one place an emulator goes.
 * A start (launch_spawn, then child_main) puts the layers in place in
 * this order: (1) in the launch's child (harness/worker/life.c), its own
 * session, the cgroup, the unprivileged uid, a fresh session keyring,
 * PR_SET_PDEATHSIG; (2)
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
 * Grants (issues 28, 29; harness/sandbox/grant.h). A plugin that needs more than
 * a division kernel (PoCL execs /usr/bin/ld from open(); CUDA opens device
 * nodes) gets it as data, never as code of its own, and only when the
 * caller names it (--grant NAME, worker_options.grants): the sandbox
 * (sandbox_prepare) resolves the grant's table row on this host (grant_plan_build) and adds
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
 * _exit only. The harness's side of a launch (harness/worker/life.c) does
 * everything that allocates before it forks; between fork and exec it only calls
 * what is safe in a child of a threaded process.
 */
#ifndef HARNESS_WORKER_PROGRAM_H
#define HARNESS_WORKER_PROGRAM_H

#include <fenv.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "harness/sandbox/sandbox.h"
#include "harness/worker/wire.h"

/* ------------------------------------------------------------------------
 * child.c
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

/* Descriptor size of ABI 1.0: everything up to and including `close`;
 * of ABI 1.1: up to and including `open_with`. A size between the two is
 * refused; a larger one (a later minor) is read as 1.1. */
#define DESCRIPTOR_V1_0_SIZE (offsetof(dvg_descriptor, close) + sizeof(void (*)(void)))
#define DESCRIPTOR_V1_1_SIZE (offsetof(dvg_descriptor, open_with) + sizeof(void (*)(void)))

/* child_slot.c, for child.c and child_probe.c: a tensor's slot mapped
 * and unmapped, the mapping kept when the next request names the same
 * slot (child_fit), an instance opened as the first one was, the
 * plugin's last_error text. */
int child_map(int fd, const ctl_region *r, int prot, size_t page, ctl_map *m);
void child_unmap(ctl_map *m);
int child_fit(int fd, const ctl_region *want, ctl_region *have, int prot, size_t page,
              ctl_map *m);
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
#define LATE_WINDOW_MS 50

/* After compute `seq` returned: the output's pages (out) read-only, the
 * plugin's threads named in b->late, and a wait of at most LATE_WINDOW_MS
 * while one of them is active. Nothing when the serving thread is alone. */
void child_late_arm(ctl_block *b, const ctl_map *out, uint32_t seq, size_t page);

/* Before the next compute or probe: the output writable again. */
void child_late_release(ctl_block *b);

#endif /* HARNESS_WORKER_PROGRAM_H */
