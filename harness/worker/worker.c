/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/worker.c: the worker process and the parent's side of it.
 *
 * Protocol. The parent and the child share a control block (an anonymous
 * MAP_SHARED mapping made fresh for each child) and one SOCK_SEQPACKET
 * socket pair, used only for wakeups: the parent writes a request into
 * ctl->req and sends a token {seq, op}; the child runs the call, writes
 * ctl->rep and sends a token back. The child's fault handlers record into
 * ctl->fault and _exit. The parent copies every reply out of the block
 * before it checks it, and trusts nothing in it: the plugin shares the
 * child's address space. A socket instead of two pipes because send()
 * takes MSG_NOSIGNAL: a dead child never raises SIGPIPE in the harness.
 *
 * The child never allocates through dvg_malloc (an injected failure must
 * not leak into it) and never returns: it leaves through _exit only.
 */
#include "harness/worker/worker.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "oracle/dtype.h"

/* ------------------------------------------------------------------------
 * The control block and the tokens
 * ---------------------------------------------------------------------- */

#define TOKEN_MAGIC 0x444b4f54u /* "TOKD" */
#define FAULT_MAGIC 0x544c4146u
#define EXIT_MAGIC  0x54495845u

enum { OP_HELLO = 1, OP_SHAPE, OP_COMPUTE, OP_QUIT };

/* The tensors of a request; R_SHAPE is the child's own output_shape buffer. */
enum { R_A, R_B, R_OUT, R_SHAPE, R_COUNT };

/* Exit codes of the child itself (not of the plugin). */
#define CHILD_EXIT_SETUP 120 /* setup before the plugin failed */
#define CHILD_EXIT_CHANNEL 121 /* the channel to the parent broke (the
                                  plugin closed or replaced fd 3) */
#define CHILD_EXIT_FAULT 128 /* + signal number: a recorded fault */

/* Descriptor size of ABI 1.0: everything up to and including `close`. */
#define DESCRIPTOR_V1_0_SIZE (offsetof(dvg_descriptor, close) + sizeof(void (*)(void)))

typedef struct ctl_region {
    uint64_t off;    /* page-aligned offset in the memfd */
    uint64_t pages;  /* data pages */
    uint64_t pad;    /* bytes before the data in the first page */
    uint64_t nbytes; /* data bytes; pad + nbytes == pages * page size */
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
} ctl_request;

typedef struct ctl_reply {
    uint32_t seq;
    int32_t status;
    uint32_t rank;
    uint32_t internal; /* 1: the child itself failed (message says why) */
    uint32_t fp_changed, sig_changed; /* WORKER_FP_*, WORKER_SIG_* the call left */
    int32_t sig_signal;
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
    uint32_t reserved;
    char name[WORKER_NAME_MAX];
    char version[WORKER_NAME_MAX];
    char message[WORKER_MESSAGE_MAX];
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
} ctl_fault;

typedef struct ctl_exit {
    uint32_t magic, seq, stage;
    int32_t status;
} ctl_exit;

typedef struct ctl_block {
    ctl_request req;
    ctl_reply rep;
    ctl_hello hello;
    ctl_map map[R_COUNT];
    uint32_t cur_seq, cur_stage; /* what the child is doing now */
    ctl_fault fault;
    ctl_exit exitrec;
    uint64_t stack_top, stack_limit; /* the child's main stack, for messages */
} ctl_block;

typedef struct token {
    uint32_t magic, seq, op, reserved;
} token;

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

    pid_t pid;              /* 0: no child */
    int ready;              /* child loaded and open */
    int sock;               /* parent end, -1 */
    int pidfd;              /* -1 when the kernel has none */
    ctl_block *ctl;         /* shared with the current child */
    size_t ctl_size;
    uint32_t seq;
    uint64_t spawns;

    int has_info;
    worker_info info;
    char err[256];
};

/* ------------------------------------------------------------------------
 * Names
 * ---------------------------------------------------------------------- */

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

static const char *const region_names[] = {"nothing", "A", "B", "output", "shape buffer"};

static void set_err(worker *w, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_err(worker *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
}

static void set_msg(worker_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void set_msg(worker_result *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

/* Copies a string of at most cap - 1 bytes that may lack its NUL. */
static void copy_bounded(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Keeps printable ASCII and UTF-8 bytes of untrusted text; control bytes
 * become '?'. The text is NUL-terminated within cap first. */
static void sanitize_text(char *s, size_t cap)
{
    s[cap - 1] = '\0';
    for (char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------------------
 * The child
 * ---------------------------------------------------------------------- */

static ctl_block *child_ctl; /* the child's view, for its handlers */

static const int fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                    SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ};

static int is_fault_signal(int sig)
{
    for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
        if (fault_signals[i] == sig)
            return 1;
    return 0;
}

static void child_on_fault(int sig, siginfo_t *si, void *ucv)
{
    ctl_block *b = child_ctl;
    b->fault.signo = sig;
    b->fault.code = si->si_code;
    b->fault.addr = (uint64_t)(uintptr_t)si->si_addr;
    b->fault.write = -1;
#if defined(__x86_64__) && defined(REG_ERR)
    if (sig == SIGSEGV || sig == SIGBUS) {
        ucontext_t *uc = ucv;
        b->fault.write = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? 1 : 0;
    }
#else
    (void)ucv;
#endif
    b->fault.seq = b->cur_seq;
    b->fault.stage = b->cur_stage;
    __atomic_store_n(&b->fault.magic, FAULT_MAGIC, __ATOMIC_RELEASE);
    _exit(CHILD_EXIT_FAULT + sig);
}

/* Runs first among the exit handlers (registered before the plugin is
 * loaded, after the harness's), so the harness's never run in the child. */
static void child_on_exit(int status, void *arg)
{
    (void)arg;
    ctl_block *b = child_ctl;
    b->exitrec.status = status;
    b->exitrec.seq = b->cur_seq;
    b->exitrec.stage = b->cur_stage;
    __atomic_store_n(&b->exitrec.magic, EXIT_MAGIC, __ATOMIC_RELEASE);
    _exit(status & 0xff);
}

static void child_send(int sock, uint32_t seq, uint32_t op)
{
    token t = {TOKEN_MAGIC, seq, op, 0};
    ssize_t n;
    do
        n = send(sock, &t, sizeof t, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof t)
        _exit(CHILD_EXIT_CHANNEL); /* the parent is gone, or the plugin broke fd 3 */
}

static void child_stage(ctl_block *b, uint32_t seq, uint32_t stage)
{
    __atomic_store_n(&b->cur_seq, seq, __ATOMIC_RELAXED);
    __atomic_store_n(&b->cur_stage, stage, __ATOMIC_SEQ_CST);
}

/* Moves the socket and the arena to fds 3 and 4, a read-only view of the
 * arena to 5, stdin to /dev/null, stdout away from the harness's stdout,
 * and closes every other descriptor. */
static void child_fds(int sock, int memfd, int outfd, int quiet, int *rofd)
{
    int s = fcntl(sock, F_DUPFD, 10);
    int m = fcntl(memfd, F_DUPFD, 10);
    outfd = outfd >= 0 ? fcntl(outfd, F_DUPFD, 10) : -1; /* before 3 and 4 are taken */
    if (s < 0 || m < 0 || dup2(s, 3) < 0 || dup2(m, 4) < 0)
        _exit(CHILD_EXIT_SETUP);
    int nul = open("/dev/null", O_RDWR);
    if (nul >= 0) {
        dup2(nul, 0);
        if (quiet) {
            dup2(nul, 1);
            dup2(nul, 2);
        }
    } else {
        close(0);
    }
    /* Captured output: appended to the worker's capture file, which the
     * parent reads and empties after each request. */
    if (!quiet && outfd >= 0 && fcntl(outfd, F_SETFL, O_APPEND) == 0 && dup2(outfd, 2) == 2)
        quiet = 0;
    if (!quiet)
        dup2(2, 1);
    if (close_range(5, ~0u, 0) != 0) {
        struct rlimit rl;
        long top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                       ? (long)rl.rlim_cur
                       : 65536;
        for (long fd = 5; fd < top; fd++)
            close((int)fd);
    }
    /* Inputs come from a read-only descriptor: PROT_WRITE cannot be added
     * to a shared mapping of it, so even mprotect cannot unlock them. */
    int ro = open("/proc/self/fd/4", O_RDONLY);
    if (ro >= 0 && ro != 5) {
        if (dup2(ro, 5) == 5)
            close(ro);
        ro = 5;
    }
    *rofd = ro >= 0 ? ro : 4;
}

/* Bytes of address space the child has mapped now (0 when unknown). */
static uint64_t child_vm_bytes(size_t page)
{
    char buf[64];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return (uint64_t)strtoull(buf, NULL, 10) * page;
}

/* Moves the RLIMIT_CPU soft limit to `budget` seconds past what the child
 * has used so far: the limit of one call (limit_cpu_s). Re-armed at most
 * once a second of wall time (two syscalls less per call): a call gets its
 * budget less what the worker used in the second before it. */
static void child_cpu_budget(uint32_t budget)
{
    static int64_t armed_at;
    static int armed;
    struct rusage ru;
    struct rlimit rl;
    if (!budget)
        return;
    int64_t now = now_ms();
    if (armed && now - armed_at < 1000)
        return;
    armed = 1;
    armed_at = now;
    if (getrusage(RUSAGE_SELF, &ru) != 0 || getrlimit(RLIMIT_CPU, &rl) != 0)
        return;
    rlim_t used = (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec + 1;
    rl.rlim_cur = used + budget;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
        rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_CPU, &rl);
}

static void child_limits(const worker_options *o, size_t page)
{
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    if (o->limit_as_bytes) {
        /* Relative to what the worker has: under ASan that is terabytes
         * of shadow, reserved before the plugin comes. */
        uint64_t have = child_vm_bytes(page);
        uint64_t lim = have > UINT64_MAX - o->limit_as_bytes ? UINT64_MAX
                                                               : have + o->limit_as_bytes;
        rl.rlim_cur = rl.rlim_max = (rlim_t)lim;
        setrlimit(RLIMIT_AS, &rl);
    }
    if (o->limit_fsize_bytes) {
        rl.rlim_cur = rl.rlim_max = (rlim_t)o->limit_fsize_bytes;
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    child_cpu_budget(o->limit_cpu_s); /* for loading and open() */
    if (o->limit_nproc) {
        rl.rlim_cur = rl.rlim_max = o->limit_nproc;
        setrlimit(RLIMIT_NPROC, &rl);
    }
}

/* ------------------------------------------------------------------------
 * The child: confinement (worker_options.confine), and the process state
 * every plugin call must leave as it found it: the FP environment, the
 * signal dispositions and mask, the interval timers. Each call starts from
 * the state in force after open(); what a call leaves changed is reported
 * (ctl_reply.fp_changed, sig_changed) and put back, so later calls, and
 * their verdicts, do not depend on it.
 * ---------------------------------------------------------------------- */

#if defined(__x86_64__)
#define CONFINE_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CONFINE_ARCH AUDIT_ARCH_AARCH64
#endif

#define BPF_ARG_LO(n) (offsetof(struct seccomp_data, args) + 8 * (n)) /* little-endian */
#define BPF_RET_ERRNO(e) BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))
#define BPF_RET_ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
#define BPF_LD_NR BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr))
/* if nr == NR: <then>, else skip it (the next `len` instructions) */
#define BPF_IF_NR(NR, len) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (NR), 0, (len))

/* Installs the filter; 1 when it is in force. Needs no_new_privs. */
static int child_confine(void)
{
#if defined(CONFINE_ARCH)
    uint32_t self = (uint32_t)getpid(), group = (uint32_t)-(int32_t)getpid();
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CONFINE_ARCH, 1, 0),
        BPF_RET_ERRNO(EPERM), /* another ABI (i386 calls on x86-64) */
        BPF_LD_NR,
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1), /* x32 */
        BPF_RET_ERRNO(EPERM),
#endif
#ifdef __NR_fork
        BPF_IF_NR(__NR_fork, 1), BPF_RET_ERRNO(EAGAIN),
#endif
#ifdef __NR_vfork
        BPF_IF_NR(__NR_vfork, 1), BPF_RET_ERRNO(EAGAIN),
#endif
#ifdef __NR_clone3
        BPF_IF_NR(__NR_clone3, 1), BPF_RET_ERRNO(ENOSYS),
#endif
        BPF_IF_NR(__NR_clone, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, BPF_ARG_LO(0)),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
        BPF_RET_ALLOW,
        BPF_RET_ERRNO(EAGAIN),
        BPF_IF_NR(__NR_execve, 1), BPF_RET_ERRNO(EACCES),
        BPF_IF_NR(__NR_execveat, 1), BPF_RET_ERRNO(EACCES),
        BPF_IF_NR(__NR_ptrace, 1), BPF_RET_ERRNO(EPERM),
        BPF_IF_NR(__NR_process_vm_readv, 1), BPF_RET_ERRNO(EPERM),
        BPF_IF_NR(__NR_process_vm_writev, 1), BPF_RET_ERRNO(EPERM),
#ifdef __NR_pidfd_getfd
        BPF_IF_NR(__NR_pidfd_getfd, 1), BPF_RET_ERRNO(EPERM),
#endif
#ifdef __NR_pidfd_send_signal
        BPF_IF_NR(__NR_pidfd_send_signal, 1), BPF_RET_ERRNO(EPERM),
#endif
        /* kill(pid): this process, its group (0 or -pid) only */
        BPF_IF_NR(__NR_kill, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, BPF_ARG_LO(0)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, group, 0, 1),
        BPF_RET_ALLOW,
        BPF_RET_ERRNO(EPERM),
        /* tgkill, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo: the first
         * argument must be this process (tkill: its main thread) */
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 4, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tkill, 3, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_sigqueueinfo, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_rt_tgsigqueueinfo, 1, 0),
        BPF_RET_ALLOW,
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, BPF_ARG_LO(0)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, self, 0, 1),
        BPF_RET_ALLOW,
        BPF_RET_ERRNO(EPERM),
    };
    struct sock_fprog prog = {(unsigned short)(sizeof f / sizeof f[0]), f};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
#else
    return 0;
#endif
}

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

static void fp_take(fp_state *s)
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
static uint32_t fp_diff(const fp_state *a, const fp_state *b)
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
typedef struct sig_state {
    struct sigaction sa[SIG_WATCHED];
    sigset_t mask;
} sig_state;

static void sig_take(sig_state *s)
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
typedef struct call_base {
    fp_state fp;
    sig_state sig;
    uint32_t cpu_s;
} call_base;

static void call_begin(const call_base *cb)
{
    child_cpu_budget(cb->cpu_s);
    fesetenv(&cb->fp.env);
}

/* After a call: the FP environment every time (it costs no syscall, and
 * the next call_begin would hide a change); the signal state after the
 * last call of a case only (a change left by an earlier call of it is
 * still there then). */
static void call_end(const call_base *cb, const ctl_request *q, ctl_reply *rep)
{
    fp_state now;
    fp_take(&now);
    rep->fp_changed = fp_diff(&cb->fp, &now);
    if (rep->fp_changed)
        fesetenv(&cb->fp.env);
    if (q->check_signals)
        rep->sig_changed = sig_check(&cb->sig, &rep->sig_signal);
}

static void child_signals(size_t page)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &sa, NULL); /* EINVAL for reserved ones: fine */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    size_t stack_size = 16 * page > 65536 ? 16 * page : 65536;
    void *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack != MAP_FAILED) {
        stack_t ss;
        memset(&ss, 0, sizeof ss);
        ss.ss_sp = stack;
        ss.ss_size = stack_size;
        sigaltstack(&ss, NULL);
    }
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = child_on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof fault_signals / sizeof fault_signals[0]; i++)
        sigaction(fault_signals[i], &sa, NULL);
}

static void hello_fail(ctl_hello *h, uint32_t code, uint32_t stage, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void hello_fail(ctl_hello *h, uint32_t code, uint32_t stage, const char *fmt, ...)
{
    va_list ap;
    h->load_error = code;
    h->load_stage = stage;
    va_start(ap, fmt);
    vsnprintf(h->message, sizeof h->message, fmt, ap);
    va_end(ap);
}

/* Copies a plugin string into dst; 0, or -1 when it is longer than
 * cap - 1 bytes. */
static int child_copy_string(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap);
    if (n >= cap)
        return -1;
    memcpy(dst, src, n + 1);
    return 0;
}

/* Validates a descriptor; fills the hello or fails it. Returns 0 when valid. */
static int child_check_descriptor(const dvg_descriptor *d, ctl_hello *h)
{
    if (d->size < offsetof(dvg_descriptor, name)) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor size %u is too small to hold its version", d->size);
        return -1;
    }
    h->descriptor_size = d->size;
    h->abi_major = d->abi_major;
    h->abi_minor = d->abi_minor;
    if (d->abi_major != DVG_ABI_MAJOR) {
        hello_fail(h, WORKER_LOAD_ABI, WORKER_STAGE_LOAD, "ABI major %u, harness speaks %d",
                   (unsigned)d->abi_major, DVG_ABI_MAJOR);
        return -1;
    }
    if (d->size < DESCRIPTOR_V1_0_SIZE) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor size %u is smaller than ABI 1.0's %u bytes", d->size,
                   (unsigned)DESCRIPTOR_V1_0_SIZE);
        return -1;
    }
    static const struct {
        size_t offset;
        const char *name;
    } pointers[] = {
        {offsetof(dvg_descriptor, name), "name"},
        {offsetof(dvg_descriptor, version), "version"},
        {offsetof(dvg_descriptor, open), "open"},
        {offsetof(dvg_descriptor, output_shape), "output_shape"},
        {offsetof(dvg_descriptor, compute), "compute"},
        {offsetof(dvg_descriptor, last_error), "last_error"},
        {offsetof(dvg_descriptor, close), "close"},
    };
    for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++) {
        void *p;
        memcpy(&p, (const char *)d + pointers[i].offset, sizeof p);
        if (!p) {
            hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                       "descriptor field %s is NULL", pointers[i].name);
            return -1;
        }
    }
    if (child_copy_string(h->name, sizeof h->name, d->name) != 0) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor name is longer than %d bytes", WORKER_NAME_MAX - 1);
        return -1;
    }
    if (!h->name[0]) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD, "descriptor name is empty");
        return -1;
    }
    if (child_copy_string(h->version, sizeof h->version, d->version) != 0) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor version is longer than %d bytes", WORKER_NAME_MAX - 1);
        return -1;
    }
    if (d->n_claims > WORKER_MAX_CLAIMS) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor n_claims %u exceeds the maximum of %d", d->n_claims,
                   WORKER_MAX_CLAIMS);
        return -1;
    }
    if (d->n_claims && !d->claims) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor claims is NULL with n_claims %u", d->n_claims);
        return -1;
    }
    for (uint32_t i = 0; i < d->n_claims; i++) {
        dvg_claim c = d->claims[i];
        if (c.variant == DVG_VARIANT_NONE || c.variant >= DVG_VARIANT_COUNT) {
            hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                       "claim %u: unknown variant %u", i, c.variant);
            return -1;
        }
        if (c.dtype == DVG_DTYPE_NONE || c.dtype >= DVG_DTYPE_COUNT) {
            hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                       "claim %u: unknown dtype %u", i, c.dtype);
            return -1;
        }
        h->claims[i] = c;
    }
    h->n_claims = d->n_claims;
    const uint64_t known = DVG_DEV_FLUSH_SUBNORMAL_OUTPUT | DVG_DEV_SUBNORMAL_INPUT_ZERO |
                           DVG_DEV_NAN_CANONICAL | DVG_DEV_INT_DIV_ZERO_VALUE;
    if ((d->deviations & ~known) && d->abi_minor <= DVG_ABI_MINOR) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor deviations has unknown bits 0x%llx",
                   (unsigned long long)(d->deviations & ~known));
        return -1;
    }
    h->deviations = d->deviations;
    h->int_div_zero_value = d->int_div_zero_value;
    return 0;
}

/* Why a file the loader refused is no plugin for this machine, as far as
 * its ELF header tells (the loader's own word can be "No such file" for an
 * ELF of another machine): "" when the header looks right or cannot be
 * read. Returns buf. */
static const char *elf_hint(const char *path, char *buf, size_t len)
{
    unsigned char e[20];
    buf[0] = '\0';
    int fd = strchr(path, '/') ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) : -1;
    if (fd < 0)
        return buf;
    struct stat st;
    ssize_t n = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, e, sizeof e) : -1;
    close(fd);
    if (n < 0)
        return buf;
#if defined(__x86_64__)
    const unsigned machine = 62; /* EM_X86_64 */
#elif defined(__aarch64__)
    const unsigned machine = 183; /* EM_AARCH64 */
#else
    const unsigned machine = 0;
#endif
    if (n < 20 || memcmp(e, "\177ELF", 4) != 0)
        snprintf(buf, len, " (not an ELF file)");
    else if (e[4] != (sizeof(void *) == 8 ? 2 : 1))
        snprintf(buf, len, " (a %d-bit ELF file; this harness is %d-bit)", e[4] == 1 ? 32 : 64,
                 (int)sizeof(void *) * 8);
    else if (machine && (unsigned)(e[18] | e[19] << 8) != machine)
        snprintf(buf, len, " (an ELF file for machine %u; this one is %u)",
                 (unsigned)(e[18] | e[19] << 8), machine);
    else if ((e[16] | e[17] << 8) != 3) /* ET_DYN */
        snprintf(buf, len, " (an ELF file of type %u, not a shared object)",
                 (unsigned)(e[16] | e[17] << 8));
    return buf;
}

/* Maps one tensor into [guard][data pages][guard]; 0 or -1. */
static int child_map(int fd, const ctl_region *r, int prot, size_t page, ctl_map *m)
{
    size_t total = (size_t)(r->pages + 2) * page;
    uint8_t *lo = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                       -1, 0);
    if (lo == MAP_FAILED)
        return -1;
    if (r->pages) {
        void *p = mmap(lo + page, (size_t)r->pages * page, prot, MAP_SHARED | MAP_FIXED, fd,
                       (off_t)r->off);
        if (p == MAP_FAILED) {
            munmap(lo, total);
            return -1;
        }
    }
    m->lo = (uint64_t)(uintptr_t)lo;
    m->page = m->lo + page;
    m->data = m->page + r->pad;
    m->end = m->data + r->nbytes;
    m->hi = m->lo + total;
    return 0;
}

static void child_unmap(ctl_map *m)
{
    if (m->lo)
        munmap((void *)(uintptr_t)m->lo, (size_t)(m->hi - m->lo));
    memset(m, 0, sizeof *m);
}

/* Keeps mapping *m when it has the layout `want` asks for (only the data's
 * place within its pages moves), maps it afresh otherwise. 0 or -1. */
static int child_fit(int fd, const ctl_region *want, ctl_region *have, int prot, size_t page,
                     ctl_map *m)
{
    if (m->lo && have->off == want->off && have->pages == want->pages) {
        m->data = m->page + want->pad;
        m->end = m->data + want->nbytes;
        *have = *want;
        return 0;
    }
    child_unmap(m);
    if (child_map(fd, want, prot, page, m) != 0)
        return -1;
    *have = *want;
    return 0;
}

static void child_tensor(const ctl_request *q, int which, void *data, uint64_t nbytes,
                         dvg_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->dtype = q->dtype;
    t->rank = q->rank[which] <= DVG_MAX_RANK ? q->rank[which] : DVG_MAX_RANK;
    for (uint32_t k = 0; k < t->rank; k++)
        t->shape[k] = q->shape[which][k];
    t->data = data;
    t->nbytes = nbytes;
}

static void child_last_error(const dvg_descriptor *d, dvg_iut *iut, char *dst)
{
    const char *e = d->last_error(iut);
    copy_bounded(dst, WORKER_MESSAGE_MAX, e ? e : "(last_error returned NULL)");
}

__attribute__((noreturn)) static void child_main(worker *w, pid_t parent, int sock_in,
                                                 ctl_block *b)
{
    child_ctl = b;
    {
        struct rlimit rl;
        volatile char here = 0;
        b->stack_top = (uint64_t)(uintptr_t)&here;
        b->stack_limit = getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                             ? (uint64_t)rl.rlim_cur
                             : 0;
    }
    setpgid(0, 0);
    affinity_pin_process(w->opt.cpu);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(CHILD_EXIT_SETUP);
    child_signals(w->page);
    int rofd;
    child_fds(sock_in, w->memfd, w->opt.capture_output ? w->outfd : -1, w->opt.quiet, &rofd);
    const int sock = 3, memfd = 4;
    child_limits(&w->opt, w->page);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    int confined = w->opt.confine ? child_confine() : 0;
    on_exit(child_on_exit, NULL);
    fesetenv(FE_DFL_ENV);
    fp_state fp_default;
    fp_take(&fp_default);

    /* output_shape writes into a page that ends flush against a guard. */
    size_t page = w->page;
    uint8_t *shape_page = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ctl_hello *h = &b->hello;
    if (shape_page == MAP_FAILED || mprotect(shape_page + page, page, PROT_NONE) != 0) {
        hello_fail(h, WORKER_LOAD_SETUP, WORKER_STAGE_LOAD, "cannot map the shape buffer: %s",
                   strerror(errno));
        child_send(sock, 0, OP_HELLO);
        _exit(0);
    }
    int64_t *out_shape = (int64_t *)(shape_page + page) - DVG_MAX_RANK;
    uint32_t *out_rank = (uint32_t *)shape_page;
    b->map[R_SHAPE].lo = (uint64_t)(uintptr_t)shape_page;
    b->map[R_SHAPE].page = b->map[R_SHAPE].lo;
    b->map[R_SHAPE].data = (uint64_t)(uintptr_t)out_shape;
    b->map[R_SHAPE].end = b->map[R_SHAPE].lo + page;
    b->map[R_SHAPE].hi = b->map[R_SHAPE].lo + 2 * page;

    /* Load, look up, validate, open. */
    child_stage(b, 0, WORKER_STAGE_LOAD);
    dlerror();
    void *handle = dlopen(w->path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        char hint[160];
        hello_fail(h, WORKER_LOAD_DLOPEN, WORKER_STAGE_LOAD, "dlopen: %s%s",
                   e ? e : "unknown error", elf_hint(w->path, hint, sizeof hint));
        child_send(sock, 0, OP_HELLO);
        _exit(0);
    }
    dlerror();
    void *sym = dlsym(handle, DVG_ENTRY_SYMBOL);
    if (!sym) {
        hello_fail(h, WORKER_LOAD_NO_ENTRY, WORKER_STAGE_LOAD, "missing entry symbol %s",
                   DVG_ENTRY_SYMBOL);
        child_send(sock, 0, OP_HELLO);
        _exit(0);
    }
    dvg_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    const dvg_descriptor *d = entry();
    if (!d) {
        hello_fail(h, WORKER_LOAD_NULL_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "%s() returned NULL", DVG_ENTRY_SYMBOL);
        child_send(sock, 0, OP_HELLO);
        _exit(0);
    }
    if (child_check_descriptor(d, h) != 0) {
        child_send(sock, 0, OP_HELLO);
        _exit(0);
    }
    child_stage(b, 0, WORKER_STAGE_OPEN);
    dvg_iut *iut = NULL;
    int32_t st = d->open(w->config, &iut);
    child_stage(b, 0, WORKER_STAGE_IDLE);
    if (st != DVG_OK) {
        hello_fail(h, WORKER_LOAD_OPEN, WORKER_STAGE_OPEN, "open(\"%.200s\") returned %d",
                   w->config, (int)st);
        child_send(sock, 0, OP_HELLO);
        _exit(0);
    }
    /* What every call starts from: the state loading and open() left. */
    call_base cb;
    fp_take(&cb.fp);
    sig_take(&cb.sig);
    cb.cpu_s = w->opt.limit_cpu_s;
    h->fp_at_open = fp_diff(&fp_default, &cb.fp);
    h->confined = (uint32_t)confined;
    h->load_error = WORKER_LOAD_NONE;
    child_send(sock, 0, OP_HELLO);

    /* Serve. The operand mappings are kept while the layout stays the
     * same (mapping costs more than a small compute). */
    ctl_map m[3];
    ctl_region held[3];
    memset(m, 0, sizeof m);
    memset(held, 0, sizeof held);
    for (;;) {
        token t;
        ssize_t n;
        do
            n = recv(sock, &t, sizeof t, 0);
        while (n < 0 && errno == EINTR);
        if (n != (ssize_t)sizeof t || t.magic != TOKEN_MAGIC)
            _exit(0); /* the parent closed its end, or is not our parent */
        ctl_request q = b->req; /* a copy the plugin cannot change */
        ctl_reply *rep = &b->rep;
        memset(rep, 0, sizeof *rep);
        rep->seq = q.seq;
        if (q.op == OP_QUIT) {
            child_stage(b, q.seq, WORKER_STAGE_CLOSE);
            d->close(iut);
            _exit(0);
        } else if (q.op == OP_SHAPE) {
            dvg_tensor ta, tb;
            child_tensor(&q, 0, NULL, q.region[R_A].nbytes, &ta);
            child_tensor(&q, 1, NULL, q.region[R_B].nbytes, &tb);
            *out_rank = UINT32_MAX;
            for (int k = 0; k < DVG_MAX_RANK; k++)
                out_shape[k] = INT64_MIN;
            call_begin(&cb);
            child_stage(b, q.seq, WORKER_STAGE_SHAPE);
            st = d->output_shape(iut, q.variant, &q.attrs, &ta, &tb, out_rank, out_shape);
            rep->status = st;
            rep->rank = *out_rank;
            memcpy(rep->shape, out_shape, sizeof rep->shape);
            if (st != DVG_OK)
                child_last_error(d, iut, rep->message);
            child_stage(b, q.seq, WORKER_STAGE_IDLE);
            call_end(&cb, &q, rep);
        } else if (q.op == OP_COMPUTE) {
            static const int prot[3] = {PROT_READ, PROT_READ, PROT_READ | PROT_WRITE};
            const int fds[3] = {rofd, rofd, memfd};
            int mapped = 1;
            for (int i = 0; i < 3 && mapped; i++)
                mapped = child_fit(fds[i], &q.region[i], &held[i], prot[i], page, &m[i]) == 0;
            if (!mapped) {
                for (int i = 0; i < 3; i++)
                    child_unmap(&m[i]);
                memset(b->map, 0, 3 * sizeof b->map[0]);
                rep->internal = 1;
                snprintf(rep->message, sizeof rep->message,
                         "the worker cannot map the operands: %s", strerror(errno));
            } else {
                for (int i = 0; i < 3; i++)
                    b->map[i] = m[i];
                dvg_tensor ta, tb, tc;
                child_tensor(&q, 0, (void *)(uintptr_t)m[R_A].data, q.region[R_A].nbytes, &ta);
                child_tensor(&q, 1, (void *)(uintptr_t)m[R_B].data, q.region[R_B].nbytes, &tb);
                child_tensor(&q, 2, (void *)(uintptr_t)m[R_OUT].data, q.region[R_OUT].nbytes,
                             &tc);
                call_begin(&cb);
                child_stage(b, q.seq, q.stage);
                st = d->compute(iut, q.variant, &q.attrs, &ta, &tb, &tc);
                rep->status = st;
                if (st != DVG_OK)
                    child_last_error(d, iut, rep->message);
                child_stage(b, q.seq, WORKER_STAGE_IDLE);
                call_end(&cb, &q, rep);
            }
        } else {
            rep->internal = 1;
            snprintf(rep->message, sizeof rep->message, "the worker got an unknown request %u",
                     q.op);
        }
        child_send(sock, q.seq, q.op);
    }
}

/* ------------------------------------------------------------------------
 * The parent: processes
 * ---------------------------------------------------------------------- */

/* 1 when the child has exited (not yet reaped, or reaped by someone else). */
static int child_exited(worker *w)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == w->pid;
}

/* Waits until the child exits or `deadline` (now_ms) passes: 1 exited. */
static int child_wait_exit(worker *w, int64_t deadline)
{
    for (;;) {
        if (child_exited(w))
            return 1;
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return 0;
        if (left > 1000)
            left = 1000;
        if (w->pidfd >= 0) {
            struct pollfd p = {w->pidfd, POLLIN, 0};
            poll(&p, 1, (int)left);
        } else {
            struct timespec ts = {0, 2 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

/* Kills what is left of the child's process group, reaps the child and
 * returns its wait status (-1 when it cannot be had). The control block
 * stays mapped for the caller to read; child_release drops it. */
static int child_reap(worker *w)
{
    int st = -1;
    if (!w->pid)
        return -1;
    /* The child is not reaped yet, so its pid still names it and its group. */
    kill(-w->pid, SIGKILL);
    kill(w->pid, SIGKILL);
    pid_t got;
    do
        got = waitpid(w->pid, &st, 0);
    while (got < 0 && errno == EINTR);
    if (got != w->pid)
        st = -1;
    w->pid = 0;
    w->ready = 0;
    return st;
}

static void child_release(worker *w)
{
    if (w->sock >= 0)
        close(w->sock);
    if (w->pidfd >= 0)
        close(w->pidfd);
    w->sock = w->pidfd = -1;
    if (w->ctl)
        munmap(w->ctl, w->ctl_size);
    w->ctl = NULL;
    w->ready = 0;
}

/* Copies what the plugin wrote to its captured stdout/stderr since the
 * last look to the harness's stderr (WORKER_OUTPUT_SHOW bytes per request,
 * about WORKER_OUTPUT_TOTAL per worker), counts it in r (may be NULL) and
 * empties the capture file. */
static void drain_output(worker *w, worker_result *r)
{
    struct stat st;
    if (w->outfd < 0 || fstat(w->outfd, &st) != 0 || st.st_size <= 0)
        return;
    uint64_t size = (uint64_t)st.st_size;
    if (r)
        r->output_bytes += size;
    char buf[WORKER_OUTPUT_SHOW + 256];
    size_t n = 0;
    if (w->out_shown < WORKER_OUTPUT_TOTAL) {
        size_t show = size < WORKER_OUTPUT_SHOW ? (size_t)size : WORKER_OUTPUT_SHOW;
        ssize_t got = pread(w->outfd, buf, show, 0);
        n = got > 0 ? (size_t)got : 0;
        if (n < size) {
            n += (size_t)snprintf(buf + n, sizeof buf - n,
                                  "%s[divergence: the plugin wrote %llu bytes to stdout/stderr "
                                  "in one request; the first %zu are shown]\n",
                                  n && buf[n - 1] != '\n' ? "\n" : "",
                                  (unsigned long long)size, n);
        }
        w->out_shown += n;
        if (w->out_shown >= WORKER_OUTPUT_TOTAL && n < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n,
                                  "[divergence: %llu bytes of plugin output shown; the rest of "
                                  "this worker's is not]\n",
                                  (unsigned long long)w->out_shown);
    }
    if (n) {
        ssize_t put = write(2, buf, n < sizeof buf ? n : sizeof buf - 1);
        (void)put;
    }
    if (ftruncate(w->outfd, 0) != 0) {
        /* nothing to do: the next look counts the bytes again */
    }
}

static void result_reset(worker_result *r)
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
        set_msg(r, "%s (%d), raised by the plugin's process itself (abort, raise or kill)",
                sname, f->signo);
    else
        set_msg(r, "%s (%d) at address 0x%llx", sname, f->signo, (unsigned long long)f->addr);
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
            set_msg(r, "%s %s byte %lld of the %s (%llu bytes), %s", sname,
                    write ? "writing" : "reading", (long long)r->fault_offset,
                    region_names[region], (unsigned long long)(m->end - m->data),
                    f->addr < m->page ? "before its start" : "past its end");
        } else if (is_input && r->fault_write != 0) {
            r->outcome = WORKER_OUT_INPUT_MUTATED;
            set_msg(r, "%s writing byte %lld of %s, which is mapped read-only", sname,
                    (long long)r->fault_offset, region_names[region]);
        }
        return;
    }
}

/*
 * The child is gone (or must go): reaps it and fills r. `why` is
 * 0 the child died on its own, 1 the deadline passed (hang), 2 it broke
 * the protocol (`detail` says how).
 */
static void child_lost(worker *w, int why, uint32_t stage, const char *detail,
                       worker_result *r)
{
    int st = child_reap(w);
    ctl_block *b = w->ctl;
    ctl_fault f;
    ctl_exit x;
    ctl_map maps[R_COUNT];
    uint64_t stack_top = 0, stack_limit = 0;
    memset(&f, 0, sizeof f);
    memset(&x, 0, sizeof x);
    memset(maps, 0, sizeof maps);
    if (b) {
        f = b->fault;
        x = b->exitrec;
        memcpy(maps, b->map, sizeof maps);
        stack_top = b->stack_top;
        stack_limit = b->stack_limit;
    }
    child_release(w);
    if (!r)
        return;
    r->stage = stage;
    r->wait_status = st;
    if (why == 1) {
        r->outcome = WORKER_OUT_HANG;
        set_msg(r, "no answer within %u ms; the worker was killed",
                (unsigned)w->opt.timeout_ms);
        return;
    }
    if (why == 2) {
        r->outcome = WORKER_OUT_PROTOCOL;
        set_msg(r, "%s; it was killed", detail);
        return;
    }
    /* A fault record is believed only when the exit status agrees. */
    if (f.magic == FAULT_MAGIC && is_fault_signal(f.signo) && st != -1 && WIFEXITED(st) &&
        WEXITSTATUS(st) == CHILD_EXIT_FAULT + f.signo) {
        if (f.stage > WORKER_STAGE_NONE && f.stage < WORKER_STAGE_COUNT_)
            r->stage = f.stage;
        classify_fault(maps, r->stage, &f, r);
        if (f.signo == SIGXCPU) {
            r->outcome = WORKER_OUT_HANG;
            set_msg(r, "the call used more than its %u s of CPU time (SIGXCPU); the worker "
                       "was stopped", (unsigned)w->opt.limit_cpu_s);
        } else if (r->outcome == WORKER_OUT_CRASH && f.signo == SIGSEGV && stack_limit &&
                   f.addr < stack_top && stack_top - f.addr <= stack_limit + (UINT64_C(1) << 20) &&
                   stack_top - f.addr + (UINT64_C(1) << 20) >= stack_limit) {
            set_msg(r, "SIGSEGV at address 0x%llx: stack overflow (the stack limit is %llu KiB)",
                    (unsigned long long)f.addr, (unsigned long long)(stack_limit >> 10));
        } else if (f.signo == SIGXFSZ) {
            set_msg(r, "SIGXFSZ: the plugin wrote past the file size limit of %llu bytes "
                       "(its stdout and stderr count)",
                    (unsigned long long)w->opt.limit_fsize_bytes);
        }
        return;
    }
    if (st != -1 && WIFSIGNALED(st)) {
        r->outcome = WORKER_OUT_CRASH;
        r->signal = WTERMSIG(st);
        set_msg(r, "killed by %s (%d)", worker_signal_name(r->signal), r->signal);
        return;
    }
    r->outcome = WORKER_OUT_EXIT;
    if (st != -1 && WIFEXITED(st)) {
        r->exit_code = WEXITSTATUS(st);
        if (x.magic == EXIT_MAGIC && (x.status & 0xff) == r->exit_code) {
            if (x.stage > WORKER_STAGE_NONE && x.stage < WORKER_STAGE_COUNT_)
                r->stage = x.stage;
            set_msg(r, "the plugin called exit(%d)", (int)x.status);
        } else if (r->exit_code == CHILD_EXIT_SETUP) {
            set_msg(r, "the worker could not set itself up (status %d)", r->exit_code);
        } else if (r->exit_code == CHILD_EXIT_CHANNEL) {
            r->outcome = WORKER_OUT_PROTOCOL;
            set_msg(r, "the plugin closed or replaced the worker's channel (fd 3), which it "
                       "did not open");
        } else {
            set_msg(r, "the worker exited with status %d", r->exit_code);
        }
    } else {
        set_msg(r, "the worker ended; its status is unknown");
    }
}

enum { WAIT_REPLY, WAIT_DIED, WAIT_HANG, WAIT_BAD };

/* Waits up to timeout_ms for the child's token `seq`/`op`. */
static int await_token(worker *w, uint32_t seq, uint32_t op, const char **detail)
{
    int64_t deadline = now_ms() + w->opt.timeout_ms;
    *detail = "";
    for (;;) {
        int64_t left = deadline - now_ms();
        if (left <= 0)
            return WAIT_HANG;
        int slice = (int)(left > 1000 ? 1000 : left);
        if (w->pidfd < 0 && slice > 20)
            slice = 20; /* no pidfd: look at the child between slices */
        struct pollfd p[2] = {{w->sock, POLLIN, 0}, {w->pidfd, POLLIN, 0}};
        int np = w->pidfd >= 0 ? 2 : 1;
        int n = poll(p, (nfds_t)np, slice);
        if (n < 0 && errno != EINTR) {
            *detail = "poll failed";
            return WAIT_BAD;
        }
        if (n > 0 && (p[0].revents & POLLIN)) {
            token t;
            ssize_t got = recv(w->sock, &t, sizeof t, MSG_DONTWAIT | MSG_TRUNC);
            if (got == 0)
                goto dying;
            if (got < 0) {
                if (errno == EAGAIN || errno == EINTR)
                    continue;
                goto dying;
            }
            if (got != (ssize_t)sizeof t || t.magic != TOKEN_MAGIC || t.seq != seq ||
                t.op != op) {
                *detail = "the worker sent a malformed or out-of-order message";
                return WAIT_BAD;
            }
            return WAIT_REPLY;
        }
        if (n > 0 && (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
            goto dying;
        if (n > 0 && np == 2 && p[1].revents)
            goto dying;
        if (np == 1 && child_exited(w))
            goto dying;
    }
dying:
    /* The channel closed: the child should be exiting. */
    if (child_wait_exit(w, deadline))
        return WAIT_DIED;
    *detail = "the worker closed its channel but kept running";
    return WAIT_BAD;
}

/* Sends the request in ctl->req and waits for its reply. Returns 0 with
 * the reply in ctl->rep, or 1 after filling r with the child's end. */
static int call_child(worker *w, uint32_t op, uint32_t stage, worker_result *r)
{
    uint32_t seq = ++w->seq;
    w->ctl->req.op = op;
    w->ctl->req.seq = seq;
    w->ctl->req.stage = stage;
    token t = {TOKEN_MAGIC, seq, op, 0};
    ssize_t n;
    do
        n = send(w->sock, &t, sizeof t, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    const char *detail = "";
    int got;
    if (n != (ssize_t)sizeof t) {
        /* Dead already (a thread of the plugin, between calls). */
        got = child_wait_exit(w, now_ms() + w->opt.timeout_ms) ? WAIT_DIED : WAIT_BAD;
        detail = "the worker stopped reading requests";
        stage = WORKER_STAGE_IDLE;
    } else {
        got = await_token(w, seq, op, &detail);
    }
    drain_output(w, r);
    if (got == WAIT_REPLY)
        return 0;
    child_lost(w, got == WAIT_HANG ? 1 : got == WAIT_BAD ? 2 : 0, stage, detail, r);
    return 1;
}

/* Validates the hello the child wrote; fills w->info. 0, or -1 with r. */
static int take_hello(worker *w, worker_result *r)
{
    ctl_hello *h = dvg_malloc(sizeof *h);
    int rc = -1;
    if (!h) {
        set_err(w, "out of memory");
        return -2;
    }
    memcpy(h, &w->ctl->hello, sizeof *h);
    sanitize_text(h->message, sizeof h->message);
    if (h->load_error != WORKER_LOAD_NONE) {
        r->outcome = WORKER_OUT_LOAD_ERROR;
        r->load_error = h->load_error < WORKER_LOAD_COUNT_ ? h->load_error : WORKER_LOAD_SETUP;
        r->stage = h->load_stage == WORKER_STAGE_OPEN ? WORKER_STAGE_OPEN : WORKER_STAGE_LOAD;
        copy_bounded(r->message, sizeof r->message, h->message);
        goto done;
    }
    const char *bad = NULL;
    if (memchr(h->name, 0, sizeof h->name) == NULL || !h->name[0])
        bad = "name";
    else if (memchr(h->version, 0, sizeof h->version) == NULL)
        bad = "version";
    else if (h->n_claims > WORKER_MAX_CLAIMS)
        bad = "n_claims";
    else if (h->abi_major != DVG_ABI_MAJOR)
        bad = "abi_major";
    for (uint32_t i = 0; !bad && i < h->n_claims; i++)
        if (h->claims[i].variant == DVG_VARIANT_NONE ||
            h->claims[i].variant >= DVG_VARIANT_COUNT || h->claims[i].dtype == DVG_DTYPE_NONE ||
            h->claims[i].dtype >= DVG_DTYPE_COUNT)
            bad = "claims";
    if (bad) {
        r->outcome = WORKER_OUT_PROTOCOL;
        r->stage = WORKER_STAGE_LOAD;
        set_msg(r, "the worker's description has a bad %s", bad);
        goto done;
    }
    worker_info *info = &w->info;
    memset(info, 0, sizeof *info);
    memcpy(info->name, h->name, sizeof info->name);
    memcpy(info->version, h->version, sizeof info->version);
    sanitize_text(info->name, sizeof info->name);
    sanitize_text(info->version, sizeof info->version);
    info->descriptor_size = h->descriptor_size;
    info->abi_major = h->abi_major;
    info->abi_minor = h->abi_minor;
    info->deviations = h->deviations;
    info->int_div_zero_value = h->int_div_zero_value;
    info->n_claims = h->n_claims;
    info->confined = h->confined == 1;
    info->fp_at_open = h->fp_at_open & (WORKER_FP_OTHER * 2 - 1);
    memcpy(info->claims, h->claims, h->n_claims * sizeof h->claims[0]);
    w->has_info = 1;
    rc = 0;
done:
    dvg_free(h);
    return rc;
}

int worker_start(worker *w, worker_result *r)
{
    worker_result scratch;
    int sv[2] = {-1, -1};
    int rc = -1;
    if (!r) {
        memset(&scratch, 0, sizeof scratch);
        r = &scratch;
    }
    worker_stop(w);
    result_reset(r);
    w->has_info = 0;

    w->ctl_size = (sizeof(ctl_block) + w->page - 1) / w->page * w->page;
    void *ctl = mmap(NULL, w->ctl_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
                     0);
    if (ctl == MAP_FAILED) {
        set_err(w, "cannot map the control block: %s", strerror(errno));
        goto done;
    }
    w->ctl = ctl;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        set_err(w, "socketpair: %s", strerror(errno));
        child_release(w);
        goto done;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        set_err(w, "fork: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        child_release(w);
        goto done;
    }
    if (pid == 0) {
        close(sv[0]);
        child_main(w, parent, sv[1], w->ctl);
    }
    close(sv[1]);
    setpgid(pid, pid); /* also done by the child; whoever is first wins */
    w->pid = pid;
    w->sock = sv[0];
    w->spawns++;
#ifdef SYS_pidfd_open
    w->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (w->pidfd >= 0)
        fcntl(w->pidfd, F_SETFD, FD_CLOEXEC);
#else
    w->pidfd = -1;
#endif
    w->seq = 0;
    const char *detail = "";
    int got = await_token(w, 0, OP_HELLO, &detail);
    drain_output(w, r);
    if (got != WAIT_REPLY) {
        uint32_t stage = __atomic_load_n(&w->ctl->cur_stage, __ATOMIC_SEQ_CST);
        if (stage != WORKER_STAGE_OPEN)
            stage = WORKER_STAGE_LOAD;
        child_lost(w, got == WAIT_HANG ? 1 : got == WAIT_BAD ? 2 : 0, stage, detail, r);
        rc = 1;
        goto done;
    }
    int t = take_hello(w, r);
    if (t != 0) {
        /* After a load error the child is exiting anyway. */
        child_reap(w);
        child_release(w);
        rc = t == -2 ? -1 : 1;
        goto done;
    }
    w->ready = 1;
    rc = 0;
done:
    if (r == &scratch)
        worker_result_free(&scratch);
    return rc;
}

int worker_restart(worker *w, worker_result *r)
{
    return worker_start(w, r);
}

void worker_stop(worker *w)
{
    if (!w || !w->pid) {
        if (w)
            child_release(w);
        return;
    }
    if (w->ready && w->sock >= 0) {
        w->ctl->req.op = OP_QUIT;
        w->ctl->req.seq = ++w->seq;
        token t = {TOKEN_MAGIC, w->seq, OP_QUIT, 0};
        if (send(w->sock, &t, sizeof t, MSG_NOSIGNAL) == (ssize_t)sizeof t)
            child_wait_exit(w, now_ms() + w->opt.timeout_ms);
    }
    child_reap(w);
    child_release(w);
    drain_output(w, NULL);
}

/* ------------------------------------------------------------------------
 * The parent: lifetime and requests
 * ---------------------------------------------------------------------- */

void worker_options_default(worker_options *o)
{
    memset(o, 0, sizeof *o);
    o->config = "";
    o->timeout_ms = WORKER_DEFAULT_TIMEOUT_MS;
    o->max_bytes = WORKER_DEFAULT_MAX_BYTES;
    o->cpu = -1;
}

void worker_options_limited(worker_options *o)
{
    worker_options_default(o);
    o->confine = 1;
    o->capture_output = 1;
    o->limit_as_bytes = WORKER_LIMIT_AS;
    o->limit_cpu_s = WORKER_LIMIT_CPU_S;
    o->limit_fsize_bytes = WORKER_LIMIT_FSIZE;
}

int worker_new(const char *plugin_path, const worker_options *o, worker **out)
{
    worker_options def;
    if (!o) {
        worker_options_default(&def);
        o = &def;
    }
    const char *config = o->config ? o->config : "";
    if (!plugin_path || o->timeout_ms == 0 || strlen(config) > WORKER_CONFIG_MAX)
        return -1;
    worker *w = dvg_calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->memfd = w->sock = w->pidfd = w->outfd = -1;
    w->opt = *o;
    if (!w->opt.max_bytes)
        w->opt.max_bytes = WORKER_DEFAULT_MAX_BYTES;
    w->path = dvg_strdup(plugin_path);
    w->config = dvg_strdup(config);
    w->opt.config = w->config;
    long page = sysconf(_SC_PAGESIZE);
    w->page = page > 0 ? (size_t)page : 4096;
    /* Sealed against shrinking at once (size 0): it only ever grows, and a
     * plugin that truncated it (fd 4) cannot make the parent's mapping
     * fault. F_SEAL_SEAL: nor can it add seals that stop the growth. */
    w->memfd = memfd_create("divergence-operands", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (w->memfd >= 0 && fcntl(w->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
        close(w->memfd);
        w->memfd = -1;
    }
    if (w->opt.capture_output && !w->opt.quiet)
        w->outfd = memfd_create("divergence-plugin-output", MFD_CLOEXEC);
    if (!w->path || !w->config || w->memfd < 0 ||
        (w->opt.capture_output && !w->opt.quiet && w->outfd < 0)) {
        worker_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

void worker_free(worker *w)
{
    if (!w)
        return;
    worker_stop(w);
    if (w->arena)
        munmap(w->arena, (size_t)w->arena_size);
    if (w->memfd >= 0)
        close(w->memfd);
    if (w->outfd >= 0)
        close(w->outfd);
    dvg_free(w->path);
    dvg_free(w->config);
    dvg_free(w);
}

const worker_info *worker_get_info(const worker *w)
{
    return w->has_info ? &w->info : NULL;
}

int worker_alive(const worker *w)
{
    return w->pid != 0 && w->ready;
}

int worker_pid(const worker *w)
{
    return (int)w->pid;
}

uint64_t worker_spawns(const worker *w)
{
    return w->spawns;
}

const char *worker_errmsg(const worker *w)
{
    return w->err;
}

/* Makes the arena at least `need` bytes. The memfd is sealed against
 * shrinking, so a large idle arena gives its memory back by punching a
 * hole past what is needed, keeping its size. */
static int arena_fit(worker *w, uint64_t need)
{
    uint64_t size = w->arena_size;
    if (need <= size) {
        if (size > (UINT64_C(64) << 20) && need < w->arena_live / 4) {
            uint64_t keep = (need + w->page - 1) / w->page * w->page;
            if (fallocate(w->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)keep,
                          (off_t)(size - keep)) == 0)
                w->arena_live = keep;
        }
        if (need > w->arena_live)
            w->arena_live = need;
        return 0;
    }
    size = need;
    /* Small arenas double, so a run of growing cases remaps rarely. */
    uint64_t twice = w->arena_size * 2;
    if (twice > need && twice <= (UINT64_C(64) << 20))
        size = twice;
    if (w->arena)
        munmap(w->arena, (size_t)w->arena_size);
    w->arena = NULL;
    w->arena_size = w->arena_live = 0;
    struct stat st;
    if (fstat(w->memfd, &st) != 0 ||
        ((uint64_t)st.st_size < size && ftruncate(w->memfd, (off_t)size) != 0)) {
        set_err(w, "cannot size the operand memory to %llu bytes: %s",
                (unsigned long long)size, strerror(errno));
        return -1;
    }
    void *p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED, w->memfd, 0);
    if (p == MAP_FAILED) {
        set_err(w, "cannot map %llu bytes of operand memory: %s", (unsigned long long)size,
                strerror(errno));
        return -1;
    }
    w->arena = p;
    w->arena_size = size;
    w->arena_live = need;
    return 0;
}

static void region_layout(ctl_region *g, uint64_t off, uint64_t nbytes, size_t page)
{
    g->off = off;
    g->nbytes = nbytes;
    g->pages = (nbytes + page - 1) / page;
    g->pad = g->pages * page - nbytes;
}

static int ensure_buffers(worker *w, worker_result *r, uint64_t nbytes, uint64_t count)
{
    if (nbytes > r->cap_bytes_ || !r->out1 || !r->out2) {
        uint64_t n = nbytes ? nbytes : 1;
        uint8_t *a = dvg_realloc(r->out1, (size_t)n);
        if (a)
            r->out1 = a;
        uint8_t *b = a ? dvg_realloc(r->out2, (size_t)n) : NULL;
        if (b)
            r->out2 = b;
        if (!a || !b) {
            set_err(w, "out of memory for %llu output bytes", (unsigned long long)nbytes);
            return -1;
        }
        r->cap_bytes_ = n;
    }
    if (count > r->cap_count_ || !r->flags) {
        uint64_t n = count ? count : 1;
        uint8_t *f = dvg_realloc(r->flags, (size_t)n);
        if (!f) {
            set_err(w, "out of memory for %llu element flags", (unsigned long long)count);
            return -1;
        }
        r->flags = f;
        r->cap_count_ = n;
    }
    return 0;
}

static uint32_t status_outcome(int32_t st)
{
    switch (st) {
    case DVG_OK:
        return WORKER_OUT_OK;
    case DVG_INVALID_INPUT:
        return WORKER_OUT_INVALID_INPUT;
    case DVG_UNSUPPORTED:
        return WORKER_OUT_UNSUPPORTED;
    case DVG_FAILURE:
        return WORKER_OUT_FAILURE;
    default:
        return WORKER_OUT_BAD_STATUS;
    }
}

/* A non-OK plugin status into r. */
static void take_status(worker_result *r, uint32_t stage, int32_t st, const char *text)
{
    r->outcome = status_outcome(st);
    r->stage = stage;
    r->status = st;
    if (r->outcome == WORKER_OUT_BAD_STATUS)
        set_msg(r, "status %d is no DVG_ status; last_error: %s", (int)st, text);
    else
        copy_bounded(r->message, sizeof r->message, text);
}

static int shape_ok(const oracle_shape *s)
{
    if (s->rank > DVG_MAX_RANK)
        return 0;
    for (uint32_t k = 0; k < s->rank; k++)
        if (s->dims[k] < 0)
            return 0;
    return 1;
}

/* Shape elements, or UINT64_MAX when the product overflows the oracle's
 * limit. */
static uint64_t shape_count(const oracle_shape *s)
{
    uint64_t n = 1;
    for (uint32_t k = 0; k < s->rank; k++) {
        uint64_t d = (uint64_t)s->dims[k];
        if (d == 0)
            return 0;
        if (n > ORACLE_MAX_ELEMENTS / d)
            return UINT64_MAX;
        n *= d;
    }
    return n;
}

/* Checks after one compute run; returns the side effects found. */
static uint32_t check_after_run(worker *w, const divcase *c, const ctl_region *g,
                                uint8_t poison, worker_result *r, int64_t *slack_at)
{
    uint32_t side = 0;
    const uint8_t *arena = w->arena;
    if (!arena)
        return 0; /* nothing but empty tensors */
    if (c->a_bytes && memcmp(arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes) != 0)
        side |= WORKER_SIDE_INPUT_A;
    if (c->b_bytes && memcmp(arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes) != 0)
        side |= WORKER_SIDE_INPUT_B;
    const uint8_t *o = arena + g[R_OUT].off;
    for (uint64_t i = 0; i < g[R_OUT].pad; i++)
        if (o[i] != poison) {
            side |= WORKER_SIDE_SLACK;
            if (*slack_at == 0)
                *slack_at = (int64_t)i - (int64_t)g[R_OUT].pad;
            break;
        }
    const oracle_dtype_info *info = oracle_dtype(c->dtype);
    if (info && info->bits == 4 && (r->count & 1) && g[R_OUT].nbytes) {
        uint8_t last = o[g[R_OUT].pad + g[R_OUT].nbytes - 1];
        if ((last >> 4) != (poison >> 4))
            side |= WORKER_SIDE_PAD_NIBBLE;
    }
    return side;
}

/* The outcome of side effects found after a run that returned DVG_OK. */
static void side_outcome(worker_result *r, int64_t slack_at)
{
    if (r->side_effects & WORKER_SIDE_SLACK) {
        r->outcome = WORKER_OUT_OOB_WRITE;
        r->fault_region = WORKER_REGION_OUT;
        r->fault_offset = slack_at;
        set_msg(r, "byte %lld of the output (before its start) changed", (long long)slack_at);
    } else if (r->side_effects & (WORKER_SIDE_INPUT_A | WORKER_SIDE_INPUT_B)) {
        r->outcome = WORKER_OUT_INPUT_MUTATED;
        r->fault_region = (r->side_effects & WORKER_SIDE_INPUT_A) ? WORKER_REGION_A
                                                                   : WORKER_REGION_B;
        set_msg(r, "the bytes of %s changed during compute",
                r->fault_region == WORKER_REGION_A ? "A" : "B");
    }
}

/* r->flags from the two runs in r->out1 and r->out2, made into outputs
 * whose elements i held q1[i & 1] and q2[i & 1] before (two elements: the
 * pattern of an i4/u4 byte): unwritten where each run left its poison,
 * nondeterministic where the runs differ otherwise. */
static void flag_elements(worker_result *r, const uint64_t q1[2], const uint64_t q2[2])
{
    for (uint64_t i = 0; i < r->count; i++) {
        uint64_t v1 = oracle_load(r->dtype, r->out1, i);
        uint64_t v2 = oracle_load(r->dtype, r->out2, i);
        uint8_t f = 0;
        if (v1 == q1[i & 1] && v2 == q2[i & 1]) {
            f = WORKER_ELEM_UNWRITTEN;
            if (!r->n_unwritten++)
                r->first_unwritten = i;
        } else if (v1 != v2) {
            f = WORKER_ELEM_NONDET;
            if (!r->n_nondet++)
                r->first_nondet = i;
        }
        r->flags[i] = f;
    }
}

static void mark_elements(worker_result *r)
{
    uint8_t p1[16], p2[16]; /* two elements of the widest type */
    memset(p1, (int)WORKER_POISON1, sizeof p1);
    memset(p2, (int)WORKER_POISON2, sizeof p2);
    uint64_t q1[2] = {oracle_load(r->dtype, p1, 0), oracle_load(r->dtype, p1, 1)};
    uint64_t q2[2] = {oracle_load(r->dtype, p2, 0), oracle_load(r->dtype, p2, 1)};
    flag_elements(r, q1, q2);
}

/* The state a call left changed (the child put it back). */
static void take_leaks(worker_result *r, const ctl_reply *rep)
{
    uint32_t fp = rep->fp_changed & (WORKER_FP_OTHER * 2 - 1);
    uint32_t sig = rep->sig_changed & (WORKER_SIG_TIMER * 2 - 1);
    if (fp) {
        r->fp_changed |= fp;
        r->side_effects |= WORKER_SIDE_FP_STATE;
    }
    if (sig) {
        if ((sig & WORKER_SIG_HANDLER) && !(r->sig_changed & WORKER_SIG_HANDLER) &&
            rep->sig_signal > 0 && rep->sig_signal < 65)
            r->sig_changed_signal = rep->sig_signal;
        r->sig_changed |= sig;
        r->side_effects |= WORKER_SIDE_SIGNAL_STATE;
    }
}

static void fill_request_case(ctl_request *q, const divcase *c)
{
    memset(q, 0, sizeof *q);
    q->variant = c->variant;
    q->dtype = c->dtype;
    q->attrs = c->attrs;
    q->rank[0] = c->a_shape.rank;
    q->rank[1] = c->b_shape.rank;
    memcpy(q->shape[0], c->a_shape.dims, sizeof q->shape[0]);
    memcpy(q->shape[1], c->b_shape.dims, sizeof q->shape[1]);
    q->region[R_A].nbytes = c->a_bytes;
    q->region[R_B].nbytes = c->b_bytes;
}

int worker_run(worker *w, const divcase *c, const oracle_shape *expect, worker_result *r)
{
    result_reset(r);
    const oracle_dtype_info *info = oracle_dtype(c->dtype);
    if (!info) {
        set_err(w, "case %s: unknown dtype %u", c->id, c->dtype);
        return -1;
    }
    if (!shape_ok(&c->a_shape) || !shape_ok(&c->b_shape) || (expect && !shape_ok(expect))) {
        set_err(w, "case %s: a shape has a rank above %d or a negative dimension", c->id,
                DVG_MAX_RANK);
        return -1;
    }
    uint64_t na = shape_count(&c->a_shape), nb = shape_count(&c->b_shape);
    if (na == UINT64_MAX || nb == UINT64_MAX || c->a_bytes != oracle_nbytes(c->dtype, na) ||
        c->b_bytes != oracle_nbytes(c->dtype, nb) || (c->a_bytes && !c->a) ||
        (c->b_bytes && !c->b)) {
        set_err(w, "case %s: operand bytes do not match the shapes", c->id);
        return -1;
    }
    if (c->a_bytes > w->opt.max_bytes || c->b_bytes > w->opt.max_bytes) {
        set_err(w, "case %s: an operand exceeds the limit of %llu bytes", c->id,
                (unsigned long long)w->opt.max_bytes);
        return -1;
    }
    uint64_t nc = 0, c_bytes = 0;
    if (expect) {
        nc = shape_count(expect);
        c_bytes = nc == UINT64_MAX ? UINT64_MAX : oracle_nbytes(c->dtype, nc);
        if (c_bytes > w->opt.max_bytes) {
            set_err(w, "case %s: the output exceeds the limit of %llu bytes", c->id,
                    (unsigned long long)w->opt.max_bytes);
            return -1;
        }
    }
    if (!worker_alive(w)) {
        int s = worker_start(w, r);
        if (s < 0)
            return -1;
        if (s > 0)
            return 0;
        result_reset(r);
    }

    /* output_shape */
    fill_request_case(&w->ctl->req, c);
    w->ctl->req.check_signals = expect == NULL; /* no compute will follow */
    if (call_child(w, OP_SHAPE, WORKER_STAGE_SHAPE, r))
        return 0;
    ctl_reply rep = w->ctl->rep;
    if (rep.seq != w->seq) {
        child_lost(w, 2, WORKER_STAGE_SHAPE, "the worker answered another request", r);
        return 0;
    }
    sanitize_text(rep.message, sizeof rep.message);
    take_leaks(r, &rep);
    r->shape_status = rep.status;
    r->shape_rank = rep.rank;
    if (rep.internal) {
        child_lost(w, 2, WORKER_STAGE_SHAPE, rep.message, r);
        return 0;
    }
    if (rep.status != DVG_OK) {
        take_status(r, WORKER_STAGE_SHAPE, rep.status, rep.message);
        return 0;
    }
    r->stage = WORKER_STAGE_SHAPE;
    if (rep.rank > DVG_MAX_RANK) {
        r->outcome = WORKER_OUT_BAD_SHAPE;
        set_msg(r, "output_shape returned DVG_OK with rank %u (at most %d)%s", rep.rank,
                DVG_MAX_RANK, rep.rank == UINT32_MAX ? ": it did not set the rank" : "");
        return 0;
    }
    r->shape.rank = rep.rank;
    for (uint32_t k = 0; k < rep.rank; k++) {
        if (rep.shape[k] < 0) {
            r->outcome = WORKER_OUT_BAD_SHAPE;
            set_msg(r, "output_shape returned DVG_OK with dimension %u = %lld%s", k,
                    (long long)rep.shape[k],
                    rep.shape[k] == INT64_MIN ? ": it did not set it" : "");
            memset(&r->shape, 0, sizeof r->shape);
            return 0;
        }
        r->shape.dims[k] = rep.shape[k];
    }
    r->has_shape = 1;
    r->outcome = WORKER_OUT_OK;
    if (!expect || !oracle_shape_equal(&r->shape, expect))
        return 0; /* the verdict compares shapes; nothing to compute into */

    /* compute, twice */
    r->dtype = c->dtype;
    r->count = nc;
    r->nbytes = c_bytes;
    if (ensure_buffers(w, r, c_bytes, nc) != 0)
        return -1;
    size_t page = w->page;
    ctl_region g[3];
    region_layout(&g[R_A], 0, c->a_bytes, page);
    region_layout(&g[R_B], g[R_A].pages * page, c->b_bytes, page);
    region_layout(&g[R_OUT], g[R_B].off + g[R_B].pages * page, c_bytes, page);
    if (arena_fit(w, g[R_OUT].off + g[R_OUT].pages * page) != 0)
        return -1;
    int64_t slack_at = 0;
    uint32_t side_stage = 0;
    for (int run = 0; run < 2; run++) {
        uint8_t poison = (uint8_t)(run ? WORKER_POISON2 : WORKER_POISON1);
        uint32_t stage = run ? WORKER_STAGE_COMPUTE2 : WORKER_STAGE_COMPUTE1;
        if (c->a_bytes)
            memcpy(w->arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes);
        if (c->b_bytes)
            memcpy(w->arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes);
        if (g[R_OUT].pages)
            memset(w->arena + g[R_OUT].off, poison, (size_t)(g[R_OUT].pages * page));
        ctl_request *q = &w->ctl->req;
        fill_request_case(q, c);
        q->rank[2] = expect->rank;
        memcpy(q->shape[2], expect->dims, sizeof q->shape[2]);
        memcpy(q->region, g, sizeof g);
        q->check_signals = run == 1;
        if (call_child(w, OP_COMPUTE, stage, r))
            return 0;
        rep = w->ctl->rep;
        if (rep.seq != w->seq || rep.internal) {
            sanitize_text(rep.message, sizeof rep.message);
            child_lost(w, 2, stage,
                       rep.internal ? rep.message : "the worker answered another request", r);
            return 0;
        }
        sanitize_text(rep.message, sizeof rep.message);
        take_leaks(r, &rep);
        r->compute_status[run] = rep.status;
        if (rep.status != DVG_OK) {
            take_status(r, stage, rep.status, rep.message);
            return 0;
        }
        if (c_bytes)
            memcpy(run ? r->out2 : r->out1, w->arena + g[R_OUT].off + g[R_OUT].pad,
                   (size_t)c_bytes);
        uint32_t side = check_after_run(w, c, g, poison, r, &slack_at);
        if (side & ~(uint32_t)WORKER_SIDE_PAD_NIBBLE && !side_stage)
            side_stage = stage;
        r->side_effects |= side;
    }
    r->computed = 1;
    r->stage = side_stage ? side_stage : WORKER_STAGE_COMPUTE2;
    mark_elements(r);
    side_outcome(r, slack_at);
    return 0;
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

/* ------------------------------------------------------------------------
 * Batch mode (sweeps): see worker.h. One compute per call, the output read
 * in place, operands copied only when they changed, output_shape once per
 * child and layout.
 * ---------------------------------------------------------------------- */

_Static_assert(sizeof(((worker_batch *)0)->region_) == 3 * sizeof(ctl_region),
               "worker_batch keeps the three regions of a layout");

/* The bytes of one poison element (i4/u4: the pattern byte), and their
 * count. */
static uint32_t batch_pattern(uint32_t dtype, uint64_t poison, uint8_t bytes[8])
{
    uint32_t bits = oracle_dtype(dtype)->bits, n = bits < 8 ? 1 : bits / 8;
    for (uint32_t i = 0; i < n; i++)
        bytes[i] = (uint8_t)(poison >> (8 * i));
    return n;
}

/* Fills `n` bytes (a multiple of the element size; `dst` page-aligned)
 * with the poison element: one block by hand, the rest copied from it in
 * doubling blocks. */
static void batch_fill(uint8_t *dst, uint64_t n, uint32_t dtype, uint64_t poison)
{
    uint8_t b[8];
    uint32_t esize = batch_pattern(dtype, poison, b);
    uint64_t done = 0;
    for (; done < n && done < 64; done++)
        dst[done] = b[done % esize];
    while (done < n) {
        uint64_t k = done < n - done ? done : n - done;
        memcpy(dst + done, dst, (size_t)k);
        done += k;
    }
}

/* The checks after one run: A and B (when asked), the slack before the
 * output, the unused nibble of an odd i4/u4 output. */
static uint32_t batch_side_effects(worker *w, const worker_batch *bt, const divcase *c,
                                   const ctl_region *g, uint64_t poison, uint64_t count,
                                   int64_t *slack_at)
{
    uint32_t side = 0;
    const uint8_t *arena = w->arena;
    if (!arena)
        return 0;
    if (bt->check_inputs) {
        if (c->a_bytes && memcmp(arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes))
            side |= WORKER_SIDE_INPUT_A;
        if (c->b_bytes && memcmp(arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes))
            side |= WORKER_SIDE_INPUT_B;
    }
    uint8_t b[8];
    uint32_t esize = batch_pattern(c->dtype, poison, b);
    const uint8_t *o = arena + g[R_OUT].off;
    for (uint64_t i = 0; i < g[R_OUT].pad; i++)
        if (o[i] != b[i % esize]) {
            side |= WORKER_SIDE_SLACK;
            if (*slack_at == 0)
                *slack_at = (int64_t)i - (int64_t)g[R_OUT].pad;
            break;
        }
    if (oracle_dtype(c->dtype)->bits == 4 && (count & 1) && g[R_OUT].nbytes) {
        uint8_t last = o[g[R_OUT].pad + g[R_OUT].nbytes - 1];
        if ((last >> 4) != (b[0] >> 4))
            side |= WORKER_SIDE_PAD_NIBBLE;
    }
    return side;
}

/* The arena layout of case c with output shape `expect` into g. */
static void batch_layout(const worker *w, const divcase *c, uint64_t c_bytes, ctl_region *g)
{
    size_t page = w->page;
    region_layout(&g[R_A], 0, c->a_bytes, page);
    region_layout(&g[R_B], g[R_A].pages * page, c->b_bytes, page);
    region_layout(&g[R_OUT], g[R_B].off + g[R_B].pages * page, c_bytes, page);
}

/* One compute into poison `poison` (run 0 or 1) with the operands in
 * place. Returns 0 when compute returned DVG_OK (side effects checked),
 * 1 when r holds another end, -1 on a harness error. */
static int batch_compute(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                         const ctl_region *g, int run, worker_result *r, int64_t *slack_at)
{
    uint32_t stage = run ? WORKER_STAGE_COMPUTE2 : WORKER_STAGE_COMPUTE1;
    /* The output still holds poison[0] where the last clean first run of
     * this layout left the slack, and the caller put it back in the
     * elements: no fill. */
    int restored = run == 0 && bt->out_restored && bt->fresh_seq_ != 0 &&
                   bt->fresh_seq_ == w->seq && bt->fresh_spawn_ == w->spawns;
    bt->out_restored = 0;
    bt->fresh_seq_ = 0;
    if (g[R_OUT].pages && !restored)
        batch_fill(w->arena + g[R_OUT].off, g[R_OUT].pages * w->page, c->dtype, bt->poison[run]);
    ctl_request *q = &w->ctl->req;
    fill_request_case(q, c);
    q->rank[2] = expect->rank;
    memcpy(q->shape[2], expect->dims, sizeof q->shape[2]);
    memcpy(q->region, g, 3 * sizeof g[0]);
    if (call_child(w, OP_COMPUTE, stage, r)) {
        bt->have_operands_ = 0; /* the child held the arena writable */
        bt->shape_ok_ = 0;
        return 1;
    }
    ctl_reply rep = w->ctl->rep;
    sanitize_text(rep.message, sizeof rep.message);
    if (rep.seq != w->seq || rep.internal) {
        child_lost(w, 2, stage, rep.internal ? rep.message : "the worker answered another request",
                   r);
        bt->have_operands_ = bt->shape_ok_ = 0;
        return 1;
    }
    take_leaks(r, &rep);
    r->compute_status[run] = rep.status;
    if (rep.status != DVG_OK) {
        take_status(r, stage, rep.status, rep.message);
        return 1;
    }
    uint32_t side = batch_side_effects(w, bt, c, g, bt->poison[run], r->count, slack_at);
    if (side & (WORKER_SIDE_INPUT_A | WORKER_SIDE_INPUT_B))
        bt->have_operands_ = 0;
    if (run == 0 && side == 0) {
        bt->fresh_seq_ = w->seq;
        bt->fresh_spawn_ = w->spawns;
    }
    if (side & ~(uint32_t)WORKER_SIDE_PAD_NIBBLE)
        r->stage = stage;
    r->side_effects |= side;
    return 0;
}

/* 1 when c (with expect) has the header of the last checked layout. */
static int batch_same_header(const worker_batch *bt, const divcase *c, const oracle_shape *expect)
{
    return bt->variant_ == c->variant && bt->dtype_ == c->dtype &&
           !memcmp(&bt->attrs_, &c->attrs, sizeof bt->attrs_) &&
           oracle_shape_equal(&bt->a_shape_, &c->a_shape) &&
           oracle_shape_equal(&bt->b_shape_, &c->b_shape) &&
           oracle_shape_equal(&bt->out_shape_, expect);
}

int worker_batch_run(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                     worker_result *r, uint8_t **out)
{
    result_reset(r);
    *out = NULL;
    if (!oracle_dtype(c->dtype) || !expect || !shape_ok(&c->a_shape) || !shape_ok(&c->b_shape) ||
        !shape_ok(expect)) {
        set_err(w, "batch %s: unknown dtype, no output shape, or a bad shape", c->id);
        return -1;
    }
    uint64_t na = shape_count(&c->a_shape), nb = shape_count(&c->b_shape), nc = shape_count(expect);
    if (na == UINT64_MAX || nb == UINT64_MAX || nc == UINT64_MAX ||
        c->a_bytes != oracle_nbytes(c->dtype, na) || c->b_bytes != oracle_nbytes(c->dtype, nb) ||
        (c->a_bytes && !c->a) || (c->b_bytes && !c->b)) {
        set_err(w, "batch %s: operand bytes do not match the shapes", c->id);
        return -1;
    }
    uint64_t c_bytes = oracle_nbytes(c->dtype, nc);
    if (c->a_bytes > w->opt.max_bytes || c->b_bytes > w->opt.max_bytes ||
        c_bytes > w->opt.max_bytes) {
        set_err(w, "batch %s: a tensor exceeds the limit of %llu bytes", c->id,
                (unsigned long long)w->opt.max_bytes);
        return -1;
    }
    if (!worker_alive(w)) {
        int s = worker_start(w, r);
        if (s < 0)
            return -1;
        if (s > 0)
            return 0;
        result_reset(r);
    }

    /* output_shape, once per child and layout */
    if (!bt->shape_ok_ || bt->spawn_ != w->spawns || !batch_same_header(bt, c, expect)) {
        bt->shape_ok_ = 0;
        fill_request_case(&w->ctl->req, c);
        if (call_child(w, OP_SHAPE, WORKER_STAGE_SHAPE, r))
            return 0;
        ctl_reply rep = w->ctl->rep;
        sanitize_text(rep.message, sizeof rep.message);
        if (rep.seq != w->seq || rep.internal) {
            child_lost(w, 2, WORKER_STAGE_SHAPE,
                       rep.internal ? rep.message : "the worker answered another request", r);
            return 0;
        }
        take_leaks(r, &rep);
        r->shape_status = rep.status;
        r->shape_rank = rep.rank;
        if (rep.status != DVG_OK) {
            take_status(r, WORKER_STAGE_SHAPE, rep.status, rep.message);
            return 0;
        }
        r->stage = WORKER_STAGE_SHAPE;
        if (rep.rank > DVG_MAX_RANK) {
            r->outcome = WORKER_OUT_BAD_SHAPE;
            set_msg(r, "output_shape returned DVG_OK with rank %u (at most %d)", rep.rank,
                    DVG_MAX_RANK);
            return 0;
        }
        r->shape.rank = rep.rank;
        for (uint32_t k = 0; k < rep.rank; k++) {
            if (rep.shape[k] < 0) {
                r->outcome = WORKER_OUT_BAD_SHAPE;
                set_msg(r, "output_shape returned DVG_OK with dimension %u = %lld", k,
                        (long long)rep.shape[k]);
                memset(&r->shape, 0, sizeof r->shape);
                return 0;
            }
            r->shape.dims[k] = rep.shape[k];
        }
        r->has_shape = 1;
        r->outcome = WORKER_OUT_OK;
        if (!oracle_shape_equal(&r->shape, expect))
            return 0;
        bt->shape_ok_ = 1;
        bt->spawn_ = w->spawns;
        bt->variant_ = c->variant;
        bt->dtype_ = c->dtype;
        bt->attrs_ = c->attrs;
        bt->a_shape_ = c->a_shape;
        bt->b_shape_ = c->b_shape;
        bt->out_shape_ = *expect;
    } else {
        r->shape_status = DVG_OK;
        r->shape_rank = expect->rank;
        r->shape = *expect;
        r->has_shape = 1;
        r->outcome = WORKER_OUT_OK;
    }

    /* the operands, where they changed */
    ctl_region g[3];
    batch_layout(w, c, c_bytes, g);
    if (memcmp(bt->region_, g, sizeof bt->region_) != 0 || !bt->have_operands_ ||
        w->arena_size < g[R_OUT].off + g[R_OUT].pages * w->page) {
        bt->have_operands_ = 0;
        bt->fresh_seq_ = 0; /* the output moved, or may have */
        memcpy(bt->region_, g, sizeof bt->region_);
    }
    if (arena_fit(w, g[R_OUT].off + g[R_OUT].pages * w->page) != 0)
        return -1;
    if (c->a_bytes && (!bt->have_operands_ || !bt->same_a))
        memcpy(w->arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes);
    if (c->b_bytes && (!bt->have_operands_ || !bt->same_b))
        memcpy(w->arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes);
    bt->have_operands_ = 1;

    /* one compute */
    r->dtype = c->dtype;
    r->count = nc;
    r->nbytes = c_bytes;
    r->stage = WORKER_STAGE_COMPUTE1;
    int64_t slack_at = 0;
    int got = batch_compute(w, bt, c, expect, g, 0, r, &slack_at);
    if (got)
        return got < 0 ? -1 : 0;
    r->computed = 1;
    side_outcome(r, slack_at);
    *out = w->arena + g[R_OUT].off + g[R_OUT].pad;
    return 0;
}

int worker_batch_rerun(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                       worker_result *r)
{
    ctl_region g[3];
    if (!r->computed || !worker_alive(w) || !bt->shape_ok_) {
        set_err(w, "batch %s: nothing to run again", c->id);
        return -1;
    }
    batch_layout(w, c, r->nbytes, g);
    if (memcmp(bt->region_, g, sizeof bt->region_) != 0 || !w->arena) {
        set_err(w, "batch %s: not the case of the last batch", c->id);
        return -1;
    }
    if (ensure_buffers(w, r, r->nbytes, r->count) != 0)
        return -1;
    if (r->nbytes)
        memcpy(r->out1, w->arena + g[R_OUT].off + g[R_OUT].pad, (size_t)r->nbytes);
    if (!bt->have_operands_) {
        if (c->a_bytes)
            memcpy(w->arena + g[R_A].off + g[R_A].pad, c->a, (size_t)c->a_bytes);
        if (c->b_bytes)
            memcpy(w->arena + g[R_B].off + g[R_B].pad, c->b, (size_t)c->b_bytes);
        bt->have_operands_ = 1;
    }
    r->computed = 0;
    int64_t slack_at = 0;
    int got = batch_compute(w, bt, c, expect, g, 1, r, &slack_at);
    if (got)
        return got < 0 ? -1 : 0;
    if (r->nbytes)
        memcpy(r->out2, w->arena + g[R_OUT].off + g[R_OUT].pad, (size_t)r->nbytes);
    r->computed = 1;
    if (!(r->side_effects & ~(uint32_t)WORKER_SIDE_PAD_NIBBLE))
        r->stage = WORKER_STAGE_COMPUTE2;
    /* The flags, as mark_elements gives them, with these poisons. */
    uint8_t p1[16], p2[16];
    uint8_t b1[8], b2[8];
    uint32_t esize = batch_pattern(c->dtype, bt->poison[0], b1);
    batch_pattern(c->dtype, bt->poison[1], b2);
    for (uint32_t i = 0; i < 16; i++) {
        p1[i] = b1[i % esize];
        p2[i] = b2[i % esize];
    }
    uint64_t q1[2] = {oracle_load(r->dtype, p1, 0), oracle_load(r->dtype, p1, 1)};
    uint64_t q2[2] = {oracle_load(r->dtype, p2, 0), oracle_load(r->dtype, p2, 1)};
    r->n_unwritten = r->n_nondet = 0;
    r->first_unwritten = r->first_nondet = UINT64_MAX;
    /* Equal runs: nothing nondeterministic, and nothing unwritten (an
     * element would have to equal both poisons). */
    if (!memcmp(r->out1, r->out2, (size_t)r->nbytes)) {
        memset(r->flags, 0, (size_t)r->count);
        side_outcome(r, slack_at);
        return 0;
    }
    flag_elements(r, q1, q2);
    side_outcome(r, slack_at);
    return 0;
}
