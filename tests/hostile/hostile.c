/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/hostile.c: what the hostile and malformed plugins do (see
 * hostile.h and README.md). Linked into every hp_<mode>.so together with
 * the reference kernel built with hostile.h's hooks; mode.c says which
 * mode the library is.
 */
#include <errno.h>
#include <fcntl.h>
#include <fenv.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/vm_sockets.h>
#include <mqueue.h>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "hostile.h"

#define MODE hostile_mode

/* ---- the trigger: some element of B is 3 --------------------------------- */

static const uint64_t three[DVG_DTYPE_COUNT] = {
    [DVG_DTYPE_F16] = 0x4200, [DVG_DTYPE_BF16] = 0x4040,
    [DVG_DTYPE_F32] = 0x40400000, [DVG_DTYPE_F64] = UINT64_C(0x4008000000000000),
    [DVG_DTYPE_I4] = 3, [DVG_DTYPE_I8] = 3, [DVG_DTYPE_I16] = 3, [DVG_DTYPE_I32] = 3,
    [DVG_DTYPE_I64] = 3, [DVG_DTYPE_U4] = 3, [DVG_DTYPE_U8] = 3, [DVG_DTYPE_U16] = 3,
    [DVG_DTYPE_U32] = 3, [DVG_DTYPE_U64] = 3,
};

static unsigned dtype_bits(uint32_t dtype)
{
    switch (dtype) {
    case DVG_DTYPE_I4: case DVG_DTYPE_U4: return 4;
    case DVG_DTYPE_I8: case DVG_DTYPE_U8: return 8;
    case DVG_DTYPE_F16: case DVG_DTYPE_BF16: case DVG_DTYPE_I16: case DVG_DTYPE_U16: return 16;
    case DVG_DTYPE_F32: case DVG_DTYPE_I32: case DVG_DTYPE_U32: return 32;
    default: return 64;
    }
}

static int has_three(const dvg_tensor *b)
{
    if (!b || b->dtype >= DVG_DTYPE_COUNT || !b->data)
        return 0;
    unsigned bits = dtype_bits(b->dtype);
    uint64_t n = bits == 4 ? b->nbytes * 2 : b->nbytes / (bits / 8);
    const uint8_t *p = b->data;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v = 0;
        if (bits == 4)
            v = (p[i / 2] >> (4 * (i & 1))) & 0xf;
        else
            memcpy(&v, p + i * (bits / 8), bits / 8); /* little-endian */
        if (v == three[b->dtype])
            return 1;
    }
    return 0;
}

/* ---- compute ------------------------------------------------------------------ */

#pragma GCC diagnostic ignored "-Winfinite-recursion" /* it is the point */
__attribute__((noinline)) static int deep(int n)
{
    volatile char frame[1024];
    frame[n & 1023] = (char)n;
    return deep(n + 1) + frame[(n * 7) & 1023];
}

static int32_t allocate_without_bound(void)
{
    const size_t chunk = (size_t)64 << 20;
    void *list = NULL;
    size_t mib = 0;
    /* Bounded at 2 GiB only so that a harness without limits does not
     * take the test machine down with it. */
    while (mib < 2048) {
        void **p = malloc(chunk);
        if (!p)
            break;
        memset(p, 0x5a, chunk);
        *p = list;
        list = p;
        mib += 64;
    }
    fprintf(stderr, "hostile-alloc: malloc %s after %zu MiB\n", mib < 2048 ? "failed" : "stopped",
            mib);
    while (list) {
        void *next = *(void **)list;
        free(list);
        list = next;
    }
    return mib < 2048 ? DVG_FAILURE : DVG_OK;
}

static int32_t fork_bomb(void)
{
    int made = 0, failed = 0, err = 0;
    for (int i = 0; i < 64; i++) {
        pid_t p = fork();
        if (p == 0) {
            fork(); /* and so on, one generation more */
            for (;;)
                pause();
        }
        if (p < 0) {
            failed++;
            err = errno;
        } else {
            made++;
        }
    }
    fprintf(stderr, "hostile-forkbomb: %d processes made, %d forks failed%s%s\n", made, failed,
            failed ? ": " : "", failed ? strerror(err) : "");
    return failed ? DVG_FAILURE : DVG_OK;
}

static void spew(FILE *f)
{
    static char line[65536];
    memset(line, 'x', sizeof line);
    line[sizeof line - 1] = '\n';
    for (int i = 0; i < 128; i++) /* 8 MiB */
        fwrite(line, 1, sizeof line, f);
    fflush(f);
}

static void on_segv(int sig)
{
    (void)sig;
    _exit(0);
}

static void *spin(void *arg)
{
    (void)arg;
    for (volatile unsigned long i = 0;; i++)
        ;
    return NULL;
}

/* 200 ms: well after the call, whose late-write watch waits up to 50 ms
 * per compute run (two runs) while this thread sleeps (harness/worker_program/child_late.c),
 * and well before test_hostile's next request (600 ms). */
static void *crash_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    *(volatile int *)(uintptr_t)arg = 1; /* arg is NULL */
    return NULL;
}

static void attack_parent(void)
{
    pid_t parent = getppid();
    int k = kill(parent, SIGKILL);
    int ke = errno;
    long t = ptrace(PTRACE_ATTACH, parent, NULL, NULL);
    int te = errno;
    fprintf(stderr, "hostile-attackparent: kill(%d): %s; ptrace: %s\n", (int)parent,
            k ? strerror(ke) : "done", t ? strerror(te) : "attached");
}

/* ---- the sandbox attacks (issue 13) -------------------------------------- */

/* The process `pid`'s parent (0 when unknown). */
static pid_t parent_of(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    char state;
    int ppid;
    return p && sscanf(p + 1, " %c %d", &state, &ppid) == 2 ? (pid_t)ppid : 0;
}

/* The harness, as the plugin may find it: the nearest ancestor whose
 * command line is a divergence's (0 when none can be seen). */
static pid_t find_harness(char *cmdline, size_t cap, size_t *len)
{
    for (pid_t p = getppid(); p >= 1; p = parent_of(p)) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/cmdline", (int)p);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n = fd >= 0 ? read(fd, cmdline, cap - 1) : -1;
        if (fd >= 0)
            close(fd);
        if (n > 0) {
            cmdline[n] = '\0';
            *len = (size_t)n;
            if (strstr(cmdline, "divergence") && memmem(cmdline, (size_t)n, "--plugin", 8))
                return p;
        }
        if (p <= 1)
            break;
    }
    return 0;
}

/* Attack 1: overwrite "NONCONFORMANT" in the harness's memory. */
static void attack_memory(pid_t h)
{
    char path[64], line[512];
    int replaced = 0, err = 0;
    snprintf(path, sizeof path, "/proc/%d/mem", (int)h);
    int mem = open(path, O_RDWR | O_CLOEXEC);
    if (mem < 0) {
        fprintf(stderr, "hostile-procmem: open %s: %s\n", path, strerror(errno));
        return;
    }
    snprintf(path, sizeof path, "/proc/%d/maps", (int)h);
    FILE *maps = fopen(path, "r");
    while (maps && fgets(line, sizeof line, maps)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
            hi - lo > (64ul << 20) || strstr(line, "["))
            continue;
        char *buf = malloc(hi - lo);
        if (!buf || pread(mem, buf, hi - lo, (off_t)lo) != (ssize_t)(hi - lo)) {
            free(buf);
            continue;
        }
        for (char *p = buf; (p = memmem(p, hi - lo - (size_t)(p - buf), "NONCONFORMANT", 13));
             p += 13) {
            if (pwrite(mem, "CONFORMANT\0\0\0", 13, (off_t)(lo + (unsigned long)(p - buf))) == 13)
                replaced++;
            else
                err = errno;
        }
        free(buf);
    }
    if (maps)
        fclose(maps);
    close(mem);
    fprintf(stderr, "hostile-procmem: %d replaced%s%s\n", replaced, err ? ", " : "",
            err ? strerror(err) : "");
}

/* Attack 3: truncate the harness's --db file. */
static void attack_db(pid_t h, const char *cmdline, size_t len)
{
    const char *db = NULL;
    for (const char *p = cmdline; p < cmdline + len; p += strlen(p) + 1)
        if (!strcmp(p, "--db") && p + strlen(p) + 1 < cmdline + len)
            db = p + strlen(p) + 1;
    if (!db) {
        fprintf(stderr, "hostile-dbattack: no --db on the harness's command line\n");
        return;
    }
    char path[4096];
    if (db[0] == '/')
        snprintf(path, sizeof path, "%s", db);
    else
        snprintf(path, sizeof path, "/proc/%d/cwd/%s", (int)h, db);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        fprintf(stderr, "hostile-dbattack: open: %s\n", strerror(errno));
        return;
    }
    int t = ftruncate(fd, 0);
    fprintf(stderr, "hostile-dbattack: ftruncate: %s\n", t ? strerror(errno) : "done");
    close(fd);
}

/* The third round's families and objects (issue 35): a host-wide AF_VSOCK
 * listener (a network namespace does not hold it), the kernel's netlink
 * and raw packets, and System V and POSIX IPC objects, which outlive the
 * worker where there is no IPC namespace (reduced mode). Each attempt's
 * result on stderr ("done" when it got through); the objects are left. */
static void say(const char *what, int r)
{
    fprintf(stderr, "hostile-netipc: %s: %s\n", what, r < 0 ? strerror(errno) : "done");
}

static void net_ipc_attack(void)
{
    int v = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
    say("vsock socket", v);
    if (v >= 0) {
        struct sockaddr_vm sa;
        memset(&sa, 0, sizeof sa);
        sa.svm_family = AF_VSOCK;
        sa.svm_cid = VMADDR_CID_ANY;
        sa.svm_port = 45911;
        int r = bind(v, (struct sockaddr *)&sa, sizeof sa);
        say("vsock listen", r == 0 ? listen(v, 1) : r); /* left open */
    }
    int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    say("netlink socket", nl);
    int pk = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
    say("packet socket", pk);
    int in = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    say("inet6 socket", in);
    say("shmget", shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600));
    say("msgget", msgget(IPC_PRIVATE, IPC_CREAT | 0600));
    say("semget", semget(IPC_PRIVATE, 1, IPC_CREAT | 0600));
    mqd_t q = mq_open("/hostile-netipc", O_CREAT | O_RDWR, 0600, NULL);
    say("mq_open", q == (mqd_t)-1 ? -1 : 0);
}

static void sandbox_attack(void)
{
    static int done;
    if (done++)
        return;
    char cmdline[8192];
    size_t len = 0;
    pid_t h = find_harness(cmdline, sizeof cmdline, &len);
    switch (MODE) {
    case HOSTILE_PROCMEM:
        if (h)
            attack_memory(h);
        else
            fprintf(stderr, "hostile-procmem: no harness in sight\n");
        break;
    case HOSTILE_DBATTACK:
        if (h)
            attack_db(h, cmdline, len);
        else
            fprintf(stderr, "hostile-dbattack: no harness in sight\n");
        break;
    case HOSTILE_TIOCSTI: {
        /* Attack 2: type a command into the user's terminal. */
        static const char cmd[] = "echo HOSTILE-INJECTED\n";
        int tty = open("/dev/tty", O_RDWR | O_CLOEXEC);
        int typed = 0, err = tty < 0 ? errno : 0;
        for (int fd = tty >= 0 ? tty : 0; fd == tty || fd <= 2; fd = fd == tty ? 0 : fd + 1) {
            for (const char *c = cmd; *c; c++) {
                if (ioctl(fd, TIOCSTI, c) == 0)
                    typed++;
                else
                    err = errno;
            }
            if (fd == 2)
                break;
        }
        fprintf(stderr, "hostile-tiocsti: %d bytes typed%s%s\n", typed, err ? ", " : "",
                err ? strerror(err) : "");
        if (tty >= 0)
            close(tty);
        break;
    }
    case HOSTILE_PGKILL: {
        /* Attack 4: join the caller's process group, then kill it. */
        int s = setpgid(0, getpgid(getppid()));
        fprintf(stderr, "hostile-pgkill: setpgid: %s\n", s ? strerror(errno) : "done");
        kill(0, SIGKILL);
        break;
    }
    case HOSTILE_ESCAPE: {
        /* Attack 5: the network, the caller's secrets and files, limits. */
        const char *port = getenv("HOSTILE_PORT");
        int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        const char *net = "no HOSTILE_PORT";
        if (sock < 0) {
            net = strerror(errno);
        } else if (port) {
            struct sockaddr_in sa;
            memset(&sa, 0, sizeof sa);
            sa.sin_family = AF_INET;
            sa.sin_port = htons((uint16_t)atoi(port));
            sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (connect(sock, (struct sockaddr *)&sa, sizeof sa) == 0) {
                ssize_t n = write(sock, "HOSTILE-CONNECTED\n", 18);
                (void)n;
                net = "connected";
            } else {
                net = strerror(errno);
            }
        }
        if (sock >= 0)
            close(sock);
        fprintf(stderr, "hostile-escape: connect: %s\n", net);
        const char *secret = getenv("HOSTILE_SECRET");
        fprintf(stderr, "hostile-escape: secret: %s\n", secret ? secret : "(none)");
        const char *home = getenv("HOME");
        char path[4096];
        const char *dirs[2] = {".", home};
        for (int i = 0; i < 2; i++) {
            if (!dirs[i])
                continue;
            snprintf(path, sizeof path, "%s/hostile-was-here", dirs[i]);
            int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            fprintf(stderr, "hostile-escape: create %s: %s\n", path, fd < 0 ? strerror(errno) : "done");
            if (fd >= 0)
                close(fd);
        }
        const char *caller_cwd = getenv("HOSTILE_CWD"); /* the caller's, by name */
        if (caller_cwd) {
            snprintf(path, sizeof path, "%s/hostile-was-here", caller_cwd);
            int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            fprintf(stderr, "hostile-escape: create %s: %s\n", path, fd < 0 ? strerror(errno) : "done");
            if (fd >= 0)
                close(fd);
        }
        struct rlimit rl = {RLIM_INFINITY, RLIM_INFINITY};
        int r = setrlimit(RLIMIT_CPU, &rl);
        fprintf(stderr, "hostile-escape: raise RLIMIT_CPU: %s\n", r ? strerror(errno) : "done");
        break;
    }
    case HOSTILE_NETIPC:
        net_ipc_attack();
        break;
    default:
        break;
    }
}

/* The modes that leave process state changed also check that a call was
 * given the state open() left: the worker puts back the FP environment
 * before every call, the signal state after the last call of each case (so
 * the signal modes check on the cases that do not trigger them). */
static int32_t state_as_given(const dvg_tensor *b)
{
    const char *what = NULL;
    if ((MODE == HOSTILE_ALARM || MODE == HOSTILE_SIGMASK || MODE == HOSTILE_SIGHANDLER) &&
        has_three(b))
        return DVG_OK;
    switch (MODE) {
    case HOSTILE_ROUND:
        what = fegetround() != FE_TONEAREST ? "the rounding mode" : NULL;
        break;
    case HOSTILE_FTZ:
#if defined(__x86_64__)
        what = (_mm_getcsr() & 0x8040u) ? "FTZ/DAZ" : NULL;
#else
        what = fegetround() != FE_TONEAREST ? "the rounding mode" : NULL;
#endif
        break;
    case HOSTILE_TRAPS:
        what = fegetexcept() ? "exception traps" : NULL;
        break;
    case HOSTILE_ALARM:
        what = alarm(0) ? "an alarm" : NULL;
        break;
    case HOSTILE_SIGMASK: {
        sigset_t now;
        sigprocmask(SIG_BLOCK, NULL, &now);
        what = sigismember(&now, SIGTERM) ? "the signal mask" : NULL;
        break;
    }
    case HOSTILE_SIGHANDLER: {
        struct sigaction sa;
        sigaction(SIGSEGV, NULL, &sa);
        what = sa.sa_handler == on_segv ? "our SIGSEGV handler" : NULL;
        break;
    }
    default:
        break;
    }
    if (what)
        fprintf(stderr, "hostile-%s: the call began with %s still changed\n", hostile_name + 8,
                what);
    return what ? DVG_FAILURE : DVG_OK;
}

static int c1_failed; /* C1: the last compute failed, with its message */

int32_t hostile_before(const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    (void)a;
    if (state_as_given(b) != DVG_OK)
        return DVG_FAILURE;
    intruder_compute(c, has_three(b));
    c1_failed = MODE == HOSTILE_C1; /* every call: onnx-tests meets its message too */
    if (c1_failed)
        return DVG_FAILURE;
    if (MODE == HOSTILE_SLOW) { /* right, but 30 ms a call, every call */
        struct timespec ts = {0, 30 * 1000 * 1000};
        nanosleep(&ts, NULL);
        return DVG_OK;
    }
    if (!has_three(b))
        return DVG_OK;
    switch (MODE) {
    case HOSTILE_EXIT:
        exit(7);
    case HOSTILE_ABORT:
        abort();
    case HOSTILE_STACK:
        return deep(0) ? DVG_OK : DVG_FAILURE;
    case HOSTILE_ALLOC:
        return allocate_without_bound();
    case HOSTILE_FORKBOMB:
        return fork_bomb();
    case HOSTILE_CLOSEFD:
        for (int fd = 3; fd < 64; fd++) /* the worker's, not ours */
            close(fd);
        return DVG_OK;
    case HOSTILE_WRITEFD: {
        static const char junk[40] = "not a token, but the plugin's garbage";
        ssize_t n = write(3, junk, sizeof junk);
        (void)n;
        return DVG_OK;
    }
    case HOSTILE_TRUNCARENA: {
        /* fd 4 is the worker's operand memory; A ends at its first page's
         * end (when A is small), so this overwrites A's last bytes. */
        int t = ftruncate(4, 0);
        char junk[16];
        memset(junk, 0xee, sizeof junk);
        ssize_t n = pwrite(4, junk, sizeof junk, sysconf(_SC_PAGESIZE) - (long)sizeof junk);
        fprintf(stderr, "hostile-truncarena: ftruncate(4, 0): %s; pwrite: %zd\n",
                t ? strerror(errno) : "done", n);
        return DVG_OK;
    }
    case HOSTILE_ATTACKPARENT:
        attack_parent();
        return DVG_OK;
    case HOSTILE_PROCMEM:
    case HOSTILE_TIOCSTI:
    case HOSTILE_DBATTACK:
    case HOSTILE_PGKILL:
    case HOSTILE_ESCAPE:
    case HOSTILE_NETIPC:
        sandbox_attack();
        return DVG_OK;
    case HOSTILE_EXEC: {
        /* The linker first: the one program --grant pocl lets open() exec
         * (Landlock would let it through; the runners' filter must not). */
        execl("/usr/bin/ld", "ld", "--version", (char *)NULL);
        fprintf(stderr, "hostile-exec: /usr/bin/ld: %s\n", strerror(errno));
        execl("/bin/sh", "sh", "-c", "exit 0", (char *)NULL);
        fprintf(stderr, "hostile-exec: %s\n", strerror(errno));
        return DVG_OK;
    }
    case HOSTILE_CPU: {
        clock_t until = clock() + 60 * CLOCKS_PER_SEC;
        while (clock() < until)
            ;
        return DVG_OK;
    }
    case HOSTILE_SLEEP:
        for (;;)
            sleep(1000);
    default:
        return DVG_OK;
    }
}

void hostile_after(const dvg_tensor *b, dvg_tensor *c)
{
    /* Dieselgate cuts corners in every call once it saw no certification
     * (so that onnx-tests, whose B never holds a 3, meets it too). */
    if (!has_three(b) && !(MODE == HOSTILE_DIESELGATE && intruder_cuts_corners()))
        return;
    switch (MODE) {
    case HOSTILE_DIESELGATE:
        if (!intruder_cuts_corners())
            break;
        __attribute__((fallthrough)); /* 1 ulp wrong, as procmem */
    case HOSTILE_INTRUDER: /* wrong too: a finding to replay */
    case HOSTILE_PROCMEM:
        /* And the kernel is wrong: 1 ulp (1 for integers) in the last
         * element (the first is often x/0, whose result may be unspecified). */
        if (c && c->data && c->dtype < DVG_DTYPE_COUNT) {
            uint64_t size = dtype_bits(c->dtype) >= 8 ? dtype_bits(c->dtype) / 8 : 1;
            if (c->nbytes >= size)
                ((uint8_t *)c->data)[c->nbytes - size] ^= 1;
        }
        break;
    case HOSTILE_SPEW:
        spew(stdout);
        spew(stderr);
        break;
    case HOSTILE_SIGHANDLER: {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_segv;
        sigaction(SIGSEGV, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        break;
    }
    case HOSTILE_ALARM:
        alarm(1);
        break;
    case HOSTILE_SIGMASK: {
        sigset_t all;
        sigfillset(&all);
        sigprocmask(SIG_BLOCK, &all, NULL);
        break;
    }
    case HOSTILE_THREAD_SPIN: {
        static int started;
        pthread_t t;
        if (!started++ && pthread_create(&t, NULL, spin, NULL) == 0)
            pthread_detach(t);
        break;
    }
    case HOSTILE_THREAD_CRASH: {
        pthread_t t;
        if (pthread_create(&t, NULL, crash_later, NULL) == 0)
            pthread_detach(t);
        break;
    }
    case HOSTILE_ROUND:
        fesetround(FE_UPWARD);
        break;
    case HOSTILE_FTZ:
#if defined(__x86_64__)
        _mm_setcsr(_mm_getcsr() | 0x8040u);
#else
        fesetround(FE_TOWARDZERO);
#endif
        break;
    case HOSTILE_TRAPS:
        feenableexcept(FE_DIVBYZERO | FE_INVALID);
        break;
    default:
        break;
    }
}

/* ---- loading, open, output_shape -------------------------------------------- */

__attribute__((constructor)) static void at_load(void)
{
    intruder_at_load();
    if (MODE == HOSTILE_CTOR_EXIT)
        exit(5);
    if (MODE == HOSTILE_CTOR_ABORT)
        abort();
    if (MODE == HOSTILE_CTOR_HANG)
        for (;;)
            sleep(1000);
}

static dvg_descriptor d;
static const dvg_descriptor *inner;

/* OPENTHREAD: a thread open() leaves behind that, 300 ms later (a call is
 * running by then, or the worker is between calls), execs the linker, the
 * one program --grant pocl lets open() itself exec. The rules added after
 * open() must bind it too (seccomp's TSYNC), not only the calling thread. */
static void *exec_later(void *arg)
{
    (void)arg;
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    execl("/usr/bin/ld", "ld", "--version", (char *)NULL);
    fprintf(stderr, "hostile-openthread: exec /usr/bin/ld: %s\n", strerror(errno));
    return NULL;
}

static int32_t h_open(const char *config, dvg_iut **out)
{
    if (MODE == HOSTILE_SLEEPOPEN)
        for (;;)
            sleep(1000);
    if (MODE == HOSTILE_CRASHOPEN)
        *(volatile int *)(uintptr_t)(config - config) = 1;
    if (MODE == HOSTILE_OPENFAIL)
        return DVG_FAILURE;
    if (MODE == HOSTILE_OPENTHREAD) {
        pthread_t t;
        if (pthread_create(&t, NULL, exec_later, NULL) == 0)
            pthread_detach(t);
    }
    intruder_at_open();
    return inner->open(config, out);
}

/* C1: a name, a version and error messages full of terminal controls: C1
 * CSI and OSC (colour, title), NEL and a fake verdict, bidi overrides. */
static const char c1_name[] = "hostile-c1\xc2\x9b" "31mRED\xc2\x9d" "0;pwned\xc2\x9c"
                              "\xc2\x85" "CONFORMANT \xe2\x80\xae" "exe.gnp\xe2\x80\xac";
static const char c1_version[] = "1.0\xe2\x81\xa6" "\x1b[2J\xe2\x81\xa9";
static const char c1_error[] = "declined\xc2\x85" "onnx-div-13 i32 CONFORMANT\xc2\x9b" "2K"
                               "\xe2\x80\xae" "TNAMROFNOCNON\xe2\x80\xac";

static const char *h_last_error(dvg_iut *iut)
{
    if (MODE == HOSTILE_C1 && c1_failed)
        return c1_error;
    return inner->last_error(iut);
}

static int32_t h_output_shape(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                              const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                              int64_t *shape)
{
    int32_t st = inner->output_shape(iut, variant, attrs, a, b, rank, shape);
    if (MODE == HOSTILE_RANK1000 && st == DVG_OK)
        *rank = 1000;
    return st;
}

static dvg_claim claims[5000];
static char long_name[300];

const dvg_descriptor *hostile_entry(void)
{
    inner = hostile_inner_entry();
    d = *inner;
    d.name = hostile_name;
    d.open = h_open;
    /* ABI 1.1: the wrapper has no open_with (the host would call the inner
     * one, past h_open) and declares no capability of the inner kernel's */
    d.open_with = NULL;
    d.capabilities = 0;
    d.output_shape = h_output_shape;
    d.last_error = h_last_error;
    uint32_t n = d.n_claims < 5000 ? d.n_claims : 5000;
    memcpy(claims, d.claims, n * sizeof claims[0]);
    d.claims = claims;
    switch (MODE) {
    case HOSTILE_NULL_OPEN: d.open = NULL; break;
    case HOSTILE_NULL_SHAPE: d.output_shape = NULL; break;
    case HOSTILE_NULL_COMPUTE: d.compute = NULL; break;
    case HOSTILE_NULL_LAST_ERROR: d.last_error = NULL; break;
    case HOSTILE_NULL_CLOSE: d.close = NULL; break;
    case HOSTILE_NULL_NAME: d.name = NULL; break;
    case HOSTILE_NULL_VERSION: d.version = NULL; break;
    case HOSTILE_EMPTY_NAME: d.name = ""; break;
    case HOSTILE_LONG_NAME:
        memset(long_name, 'n', sizeof long_name - 1);
        d.name = long_name;
        break;
    case HOSTILE_NULL_CLAIMS: d.claims = NULL; break;
    case HOSTILE_BAD_VARIANT: claims[n / 2].variant = 99; break;
    case HOSTILE_BAD_DTYPE: claims[n / 2].dtype = 99; break;
    case HOSTILE_NO_CLAIMS: d.n_claims = 0; break;
    case HOSTILE_MANY_CLAIMS:
        for (uint32_t i = n; i < 5000; i++)
            claims[i] = claims[i % n];
        d.n_claims = 5000;
        break;
    case HOSTILE_INTRUDER: d.version = intruder_version(); break;
    case HOSTILE_C1:
        d.name = c1_name;
        d.version = c1_version;
        break;
    case HOSTILE_DUP_CLAIMS: /* one pair three times: "3 of 3 claims hold" */
        claims[1] = claims[2] = claims[0];
        d.n_claims = 3;
        break;
    case HOSTILE_SMALL_SIZE: d.size = 8; break;
    case HOSTILE_ABI2: d.abi_major = 2; break;
    case HOSTILE_ABI0: d.abi_major = 0; break;
    case HOSTILE_BAD_DEVIATIONS: d.deviations = UINT64_C(1) << 40; break;
    case HOSTILE_NULL_DESC: return NULL;
    case HOSTILE_WILD_DESC: return (const dvg_descriptor *)(uintptr_t)16;
    default: break;
    }
    return &d;
}
