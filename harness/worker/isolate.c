/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/isolate.c: the kernel's isolation of the child.
 *
 * This file contains child_isolate, which child_main calls once its
 * descriptors are in place and before it loads the plugin. It reduces the
 * environment to an allowlist (plus worker_options.env), then creates the
 * process that will load the plugin in new user, PID, network, mount, IPC
 * and UTS namespaces: clone(CLONE_NEWUSER | ...) of a namespace init that
 * maps an unprivileged id (65534 when started as root, the caller's own
 * otherwise; a root caller whose plugin 65534 cannot read maps the
 * plugin's owner instead), builds a read-only view of the file system on a tmpfs
 * (/usr, /lib*, /bin, /sbin, what the dynamic loader reads in /etc, the
 * plugin's directory, the directories of its DT_RUNPATH/DT_RPATH and of
 * LD_LIBRARY_PATH, /sys/devices/system/cpu, /dev/null, /dev/zero,
 * /dev/urandom, a fresh /proc of the new PID namespace, a private scratch
 * tmpfs as /tmp and /dev/shm), pivots into it and forks the plugin's
 * process (PID 2; the init stays to reap). The process that called stays
 * outside as the keeper: it waits and ends the way the plugin's process
 * ended (the same exit status or the same signal), so the parent's fault
 * classification, timeouts (a kill of the process group) and wait
 * statuses stay what they were. Where the kernel refuses the namespaces
 * the plugin's process is a plain fork (reduced), dropped to uid 65534
 * when started as root. Either way it then drops every capability and,
 * where the kernel has Landlock, restricts itself by path (read and
 * execute the view, write only the scratch; in reduced mode only the
 * directories above, no TCP, no signals out of its domain).
 *
 * Everything here runs in the child only; nothing allocates through
 * dvg_malloc.
 */
#include "harness/worker/worker_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Landlock past what older headers know (uapi values, stable). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#define ISOLATE_LL_NET_BIND_TCP (1ULL << 0)
#define ISOLATE_LL_NET_CONNECT_TCP (1ULL << 1)
#define ISOLATE_LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define ISOLATE_LL_SCOPE_SIGNAL (1ULL << 1)

#define ISOLATE_ID 65534u            /* nobody/nogroup: the id a root caller maps to */
#define ISOLATE_MAX_BINDS 48
#define ISOLATE_SCRATCH "size=67108864" /* 64 MiB of /tmp (WORKER_LIMIT_FSIZE) */

/* What the child keeps between the steps (it is a process of its own). */
typedef struct bind {
    char dst[PATH_MAX]; /* where it appears in the view (absolute) */
    char src[PATH_MAX]; /* what it is on the host (real path) */
} bind;

static bind binds[ISOLATE_MAX_BINDS];
static int n_binds;
static char plugin_real[PATH_MAX];
static char *env_kept[256];

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

/* environ := the allowlisted variables, HOME and TMPDIR (the scratch), then
 * o->env (a later K replaces an earlier one). */
static void reduce_environment(const worker_options *o, int scratch)
{
    static char home[] = "HOME=/tmp", tmpdir[] = "TMPDIR=/tmp";
    size_t n = 0, cap = sizeof env_kept / sizeof env_kept[0] - 1;
    for (char **e = environ; e && *e && n < cap; e++)
        if (env_allowed(*e))
            env_kept[n++] = *e;
    if (scratch && n + 2 <= cap) {
        env_kept[n++] = home;
        env_kept[n++] = tmpdir;
    }
    for (uint32_t i = 0; o->env && i < o->n_env && n < cap; i++) {
        const char *kv = o->env[i], *eq = kv ? strchr(kv, '=') : NULL;
        if (!eq || eq == kv)
            continue;
        for (size_t j = 0; j < n; j++)
            if (strncmp(env_kept[j], kv, (size_t)(eq - kv) + 1) == 0)
                env_kept[j] = env_kept[--n];
        env_kept[n++] = (char *)(uintptr_t)kv;
    }
    env_kept[n] = NULL;
    environ = env_kept;
}

/* ------------------------------------------------------------------------
 * What the view holds
 * ---------------------------------------------------------------------- */

/* dst: `path` made absolute and lexically normal (no ., .., //). 0 or -1. */
static int normal_path(const char *path, char *dst, size_t cap)
{
    char tmp[PATH_MAX];
    if (path[0] != '/') {
        if (!getcwd(tmp, sizeof tmp) || strlen(tmp) + 1 + strlen(path) + 1 > sizeof tmp)
            return -1;
        strcat(tmp, "/");
        strcat(tmp, path);
    } else if (snprintf(tmp, sizeof tmp, "%s", path) >= (int)sizeof tmp) {
        return -1;
    }
    size_t n = 0;
    char *save = NULL;
    dst[0] = '\0';
    for (char *c = strtok_r(tmp, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (strcmp(c, ".") == 0)
            continue;
        if (strcmp(c, "..") == 0) {
            while (n > 0 && dst[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
            dst[n] = '\0';
            continue;
        }
        size_t l = strlen(c);
        if (n + 1 + l + 1 > cap)
            return -1;
        dst[n++] = '/';
        memcpy(dst + n, c, l + 1);
        n += l;
    }
    if (n == 0 && cap > 1)
        strcpy(dst, "/");
    return 0;
}

/* 1 when `path` is `dir` or lies under it. */
static int under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1)
        return 1;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

/* Adds `path` (a directory or a file) to the view at its normal path,
 * unless something added already covers it. */
static void add_bind(const char *path)
{
    char dst[PATH_MAX], src[PATH_MAX];
    if (n_binds >= ISOLATE_MAX_BINDS || !path || !path[0])
        return;
    if (normal_path(path, dst, sizeof dst) != 0 || !realpath(dst, src))
        return;
    if (strcmp(dst, "/") == 0)
        return; /* never the whole file system */
    for (int i = 0; i < n_binds; i++)
        if (under(dst, binds[i].dst))
            return;
    snprintf(binds[n_binds].dst, sizeof binds[n_binds].dst, "%s", dst);
    snprintf(binds[n_binds].src, sizeof binds[n_binds].src, "%s", src);
    n_binds++;
}

/* Adds each directory of a colon-separated list ($ORIGIN: `origin`). */
static void add_path_list(const char *list, const char *origin)
{
    char dir[PATH_MAX];
    while (list && *list) {
        const char *end = strchr(list, ':');
        size_t n = end ? (size_t)(end - list) : strlen(list);
        size_t k = 0;
        for (size_t i = 0; i < n && k + 1 < sizeof dir;) {
            if (strncmp(list + i, "$ORIGIN", 7) == 0 || strncmp(list + i, "${ORIGIN}", 9) == 0) {
                size_t skip = list[i + 1] == '{' ? 9 : 7;
                k += (size_t)snprintf(dir + k, sizeof dir - k, "%s", origin);
                if (k >= sizeof dir)
                    k = sizeof dir - 1;
                i += skip;
            } else {
                dir[k++] = list[i++];
            }
        }
        dir[k] = '\0';
        if (k)
            add_bind(dir);
        list = end ? end + 1 : NULL;
    }
}

/* The DT_RUNPATH and DT_RPATH of the ELF file at `path` into out ("" when
 * none or not a 64-bit ELF). */
static void elf_runpath(const char *path, char *out, size_t cap)
{
    Elf64_Ehdr eh;
    Elf64_Phdr ph[64];
    out[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, 4) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
        eh.e_phnum == 0 || eh.e_phnum > 64 ||
        pread(fd, ph, eh.e_phnum * sizeof ph[0], (off_t)eh.e_phoff) !=
            (ssize_t)(eh.e_phnum * sizeof ph[0]))
        goto done;
    for (int i = 0; i < eh.e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC)
            continue;
        Elf64_Dyn dyn[256];
        size_t nd = ph[i].p_filesz / sizeof dyn[0];
        if (nd > 256)
            nd = 256;
        if (pread(fd, dyn, nd * sizeof dyn[0], (off_t)ph[i].p_offset) != (ssize_t)(nd * sizeof dyn[0]))
            goto done;
        uint64_t strtab = 0, want[2] = {UINT64_MAX, UINT64_MAX};
        for (size_t k = 0; k < nd && dyn[k].d_tag != DT_NULL; k++) {
            if (dyn[k].d_tag == DT_STRTAB)
                strtab = dyn[k].d_un.d_ptr;
            else if (dyn[k].d_tag == DT_RUNPATH)
                want[0] = dyn[k].d_un.d_val;
            else if (dyn[k].d_tag == DT_RPATH)
                want[1] = dyn[k].d_un.d_val;
        }
        /* The string table's file offset, from the load segment holding it. */
        uint64_t stroff = UINT64_MAX;
        for (int j = 0; j < eh.e_phnum; j++)
            if (ph[j].p_type == PT_LOAD && strtab >= ph[j].p_vaddr &&
                strtab < ph[j].p_vaddr + ph[j].p_filesz)
                stroff = strtab - ph[j].p_vaddr + ph[j].p_offset;
        if (stroff == UINT64_MAX)
            goto done;
        size_t k = 0;
        for (int w = 0; w < 2; w++) {
            if (want[w] == UINT64_MAX || k + 2 >= cap)
                continue;
            if (k)
                out[k++] = ':';
            ssize_t got = pread(fd, out + k, cap - k - 1, (off_t)(stroff + want[w]));
            if (got <= 0)
                continue;
            out[k + (size_t)got] = '\0';
            k += strlen(out + k);
        }
        out[k] = '\0';
        break;
    }
done:
    close(fd);
}

/* The directory of `path` into dir. */
static void plugin_dir(const char *path, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    else if (slash)
        slash[1] = '\0';
}

/* The list of what the view holds, for a plugin at `plugin` (real path). */
static void plan_view(const char *plugin)
{
    static const char *const base[] = {
        "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
        "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime",
        "/etc/alternatives", "/etc/os-release", "/sys/devices/system/cpu",
    };
    char origin[PATH_MAX], rp[8192];
    n_binds = 0;
    for (size_t i = 0; i < sizeof base / sizeof base[0]; i++) {
        struct stat st;
        if (lstat(base[i], &st) == 0 && (!S_ISLNK(st.st_mode) || strncmp(base[i], "/etc/", 5) == 0))
            add_bind(base[i]); /* the top-level links become links (build_view) */
    }
    plugin_dir(plugin, origin, sizeof origin);
    struct stat st;
    if (stat(plugin, &st) != 0 || S_ISREG(st.st_mode))
        add_bind(origin); /* not for a device or /proc file given as the plugin */
    elf_runpath(plugin, rp, sizeof rp);
    add_path_list(rp, origin);
    add_path_list(getenv("LD_LIBRARY_PATH"), origin);
}

/* ------------------------------------------------------------------------
 * Building the view (in the namespace init, before the plugin's fork)
 * ---------------------------------------------------------------------- */

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* mkdir -p of `path` (its last component a file when `file`). */
static int make_path(const char *path, int file)
{
    char tmp[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    if (file) {
        int fd = open(tmp, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
        close(fd);
        return 0;
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* Makes the mount at `path` and every one under it read-only, nosuid, nodev. */
static int seal_mount(const char *path)
{
#ifdef SYS_mount_setattr
    struct mount_attr a;
    memset(&a, 0, sizeof a);
    a.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
    if (syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a, sizeof a) == 0)
        return 0;
#endif
    return mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL);
}

/* Binds `src` (fd, opened before the host's /tmp was covered) read-only at
 * root + dst. */
static int bind_ro(int fd, const char *root, const char *dst, int file)
{
    char at[PATH_MAX], from[64];
    if (snprintf(at, sizeof at, "%s%s", root, dst) >= (int)sizeof at || make_path(at, file) != 0)
        return -1;
    snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
    if (mount(from, at, NULL, MS_BIND | MS_REC, NULL) != 0)
        return -1;
    return seal_mount(at);
}

/* The view, in the init of the new namespaces: 0, or -1 (errno). */
static int build_view(void)
{
    static const char *const devs[] = {"/dev/null", "/dev/zero", "/dev/urandom"};
    const char *root = "/tmp"; /* the staging point; the host's /tmp is covered */
    int fds[ISOLATE_MAX_BINDS], dfd[3];
    int rc = -1;
    for (int i = 0; i < n_binds; i++)
        fds[i] = open(binds[i].src, O_PATH | O_CLOEXEC);
    for (int i = 0; i < 3; i++)
        dfd[i] = open(devs[i], O_PATH | O_CLOEXEC);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1048576") != 0)
        goto done;
    /* The scratch first: a plugin that lives under /tmp is bound into it. */
    char at[PATH_MAX];
    snprintf(at, sizeof at, "%s/tmp", root);
    if (make_path(at, 0) != 0 || mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV,
                                       "mode=1777," ISOLATE_SCRATCH) != 0)
        goto done;
    for (int i = 0; i < n_binds; i++) {
        struct stat st;
        if (fds[i] >= 0 && fstat(fds[i], &st) == 0)
            bind_ro(fds[i], root, binds[i].dst, !S_ISDIR(st.st_mode));
    }
    /* The merged-/usr links (/lib -> usr/lib, ...) as links. */
    static const char *const links[] = {"/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin"};
    for (size_t i = 0; i < sizeof links / sizeof links[0]; i++) {
        char to[PATH_MAX], link_at[PATH_MAX];
        ssize_t n = readlink(links[i], to, sizeof to - 1);
        if (n <= 0)
            continue;
        to[n] = '\0';
        snprintf(link_at, sizeof link_at, "%s%s", root, links[i]);
        if (symlink(to, link_at) != 0 && errno != EEXIST)
            goto done;
    }
    for (int i = 0; i < 3; i++)
        if (dfd[i] >= 0 && bind_ro(dfd[i], root, devs[i], 1) != 0)
            goto done;
    /* A machine id that names no machine (ONNX Runtime faults without one). */
    snprintf(at, sizeof at, "%s/etc/machine-id", root);
    if (make_path(at, 1) != 0 || write_file(at, "00000000000000000000000000000001\n") != 0)
        goto done;
    snprintf(at, sizeof at, "%s/dev/shm", root);
    if (make_path(at, 0) != 0 || mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
                                       "mode=1777," ISOLATE_SCRATCH) != 0)
        goto done;
    snprintf(at, sizeof at, "%s/proc", root);
    if (make_path(at, 0) != 0 ||
        mount("proc", at, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        goto done;
    if (chdir(root) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
        umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
        goto done;
    if (mount(NULL, "/", NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
        goto done;
    if (chdir("/tmp") != 0)
        goto done;
    rc = 0;
done:
    for (int i = 0; i < n_binds; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    for (int i = 0; i < 3; i++)
        if (dfd[i] >= 0)
            close(dfd[i]);
    return rc;
}

/* ------------------------------------------------------------------------
 * Ids, capabilities, Landlock (the plugin's process)
 * ---------------------------------------------------------------------- */

/* Writes the id maps of the namespace of `pid` ("self" or a number): the
 * id `id` inside is `id` outside. */
static int map_ids(const char *pid, unsigned id, unsigned gid, int deny_groups)
{
    char path[64], text[64];
    snprintf(text, sizeof text, "%u %u 1\n", id, id);
    snprintf(path, sizeof path, "/proc/%s/uid_map", pid);
    if (write_file(path, text) != 0)
        return -1;
    snprintf(path, sizeof path, "/proc/%s/setgroups", pid);
    if (deny_groups && write_file(path, "deny") != 0)
        return -1;
    snprintf(text, sizeof text, "%u %u 1\n", gid, gid);
    snprintf(path, sizeof path, "/proc/%s/gid_map", pid);
    return write_file(path, text);
}

/* Every capability gone: bounding set, ambient set, then the sets. */
static void drop_capabilities(void)
{
    for (int c = 0; c < 64; c++)
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0 && errno == EINVAL)
            break;
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    syscall(SYS_capset, &h, d);
}

#ifdef SYS_landlock_create_ruleset
/* Allows `access` beneath `path` in ruleset `rs`. */
static void landlock_allow(int rs, const char *path, uint64_t access)
{
    struct landlock_path_beneath_attr pb;
    pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
    if (pb.parent_fd < 0)
        return;
    struct stat st;
    if (fstat(pb.parent_fd, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                  LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE;
    pb.allowed_access = access;
    syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
    close(pb.parent_fd);
}
#endif

/* Landlock where the kernel has it: 1 in force, 0 not. `view`: inside the
 * read-only view (read everything, write /tmp); otherwise the directories
 * plan_view listed plus /proc (read) and the devices. */
static int apply_landlock(int view)
{
#ifdef SYS_landlock_create_ruleset
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1)
        return 0;
    uint64_t fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1 */
    if (abi >= 2)
        fs |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
    /* struct landlock_ruleset_attr as of ABI 6; `size` says how much of
     * it the kernel reads. */
    struct {
        uint64_t handled_access_fs, handled_access_net, scoped;
    } attr = {fs, 0, 0};
    size_t size = sizeof(uint64_t);
    if (abi >= 4) {
        attr.handled_access_net = ISOLATE_LL_NET_CONNECT_TCP | ISOLATE_LL_NET_BIND_TCP;
        size = 2 * sizeof(uint64_t);
    }
    if (abi >= 6) {
        attr.scoped = ISOLATE_LL_SCOPE_SIGNAL | ISOLATE_LL_SCOPE_ABSTRACT_UNIX;
        size = sizeof attr;
    }
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0)
        return 0;
    const uint64_t read = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE |
                          LANDLOCK_ACCESS_FS_READ_DIR;
    const uint64_t dev_rw = read | LANDLOCK_ACCESS_FS_WRITE_FILE;
    if (view) {
        landlock_allow(rs, "/", read);
        landlock_allow(rs, "/tmp", fs);
        landlock_allow(rs, "/dev/shm", fs);
    } else {
        for (int i = 0; i < n_binds; i++)
            landlock_allow(rs, binds[i].src, read);
        landlock_allow(rs, "/proc", read);
        landlock_allow(rs, "/etc", read);
    }
    landlock_allow(rs, "/dev/null", dev_rw);
    landlock_allow(rs, "/dev/zero", dev_rw);
    landlock_allow(rs, "/dev/urandom", read);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    int ok = syscall(SYS_landlock_restrict_self, rs, 0) == 0;
    close(rs);
    return ok;
#else
    (void)view;
    return 0;
#endif
}

/* ------------------------------------------------------------------------
 * The keeper and the init
 * ---------------------------------------------------------------------- */

/* Closes every descriptor but `keep`. */
static void close_all_but(int keep)
{
    if (keep > 0)
        close_range(0, (unsigned)keep - 1, 0);
    close_range((unsigned)keep + 1, ~0u, 0);
}

/* Ends this process the way wait status `st` says another ended. */
__attribute__((noreturn)) static void end_like(int st)
{
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        struct rlimit rl = {0, 0};
        setrlimit(RLIMIT_CORE, &rl);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : CHILD_EXIT_SETUP);
}

/* The keeper (outside) or the namespace init: waits for `kid`, reaping
 * whatever else it is given; the init reports kid's status into `out`, the
 * keeper takes it from `in` (when the init wrote one) and ends like it. */
__attribute__((noreturn)) static void wait_for(pid_t kid, int in, int out)
{
    close_all_but(in >= 0 ? in : out);
    int st = 0;
    for (;;) {
        int s;
        pid_t got = waitpid(-1, &s, 0);
        if (got == kid) {
            st = s;
            break;
        }
        if (got < 0 && errno != EINTR)
            _exit(CHILD_EXIT_SETUP);
    }
    if (out >= 0) {
        ssize_t n = write(out, &st, sizeof st);
        _exit(n == (ssize_t)sizeof st ? 0 : CHILD_EXIT_SETUP);
    }
    int inner;
    if (in >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
        read(in, &inner, sizeof inner) == (ssize_t)sizeof inner)
        st = inner;
    end_like(st);
}

/* 1 when the file at `path` can be opened for reading as id/gid. */
static int readable_as(const char *path, unsigned id, unsigned gid)
{
    setfsgid(gid);
    setfsuid(id); /* and without the file capabilities */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    setfsuid(0);
    setfsgid(0);
    if (fd >= 0)
        close(fd);
    return fd >= 0;
}

uint32_t child_isolate(worker *w)
{
    uint32_t layers = 0, owner = 0;
    if (w->opt.sandbox == WORKER_SANDBOX_OFF)
        return WORKER_LAYER_OFF;
    if (realpath(w->path, plugin_real))
        w->path = plugin_real; /* the view holds the plugin at its real path */
    plan_view(w->path);
    reduce_environment(&w->opt, 1);

    int status[2], go[2];
    if (pipe2(status, O_CLOEXEC) != 0 || pipe2(go, O_CLOEXEC) != 0)
        _exit(CHILD_EXIT_SETUP);
    const int ns = CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC |
                   CLONE_NEWUTS;
    uid_t uid = geteuid();
    unsigned id = uid == 0 ? ISOLATE_ID : (unsigned)uid;
    unsigned gid = uid == 0 ? ISOLATE_ID : (unsigned)getegid();
    if (uid == 0 && !readable_as(w->path, id, gid)) {
        /* A plugin only root may read (a private directory): the id of
         * its owner, in the same read-only view. */
        struct stat st;
        char dir[PATH_MAX];
        plugin_dir(w->path, dir, sizeof dir);
        if (stat(w->path, &st) == 0 || stat(dir, &st) == 0) {
            id = (unsigned)st.st_uid;
            gid = (unsigned)st.st_gid;
            owner = WORKER_LAYER_OWNER_ID;
        }
    }
    pid_t init = (pid_t)syscall(SYS_clone, ns | SIGCHLD, NULL, NULL, NULL, NULL);
    if (init > 0) {
        /* The keeper. A root caller maps the init's ids (only it may map
         * an id other than its own); the init maps its own otherwise. */
        char pid[24];
        snprintf(pid, sizeof pid, "%d", (int)init);
        char ok = uid != 0 || map_ids(pid, id, gid, 0) == 0 ? 1 : 0;
        if (write(go[1], &ok, 1) != 1) {
            /* the init is gone: its status says how */
        }
        close(status[1]);
        wait_for(init, status[0], -1);
    }
    if (init == 0) {
        /* The init of the new namespaces. */
        char ok = 0;
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        prctl(PR_SET_DUMPABLE, 1, 0, 0, 0); /* its /proc/self/uid_map its own */
        if (read(go[0], &ok, 1) != 1 || !ok)
            _exit(CHILD_EXIT_SETUP);
        if (uid != 0 && map_ids("self", id, gid, 1) != 0)
            _exit(CHILD_EXIT_SETUP);
        setgroups(0, NULL); /* refused (and not needed) when "deny" was written */
        if (setresgid(gid, gid, gid) != 0 || setresuid(id, id, id) != 0)
            _exit(CHILD_EXIT_SETUP);
        if (build_view() != 0)
            _exit(CHILD_EXIT_SETUP);
        layers = WORKER_LAYER_USER | WORKER_LAYER_PID | WORKER_LAYER_NET | WORKER_LAYER_MOUNT |
                 WORKER_LAYER_IPC | WORKER_LAYER_UTS | owner;
        pid_t kid = fork();
        if (kid < 0)
            _exit(CHILD_EXIT_SETUP);
        if (kid > 0)
            wait_for(kid, -1, status[1]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != 1)
            _exit(CHILD_EXIT_SETUP);
    } else {
        /* Refused (no user namespaces): a plain fork, the keeper outside. */
        pid_t kid = fork();
        if (kid < 0)
            _exit(CHILD_EXIT_SETUP);
        if (kid > 0) {
            close(status[1]);
            wait_for(kid, -1, -1);
        }
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        layers = WORKER_LAYER_NO_USERNS;
        /* Root drops to 65534 (where that id exists: inside a user
         * namespace that maps only 0 it does not, and the capabilities
         * go below). */
        if (uid == 0 && setgroups(0, NULL) == 0 && setresgid(gid, gid, gid) == 0)
            setresuid(id, id, id);
    }
    close(status[0]);
    close(status[1]);
    close(go[0]);
    close(go[1]);
    /* Its /proc/self as any process's (the harness is not dumpable). */
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
    drop_capabilities();
    if (apply_landlock(layers & WORKER_LAYER_MOUNT))
        layers |= WORKER_LAYER_LANDLOCK;
    return layers;
}

const char *worker_describe_layers(uint32_t layers, char *buf, size_t cap)
{
    static const char *const names[] = {"user", "pid", "net", "mount", "ipc", "uts"};
    size_t n = 0;
    if (!cap)
        return buf;
    buf[0] = '\0';
    if (layers & WORKER_LAYER_OFF)
        n += (size_t)snprintf(buf + n, cap - n, "off (--sandbox off): ");
    else if (layers & WORKER_LAYER_NO_USERNS)
        n += (size_t)snprintf(buf + n, cap - n, "reduced (no user namespaces): ");
    else if ((layers & (WORKER_LAYER_ALL & ~(WORKER_LAYER_LANDLOCK | WORKER_LAYER_SECCOMP))) == 0)
        n += (size_t)snprintf(buf + n, cap - n, "reduced: ");
    int any = 0;
    for (int i = 0; i < 6 && n < cap; i++)
        if (layers & (1u << i))
            n += (size_t)snprintf(buf + n, cap - n, "%s%s", any++ ? "," : "", names[i]);
    if (any && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, " ns%s", layers & WORKER_LAYER_OWNER_ID
                                                              ? " (as the plugin's owner)"
                                                              : "");
    int parts = any;
    if ((layers & WORKER_LAYER_LANDLOCK) && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%slandlock", parts++ ? " + " : "");
    if ((layers & WORKER_LAYER_SECCOMP) && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "%sseccomp", parts++ ? " + " : "");
    if (parts == 1 && !any && n < cap)
        snprintf(buf + n, cap - n, " only");
    else if (!parts && n < cap)
        snprintf(buf + n, cap - n, "no isolation");
    return buf;
}
