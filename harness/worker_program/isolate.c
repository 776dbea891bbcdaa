/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/isolate.c: what the worker program does to itself, by
 * path and by process, before it loads a plugin.
 *
 * This file contains child_isolate, which the worker program calls once
 * its descriptors are in place: where no cgroup holds the worker
 * (reduced mode without one), it first forks, and the process that
 * called stays as the keeper: a child subreaper that waits for the
 * worker, then kills whatever the plugin left (a daemon that left its
 * session is reparented to the keeper, not to the host's init) and ends
 * the way the worker ended. Then Landlock, where the kernel has it: in a
 * view (LAUNCH_FULL) read everything in it and write only the scratch
 * (/tmp, /dev/shm); in reduced mode read only the files the harness
 * resolved (the plugin's copy and its libraries), /proc, the CPU's
 * description in /sys, the loader's cache and the devices, write nowhere;
 * no TCP (ABI 4), no signals or abstract sockets out of its domain (ABI
 * 6: the keeper is out of reach). Landlock survives exec, so it holds for
 * whatever the worker program may exec one day. And child_preload: in
 * reduced mode the plugin's copy lives apart from its libraries, so the
 * worker loads them first, by the paths the harness resolved (view.c),
 * and the copy's DT_NEEDED find them loaded.
 *
 * Everything here runs in the worker program only; nothing allocates
 * through dvg_malloc.
 */
#include "harness/worker_program/program.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Landlock past what older headers know (uapi values, stable). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#define ISOLATE_LL_NET_BIND_TCP (1ULL << 0)
#define ISOLATE_LL_NET_CONNECT_TCP (1ULL << 1)
#define ISOLATE_LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define ISOLATE_LL_SCOPE_SIGNAL (1ULL << 1)

/* ------------------------------------------------------------------------
 * The keeper
 * ---------------------------------------------------------------------- */

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

/* Kills every child this process has (the orphans reparented to it) until
 * none is left; reaps them. */
static void kill_children(void)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    for (int round = 0; round < 10000; round++) {
        size_t n = sandbox_read_small(path, buf, sizeof buf);
        if (n > 0) {
            for (char *p = buf; *p;) {
                char *end;
                long pid = strtol(p, &end, 10);
                if (end == p)
                    break;
                if (pid > 0)
                    kill((pid_t)pid, SIGKILL);
                p = end;
            }
        }
        while (waitpid(-1, NULL, WNOHANG) > 0)
            ;
        if (n <= 0 && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
            return;
        if (n <= 0) {
            struct timespec ts = {0, 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
}

/* The keeper's parent-death signal: caught, so that the keeper still kills
 * what it holds (a SIGKILL would leave the daemons to the host's init). */
static void keeper_told(int sig)
{
    (void)sig;
}

/* Forks; the caller stays as the keeper and never returns. The harness's
 * thread that started the worker may end before the worker is stopped
 * (the parent-death signal is the thread's): the keeper then gets
 * SIGTERM, kills its child and whatever the plugin left, and ends. */
static void become_keeper(void)
{
    if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
        _exit(CHILD_EXIT_SETUP);
    pid_t parent = getppid();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = keeper_told;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) != 0 || prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 ||
        getppid() != parent)
        _exit(CHILD_EXIT_SETUP);
    pid_t kid = fork();
    if (kid < 0)
        _exit(CHILD_EXIT_SETUP);
    if (kid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() == 1)
            _exit(CHILD_EXIT_SETUP);
        return;
    }
    /* Only the wait matters here: no descriptor of the worker's. */
    close_range(0, ~0u, 0);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    int st = 0;
    for (;;) {
        int s;
        pid_t got = waitpid(-1, &s, 0);
        if (got == kid) {
            st = s;
            break;
        }
        if (got < 0 && errno == EINTR && getppid() != parent) {
            st = W_EXITCODE(CHILD_EXIT_SETUP, 0); /* the harness is gone */
            break;
        }
        if (got < 0 && errno != EINTR)
            _exit(CHILD_EXIT_SETUP);
    }
    kill_children();
    end_like(st);
}

/* ------------------------------------------------------------------------
 * Landlock
 * ---------------------------------------------------------------------- */

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

/* Landlock where the kernel has it: 1 in force, 0 not. */
static int apply_landlock(const child_setup *cs)
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
    /* No execute right anywhere but on a grant's programs and an emulated
     * worker's emulator: the worker program never execs once it runs (its
     * own filter refuses exec too, from the end of open() where a grant
     * lets open() exec, and but for the emulator's one exec). */
    const uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
    const uint64_t dev_rw = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE;
    if (cs->mode == LAUNCH_FULL) {
        landlock_allow(rs, "/", read);
        landlock_allow(rs, "/tmp", fs & ~LANDLOCK_ACCESS_FS_EXECUTE);
        landlock_allow(rs, "/dev/shm", fs & ~LANDLOCK_ACCESS_FS_EXECUTE);
    } else {
        for (uint32_t i = 0; i < cs->n_read; i++)
            landlock_allow(rs, cs->read[i], LANDLOCK_ACCESS_FS_READ_FILE);
        landlock_allow(rs, "/proc", read);
        landlock_allow(rs, "/sys/devices/system/cpu", read);
        landlock_allow(rs, "/etc/ld.so.cache", LANDLOCK_ACCESS_FS_READ_FILE);
        /* What every process of the host may read, and ONNX Runtime
         * crashes without (a view has a machine-id that names none). */
        landlock_allow(rs, "/etc/machine-id", LANDLOCK_ACCESS_FS_READ_FILE);
    }
    /* A grant's (grant.h): the execute right on its programs and their
     * loaders only, its devices read-write. */
    for (uint32_t i = 0; i < cs->n_exec; i++)
        landlock_allow(rs, cs->exec[i], LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE);
    for (uint32_t i = 0; i < cs->n_dev; i++)
        landlock_allow(rs, cs->dev[i], dev_rw);
    /* An emulated worker: execute on the emulator's file alone (the
     * worker program's one exec, which its filter names too). */
    if (cs->emulator[0])
        landlock_allow(rs, cs->emulator,
                       LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE);
    landlock_allow(rs, "/dev/null", dev_rw);
    landlock_allow(rs, "/dev/zero", dev_rw);
    landlock_allow(rs, "/dev/urandom", LANDLOCK_ACCESS_FS_READ_FILE);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    int ok = syscall(SYS_landlock_restrict_self, rs, 0) == 0;
    close(rs);
    return ok;
#else
    (void)cs;
    return 0;
#endif
}

uint32_t child_isolate(const child_setup *cs)
{
    if (cs->mode == LAUNCH_OFF)
        return 0;
    if (cs->keeper)
        become_keeper();
    return apply_landlock(cs) ? WORKER_LAYER_LANDLOCK : 0;
}

int child_preload(const child_setup *cs, char *err, size_t cap)
{
    /* Global, as the plugin's own scope would hold them together (some
     * libraries count on a sibling's symbols), lazily bound, and again
     * while a round makes progress (a sibling's data may come later). */
    char *done = calloc(cs->n_preload + 1, 1);
    uint32_t left = cs->n_preload;
    if (!done) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    for (int progress = 1; left && progress;) {
        progress = 0;
        for (uint32_t i = 0; i < cs->n_preload; i++) {
            if (done[i])
                continue;
            dlerror();
            if (dlopen(cs->preload[i], RTLD_LAZY | RTLD_GLOBAL)) {
                done[i] = 1;
                left--;
                progress = 1;
            } else {
                const char *e = dlerror();
                snprintf(err, cap, "%s", e ? e : cs->preload[i]);
            }
        }
    }
    free(done);
    return left ? -1 : 0;
}
