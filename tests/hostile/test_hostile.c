/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/test_hostile.c: every hostile plugin of hostile.h against
 * the worker, with the limits certify and fuzz use
 * (worker_options_limited). For each: an ordinary case first, then the
 * one that triggers the behaviour (a 3 in B), which must be classified as
 * README.md says, then ordinary cases again, which must come out right on
 * the same (or a restarted) worker: the harness survives and goes on.
 * Then the limits one by one (memory, CPU time, processes, file size),
 * what the worker leaves behind (no process), and the load-time modes.
 *
 * Usage: test_hostile PLUGIN_DIR
 */
#include <dirent.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "harness/cases/divcase.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static const char *plugin_dir;
static int behaviours; /* hostile behaviours checked */

static const char *plugin(const char *mode)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/hp_%s.so", plugin_dir, mode);
    return path;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* An onnx-div-13 case of n elements, equal shapes; B holds a 3 at element
 * n - 1 when `trigger`, else only 2, 5 and 7. */
static void make_case(divcase *c, uint32_t dtype, uint64_t n, int trigger)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "hostile/%s/%s", oracle_dtype_tag(dtype),
             trigger ? "trigger" : "plain");
    c->variant = DVG_VARIANT_ONNX_DIV_13;
    c->dtype = dtype;
    oracle_attrs_default(oracle_variant_get(c->variant), &c->attrs);
    c->a_shape.rank = c->b_shape.rank = 1;
    c->a_shape.dims[0] = c->b_shape.dims[0] = (int64_t)n;
    if (divcase_alloc(c, 1u << 20)) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    static const int divisors[] = {2, 5, 7};
    for (uint64_t i = 0; i < n; i++) {
        int a = (int)(i * 13 + 1) * (i & 1 ? -1 : 1);
        int b = trigger && i == n - 1 ? 3 : divisors[i % 3];
        if (dtype == DVG_DTYPE_I32) {
            int32_t x = a, y = b;
            memcpy(c->a + 4 * i, &x, 4);
            memcpy(c->b + 4 * i, &y, 4);
        } else {
            float x = (float)a, y = (float)b;
            memcpy(c->a + 4 * i, &x, 4);
            memcpy(c->b + 4 * i, &y, 4);
        }
    }
}

/* 1 when r holds c's quotients: i32 truncated, f32 rounded to nearest. */
static int correct(const divcase *c, const worker_result *r)
{
    if (r->outcome != WORKER_OUT_OK || !r->computed || r->n_unwritten || r->n_nondet)
        return 0;
    uint64_t n = (uint64_t)c->a_shape.dims[0];
    for (uint64_t i = 0; i < n; i++) {
        if (c->dtype == DVG_DTYPE_I32) {
            int32_t x, y, got;
            memcpy(&x, c->a + 4 * i, 4);
            memcpy(&y, c->b + 4 * i, 4);
            memcpy(&got, r->out1 + 4 * i, 4);
            if (got != x / y)
                return 0;
        } else {
            float x, y, got;
            memcpy(&x, c->a + 4 * i, 4);
            memcpy(&y, c->b + 4 * i, 4);
            memcpy(&got, r->out1 + 4 * i, 4);
            volatile float quotient = x / y; /* this process: round to nearest */
            float want = quotient;
            if (memcmp(&got, &want, 4))
                return 0;
        }
    }
    return 1;
}

static worker *start(const char *mode, const worker_options *o)
{
    worker *w = NULL;
    worker_result r = WORKER_RESULT_INIT;
    CHECKF(worker_new(plugin(mode), o, &w) == 0, "worker_new(%s)", mode);
    if (!w)
        exit(1);
    int rc = worker_start(w, &r);
    char msg[WORKER_MESSAGE_MAX + 64];
    CHECKF(rc == 0, "%s: start: %s", mode, rc < 0 ? worker_errmsg(w)
                                                  : worker_result_format(&r, msg, sizeof msg));
    if (rc == 0) {
        CHECKF(worker_get_info(w)->confined == (o->confine ? 1 : 0), "%s: confined %d", mode,
               worker_get_info(w)->confined);
        CHECKF(worker_get_info(w)->fp_at_open == 0, "%s: fp_at_open %u", mode,
               worker_get_info(w)->fp_at_open);
    }
    worker_result_free(&r);
    return w;
}

/* Runs one case of `dtype`; returns the result in *r. */
static void run(worker *w, uint32_t dtype, int trigger, worker_result *r, divcase *keep)
{
    divcase c;
    make_case(&c, dtype, 16, trigger);
    int rc = worker_run(w, &c, &c.a_shape, r);
    CHECKF(rc == 0, "worker_run: %s", worker_errmsg(w));
    if (keep)
        *keep = c;
    else
        divcase_free(&c);
}

/* An ordinary case comes out right. */
static void ordinary(worker *w, const char *mode, uint32_t dtype, const char *when)
{
    worker_result r = WORKER_RESULT_INIT;
    divcase c;
    char msg[WORKER_MESSAGE_MAX + 64];
    run(w, dtype, 0, &r, &c);
    CHECKF(correct(&c, &r), "%s: ordinary %s case %s: %s", mode, oracle_dtype_tag(dtype), when,
           worker_result_format(&r, msg, sizeof msg));
    CHECKF(!(r.side_effects & (WORKER_SIDE_FP_STATE | WORKER_SIDE_SIGNAL_STATE)),
           "%s: ordinary case %s left state changed (0x%x)", mode, when, r.side_effects);
    divcase_free(&c);
    worker_result_free(&r);
}

/* ---- capturing our own stderr (what the worker forwards) ---------------- */

static int saved_stderr = -1;
static char capture_path[64];

static void capture_begin(void)
{
    fflush(stderr);
    snprintf(capture_path, sizeof capture_path, "/tmp/dvg-hostile-stderr-%d", (int)getpid());
    int fd = open(capture_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    saved_stderr = dup(2);
    if (fd < 0 || saved_stderr < 0 || dup2(fd, 2) < 0) {
        fprintf(stderr, "cannot capture stderr\n");
        exit(1);
    }
    close(fd);
}

/* Restores stderr; returns what was written (malloc'd, NUL-terminated). */
static char *capture_end(size_t *len)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    FILE *f = fopen(capture_path, "rb");
    char *buf = calloc(1, 1 << 20);
    size_t n = f && buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    if (f)
        fclose(f);
    unlink(capture_path);
    *len = n;
    return buf;
}

/* ---- processes ------------------------------------------------------------ */

/* Processes (not zombies) in process group `pgid`. */
static int processes_in_group(int pgid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char path[300], buf[512];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = '\0';
        const char *p = strrchr(buf, ')');
        char state;
        int ppid, pgrp;
        if (p && sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
            state != 'Z')
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

/* Waits up to 3 s for group `pgid` to be empty; returns what is left. */
static int group_left(int pgid)
{
    int n = 0;
    for (int i = 0; i < 300 && (n = processes_in_group(pgid)) > 0; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return n;
}

/* ---- the compute-time modes ---------------------------------------------- */

typedef struct expect {
    const char *mode;
    uint32_t outcome;       /* of the triggering case */
    uint32_t side;          /* WORKER_SIDE_* it must show (0: none checked) */
    const char *message;    /* a piece of its message, or NULL */
} expect;

static void check_mode(const expect *e, const worker_options *o)
{
    worker *w = start(e->mode, o);
    worker_result r = WORKER_RESULT_INIT;
    char msg[WORKER_MESSAGE_MAX + 64];
    ordinary(w, e->mode, DVG_DTYPE_I32, "before");
    double t0 = now_s();
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    double took = now_s() - t0;
    worker_result_format(&r, msg, sizeof msg);
    CHECKF(r.outcome == e->outcome, "%s: outcome %s, expected %s: %s", e->mode,
           worker_outcome_name(r.outcome), worker_outcome_name(e->outcome), msg);
    CHECKF((r.side_effects & e->side) == e->side, "%s: side effects 0x%x, expected 0x%x", e->mode,
           r.side_effects, e->side);
    CHECKF(!e->message || strstr(msg, e->message), "%s: message '%s' lacks '%s'", e->mode, msg,
           e->message);
    CHECKF(took < 15, "%s: the triggering case took %.1f s", e->mode, took);
    /* The harness goes on: ordinary cases, both types, come out right. */
    ordinary(w, e->mode, DVG_DTYPE_I32, "after");
    ordinary(w, e->mode, DVG_DTYPE_F32, "after");
    int pid = worker_pid(w);
    t0 = now_s();
    worker_free(w);
    CHECKF(now_s() - t0 < 5, "%s: stopping the worker took %.1f s", e->mode, now_s() - t0);
    CHECKF(group_left(pid) == 0, "%s: processes of the worker's group survived", e->mode);
    worker_result_free(&r);
    behaviours++;
}

static void test_compute_modes(void)
{
    worker_options o;
    worker_options_limited(&o);
    o.timeout_ms = 3000;
    const expect modes[] = {
        {"exit", WORKER_OUT_EXIT, 0, "exit(7)"},
        {"abort", WORKER_OUT_CRASH, 0, "SIGABRT"},
        {"stack", WORKER_OUT_CRASH, 0, "stack overflow"},
        {"forkbomb", WORKER_OUT_FAILURE, 0, NULL},   /* fork: EAGAIN, see below */
        {"closefd", WORKER_OUT_PROTOCOL, 0, "fd 3"},
        {"writefd", WORKER_OUT_PROTOCOL, 0, "malformed"},
        {"truncarena", WORKER_OUT_INPUT_MUTATED, WORKER_SIDE_INPUT_A, NULL},
        {"sighandler", WORKER_OUT_OK, WORKER_SIDE_SIGNAL_STATE, NULL},
        {"sigmask", WORKER_OUT_OK, WORKER_SIDE_SIGNAL_STATE, NULL},
        {"thread_spin", WORKER_OUT_OK, 0, NULL},
        {"round", WORKER_OUT_OK, WORKER_SIDE_FP_STATE, NULL},
        {"ftz", WORKER_OUT_OK, WORKER_SIDE_FP_STATE, NULL},
        {"traps", WORKER_OUT_OK, WORKER_SIDE_FP_STATE, NULL},
        {"attackparent", WORKER_OUT_OK, 0, NULL},
        {"exec", WORKER_OUT_OK, 0, NULL},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        check_mode(&modes[i], &o);
    /* output_shape answering rank 1000, every time */
    worker *w = start("rank1000", &o);
    worker_result r = WORKER_RESULT_INIT;
    for (int k = 0; k < 2; k++) {
        run(w, DVG_DTYPE_I32, k, &r, NULL);
        CHECKF(r.outcome == WORKER_OUT_BAD_SHAPE && strstr(r.message, "rank 1000") &&
                   worker_alive(w),
               "rank1000: %s: %s", worker_outcome_name(r.outcome), r.message);
    }
    worker_free(w);
    worker_result_free(&r);
    behaviours++;
}

/* What exactly the leaks were, and that they were put back. */
static void test_leaks(void)
{
    worker_options o;
    worker_options_limited(&o);
    static const struct {
        const char *mode;
        uint32_t side, fp, sig;
        int signal;
    } leaks[] = {
        {"round", WORKER_SIDE_FP_STATE, WORKER_FP_ROUNDING, 0, 0},
#if defined(__x86_64__)
        {"ftz", WORKER_SIDE_FP_STATE, WORKER_FP_FTZ | WORKER_FP_DAZ, 0, 0},
#endif
        {"traps", WORKER_SIDE_FP_STATE, WORKER_FP_TRAPS, 0, 0},
        {"sighandler", WORKER_SIDE_SIGNAL_STATE, 0, WORKER_SIG_HANDLER, SIGSEGV},
        {"sigmask", WORKER_SIDE_SIGNAL_STATE, 0, WORKER_SIG_MASK, 0},
        {"alarm", WORKER_SIDE_SIGNAL_STATE, 0, WORKER_SIG_TIMER, 0},
    };
    for (size_t i = 0; i < sizeof leaks / sizeof leaks[0]; i++) {
        worker *w = start(leaks[i].mode, &o);
        worker_result r = WORKER_RESULT_INIT;
        run(w, DVG_DTYPE_F32, 1, &r, NULL);
        CHECKF(r.outcome == WORKER_OUT_OK && r.side_effects == leaks[i].side &&
                   r.fp_changed == leaks[i].fp && r.sig_changed == leaks[i].sig &&
                   (!leaks[i].signal || r.sig_changed_signal == leaks[i].signal),
               "%s: outcome %s side 0x%x fp 0x%x sig 0x%x (%d)", leaks[i].mode,
               worker_outcome_name(r.outcome), r.side_effects, r.fp_changed, r.sig_changed,
               r.sig_changed_signal);
        char text[WORKER_MESSAGE_MAX];
        CHECKF(worker_leak_describe(&r, text, sizeof text)[0], "%s: no description",
               leaks[i].mode);
        /* The alarm was disarmed: 1.2 s later the worker is still there. */
        if (!strcmp(leaks[i].mode, "alarm")) {
            int pid = worker_pid(w);
            struct timespec ts = {1, 200 * 1000 * 1000};
            nanosleep(&ts, NULL);
            CHECKF(worker_pid(w) == pid && kill(pid, 0) == 0, "alarm: the worker died");
            behaviours++;
        }
        /* The next call began from the state open() left (the plugin
         * checks; FAILURE otherwise) and computed right: f32 quotients
         * like 1/7 depend on the rounding mode. */
        ordinary(w, leaks[i].mode, DVG_DTYPE_F32, "after the leak");
        ordinary(w, leaks[i].mode, DVG_DTYPE_I32, "after the leak");
        worker_free(w);
        worker_result_free(&r);
    }
}

/* A thread the plugin left behind crashes between two calls: the next
 * request reports it (stage "between calls"); the one after is right. */
static void test_thread_crash(void)
{
    worker_options o;
    worker_options_limited(&o);
    worker *w = start("thread_crash", &o);
    worker_result r = WORKER_RESULT_INIT;
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    CHECKF(r.outcome == WORKER_OUT_OK, "thread_crash: the call itself: %s",
           worker_outcome_name(r.outcome));
    struct timespec ts = {0, 600 * 1000 * 1000}; /* the thread crashes at 200 ms */
    nanosleep(&ts, NULL);
    run(w, DVG_DTYPE_I32, 0, &r, NULL);
    CHECKF(r.outcome == WORKER_OUT_CRASH && r.stage == WORKER_STAGE_IDLE && r.signal == SIGSEGV,
           "thread_crash: outcome %s in %s", worker_outcome_name(r.outcome),
           worker_stage_name(r.stage));
    ordinary(w, "thread_crash", DVG_DTYPE_I32, "after the crash");
    worker_free(w);
    worker_result_free(&r);
    behaviours++;
}

/* Megabytes on stdout and stderr: counted, at most WORKER_OUTPUT_SHOW
 * bytes of them (and a note) reach our stderr, nothing our stdout. */
static void test_spew(void)
{
    worker_options o;
    worker_options_limited(&o);
    worker *w = start("spew", &o);
    worker_result r = WORKER_RESULT_INIT;
    size_t len;
    capture_begin();
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    char *seen = capture_end(&len);
    /* 8 MiB to each in each of the two runs */
    CHECKF(r.outcome == WORKER_OUT_OK && r.output_bytes == (UINT64_C(32) << 20),
           "spew: outcome %s, %" PRIu64 " bytes counted", worker_outcome_name(r.outcome),
           r.output_bytes);
    CHECKF(len > 1000 && len <= 2 * (WORKER_OUTPUT_SHOW + 300), "spew: %zu bytes reached stderr",
           len);
    CHECKF(seen && strstr(seen, "16777216 bytes"), "spew: no note of the size");
    free(seen);
    ordinary(w, "spew", DVG_DTYPE_I32, "after");
    worker_free(w);
    /* Past the file size limit the write raises SIGXFSZ: a crash. */
    o.limit_fsize_bytes = 1 << 20;
    w = start("spew", &o);
    capture_begin();
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    free(capture_end(&len));
    CHECKF(r.outcome == WORKER_OUT_CRASH && r.signal == SIGXFSZ,
           "spew past RLIMIT_FSIZE: %s signal %d", worker_outcome_name(r.outcome), r.signal);
    ordinary(w, "spew", DVG_DTYPE_I32, "after SIGXFSZ");
    worker_free(w);
    worker_result_free(&r);
    behaviours++;
}

/* ---- the limits ----------------------------------------------------------- */

static void test_memory_limit(void)
{
    worker_options o;
    worker_options_limited(&o);
    o.limit_as_bytes = UINT64_C(256) << 20;
    o.timeout_ms = 20000;
    worker *w = start("alloc", &o);
    worker_result r = WORKER_RESULT_INIT;
    size_t len;
    capture_begin();
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    char *seen = capture_end(&len);
    unsigned mib = 0;
    const char *at = seen ? strstr(seen, "malloc failed after ") : NULL;
    CHECKF(r.outcome == WORKER_OUT_FAILURE && at && sscanf(at, "malloc failed after %u", &mib) == 1 &&
               mib <= 256,
           "memory limit: outcome %s, plugin said: %.200s", worker_outcome_name(r.outcome),
           seen ? seen : "");
    free(seen);
    ordinary(w, "alloc", DVG_DTYPE_I32, "after malloc failed");
    worker_free(w);
    worker_result_free(&r);
    behaviours++;
}

static void test_cpu_limit(void)
{
    worker_options o;
    worker_options_limited(&o);
    o.limit_cpu_s = 1;
    o.timeout_ms = 30000;
    worker *w = start("cpu", &o);
    worker_result r = WORKER_RESULT_INIT;
    double t0 = now_s();
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    double took = now_s() - t0;
    CHECKF(r.outcome == WORKER_OUT_HANG && strstr(r.message, "CPU time") && took < 10,
           "cpu limit: %s after %.1f s: %s", worker_outcome_name(r.outcome), took, r.message);
    ordinary(w, "cpu", DVG_DTYPE_I32, "after SIGXCPU");
    worker_free(w);
    /* A spin that the wall clock ends (no CPU limit). */
    o.limit_cpu_s = 0;
    o.timeout_ms = 300;
    w = start("sleep", &o);
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    CHECKF(r.outcome == WORKER_OUT_HANG, "sleep: %s", worker_outcome_name(r.outcome));
    ordinary(w, "sleep", DVG_DTYPE_I32, "after the hang");
    worker_free(w);
    worker_result_free(&r);
    behaviours += 2;
}

/* Confined: forks fail with EAGAIN. Unconfined, the plugin's 64 processes
 * (and theirs) die with the worker's process group. */
static void test_processes(void)
{
    worker_options o;
    worker_options_limited(&o);
    worker *w = start("forkbomb", &o);
    worker_result r = WORKER_RESULT_INIT;
    size_t len;
    /* The worker's own processes: the plugin's, and in a sandbox the
     * keeper and the namespace init (harness/worker_program/isolate.c). */
    int own = processes_in_group(worker_pid(w));
    capture_begin();
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    char *seen = capture_end(&len);
    CHECKF(r.outcome == WORKER_OUT_FAILURE && seen &&
               strstr(seen, "0 processes made, 64 forks failed: Resource temporarily unavailable"),
           "forkbomb, confined: %s: %.200s", worker_outcome_name(r.outcome), seen ? seen : "");
    free(seen);
    int pid = worker_pid(w);
    CHECKF(own >= 1 && processes_in_group(pid) == own,
           "forkbomb, confined: %d processes in the group, %d before",
           processes_in_group(pid), own);
    worker_free(w);

    o.confine = 0;
    w = start("forkbomb", &o);
    capture_begin();
    run(w, DVG_DTYPE_I32, 1, &r, NULL);
    seen = capture_end(&len);
    free(seen);
    pid = worker_pid(w);
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    int made = processes_in_group(pid);
    CHECKF(r.outcome == WORKER_OUT_OK && made > 64, "forkbomb, unconfined: %s, %d processes",
           worker_outcome_name(r.outcome), made);
    worker_free(w);
    CHECKF(group_left(pid) == 0, "forkbomb, unconfined: %d processes outlived the worker",
           processes_in_group(pid));
    worker_result_free(&r);
    behaviours++;
}

/* ---- loading and open ------------------------------------------------------- */

static void test_load_modes(void)
{
    static const struct {
        const char *mode;
        uint32_t outcome, stage;
        const char *message;
    } modes[] = {
        {"ctor_exit", WORKER_OUT_EXIT, WORKER_STAGE_LOAD, "exit(5)"},
        {"ctor_abort", WORKER_OUT_CRASH, WORKER_STAGE_LOAD, "SIGABRT"},
        {"ctor_hang", WORKER_OUT_HANG, WORKER_STAGE_LOAD, NULL},
        {"sleepopen", WORKER_OUT_HANG, WORKER_STAGE_OPEN, NULL},
        {"crashopen", WORKER_OUT_CRASH, WORKER_STAGE_OPEN, "SIGSEGV"},
        {"openfail", WORKER_OUT_LOAD_ERROR, WORKER_STAGE_OPEN, "open"},
    };
    worker_options o;
    worker_options_limited(&o);
    o.timeout_ms = 500;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        worker *w = NULL;
        worker_result r = WORKER_RESULT_INIT;
        char msg[WORKER_MESSAGE_MAX + 64];
        CHECK(worker_new(plugin(modes[i].mode), &o, &w) == 0);
        int rc = worker_start(w, &r);
        worker_result_format(&r, msg, sizeof msg);
        CHECKF(rc == 1 && r.outcome == modes[i].outcome && r.stage == modes[i].stage &&
                   (!modes[i].message || strstr(msg, modes[i].message)),
               "%s: rc %d: %s", modes[i].mode, rc, msg);
        /* ... and the same again: a restart meets the same end, no worse. */
        rc = worker_start(w, &r);
        CHECKF(rc == 1 && r.outcome == modes[i].outcome, "%s again: rc %d", modes[i].mode, rc);
        int pid = worker_pid(w);
        worker_free(w);
        CHECK(pid == 0);
        worker_result_free(&r);
        behaviours++;
    }
}

/* --sandbox auto never degrades silently: within a process, a worker that
 * comes up with fewer layers than the first (here: reduced mode, forced
 * through the test hook, as if the host had stopped giving user
 * namespaces) fails to start, and says so; the layers come from outside. */
static void test_floor(void)
{
    worker_options o;
    worker_options_limited(&o);
    worker *w = start("none", &o);
    const worker_info *in = worker_get_info(w);
    uint32_t first = in ? in->layers : 0;
    worker_free(w);
    setenv("DIVERGENCE_TEST_SANDBOX", "reduced", 1);
    worker_result r = WORKER_RESULT_INIT;
    CHECK(worker_new(plugin("none"), &o, &w) == 0);
    int rc = worker_start(w, &r);
    char had[WORKER_LAYERS_TEXT];
    CHECKF(rc == -1 && strstr(worker_errmsg(w), "degraded within the run"),
           "a worker with fewer layers than the first (%s) started: rc %d, %s",
           worker_describe_layers(first, had, sizeof had), rc, worker_errmsg(w));
    worker_free(w);
    unsetenv("DIVERGENCE_TEST_SANDBOX");
    /* And a worker like the first still starts. */
    w = start("none", &o);
    worker_free(w);
    /* The host stops giving user namespaces (a filter on this process, as
     * a container's profile would be): the next worker does not fall back
     * to reduced mode in silence. */
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    int filtered = ctx && seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) == 0 &&
                   seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0 &&
                   seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                    SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER,
                                               CLONE_NEWUSER)) == 0 &&
                   prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && seccomp_load(ctx) == 0;
    if (ctx)
        seccomp_release(ctx);
    CHECK(filtered);
    CHECK(worker_new(plugin("none"), &o, &w) == 0);
    rc = worker_start(w, &r);
    CHECKF(rc == -1 && strstr(worker_errmsg(w), "could not be set up"),
           "a worker started without user namespaces after one with them: rc %d, layers %s, %s",
           rc, worker_get_info(w) ? worker_describe_layers(worker_get_info(w)->layers, had,
                                                           sizeof had)
                                  : "-",
           worker_errmsg(w));
    worker_free(w);
    worker_result_free(&r);
    behaviours++;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_hostile PLUGIN_DIR\n");
        return 2;
    }
    plugin_dir = argv[1];
    test_compute_modes();
    test_leaks();
    test_thread_crash();
    test_spew();
    test_memory_limit();
    test_cpu_limit();
    test_processes();
    test_load_modes();
    test_floor(); /* last: it sets the process's floor against reduced mode */
    printf("hostile behaviours classified, with the harness going on after each: %d\n",
           behaviours);
    return check_done("test_hostile");
}
