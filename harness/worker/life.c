/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/life.c: a life of the worker program, the harness's
 * side: its start, its zygote's runners, its end.
 *
 * Once per worker (launch_prepare) this file hands the worker's options
 * to the sandbox as one sandbox_spec (harness/sandbox/sandbox.h: the
 * mode, the view, the environment, the cgroup, the outer filter) and
 * turns its refusals into load errors. For each start (launch_spawn) it
 * places the worker's descriptors, has the sandbox write bubblewrap's
 * arguments into a descriptor (--args: they are no tell on anyone's
 * command line), forks, and in the child, with nothing but system calls
 * (the harness may have threads): its own session, the cgroup, the
 * sandbox's unprivileged uid and gid when the caller is root, a fresh
 * session keyring (the caller's keys out of reach), death with the
 * caller, no core files, then the exec - of bubblewrap with an empty
 * environment, or of the worker program with no_new_privs and the outer
 * filter already installed. Whatever comes after the worker program (an
 * emulator it execs) finds every layer in place: the filter and Landlock
 * both survive exec.
 *
 * The zygote's client: worker_fork_runner (a runner becomes the worker's
 * pid, sock and pidfd, so everything that waits for, kills or classifies
 * the end of a child works on it unchanged; each runner is checked from
 * outside, attest_runner, before its first call), worker_reap_runner and
 * worker_drop_zygote. A runner's pid is read from its pidfd's fdinfo, so
 * it is the parent's view even where the worker has its own PID
 * namespace. And the end of a life: worker_reap_child, worker_release_child.
 *
 * DIVERGENCE_TEST_SANDBOX, a test hook read by worker_new, takes a
 * comma-separated list: "reduced" starts in reduced mode as if the host
 * refused user namespaces, "nocgroup" as if no cgroup could be made.
 */
#include "harness/worker/worker_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/affinity.h"
#include "harness/base/cpumodel.h"
#include "harness/base/text.h"

_Static_assert(WORKER_FD_COUNT == SANDBOX_FD_SLOTS, "the sandbox keeps the worker's slots free");
_Static_assert(WORKER_MESSAGE_MAX == SANDBOX_ERR_MAX, "a refusal fits a result's message");

void worker_set_err(worker *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->err, sizeof w->err, fmt, ap);
    va_end(ap);
}

/* ------------------------------------------------------------------------
 * launch_prepare
 * ---------------------------------------------------------------------- */

/* r as a load error in set-up (LOAD_ERROR, SETUP) with message msg. */
static void refuse(worker_result *r, const char *msg)
{
    worker_reset_result(r);
    r->outcome = WORKER_OUT_LOAD_ERROR;
    r->load_error = WORKER_LOAD_SETUP;
    r->stage = WORKER_STAGE_LOAD;
    worker_set_msg(r, "%s", msg);
}

int launch_prepare(worker *w, worker_result *r)
{
    char err[SANDBOX_ERR_MAX];
    sandbox_spec spec = {
        .plugin = w->path,
        .level = w->opt.sandbox,
        .confine = w->opt.confine ? 1 : 0,
        .grants = w->opt.grants,
        .limit_pids = w->opt.limit_pids,
        .env = w->opt.env,
        .n_env = w->opt.n_env,
        .cpu = w->emu_model != CPUM_NATIVE ? cpum_get(w->emu_model)->name : NULL,
        .hooks = (uint32_t)w->hook,
    };
    w->setupfd = w->infofd = -1;
    int rc = sandbox_prepare(&w->sb, &spec, err, sizeof err);
    if (rc == 1)
        refuse(r, err);
    else if (rc < 0)
        worker_set_err(w, "%s", err);
    return rc;
}

/* ------------------------------------------------------------------------
 * launch_spawn
 * ---------------------------------------------------------------------- */

/* What the child needs, all made before the fork. */
typedef struct spawn_plan {
    int slot[WORKER_FD_COUNT];   /* what becomes fds 0..7 */
    const int *pass;             /* what else is passed on (bubblewrap's) */
    int n_pass;
    int procs[CG_COUNT];         /* cgroup.procs to join, -1 */
    const char *path;            /* what is exec'd */
    int exec_fd;                 /* or this descriptor of it, when >= 0 */
    char *const *argv, *const *envp;
    struct sock_fprog prog;      /* the outer filter, when the child installs it */
    int install_filter;
    pid_t parent;
} spawn_plan;

/* Writes msg to fd 2 (what the set-up says) and leaves. */
__attribute__((noreturn)) static void child_fail(const char *msg)
{
    ssize_t n = write(2, msg, strlen(msg));
    (void)n;
    _exit(CHILD_EXIT_SETUP);
}

/* The child between fork and exec: system calls only. */
__attribute__((noreturn)) static void spawn_child(const worker *w, const spawn_plan *p)
{
    int tmp[WORKER_FD_COUNT];
    /* The slots: each source first out of the way, then into its place. */
    for (int i = 0; i < WORKER_FD_COUNT; i++)
        if ((tmp[i] = fcntl(p->slot[i], F_DUPFD, WORKER_FD_COUNT)) < 0)
            _exit(CHILD_EXIT_SETUP);
    for (int i = 0; i < WORKER_FD_COUNT; i++)
        if (dup2(tmp[i], i) != i)
            _exit(CHILD_EXIT_SETUP);
    for (int i = 0; i < WORKER_FD_COUNT; i++)
        close(tmp[i]);
    /* Nothing else of this process crosses the exec but what is passed. */
    if (close_range(WORKER_FD_COUNT, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {
        struct rlimit rl;
        long top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                       ? (long)rl.rlim_cur
                       : 65536;
        for (long fd = WORKER_FD_COUNT; fd < top; fd++)
            fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    }
    for (int i = 0; i < p->n_pass; i++)
        if (fcntl(p->pass[i], F_SETFD, 0) != 0)
            child_fail("the launch cannot pass a descriptor on\n");
    if (setsid() < 0)
        child_fail("the launch cannot make a session\n");
    for (int i = 0; i < CG_COUNT; i++)
        if (p->procs[i] >= 0 && write(p->procs[i], "0", 1) != 1)
            child_fail("the launch cannot join the worker's cgroup\n");
    if (w->sb.mode == LAUNCH_FULL) {
        /* bubblewrap writes the view's copies into its tmpfs: the caller's
         * file size limit is not for them (copy_fd_unlimited in
         * harness/sandbox/spec.c); the worker
         * program sets its own (child_limits) before any plugin code. */
        struct rlimit fs = {RLIM_INFINITY, RLIM_INFINITY};
        if (setrlimit(RLIMIT_FSIZE, &fs) != 0 && getrlimit(RLIMIT_FSIZE, &fs) == 0) {
            fs.rlim_cur = fs.rlim_max;
            setrlimit(RLIMIT_FSIZE, &fs);
        }
    }
    if (geteuid() == 0 && w->sb.uid != 0 &&
        (setgroups(0, NULL) != 0 || setresgid(w->sb.gid, w->sb.gid, w->sb.gid) != 0 ||
         setresuid(w->sb.uid, w->sb.uid, w->sb.uid) != 0))
        child_fail("the launch cannot drop to the unprivileged uid\n");
    /* A session keyring of its own, empty: the caller's keys are not
     * inherited (the outer filter then refuses every key call). */
    if (w->sb.mode != LAUNCH_OFF)
        syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, (char *)NULL);
    /* After the ids changed (which clears it): die with the caller. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != p->parent)
        _exit(CHILD_EXIT_SETUP);
    affinity_pin_process(w->opt.cpu);
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    if (w->sb.nproc) {
        rl.rlim_cur = rl.rlim_max = w->sb.nproc;
        setrlimit(RLIMIT_NPROC, &rl);
    }
    if (w->sb.mode == LAUNCH_REDUCED && chdir("/") != 0)
        child_fail("the launch cannot leave the caller's folder\n");
    if (p->install_filter &&
        (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->prog) != 0))
        child_fail("the launch cannot install the seccomp filter\n");
    if (p->exec_fd >= 0)
        syscall(SYS_execveat, p->exec_fd, "", p->argv, p->envp, AT_EMPTY_PATH);
    execve(p->path, p->argv, p->envp);
    child_fail(w->sb.mode == LAUNCH_FULL ? "the launch cannot exec bubblewrap\n"
                                      : "the launch cannot exec the worker program\n");
}

/* The worker's slots (fds 0..7: the plugin's output on 1 and 7), the
 * cgroup to join. */
static void plan_slots(worker *w, spawn_plan *p, int nullfd, int chan, int ctlfd)
{
    int out = w->opt.quiet ? nullfd : w->opt.capture_output && w->outfd >= 0 ? w->outfd : 2;
    int slots[WORKER_FD_COUNT] = {nullfd, out, w->setupfd, chan, w->memfd, w->rofd, ctlfd, out};
    memcpy(p->slot, slots, sizeof slots);
    for (int i = 0; i < CG_COUNT; i++)
        p->procs[i] = cg_procs_fd(&w->sb.cg, i);
    p->parent = getpid();
}

/* The exec of the worker program itself (reduced, off): by a descriptor
 * opened before the ids drop (the program's folder need not be one the
 * worker's uid may search), with the outer filter to install. */
static void plan_direct(worker *w, spawn_plan *p, char **argv)
{
    p->path = w->sb.program;
    p->argv = argv;
    p->envp = w->sb.envp;
    p->exec_fd = sandbox_above_slots(open(w->sb.program, O_RDONLY | O_CLOEXEC));
    if (w->sb.bpf) {
        p->prog.len = (unsigned short)(w->sb.bpf_len / sizeof(struct sock_filter));
        p->prog.filter = (struct sock_filter *)(void *)w->sb.bpf;
        p->install_filter = 1;
    }
}

/* The child forked: its pid and pidfd, bubblewrap's info pipe. */
static void took_child(worker *w, pid_t pid, sandbox_args *args)
{
    w->pid = pid;
    w->wpid = 0;
#ifdef SYS_pidfd_open
    w->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (w->pidfd >= 0)
        fcntl(w->pidfd, F_SETFD, FD_CLOEXEC);
#else
    w->pidfd = -1;
#endif
    if (w->infofd >= 0)
        close(w->infofd);
    w->infofd = args->infofd;
    args->infofd = -1;
}

int launch_spawn(worker *w, int chan, int ctlfd)
{
    spawn_plan p;
    sandbox_args args;
    int rc = -1, nullfd = -1;
    char *bwrap_argv[] = {"bwrap", "--args", NULL, "--", VIEW_PROGRAM, NULL};
    char *worker_argv[] = {"worker", NULL};
    char *no_env[] = {NULL};
    char err[SANDBOX_ERR_MAX];
    memset(&p, 0, sizeof p);
    args.n_pass = 0;
    args.infofd = -1;
    p.exec_fd = -1;
    for (int i = 0; i < CG_COUNT; i++)
        p.procs[i] = -1;
    if (w->setupfd >= 0)
        close(w->setupfd);
    w->setupfd = memfd_create("", MFD_CLOEXEC);
    nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (w->setupfd < 0 || nullfd < 0) {
        worker_set_err(w, "cannot start a worker: %s", strerror(errno));
        goto done;
    }
    plan_slots(w, &p, nullfd, chan, ctlfd);
    p.envp = no_env;
    if (w->sb.mode == LAUNCH_FULL) {
        if (sandbox_bwrap(&w->sb, &args, err, sizeof err) != 0) {
            worker_set_err(w, "%s", err);
            goto done;
        }
        bwrap_argv[2] = args.argsnum;
        p.pass = args.pass;
        p.n_pass = args.n_pass;
        p.path = args.bwrap;
        p.argv = bwrap_argv;
    } else {
        plan_direct(w, &p, worker_argv);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        worker_set_err(w, "fork: %s", strerror(errno));
        goto done;
    }
    if (pid == 0)
        spawn_child(w, &p);
    took_child(w, pid, &args);
    rc = 0;
done:
    sandbox_args_close(&args);
    if (p.exec_fd >= 0)
        close(p.exec_fd);
    for (int i = 0; i < CG_COUNT; i++)
        if (p.procs[i] >= 0)
            close(p.procs[i]);
    if (nullfd >= 0)
        close(nullfd);
    return rc;
}

/* ------------------------------------------------------------------------
 * After the start
 * ---------------------------------------------------------------------- */

/* The first child of process pid (/proc/PID/task/PID/children), or 0. */
static pid_t first_child(pid_t pid)
{
    char path[96], buf[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", (int)pid, (int)pid);
    return sandbox_read_small(path, buf, sizeof buf) ? (pid_t)strtol(buf, NULL, 10) : 0;
}

pid_t launch_worker_pid(worker *w)
{
    char buf[1024];
    if (w->sb.mode == LAUNCH_FULL) {
        /* bubblewrap's --info-fd names the namespace's init (written
         * before the worker program ran, so whole by its READY); the
         * worker program is the init's child. */
        size_t n = 0;
        ssize_t got;
        if (w->infofd < 0)
            return 0;
        while (n + 1 < sizeof buf &&
               ((got = read(w->infofd, buf + n, sizeof buf - 1 - n)) > 0 ||
                (got < 0 && errno == EINTR)))
            if (got > 0)
                n += (size_t)got;
        buf[n] = '\0';
        close(w->infofd);
        w->infofd = -1;
        const char *p = strstr(buf, "\"child-pid\":");
        pid_t init = p ? (pid_t)strtol(p + 12, NULL, 10) : 0;
        return init > 0 ? first_child(init) : 0;
    }
    /* The keeper's child, or the process forked itself. */
    return w->sb.keeper ? first_child(w->pid) : w->pid;
}

void launch_setup_text(worker *w, char *buf, size_t cap)
{
    char raw[1024];
    buf[0] = '\0';
    if (w->setupfd < 0)
        return;
    ssize_t n = pread(w->setupfd, raw, sizeof raw - 1, 0);
    if (n <= 0)
        return;
    while (n > 0 && (raw[n - 1] == '\n' || raw[n - 1] == ' '))
        n--;
    raw[n] = '\0';
    /* One line: bubblewrap's last word is the one that tells. */
    char *last = strrchr(raw, '\n');
    text_sanitize(buf, cap, last ? last + 1 : raw, strlen(last ? last + 1 : raw));
    if (ftruncate(w->setupfd, 0) != 0) {
        /* read again next time: harmless */
    }
}

void launch_end_life(worker *w)
{
    if (w->sb.cg.have)
        cg_kill_all(&w->sb.cg);
    if (w->infofd >= 0)
        close(w->infofd);
    w->infofd = -1;
}

void launch_free(worker *w)
{
    sandbox_free(&w->sb);
    if (w->setupfd >= 0)
        close(w->setupfd);
    if (w->infofd >= 0)
        close(w->infofd);
    w->setupfd = w->infofd = -1;
}

/* ------------------------------------------------------------------------
 * A child's end: reap and release
 * ---------------------------------------------------------------------- */

int worker_child_exited(worker *w)
{
    if (w->zpid) {
        /* A runner is the zygote's child: only its pidfd tells. */
        struct pollfd p = {w->pidfd, POLLIN, 0};
        return w->pidfd < 0 || poll(&p, 1, 0) != 0;
    }
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == w->pid;
}

int worker_wait_exit(worker *w, int64_t deadline)
{
    for (;;) {
        if (worker_child_exited(w))
            return 1;
        int64_t left = deadline - worker_now_ms();
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

/* The most a keeper may take to kill what the plugin left and end. */
#define KEEPER_GRACE_MS 5000

static pid_t first_child(pid_t pid);

/* Kills the process tree whose outermost process (not reaped yet) is
 * `outer`: its group and itself. With a keeper (reduced mode without a
 * cgroup, isolate.c) the keeper is outer, and the daemons the plugin left
 * are its children, reparented to it: killed first, it would leave them
 * to the host's init. So its child, the worker, goes first; the keeper
 * then kills the rest and ends by itself (SIGKILL after KEEPER_GRACE_MS
 * all the same). */
static void end_tree(const worker *w, pid_t outer)
{
    if (w->sb.keeper) {
        pid_t inner = first_child(outer);
        if (inner > 0) {
            kill(-inner, SIGKILL);
            kill(inner, SIGKILL);
            for (int64_t until = worker_now_ms() + KEEPER_GRACE_MS; worker_now_ms() < until;) {
                siginfo_t si;
                memset(&si, 0, sizeof si);
                if (waitid(P_PID, (id_t)outer, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
                    si.si_pid == outer)
                    break;
                struct timespec ts = {0, 1000 * 1000};
                nanosleep(&ts, NULL);
            }
        }
    }
    kill(-outer, SIGKILL);
    kill(outer, SIGKILL);
}

int worker_reap_child(worker *w)
{
    int st = -1;
    if (!w->pid)
        return -1;
    if (w->zpid) {
        st = worker_reap_runner(w);
        w->pid = 0;
        w->ready = 0;
        return st;
    }
    /* The child is not reaped yet, so its pid still names it and its group. */
    end_tree(w, w->pid);
    pid_t got;
    do
        got = waitpid(w->pid, &st, 0);
    while (got < 0 && errno == EINTR);
    if (got != w->pid)
        st = -1;
    w->pid = 0;
    w->wpid = 0;
    w->ready = 0;
    launch_end_life(w); /* whatever of it is left, in its cgroup */
    return st;
}

void worker_release_child(worker *w)
{
    if (w->sock >= 0)
        close(w->sock);
    if (w->pidfd >= 0)
        close(w->pidfd);
    w->sock = w->pidfd = -1;
    if (w->ctl && !w->zpid)
        munmap(w->ctl, w->ctl_size);
    if (!w->zpid)
        w->ctl = NULL;
    w->ready = 0;
}

/* ------------------------------------------------------------------------
 * The zygote's client (its server is the worker program's zygote.c)
 * ---------------------------------------------------------------------- */

/* The pid a pidfd names, in this process's view (fdinfo "Pid:"); 0 when
 * it cannot be read, -1 when the process is gone. */
static pid_t pidfd_pid(int pidfd)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/self/fdinfo/%d", pidfd);
    if (!sandbox_read_small(path, buf, sizeof buf))
        return 0;
    const char *p = strstr(buf, "\nPid:");
    return p ? (pid_t)strtol(p + 5, NULL, 10) : 0;
}

/* Sends op to the zygote and waits up to timeout_ms for its answer: 0 with
 * *arg and up to two descriptors in fds (-1 where none came), -1 when the
 * zygote is gone or answered wrong. */
static int zygote_call(worker *w, uint32_t op, uint32_t *arg, int fds[2])
{
    uint32_t seq = ++w->zseq;
    fds[0] = fds[1] = -1;
    if (wire_send_token(w->zsock, seq, op) != 0)
        return -1;
    int64_t deadline = worker_now_ms() + w->opt.timeout_ms;
    for (;;) {
        int64_t left = deadline - worker_now_ms();
        if (left <= 0)
            return -1;
        struct pollfd p = {w->zsock, POLLIN, 0};
        int n = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
        if (n < 0 && errno != EINTR)
            return -1;
        if (n <= 0)
            continue;
        token t;
        struct iovec iov = {&t, sizeof t};
        union {
            struct cmsghdr h;
            char buf[CMSG_SPACE(2 * sizeof(int))];
        } u;
        struct msghdr m;
        memset(&m, 0, sizeof m);
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = u.buf;
        m.msg_controllen = sizeof u.buf;
        ssize_t got = recvmsg(w->zsock, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (got < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        int nfds = 0;
        for (struct cmsghdr *c = got > 0 ? CMSG_FIRSTHDR(&m) : NULL; c; c = CMSG_NXTHDR(&m, c))
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
                size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
                for (size_t i = 0; i < k; i++) {
                    int fd;
                    memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
                    if (nfds < 2)
                        fds[nfds++] = fd;
                    else
                        close(fd);
                }
            }
        if (got != (ssize_t)sizeof t || (m.msg_flags & MSG_CTRUNC) || t.magic != TOKEN_MAGIC ||
            t.seq != seq || t.op != op) {
            for (int i = 0; i < nfds; i++)
                close(fds[i]);
            fds[0] = fds[1] = -1;
            return -1;
        }
        *arg = t.arg;
        return 0;
    }
}

int worker_fork_runner(worker *w)
{
    ctl_block *b = w->ctl;
    if (!w->zpid || !b)
        return -1;
    /* What the last runner left in the block (it may have written any of
     * it); the shape buffer and the stack are the zygote's, inherited. */
    memset(&b->fault, 0, sizeof b->fault);
    memset(&b->exitrec, 0, sizeof b->exitrec);
    memset(&b->late, 0, sizeof b->late);
    memset(&b->rep, 0, sizeof b->rep);
    memset(b->map, 0, sizeof b->map);
    b->map[R_SHAPE] = w->zshape;
    b->stack_top = w->zstack_top;
    b->stack_limit = w->zstack_limit;
    b->cur_seq = 0;
    b->cur_stage = WORKER_STAGE_IDLE;
    uint32_t arg = 0;
    int fds[2];
    if (zygote_call(w, OP_FORK, &arg, fds) != 0 || arg == 0 || fds[0] < 0 || fds[1] < 0) {
        for (int i = 0; i < 2; i++)
            if (fds[i] >= 0)
                close(fds[i]);
        return -1;
    }
    pid_t pid = pidfd_pid(fds[1]);
    if (pid == 0)
        pid = (pid_t)arg; /* no fdinfo: the same PID namespace, presumably */
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        uint32_t st;
        zygote_call(w, OP_REAP, &st, fds);
        return -1;
    }
    /* Checked from outside before its first call: the zygote's
     * namespaces, groups, filters and restrictions, or no runner. */
    char why[256];
    if (attest_runner(&w->sb, pid, why, sizeof why) != 0) {
        close(fds[0]);
        close(fds[1]);
        uint32_t st;
        int more[2];
        zygote_call(w, OP_REAP, &st, more);
        for (int i = 0; i < 2; i++)
            if (more[i] >= 0)
                close(more[i]);
        worker_set_err(w, "%s", why);
        return -2;
    }
    w->pid = pid;
    w->sock = fds[0];
    w->pidfd = fds[1];
    w->seq = 0;
    w->ready = 1;
    return 0;
}

int worker_reap_runner(worker *w)
{
    if (w->pidfd >= 0) {
#ifdef SYS_pidfd_send_signal
        syscall(SYS_pidfd_send_signal, w->pidfd, SIGKILL, NULL, 0);
#endif
    }
    /* Its group: processes the plugin forked where it was not confined.
     * Not reaped yet, so the runner's pid still names its group. */
    kill(-w->pid, SIGKILL);
    uint32_t st = (uint32_t)-1;
    int fds[2];
    if (zygote_call(w, OP_REAP, &st, fds) != 0) {
        st = (uint32_t)-1;
        worker_drop_zygote(w); /* its runner dies with it */
    }
    return (int)st;
}

void worker_drop_zygote(worker *w)
{
    if (!w->zpid)
        return;
    if (w->zsock >= 0 && wire_send_token(w->zsock, ++w->zseq, OP_QUIT) == 0 &&
        w->zpidfd >= 0) {
        struct pollfd p = {w->zpidfd, POLLIN, 0};
        int n;
        do
            n = poll(&p, 1, (int)(w->opt.timeout_ms > 5000 ? 5000 : w->opt.timeout_ms));
        while (n < 0 && errno == EINTR);
    }
    end_tree(w, w->zpid);
    pid_t got;
    do
        got = waitpid(w->zpid, NULL, 0);
    while (got < 0 && errno == EINTR);
    if (w->zsock >= 0)
        close(w->zsock);
    if (w->zpidfd >= 0)
        close(w->zpidfd);
    w->zsock = w->zpidfd = -1;
    w->zpid = 0;
    launch_end_life(w); /* whatever of the plugin is left, in its cgroup */
}
