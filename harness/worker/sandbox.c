/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/sandbox.c: what the child takes from itself before it
 * loads a plugin.
 *
 * This file contains the child's descriptors (the channel on fd 3, the
 * operand arena on fd 4 and a read-only view of it on fd 5, stdin from
 * /dev/null, stdout away from the harness's, every other descriptor
 * closed), its resource limits (no core dumps, and the limits of
 * worker_options: address space, file size, processes, CPU time per call,
 * each a hard limit) and the seccomp filter of worker_options.confine,
 * built with libseccomp, in two parts: what no worker process needs
 * (exec, ptrace, another process's memory, typing into a terminal, the
 * network where no namespace took it away) and what only a zygote needs
 * (creating processes, signalling others, leaving its process group),
 * which each runner adds after its fork. child.c calls them in order
 * around child_isolate (isolate.c), between PR_SET_PDEATHSIG and
 * PR_SET_NO_NEW_PRIVS.
 */
#include "harness/worker/worker_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

/* Moves the socket and the arena to fds 3 and 4, a read-only view of the
 * arena to 5, stdin to /dev/null, stdout away from the harness's stdout,
 * and closes every other descriptor. */
void child_fds(int sock, int memfd, int outfd, int quiet, int *rofd)
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

size_t child_read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, len - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    return (size_t)n;
}

/* Bytes of address space the child has mapped now (0 when unknown). */
static uint64_t child_vm_bytes(size_t page)
{
    char buf[64];
    if (!child_read_small("/proc/self/statm", buf, sizeof buf))
        return 0;
    return (uint64_t)strtoull(buf, NULL, 10) * page;
}

/* Moves the RLIMIT_CPU soft limit to `budget` seconds past what the child
 * has used so far: the limit of one call (limit_cpu_s). Re-armed at most
 * once a second of wall time (two syscalls less per call): a call gets its
 * budget less what the worker used in the second before it. Its two
 * function-local statics live in the child only: the parent never calls
 * it, so every child starts from them unarmed. */
void child_cpu_budget(uint32_t budget)
{
    static int64_t armed_at;
    static int armed;
    struct rusage ru;
    struct rlimit rl;
    if (!budget)
        return;
    int64_t now = worker_now_ms();
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

void child_limits(const worker_options *o, size_t page)
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
    if (o->limit_cpu_s && getrlimit(RLIMIT_CPU, &rl) == 0) {
        /* The hard limit: the worker's CPU time over its life. Only the
         * soft one moves per call, and the plugin (no CAP_SYS_RESOURCE)
         * can raise it to this at most, never raise this. */
        struct rusage ru;
        rlim_t life = WORKER_LIMIT_CPU_LIFE_S;
        if (getrusage(RUSAGE_SELF, &ru) == 0)
            life += (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec + 1;
        if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > life) {
            rl.rlim_max = life;
            if (rl.rlim_cur > life)
                rl.rlim_cur = life;
            setrlimit(RLIMIT_CPU, &rl);
        }
    }
    if (o->limit_nproc) {
        rl.rlim_cur = rl.rlim_max = o->limit_nproc;
        setrlimit(RLIMIT_NPROC, &rl);
    }
}

/* ------------------------------------------------------------------------
 * Confinement (worker_options.confine), through libseccomp
 * ---------------------------------------------------------------------- */

/* Adds `action` for syscall `nr` when its first argument (32 bits, as the
 * kernel reads a pid) is none of the n values in `allowed`: the values
 * between them, split into blocks of aligned powers of two, one masked
 * comparison each (libseccomp compares an argument once per rule). */
static int deny_arg0_except(scmp_filter_ctx ctx, uint32_t action, int nr, const uint32_t *allowed,
                            int n)
{
    uint32_t v[8];
    for (int i = 0; i < n; i++) { /* sorted copy */
        int k = i;
        while (k > 0 && v[k - 1] > allowed[i]) {
            v[k] = v[k - 1];
            k--;
        }
        v[k] = allowed[i];
    }
    uint64_t lo = 0;
    for (int i = 0; i <= n; i++) {
        uint64_t hi = i < n ? (uint64_t)v[i] : UINT64_C(1) << 32; /* [lo, hi) is denied */
        while (lo < hi) {
            uint64_t size = lo ? lo & -lo : UINT64_C(1) << 32;
            while (lo + size > hi)
                size >>= 1;
            uint32_t mask = (uint32_t)~(size - 1);
            if (seccomp_rule_add(ctx, action, nr, 1, SCMP_A0_32(SCMP_CMP_MASKED_EQ, mask,
                                                                 (uint32_t)lo)) != 0)
                return -1;
            lo += size;
        }
        if (i < n)
            lo = (uint64_t)v[i] + 1;
    }
    return 0;
}

/* A syscall denied with an errno, whatever its arguments. */
typedef struct denied_call {
    int nr;
    int err;
} denied_call;

/* Adds one rule per entry of `d` (n of them). 0 or -1. */
static int deny_calls(scmp_filter_ctx ctx, const denied_call *d, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO((uint32_t)d[i].err), d[i].nr, 0) != 0)
            return -1;
    return 0;
}

/* CONFINE_BASE: what no worker process needs, a zygote included. 0 or -1. */
static int add_base(scmp_filter_ctx ctx, uint32_t layers)
{
    const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    static const denied_call denied[] = {
        {SCMP_SYS(execve), EACCES},
        {SCMP_SYS(execveat), EACCES},
        {SCMP_SYS(ptrace), EPERM},
        {SCMP_SYS(process_vm_readv), EPERM},
        {SCMP_SYS(process_vm_writev), EPERM},
        {SCMP_SYS(pidfd_getfd), EPERM},
        /* io_uring would open and connect sockets past the rules below. */
        {SCMP_SYS(io_uring_setup), ENOSYS},
    };
    if (deny_calls(ctx, denied, sizeof denied / sizeof denied[0]))
        return -1;
    /* Typing into a terminal: TIOCSTI, TIOCLINUX. (The datum that EQ and
     * NE ignore is given as 0: clang's -Wmissing-field-initializers.) */
    if (seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
                         SCMP_A1_32(SCMP_CMP_EQ, TIOCSTI, 0)) != 0 ||
        seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
                         SCMP_A1_32(SCMP_CMP_EQ, TIOCLINUX, 0)) != 0)
        return -1;
    /* Without a network namespace: sockets of the local kind only. */
    if (!(layers & WORKER_LAYER_NET) &&
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                         SCMP_A0_32(SCMP_CMP_NE, AF_UNIX, 0)) != 0)
        return -1;
    return 0;
}

/* CONFINE_PROCS: processes and signals, what a zygote needs to fork and
 * reap runners; the pids allowed are the caller's. 0 or -1. */
static int add_procs(scmp_filter_ctx ctx)
{
    const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    uint32_t self = (uint32_t)getpid(), group = (uint32_t)-(int32_t)getpid();
    const uint32_t kill_ok[] = {0, self, group}, self_only[] = {self};
    /* Processes: fork, vfork and clone without CLONE_THREAD fail with
     * EAGAIN, clone3 with ENOSYS (the C library falls back to clone). */
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAGAIN), SCMP_SYS(fork), 0) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAGAIN), SCMP_SYS(vfork), 0) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAGAIN), SCMP_SYS(clone), 1,
                         SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)) != 0)
        return -1;
    static const denied_call denied[] = {
        {SCMP_SYS(pidfd_send_signal), EPERM},
        /* After set-up (a runner's setpgid included): no leaving the
         * worker's process group or session. */
        {SCMP_SYS(setpgid), EPERM},
        {SCMP_SYS(setsid), EPERM},
    };
    if (deny_calls(ctx, denied, sizeof denied / sizeof denied[0]))
        return -1;
    /* Signals: kill this process or its group (0, pid, -pid) only;
     * tgkill, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo this process (tkill:
     * its main thread) only. */
    if (deny_arg0_except(ctx, eperm, SCMP_SYS(kill), kill_ok, 3) != 0 ||
        deny_arg0_except(ctx, eperm, SCMP_SYS(tgkill), self_only, 1) != 0 ||
        deny_arg0_except(ctx, eperm, SCMP_SYS(tkill), self_only, 1) != 0 ||
        deny_arg0_except(ctx, eperm, SCMP_SYS(rt_sigqueueinfo), self_only, 1) != 0 ||
        deny_arg0_except(ctx, eperm, SCMP_SYS(rt_tgsigqueueinfo), self_only, 1) != 0)
        return -1;
    return 0;
}

/* Installs the rules `parts` (CONFINE_*) names as one more filter; 1 when
 * it is in force. Needs no_new_privs. A zygote installs CONFINE_BASE
 * before it loads the plugin and each runner adds CONFINE_PROCS (whose pid
 * checks name the runner); every other worker installs CONFINE_ALL at
 * once. */
int child_confine(int parts, uint32_t layers)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int ok = 0;
    if (!ctx)
        return 0;
    /* Another ABI (i386 calls on x86-64, x32): EPERM. */
    if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM)) != 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0)
        goto done;
    if ((parts & CONFINE_BASE) && add_base(ctx, layers))
        goto done;
    if ((parts & CONFINE_PROCS) && add_procs(ctx))
        goto done;
    ok = seccomp_load(ctx) == 0;
done:
    seccomp_release(ctx);
    return ok;
}
