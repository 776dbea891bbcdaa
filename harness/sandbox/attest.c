/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/attest.c: the layers a worker is under, as the harness
 * sees them from outside.
 *
 * This file contains what the harness checks of each worker process
 * before it is given a plugin call, from /proc and never from what the
 * worker (which shares memory with the plugin) says: its namespaces
 * (the links in /proc/PID/ns, each against this process's own), its seccomp mode and
 * filter count, no_new_privs, its effective and permitted capabilities,
 * its uid and gid (as this process sees them), its control groups. The
 * layers line of a certificate is what spec.c planned and this file
 * found in force; a runner forked by a zygote must show the zygote's
 * namespaces and at least its filters. Landlock leaves no trace in /proc:
 * its bit comes from the READY message the worker program sends before
 * any plugin code has run (a message the plugin cannot take back). This
 * file also keeps the run's floor: within a process, the first worker of
 * --sandbox auto sets the layers every later one must have (a later
 * worker with fewer ends the run), and it names the layers
 * (worker_describe_layers).
 */
#include "harness/sandbox/sandbox_internal.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const ns_file[ATTEST_NS] = {"user", "pid", "net", "mnt", "ipc", "uts"};
static const uint32_t ns_layer[ATTEST_NS] = {WORKER_LAYER_USER, WORKER_LAYER_PID,
                                             WORKER_LAYER_NET,  WORKER_LAYER_MOUNT,
                                             WORKER_LAYER_IPC,  WORKER_LAYER_UTS};

/* The value after "\n<key>:" in a /proc/PID/status text, or NULL. */
static const char *field(const char *status, const char *key)
{
    char k[48];
    snprintf(k, sizeof k, "\n%s:", key);
    const char *p = strstr(status, k);
    return p ? p + strlen(k) : NULL;
}

int attest_read(pid_t pid, attest_snapshot *s)
{
    char path[64], status[4096];
    memset(s, 0, sizeof *s);
    for (int i = 0; i < ATTEST_NS; i++) {
        snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns_file[i]);
        ssize_t n = readlink(path, s->ns[i], sizeof s->ns[i] - 1);
        if (n <= 0)
            return -1;
        s->ns[i][n] = '\0';
    }
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    if (!sandbox_read_small(path, status, sizeof status))
        return -1;
    const char *uid = field(status, "Uid"), *gid = field(status, "Gid"),
               *nnp = field(status, "NoNewPrivs"), *sec = field(status, "Seccomp"),
               *flt = field(status, "Seccomp_filters"), *eff = field(status, "CapEff"),
               *prm = field(status, "CapPrm");
    unsigned u[4], g[4];
    if (!uid || !gid || !nnp || !sec || !eff || !prm ||
        sscanf(uid, "%u %u %u %u", &u[0], &u[1], &u[2], &u[3]) != 4 ||
        sscanf(gid, "%u %u %u %u", &g[0], &g[1], &g[2], &g[3]) != 4)
        return -1;
    s->root = 0;
    for (int i = 0; i < 4; i++)
        s->root |= u[i] == 0 || g[i] == 0;
    s->uid = u[1];
    s->nnp = atoi(nnp) == 1;
    s->seccomp = atoi(sec);
    s->filters = flt ? atoi(flt) : (s->seccomp == 2);
    s->caps = strtoull(eff, NULL, 16) | strtoull(prm, NULL, 16);
    snprintf(path, sizeof path, "/proc/%d/cgroup", (int)pid);
    sandbox_read_small(path, s->cgroups, sizeof s->cgroups);
    return 0;
}

/* 1 when every group of c shows in the /proc/PID/cgroup text `seen`
 * (with its own name: worker.<pid>.<n>). */
static int in_groups(const cgroup *c, const char *seen)
{
    if (c->have != CG_ALL)
        return 0;
    for (int i = 0; i < CG_COUNT; i++) {
        const char *name = strrchr(c->dir[i], '/');
        char line[PATH_MAX];
        if (!name)
            return 0;
        snprintf(line, sizeof line, "%s\n", name);
        if (!strstr(seen, line))
            return 0;
    }
    return 1;
}

/* This process's own namespaces, read once (they do not change). */
static attest_snapshot self;
static int self_ok;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void read_self(void)
{
    self_ok = attest_read(getpid(), &self) == 0;
}

uint32_t attest_worker(sandbox_plan *sb, pid_t pid, uint32_t inner, char *why, size_t cap)
{
    attest_snapshot s;
    uint32_t layers = 0, plan = sb->planned;
    why[0] = '\0';
    pthread_once(&self_once, read_self);
    if (attest_read(pid, &s) != 0) {
        snprintf(why, cap, "the worker's /proc/%d cannot be read", (int)pid);
        return 0;
    }
    for (int i = 0; i < ATTEST_NS; i++)
        if ((plan & ns_layer[i]) && self_ok && strcmp(s.ns[i], self.ns[i]) != 0)
            layers |= ns_layer[i];
    if ((plan & WORKER_LAYER_SECCOMP) && s.seccomp == 2 && s.filters >= sb->want_filters)
        layers |= WORKER_LAYER_SECCOMP;
    if ((plan & WORKER_LAYER_UNPRIV) && !s.root && s.nnp && s.caps == 0)
        layers |= WORKER_LAYER_UNPRIV;
    if ((plan & WORKER_LAYER_CGROUP) && in_groups(&sb->cg, s.cgroups))
        layers |= WORKER_LAYER_CGROUP;
    layers |= plan & inner & WORKER_LAYER_LANDLOCK;
    layers |= plan & (WORKER_LAYER_OFF | WORKER_LAYER_NO_USERNS);
    sb->zsnap = s;
    return layers;
}

int attest_runner(const sandbox_plan *sb, pid_t pid, char *why, size_t cap)
{
    attest_snapshot s;
    const attest_snapshot *z = &sb->zsnap;
    if (attest_read(pid, &s) != 0) {
        snprintf(why, cap, "the runner's /proc/%d cannot be read", (int)pid);
        return -1;
    }
    for (int i = 0; i < ATTEST_NS; i++)
        if (strcmp(s.ns[i], z->ns[i]) != 0) {
            snprintf(why, cap, "a runner is not in its zygote's %s namespace", ns_file[i]);
            return -1;
        }
    if (s.seccomp != z->seccomp || s.filters < z->filters || s.nnp < z->nnp ||
        (s.caps & ~z->caps) || (s.root && !z->root) || strcmp(s.cgroups, z->cgroups) != 0) {
        snprintf(why, cap, "a runner lacks what its zygote had (seccomp %d/%d filters, "
                           "no_new_privs %d, capabilities %llx, uid %u)",
                 s.seccomp, s.filters, s.nnp, (unsigned long long)s.caps, s.uid);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The run's floor
 * ---------------------------------------------------------------------- */

static pthread_mutex_t floor_lock = PTHREAD_MUTEX_INITIALIZER;
static int floor_set;
static uint32_t floor_layers;

int attest_floor(uint32_t layers, char *why, size_t cap)
{
    int rc = 0;
    pthread_mutex_lock(&floor_lock);
    if (!floor_set) {
        floor_set = 1;
        floor_layers = layers;
    } else if ((layers & floor_layers) != floor_layers) {
        char had[WORKER_LAYERS_TEXT], has[WORKER_LAYERS_TEXT];
        snprintf(why, cap,
                 "the sandbox degraded within the run: the first worker had %s, this one only %s",
                 worker_describe_layers(floor_layers, had, sizeof had),
                 worker_describe_layers(layers, has, sizeof has));
        rc = -1;
    }
    pthread_mutex_unlock(&floor_lock);
    return rc;
}

/* ------------------------------------------------------------------------
 * Names
 * ---------------------------------------------------------------------- */

const char *worker_describe_layers(uint32_t layers, char *buf, size_t cap)
{
    static const char *const names[] = {"user", "pid", "net", "mount", "ipc", "uts"};
    size_t n = 0;
    if (!cap)
        return buf;
    buf[0] = '\0';
#define PUT(...)                                                                   \
    do {                                                                           \
        if (n < cap)                                                               \
            n += (size_t)snprintf(buf + n, cap - n, __VA_ARGS__);                  \
    } while (0)
    if (layers & WORKER_LAYER_OFF)
        PUT("UNCONFINED (--sandbox off): ");
    else if (layers & WORKER_LAYER_NO_USERNS)
        PUT("reduced (no user namespaces): ");
    else if ((layers & WORKER_LAYER_NS) != WORKER_LAYER_NS)
        PUT("reduced: ");
    int any = 0, parts = 0;
    for (int i = 0; i < 6; i++)
        if (layers & (1u << i))
            PUT("%s%s", any++ ? "," : "", names[i]);
    if (any) {
        PUT(" ns");
        parts++;
    }
    if (layers & WORKER_LAYER_LANDLOCK)
        PUT("%slandlock", parts++ ? " + " : "");
    if (layers & WORKER_LAYER_SECCOMP)
        PUT("%sseccomp", parts++ ? " + " : "");
    if (layers & WORKER_LAYER_UNPRIV)
        PUT("%sunprivileged uid", parts++ ? " + " : "");
    if (layers & WORKER_LAYER_CGROUP)
        PUT("%spids,memory cgroup", parts++ ? " + " : "");
    if (parts == 1 && (layers & WORKER_LAYER_OFF))
        PUT(" only");
    else if (!parts)
        PUT("no isolation");
    if (!(layers & WORKER_LAYER_OFF) && (layers & WORKER_LAYER_ALL) != WORKER_LAYER_ALL) {
        /* What is missing, by name. */
        int miss = 0;
        PUT("; missing: ");
        if ((layers & WORKER_LAYER_NS) != WORKER_LAYER_NS) {
            int k = 0;
            for (int i = 0; i < 6; i++)
                if (!(layers & (1u << i)))
                    PUT("%s%s", k++ ? "," : "", names[i]);
            PUT(" ns");
            miss++;
        }
        if (!(layers & WORKER_LAYER_LANDLOCK))
            PUT("%slandlock", miss++ ? ", " : "");
        if (!(layers & WORKER_LAYER_SECCOMP))
            PUT("%sseccomp", miss++ ? ", " : "");
        if (!(layers & WORKER_LAYER_UNPRIV))
            PUT("%sunprivileged uid", miss++ ? ", " : "");
        if (!(layers & WORKER_LAYER_CGROUP))
            PUT("%scgroup (limits by rlimit only)", miss++ ? ", " : "");
    }
#undef PUT
    return buf;
}

const char *worker_describe_sandbox(uint32_t layers, uint32_t grants, char *buf, size_t cap)
{
    worker_describe_layers(layers, buf, cap);
    return worker_describe_grants(grants, buf, cap);
}

size_t sandbox_read_small(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    return n > 0 ? (size_t)n : 0;
}
