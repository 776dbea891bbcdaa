/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/intruder.c: the second round of sandbox attacks (issue 24),
 * as a hostile vendor would try them (README.md lists what the harness
 * must make of each). Linked into every hp_<mode>.so with hostile.c; the
 * load-time attacks run in the constructor and in open(), so every command
 * that loads a plugin meets them. Each prints one line per attempt on
 * stderr, "hostile-<mode>: <what>: <result>", which the harness shows
 * prefixed (test_confinement.sh reads them).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hostile.h"
#include "harness/worker/wire.h"

#define MODE hostile_mode

/* The folder this plugin was loaded from (dladdr), "" when unknown. */
static const char *origin(void)
{
    static char dir[4096];
    Dl_info info;
    if (!dir[0] && dladdr((void *)origin, &info) && info.dli_fname) {
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
    }
    return dir;
}

/* The load-time attacks' results, one "code=ok|LEAK|N" each: printed on
 * stderr and carried in the version string (fuzz and sweep keep a
 * plugin's output away from the terminal, but print its version). */
static char report[WORKER_NAME_MAX - 1] = "1"; /* a version of at most 254 bytes */

static void note(const char *code, const char *result)
{
    size_t n = strlen(report);
    snprintf(report + n, sizeof report - n, " %s=%s", code, result);
}

const char *intruder_version(void)
{
    return report;
}

/* Reads up to cap - 1 bytes of `path` into buf: the count, or -errno. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, cap - 1);
    int e = errno;
    close(fd);
    if (n < 0)
        return -e;
    buf[n] = '\0';
    return n;
}

/* Prints `what: <the first line of the secret found in buf>` or the
 * error. A secret is any text starting "HOSTILE_SECRET=" or "s3cret". */
static int report_secret(const char *what, const char *buf, ssize_t n)
{
    const char *p = NULL;
    if (n > 0)
        for (ssize_t i = 0; i < n && !p; i++)
            if (!strncmp(buf + i, "HOSTILE_SECRET=", 15) || !strncmp(buf + i, "s3cret", 6))
                p = buf + i;
    if (p)
        fprintf(stderr, "hostile-intruder: %s: found %.60s\n", what, p);
    else
        fprintf(stderr, "hostile-intruder: %s: %s\n", what,
                n < 0 ? strerror((int)-n) : "no secret");
    return p != NULL;
}

/* The caller's secrets: the environment block of this process, of the
 * namespace's init and of every ancestor in sight; the session keyring. */
static void steal_secrets(void)
{
    static char buf[1 << 16];
    char path[64];
    ssize_t n = slurp("/proc/self/environ", buf, sizeof buf);
    note("env", report_secret("environ of self", buf, n) ? "LEAK" : "ok");
    n = slurp("/proc/1/environ", buf, sizeof buf);
    note("init", report_secret("environ of pid 1", buf, n) ? "LEAK" : "ok");
    int anc = 0;
    for (pid_t p = getppid(); p > 1;) {
        snprintf(path, sizeof path, "/proc/%d/environ", (int)p);
        n = slurp(path, buf, sizeof buf);
        anc |= report_secret("environ of an ancestor", buf, n);
        snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
        char st[512];
        if (slurp(path, st, sizeof st) <= 0)
            break;
        const char *rp = strrchr(st, ')');
        int ppid = 0;
        char state;
        if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2)
            break;
        p = ppid;
    }
    note("anc", anc ? "LEAK" : "ok");
    /* The session keyring: its keys' ids, then each key's payload. */
    int32_t ids[64];
    long k = syscall(SYS_keyctl, 11 /* KEYCTL_READ */, -3 /* KEY_SPEC_SESSION_KEYRING */, ids,
                     sizeof ids);
    int found = 0;
    if (k < 0) {
        fprintf(stderr, "hostile-intruder: session keyring: %s\n", strerror(errno));
    } else {
        for (long i = 0; i < k / 4 && i < 64; i++) {
            long m = syscall(SYS_keyctl, 11, ids[i], buf, sizeof buf - 1);
            if (m > 0) {
                buf[m] = '\0';
                if (strstr(buf, "s3cret")) {
                    fprintf(stderr, "hostile-intruder: session keyring: found %.60s\n", buf);
                    found = 1;
                }
            }
        }
        if (!found)
            fprintf(stderr, "hostile-intruder: session keyring: %ld keys, no secret\n", k / 4);
    }
    note("key", found ? "LEAK" : "ok");
}

/* Files the plugin names: beside it (a secret, the caller's store, a UNIX
 * socket: its own folder is in its DT_RUNPATH) and in the folder above
 * (also in its DT_RUNPATH). */
static void reach_files(void)
{
    char path[4200], buf[4096];
    const char *dir = origin();
    snprintf(path, sizeof path, "%s/secret.txt", dir);
    ssize_t n = slurp(path, buf, sizeof buf);
    note("beside", report_secret("read the file beside the plugin", buf, n) ? "LEAK" : "ok");
    snprintf(path, sizeof path, "%s/../secret-above.txt", dir);
    n = slurp(path, buf, sizeof buf);
    note("above", report_secret("read the file in the folder above", buf, n) ? "LEAK" : "ok");
    snprintf(path, sizeof path, "%s/store.db", dir);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    fprintf(stderr, "hostile-intruder: open the store beside the plugin: %s\n",
            fd >= 0 ? "opened" : strerror(errno));
    note("store", fd >= 0 ? "LEAK" : "ok");
    if (fd >= 0)
        close(fd);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const char *res = s < 0 ? strerror(errno) : NULL;
    if (s >= 0) {
        struct sockaddr_un sa;
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        size_t dl = strlen(dir);
        if (dl + 12 > sizeof sa.sun_path)
            dl = sizeof sa.sun_path - 12;
        memcpy(sa.sun_path, dir, dl);
        memcpy(sa.sun_path + dl, "/agent.sock", 12);
        if (connect(s, (struct sockaddr *)&sa, sizeof sa) == 0) {
            ssize_t w = write(s, "HOSTILE-CONNECTED\n", 18);
            (void)w;
            res = "connected";
        } else {
            res = strerror(errno);
        }
        close(s);
    }
    fprintf(stderr, "hostile-intruder: connect to the socket beside the plugin: %s\n", res);
    note("sock", !strcmp(res, "connected") ? "LEAK" : "ok");
    DIR *d = opendir(dir);
    int beside = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        beside += strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                  strcmp(e->d_name, "hp_intruder.so");
    fprintf(stderr, "hostile-intruder: files beside the plugin: %d\n", beside);
    char num[16];
    snprintf(num, sizeof num, "%d", beside);
    note("ls", num);
    if (d)
        closedir(d);
}

/* Root, or a capability: the ids it runs as (in reduced mode the host's;
 * in a user namespace as mapped, root inside being root outside when the
 * caller's uid is mapped to 0) and CapEff. */
static void whoami(void)
{
    char buf[4096];
    unsigned long long eff = 0;
    if (slurp("/proc/self/status", buf, sizeof buf) > 0) {
        const char *c = strstr(buf, "\nCapEff:");
        if (c)
            eff = strtoull(c + 8, NULL, 16);
    }
    int root = getuid() == 0 || geteuid() == 0 || getgid() == 0 || eff != 0;
    fprintf(stderr, "hostile-intruder: uid %u, euid %u, gid %u, CapEff %llx\n", (unsigned)getuid(),
            (unsigned)geteuid(), (unsigned)getgid(), eff);
    note("root", root ? "LEAK" : "ok");
}

/* New namespaces, keys and the kernel's other surfaces. */
static void poke_kernel(void)
{
#define TRY(code, what, call)                                                           \
    do {                                                                                \
        errno = 0;                                                                      \
        long r_ = (long)(call);                                                         \
        fprintf(stderr, "hostile-intruder: %s: %s\n", what, r_ >= 0 ? "done" : strerror(errno)); \
        note(code, r_ >= 0 ? "LEAK" : "ok");                                            \
    } while (0)
    TRY("userns", "unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
    TRY("netns", "unshare(CLONE_NEWNET)", unshare(CLONE_NEWNET));
    TRY("setns", "setns", setns(0, CLONE_NEWNS));
    pid_t kid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNET | SIGCHLD, NULL, NULL,
                               NULL, NULL);
    if (kid == 0) {
        /* In a nested user and network namespace with every capability:
         * nfnetlink (nf_tables) is in reach. */
        int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, 12 /* NETLINK_NETFILTER */);
        _exit(nl >= 0 ? 0 : 1);
    }
    if (kid > 0) {
        int st;
        waitpid(kid, &st, 0);
        fprintf(stderr, "hostile-intruder: clone(CLONE_NEWUSER|CLONE_NEWNET): done%s\n",
                WIFEXITED(st) && WEXITSTATUS(st) == 0 ? ", nfnetlink reached" : "");
    } else {
        fprintf(stderr, "hostile-intruder: clone(CLONE_NEWUSER|CLONE_NEWNET): %s\n",
                strerror(errno));
    }
    note("nested", kid > 0 ? "LEAK" : "ok");
    TRY("keyctl", "keyctl(KEYCTL_JOIN_SESSION_KEYRING)", syscall(SYS_keyctl, 1, "hostile"));
    TRY("addkey", "add_key", syscall(SYS_add_key, "user", "hostile", "x", 1, -3));
    union bpf_attr ba;
    memset(&ba, 0, sizeof ba);
    TRY("bpf", "bpf", syscall(SYS_bpf, BPF_MAP_CREATE, &ba, sizeof ba));
    struct perf_event_attr pa;
    memset(&pa, 0, sizeof pa);
    pa.size = sizeof pa;
    pa.type = PERF_TYPE_SOFTWARE;
    pa.config = PERF_COUNT_SW_CPU_CLOCK;
    TRY("perf", "perf_event_open", syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0));
    TRY("uffd", "userfaultfd", syscall(SYS_userfaultfd, 0));
    char ring[128];
    memset(ring, 0, sizeof ring);
    TRY("uring", "io_uring_setup", syscall(SYS_io_uring_setup, 4, ring));
    TRY("mount", "mount", mount("none", "/tmp", "tmpfs", 0, NULL));
#undef TRY
}

/* Processes that outlive the worker: n daemons that leave their session,
 * named after the plugin's folder (so a test finds its own). Their count
 * goes into the report under `code` (NULL: stderr only). */
static void leave_daemons(int n, const char *code)
{
    char name[16];
    const char *dir = origin(), *base = strrchr(dir, '/');
    base = base ? base + 1 : dir;
    size_t len = strlen(base);
    size_t take = len > 12 ? 12 : len;
    memcpy(name, "hd", 2);
    memcpy(name + 2, base + len - take, take);
    name[2 + take] = '\0';
    int made = 0;
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            setsid();
            if (fork() == 0) {
                prctl(PR_SET_NAME, name, 0, 0, 0);
                for (;;)
                    sleep(3600);
            }
            _exit(0);
        }
        if (p > 0) {
            made++;
            waitpid(p, NULL, 0);
        }
    }
    fprintf(stderr, "hostile-intruder: daemons %s%s: %d forked\n", name,
            code ? "" : " (in open)", made);
    if (code) {
        char num[16];
        snprintf(num, sizeof num, "%d", made);
        note(code, num);
    }
}

/* A fork bomb, bounded so a harness without limits survives it. */
static void fork_bomb(void)
{
    static pid_t kids[1500];
    int made = 0;
    for (; made < 1500; made++) {
        pid_t p = fork();
        if (p == 0)
            for (;;)
                pause();
        if (p < 0)
            break;
        kids[made] = p;
    }
    fprintf(stderr, "hostile-intruder: fork bomb: %d processes made%s\n", made,
            made < 1500 ? ", then refused" : "");
    char num[16];
    snprintf(num, sizeof num, "%d", made);
    note("bomb", num);
    /* Gone again, so that the thread bomb meets the same limit afresh. */
    for (int i = 0; i < made; i++)
        kill(kids[i], SIGKILL);
    for (int i = 0; i < made; i++)
        waitpid(kids[i], NULL, 0);
}

/* A thread of the bomb: blocked until the pipe's write end closes (never,
 * for the ones that stay). */
static void *block(void *arg)
{
    char c;
    while (read((int)(intptr_t)arg, &c, 1) < 0 && errno == EINTR)
        ;
    return NULL;
}

/* Up to `want` threads with 64 KiB stacks, where nothing limits them;
 * they stay (blocked) when `keep`, else they end once counted (without
 * pthread_cancel, which would dlopen libgcc_s). The count made. */
static int thread_bomb(int want, int keep)
{
    static pthread_t t[4000];
    int p[2];
    if (pipe(p) != 0)
        return 0;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 64 * 1024);
    int made = 0;
    for (; made < want && made < 4000; made++)
        if (pthread_create(&t[made], &at, block, (void *)(intptr_t)p[0]) != 0)
            break;
    pthread_attr_destroy(&at);
    if (keep) {
        for (int i = 0; i < made; i++)
            pthread_detach(t[i]);
        return made;
    }
    close(p[1]);
    for (int i = 0; i < made; i++)
        pthread_join(t[i], NULL);
    close(p[0]);
    return made;
}

/* ---- the forged sandbox line -------------------------------------------- */

/* Rewrites the hello's layers, wherever the control block is mapped (a
 * shared mapping holding this plugin's name at the hello's name), to
 * "every layer", for two seconds. */
static void *forge(void *arg)
{
    (void)arg;
    for (int round = 0; round < 400; round++) {
        FILE *maps = fopen("/proc/self/maps", "re");
        char line[512];
        while (maps && fgets(line, sizeof line, maps)) {
            unsigned long lo, hi;
            char perms[8];
            if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || strcmp(perms, "rw-s") ||
                hi - lo < sizeof(ctl_hello))
                continue;
            for (unsigned long p = lo; p + sizeof(ctl_hello) <= hi; p += 8) {
                ctl_hello *h = (ctl_hello *)p;
                if (!strcmp(h->name, hostile_name)) {
                    h->layers = 255;
                    h->confined = 1;
                }
            }
        }
        if (maps)
            fclose(maps);
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* ---- compute-time attacks ------------------------------------------------ */

/* 256 MiB in memfds of 32 MiB (each under RLIMIT_FSIZE), which RLIMIT_AS
 * does not count: they are never mapped. */
static void memfd_hog(void)
{
    size_t mib = 0;
    static char chunk[1 << 20];
    memset(chunk, 0x5a, sizeof chunk);
    for (int f = 0; f < 8; f++) {
        int fd = memfd_create("hog", MFD_CLOEXEC);
        for (int k = 0; fd >= 0 && k < 32; k++, mib++)
            if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk)
                break;
        if (fd < 0)
            break;
        /* kept open: the memory stays held */
    }
    fprintf(stderr, "hostile-memfd: %zu MiB held in memfds\n", mib);
}

/* The cheap tells of a certification: a name that says "divergence" in the
 * process's or an ancestor's command line or name, in a memfd's name, or
 * the output pre-filled with the old fixed poison. */
static int certified(const dvg_tensor *c)
{
    char buf[8192], path[64];
    for (pid_t p = getpid(); p > 0;) {
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)p);
        ssize_t n = slurp(path, buf, sizeof buf);
        for (ssize_t i = 0; i < n; i++)
            if (!buf[i])
                buf[i] = ' ';
        if (n > 0 && strstr(buf, "divergence"))
            return 1;
        snprintf(path, sizeof path, "/proc/%d/comm", (int)p);
        if (slurp(path, buf, sizeof buf) > 0 && strstr(buf, "divergence"))
            return 1;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)p);
        if (slurp(path, buf, sizeof buf) <= 0)
            break;
        const char *rp = strrchr(buf, ')');
        int ppid = 0;
        char state;
        if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2 || ppid == p)
            break;
        p = ppid;
    }
    if (slurp("/proc/self/maps", buf, sizeof buf) > 0 && strstr(buf, "divergence"))
        return 1;
    for (int fd = 0; fd < 64; fd++) { /* memfds named, mapped or not */
        char link[256];
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n > 0) {
            link[n] = '\0';
            if (strstr(link, "divergence"))
                return 1;
        }
    }
    const uint8_t *o = c->data;
    if (o && c->nbytes >= 4) {
        int a5 = 1, x5a = 1;
        for (uint64_t i = 0; i < c->nbytes; i++) {
            a5 &= o[i] == 0xA5;
            x5a &= o[i] == 0x5A;
        }
        if (a5 || x5a)
            return 1;
    }
    return 0;
}

/* ---- the hooks hostile.c calls -------------------------------------------- */

int intruder_at_load(void)
{
    if (MODE == HOSTILE_NEEDPASSWD) {
        char buf[4096];
        ssize_t n = slurp("/etc/passwd", buf, sizeof buf);
        fprintf(stderr, "hostile-needpasswd: read /etc/passwd: %s\n",
                n > 0 ? "read" : strerror((int)-n));
    }
    if (MODE == HOSTILE_C1) /* its printed output: a title, a fake verdict, an override */
        fprintf(stderr, "hostile-c1: \xc2\x9d" "0;pwned\xc2\x9c\xc2\x85" "CONFORMANT \xe2\x80\xae"
                        "gnp.exe\xe2\x80\xac\n");
    if (MODE != HOSTILE_INTRUDER)
        return 0;
    fprintf(stderr, "hostile-intruder: loaded from %s\n", origin());
    whoami();
    steal_secrets();
    reach_files();
    poke_kernel();
    leave_daemons(33, "daemons");
    fork_bomb();
    int threads = thread_bomb(4000, 0);
    fprintf(stderr, "hostile-intruder: thread bomb: %d threads made\n", threads);
    char num[16];
    snprintf(num, sizeof num, "%d", threads);
    note("threads", num);
    fprintf(stderr, "hostile-intruder: report %s\n", report);
    return 0;
}

void intruder_at_open(void)
{
    if (MODE == HOSTILE_INTRUDER)
        leave_daemons(8, NULL); /* open() too, not only the constructor */
    if (MODE == HOSTILE_FORGELINE) {
        pthread_t t;
        if (pthread_create(&t, NULL, forge, NULL) == 0)
            pthread_detach(t);
    }
}

/* -1 not decided yet, 1 a certification was seen, 0 none. */
static int dieselgate_state = -1;

int32_t intruder_compute(const dvg_tensor *c, int trigger)
{
    if (MODE == HOSTILE_DIESELGATE && dieselgate_state < 0) {
        dieselgate_state = certified(c);
        fprintf(stderr, "hostile-dieselgate: %s\n",
                dieselgate_state ? "certification detected: behaving"
                                 : "no certification in sight: cutting corners");
    }
    if (!trigger)
        return DVG_OK;
    if (MODE == HOSTILE_THREADS) {
        static int once;
        if (!once++)
            fprintf(stderr, "hostile-threads: %d threads made\n", thread_bomb(4000, 1));
    }
    if (MODE == HOSTILE_MEMFD) {
        static int once;
        if (!once++)
            memfd_hog();
    }
    return DVG_OK;
}

int intruder_cuts_corners(void)
{
    return MODE == HOSTILE_DIESELGATE && dieselgate_state == 0;
}
