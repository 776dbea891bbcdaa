/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/worker.h: isolation. A worker is a process of its own,
 * the worker program (divergence-worker, harness/worker_program/main.c), that loads
 * one plugin (an IUT, include/divergence/iut.h) with dlopen and runs its
 * calls; the harness never calls plugin code itself, not even the entry
 * symbol, and never forks itself into a worker: the worker program is
 * exec'd, so nothing of the harness's memory, environment block or keys
 * is in it.
 *
 * Life of a worker
 *   worker_new()    parent-side state only; no process yet.
 *   worker_start()  starts the worker program (life.c): through
 *                   bubblewrap with every layer of docs/sandbox.md where
 *                   the host allows it, else in reduced mode; checks its
 *                   layers from outside (attest.c) before it loads
 *                   anything; the worker program then dlopens the plugin,
 *                   calls dvg_iut_descriptor(), validates the descriptor,
 *                   calls open(config) and reports the description
 *                   (worker_info) or a precise load error.
 *   worker_run()    one case: output_shape, then, when the plugin's shape is
 *                   the expected one, compute twice (see below).
 *   worker_free()   asks the child to close the instance and exit; kills it
 *                   when it does not within the timeout; kills whatever the
 *                   plugin left (its PID namespace, its cgroup).
 *
 * After a crash, a hang, an exit or a protocol violation the child is gone
 * and the worker is marked dead; the next worker_run() (or worker_start())
 * spawns a fresh one. Fresh is cheap: the worker program that loaded the
 * plugin stays as a zygote that never calls the plugin again, and each
 * child that serves calls (a runner) is forked from it with the instance
 * already open (worker_options.no_zygote), and checked from outside before
 * its first call. A hang while loading kills the zygote; the next start
 * loads again. Nothing a plugin does ends or corrupts the harness:
 * everything the child writes is bound-checked before use, and every
 * string it hands over is sanitized (harness/base/text.h).
 *
 * Memory and isolation of one compute
 *   Operands travel through a shared memory file (memfd) the worker keeps
 *   and grows. In the child, each tensor is mapped into its own reservation
 *   [guard page][data pages][guard page], kept from call to call while the
 *   page counts stay the same (mapping costs more than a small compute),
 *   the data placed so that it ends flush against the upper guard (for
 *   sizes that are not a multiple of the page, the start is offset within
 *   the first page), or, for a case with data offsets (divcase.offsets),
 *   so that it starts that many bytes past a 64-byte line and ends fewer
 *   than 64 bytes before the upper guard (the tail slack). A and B are
 *   mapped PROT_READ from a read-only descriptor, so the plugin cannot
 *   even mprotect them writable. The output is pre-filled with a poison
 *   pattern (the page slack before and after it too). output_shape writes into a buffer that ends flush against a
 *   guard page as well.
 *   compute runs TWICE, first into this run's poison pattern, then into its
 *   complement (worker_poison). An element equal to the poison in both runs is
 *   "not written"; otherwise an element that differs between the runs is
 *   "nondeterministic" (worker_result.flags, per element; i4/u4 per nibble).
 *   A fault is classified by its address: in the guard after (or before) the
 *   output an out-of-bounds write, in A's or B's pages input mutated, in an
 *   input's guard an out-of-bounds read, elsewhere a crash. After each run
 *   the parent also compares A and B with the case's bytes and the slack
 *   around the output with the poison (writes that raised no signal).
 *
 * Process state. Every call starts from the FP environment loading and
 * open() left (worker_info.fp_at_open says how that differs from the
 * default). After each call the worker compares the FP environment with
 * it, and after the last call of a case the signal dispositions that
 * matter (the fault signals, the timers' signals, SIGPIPE, SIGCHLD, SIGINT,
 * SIGTERM, SIGHUP), the signal mask and the interval timers; whatever a
 * call left changed is reported (WORKER_SIDE_FP_STATE, _SIGNAL_STATE) and
 * put back, so later calls, and their verdicts, do not depend on it.
 *
 * Timeouts: loading (dlopen, the entry, validation, open) and every later
 * plugin call (output_shape, each compute, close) has its own deadline of
 * worker_options.timeout_ms; when it passes, the child's process group is
 * killed with SIGKILL: WORKER_OUT_HANG.
 *
 * Not thread-safe: one worker is driven by one thread at a time; different
 * workers may be driven from different threads. PR_SET_PDEATHSIG fires when
 * the *thread* that started the worker ends, so start a worker from a
 * thread that outlives it. worker_start calls fflush(NULL) before it
 * forks (the fork only execs). A parent that sets SIGCHLD to SIG_IGN loses
 * the children's wait statuses (EXIT and CRASH are then reported without
 * them).
 */
#ifndef HARNESS_WORKER_H
#define HARNESS_WORKER_H

#include <stddef.h>
#include <stdint.h>
#include "divergence/iut.h"
#include "harness/cases/divcase.h"
#include "oracle/shape.h"
#include "harness/sandbox/grant.h"
#include "harness/sandbox/identity.h"
#include "harness/sandbox/sandbox.h"

#define WORKER_MESSAGE_MAX 512   /* bytes of worker_result.message, NUL included */
#define WORKER_NAME_MAX 256      /* bytes of a plugin's name or version, NUL included */
#define WORKER_MAX_CLAIMS 4096   /* a descriptor claiming more is refused */
#define WORKER_CONFIG_MAX 4096   /* bytes of the open() config string, NUL excluded */
#define WORKER_ISA_NAME_MAX 32   /* bytes of an ISA level's name, NUL included */
#define WORKER_ISA_X86_MAX 8     /* bytes of its x86-64 level ("v3"), NUL included */
#define WORKER_MAX_ISA_LEVELS 16 /* a descriptor naming more is refused */

/* The poison patterns. A worker fills the output (and the rest of its
 * pages) of run 1 with a pattern of WORKER_POISON_BYTES random bytes, drawn
 * once per process (per run of a command: a plugin cannot learn it from an
 * earlier run or from this source), repeated from the first page on; run 2
 * with its complement. worker_poison(run, out) gives the pattern of run 0
 * or 1, for whoever judges what the outputs held. WORKER_POISON1 and
 * WORKER_POISON2 are the fixed bytes of the in-process fuzz target
 * (fuzz/fuzz_div.c), which must be deterministic; no worker uses them. */
#define WORKER_POISON_BYTES 64
void worker_poison(uint32_t run, uint8_t out[WORKER_POISON_BYTES]);
#define WORKER_POISON1 0xA5u
#define WORKER_POISON2 0x5Au

#define WORKER_DEFAULT_TIMEOUT_MS 10000u
#define WORKER_DEFAULT_MAX_BYTES (UINT64_C(1) << 30)

/*
 * What became of one request. X(ID, name): WORKER_OUT_<ID>, and the name
 * worker_outcome_name() gives (used in reports and logs).
 *   OK             every call made returned DVG_OK (whether compute ran at
 *                  all: worker_result.computed);
 *   INVALID_INPUT, UNSUPPORTED, FAILURE
 *                  the plugin returned that status; `message` holds its
 *                  last_error text (truncated to WORKER_MESSAGE_MAX - 1);
 *   BAD_STATUS     a status that is not a DVG_ code (`status`);
 *   BAD_SHAPE      output_shape returned DVG_OK with a rank above
 *                  DVG_MAX_RANK or a negative (or unset) dimension;
 *   CRASH          a signal (`signal`, `sig_code`, `fault_addr`) that is
 *                  none of the classes below;
 *   OOB_WRITE      a write outside the output: a fault in a guard page, or
 *                  a changed byte in the slack around the output
 *                  (`fault_region`, `fault_offset`);
 *   OOB_READ       a read in the guard page before or after an input;
 *   INPUT_MUTATED  a write into A or B (a fault in their pages, or their
 *                  bytes changed after the call);
 *   HANG           a call outlived timeout_ms; the child was killed;
 *   EXIT           the child exited (exit() in the plugin: `exit_code`) or
 *                  was killed by a signal it did not raise itself in a way
 *                  the worker could record (`wait_status`);
 *   PROTOCOL       the child broke the worker protocol (malformed message,
 *                  closed its channel, lied about its state);
 *   LOAD_ERROR     the plugin could not be loaded or opened (`load_error`).
 *   LATE_WRITE     a thread the plugin left running wrote into the output
 *                  (or an input) after compute returned: the output stays
 *                  read-only from then until the next compute, and the
 *                  worker watches the plugin's active threads for up to a
 *                  few ms before it replies (child_late.c); `message` names
 *                  the thread, the delay and the threads alive after the
 *                  call; `late_earlier` says whether the call was an
 *                  earlier request's (another case's) than this one.
 */
#define WORKER_OUTCOME_LIST(X)            \
    X(OK, "ok")                           \
    X(INVALID_INPUT, "invalid-input")     \
    X(UNSUPPORTED, "unsupported")         \
    X(FAILURE, "failure")                 \
    X(BAD_STATUS, "bad-status")           \
    X(BAD_SHAPE, "bad-shape")             \
    X(CRASH, "crash")                     \
    X(OOB_WRITE, "out-of-bounds-write")   \
    X(OOB_READ, "out-of-bounds-read")     \
    X(INPUT_MUTATED, "input-mutated")     \
    X(HANG, "hang")                       \
    X(EXIT, "exit")                       \
    X(PROTOCOL, "protocol")               \
    X(LOAD_ERROR, "load-error")           \
    X(LATE_WRITE, "late-write")

#define WORKER_OUT_ENUM_(ID, name) WORKER_OUT_##ID,
enum { WORKER_OUTCOME_LIST(WORKER_OUT_ENUM_) WORKER_OUT_COUNT_ };
#undef WORKER_OUT_ENUM_

/* Where an outcome arose (worker_result.stage). IDLE: between calls, e.g.
 * a thread the plugin left running crashed after a call returned. */
#define WORKER_STAGE_LIST(X)        \
    X(NONE, "none")                 \
    X(LOAD, "load")                 \
    X(OPEN, "open")                 \
    X(SHAPE, "output_shape")        \
    X(COMPUTE1, "compute (run 1)")  \
    X(COMPUTE2, "compute (run 2)")  \
    X(IDLE, "between calls")        \
    X(CLOSE, "close")               \
    X(PROBE, "probe")

#define WORKER_STAGE_ENUM_(ID, name) WORKER_STAGE_##ID,
enum { WORKER_STAGE_LIST(WORKER_STAGE_ENUM_) WORKER_STAGE_COUNT_ };
#undef WORKER_STAGE_ENUM_

/* Which memory a fault or stray write hit (worker_result.fault_region). */
#define WORKER_REGION_NONE  0u
#define WORKER_REGION_A     1u
#define WORKER_REGION_B     2u
#define WORKER_REGION_OUT   3u
#define WORKER_REGION_SHAPE 4u /* the rank/shape buffer of output_shape */

/* Why a plugin did not load (worker_result.load_error with LOAD_ERROR). */
#define WORKER_LOAD_LIST(X)                         \
    X(NONE, "none")                                 \
    X(SETUP, "worker setup failed")                 \
    X(DLOPEN, "dlopen failed")                      \
    X(NO_ENTRY, "missing entry symbol")             \
    X(NULL_DESCRIPTOR, "entry returned NULL")       \
    X(ABI, "ABI major version mismatch")            \
    X(DESCRIPTOR, "invalid descriptor")             \
    X(OPEN, "open failed")

#define WORKER_LOAD_ENUM_(ID, name) WORKER_LOAD_##ID,
enum { WORKER_LOAD_LIST(WORKER_LOAD_ENUM_) WORKER_LOAD_COUNT_ };
#undef WORKER_LOAD_ENUM_

/* Bits of worker_result.flags[i]. */
#define WORKER_ELEM_UNWRITTEN 1u /* poison in both runs */
#define WORKER_ELEM_NONDET    2u /* written, but run 1 != run 2 */

/* Bits of worker_result.side_effects: what the checks after a compute that
 * returned found (any run). */
#define WORKER_SIDE_INPUT_A    1u /* A's bytes changed */
#define WORKER_SIDE_INPUT_B    2u /* B's bytes changed */
#define WORKER_SIDE_SLACK      4u /* a byte in the page before the output changed */
#define WORKER_SIDE_PAD_NIBBLE 8u /* i4/u4 with an odd count: the unused high
                                     nibble of the last byte changed (not an
                                     outcome: the judge reports it as
                                     padding-written) */
#define WORKER_SIDE_FP_STATE  16u /* a call left the FP environment changed
                                     (worker_result.fp_changed says what) */
#define WORKER_SIDE_SIGNAL_STATE 32u /* a call left signal handlers, the signal
                                     mask or a timer changed (sig_changed) */

/* Bits of worker_result.fp_changed and worker_info.fp_at_open: what differs
 * from the FP environment the call was given (the one in force after
 * open(); the default environment for fp_at_open). */
#define WORKER_FP_ROUNDING  1u  /* rounding mode (SSE or x87) */
#define WORKER_FP_FTZ       2u  /* flush-to-zero (MXCSR.FZ, FPCR.FZ) */
#define WORKER_FP_DAZ       4u  /* denormals-are-zero (MXCSR.DAZ) */
#define WORKER_FP_TRAPS     8u  /* an exception trap enabled or disabled */
#define WORKER_FP_PRECISION 16u /* x87 precision control */
#define WORKER_FP_OTHER     32u /* any other control bit */

/* Bits of worker_result.sig_changed. */
#define WORKER_SIG_HANDLER 1u /* a disposition changed (sig_changed_signal: the first) */
#define WORKER_SIG_MASK    2u /* the worker thread's signal mask changed */
#define WORKER_SIG_TIMER   4u /* an interval timer (alarm, setitimer) was left armed */

typedef struct worker_options {
    /* The string open() receives (NULL means ""); copied by worker_new; at
     * most WORKER_CONFIG_MAX bytes. */
    const char *config;
    /* Deadline of each plugin call in milliseconds, >= 1. Default 10000. */
    uint32_t timeout_ms;
    /* Deadline of the load and open() in milliseconds; 0 (the default):
     * timeout_ms. A worker that loads a large library afresh (a thread
     * count's: no zygote's copy) gives it longer than one call. */
    uint32_t load_timeout_ms;
    /* Quiet: 1 sends the plugin's stdout and stderr to /dev/null; 0 (the
     * default) keeps stderr and sends stdout to stderr, so a plugin's
     * chatter never lands in the harness's own stdout. */
    int32_t quiet;
    /* Largest byte size of A, B or C worker_run accepts. Default 1 GiB. */
    uint64_t max_bytes;
    /* Limits of the child, 0 = off (the default; worker_options_limited
     * turns them on). RLIMIT_CORE is always 0.
     *   limit_as_bytes  address space the child may add to what it has
     *                   before it loads the plugin (RLIMIT_AS = its size
     *                   then + this), the operand mappings included; and
     *                   the memory its cgroup may add (limit_pids). Under
     *                   AddressSanitizer, which reserves its shadow up
     *                   front, only fresh mappings count (large blocks).
     *   limit_cpu_s     CPU seconds of one plugin call, its threads
     *                   included (the RLIMIT_CPU soft limit is moved to the
     *                   child's usage + this before a call, at most once a
     *                   second); past it the call is a HANG.
     *   limit_nproc     RLIMIT_NPROC as it is (counts every process of the
     *                   user, and root is exempt): prefer `confine`.
     *   limit_fsize_bytes  RLIMIT_FSIZE: the largest file the plugin may
     *                   write, its captured output included (SIGXFSZ: a
     *                   CRASH). */
    uint64_t limit_as_bytes;
    uint32_t limit_cpu_s;
    uint32_t limit_nproc;
    uint64_t limit_fsize_bytes;
    /* Processes and threads of the worker, all of its processes together
     * (the pids cgroup: a fork bomb or 4,000 threads stop there); 0: no
     * limit. Where no cgroup can be made, RLIMIT_NPROC of the worker's
     * uid stands in (it counts that uid's processes everywhere). The
     * memory cgroup's limit is limit_as_bytes above what the worker uses
     * when it is set up: unlike RLIMIT_AS it counts memfd and tmpfs pages.
     * Outside --sandbox off, every process of a worker goes when the worker
     * goes (its PID namespace, its cgroup, or a keeper that reaps it).
     * Default worker_limit_pids(). */
    uint32_t limit_pids;
    /* 1: a seccomp filter (x86-64, aarch64; where the kernel has one) takes
     * from the plugin what a kernel never needs: creating processes (fork,
     * vfork and clone without CLONE_THREAD fail with EAGAIN, clone3 with
     * ENOSYS so the C library falls back to clone; threads stay allowed),
     * exec (EACCES), signalling any process but its own (EPERM), ptrace,
     * process_vm_readv/writev and pidfd_getfd/pidfd_send_signal (EPERM).
     * worker_info.confined says whether it was installed. */
    int32_t confine;
    /* 1 (with quiet 0): the plugin's stdout and stderr go to a capture
     * file; after each request the worker copies at most
     * WORKER_OUTPUT_SHOW bytes of it to the harness's stderr (and at most
     * WORKER_OUTPUT_TOTAL over its life), says how much more there was,
     * and counts it in worker_result.output_bytes. A plugin that prints
     * megabytes neither floods the harness's stderr nor blocks on it. */
    int32_t capture_output;
    /* The CPU the child runs on (harness/base/affinity.h), set before it loads
     * the plugin; -1 (the default): wherever the system puts it. */
    int32_t cpu;
    /* 0 (the default): the child that loaded the plugin becomes a zygote
     * and forks a runner that serves the calls; after a crash, a hang or
     * an exit the next runner is forked from it with the instance open (a
     * fork, no reload). 1: every new child loads the plugin again (the
     * behaviour before the zygote; a baseline for bench/). worker_new sets
     * it when the environment has DIVERGENCE_NO_ZYGOTE set to anything but
     * "" or "0". */
    int32_t no_zygote;
    /* The kernel's isolation of the child (docs/sandbox.md, "The sandbox"):
     * WORKER_SANDBOX_AUTO (0, the default) every layer this host allows,
     * WORKER_SANDBOX_STRICT every layer or a load error (WORKER_LOAD_SETUP)
     * naming the missing one, WORKER_SANDBOX_OFF none (debugging: the
     * caller's uid and environment, no namespaces, no Landlock, no cgroup).
     * worker_info.layers says what was in force. Within one process (one
     * run of a command) the first AUTO worker's layers are a floor: a later
     * worker with fewer fails to start (worker_start returns -1). The test
     * hook DIVERGENCE_TEST_SANDBOX (life.c) forces reduced mode
     * ("reduced") or no cgroup ("nocgroup"). */
    int32_t sandbox;
    /* n_env "K=V" strings the plugin's environment gets on top of the
     * allowlist (WORKER_ENV_ALLOW); borrowed: they must outlive the worker.
     * Each must hold a '=' after a non-empty name. */
    const char *const *env;
    uint32_t n_env;
    /* Bytes of captured plugin output (capture_output) shown over the
     * worker's life; 0: WORKER_OUTPUT_TOTAL. A run of several workers
     * shares WORKER_OUTPUT_TOTAL among them. */
    uint64_t output_total;
    /* WORKER_GRANT_* bits (grant.h): what the plugin is granted beyond the
     * sandbox, each named in worker_info.grants and the sandbox line;
     * 0 (the default): nothing. */
    uint32_t grants;
    /* What open_with (ABI 1.1) receives in dvg_open_options: `threads`
     * (0, the default: the plugin's own choice; N: at most N threads) and
     * `isa` ("" the default: the plugin's own choice; else one of the
     * names of worker_info.isa_levels). A 1.0 plugin, or one without
     * open_with, is opened with open() and gets neither. */
    uint32_t threads;
    char isa[WORKER_ISA_NAME_MAX];
    /* The CPU the plugin sees (harness/base/cpumodel.h): "" (the default)
     * or "native" the host's own; a model's name ("x86-64-v3", "haswell",
     * "x86-64-v2", ...) runs the worker program under QEMU's user-mode
     * emulator with that model (worker_internal.h: "the one place an
     * emulator goes"): every layer of the sandbox in place and attested as
     * natively, the plugin's CPUID showing the model. An emulated worker
     * has no zygote (each start loads the plugin under the emulator), and
     * its deadlines (timeout_ms, limit_cpu_s) are WORKER_EMULATION_SLOWDOWN
     * times as long. A name the table does not know: worker_new fails; no
     * emulator installed: worker_start gives a LOAD_ERROR (SETUP) naming
     * it. With a grant that execs during open() (pocl) worker_new fails
     * too: the emulated worker's filter is whole before the emulator runs. */
    char cpu_model[16];
} worker_options;

/* How much longer an emulated call may take (QEMU runs a kernel 6-26x
 * slower than the CPU would; the deadlines are for hangs, not speed). */
#define WORKER_EMULATION_SLOWDOWN 10

/* The sandbox's levels (WORKER_SANDBOX_*), its environment allowlist
 * (WORKER_ENV_ALLOW), the layers (WORKER_LAYER_*) and their names: the
 * contract of harness/sandbox/sandbox.h. */

#define WORKER_OUTPUT_SHOW  4096u            /* bytes shown per request */
#define WORKER_OUTPUT_TOTAL (UINT64_C(1) << 20) /* bytes shown per worker */

/* Fills *o with the defaults above (no limits but limit_pids,
 * worker_limit_pids()). */
void worker_options_default(worker_options *o);

/* The defaults plus the limits certify, fuzz and import run plugins under:
 * confine, capture_output, WORKER_LIMIT_AS (8 GiB), WORKER_LIMIT_CPU_S
 * (300 s per call), WORKER_LIMIT_FSIZE (64 MiB). */
#define WORKER_LIMIT_AS    (UINT64_C(8) << 30)
#define WORKER_LIMIT_CPU_S 300u
#define WORKER_LIMIT_FSIZE (UINT64_C(64) << 20)
/* With limit_cpu_s, the hard RLIMIT_CPU: CPU seconds of a worker's life
 * (past it, SIGKILL: a crash). RLIMIT_AS and RLIMIT_FSIZE are hard = soft. */
#define WORKER_LIMIT_CPU_LIFE_S 86400u
void worker_options_limited(worker_options *o);

/* The default pids limit (limit_pids): 1024 processes and threads,
 * or 8 per CPU of this machine where that is more (thread pools of the
 * real libraries are sized by the CPU count). */
uint32_t worker_limit_pids(void);

/* What a loaded plugin said about itself (validated). */
typedef struct worker_info {
    char name[WORKER_NAME_MAX];        /* NUL-terminated, non-empty: the
                                          descriptor's name, " [CONFIG]"
                                          after it under a config
                                          (worker_implementation_name) */
    char version[WORKER_NAME_MAX];     /* NUL-terminated */
    uint32_t descriptor_size;          /* dvg_descriptor.size as compiled */
    uint16_t abi_major, abi_minor;
    uint64_t deviations;               /* DVG_DEV_* bits */
    int64_t int_div_zero_value;
    uint32_t n_claims;                 /* <= WORKER_MAX_CLAIMS */
    int32_t confined;                  /* 1: the worker's own seccomp filter
                                          (confine) is in force, as seen
                                          from outside */
    uint32_t layers;                   /* WORKER_LAYER_* in force, seen
                                          from outside before the plugin
                                          was loaded */
    uint32_t fp_at_open;               /* WORKER_FP_* bits: how loading and
                                          open() left the FP environment
                                          (0: the default). Every call starts
                                          from that environment. */
    uint32_t grants;                   /* WORKER_GRANT_* in force (the
                                          harness's options, not the
                                          worker's word) */
    int32_t zygote;                    /* 1: runners are forked from a
                                          loaded zygote; 0: a plugin that
                                          left threads running after open()
                                          (or no_zygote, or no pidfds): each
                                          new child loads it again */
    /* Since ABI 1.1 (0 and none for a 1.0 plugin). */
    uint64_t capabilities;             /* DVG_CAP_* bits declared */
    uint32_t n_isa_levels;             /* <= WORKER_MAX_ISA_LEVELS */
    int32_t open_with;                 /* 1: it was opened with open_with */
    struct {
        char name[WORKER_ISA_NAME_MAX];      /* non-empty, sanitized */
        char x86_level[WORKER_ISA_X86_MAX];  /* "v1".."v4" or "" */
    } isa_levels[WORKER_MAX_ISA_LEVELS];     /* best first, as declared */
    dvg_claim claims[WORKER_MAX_CLAIMS]; /* variant and dtype each known */
    char cpu_model[16];                /* the model the plugin ran under
                                          (cpumodel.h's name), "native" */
} worker_info;

/* The words for capability bits: "instances-concurrent, in-place-a, ..."
 * ("none" for 0) into buf; returns buf. */
char *worker_caps_describe(uint64_t caps, char *buf, size_t len);

/*
 * The result of worker_start() or worker_run(). Zero it (or use
 * WORKER_RESULT_INIT) before its first use; it may be reused for any number
 * of calls (its buffers are kept and grown) and is released with
 * worker_result_free().
 */
typedef struct worker_result {
    uint32_t outcome;       /* WORKER_OUT_* */
    uint32_t stage;         /* WORKER_STAGE_* where it arose */
    int32_t status;         /* the plugin status behind INVALID_INPUT ..
                               BAD_STATUS; 0 otherwise */
    uint32_t load_error;    /* WORKER_LOAD_* with LOAD_ERROR */
    char message[WORKER_MESSAGE_MAX]; /* one sentence: what happened (the
                               plugin's last_error text for statuses) */

    /* output_shape */
    int32_t shape_status;   /* what it returned; -1 when it did not return */
    uint32_t shape_rank;    /* the rank it reported, unchecked */
    int32_t has_shape;      /* 1: shape_status DVG_OK and `shape` is valid */
    oracle_shape shape;     /* the plugin's output shape */

    /* compute: run only when the plugin's shape equals the expected one */
    int32_t compute_status[2]; /* per run; -1 when it did not return */
    int32_t computed;       /* 1: both runs returned DVG_OK; out1, out2 and
                               flags hold `count` elements */
    uint32_t dtype;         /* DVG_DTYPE_* of the output */
    uint64_t count;         /* output elements */
    uint64_t nbytes;        /* bytes of out1 and of out2 */
    uint8_t *out1, *out2;   /* the outputs of run 1 and run 2, copied out of
                               shared memory; owned by the result */
    uint8_t *flags;         /* WORKER_ELEM_* per element; owned by the result */
    uint64_t n_unwritten, n_nondet;
    uint64_t first_unwritten, first_nondet; /* UINT64_MAX when none */
    uint32_t side_effects;  /* WORKER_SIDE_* (FP_STATE and SIGNAL_STATE
                               after any call: output_shape too) */
    uint32_t fp_changed;    /* WORKER_FP_* left changed by a call */
    uint32_t sig_changed;   /* WORKER_SIG_* left changed by a call */
    int32_t sig_changed_signal; /* with WORKER_SIG_HANDLER: the signal */
    uint64_t output_bytes;  /* bytes the plugin wrote to stdout/stderr
                               (capture_output) during this request */
    uint64_t compute_ns[2]; /* wall time of each compute run as the parent
                               saw it (request sent to reply read; 0: not
                               run): the plugin cannot make it shorter */
    uint64_t compute_cpu_ns[2]; /* the CPU time the child (all its threads)
                               used meanwhile, read by the parent from the
                               kernel's clock of that process (0: unread):
                               a loaded machine's waits are not in it */

    /* abnormal ends */
    int32_t signal;         /* signal number, 0 when none */
    int32_t sig_code;       /* si_code */
    uint64_t fault_addr;    /* si_addr in the child */
    int32_t fault_write;    /* 1 write, 0 read, -1 unknown */
    uint32_t fault_region;  /* WORKER_REGION_* */
    int64_t fault_offset;   /* byte offset of the fault from the start of the
                               region's data (negative: before it) */
    int32_t wait_status;    /* raw waitpid status, -1 when not reaped */
    int32_t exit_code;      /* with EXIT: the exit status; -1 otherwise */
    int32_t late_earlier;   /* with LATE_WRITE: 1 when the compute that
                               returned before the write was an earlier
                               worker_run's (late_case names its case) */
    char late_case[64];     /* that case's id */

    /* private: buffer capacities */
    uint64_t cap_bytes_, cap_count_;
} worker_result;

#define WORKER_RESULT_INIT {0}

typedef struct worker worker;

/*
 * Creates a worker for the plugin at `plugin_path` (a file name as dlopen
 * takes it; give a path with a '/' to avoid the library search). No
 * process is started. `o` may be NULL for the defaults; it is copied.
 * Returns 0 and *out, or -1 on allocation failure, a config longer than
 * WORKER_CONFIG_MAX, a timeout of 0, or when the shared memory file cannot
 * be created.
 */
int worker_new(const char *plugin_path, const worker_options *o, worker **out);

/* Stops the child (see worker_stop) and frees the worker. Accepts NULL. */
void worker_free(worker *w);

/*
 * Starts the child (stopping a running one first), loads the plugin and
 * opens an instance. Returns 0 when the worker is ready (worker_info
 * valid), 1 when the plugin failed to load, open, or crashed, hung or
 * exited doing so (r says how, stage LOAD or OPEN), -1 on a harness error
 * (fork, memory; worker_errmsg). r may be NULL.
 */
int worker_start(worker *w, worker_result *r);

/* Same as worker_start; named for the reader after a failure. */
int worker_restart(worker *w, worker_result *r);

/* Asks the child to close its instance and exit, waits up to timeout_ms,
 * then kills it. No-op without a child. */
void worker_stop(worker *w);

/* Ends the child that serves calls (with a zygote: its runner) as
 * worker_stop does, but keeps the zygote: the next worker_run starts a
 * fresh one, whose plugin state is what open() left, none of the calls
 * made since (the call history's probes, harness/run/engine/history.h).
 * Without a zygote the next worker_run loads the plugin again. No-op
 * without a child. */
void worker_renew(worker *w);

/*
 * Runs case `c` on the plugin: output_shape, then, when `expect` is not
 * NULL and the plugin's shape equals *expect, compute into a poisoned
 * buffer of that shape, twice. `expect` is the oracle's output shape; NULL
 * means the oracle says the input is invalid (output_shape alone runs).
 * Starts (or restarts) the child first when it is not running; when that
 * fails, r holds the load failure.
 *
 * Returns 0 with *r filled (whatever the plugin did), or -1 on a harness
 * error (malformed case: a_bytes/b_bytes not matching the shapes, unknown
 * dtype; a size above max_bytes; memory; fork): worker_errmsg says which.
 */
int worker_run(worker *w, const divcase *c, const oracle_shape *expect,
               worker_result *r);

/* The loaded plugin's description, or NULL before a successful start.
 * Owned by w; valid until the next start or worker_free. */
const worker_info *worker_get_info(const worker *w);

/* An implementation's name, a plugin under one config:
 * worker_implementation_name (harness/sandbox/identity.h). */

/* As worker_get_info, and also after a start that failed in open()
 * (WORKER_LOAD_OPEN) once the descriptor had passed its checks: what the
 * plugin said of itself (its claims; layers and grants as seen), so that
 * `divergence plugins` can show a plugin whose device is missing. NULL
 * before any such start. */
const worker_info *worker_get_descriptor(const worker *w);

/* 1 when the plugin described by `in` claims (variant, dtype); 0, also
 * for NULL. */
int worker_info_claims(const worker_info *in, uint32_t variant, uint32_t dtype);

/* 1 when a child is running and ready for requests. */
int worker_alive(const worker *w);

/* Process id of the running child (with a zygote: its runner), 0 when
 * none. */
int worker_pid(const worker *w);

/* Number of children started so far (with a zygote: runners forked). */
uint64_t worker_spawns(const worker *w);

/* Number of times the plugin was loaded (dlopen and open) so far: with a
 * zygote 1 per life of it, however many runners crashed. */
uint64_t worker_loads(const worker *w);

/* Text of the last harness error (never NULL). */
const char *worker_errmsg(const worker *w);

/* Frees the result's buffers and zeroes it. Accepts NULL. */
void worker_result_free(worker_result *r);

/* Names: "crash", "compute (run 1)", "SIGSEGV"/"signal 42", "dlopen failed";
 * never NULL ("?" for unknown values). */
const char *worker_outcome_name(uint32_t outcome);
const char *worker_stage_name(uint32_t stage);
const char *worker_signal_name(int sig);
const char *worker_load_error_name(uint32_t load_error);

/* What the WORKER_FP_* bits `fp` name ("rounding mode, flush-to-zero"),
 * and what r's state leaks were ("rounding mode left changed"; "" when
 * none), into buf (always NUL-terminated when len > 0). Return buf. */
char *worker_fp_describe(uint32_t fp, char *buf, size_t len);
char *worker_leak_describe(const worker_result *r, char *buf, size_t len);

/* One line describing r ("crash in compute (run 1): SIGSEGV at 0x0") into
 * buf (always NUL-terminated when len > 0). Returns buf. */
char *worker_result_format(const worker_result *r, char *buf, size_t len);

/*
 * Probes (issue 25): case c once more under another calling pattern, its
 * output compared element by element with the one-thread answer `base`
 * (the worker_result of a worker_run of c on this worker that computed:
 * base->out1, count, dtype, nbytes and shape are used). Kinds:
 *   WORKER_PROBE_INSTANCES  two instances (the second opened for the probe
 *                           as the first was), each from its own thread,
 *                           at once: one computes c, the other c with A's
 *                           bytes reversed (so that shared state shows),
 *                           each thread calling again and again until an
 *                           answer differs, up to WORKER_PROBE_ROUNDS calls
 *                           or WORKER_PROBE_MS milliseconds (two calls at
 *                           least), and past those milliseconds, up to
 *                           WORKER_PROBE_OVERLAP_MS, until two calls were
 *                           seen inside compute at once (on a loaded
 *                           machine the threads can take turns for the
 *                           whole window, and a race shows only when the
 *                           calls overlap); the second job's own answer
 *                           is its solo run's
 *   WORKER_PROBE_INSTANCE   the same, both threads on the one instance
 *   WORKER_PROBE_IN_PLACE_A C in A's buffer: A's bytes copied into the
 *                           (writable) output, a->data == c->data; only
 *                           where A has C's shape (worker_probe_applies)
 *   WORKER_PROBE_IN_PLACE_B the same with B
 * The probe threads may run on any CPU of the worker's (not the one it is
 * pinned to), so that the two calls overlap.
 * Returns 0 with *pr filled: pr->ran 1 when every call returned DVG_OK
 * (n_differ, first_differ say what differed); 0 when a call did not (r
 * holds how: a status, a crash, a hang; pr->note says it; with
 * pr->internal the worker itself could not run it); -1 on a harness
 * error (worker_errmsg).
 */
#define WORKER_PROBE_INSTANCES  1u
#define WORKER_PROBE_INSTANCE   2u
#define WORKER_PROBE_IN_PLACE_A 3u
#define WORKER_PROBE_IN_PLACE_B 4u
#define WORKER_PROBE_ROUNDS 4096u
#define WORKER_PROBE_MS 2u
#define WORKER_PROBE_OVERLAP_MS 25u

typedef struct worker_probe_result {
    uint32_t kind;
    int32_t ran;            /* 1: every call returned DVG_OK */
    int32_t internal;       /* 1: no answer either way: the worker could
                               not run the probe (a thread, a mapping), or
                               the second job's input (A reversed) was
                               refused alone */
    uint32_t rounds;        /* calls each thread made at once (the fewer) */
    uint64_t n_differ;      /* elements that differ from their one-thread answer */
    uint64_t first_differ;  /* the first of them (UINT64_MAX: none) */
    uint32_t which;         /* 1: the first job's output, 2: the second's */
    char note[WORKER_MESSAGE_MAX]; /* one sentence: what differed, or how
                                      the calls ended */
} worker_probe_result;

/* 1 when probe `kind` applies to case c whose output is base's (in
 * place: the aliased input has C's shape). */
int worker_probe_applies(const divcase *c, const worker_result *base, uint32_t kind);

int worker_probe(worker *w, const divcase *c, const worker_result *base, uint32_t kind,
                 worker_probe_result *pr, worker_result *r);

/* The elements (count of dtype) in which got differs from want, bit for
 * bit, with the first in *first (UINT64_MAX: none). */
uint64_t worker_outputs_differ(uint32_t dtype, uint64_t count, const uint8_t *want,
                               const uint8_t *got, uint64_t *first);

/* The probe's name: "two instances at once", "one instance from two
 * threads", "in place on A", "in place on B". */
const char *worker_probe_name(uint32_t kind);

/* Batch mode (sweeps): harness/worker/batch.h. */

#endif /* HARNESS_WORKER_H */
