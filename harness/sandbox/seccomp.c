/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/seccomp.c: the seccomp filters.
 *
 * This file contains the two seccomp filters, built with libseccomp. The
 * outer one (sandbox_outer_filter) is what no worker process ever needs:
 * new namespaces (unshare, setns, clone or clone3 with a CLONE_NEW* flag),
 * keys (keyctl, add_key, request_key), the kernel's other attack surfaces
 * (bpf, perf_event_open, userfaultfd, io_uring, mounts of every kind,
 * ptrace and process_vm_*, module and kexec loading, reboot, swap, clocks,
 * quotas, open_by_handle_at...), typing into a terminal, and in reduced
 * mode every socket. The harness
 * exports it as a BPF program (seccomp_export_bpf) that bubblewrap
 * installs just before it execs the worker (--seccomp), or that the
 * launch installs itself before the exec where there is no bubblewrap:
 * in force before any code of the worker program runs, and still in force
 * after any later exec (an emulated worker's, child_main). The worker's own filter
 * (child_confine, worker_options.confine) comes on top inside the worker,
 * in two parts: what no worker process needs once it runs (exec; sockets
 * but AF_UNIX with --sandbox off) and what only a zygote needs
 * (creating processes, signalling others, leaving its process group),
 * which each runner adds after its fork.
 */
#include "harness/sandbox/sandbox_internal.h"

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

/* CONFINE_BASE: what no worker process needs once it runs, a zygote
 * included: exec (unless `exec` is 0: CONFINE_OPEN; with `emulator`,
 * CONFINE_EMULATOR, execveat of SANDBOX_FD_EMULATOR alone stays), and with
 * --sandbox off every socket but AF_UNIX (in reduced mode the outer filter
 * refuses them all). 0 or -1. */
static const denied_call exec_denied[] = {
    {SCMP_SYS(execve), EACCES},
    {SCMP_SYS(execveat), EACCES},
};

static int add_base(scmp_filter_ctx ctx, uint32_t mode, int exec, int emulator)
{
    if (exec && deny_calls(ctx, exec_denied, emulator ? 1 : 2))
        return -1;
    /* CONFINE_EMULATOR: execveat only of SANDBOX_FD_EMULATOR, with
     * AT_EMPTY_PATH and no other flag (each rule refuses the rest). */
    if (exec && emulator &&
        (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(execveat), 1,
                          SCMP_A0_32(SCMP_CMP_NE, SANDBOX_FD_EMULATOR, 0)) != 0 ||
         seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(execveat), 1,
                          SCMP_A4_32(SCMP_CMP_NE, AT_EMPTY_PATH, 0)) != 0))
        return -1;
    if (mode == LAUNCH_OFF &&
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
int child_confine(int parts, uint32_t mode)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int ok = 0;
    if (!ctx)
        return 0;
    /* Another ABI (i386 calls on x86-64, x32): EPERM. Every thread of the
     * process at once (TSYNC): a filter added after plugin code ran (the
     * rules after open()) binds the threads open() started too, not the
     * calling thread alone; where a thread's filters have diverged the
     * load fails, and so does the worker's set-up. */
    if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM)) != 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1) != 0)
        goto done;
    if ((parts & (CONFINE_BASE | CONFINE_OPEN)) &&
        add_base(ctx, mode, !(parts & CONFINE_OPEN), (parts & CONFINE_EMULATOR) != 0))
        goto done;
    if ((parts & CONFINE_EXEC) &&
        deny_calls(ctx, exec_denied, sizeof exec_denied / sizeof exec_denied[0]))
        goto done;
    if ((parts & CONFINE_PROCS) && add_procs(ctx))
        goto done;
    ok = seccomp_load(ctx) == 0;
done:
    seccomp_release(ctx);
    return ok;
}

/* ------------------------------------------------------------------------
 * The outer filter (the harness's side)
 * ---------------------------------------------------------------------- */

/* The CLONE_NEW* flags, each refused in clone's flags (libseccomp compares
 * one masked value per rule). */
static const uint64_t clone_new[] = {
    CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
    CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET, 0x80 /* CLONE_NEWTIME */,
};

/* The calls a division kernel never makes, each with the errno it gets. */
static const denied_call outer_denied[] = {
    /* namespaces and keys */
    {SCMP_SYS(unshare), EPERM},
    {SCMP_SYS(setns), EPERM},
    {SCMP_SYS(clone3), ENOSYS}, /* its flags are out of reach: the C library falls back to clone */
    {SCMP_SYS(keyctl), EPERM},
    {SCMP_SYS(add_key), EPERM},
    {SCMP_SYS(request_key), EPERM},
    /* other processes */
    {SCMP_SYS(ptrace), EPERM},
    {SCMP_SYS(process_vm_readv), EPERM},
    {SCMP_SYS(process_vm_writev), EPERM},
    {SCMP_SYS(pidfd_getfd), EPERM},
    {SCMP_SYS(kcmp), EPERM},
    /* kernel attack surface */
    {SCMP_SYS(bpf), EPERM},
    {SCMP_SYS(perf_event_open), EPERM},
    {SCMP_SYS(userfaultfd), EPERM},
    {SCMP_SYS(io_uring_setup), ENOSYS},
    {SCMP_SYS(io_uring_enter), ENOSYS},
    {SCMP_SYS(io_uring_register), ENOSYS},
    {SCMP_SYS(fanotify_init), EPERM},
    {SCMP_SYS(name_to_handle_at), EPERM},
    {SCMP_SYS(open_by_handle_at), EPERM},
    {SCMP_SYS(lookup_dcookie), EPERM},
    {SCMP_SYS(syslog), EPERM},
    {SCMP_SYS(uselib), EPERM},
    /* mounts */
    {SCMP_SYS(mount), EPERM},
    {SCMP_SYS(umount2), EPERM},
    {SCMP_SYS(pivot_root), EPERM},
    {SCMP_SYS(chroot), EPERM},
    {SCMP_SYS(move_mount), EPERM},
    {SCMP_SYS(open_tree), EPERM},
    {SCMP_SYS(fsopen), EPERM},
    {SCMP_SYS(fsconfig), EPERM},
    {SCMP_SYS(fsmount), EPERM},
    {SCMP_SYS(fspick), EPERM},
    {SCMP_SYS(mount_setattr), EPERM},
    /* the machine */
    {SCMP_SYS(kexec_load), EPERM},
    {SCMP_SYS(kexec_file_load), EPERM},
    {SCMP_SYS(init_module), EPERM},
    {SCMP_SYS(finit_module), EPERM},
    {SCMP_SYS(delete_module), EPERM},
    {SCMP_SYS(reboot), EPERM},
    {SCMP_SYS(swapon), EPERM},
    {SCMP_SYS(swapoff), EPERM},
    {SCMP_SYS(acct), EPERM},
    {SCMP_SYS(quotactl), EPERM},
    {SCMP_SYS(settimeofday), EPERM},
    {SCMP_SYS(clock_settime), EPERM},
    {SCMP_SYS(clock_adjtime), EPERM},
    {SCMP_SYS(adjtimex), EPERM},
    {SCMP_SYS(sethostname), EPERM},
    {SCMP_SYS(setdomainname), EPERM},
    {SCMP_SYS(vhangup), EPERM},
#ifdef __x86_64__
    {SCMP_SYS(iopl), EPERM},
    {SCMP_SYS(ioperm), EPERM},
    {SCMP_SYS(modify_ldt), EPERM},
#endif
};

/* Reduced mode's IPC: System V message queues, semaphores and shared
 * memory, and POSIX message queues (refused before the kernel makes
 * anything: an mq_open that a later check refuses has made its queue). */
static const denied_call reduced_ipc_denied[] = {
    {SCMP_SYS(shmget), EACCES},
    {SCMP_SYS(shmat), EACCES},
    {SCMP_SYS(shmctl), EACCES},
    {SCMP_SYS(msgget), EACCES},
    {SCMP_SYS(msgsnd), EACCES},
    {SCMP_SYS(msgrcv), EACCES},
    {SCMP_SYS(msgctl), EACCES},
    {SCMP_SYS(semget), EACCES},
    {SCMP_SYS(semop), EACCES},
    {SCMP_SYS(semtimedop), EACCES},
    {SCMP_SYS(semctl), EACCES},
    {SCMP_SYS(mq_open), EACCES},
    {SCMP_SYS(mq_unlink), EACCES},
    {SCMP_SYS(mq_timedsend), EACCES},
    {SCMP_SYS(mq_timedreceive), EACCES},
    {SCMP_SYS(mq_notify), EACCES},
    {SCMP_SYS(mq_getsetattr), EACCES},
};

int sandbox_outer_filter(int fd, int mode)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int rc = -1;
    if (!ctx)
        return -1;
    if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM)) != 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0 ||
        deny_calls(ctx, outer_denied, sizeof outer_denied / sizeof outer_denied[0]))
        goto done;
    for (size_t i = 0; i < sizeof clone_new / sizeof clone_new[0]; i++)
        if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                             SCMP_A0_64(SCMP_CMP_MASKED_EQ, clone_new[i], clone_new[i])) != 0)
            goto done;
    /* Reduced mode: no network namespace, and the host's UNIX sockets in
     * sight (an agent's, a daemon's): no socket at all (socketpair's
     * anonymous AF_UNIX pairs stay: the zygote hands runners theirs); no IPC
     * namespace: System V and POSIX IPC objects would be the host's and
     * outlive the worker, so none is made or opened. */
    if (mode == LAUNCH_REDUCED &&
        (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0) != 0 ||
         deny_calls(ctx, reduced_ipc_denied,
                    sizeof reduced_ipc_denied / sizeof reduced_ipc_denied[0])))
        goto done;
    /* Every mode: socket families by allowlist, AF_UNIX alone (a grant's
     * runtime talks to itself so). A network namespace holds the
     * internet families, not AF_VSOCK (host-wide ports, reachable from
     * the hypervisor), AF_NETLINK's kernel interfaces, AF_PACKET, ...;
     * a kernel needs none of them. */
    if ((mode != LAUNCH_REDUCED &&
         seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socket), 1,
                          SCMP_A0_32(SCMP_CMP_NE, AF_UNIX, 0)) != 0) ||
        (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EAFNOSUPPORT), SCMP_SYS(socketpair), 1,
                          SCMP_A0_32(SCMP_CMP_NE, AF_UNIX, 0)) != 0))
        goto done;
    /* Typing into a terminal: TIOCSTI, TIOCLINUX. (The datum that EQ
     * ignores is given as 0: clang's -Wmissing-field-initializers.) */
    if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                         SCMP_A1_32(SCMP_CMP_EQ, TIOCSTI, 0)) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                         SCMP_A1_32(SCMP_CMP_EQ, TIOCLINUX, 0)) != 0)
        goto done;
    rc = seccomp_export_bpf(ctx, fd) == 0 ? 0 : -1;
done:
    seccomp_release(ctx);
    return rc;
}
