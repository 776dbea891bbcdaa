/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/cgroup.c: a control group per worker, where the caller
 * may make one.
 *
 * This file contains the harness's side of a worker's cgroup: finding the
 * memory and pids controllers of this process (cgroup v1 hierarchies, or
 * the v2 unified one where its folder can have both), a child group per
 * worker beside nothing else of the caller's (worker.<pid>.<n> under the
 * caller's own group, so the caller's limits still hold above it), its
 * pids limit (threads count), its memory limit (which counts what
 * RLIMIT_AS does not: memfd and tmpfs pages, the page cache the worker
 * reads into), how many times the kernel's OOM killer acted in it, the
 * killing of every process in it (a daemon that left its session and
 * process group included) and its removal. Groups a killed harness left
 * behind (worker.<pid>.* of a pid that is gone) are removed when the next
 * one is made. Where no group can be made (no permission, no controller),
 * cg_open says why and the worker goes without (worker.h, the layers).
 */
#include "harness/sandbox/sandbox_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const controller[CG_COUNT] = {"memory", "pids"};

/* Reads the small file dir/name into buf (cap bytes); its length, 0 when
 * it cannot (or it is empty). */
static size_t read_in(const char *dir, const char *name, char *buf, size_t cap)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return sandbox_read_small(path, buf, cap);
}

/* Writes text into dir/name. 0 or -1. */
static int write_in(const char *dir, const char *name, const char *text)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* The folder of this process's group for controller `want` ("memory",
 * "pids"; NULL: the v2 unified hierarchy) into dir. 0 or -1. */
static int own_group(const char *want, char *dir, size_t cap)
{
    char line[4096], path[PATH_MAX] = "", mount[PATH_MAX] = "", root[PATH_MAX] = "";
    int found = 0;
    FILE *f = fopen("/proc/self/cgroup", "re");
    while (f && !found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c1 = *c2 = '\0';
        const char *ctrls = c1 + 1, *p = c2 + 1;
        if (want) {
            char list[256], key[64];
            snprintf(list, sizeof list, ",%s,", ctrls);
            snprintf(key, sizeof key, ",%s,", want);
            found = strstr(list, key) != NULL;
        } else {
            found = !strcmp(line, "0") && !ctrls[0];
        }
        if (found)
            snprintf(path, sizeof path, "%s", p);
    }
    if (f)
        fclose(f);
    if (!found)
        return -1;
    /* Its mount: the cgroup (v1, with the controller among its options) or
     * cgroup2 file system; the group's path is below the mount's root. */
    f = fopen("/proc/self/mountinfo", "re");
    found = 0;
    while (f && !found && fgets(line, sizeof line, f)) {
        char r[PATH_MAX], m[PATH_MAX], type[64], opts[1024];
        const char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", r, m) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, opts) != 2)
            continue;
        if (want) {
            char list[1100], key[64];
            snprintf(list, sizeof list, ",%s,", opts);
            snprintf(key, sizeof key, ",%s,", want);
            found = !strcmp(type, "cgroup") && strstr(list, key);
        } else {
            found = !strcmp(type, "cgroup2");
        }
        if (found) {
            snprintf(mount, sizeof mount, "%s", m);
            snprintf(root, sizeof root, "%s", r);
        }
    }
    if (f)
        fclose(f);
    size_t rl = strlen(root);
    if (!found || (strcmp(root, "/") && strncmp(path, root, rl)))
        return -1;
    const char *below = strcmp(root, "/") ? path + rl : path;
    int n = snprintf(dir, cap, "%s%s", mount, strcmp(below, "/") ? below : "");
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* Removes the groups worker.<pid>.<n> in `base` of a pid that is gone. */
static void remove_stale(const char *base)
{
    DIR *d = opendir(base);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        long pid;
        if (sscanf(e->d_name, "worker.%ld.", &pid) != 1 || pid <= 0 ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[PATH_MAX + 300];
        snprintf(path, sizeof path, "%s/%s", base, e->d_name);
        rmdir(path); /* fails while a process is left in it: fine */
    }
    if (d)
        closedir(d);
}

/* Makes base/name with controller `which` usable in it (v2: both); 0 or -1. */
static int make_group(cgroup *c, int which, const char *base, const char *name)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/%s", base, name) >= (int)sizeof dir)
        return -1;
    remove_stale(base);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return -1;
    char probe[64];
    if (c->v2 && !read_in(dir, "memory.max", probe, sizeof probe)) {
        /* Not enabled below base: enable it there (refused when base has
         * processes of its own, cgroup v2's rule). */
        write_in(base, "cgroup.subtree_control", "+memory +pids");
        if (!read_in(dir, "memory.max", probe, sizeof probe) ||
            !read_in(dir, "pids.max", probe, sizeof probe)) {
            rmdir(dir);
            return -1;
        }
    }
    snprintf(c->dir[which], sizeof c->dir[which], "%s", dir);
    c->have |= 1u << which;
    return 0;
}

int cg_open(cgroup *c, uint64_t serial, uint32_t pids_max, char *why, size_t cap)
{
    char base[PATH_MAX], name[64];
    memset(c, 0, sizeof *c);
    snprintf(name, sizeof name, "worker.%ld.%llu", (long)getpid(), (unsigned long long)serial);
    for (int i = 0; i < CG_COUNT; i++)
        if (own_group(controller[i], base, sizeof base) == 0)
            make_group(c, i, base, name);
    if (c->have != CG_ALL && own_group(NULL, base, sizeof base) == 0) {
        cg_close(c);
        c->v2 = 1;
        if (make_group(c, CG_MEMORY, base, name) == 0) {
            c->have = CG_ALL;
            snprintf(c->dir[CG_PIDS], sizeof c->dir[CG_PIDS], "%s", c->dir[CG_MEMORY]);
        }
    }
    if (c->have != CG_ALL) {
        snprintf(why, cap, "no memory and pids cgroup can be made here (%s)",
                 c->have ? "only one controller" : strerror(errno ? errno : EPERM));
        cg_close(c);
        return -1;
    }
    char text[32];
    if (pids_max)
        snprintf(text, sizeof text, "%u", pids_max);
    else
        snprintf(text, sizeof text, "max");
    if (write_in(c->dir[CG_PIDS], "pids.max", text) != 0) {
        snprintf(why, cap, "cannot set pids.max in %s: %s", c->dir[CG_PIDS], strerror(errno));
        cg_close(c);
        return -1;
    }
    c->oom_seen = cg_oom_kills(c);
    return 0;
}

int cg_procs_fd(const cgroup *c, int which)
{
    char path[PATH_MAX + 32];
    if (!(c->have & (1u << which)))
        return -1;
    snprintf(path, sizeof path, "%s/cgroup.procs", c->dir[which]);
    return open(path, O_WRONLY | O_CLOEXEC);
}

uint64_t cg_memory_usage(const cgroup *c)
{
    char buf[256];
    if (!(c->have & CG_ALL))
        return 0;
    if (c->v2) {
        if (!read_in(c->dir[CG_MEMORY], "memory.current", buf, sizeof buf))
            return 0;
    } else if (!read_in(c->dir[CG_MEMORY], "memory.usage_in_bytes", buf, sizeof buf)) {
        return 0;
    }
    return strtoull(buf, NULL, 10);
}

int cg_set_memory(const cgroup *c, uint64_t bytes)
{
    char text[32];
    if (!(c->have & (1u << CG_MEMORY)))
        return -1;
    snprintf(text, sizeof text, "%llu", (unsigned long long)bytes);
    if (c->v2)
        return write_in(c->dir[CG_MEMORY], "memory.max", text) == 0 &&
                       (write_in(c->dir[CG_MEMORY], "memory.swap.max", "0") == 0 || errno == ENOENT)
                   ? 0
                   : -1;
    /* memsw (memory + swap) must stay at or above the memory limit. */
    write_in(c->dir[CG_MEMORY], "memory.memsw.limit_in_bytes", "-1");
    if (write_in(c->dir[CG_MEMORY], "memory.limit_in_bytes", text) != 0)
        return -1;
    write_in(c->dir[CG_MEMORY], "memory.memsw.limit_in_bytes", text);
    return 0;
}

uint64_t cg_oom_kills(const cgroup *c)
{
    char buf[1024];
    if (!(c->have & (1u << CG_MEMORY)) ||
        !read_in(c->dir[CG_MEMORY], c->v2 ? "memory.events" : "memory.oom_control", buf,
                 sizeof buf))
        return 0;
    const char *p = strstr(buf, "oom_kill ");
    return p ? strtoull(p + 9, NULL, 10) : 0;
}

/* The pids in group `dir` into pids (at most cap); their count. */
static size_t procs_of(const char *dir, pid_t *pids, size_t cap)
{
    char buf[8192];
    size_t n = 0;
    if (!read_in(dir, "cgroup.procs", buf, sizeof buf))
        return 0;
    for (char *p = buf; *p && n < cap;) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 0)
            pids[n++] = (pid_t)pid;
        p = end + (*end == '\n');
    }
    return n;
}

int cg_kill_all(const cgroup *c)
{
    if (!c->have)
        return 0;
    int which = c->have & (1u << CG_PIDS) ? CG_PIDS : CG_MEMORY;
    if (c->v2)
        write_in(c->dir[which], "cgroup.kill", "1");
    /* Kill what is listed until nothing is: a process that forks between
     * a read and the kills is met by the next round. */
    for (int round = 0; round < 10000; round++) {
        pid_t pids[512];
        size_t n = procs_of(c->dir[which], pids, 512);
        if (!n)
            return 0;
        for (size_t i = 0; i < n; i++)
            kill(pids[i], SIGKILL);
        struct timespec ts = {0, 200 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

void cg_close(cgroup *c)
{
    if (!c->have) {
        memset(c, 0, sizeof *c);
        return;
    }
    cg_kill_all(c);
    for (int i = 0; i < CG_COUNT; i++)
        if ((c->have & (1u << i)) && (i == CG_MEMORY || !c->v2)) {
            /* A process killed a moment ago may still be leaving it. */
            for (int k = 0; k < 5000 && rmdir(c->dir[i]) != 0 && errno == EBUSY; k++) {
                struct timespec ts = {0, 200 * 1000};
                nanosleep(&ts, NULL);
            }
        }
    memset(c, 0, sizeof *c);
}
