/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/wire.h: the protocol between the parent and its child,
 * shared by the harness's client of a worker (harness/worker) and the
 * worker program (harness/worker_program) and by nothing else.
 *
 * The parent and the child share a control block (an anonymous MAP_SHARED
 * mapping made fresh for each child that loads the plugin, and shared by
 * the runners a zygote forks, zygote.c) and one SOCK_SEQPACKET socket pair,
 * used only for wakeups: the parent writes a request into ctl->req and
 * sends a token {seq, op}; the child runs the call, writes ctl->rep and
 * sends a token back. The child's fault handlers record into ctl->fault
 * and _exit. The parent copies every reply out of the block before it
 * checks it, and trusts nothing in it: the plugin shares the child's
 * address space. A socket instead of two pipes because send() takes
 * MSG_NOSIGNAL: a dead child never raises SIGPIPE in the harness.
 */
#ifndef HARNESS_WORKER_WIRE_H
#define HARNESS_WORKER_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include "divergence/iut.h"
#include "harness/worker/worker.h"

/* The descriptors the worker program starts with (life.c places them):
 * 0 /dev/null, 1 the plugin's stdout, 2 what the set-up has to say (the
 * program moves 7 there), 3 the channel, 4 the operand arena, 5 a
 * read-only descriptor of it, 6 the control block, 7 the plugin's stderr. */
#define WORKER_FD_CHANNEL 3
#define WORKER_FD_ARENA 4
#define WORKER_FD_ARENA_RO 5
#define WORKER_FD_CTL 6
#define WORKER_FD_STDERR 7
#define WORKER_FD_COUNT 8

/* Milliseconds of CLOCK_MONOTONIC: the clock of every deadline. */
static inline int64_t worker_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------
 * The control block and the tokens
 * ---------------------------------------------------------------------- */

#define TOKEN_MAGIC 0x444b4f54u /* "TOKD" */
#define FAULT_MAGIC 0x544c4146u
#define EXIT_MAGIC  0x54495845u

/* OP_READY: the worker's sandbox is set up and it waits for OP_GO before
 * it loads the plugin (only the hello's deadline is the plugin's); its
 * arg holds the WORKER_LAYER_* bits only the worker can see (Landlock),
 * sent before any plugin code runs. OP_GO: the parent has checked the
 * worker from outside. OP_FORK and OP_REAP go to a zygote only
 * (zygote.c): fork a runner, reap the runner and say how it ended. */
enum { OP_HELLO = 1, OP_SHAPE, OP_COMPUTE, OP_QUIT, OP_FORK, OP_REAP, OP_READY, OP_GO, OP_PROBE };

/* The tensors of a request; R_SHAPE is the child's own output_shape buffer. */
enum { R_A, R_B, R_OUT, R_SHAPE, R_COUNT };

/* Exit codes of the child itself (not of the plugin). */
#define CHILD_EXIT_SETUP 120 /* setup before the plugin failed */
#define CHILD_EXIT_CHANNEL 121 /* the channel to the parent broke (the
                                  plugin closed or replaced fd 3) */
#define CHILD_EXIT_FAULT 128 /* + signal number: a recorded fault */

typedef struct ctl_region {
    uint64_t off;    /* page-aligned offset in the memfd */
    uint64_t pages;  /* data pages */
    uint64_t pad;    /* bytes before the data in the first page */
    uint64_t nbytes; /* data bytes; pad + nbytes <= pages * page size
                        (fewer than 64 bytes short: the tail slack) */
    uint64_t slot_off;   /* the tensor's slot in the memfd, page-aligned:  */
    uint64_t slot_pages; /* the data pages are its last `pages` pages
                            (off = slot_off + (slot_pages - pages) * page) */
} ctl_region;

typedef struct ctl_request {
    uint32_t op, seq;
    uint32_t stage;   /* WORKER_STAGE_* the call is */
    uint32_t check_signals; /* 1: the last call of its case: check the
                               signal state after it (see call_end) */
    uint32_t variant, dtype;
    uint32_t rank[3]; /* A, B, C */
    int64_t shape[3][DVG_MAX_RANK];
    dvg_attrs attrs;
    ctl_region region[3];
    /* OP_PROBE (worker_probe): the kind, and for the two-thread kinds the
     * second job's A (read-only) and output, and where its solo answer goes. */
    uint32_t probe, probe_ms;
    ctl_region probe_region[3];
} ctl_request;

enum { P_A2, P_OUT2, P_REF2 };

typedef struct ctl_reply {
    uint32_t seq;
    int32_t status;
    uint32_t rank;
    uint32_t internal; /* 1: the child itself failed (message says why) */
    uint32_t fp_changed, sig_changed; /* WORKER_FP_*, WORKER_SIG_* the call left */
    int32_t sig_signal;
    uint32_t probe_rounds; /* OP_PROBE: the calls each thread made at once */
    uint32_t probe_skip;   /* OP_PROBE: the second job's input was refused
                              alone: the probe has no answer */
    int64_t shape[DVG_MAX_RANK];
    char message[WORKER_MESSAGE_MAX];
} ctl_reply;

typedef struct ctl_hello {
    uint32_t load_error; /* WORKER_LOAD_* */
    uint32_t load_stage; /* WORKER_STAGE_LOAD or _OPEN */
    uint32_t descriptor_size;
    uint16_t abi_major, abi_minor;
    uint64_t deviations;
    int64_t int_div_zero_value;
    uint32_t n_claims;
    uint32_t confined, fp_at_open;
    uint32_t zygote; /* 1: this process forks runners (zygote.c) */
    uint32_t layers; /* WORKER_LAYER_* in force (child_isolate, child_confine) */
    char name[WORKER_NAME_MAX];
    char version[WORKER_NAME_MAX];
    char message[WORKER_MESSAGE_MAX];
    uint64_t capabilities;   /* ABI 1.1: DVG_CAP_*; 0 for 1.0 */
    uint32_t n_isa_levels, open_with;
    char isa_name[WORKER_MAX_ISA_LEVELS][WORKER_ISA_NAME_MAX];
    char isa_x86[WORKER_MAX_ISA_LEVELS][WORKER_ISA_X86_MAX];
    dvg_claim claims[WORKER_MAX_CLAIMS];
} ctl_hello;

/* Addresses in the child: [lo, page) lower guard, [page, end) data pages
 * (data starts at `data`), [end, hi) upper guard. All 0: not mapped. */
typedef struct ctl_map {
    uint64_t lo, page, data, end, hi;
} ctl_map;

typedef struct ctl_fault {
    uint32_t magic, seq, stage;
    int32_t signo, code, write;
    uint64_t addr;
    int32_t tid;      /* the thread that faulted */
    char comm[16];    /* its name (PR_GET_NAME) */
    uint64_t ns;      /* CLOCK_MONOTONIC when it faulted */
} ctl_fault;

/* The watch after a compute returned (child_late.c): the output's pages
 * [lo, hi) stay read-only from then until the next compute, so a write
 * into them by a thread the plugin left running faults; `threads` names
 * the plugin's threads alive when the call returned ("name (tid)", the
 * ones still active marked so). */
#define CTL_LATE_THREADS 240
typedef struct ctl_late {
    uint32_t armed, seq;   /* the compute whose output is protected (armed
                              0: no longer, the next compute began; lo, hi
                              still name its pages) */
    int32_t server;        /* the thread that serves the calls */
    uint64_t lo, hi, data; /* data: where the output's bytes began */
    uint64_t returned_ns;  /* CLOCK_MONOTONIC when it returned */
    uint32_t alive, active; /* plugin threads alive, and not parked */
    uint32_t waited_us;    /* how long the worker watched before replying */
    char threads[CTL_LATE_THREADS];
} ctl_late;

typedef struct ctl_exit {
    uint32_t magic, seq, stage;
    int32_t status;
} ctl_exit;

/* What the parent tells a new worker program before it runs: written
 * before the exec, read once by the worker (child_program) before any
 * plugin code runs. The strings (NUL-terminated, the lists NUL-separated)
 * are at strings_off in the control block's memfd, strings_size bytes;
 * each *_at is an offset into them. */
#define SETUP_MAGIC 0x50555453u
typedef struct ctl_setup {
    uint32_t magic;
    uint32_t mode;           /* LAUNCH_* */
    uint32_t page;
    uint32_t timeout_ms;
    int32_t quiet, capture_output, confine, no_zygote, keeper;
    uint32_t limit_cpu_s, limit_nproc;
    uint64_t limit_as_bytes, limit_fsize_bytes;
    uint64_t strings_off, strings_size;
    uint32_t plugin_at, config_at;
    uint32_t n_preload, preload_at;
    uint32_t n_read, read_at;
    /* Grants (grant.h): GRANT_* flags of the process; the programs Landlock
     * lets it execute (with their loaders) and the devices it may write. */
    uint32_t grant_flags;
    uint32_t n_exec, exec_at;
    uint32_t n_dev, dev_at;
    uint32_t threads;        /* worker_options.threads */
    char isa[WORKER_ISA_NAME_MAX]; /* worker_options.isa */
    /* An emulated worker (worker_options.cpu): the emulator's path and the
     * worker program's, as the worker sees them, and QEMU's -cpu model;
     * emulator_at's string "" when native. */
    uint32_t emulator_at, program_at, emu_cpu_at;
} ctl_setup;

/* The hello (OP_HELLO) is not in the block: it follows its token on the
 * socket as one message of sizeof(ctl_hello) bytes, so the block stays
 * small (it is a memfd, which the caller's ulimit -f bounds). */
typedef struct ctl_block {
    ctl_setup setup;
    ctl_request req;
    ctl_reply rep;
    ctl_map map[R_COUNT];
    uint32_t cur_seq, cur_stage; /* what the child is doing now */
    ctl_fault fault;
    ctl_exit exitrec;
    ctl_late late;
    uint64_t stack_top, stack_limit; /* the child's main stack, for messages */
} ctl_block;

/* arg: 0, except in a zygote's replies: the runner's pid in the
 * zygote's view (OP_FORK; 0: none was made) or its wait status (OP_REAP,
 * as uint32_t; -1 unknown). */
typedef struct token {
    uint32_t magic, seq, op, arg;
} token;

/* The signals whose handler records a fault (ctl_fault) before the child
 * exits with CHILD_EXIT_FAULT + the signal: the child installs it for
 * these, and the parent believes a fault record only for one of them. */
#define WIRE_FAULT_SIGNALS 9
extern const int wire_fault_signals[];

/* 1 when sig is one of wire_fault_signals. */
int wire_is_fault_signal(int sig);

/* Sends the token {TOKEN_MAGIC, seq, op} on sock (MSG_NOSIGNAL, retried on
 * EINTR). Returns 0 when it went out whole, -1 otherwise (errno set). */
int wire_send_token(int sock, uint32_t seq, uint32_t op);

/* Copies the string src, of which at most cap - 1 bytes are read (it may
 * lack its NUL), into dst (cap bytes, cap >= 1), NUL-terminated. */
void wire_copy_text(char *dst, size_t cap, const char *src);


/* Checks n claims (n <= WORKER_MAX_CLAIMS) of a descriptor: each names a
 * known variant and dtype, and no (variant, dtype) pair comes twice.
 * Returns 0, or -1 with one sentence in msg (cap bytes) naming the first
 * bad claim ("claim 2 repeats claim 0: onnx-div-13 f32"). Both sides run
 * it: the child before its hello, the parent on what the hello says. */
int wire_check_claims(const dvg_claim *claims, uint32_t n, char *msg, size_t cap);

#endif /* HARNESS_WORKER_WIRE_H */
