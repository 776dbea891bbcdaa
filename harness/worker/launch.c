/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/launch.c: how the harness starts the worker program.
 *
 * This file contains the harness's side of a worker's start. Once per
 * worker (launch_prepare) it decides the mode: LAUNCH_FULL, the worker
 * program exec'd through bubblewrap (new user, PID, network, mount, IPC,
 * UTS and cgroup namespaces, no further user namespaces, a new session,
 * every capability dropped, the outer seccomp filter, a view holding only
 * what view.c resolved), where user namespaces can be had; LAUNCH_REDUCED,
 * the worker program exec'd directly, where they cannot (a container's
 * default seccomp profile); LAUNCH_OFF for --sandbox off. It finds the
 * worker program (datadir_find_program) and bubblewrap, builds the
 * plugin's environment (the allowlist and --env; HOME and TMPDIR the
 * scratch), snapshots the plugin's bytes (the private copy), makes the
 * worker's cgroup (cgroup.c) and exports the outer filter. For each start
 * (launch_spawn) it places the worker's descriptors, writes bubblewrap's
 * arguments into a memfd (--args: they are no tell on anyone's command
 * line), forks, and in the child, with nothing but system calls (the
 * harness may have threads): its own session, the cgroup, an
 * unprivileged uid and gid when the caller is root (65534: the plugin
 * never runs as root), a fresh session keyring (the caller's keys out of
 * reach), death with the caller, no core files, then the exec - of
 * bubblewrap with an empty environment, or of the worker program with
 * no_new_privs and the outer filter already installed. Whatever comes
 * after the worker program in a later design (an emulator it execs) finds
 * every layer in place: the filter and Landlock both survive exec.
 *
 * DIVERGENCE_TEST_SANDBOX, a test hook read by worker_new, takes a
 * comma-separated list: "reduced" starts in reduced mode as if the host
 * refused user namespaces, "nocgroup" as if no cgroup could be made.
 */
#include "harness/worker/worker_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "harness/base/cpumodel.h"
#include "harness/base/datadir.h"
#include "harness/base/text.h"

#ifndef DVG_BWRAP
#define DVG_BWRAP "/usr/bin/bwrap"
#endif
#define LAUNCH_WORKER_PROGRAM "divergence-worker"
#define LAUNCH_ID 65534u                  /* nobody/nogroup */
#define LAUNCH_SCRATCH_BYTES "67108864"   /* /tmp and /dev/shm: 64 MiB each */
#define LAUNCH_MACHINE_ID "00000000000000000000000000000001\n" /* names no machine */
#define LAUNCH_MAX_FDS 1100               /* descriptors bubblewrap is given */

extern char **environ;

/* ------------------------------------------------------------------------
 * What holds for the whole process
 * ---------------------------------------------------------------------- */

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static int userns_state; /* 0 unknown, 1 available, -1 refused */
static uint64_t serial;  /* of cgroups, under probe_lock */

/* 1 when a process running as uid/gid can make a user namespace (what
 * bubblewrap needs, unprivileged), -1 when not. Asked once per process. */
static int userns_available(unsigned uid, unsigned gid)
{
    pthread_mutex_lock(&probe_lock);
    if (!userns_state) {
        int st = -1;
        pid_t pid = fork();
        if (pid == 0) {
            if (getuid() == 0 && (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
                                  setresuid(uid, uid, uid) != 0))
                _exit(1);
            _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : 1);
        }
        if (pid > 0)
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
        userns_state = pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : -1;
    }
    int s = userns_state;
    pthread_mutex_unlock(&probe_lock);
    return s;
}

/* bubblewrap's path into out (PATH_MAX): the one found at configure time,
 * else the first on PATH. 0, or -1. */
static int find_bwrap(char *out)
{
    if (access(DVG_BWRAP, X_OK) == 0) {
        snprintf(out, PATH_MAX, "%s", DVG_BWRAP);
        return 0;
    }
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *end = strchr(path, ':');
        size_t n = end ? (size_t)(end - path) : strlen(path);
        if (n && n + 7 < PATH_MAX) {
            snprintf(out, PATH_MAX, "%.*s/bwrap", (int)n, path);
            if (out[0] == '/' && access(out, X_OK) == 0)
                return 0;
        }
        path = end ? end + 1 : NULL;
    }
    return -1;
}

/* ------------------------------------------------------------------------
 * The environment
 * ---------------------------------------------------------------------- */

static int env_allowed(const char *kv)
{
    static const char *const allow[] = {WORKER_ENV_ALLOW};
    const char *eq = strchr(kv, '=');
    if (!eq)
        return 0;
    size_t n = (size_t)(eq - kv);
    for (size_t i = 0; i < sizeof allow / sizeof allow[0]; i++) {
        size_t a = strlen(allow[i]);
        if (allow[i][a - 1] == '*' ? n >= a - 1 && strncmp(kv, allow[i], a - 1) == 0
                                   : n == a && strncmp(kv, allow[i], n) == 0)
            return 1;
    }
    return 0;
}

/* Appends kv to the list (a later K replaces an earlier one). 0 or -1. */
static int env_put(char ***env, size_t *n, size_t *cap, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv)
        return 0;
    for (size_t j = 0; j < *n; j++)
        if (!strncmp((*env)[j], kv, (size_t)(eq - kv) + 1)) {
            dvg_free((*env)[j]);
            (*env)[j] = (*env)[--*n];
            break;
        }
    if (*n + 2 > *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        char **e = dvg_realloc(*env, c * sizeof *e);
        if (!e)
            return -1;
        *env = e;
        *cap = c;
    }
    char *copy = dvg_strdup(kv);
    if (!copy)
        return -1;
    (*env)[(*n)++] = copy;
    (*env)[*n] = NULL;
    return 0;
}

/* The plugin's environment: the caller's whole one with --sandbox off,
 * else the allowlist (plus HOME and TMPDIR, the scratch, in a view); then
 * worker_options.env. 0 or -1. */
static int build_env(worker *w)
{
    char **env = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    for (char **e = environ; e && *e; e++)
        if ((w->mode == LAUNCH_OFF || env_allowed(*e)) && env_put(&env, &n, &cap, *e) != 0)
            goto done;
    if (w->mode == LAUNCH_FULL &&
        (env_put(&env, &n, &cap, "HOME=/tmp") != 0 || env_put(&env, &n, &cap, "TMPDIR=/tmp") != 0))
        goto done;
    for (uint32_t i = 0; i < w->grant.n_env; i++)
        if (env_put(&env, &n, &cap, w->grant.env[i]) != 0)
            goto done;
    for (uint32_t i = 0; w->opt.env && i < w->opt.n_env; i++)
        if (w->opt.env[i] && env_put(&env, &n, &cap, w->opt.env[i]) != 0)
            goto done;
    if (!env && env_put(&env, &n, &cap, "PATH=/usr/bin:/bin") != 0)
        goto done;
    rc = 0;
done:
    if (rc) {
        for (size_t i = 0; i < n; i++)
            dvg_free(env[i]);
        dvg_free(env);
        env = NULL;
    }
    w->envp = env;
    return rc;
}

static const char *env_get(char **env, const char *key)
{
    size_t k = strlen(key);
    for (char **e = env; e && *e; e++)
        if (!strncmp(*e, key, k) && (*e)[k] == '=')
            return *e + k + 1;
    return NULL;
}

/* ------------------------------------------------------------------------
 * The plugin's copy
 * ---------------------------------------------------------------------- */

/* Copies what is left to read on `from` into `to`. 0 or -1. */
static int copy_fd(int from, int to)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(from, buf, sizeof buf);
        if (n == 0)
            return 0;
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t m = write(to, buf + off, (size_t)(n - off));
            if (m < 0 && errno == EINTR)
                continue;
            if (m <= 0)
                return -1;
            off += m;
        }
    }
}

#ifndef F_SEAL_FUTURE_WRITE
#define F_SEAL_FUTURE_WRITE 0x0010 /* Linux 5.1 */
#endif

/* Seals the plugin's copy for good: no write, no writable mapping, no
 * size change, no seal removed. F_SEAL_FUTURE_WRITE, not F_SEAL_WRITE:
 * F_SEAL_WRITE waits for the pages' transient references (page-cache
 * batches of other CPUs) to drop and answers EBUSY after ~150 ms when
 * they do not, which a loaded machine reached (certify_oom, "cannot copy
 * the plugin: Device or resource busy"); nothing ever mapped this memfd,
 * so refusing future writes holds the same bytes. Kernels before 5.1
 * know only F_SEAL_WRITE: taken there, retried on EBUSY. 0 or -1. */
static int seal_copy(int fd)
{
    int rest = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | rest) == 0)
        return 0;
    if (errno != EINVAL)
        return -1;
    for (int tries = 0; tries < 20; tries++) {
        if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | rest) == 0)
            return 0;
        if (errno != EBUSY)
            return -1;
        usleep(50 * 1000);
    }
    return -1;
}

/* copy_fd for the harness's own private copies (the plugin's memfd, its
 * copy in reduced mode's folder), which the caller's file size limit
 * (ulimit -f) is not meant for: it limits what the harness writes to the
 * caller's files. Where that limit refuses the copy (EFBIG), a child that
 * lifts its own limit (it can where the harness has CAP_SYS_RESOURCE, or
 * up to the hard limit) makes it; `to` must be empty. Without this, the
 * fallback was to bind the plugin's own file, which the worker's uid
 * cannot reach under a private folder (a fresh clone in a 0700 folder:
 * "bwrap: Can't find source path /proc/self/fd/N"). 0 or -1 (errno). */
static int copy_fd_unlimited(int from, int to)
{
    if (copy_fd(from, to) == 0)
        return 0;
    if (errno != EFBIG || lseek(from, 0, SEEK_SET) != 0 || ftruncate(to, 0) != 0 ||
        lseek(to, 0, SEEK_SET) != 0) {
        errno = EFBIG;
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
        if (setrlimit(RLIMIT_FSIZE, &rl) != 0 && getrlimit(RLIMIT_FSIZE, &rl) == 0) {
            rl.rlim_cur = rl.rlim_max;
            setrlimit(RLIMIT_FSIZE, &rl);
        }
        _exit(copy_fd(from, to) == 0 ? 0 : 1);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    errno = EFBIG;
    return -1;
}

/* A sealed memfd of the plugin's bytes (the view's VIEW_COPY entry), read
 * once: every life of the worker loads these bytes. Where the caller's
 * file size limit (ulimit -f) is below the plugin's size and cannot be
 * lifted for the copy (copy_fd_unlimited), the plugin's own file is bound
 * read-only instead (the worker's uid must be able to reach it). 0 or -1. */
static int snapshot_plugin(worker *w)
{
    w->plugin_copy = -1;
    for (uint32_t i = 0; i < w->view.n; i++) {
        if (w->view.e[i].kind != VIEW_COPY)
            continue;
        int from = view_open(&w->view.e[i]);
        int to = memfd_create("", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        int ok = from >= 0 && to >= 0 && copy_fd_unlimited(from, to) == 0 && seal_copy(to) == 0;
        int e = errno;
        if (from >= 0)
            close(from);
        if (!ok) {
            if (to >= 0)
                close(to);
            if (e == EFBIG) {
                w->view.e[i].kind = VIEW_BIND;
                return 0;
            }
            errno = e;
            return -1;
        }
        w->plugin_copy = to;
        return 0;
    }
    return 0; /* no regular file: the loader will say so */
}

/* A fresh read-only descriptor of the plugin's copy (its own offset). */
static int reopen_copy(const worker *w)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", w->plugin_copy);
    return open(self, O_RDONLY | O_CLOEXEC);
}

/* Copies file `from` (a readable descriptor) to dir/<base of name>,
 * read-only; the new path into *path (dvg_malloc'd). 0 or -1. */
static int copy_into(const char *dir, const char *name, int from, char **path)
{
    char to_path[PATH_MAX];
    const char *base = strrchr(name, '/');
    if (snprintf(to_path, sizeof to_path, "%s/%s", dir, base ? base + 1 : name) >=
        (int)sizeof to_path)
        return -1;
    int to = open(to_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
    int ok = from >= 0 && to >= 0 && copy_fd_unlimited(from, to) == 0;
    if (to >= 0)
        close(to);
    if (!ok || !(*path = dvg_strdup(to_path)))
        return -1;
    return 0;
}

/* Full mode: bubblewrap copies into its tmpfs each file the worker's uid
 * cannot read, under the caller's file size limit where it cannot be
 * lifted (spawn_child). A copy over it would end in bubblewrap's "Can't
 * find source path" or a short write: said here instead, naming the file,
 * the limit and the way out. 0 or -1 (worker_set_err). */
static int copies_fit(worker *w)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_max == RLIM_INFINITY)
        return 0;
    for (uint32_t i = 0; i < w->view.n; i++) {
        const view_entry *e = &w->view.e[i];
        struct stat st;
        if (e->kind != VIEW_BIND || !e->copy || stat(e->src, &st) != 0 ||
            (uint64_t)st.st_size <= (uint64_t)rl.rlim_max)
            continue;
        worker_set_err(w, "cannot start a worker: uid %u cannot read %s, and the file size limit "
                          "(ulimit -f: %llu bytes) is below its size (%lld bytes), so no copy of "
                          "it can be made for the worker: raise the limit, or place it where "
                          "uid %u can read it", w->uid, e->src,
                       (unsigned long long)rl.rlim_max, (long long)st.st_size, w->uid);
        return -1;
    }
    return 0;
}

/* Reduced mode: the copy in a private folder the worker's uid can read
 * but not list or write, and a copy there of each library it cannot
 * reach (view_reachable); their paths replace the view's. 0 or -1. */
static int place_copy(worker *w)
{
    char dir[PATH_MAX], *path;
    snprintf(dir, sizeof dir, "/tmp/worker.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    w->privdir = dvg_strdup(dir);
    if (!w->privdir || chmod(dir, getuid() == 0 ? 0711 : 0700) != 0)
        return -1;
    if (w->plugin_copy >= 0) {
        int from = reopen_copy(w);
        int rc = copy_into(dir, w->view.plugin, from, &path);
        if (from >= 0)
            close(from);
        if (rc != 0)
            return -1;
        dvg_free(w->view.plugin);
        w->view.plugin = path;
    }
    for (uint32_t k = 0; k < w->view.n_preload; k++) {
        char real[PATH_MAX];
        if (!realpath(w->view.preload[k], real))
            continue;
        for (uint32_t i = 0; i < w->view.n; i++) {
            const view_entry *e = &w->view.e[i];
            if (!e->copy || strcmp(e->src, real))
                continue;
            int from = view_open(e);
            int rc = copy_into(dir, w->view.preload[k], from, &path);
            if (from >= 0)
                close(from);
            if (rc != 0)
                return -1;
            dvg_free(w->view.preload[k]);
            w->view.preload[k] = path;
            break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Grants (grant.h)
 * ---------------------------------------------------------------------- */

/* Resolves what w->opt.grants add on this host into w->grant (the test
 * hook DIVERGENCE_TEST_GRANT_ROOT: the devices under that folder). 0, or
 * -1 with worker_errmsg. */
static int plan_grants(worker *w)
{
    char err[256];
    const char *root = getenv("DIVERGENCE_TEST_GRANT_ROOT");
    if (!w->opt.grants)
        return 0;
    if (grant_plan_build(&w->grant, w->opt.grants, root ? root : "", err, sizeof err) != 0) {
        worker_set_err(w, "%s", err);
        return -1;
    }
    return 0;
}

/* The grant's objects and programs with their closure, and its files, into
 * the view (its folders and devices are bound by bwrap_args). 0, or -1
 * with worker_errmsg. */
static int view_grants(worker *w)
{
    const char *paths[64];
    uint32_t n = 0;
    char err[256];
    for (uint32_t i = 0; i < w->grant.n && n < 64; i++) {
        const grant_bind *b = &w->grant.b[i];
        struct stat st;
        if (b->kind == GRANT_OBJECT || b->kind == GRANT_PROGRAM)
            paths[n++] = b->src;
        else if (b->kind == GRANT_RO && stat(b->src, &st) == 0 && !S_ISDIR(st.st_mode) &&
                 view_add_file(&w->view, b->src) != 0) {
            worker_set_err(w, "cannot add %s to the worker's view: %s", b->src, strerror(errno));
            return -1;
        }
    }
    if (n && view_add_objects(&w->view, paths, n, env_get(w->envp, "LD_LIBRARY_PATH"), err,
                              sizeof err) != 0) {
        worker_set_err(w, "cannot grant %s: %s", paths[0], err);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * launch_prepare
 * ---------------------------------------------------------------------- */

/* Processes of uid now (for RLIMIT_NPROC, which counts them all). */
static uint32_t processes_of(unsigned uid)
{
    uint32_t n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], buf[512];
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/status", e->d_name);
        if (!worker_read_small(path, buf, sizeof buf))
            continue;
        const char *u = strstr(buf, "\nUid:");
        if (u && (unsigned)strtoul(u + 5, NULL, 10) == uid)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

int launch_prepare(worker *w, worker_result *r)
{
    char why[512] = "", planned[WORKER_LAYERS_TEXT], bwrap[PATH_MAX];
    int is_root = geteuid() == 0;
    w->setupfd = w->infofd = w->plugin_copy = -1;
    w->uid = is_root && w->opt.sandbox != WORKER_SANDBOX_OFF ? LAUNCH_ID : (unsigned)getuid();
    w->gid = is_root && w->opt.sandbox != WORKER_SANDBOX_OFF ? LAUNCH_ID : (unsigned)getgid();
    if (w->opt.sandbox == WORKER_SANDBOX_OFF)
        w->mode = LAUNCH_OFF;
    else if (w->hook & WORKER_HOOK_REDUCED)
        w->mode = LAUNCH_REDUCED, snprintf(why, sizeof why, "as DIVERGENCE_TEST_SANDBOX asks");
    else if (find_bwrap(bwrap) != 0)
        w->mode = LAUNCH_REDUCED, snprintf(why, sizeof why, "bubblewrap (bwrap) is not installed");
    else if (userns_available(w->uid, w->gid) < 0)
        w->mode = LAUNCH_REDUCED,
        snprintf(why, sizeof why, "this host refuses user namespaces to uid %u", w->uid);
    else
        w->mode = LAUNCH_FULL;
    if (w->mode == LAUNCH_REDUCED && (grant_flags(w->opt.grants) & GRANT_NEEDS_VIEW)) {
        char named[WORKER_SANDBOX_TEXT] = "";
        worker_reset_result(r);
        r->outcome = WORKER_OUT_LOAD_ERROR;
        r->load_error = WORKER_LOAD_SETUP;
        r->stage = WORKER_STAGE_LOAD;
        worker_describe_grants(w->opt.grants, named, sizeof named);
        worker_set_msg(r, "a grant needs the full sandbox (bubblewrap's view), and this host "
                          "runs reduced (%s):%.300s", why, named);
        launch_free(w);
        return 1;
    }
    if (plan_grants(w) != 0)
        goto fail;
    if (datadir_find_program(LAUNCH_WORKER_PROGRAM, w->program, sizeof w->program, why,
                             sizeof why) != 0) {
        worker_set_err(w, "cannot start a worker: %s", why);
        goto fail;
    }
    if (w->emu_model != CPUM_NATIVE &&
        cpum_emulator(w->emulator, sizeof w->emulator, NULL, 0) != 0) {
        worker_reset_result(r);
        r->outcome = WORKER_OUT_LOAD_ERROR;
        r->load_error = WORKER_LOAD_SETUP;
        r->stage = WORKER_STAGE_LOAD;
        worker_set_msg(r, "cpu %s needs QEMU's user-mode emulator, and there is none: %s",
                       cpum_get(w->emu_model)->name, cpum_no_emulator_why());
        launch_free(w);
        return 1;
    }
    if (build_env(w) != 0) {
        worker_set_err(w, "out of memory");
        goto fail;
    }
    if (w->mode != LAUNCH_OFF) {
        char err[256];
        if (view_build(&w->view, w->program, w->path, env_get(w->envp, "LD_LIBRARY_PATH"), err,
                       sizeof err) != 0) {
            worker_set_err(w, "cannot start a worker for %s: %s", w->path, err);
            goto fail;
        }
        if (view_grants(w) != 0)
            goto fail;
        if (w->emu_model != CPUM_NATIVE && w->mode == LAUNCH_FULL &&
            view_add_static(&w->view, VIEW_EMULATOR, w->emulator, err, sizeof err) != 0) {
            worker_set_err(w, "cannot start an emulated worker: the emulator %s", err);
            goto fail;
        }
        /* The snapshot first: where it cannot be made, the plugin is bound
         * and its reachability counts too. */
        if (snapshot_plugin(w) != 0) {
            worker_set_err(w, "cannot copy the plugin %s: %s", w->path, strerror(errno));
            goto fail;
        }
        if (w->uid != (unsigned)geteuid() && view_reachable(&w->view, w->uid, w->gid) != 0) {
            worker_set_err(w, "cannot tell what uid %u can read: %s", w->uid, strerror(errno));
            goto fail;
        }
        if (w->mode == LAUNCH_FULL && copies_fit(w) != 0)
            goto fail;
        if (w->mode == LAUNCH_REDUCED && place_copy(w) != 0) {
            worker_set_err(w, "cannot place the plugin's private copy: %s", strerror(errno));
            goto fail;
        }
        char cgwhy[256] = "";
        uint64_t n;
        pthread_mutex_lock(&probe_lock);
        n = ++serial;
        pthread_mutex_unlock(&probe_lock);
        if (!(w->hook & WORKER_HOOK_NOCGROUP))
            cg_open(&w->cg, n, w->opt.limit_pids, cgwhy, sizeof cgwhy);
        if (!w->cg.have && w->opt.limit_pids)
            w->nproc = processes_of(w->uid) + w->opt.limit_pids;
        w->keeper = w->mode == LAUNCH_REDUCED && !w->cg.have;
    }
    /* The outer filter as BPF. */
    if (w->mode != LAUNCH_OFF || w->opt.confine) {
        int fd = memfd_create("", MFD_CLOEXEC);
        struct stat st;
        if (fd < 0 || sandbox_outer_filter(fd, w->mode) != 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
            !(w->bpf = dvg_malloc((size_t)st.st_size)) ||
            pread(fd, w->bpf, (size_t)st.st_size, 0) != st.st_size) {
            if (fd >= 0)
                close(fd);
            worker_set_err(w, "cannot build the seccomp filter");
            goto fail;
        }
        w->bpf_len = (size_t)st.st_size;
        close(fd);
    }
    w->planned = w->mode == LAUNCH_OFF
                     ? WORKER_LAYER_OFF | (w->opt.confine ? WORKER_LAYER_SECCOMP : 0)
                     : WORKER_LAYER_LANDLOCK | WORKER_LAYER_SECCOMP | WORKER_LAYER_UNPRIV |
                           (w->cg.have ? WORKER_LAYER_CGROUP : 0) |
                           (w->mode == LAUNCH_FULL ? WORKER_LAYER_NS : WORKER_LAYER_NO_USERNS);
    w->want_filters = w->bpf ? 1 + (w->opt.confine ? 1 : 0) : 0;
    if (w->opt.sandbox == WORKER_SANDBOX_STRICT &&
        (w->planned & WORKER_LAYER_ALL) != WORKER_LAYER_ALL) {
        worker_reset_result(r);
        r->outcome = WORKER_OUT_LOAD_ERROR;
        r->load_error = WORKER_LOAD_SETUP;
        r->stage = WORKER_STAGE_LOAD;
        worker_set_msg(r, "--sandbox strict: this host allows only %s%s%s",
                       worker_describe_layers(w->planned, planned, sizeof planned),
                       why[0] ? " (" : "", why[0] ? why : "");
        if (why[0])
            strncat(r->message, ")", sizeof r->message - strlen(r->message) - 1);
        launch_free(w);
        return 1;
    }
    return 0;
fail:
    launch_free(w);
    return -1;
}

/* ------------------------------------------------------------------------
 * launch_spawn
 * ---------------------------------------------------------------------- */

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

/* fd moved to a number >= WORKER_FD_COUNT (the slots stay free); -1. */
static int above_slots(int fd)
{
    if (fd < 0 || fd >= WORKER_FD_COUNT)
        return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, WORKER_FD_COUNT);
    close(fd);
    return moved;
}

/* What the child needs, all made before the fork. */
typedef struct spawn_plan {
    int slot[WORKER_FD_COUNT];   /* what becomes fds 0..7 */
    int pass[LAUNCH_MAX_FDS];    /* what else is passed on (bubblewrap's) */
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
    if (w->mode == LAUNCH_FULL) {
        /* bubblewrap writes the view's copies into its tmpfs: the caller's
         * file size limit is not for them (copy_fd_unlimited); the worker
         * program sets its own (child_limits) before any plugin code. */
        struct rlimit fs = {RLIM_INFINITY, RLIM_INFINITY};
        if (setrlimit(RLIMIT_FSIZE, &fs) != 0 && getrlimit(RLIMIT_FSIZE, &fs) == 0) {
            fs.rlim_cur = fs.rlim_max;
            setrlimit(RLIMIT_FSIZE, &fs);
        }
    }
    if (geteuid() == 0 && w->uid != 0 &&
        (setgroups(0, NULL) != 0 || setresgid(w->gid, w->gid, w->gid) != 0 ||
         setresuid(w->uid, w->uid, w->uid) != 0))
        child_fail("the launch cannot drop to the unprivileged uid\n");
    /* A session keyring of its own, empty: the caller's keys are not
     * inherited (the outer filter then refuses every key call). */
    if (w->mode != LAUNCH_OFF)
        syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, (char *)NULL);
    /* After the ids changed (which clears it): die with the caller. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != p->parent)
        _exit(CHILD_EXIT_SETUP);
    affinity_pin_process(w->opt.cpu);
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    if (w->nproc) {
        rl.rlim_cur = rl.rlim_max = w->nproc;
        setrlimit(RLIMIT_NPROC, &rl);
    }
    if (w->mode == LAUNCH_REDUCED && chdir("/") != 0)
        child_fail("the launch cannot leave the caller's folder\n");
    if (p->install_filter &&
        (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
         prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->prog) != 0))
        child_fail("the launch cannot install the seccomp filter\n");
    if (p->exec_fd >= 0)
        syscall(SYS_execveat, p->exec_fd, "", p->argv, p->envp, AT_EMPTY_PATH);
    execve(p->path, p->argv, p->envp);
    child_fail(w->mode == LAUNCH_FULL ? "the launch cannot exec bubblewrap\n"
                                      : "the launch cannot exec the worker program\n");
}

/* bubblewrap's arguments for this start, the descriptors they name put in
 * p->pass. 0 or -1. */
static int bwrap_args(worker *w, arglist *a, spawn_plan *p, int *infofd)
{
    int fd, pipefd[2];
#define PASS(x)                                                                          \
    do {                                                                                 \
        if ((x) < 0 || p->n_pass >= LAUNCH_MAX_FDS)                                      \
            return -1;                                                                   \
        p->pass[p->n_pass++] = (x);                                                      \
    } while (0)
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
    for (char **e = w->envp; *e; e++) {
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
    fd = above_slots(data_fd(w->bpf, w->bpf_len));
    PASS(fd);
    arg(a, "--seccomp");
    arg_fd(a, fd);
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return -1;
    *infofd = pipefd[0];
    fd = above_slots(pipefd[1]);
    PASS(fd);
    arg(a, "--info-fd");
    arg_fd(a, fd);
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
        arg(a, LAUNCH_SCRATCH_BYTES);
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
    fd = above_slots(data_fd(LAUNCH_MACHINE_ID, strlen(LAUNCH_MACHINE_ID)));
    PASS(fd);
    arg(a, "--ro-bind-data");
    arg_fd(a, fd);
    arg(a, "/etc/machine-id");
    for (uint32_t i = 0; i < w->view.n; i++) {
        const view_entry *e = &w->view.e[i];
        if (e->kind == VIEW_LINK) {
            arg(a, "--symlink");
            arg(a, e->src);
            arg(a, e->dst);
            continue;
        }
        fd = above_slots(e->kind == VIEW_COPY ? reopen_copy(w) : view_open(e));
        if (fd < 0) {
            worker_set_err(w, "cannot open %s for the worker's view: %s", e->src,
                           errno == ESTALE ? "it was replaced since it was resolved"
                                           : strerror(errno));
            return -1;
        }
        PASS(fd);
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
    for (uint32_t i = 0; i < w->grant.n; i++) {
        const grant_bind *g = &w->grant.b[i];
        if (g->kind == GRANT_DEV || (g->kind == GRANT_RO && stat(g->src, &st) == 0 &&
                                     S_ISDIR(st.st_mode))) {
            arg(a, g->kind == GRANT_DEV ? "--dev-bind" : "--ro-bind");
            arg(a, g->src);
            arg(a, g->dst);
        }
    }
    arg(a, "--remount-ro");
    arg(a, "/");
    arg(a, "--chdir");
    arg(a, "/tmp");
#undef PASS
    return a->failed ? -1 : 0;
}

int launch_spawn(worker *w, int chan, int ctlfd)
{
    spawn_plan p;
    arglist a;
    int rc = -1, nullfd = -1, infofd = -1, argsfd = -1;
    char argsnum[16];
    char *bwrap_argv[] = {"bwrap", "--args", argsnum, "--", VIEW_PROGRAM, NULL};
    char *worker_argv[] = {"worker", NULL};
    char *no_env[] = {NULL};
    char bwrap[PATH_MAX];
    memset(&p, 0, sizeof p);
    memset(&a, 0, sizeof a);
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
    int out = w->opt.quiet ? nullfd : w->opt.capture_output && w->outfd >= 0 ? w->outfd : 2;
    int slots[WORKER_FD_COUNT] = {nullfd, out, w->setupfd, chan, w->memfd, w->rofd, ctlfd, out};
    memcpy(p.slot, slots, sizeof slots);
    for (int i = 0; i < CG_COUNT; i++)
        p.procs[i] = cg_procs_fd(&w->cg, i);
    p.parent = getpid();
    p.envp = no_env;
    if (w->mode == LAUNCH_FULL) {
        if (find_bwrap(bwrap) != 0) {
            worker_set_err(w, "bubblewrap (bwrap) is no longer there");
            goto done;
        }
        if (bwrap_args(w, &a, &p, &infofd) != 0) {
            if (!w->err[0] || a.failed)
                worker_set_err(w, "cannot prepare the worker's sandbox: %s", strerror(errno));
            goto done;
        }
        argsfd = above_slots(data_fd(a.buf, a.n));
        if (argsfd < 0 || p.n_pass >= LAUNCH_MAX_FDS) {
            worker_set_err(w, "cannot prepare the worker's sandbox: %s", strerror(errno));
            goto done;
        }
        p.pass[p.n_pass++] = argsfd;
        snprintf(argsnum, sizeof argsnum, "%d", argsfd);
        p.path = bwrap;
        p.argv = bwrap_argv;
    } else {
        p.path = w->program;
        p.argv = worker_argv;
        p.envp = w->envp;
        /* By a descriptor opened before the ids drop: the program's folder
         * need not be one the worker's uid may search. */
        p.exec_fd = above_slots(open(w->program, O_RDONLY | O_CLOEXEC));
        if (w->bpf) {
            p.prog.len = (unsigned short)(w->bpf_len / sizeof(struct sock_filter));
            p.prog.filter = (struct sock_filter *)(void *)w->bpf;
            p.install_filter = 1;
        }
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        worker_set_err(w, "fork: %s", strerror(errno));
        goto done;
    }
    if (pid == 0)
        spawn_child(w, &p);
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
    w->infofd = infofd;
    infofd = -1;
    rc = 0;
done:
    for (int i = 0; i < p.n_pass; i++)
        close(p.pass[i]);
    if (p.exec_fd >= 0)
        close(p.exec_fd);
    for (int i = 0; i < CG_COUNT; i++)
        if (p.procs[i] >= 0)
            close(p.procs[i]);
    if (infofd >= 0)
        close(infofd);
    if (nullfd >= 0)
        close(nullfd);
    dvg_free(a.buf);
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
    return worker_read_small(path, buf, sizeof buf) ? (pid_t)strtol(buf, NULL, 10) : 0;
}

pid_t launch_worker_pid(worker *w)
{
    char buf[1024];
    if (w->mode == LAUNCH_FULL) {
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
    return w->keeper ? first_child(w->pid) : w->pid;
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
    if (w->cg.have)
        cg_kill_all(&w->cg);
    if (w->infofd >= 0)
        close(w->infofd);
    w->infofd = -1;
}

void launch_free(worker *w)
{
    view_free(&w->view);
    grant_plan_free(&w->grant);
    for (char **e = w->envp; e && *e; e++)
        dvg_free(*e);
    dvg_free(w->envp);
    w->envp = NULL;
    if (w->plugin_copy >= 0)
        close(w->plugin_copy);
    w->plugin_copy = -1;
    if (w->privdir) {
        /* Only the harness wrote in it (the copy): no link to follow. */
        DIR *d = opendir(w->privdir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        if (d)
            closedir(d);
        rmdir(w->privdir);
        dvg_free(w->privdir);
        w->privdir = NULL;
    }
    dvg_free(w->bpf);
    w->bpf = NULL;
    w->bpf_len = 0;
    cg_close(&w->cg);
    if (w->setupfd >= 0)
        close(w->setupfd);
    if (w->infofd >= 0)
        close(w->infofd);
    w->setupfd = w->infofd = -1;
    w->mode = 0;
}
