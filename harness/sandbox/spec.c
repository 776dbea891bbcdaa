/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/spec.c: how a worker is confined on this host, decided
 * once per worker (sandbox_prepare) from its spec.
 *
 * The mode: LAUNCH_FULL, the worker program exec'd through bubblewrap
 * (bwrap.c), where user namespaces can be had; LAUNCH_REDUCED, the worker
 * program exec'd directly, where they cannot (a container's default
 * seccomp profile); LAUNCH_OFF for --sandbox off. The ids: an
 * unprivileged uid and gid when the caller is root (65534: the plugin
 * never runs as root). It finds the worker program (datadir_find_program)
 * and bubblewrap, builds the plugin's environment (the allowlist, the
 * grants' variables and the spec's --env; HOME and TMPDIR the scratch),
 * resolves the view (view.c) with what the grants add (grant.c),
 * snapshots the plugin's bytes (the private copy), makes the worker's
 * cgroup (cgroup.c) and exports the outer filter (seccomp.c). What the
 * harness's client does with it for each start (the fork, the ids, the
 * keyring, the exec) is its own; nothing here forks but the probe of
 * user namespaces and view_reachable's child.
 */
#include "harness/sandbox/sandbox_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/base/cpumodel.h"
#include "harness/base/datadir.h"

#ifndef DVG_BWRAP
#define DVG_BWRAP "/usr/bin/bwrap"
#endif
#define SANDBOX_WORKER_PROGRAM "divergence-worker"
#define SANDBOX_ID 65534u /* nobody/nogroup */

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

int sandbox_find_bwrap(char *out)
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
 * the grants' variables and spec->env. 0 or -1. */
static int build_env(sandbox_plan *s, const sandbox_spec *spec)
{
    char **env = NULL;
    size_t n = 0, cap = 0;
    int rc = -1;
    for (char **e = environ; e && *e; e++)
        if ((s->mode == LAUNCH_OFF || env_allowed(*e)) && env_put(&env, &n, &cap, *e) != 0)
            goto done;
    if (s->mode == LAUNCH_FULL &&
        (env_put(&env, &n, &cap, "HOME=/tmp") != 0 || env_put(&env, &n, &cap, "TMPDIR=/tmp") != 0))
        goto done;
    for (uint32_t i = 0; i < s->grant.n_env; i++)
        if (env_put(&env, &n, &cap, s->grant.env[i]) != 0)
            goto done;
    for (uint32_t i = 0; spec->env && i < spec->n_env; i++)
        if (spec->env[i] && env_put(&env, &n, &cap, spec->env[i]) != 0)
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
    s->envp = env;
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

/* A sealed memfd of the plugin's bytes (the view's VIEW_COPY entry), read
 * once: every life of the worker loads these bytes. Where the caller's
 * file size limit (ulimit -f) is below the plugin's size and cannot be
 * lifted for the copy (copy_fd_unlimited), the plugin's own file is bound
 * read-only instead (the worker's uid must be able to reach it). 0 or -1. */
static int snapshot_plugin(sandbox_plan *s)
{
    s->plugin_copy = -1;
    for (uint32_t i = 0; i < s->view.n; i++) {
        if (s->view.e[i].kind != VIEW_COPY)
            continue;
        int from = view_open(&s->view.e[i]);
        int to = memfd_create("", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        int ok = from >= 0 && to >= 0 && copy_fd_unlimited(from, to) == 0 && seal_copy(to) == 0;
        int e = errno;
        if (from >= 0)
            close(from);
        if (!ok) {
            if (to >= 0)
                close(to);
            if (e == EFBIG) {
                s->view.e[i].kind = VIEW_BIND;
                return 0;
            }
            errno = e;
            return -1;
        }
        s->plugin_copy = to;
        return 0;
    }
    return 0; /* no regular file: the loader will say so */
}

int sandbox_reopen_copy(const sandbox_plan *s)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", s->plugin_copy);
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

/* The view is built with the worker's rights: a file the worker's uid
 * cannot read is copied in only when the caller lent it by naming it
 * (the worker program, the plugin and what lies in the plugin's own folder
 * or below: its package), or when only a folder on its way stands between
 * (the file itself readable by all: a clone in a private 0700 folder).
 * Anything else the closure names (a DT_NEEDED with an absolute path, an
 * RPATH folder elsewhere) that is not readable by all stays out: the
 * harness, root, would read a secret for the plugin (a 0600 library in a
 * 0700 folder). 0, or -1 with err. */
static int lends_no_rights(const sandbox_plan *s, const char *plugin, char *err, size_t cap)
{
    char real[PATH_MAX], folder[PATH_MAX];
    if (!realpath(plugin, real))
        return 0; /* no such file: the loader will say so */
    snprintf(folder, sizeof folder, "%s", real);
    char *slash = strrchr(folder, '/');
    if (slash)
        slash[1] = '\0';
    size_t nf = strlen(folder);
    for (uint32_t i = 0; i < s->view.n; i++) {
        const view_entry *e = &s->view.e[i];
        struct stat st;
        if (e->kind != VIEW_BIND || !e->copy || !strcmp(e->dst, VIEW_PROGRAM) ||
            !strcmp(e->dst, VIEW_EMULATOR) || !strcmp(e->src, real) ||
            !strncmp(e->src, folder, nf) || (stat(e->src, &st) == 0 && (st.st_mode & S_IROTH)))
            continue;
        snprintf(err, cap, "cannot start a worker for %s: it needs %s, which uid %u cannot read; "
                           "the harness does not lend its own rights to a plugin's libraries: make "
                           "it readable to uid %u, or place it in the plugin's folder",
                 plugin, e->src, s->uid, s->uid);
        return -1;
    }
    return 0;
}

/* Full mode: bubblewrap copies into its tmpfs each file the worker's uid
 * cannot read, under the caller's file size limit where it cannot be
 * lifted (the launch's child). A copy over it would end in bubblewrap's
 * "Can't find source path" or a short write: said here instead, naming
 * the file, the limit and the way out. 0, or -1 with err. */
static int copies_fit(const sandbox_plan *s, char *err, size_t cap)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_max == RLIM_INFINITY)
        return 0;
    for (uint32_t i = 0; i < s->view.n; i++) {
        const view_entry *e = &s->view.e[i];
        struct stat st;
        if (e->kind != VIEW_BIND || !e->copy || stat(e->src, &st) != 0 ||
            (uint64_t)st.st_size <= (uint64_t)rl.rlim_max)
            continue;
        snprintf(err, cap, "cannot start a worker: uid %u cannot read %s, and the file size limit "
                           "(ulimit -f: %llu bytes) is below its size (%lld bytes), so no copy of "
                           "it can be made for the worker: raise the limit, or place it where "
                           "uid %u can read it", s->uid, e->src,
                 (unsigned long long)rl.rlim_max, (long long)st.st_size, s->uid);
        return -1;
    }
    return 0;
}

/* Reduced mode: the copy in a private folder the worker's uid can read
 * but not list or write, and a copy there of each library it cannot
 * reach (view_reachable); their paths replace the view's. 0 or -1. */
static int place_copy(sandbox_plan *s)
{
    char dir[PATH_MAX], *path;
    snprintf(dir, sizeof dir, "/tmp/worker.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    s->privdir = dvg_strdup(dir);
    if (!s->privdir || chmod(dir, getuid() == 0 ? 0711 : 0700) != 0)
        return -1;
    if (s->plugin_copy >= 0) {
        int from = sandbox_reopen_copy(s);
        int rc = copy_into(dir, s->view.plugin, from, &path);
        if (from >= 0)
            close(from);
        if (rc != 0)
            return -1;
        dvg_free(s->view.plugin);
        s->view.plugin = path;
    }
    for (uint32_t k = 0; k < s->view.n_preload; k++) {
        char real[PATH_MAX];
        if (!realpath(s->view.preload[k], real))
            continue;
        for (uint32_t i = 0; i < s->view.n; i++) {
            const view_entry *e = &s->view.e[i];
            if (!e->copy || strcmp(e->src, real))
                continue;
            int from = view_open(e);
            int rc = copy_into(dir, s->view.preload[k], from, &path);
            if (from >= 0)
                close(from);
            if (rc != 0)
                return -1;
            dvg_free(s->view.preload[k]);
            s->view.preload[k] = path;
            break;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Grants (grant.h)
 * ---------------------------------------------------------------------- */

/* Resolves what spec->grants add on this host into s->grant (the test
 * hook DIVERGENCE_TEST_GRANT_ROOT: the devices under that folder). 0, or
 * -1 with err. */
static int plan_grants(sandbox_plan *s, const sandbox_spec *spec, char *err, size_t cap)
{
    const char *root = getenv("DIVERGENCE_TEST_GRANT_ROOT");
    if (!spec->grants)
        return 0;
    return grant_plan_build(&s->grant, spec->grants, root ? root : "", err, cap);
}

/* The grant's objects and programs with their closure, and its files, into
 * the view (its folders and devices are bound by sandbox_bwrap). 0, or -1
 * with err. */
static int view_grants(sandbox_plan *s, char *err, size_t cap)
{
    const char *paths[64];
    uint32_t n = 0;
    char why[256];
    for (uint32_t i = 0; i < s->grant.n && n < 64; i++) {
        const grant_bind *b = &s->grant.b[i];
        struct stat st;
        if (b->kind == GRANT_OBJECT || b->kind == GRANT_PROGRAM)
            paths[n++] = b->src;
        else if (b->kind == GRANT_RO && stat(b->src, &st) == 0 && !S_ISDIR(st.st_mode) &&
                 view_add_file(&s->view, b->src) != 0) {
            snprintf(err, cap, "cannot add %s to the worker's view: %s", b->src, strerror(errno));
            return -1;
        }
    }
    if (n && view_add_objects(&s->view, paths, n, env_get(s->envp, "LD_LIBRARY_PATH"), why,
                              sizeof why) != 0) {
        snprintf(err, cap, "cannot grant %s: %s", paths[0], why);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * sandbox_prepare
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
        if (!sandbox_read_small(path, buf, sizeof buf))
            continue;
        const char *u = strstr(buf, "\nUid:");
        if (u && (unsigned)strtoul(u + 5, NULL, 10) == uid)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* The ids and the mode: bubblewrap where this host lets the worker's uid
 * make a user namespace, reduced where not (why says why), none with
 * --sandbox off. */
static void choose_mode(sandbox_plan *s, const sandbox_spec *spec, char *why, size_t cap)
{
    char bwrap[PATH_MAX];
    int is_root = geteuid() == 0;
    s->uid = is_root && spec->level != WORKER_SANDBOX_OFF ? SANDBOX_ID : (unsigned)getuid();
    s->gid = is_root && spec->level != WORKER_SANDBOX_OFF ? SANDBOX_ID : (unsigned)getgid();
    if (spec->level == WORKER_SANDBOX_OFF)
        s->mode = LAUNCH_OFF;
    else if (spec->hooks & SANDBOX_HOOK_REDUCED)
        s->mode = LAUNCH_REDUCED, snprintf(why, cap, "as DIVERGENCE_TEST_SANDBOX asks");
    else if (sandbox_find_bwrap(bwrap) != 0)
        s->mode = LAUNCH_REDUCED, snprintf(why, cap, "bubblewrap (bwrap) is not installed");
    else if (userns_available(s->uid, s->gid) < 0)
        s->mode = LAUNCH_REDUCED,
        snprintf(why, cap, "this host refuses user namespaces to uid %u", s->uid);
    else
        s->mode = LAUNCH_FULL;
}

/* The view (the program's and the plugin's closure, the grants', the
 * emulator), the plugin's copy, the cgroup. 0, or -1 with err. */
static int confine_files(sandbox_plan *s, const sandbox_spec *spec, char *err, size_t cap)
{
    char why[256];
    if (view_build(&s->view, s->program, spec->plugin, env_get(s->envp, "LD_LIBRARY_PATH"), why,
                   sizeof why) != 0) {
        snprintf(err, cap, "cannot start a worker for %s: %s", spec->plugin, why);
        return -1;
    }
    if (view_grants(s, err, cap) != 0)
        return -1;
    if (spec->cpu && s->mode == LAUNCH_FULL &&
        view_add_static(&s->view, VIEW_EMULATOR, s->emulator, why, sizeof why) != 0) {
        snprintf(err, cap, "cannot start an emulated worker: the emulator %s", why);
        return -1;
    }
    /* The plugin's bytes are copied into memory (twice under bubblewrap:
     * the snapshot and the view's tmpfs) for every worker: its apparent
     * size is bounded (a sparse file of 512 MiB, 20 KiB on disk, grew the
     * host's shared memory by 6.5 GiB over one certify). */
    struct stat pst;
    if (stat(spec->plugin, &pst) == 0 && (uint64_t)pst.st_size > SANDBOX_MAX_PLUGIN_BYTES) {
        snprintf(err, cap, "the plugin %s is %lld bytes (its apparent size), over the bound of "
                           "%llu MiB for the private copy each worker loads",
                 spec->plugin, (long long)pst.st_size,
                 (unsigned long long)(SANDBOX_MAX_PLUGIN_BYTES >> 20));
        return -1;
    }
    /* The snapshot first: where it cannot be made, the plugin is bound
     * and its reachability counts too. */
    if (snapshot_plugin(s) != 0) {
        snprintf(err, cap, "cannot copy the plugin %s: %s", spec->plugin, strerror(errno));
        return -1;
    }
    if (s->uid != (unsigned)geteuid() && view_reachable(&s->view, s->uid, s->gid) != 0) {
        snprintf(err, cap, "cannot tell what uid %u can read: %s", s->uid, strerror(errno));
        return -1;
    }
    if (s->uid != (unsigned)geteuid() && lends_no_rights(s, spec->plugin, err, cap) != 0)
        return -1;
    if (s->mode == LAUNCH_FULL && copies_fit(s, err, cap) != 0)
        return -1;
    if (s->mode == LAUNCH_REDUCED && place_copy(s) != 0) {
        snprintf(err, cap, "cannot place the plugin's private copy: %s", strerror(errno));
        return -1;
    }
    char cgwhy[256] = "";
    uint64_t n;
    pthread_mutex_lock(&probe_lock);
    n = ++serial;
    pthread_mutex_unlock(&probe_lock);
    if (!(spec->hooks & SANDBOX_HOOK_NOCGROUP))
        cg_open(&s->cg, n, spec->limit_pids, cgwhy, sizeof cgwhy);
    if (!s->cg.have && spec->limit_pids)
        s->nproc = processes_of(s->uid) + spec->limit_pids;
    s->keeper = s->mode == LAUNCH_REDUCED && !s->cg.have;
    return 0;
}

/* The outer filter as BPF into s->bpf. 0 or -1. */
static int export_filter(sandbox_plan *s)
{
    int fd = memfd_create("", MFD_CLOEXEC);
    struct stat st;
    if (fd < 0 || sandbox_outer_filter(fd, s->mode) != 0 || fstat(fd, &st) != 0 ||
        st.st_size <= 0 || !(s->bpf = dvg_malloc((size_t)st.st_size)) ||
        pread(fd, s->bpf, (size_t)st.st_size, 0) != st.st_size) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    s->bpf_len = (size_t)st.st_size;
    close(fd);
    return 0;
}

/* What spec asks and this host gives: 0; 1 with err when they part. */
static int check_host(const sandbox_plan *s, const sandbox_spec *spec, const char *why, char *err,
                      size_t cap)
{
    char planned[WORKER_LAYERS_TEXT];
    if (spec->level != WORKER_SANDBOX_STRICT ||
        (s->planned & WORKER_LAYER_ALL) == WORKER_LAYER_ALL)
        return 0;
    snprintf(err, cap, "--sandbox strict: this host allows only %s%s%s",
             worker_describe_layers(s->planned, planned, sizeof planned), why[0] ? " (" : "",
             why[0] ? why : "");
    if (why[0])
        strncat(err, ")", cap - strlen(err) - 1);
    return 1;
}

int sandbox_prepare(sandbox_plan *s, const sandbox_spec *spec, char *err, size_t cap)
{
    char why[512] = "";
    int rc = -1;
    s->plugin_copy = -1;
    err[0] = '\0';
    choose_mode(s, spec, why, sizeof why);
    if (s->mode == LAUNCH_REDUCED && (grant_flags(spec->grants) & GRANT_NEEDS_VIEW)) {
        char named[WORKER_SANDBOX_TEXT] = "";
        worker_describe_grants(spec->grants, named, sizeof named);
        snprintf(err, cap, "a grant needs the full sandbox (bubblewrap's view), and this host "
                           "runs reduced (%s):%.300s", why, named);
        rc = 1;
        goto fail;
    }
    if (plan_grants(s, spec, err, cap) != 0)
        goto fail;
    if (datadir_find_program(SANDBOX_WORKER_PROGRAM, s->program, sizeof s->program, why,
                             sizeof why) != 0) {
        snprintf(err, cap, "cannot start a worker: %s", why);
        goto fail;
    }
    if (spec->cpu && cpum_emulator(s->emulator, sizeof s->emulator, NULL, 0) != 0) {
        snprintf(err, cap, "cpu %s needs QEMU's user-mode emulator, and there is none: %s",
                 spec->cpu, cpum_no_emulator_why());
        rc = 1;
        goto fail;
    }
    if (build_env(s, spec) != 0) {
        snprintf(err, cap, "out of memory");
        goto fail;
    }
    if (s->mode != LAUNCH_OFF && confine_files(s, spec, err, cap) != 0)
        goto fail;
    if ((s->mode != LAUNCH_OFF || spec->confine) && export_filter(s) != 0) {
        snprintf(err, cap, "cannot build the seccomp filter");
        goto fail;
    }
    s->planned = s->mode == LAUNCH_OFF
                     ? WORKER_LAYER_OFF | (spec->confine ? WORKER_LAYER_SECCOMP : 0)
                     : WORKER_LAYER_LANDLOCK | WORKER_LAYER_SECCOMP | WORKER_LAYER_UNPRIV |
                           (s->cg.have ? WORKER_LAYER_CGROUP : 0) |
                           (s->mode == LAUNCH_FULL ? WORKER_LAYER_NS : WORKER_LAYER_NO_USERNS);
    s->want_filters = s->bpf ? 1 + (spec->confine ? 1 : 0) : 0;
    if (check_host(s, spec, why, err, cap) == 0)
        return 0;
    rc = 1;
fail:
    sandbox_free(s);
    return rc;
}

void sandbox_free(sandbox_plan *s)
{
    view_free(&s->view);
    grant_plan_free(&s->grant);
    for (char **e = s->envp; e && *e; e++)
        dvg_free(*e);
    dvg_free(s->envp);
    s->envp = NULL;
    if (s->plugin_copy >= 0)
        close(s->plugin_copy);
    s->plugin_copy = -1;
    if (s->privdir) {
        /* Only the harness wrote in it (the copy): no link to follow. */
        DIR *d = opendir(s->privdir);
        struct dirent *e;
        while (d && (e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
                unlinkat(dirfd(d), e->d_name, 0);
        if (d)
            closedir(d);
        rmdir(s->privdir);
        dvg_free(s->privdir);
        s->privdir = NULL;
    }
    dvg_free(s->bpf);
    s->bpf = NULL;
    s->bpf_len = 0;
    cg_close(&s->cg);
    s->mode = 0;
}
