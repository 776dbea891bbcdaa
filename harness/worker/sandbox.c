/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/sandbox.c: what the child takes from itself before it
 * loads a plugin.
 *
 * This file contains the child's descriptors (the channel on fd 3, the
 * operand arena on fd 4 and a read-only view of it on fd 5, stdin from
 * /dev/null, stdout away from the harness's, every other descriptor
 * closed), its resource limits (no core dumps, and the limits of
 * worker_options: address space, file size, processes, CPU time per call)
 * and the seccomp filter of worker_options.confine, in two parts: what no
 * worker process needs (exec, ptrace, another process's memory) and what
 * only a zygote needs (creating processes, signalling others), which each
 * runner adds after its fork. child.c calls them in order, between
 * PR_SET_PDEATHSIG and PR_SET_NO_NEW_PRIVS.
 */
#include "harness/worker/worker_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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
    if (o->limit_nproc) {
        rl.rlim_cur = rl.rlim_max = o->limit_nproc;
        setrlimit(RLIMIT_NPROC, &rl);
    }
}

/* ------------------------------------------------------------------------
 * Confinement (worker_options.confine)
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

/* Installs the rules `parts` (CONFINE_*) names as one filter; 1 when it is
 * in force. Needs no_new_privs. A zygote installs CONFINE_BASE before it
 * loads the plugin and each runner adds CONFINE_PROCS (whose pid checks
 * name the runner); every other worker installs CONFINE_ALL at once. */
int child_confine(int parts)
{
#if defined(CONFINE_ARCH)
    uint32_t self = (uint32_t)getpid(), group = (uint32_t)-(int32_t)getpid();
    static const struct sock_filter head[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CONFINE_ARCH, 1, 0),
        BPF_RET_ERRNO(EPERM), /* another ABI (i386 calls on x86-64) */
        BPF_LD_NR,
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1), /* x32 */
        BPF_RET_ERRNO(EPERM),
#endif
    };
    /* What no worker process needs, a zygote included. */
    static const struct sock_filter base[] = {
        BPF_IF_NR(__NR_execve, 1), BPF_RET_ERRNO(EACCES),
        BPF_IF_NR(__NR_execveat, 1), BPF_RET_ERRNO(EACCES),
        BPF_IF_NR(__NR_ptrace, 1), BPF_RET_ERRNO(EPERM),
        BPF_IF_NR(__NR_process_vm_readv, 1), BPF_RET_ERRNO(EPERM),
        BPF_IF_NR(__NR_process_vm_writev, 1), BPF_RET_ERRNO(EPERM),
#ifdef __NR_pidfd_getfd
        BPF_IF_NR(__NR_pidfd_getfd, 1), BPF_RET_ERRNO(EPERM),
#endif
    };
    /* Processes and signals: what a zygote needs to fork and reap runners. */
    const struct sock_filter procs[] = {
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
    /* Each part ends in a return or falls through to the next. */
    static const struct sock_filter allow[] = {BPF_RET_ALLOW};
    struct sock_filter f[sizeof head / sizeof head[0] + sizeof base / sizeof base[0] +
                         sizeof procs / sizeof procs[0] + 1];
    size_t n = 0;
    memcpy(f, head, sizeof head);
    n += sizeof head / sizeof head[0];
    if (parts & CONFINE_BASE) {
        memcpy(f + n, base, sizeof base);
        n += sizeof base / sizeof base[0];
    }
    if (parts & CONFINE_PROCS) {
        memcpy(f + n, procs, sizeof procs);
        n += sizeof procs / sizeof procs[0]; /* ends in returns */
    } else {
        f[n++] = allow[0];
    }
    struct sock_fprog prog = {(unsigned short)n, f};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0;
#else
    return 0;
#endif
}
