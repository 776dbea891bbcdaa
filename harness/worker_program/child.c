/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/child.c: the worker program.
 *
 * This file contains everything the worker program (divergence-worker,
 * exec'd by harness/worker/life.c, so nothing of the harness's memory or environment
 * is in it) runs, except its sandbox (child_limits.c, isolate.c, and
 * child_confine of harness/sandbox/seccomp.c) and the state checks around
 * each call (child_state.c): child_program, which names
 * itself "worker", takes its descriptors and reads its set-up from the
 * control block; child_main, which installs the fault handlers (on an
 * alternate stack), calls the sandbox set-up, says READY and waits until
 * the parent has checked it from outside, installs the exit handler, maps
 * the guarded shape buffer, dlopens the plugin (in reduced mode its
 * libraries first), validates its descriptor, opens an instance and says
 * hello; then, as a zygote (zygote.c), forks a runner per life of the
 * worker (or, when it cannot be forked, goes on itself), which serves the
 * parent's requests (output_shape, compute into guarded mappings of the
 * operands, quit) until the parent quits it or goes.
 *
 * The handlers reach the control block through child_ctl, the only
 * writable file-scope variable of the worker: set by child_main before
 * any handler is installed, read by child_on_fault and child_on_exit
 * only. They record into the block and _exit, so neither the plugin nor
 * the harness's atexit handlers run after them.
 */
#include "harness/worker_program/program.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "harness/base/affinity.h"

static ctl_block *child_ctl; /* the child's view, for its handlers */

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
    b->fault.tid = (int32_t)syscall(SYS_gettid);
    prctl(PR_GET_NAME, b->fault.comm, 0, 0, 0);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    b->fault.ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
    if (wire_send_token(sock, seq, op) != 0)
        _exit(CHILD_EXIT_CHANNEL); /* the parent is gone, or the plugin broke fd 3 */
}

/* The hello: its token, then the hello itself as one message. */
static void child_send_hello(int sock, const ctl_hello *h)
{
    child_send(sock, 0, OP_HELLO);
    ssize_t n;
    do
        n = send(sock, h, sizeof *h, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof *h)
        _exit(CHILD_EXIT_CHANNEL);
}

static void child_stage(ctl_block *b, uint32_t seq, uint32_t stage)
{
    __atomic_store_n(&b->cur_seq, seq, __ATOMIC_RELAXED);
    __atomic_store_n(&b->cur_stage, stage, __ATOMIC_SEQ_CST);
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
    for (size_t i = 0; i < WIRE_FAULT_SIGNALS; i++)
        sigaction(wire_fault_signals[i], &sa, NULL);
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

/* The fields of ABI 1.1 (d->size is above 1.0's): capabilities, ISA
 * levels, open_with; fills the hello or fails it. 0 when valid. */
static int child_check_v1_1(const dvg_descriptor *d, ctl_hello *h)
{
    if (d->size < DESCRIPTOR_V1_1_SIZE) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor size %u is between ABI 1.0's %u and 1.1's %u bytes", d->size,
                   (unsigned)DESCRIPTOR_V1_0_SIZE, (unsigned)DESCRIPTOR_V1_1_SIZE);
        return -1;
    }
    const uint64_t known = DVG_CAP_INSTANCES_CONCURRENT | DVG_CAP_INSTANCE_CONCURRENT |
                           DVG_CAP_IN_PLACE_A | DVG_CAP_IN_PLACE_B | DVG_CAP_THREADS;
    if ((d->capabilities & ~known) && d->abi_minor <= DVG_ABI_MINOR) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor capabilities has unknown bits 0x%llx",
                   (unsigned long long)(d->capabilities & ~known));
        return -1;
    }
    if (d->n_isa_levels > WORKER_MAX_ISA_LEVELS || (d->n_isa_levels && !d->isa_levels)) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "descriptor n_isa_levels %u %s", d->n_isa_levels,
                   d->n_isa_levels > WORKER_MAX_ISA_LEVELS ? "exceeds the maximum of 16"
                                                           : "with isa_levels NULL");
        return -1;
    }
    for (uint32_t i = 0; i < d->n_isa_levels; i++) {
        const dvg_isa_level *l = &d->isa_levels[i];
        const char *bad = NULL;
        if (l->size < sizeof *l)
            bad = "a size below ABI 1.1's";
        else if (!l->name || !l->name[0] ||
                 child_copy_string(h->isa_name[i], sizeof h->isa_name[i], l->name) != 0)
            bad = "a name that is NULL, empty or longer than 31 bytes";
        else if (!l->x86_level ||
                 child_copy_string(h->isa_x86[i], sizeof h->isa_x86[i], l->x86_level) != 0 ||
                 (h->isa_x86[i][0] && !(h->isa_x86[i][0] == 'v' && h->isa_x86[i][1] >= '1' &&
                                        h->isa_x86[i][1] <= '4' && !h->isa_x86[i][2])))
            bad = "an x86_level that is not \"v1\"..\"v4\" or \"\"";
        for (uint32_t k = 0; !bad && k < i; k++)
            if (!strcmp(h->isa_name[k], h->isa_name[i]))
                bad = "the name of an earlier level";
        if (bad) {
            hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
                       "descriptor isa_levels[%u] has %s", i, bad);
            return -1;
        }
    }
    h->capabilities = d->capabilities;
    h->n_isa_levels = d->n_isa_levels;
    h->open_with = d->open_with != NULL;
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
    char why[WORKER_MESSAGE_MAX - 32];
    if (wire_check_claims(d->claims, d->n_claims, why, sizeof why) != 0) {
        hello_fail(h, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD, "descriptor %s", why);
        return -1;
    }
    memcpy(h->claims, d->claims, d->n_claims * sizeof d->claims[0]);
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
    return d->size > DESCRIPTOR_V1_0_SIZE ? child_check_v1_1(d, h) : 0;
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

/* The string at offset `at` of the set-up's strings (strings, size n),
 * or "" when it is out of bounds. */
static const char *setup_string(const char *strings, uint64_t n, uint32_t at)
{
    return at < n ? strings + at : "";
}

/* The NUL-separated list of `count` strings at `at` into a new array
 * (malloc'd: the worker program's own memory), or NULL. */
static const char **setup_list(const char *strings, uint64_t n, uint32_t at, uint32_t count)
{
    const char **list = calloc((size_t)count + 1, sizeof *list);
    for (uint32_t i = 0; list && i < count && at < n; i++) {
        list[i] = strings + at;
        at += (uint32_t)strlen(strings + at) + 1;
    }
    return list;
}

void child_program(int argc, char **argv)
{
    static child_setup cs;
    /* Nothing names the harness: no "divergence" in its name. */
    prctl(PR_SET_NAME, "worker", 0, 0, 0);
    /* Under the emulator, the descriptors are as the worker program left
     * them before its exec; anything above them is the emulator's own. */
    cs.emulated = argc == 3 && !strcmp(argv[1], CHILD_EMULATED);
    if (argc != 1 && !cs.emulated)
        _exit(CHILD_EXIT_SETUP);
    if (cs.emulated)
        cs.inner = (uint32_t)strtoul(argv[2], NULL, 10) & WORKER_LAYER_LANDLOCK;
    else
        child_fds();
    struct stat st;
    if (fstat(WORKER_FD_CTL, &st) != 0 || (size_t)st.st_size < sizeof(ctl_block))
        _exit(CHILD_EXIT_SETUP);
    size_t size = (size_t)st.st_size;
    ctl_block *b = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, WORKER_FD_CTL, 0);
    if (b == MAP_FAILED)
        _exit(CHILD_EXIT_SETUP);
    /* A private copy of the set-up: the block is shared with the plugin
     * from the moment it is loaded. */
    ctl_setup su = b->setup;
    if (su.magic != SETUP_MAGIC || su.strings_off > size || su.strings_size > size - su.strings_off)
        _exit(CHILD_EXIT_SETUP);
    char *strings = malloc(su.strings_size + 1);
    if (!strings)
        _exit(CHILD_EXIT_SETUP);
    memcpy(strings, (const char *)b + su.strings_off, su.strings_size);
    strings[su.strings_size] = '\0';
    worker_options_default(&cs.opt);
    cs.opt.timeout_ms = su.timeout_ms ? su.timeout_ms : WORKER_DEFAULT_TIMEOUT_MS;
    cs.opt.quiet = su.quiet;
    cs.opt.capture_output = su.capture_output;
    cs.opt.confine = su.confine;
    cs.opt.no_zygote = su.no_zygote;
    cs.opt.limit_as_bytes = su.limit_as_bytes;
    cs.opt.limit_cpu_s = su.limit_cpu_s;
    cs.opt.limit_nproc = su.limit_nproc;
    cs.opt.limit_fsize_bytes = su.limit_fsize_bytes;
    cs.opt.threads = su.threads;
    memcpy(cs.opt.isa, su.isa, sizeof cs.opt.isa);
    cs.opt.isa[sizeof cs.opt.isa - 1] = '\0';
    cs.page = su.page ? su.page : 4096;
    cs.mode = (int)su.mode;
    cs.keeper = su.keeper;
    cs.plugin = setup_string(strings, su.strings_size, su.plugin_at);
    cs.config = setup_string(strings, su.strings_size, su.config_at);
    cs.preload = setup_list(strings, su.strings_size, su.preload_at, su.n_preload);
    cs.n_preload = su.n_preload;
    cs.read = setup_list(strings, su.strings_size, su.read_at, su.n_read);
    cs.n_read = su.n_read;
    cs.grant_flags = su.grant_flags;
    cs.exec = setup_list(strings, su.strings_size, su.exec_at, su.n_exec);
    cs.n_exec = su.n_exec;
    cs.dev = setup_list(strings, su.strings_size, su.dev_at, su.n_dev);
    cs.n_dev = su.n_dev;
    cs.opt.config = cs.config;
    cs.emulator = setup_string(strings, su.strings_size, su.emulator_at);
    cs.program = setup_string(strings, su.strings_size, su.program_at);
    cs.emu_cpu = setup_string(strings, su.strings_size, su.emu_cpu_at);
    if (!cs.preload || !cs.read || !cs.exec || !cs.dev)
        _exit(CHILD_EXIT_SETUP);
    /* The block's descriptor crosses the emulator's exec (no plugin code
     * has run yet: the set-up in it is still the harness's). */
    if (cs.emulated || !cs.emulator[0])
        close(WORKER_FD_CTL);
    child_main(&cs, b);
}

/* The worker program's own layers, in order: its session, the fault
 * handlers, then (natively) the emulator's descriptor, the isolation
 * (child_isolate: the keeper, Landlock), the limits and the filter
 * (child_confine: `parts`); where there is an emulator, its exec on this
 * program, which does not return. The layer bits READY reports. Exits
 * (CHILD_EXIT_SETUP) when a layer cannot be put in place. */
static uint32_t child_enter(const child_setup *cs, int zygote, int open_stage)
{
    const worker_options *o = &cs->opt;
    /* Its own session and process group (bubblewrap, or the launch, made
     * it one already; the keeper's child makes its own). Under the
     * emulator the process is the same one: nothing to make. */
    if (!cs->emulated)
        setsid();
    child_signals(cs->page);
    uint32_t inner = cs->inner;
    if (cs->emulated)
        return inner;
    /* The emulator's descriptor, before Landlock (which then grants
     * execute on that one file). */
    if (cs->emulator[0]) {
        int fd = open(cs->emulator, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (fd != WORKER_FD_EMULATOR &&
                       (dup3(fd, WORKER_FD_EMULATOR, O_CLOEXEC) != WORKER_FD_EMULATOR ||
                        close(fd) != 0)))
            _exit(CHILD_EXIT_SETUP);
    }
    inner = child_isolate(cs); /* the keeper stays inside; Landlock */
    /* Its /proc/self as any process's. */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    child_limits(o, cs->page, cs->grant_flags);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    /* A zygote keeps fork and kill; each runner takes them (zygote.c).
     * An emulated worker has none (worker_new): it takes both at once.
     * A grant's exec during open(): neither exec nor processes refused
     * until open() returns (child_confine_after_open); never with an
     * emulator (worker_new refuses the pair). */
    int parts = (open_stage ? CONFINE_OPEN : zygote ? CONFINE_BASE : CONFINE_ALL) |
                (cs->emulator[0] ? CONFINE_EMULATOR : 0);
    if (o->confine && !child_confine(parts, (uint32_t)cs->mode))
        _exit(CHILD_EXIT_SETUP);
    /* Every layer is in place: here, and only here, the emulator is
     * exec'd on the worker program (worker_internal.h, "the one place
     * an emulator goes"). Everything in place survives the exec; the
     * emulated worker program skips what it cannot redo (Landlock,
     * seccomp_load, new namespaces all fail under QEMU) and goes on
     * to READY with the Landlock bit handed to it. */
    if (cs->emulator[0]) {
        static char bits[16], model[64], program[PATH_MAX];
        snprintf(bits, sizeof bits, "%u", inner);
        snprintf(model, sizeof model, "%s", cs->emu_cpu);
        snprintf(program, sizeof program, "%s", cs->program);
        char *argv[] = {"emulator", "-cpu", model, program, CHILD_EMULATED, bits, NULL};
        extern char **environ;
        syscall(SYS_execveat, WORKER_FD_EMULATOR, "", argv, environ, AT_EMPTY_PATH);
        _exit(CHILD_EXIT_SETUP);
    }
    return inner;
}

/* Set-up done: READY with the layer bits; the parent checks this process
 * from outside, and only then says GO (from here on the time is the
 * plugin's). Exits when it is refused or the parent is gone. */
static void child_await_go(int sock, uint32_t inner)
{
    token ready = {TOKEN_MAGIC, 0, OP_READY, inner};
    if (send(sock, &ready, sizeof ready, MSG_NOSIGNAL) != (ssize_t)sizeof ready)
        _exit(CHILD_EXIT_CHANNEL);
    token t;
    ssize_t n;
    do
        n = recv(sock, &t, sizeof t, 0);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof t || t.magic != TOKEN_MAGIC || t.op != OP_GO)
        _exit(0); /* refused, or the parent is gone */
}

/* Sends the hello h (its failure filled in) and exits: the plugin did not
 * load. */
__attribute__((noreturn)) static void child_load_failed(int sock, const ctl_hello *h)
{
    child_send_hello(sock, h);
    _exit(0);
}

/* Load, look up, validate, open: the plugin's descriptor and *iut, an
 * open instance. Sends the hello that says why and exits when a step
 * fails. */
static const dvg_descriptor *child_load(const child_setup *cs, ctl_block *b, ctl_hello *h,
                                        int sock, dvg_iut **iut)
{
    child_stage(b, 0, WORKER_STAGE_LOAD);
    char why[WORKER_MESSAGE_MAX - 16];
    if (cs->n_preload && child_preload(cs, why, sizeof why) != 0) {
        hello_fail(h, WORKER_LOAD_DLOPEN, WORKER_STAGE_LOAD, "dlopen: %s", why);
        child_load_failed(sock, h);
    }
    dlerror();
    void *handle = dlopen(cs->plugin, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *e = dlerror();
        char hint[160];
        hello_fail(h, WORKER_LOAD_DLOPEN, WORKER_STAGE_LOAD, "dlopen: %s%s",
                   e ? e : "unknown error", elf_hint(cs->plugin, hint, sizeof hint));
        child_load_failed(sock, h);
    }
    dlerror();
    void *sym = dlsym(handle, DVG_ENTRY_SYMBOL);
    if (!sym) {
        hello_fail(h, WORKER_LOAD_NO_ENTRY, WORKER_STAGE_LOAD, "missing entry symbol %s",
                   DVG_ENTRY_SYMBOL);
        child_load_failed(sock, h);
    }
    dvg_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    const dvg_descriptor *d = entry();
    if (!d) {
        hello_fail(h, WORKER_LOAD_NULL_DESCRIPTOR, WORKER_STAGE_LOAD,
                   "%s() returned NULL", DVG_ENTRY_SYMBOL);
        child_load_failed(sock, h);
    }
    if (child_check_descriptor(d, h) != 0)
        child_load_failed(sock, h);
    child_stage(b, 0, WORKER_STAGE_OPEN);
    *iut = NULL;
    int32_t st = child_open(d, cs, iut);
    child_stage(b, 0, WORKER_STAGE_IDLE);
    if (st != DVG_OK) {
        hello_fail(h, WORKER_LOAD_OPEN, WORKER_STAGE_OPEN, "open(\"%.200s\") returned %d",
                   cs->config, (int)st);
        child_load_failed(sock, h);
    }
    return d;
}

/* What serving a request needs: the plugin, its instance, the state
 * every call starts from, the shape page, the kept operand mappings. */
typedef struct child_server {
    const child_setup *cs;
    ctl_block *b;
    const dvg_descriptor *d;
    dvg_iut *iut;
    call_base cb;
    uint32_t *out_rank;  /* output_shape's page: the rank at its start */
    int64_t *out_shape;  /* ... the shape flush against its guard */
    ctl_map m[3];        /* kept while the layout stays the same */
    ctl_region held[3];
} child_server;

/* OP_SHAPE: output_shape into the guarded page. */
static void serve_shape(child_server *sv, const ctl_request *q, ctl_reply *rep)
{
    dvg_tensor ta, tb;
    child_tensor(q, 0, NULL, q->region[R_A].nbytes, &ta);
    child_tensor(q, 1, NULL, q->region[R_B].nbytes, &tb);
    *sv->out_rank = UINT32_MAX;
    for (int k = 0; k < DVG_MAX_RANK; k++)
        sv->out_shape[k] = INT64_MIN;
    child_begin_call(&sv->cb);
    child_stage(sv->b, q->seq, WORKER_STAGE_SHAPE);
    int32_t st = sv->d->output_shape(sv->iut, q->variant, &q->attrs, &ta, &tb, sv->out_rank,
                                     sv->out_shape);
    rep->status = st;
    rep->rank = *sv->out_rank;
    memcpy(rep->shape, sv->out_shape, sizeof rep->shape);
    if (st != DVG_OK)
        child_last_error(sv->d, sv->iut, rep->message);
    child_stage(sv->b, q->seq, WORKER_STAGE_IDLE);
    child_end_call(&sv->cb, q, rep);
}

/* OP_COMPUTE and OP_PROBE: the operands mapped (A and B read-only), the
 * call, the late-write watch armed after a compute. */
static void serve_compute(child_server *sv, const ctl_request *q, ctl_reply *rep)
{
    static const int prot[3] = {PROT_READ, PROT_READ, PROT_READ | PROT_WRITE};
    const int fds[3] = {WORKER_FD_ARENA_RO, WORKER_FD_ARENA_RO, WORKER_FD_ARENA};
    size_t page = sv->cs->page;
    ctl_map *m = sv->m;
    child_late_release(sv->b);
    int mapped = 1;
    for (int i = 0; i < 3 && mapped; i++)
        mapped = child_fit(fds[i], &q->region[i], &sv->held[i], prot[i], page, &m[i]) == 0;
    if (!mapped) {
        for (int i = 0; i < 3; i++)
            child_unmap(&m[i]);
        memset(sv->b->map, 0, 3 * sizeof sv->b->map[0]);
        rep->internal = 1;
        snprintf(rep->message, sizeof rep->message, "the worker cannot map the operands: %s",
                 strerror(errno));
        return;
    }
    for (int i = 0; i < 3; i++)
        sv->b->map[i] = m[i];
    dvg_tensor ta, tb, tc;
    child_tensor(q, 0, (void *)(uintptr_t)m[R_A].data, q->region[R_A].nbytes, &ta);
    child_tensor(q, 1, (void *)(uintptr_t)m[R_B].data, q->region[R_B].nbytes, &tb);
    child_tensor(q, 2, (void *)(uintptr_t)m[R_OUT].data, q->region[R_OUT].nbytes, &tc);
    child_begin_call(&sv->cb);
    child_stage(sv->b, q->seq, q->stage);
    if (q->op == OP_PROBE) {
        child_probe(sv->d, sv->iut, sv->cs, q, &ta, &tb, &tc, page, rep);
    } else {
        int32_t st = sv->d->compute(sv->iut, q->variant, &q->attrs, &ta, &tb, &tc);
        rep->status = st;
        if (st != DVG_OK)
            child_last_error(sv->d, sv->iut, rep->message);
    }
    child_stage(sv->b, q->seq, WORKER_STAGE_IDLE);
    child_end_call(&sv->cb, q, rep);
    if (q->op == OP_COMPUTE)
        child_late_arm(sv->b, &m[R_OUT], q->seq, page);
}

/* Serves requests until QUIT or the parent's end; never returns. */
__attribute__((noreturn)) static void child_serve(child_server *sv, int sock)
{
    ctl_block *b = sv->b;
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
            sv->d->close(sv->iut);
            _exit(0);
        } else if (q.op == OP_SHAPE) {
            serve_shape(sv, &q, rep);
        } else if (q.op == OP_COMPUTE || q.op == OP_PROBE) {
            serve_compute(sv, &q, rep);
        } else {
            rep->internal = 1;
            snprintf(rep->message, sizeof rep->message, "the worker got an unknown request %u",
                     q.op);
        }
        child_send(sock, q.seq, q.op);
    }
}

void child_main(const child_setup *cs, ctl_block *b)
{
    const worker_options *o = &cs->opt;
    child_ctl = b;
    {
        struct rlimit rl;
        volatile char here = 0;
        b->stack_top = (uint64_t)(uintptr_t)&here;
        b->stack_limit = getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                             ? (uint64_t)rl.rlim_cur
                             : 0;
    }
    const int sock = WORKER_FD_CHANNEL;
    int zygote = !o->no_zygote;
    int open_stage = (cs->grant_flags & GRANT_EXEC_IN_OPEN) != 0;
    int confined = o->confine != 0;
    child_await_go(sock, child_enter(cs, zygote, open_stage));
    on_exit(child_on_exit, NULL);
    fesetenv(FE_DFL_ENV);
    fp_state fp_default;
    child_take_fp(&fp_default);

    /* output_shape writes into a page that ends flush against a guard. */
    size_t page = cs->page;
    uint8_t *shape_page = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    /* The hello is the worker's own memory, sent whole after its token. */
    static ctl_hello hello;
    ctl_hello *h = &hello;
    if (shape_page == MAP_FAILED || mprotect(shape_page + page, page, PROT_NONE) != 0) {
        hello_fail(h, WORKER_LOAD_SETUP, WORKER_STAGE_LOAD, "cannot map the shape buffer: %s",
                   strerror(errno));
        child_load_failed(sock, h);
    }
    child_server sv;
    memset(&sv, 0, sizeof sv);
    sv.cs = cs;
    sv.b = b;
    sv.out_shape = (int64_t *)(shape_page + page) - DVG_MAX_RANK;
    sv.out_rank = (uint32_t *)shape_page;
    b->map[R_SHAPE].lo = (uint64_t)(uintptr_t)shape_page;
    b->map[R_SHAPE].page = b->map[R_SHAPE].lo;
    b->map[R_SHAPE].data = (uint64_t)(uintptr_t)sv.out_shape;
    b->map[R_SHAPE].end = b->map[R_SHAPE].lo + page;
    b->map[R_SHAPE].hi = b->map[R_SHAPE].lo + 2 * page;

    sv.d = child_load(cs, b, h, sock, &sv.iut);
    /* The grant's open stage is over: exec refused again (and processes,
     * without a zygote) before any compute. */
    if (o->confine && open_stage &&
        !child_confine(CONFINE_EXEC | (zygote ? 0 : CONFINE_PROCS), (uint32_t)cs->mode))
        _exit(CHILD_EXIT_SETUP);
    /* What every call starts from: the state loading and open() left. */
    child_take_fp(&sv.cb.fp);
    child_take_signals(&sv.cb.sig);
    sv.cb.cpu_s = o->limit_cpu_s;
    h->fp_at_open = child_diff_fp(&fp_default, &sv.cb.fp);
    /* The zygote/runner split: a plugin that left threads running cannot
     * be forked (they would be missing in the runner); this process then
     * serves the calls itself, with the whole filter. */
    if (zygote && !child_can_fork()) {
        zygote = 0;
        if (confined && !child_confine(CONFINE_PROCS, (uint32_t)cs->mode))
            _exit(CHILD_EXIT_SETUP);
    }
    h->confined = (uint32_t)confined;
    h->zygote = (uint32_t)zygote;
    h->load_error = WORKER_LOAD_NONE;
    child_send_hello(sock, h);
    if (zygote)
        child_serve_forks(sock, confined, cs->mode); /* returns in each runner */
    child_serve(&sv, sock);
}
