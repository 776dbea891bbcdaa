/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/zygote.c: crashes cost a fork, not a reload.
 *
 * This file contains the zygote's server. The child that loaded the
 * plugin and opened an instance (child.c) becomes a zygote when it can be
 * forked safely (it has one thread, and the kernel has pidfds): it never
 * calls the plugin again, but waits on its channel for the parent's
 * OP_FORK, forks a runner that returns into child.c's request loop with
 * the instance already open, and hands the parent the runner's end of a
 * fresh socket pair and a pidfd of it (SCM_RIGHTS); on OP_REAP it kills
 * and reaps its runner and answers with the wait status; on OP_QUIT or
 * when its channel closes it exits. The model is AFL++'s fork server: the
 * expensive start (dlopen, the descriptor, open) is paid once.
 *
 * The harness drives it from harness/worker/life.c (worker_fork_runner,
 * worker_reap_runner, worker_drop_zygote).
 *
 * What a runner shares with the zygote: the control block (MAP_SHARED,
 * the parent resets its fault, exit and mapping records before each
 * fork), the operand arena and the capture file, the shape buffer, the
 * signal handlers and their alternate stack, the limits, the first part of
 * the seccomp filter (CONFINE_BASE; each runner adds CONFINE_PROCS naming
 * itself), the CPU. What it does not: the zygote's channel (fd 3 is the
 * runner's own), the plugin's threads (none: a zygote has one thread, and
 * a plugin that left threads after open() is served without a zygote, by
 * reloading after each crash as before). Process groups: the zygote and
 * each runner lead their own; a runner dies with its zygote
 * (PR_SET_PDEATHSIG), the zygote with the harness.
 */
#include "harness/worker_program/program.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* A pidfd of pid, or -1 (no pidfd_open in this kernel or C library). */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

/* Sends the token {seq, op, arg} with up to two descriptors. 0 or -1. */
static int send_token_fds(int sock, uint32_t seq, uint32_t op, uint32_t arg, const int *fds,
                          int nfds)
{
    token t = {TOKEN_MAGIC, seq, op, arg};
    struct iovec iov = {&t, sizeof t};
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(2 * sizeof(int))];
    } u;
    struct msghdr m;
    memset(&m, 0, sizeof m);
    memset(&u, 0, sizeof u);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (nfds > 0) {
        m.msg_control = u.buf;
        m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfds * sizeof(int));
    }
    ssize_t n;
    do
        n = sendmsg(sock, &m, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof t ? 0 : -1;
}

/* ------------------------------------------------------------------------
 * The child: the zygote and the start of each runner
 * ---------------------------------------------------------------------- */

long child_count_threads(void)
{
    char buf[1024];
    if (!sandbox_read_small("/proc/self/stat", buf, sizeof buf))
        return 0;
    char *p = strrchr(buf, ')'); /* the command name may hold anything */
    if (!p)
        return 0;
    /* p is at the space before field 3 (state); num_threads is field 20. */
    p++;
    for (int field = 3; field < 20 && p; field++)
        p = strchr(p + 1, ' ');
    return p ? strtol(p + 1, NULL, 10) : 0;
}

int child_can_fork(void)
{
    if (child_count_threads() != 1)
        return 0;
    int fd = open_pidfd(getpid());
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

/* The runner's own start: its process group, death with the zygote, its
 * channel on fd 3 (over the zygote's), the process rules of the filter. */
static void runner_setup(int chan, int other, pid_t zygote, int confined, int mode)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != zygote)
        _exit(CHILD_EXIT_SETUP);
    close(other);
    if (dup2(chan, 3) != 3)
        _exit(CHILD_EXIT_SETUP);
    close(chan);
    if (confined && !child_confine(CONFINE_PROCS, (uint32_t)mode))
        _exit(CHILD_EXIT_SETUP);
}

void child_serve_forks(int sock, int confined, int mode)
{
    pid_t self = getpid(), runner = 0;
    for (;;) {
        token t;
        ssize_t n;
        do
            n = recv(sock, &t, sizeof t, 0);
        while (n < 0 && errno == EINTR);
        if (n != (ssize_t)sizeof t || t.magic != TOKEN_MAGIC)
            _exit(0); /* the parent closed its end, or is not our parent */
        if (t.op == OP_FORK) {
            int sv[2];
            pid_t pid = -1;
            if (runner > 0) { /* the parent reaps before it asks again; make sure */
                kill(runner, SIGKILL);
                waitpid(runner, NULL, 0);
                runner = 0;
            }
            if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == 0) {
                pid = fork();
                if (pid == 0) {
                    runner_setup(sv[1], sv[0], self, confined, mode);
                    return;
                }
                close(sv[1]);
            }
            int fds[2] = {pid > 0 ? sv[0] : -1, pid > 0 ? open_pidfd(pid) : -1};
            if (pid > 0) {
                setpgid(pid, pid); /* also done by the runner */
                if (fds[1] >= 0) {
                    runner = pid;
                } else {
                    kill(pid, SIGKILL);
                    waitpid(pid, NULL, 0);
                    pid = -1;
                }
            } else if (pid == -1 && fds[0] >= 0) {
                close(fds[0]);
            }
            if (pid > 0 && fds[0] >= 0 && fds[1] >= 0) {
                if (send_token_fds(sock, t.seq, OP_FORK, (uint32_t)pid, fds, 2) != 0)
                    _exit(CHILD_EXIT_CHANNEL);
            } else if (send_token_fds(sock, t.seq, OP_FORK, 0, NULL, 0) != 0) {
                _exit(CHILD_EXIT_CHANNEL);
            }
            for (int i = 0; i < 2; i++)
                if (fds[i] >= 0)
                    close(fds[i]);
        } else if (t.op == OP_REAP) {
            int st = -1;
            if (runner > 0) {
                kill(-runner, SIGKILL);
                kill(runner, SIGKILL);
                pid_t got;
                do
                    got = waitpid(runner, &st, 0);
                while (got < 0 && errno == EINTR);
                if (got != runner)
                    st = -1;
                runner = 0;
            }
            if (send_token_fds(sock, t.seq, OP_REAP, (uint32_t)st, NULL, 0) != 0)
                _exit(CHILD_EXIT_CHANNEL);
        } else {
            _exit(0); /* OP_QUIT; the instance was closed by its runner */
        }
    }
}

