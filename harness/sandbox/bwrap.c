/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/bwrap.c: bubblewrap's arguments for one start of a
 * prepared sandbox (sandbox_bwrap).
 *
 * New user, PID, network, mount, IPC, UTS and cgroup namespaces, no
 * further user namespaces, a new session, every capability dropped, the
 * hostname "localhost", an environment of the allowlist's variables only,
 * the outer seccomp filter (--seccomp), /proc, three devices, 64 MiB
 * tmpfs at /tmp and /dev/shm, the CPU's description in /sys, a machine-id
 * that names no machine, and the view: each file by a descriptor opened
 * again and checked to be the inode resolved (view_open), the plugin and
 * what the worker's uid cannot reach as private copies, a grant's folders
 * read-only and its devices read-write; then / read-only. The arguments
 * travel in a descriptor (--args): they are no tell on anyone's command
 * line.
 */
#include "harness/sandbox/sandbox_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"

#define SANDBOX_SCRATCH_BYTES "67108864"   /* /tmp and /dev/shm: 64 MiB each */
#define SANDBOX_MACHINE_ID "00000000000000000000000000000001\n" /* names no machine */

/* A growing NUL-separated argument list (bubblewrap's --args). */
typedef struct arglist {
    char *buf;
    size_t n, cap;
    int failed;
} arglist;

static void arg(arglist *a, const char *s)
{
    size_t len = strlen(s) + 1;
    if (a->failed)
        return;
    if (a->n + len > a->cap) {
        size_t cap = a->cap ? a->cap : 16384;
        while (cap < a->n + len)
            cap *= 2;
        char *b = dvg_realloc(a->buf, cap);
        if (!b) {
            a->failed = 1;
            return;
        }
        a->buf = b;
        a->cap = cap;
    }
    memcpy(a->buf + a->n, s, len);
    a->n += len;
}

static void arg_fd(arglist *a, int fd)
{
    char num[16];
    snprintf(num, sizeof num, "%d", fd);
    arg(a, num);
}

/* A descriptor to read `len` bytes of data from, to its end: a pipe made
 * big enough to hold them (a memfd would count against the caller's
 * ulimit -f), or a memfd beyond pipe-max-size; -1. */
static int data_fd(const void *data, size_t len)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) == 0) {
        if (len <= 65536 || fcntl(p[1], F_SETPIPE_SZ, (int)len) >= (int)len) {
            ssize_t n = len ? write(p[1], data, len) : 0;
            close(p[1]);
            if (n == (ssize_t)len)
                return p[0];
            close(p[0]);
            return -1;
        }
        close(p[0]);
        close(p[1]);
    }
    int fd = memfd_create("", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (write(fd, data, len) != (ssize_t)len || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

int sandbox_above_slots(int fd)
{
    if (fd < 0 || fd >= SANDBOX_FD_SLOTS)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, SANDBOX_FD_SLOTS);
    close(fd);
    return moved;
}


/* Adds fd (>= SANDBOX_FD_SLOTS) to what is passed on. 0, or -1 (fd -1,
 * or too many). */
static int pass(sandbox_args *out, int fd)
{
    if (fd < 0 || out->n_pass >= SANDBOX_MAX_FDS)
        return -1;
    out->pass[out->n_pass++] = fd;
    return 0;
}

/* The namespaces, the session, the capabilities, the environment. */
static void args_process(const sandbox_plan *s, arglist *a)
{
    arg(a, "--unshare-all");
    arg(a, "--unshare-user");
    arg(a, "--disable-userns");
    arg(a, "--die-with-parent");
    arg(a, "--new-session");
    arg(a, "--cap-drop");
    arg(a, "ALL");
    arg(a, "--hostname");
    arg(a, "localhost");
    arg(a, "--clearenv");
    for (char **e = s->envp; *e; e++) {
        const char *eq = strchr(*e, '=');
        char key[256];
        if (!eq || (size_t)(eq - *e) >= sizeof key)
            continue;
        memcpy(key, *e, (size_t)(eq - *e));
        key[eq - *e] = '\0';
        arg(a, "--setenv");
        arg(a, key);
        arg(a, eq + 1);
    }
}

/* The outer filter and the info pipe. 0 or -1. */
static int args_channels(const sandbox_plan *s, arglist *a, sandbox_args *out)
{
    int fd, pipefd[2];
    fd = sandbox_above_slots(data_fd(s->bpf, s->bpf_len));
    if (pass(out, fd) != 0)
        return -1;
    arg(a, "--seccomp");
    arg_fd(a, fd);
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return -1;
    out->infofd = pipefd[0];
    fd = sandbox_above_slots(pipefd[1]);
    if (pass(out, fd) != 0)
        return -1;
    arg(a, "--info-fd");
    arg_fd(a, fd);
    return 0;
}

/* /proc, the devices, the scratch, the CPU's description, the
 * machine-id. 0 or -1. */
static int args_system(arglist *a, sandbox_args *out)
{
    arg(a, "--proc");
    arg(a, "/proc");
    static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/urandom"};
    for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) {
        arg(a, "--dev-bind");
        arg(a, devs[i]);
        arg(a, devs[i]);
    }
    static const char *const scratch[] = {"/tmp", "/dev/shm"};
    for (size_t i = 0; i < sizeof scratch / sizeof scratch[0]; i++) {
        arg(a, "--size");
        arg(a, SANDBOX_SCRATCH_BYTES);
        arg(a, "--perms");
        arg(a, "1777");
        arg(a, "--tmpfs");
        arg(a, scratch[i]);
    }
    /* What CPU libraries read of the machine (cpuinfo, thread counts). */
    struct stat st;
    if (stat("/sys/devices/system/cpu", &st) == 0) {
        arg(a, "--ro-bind");
        arg(a, "/sys/devices/system/cpu");
        arg(a, "/sys/devices/system/cpu");
    }
    int fd = sandbox_above_slots(data_fd(SANDBOX_MACHINE_ID, strlen(SANDBOX_MACHINE_ID)));
    if (pass(out, fd) != 0)
        return -1;
    arg(a, "--ro-bind-data");
    arg_fd(a, fd);
    arg(a, "/etc/machine-id");
    return 0;
}

/* The view, each file by a descriptor; a grant's folders and devices.
 * 0, or -1 (with err when a file of the view cannot be opened). */
static int args_view(const sandbox_plan *s, arglist *a, sandbox_args *out, char *err, size_t cap)
{
    struct stat st;
    for (uint32_t i = 0; i < s->view.n; i++) {
        const view_entry *e = &s->view.e[i];
        if (e->kind == VIEW_LINK) {
            arg(a, "--symlink");
            arg(a, e->src);
            arg(a, e->dst);
            continue;
        }
        int fd = sandbox_above_slots(e->kind == VIEW_COPY ? sandbox_reopen_copy(s) : view_open(e));
        if (fd < 0) {
            snprintf(err, cap, "cannot open %s for the worker's view: %s", e->src,
                     errno == ESTALE ? "it was replaced since it was resolved" : strerror(errno));
            return -1;
        }
        if (pass(out, fd) != 0)
            return -1;
        if (e->kind == VIEW_COPY || e->copy) {
            arg(a, "--perms");
            arg(a, "0555");
            arg(a, "--ro-bind-data");
        } else {
            arg(a, "--ro-bind-fd");
        }
        arg_fd(a, fd);
        arg(a, e->dst);
    }
    /* A grant's folders, read-only, and its devices, read-write. */
    for (uint32_t i = 0; i < s->grant.n; i++) {
        const grant_bind *g = &s->grant.b[i];
        if (g->kind == GRANT_DEV || (g->kind == GRANT_RO && stat(g->src, &st) == 0 &&
                                     S_ISDIR(st.st_mode))) {
            arg(a, g->kind == GRANT_DEV ? "--dev-bind" : "--ro-bind");
            arg(a, g->src);
            arg(a, g->dst);
        }
    }
    return 0;
}

int sandbox_bwrap(const sandbox_plan *s, sandbox_args *out, char *err, size_t cap)
{
    arglist a;
    int rc = -1;
    memset(&a, 0, sizeof a);
    err[0] = '\0';
    out->n_pass = 0;
    out->infofd = -1;
    out->argsnum[0] = '\0';
    if (sandbox_find_bwrap(out->bwrap) != 0) {
        snprintf(err, cap, "bubblewrap (bwrap) is no longer there");
        return -1;
    }
    args_process(s, &a);
    if (args_channels(s, &a, out) != 0 || args_system(&a, out) != 0 ||
        args_view(s, &a, out, err, cap) != 0) {
        if (!err[0] || a.failed)
            snprintf(err, cap, "cannot prepare the worker's sandbox: %s", strerror(errno));
        goto done;
    }
    arg(&a, "--remount-ro");
    arg(&a, "/");
    arg(&a, "--chdir");
    arg(&a, "/tmp");
    if (a.failed) {
        snprintf(err, cap, "cannot prepare the worker's sandbox: %s", strerror(errno));
        goto done;
    }
    int argsfd = sandbox_above_slots(data_fd(a.buf, a.n));
    if (pass(out, argsfd) != 0) {
        snprintf(err, cap, "cannot prepare the worker's sandbox: %s", strerror(errno));
        goto done;
    }
    snprintf(out->argsnum, sizeof out->argsnum, "%d", argsfd);
    rc = 0;
done:
    dvg_free(a.buf);
    return rc;
}

void sandbox_args_close(sandbox_args *a)
{
    for (int i = 0; i < a->n_pass; i++)
        close(a->pass[i]);
    a->n_pass = 0;
    if (a->infofd >= 0)
        close(a->infofd);
    a->infofd = -1;
}
