/* SPDX-License-Identifier: MIT */
/*
 * harness/worker.c: the worker process and the parent's side of it.
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
#include "harness/worker.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "harness/alloc.h"
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
} ctl_block;

typedef struct token {
    uint32_t magic, seq, op, reserved;
} token;

struct worker {
    char *path;
    char *config;
    worker_options opt;
    size_t page;

    int memfd;              /* the operand arena, kept across children */
    uint8_t *arena;         /* parent's mapping of it */
    uint64_t arena_size;

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
        _exit(0); /* the parent is gone */
}

static void child_stage(ctl_block *b, uint32_t seq, uint32_t stage)
{
    __atomic_store_n(&b->cur_seq, seq, __ATOMIC_RELAXED);
    __atomic_store_n(&b->cur_stage, stage, __ATOMIC_SEQ_CST);
}

/* Moves the socket and the arena to fds 3 and 4, a read-only view of the
 * arena to 5, stdin to /dev/null, stdout away from the harness's stdout,
 * and closes every other descriptor. */
static void child_fds(int sock, int memfd, int quiet, int *rofd)
{
    int s = fcntl(sock, F_DUPFD, 10);
    int m = fcntl(memfd, F_DUPFD, 10);
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

static void child_limits(const worker_options *o)
{
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    if (o->limit_as_bytes) {
        rl.rlim_cur = rl.rlim_max = o->limit_as_bytes;
        setrlimit(RLIMIT_AS, &rl);
    }
    if (o->limit_cpu_s) {
        rl.rlim_cur = o->limit_cpu_s;
        rl.rlim_max = (rlim_t)o->limit_cpu_s + 1; /* SIGXCPU first, then SIGKILL */
        setrlimit(RLIMIT_CPU, &rl);
    }
    if (o->limit_nproc) {
        rl.rlim_cur = rl.rlim_max = o->limit_nproc;
        setrlimit(RLIMIT_NPROC, &rl);
    }
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
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(CHILD_EXIT_SETUP);
    child_signals(w->page);
    int rofd;
    child_fds(sock_in, w->memfd, w->opt.quiet, &rofd);
    const int sock = 3, memfd = 4;
    child_limits(&w->opt);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    on_exit(child_on_exit, NULL);

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
        hello_fail(h, WORKER_LOAD_DLOPEN, WORKER_STAGE_LOAD, "dlopen: %s",
                   e ? e : "unknown error");
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
            child_stage(b, q.seq, WORKER_STAGE_SHAPE);
            st = d->output_shape(iut, q.variant, &q.attrs, &ta, &tb, out_rank, out_shape);
            rep->status = st;
            rep->rank = *out_rank;
            memcpy(rep->shape, out_shape, sizeof rep->shape);
            if (st != DVG_OK)
                child_last_error(d, iut, rep->message);
            child_stage(b, q.seq, WORKER_STAGE_IDLE);
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
                child_stage(b, q.seq, q.stage);
                st = d->compute(iut, q.variant, &q.attrs, &ta, &tb, &tc);
                rep->status = st;
                if (st != DVG_OK)
                    child_last_error(d, iut, rep->message);
                child_stage(b, q.seq, WORKER_STAGE_IDLE);
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
    memset(&f, 0, sizeof f);
    memset(&x, 0, sizeof x);
    memset(maps, 0, sizeof maps);
    if (b) {
        f = b->fault;
        x = b->exitrec;
        memcpy(maps, b->map, sizeof maps);
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
    w->memfd = w->sock = w->pidfd = -1;
    w->opt = *o;
    if (!w->opt.max_bytes)
        w->opt.max_bytes = WORKER_DEFAULT_MAX_BYTES;
    w->path = dvg_strdup(plugin_path);
    w->config = dvg_strdup(config);
    w->opt.config = w->config;
    long page = sysconf(_SC_PAGESIZE);
    w->page = page > 0 ? (size_t)page : 4096;
    w->memfd = memfd_create("divergence-operands", MFD_CLOEXEC);
    if (!w->path || !w->config || w->memfd < 0) {
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

/* Makes the arena at least `need` bytes (shrinks a large idle one). */
static int arena_fit(worker *w, uint64_t need)
{
    uint64_t size = w->arena_size;
    if (need <= size && !(size > (UINT64_C(64) << 20) && need < size / 4))
        return 0;
    size = need;
    /* Small arenas double, so a run of growing cases remaps rarely. */
    uint64_t twice = w->arena_size * 2;
    if (need > w->arena_size && twice > need && twice <= (UINT64_C(64) << 20))
        size = twice;
    if (size == 0)
        return 0;
    if (w->arena)
        munmap(w->arena, (size_t)w->arena_size);
    w->arena = NULL;
    w->arena_size = 0;
    if (ftruncate(w->memfd, (off_t)size) != 0) {
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

static void mark_elements(worker_result *r)
{
    uint8_t p1[16], p2[16]; /* two elements of the widest type */
    memset(p1, (int)WORKER_POISON1, sizeof p1);
    memset(p2, (int)WORKER_POISON2, sizeof p2);
    uint64_t q1[2] = {oracle_load(r->dtype, p1, 0), oracle_load(r->dtype, p1, 1)};
    uint64_t q2[2] = {oracle_load(r->dtype, p2, 0), oracle_load(r->dtype, p2, 1)};
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
    if (call_child(w, OP_SHAPE, WORKER_STAGE_SHAPE, r))
        return 0;
    ctl_reply rep = w->ctl->rep;
    if (rep.seq != w->seq) {
        child_lost(w, 2, WORKER_STAGE_SHAPE, "the worker answered another request", r);
        return 0;
    }
    sanitize_text(rep.message, sizeof rep.message);
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
    return 0;
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
