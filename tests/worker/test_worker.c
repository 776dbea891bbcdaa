/* SPDX-License-Identifier: MIT */
/*
 * tests/worker/test_worker.c: worker isolation and narrowing against the
 * hostile plugins of test_plugin.c. Every misbehaviour must be classified,
 * the test process must survive all of them, and after each one the next
 * request must succeed on a restarted worker. Cases with data offsets
 * reach the plugin with exactly those pointer offsets, and a write into
 * the output's tail slack is found.
 *
 * Usage: test_worker PLUGIN_DIR
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "harness/cases/divcase.h"
#include "harness/worker/batch.h"
#include "harness/run/engine/narrow.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

#define TRIGGER 0x7E57
#define TRIGGER_FAIL 0x7E58
#define TRIGGER_FDS 0x7E59
#define TRIGGER_PRIVS 0x7E5A
#define TRIGGER_ADDR 0x7E5B
#define TRIGGER_OPTS 0x7E5C

static const char *plugin_dir;
static pid_t main_pid;
static volatile int *atexit_in_child; /* shared with every child */

static void on_exit_check(void)
{
    if (getpid() != main_pid)
        (*atexit_in_child)++;
}

static const char *plugin(const char *mode)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/wp_%s.so", plugin_dir, mode);
    return path;
}

static worker *new_worker(const char *mode, uint32_t timeout_ms)
{
    worker_options o;
    worker_options_default(&o);
    if (timeout_ms)
        o.timeout_ms = timeout_ms;
    worker *w = NULL;
    int rc = worker_new(plugin(mode), &o, &w);
    CHECKF(rc == 0 && w, "worker_new(%s)", mode);
    return w;
}

/* An i32 (or f32) case of n elements with equal shapes [n]. */
static void make_case(divcase *c, uint32_t dtype, uint32_t variant, uint64_t n)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "test/%s/%llu", oracle_dtype_tag(dtype),
             (unsigned long long)n);
    c->variant = variant;
    c->dtype = dtype;
    oracle_attrs_default(oracle_variant_get(variant), &c->attrs);
    c->a_shape.rank = c->b_shape.rank = 1;
    c->a_shape.dims[0] = c->b_shape.dims[0] = (int64_t)n;
    if (divcase_alloc(c, UINT64_C(1) << 30) != 0) {
        fprintf(stderr, "divcase_alloc failed\n");
        exit(1);
    }
}

static void make_i32(divcase *c, uint64_t n)
{
    make_case(c, DVG_DTYPE_I32, DVG_VARIANT_ONNX_DIV_13, n);
    int32_t *a = (int32_t *)c->a, *b = (int32_t *)c->b;
    for (uint64_t i = 0; i < n; i++) {
        a[i] = (int32_t)(i * 7 + 100) * (i & 1 ? -1 : 1);
        b[i] = (int32_t)(i % 5) + 2;
    }
}

static void set_i32(divcase *c, uint64_t i, int32_t a, int32_t b)
{
    ((int32_t *)c->a)[i] = a;
    ((int32_t *)c->b)[i] = b;
}

/* 1 when r computed c's quotients (trunc; x/0 = 0) in both runs. */
static int correct_i32(const divcase *c, const worker_result *r)
{
    if (r->outcome != WORKER_OUT_OK || !r->computed)
        return 0;
    uint64_t n = (uint64_t)c->a_shape.dims[0];
    if (r->count != n || r->nbytes != 4 * n || r->n_unwritten || r->n_nondet)
        return 0;
    const int32_t *a = (const int32_t *)c->a, *b = (const int32_t *)c->b;
    for (uint64_t i = 0; i < n; i++) {
        int32_t want = b[i] == 0 ? 0 : (a[i] == INT32_MIN && b[i] == -1) ? INT32_MIN : a[i] / b[i];
        int32_t got1, got2;
        memcpy(&got1, r->out1 + 4 * i, 4);
        memcpy(&got2, r->out2 + 4 * i, 4);
        if (got1 != want || got2 != want)
            return 0;
    }
    return 1;
}

static int run_case(worker *w, const divcase *c, worker_result *r)
{
    return worker_run(w, c, &c->a_shape, r);
}

static void show(const char *what, const worker_result *r)
{
    char line[800];
    printf("  %-28s %s\n", what, worker_result_format(r, line, sizeof line));
}

/* After a failure: the worker is dead; the next ordinary request succeeds
 * on a fresh child. */
static void check_recovers(worker *w, int old_pid, const char *mode)
{
    CHECKF(!worker_alive(w), "%s: worker still marked alive after the failure", mode);
    divcase c;
    make_i32(&c, 33);
    worker_result r = WORKER_RESULT_INIT;
    CHECK(run_case(w, &c, &r) == 0);
    CHECKF(correct_i32(&c, &r), "%s: request after restart: %s", mode, r.message);
    CHECKF(worker_pid(w) != old_pid && worker_pid(w) != 0, "%s: not restarted", mode);
    CHECK(worker_alive(w));
    worker_result_free(&r);
    divcase_free(&c);
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void test_good(void)
{
    printf("good plugin\n");
    worker *w = new_worker("good", 0);
    worker_result r = WORKER_RESULT_INIT;
    CHECK(worker_start(w, &r) == 0);
    const worker_info *info = worker_get_info(w);
    CHECK(info != NULL);
    if (info) {
        CHECK(!strcmp(info->name, "test-good"));
        CHECK(!strcmp(info->version, "1.0"));
        CHECK(info->abi_major == 1 && info->abi_minor == DVG_ABI_MINOR);
        CHECK(info->n_claims == 2);
        CHECK(info->claims[1].variant == DVG_VARIANT_ONNX_DIV_13 &&
              info->claims[1].dtype == DVG_DTYPE_I32);
        CHECK(info->deviations == DVG_DEV_INT_DIV_ZERO_VALUE);
        CHECK(info->descriptor_size == sizeof(dvg_descriptor));
    }
    int pid = worker_pid(w);
    CHECK(pid > 0 && worker_alive(w));

    /* Sizes around the page: slack before the output, none, several pages,
     * an empty tensor, and one large enough to grow the arena. */
    static const uint64_t sizes[] = {1, 7, 1023, 1024, 1025, 3000, 0, 1 << 20, 5};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        divcase c;
        make_i32(&c, sizes[k]);
        if (sizes[k] > 3)
            set_i32(&c, 3, INT32_MIN, -1);
        CHECK(run_case(w, &c, &r) == 0);
        CHECKF(correct_i32(&c, &r), "i32 x %llu: %s", (unsigned long long)sizes[k], r.message);
        CHECK(r.side_effects == 0);
        CHECK(r.has_shape && r.shape.rank == 1 && r.shape.dims[0] == (int64_t)sizes[k]);
        CHECK(r.shape_status == DVG_OK && r.compute_status[0] == DVG_OK &&
              r.compute_status[1] == DVG_OK);
        divcase_free(&c);
    }
    CHECK(worker_pid(w) == pid);

    /* f32 */
    divcase c;
    make_case(&c, DVG_DTYPE_F32, DVG_VARIANT_ONNX_DIV_13, 10);
    float *fa = (float *)c.a, *fb = (float *)c.b;
    for (int i = 0; i < 10; i++) {
        fa[i] = (float)i - 3.5f;
        fb[i] = i == 4 ? 0.0f : 0.25f * (float)(i + 1);
    }
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_OK && r.computed && r.count == 10);
    int same = r.computed;
    for (int i = 0; same && i < 10; i++) {
        float want = fa[i] / fb[i], got;
        memcpy(&got, r.out1 + 4 * i, 4);
        same = memcmp(&want, &got, 4) == 0;
    }
    CHECK(same);
    divcase_free(&c);

    /* Unequal shapes: the plugin rejects; with expect NULL only output_shape. */
    make_i32(&c, 6);
    c.b_shape.dims[0] = 3;
    c.b_bytes = 12;
    CHECK(worker_run(w, &c, NULL, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_INVALID_INPUT && r.stage == WORKER_STAGE_SHAPE);
    CHECK(r.status == DVG_INVALID_INPUT && !strcmp(r.message, "shapes differ"));
    CHECK(!r.computed && r.compute_status[0] == -1);
    divcase_free(&c);

    /* The plugin's shape is not the expected one: nothing computed. */
    make_i32(&c, 6);
    oracle_shape other = c.a_shape;
    other.dims[0] = 7;
    CHECK(worker_run(w, &c, &other, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_OK && r.has_shape && !r.computed);
    CHECK(r.shape.rank == 1 && r.shape.dims[0] == 6);
    /* The oracle says invalid, the plugin accepts: output_shape only. */
    CHECK(worker_run(w, &c, NULL, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_OK && r.has_shape && !r.computed);

    /* Statuses with last_error text. */
    set_i32(&c, 2, TRIGGER_FAIL, 1);
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_FAILURE && r.stage == WORKER_STAGE_COMPUTE1);
    CHECK(r.status == DVG_FAILURE && r.compute_status[0] == DVG_FAILURE);
    CHECKF(!strcmp(r.message, "trigger failure at element 2"), "%s", r.message);
    show("compute DVG_FAILURE", &r);
    divcase_free(&c);
    make_case(&c, DVG_DTYPE_I8, DVG_VARIANT_ONNX_DIV_13, 4);
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_UNSUPPORTED && r.stage == WORKER_STAGE_SHAPE);
    CHECKF(!strcmp(r.message, "dtype 6 is not supported"), "%s", r.message);
    divcase_free(&c);

    /* What the child kept: 0-2 and its three own descriptors; no new privs. */
    make_i32(&c, 4);
    set_i32(&c, 0, TRIGGER_FDS, 1);
    set_i32(&c, 1, TRIGGER_PRIVS, 1);
    CHECK(run_case(w, &c, &r) == 0);
    if (r.computed) {
        int32_t fds, privs;
        memcpy(&fds, r.out1, 4);
        memcpy(&privs, r.out1 + 4, 4);
        CHECKF(fds <= 6, "the child has %d descriptors open", fds);
        CHECK(privs == 1);
    }
    divcase_free(&c);

    /* A malformed case is the caller's error, not the plugin's. */
    make_i32(&c, 4);
    c.a_bytes = 3;
    CHECK(run_case(w, &c, &r) == -1);
    CHECK(strstr(worker_errmsg(w), "do not match") != NULL);
    c.a_bytes = 16;
    divcase_free(&c);

    CHECK(worker_pid(w) == pid && worker_spawns(w) == 1);
    worker_result_free(&r);
    worker_free(w);
}

typedef struct crash_case {
    const char *mode;
    uint64_t n;           /* elements */
    uint64_t at;          /* the trigger element */
    int32_t a, b;         /* its operands */
    uint32_t outcome;
    uint32_t stage;
    int signal;           /* 0: any */
    uint32_t region;
    int64_t offset;       /* with region; INT64_MIN: any */
    int computed;
} crash_case;

static void test_crashes(void)
{
    printf("hostile plugins\n");
    static const crash_case cases[] = {
        {"segv", 10, 4, TRIGGER, 1, WORKER_OUT_CRASH, WORKER_STAGE_COMPUTE1, SIGSEGV, 0, 0, 0},
        {"fpe", 10, 7, INT32_MIN, -1, WORKER_OUT_CRASH, WORKER_STAGE_COMPUTE1, SIGFPE, 0, 0, 0},
        /* 5 elements: the output starts inside its page; 1024: a whole page */
        {"oob", 5, 1, TRIGGER, 1, WORKER_OUT_OOB_WRITE, WORKER_STAGE_COMPUTE1, SIGSEGV,
         WORKER_REGION_OUT, 20, 0},
        {"oob", 1024, 1, TRIGGER, 1, WORKER_OUT_OOB_WRITE, WORKER_STAGE_COMPUTE1, SIGSEGV,
         WORKER_REGION_OUT, 4096, 0},
        {"write_a", 9, 2, TRIGGER, 1, WORKER_OUT_INPUT_MUTATED, WORKER_STAGE_COMPUTE1, SIGSEGV,
         WORKER_REGION_A, 8, 0},
        {"hang", 9, 2, TRIGGER, 1, WORKER_OUT_HANG, WORKER_STAGE_COMPUTE1, 0, 0, 0, 0},
        {"exit", 9, 2, TRIGGER, 1, WORKER_OUT_EXIT, WORKER_STAGE_COMPUTE1, 0, 0, 0, 0},
        /* 1024 elements: one before the output is in the lower guard page */
        {"underflow", 1024, 0, TRIGGER, 1, WORKER_OUT_OOB_WRITE, WORKER_STAGE_COMPUTE1, SIGSEGV,
         WORKER_REGION_OUT, -4, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const crash_case *t = &cases[k];
        worker *w = new_worker(t->mode, 1000);
        worker_result r = WORKER_RESULT_INIT;
        CHECKF(worker_start(w, &r) == 0, "%s: start: %s", t->mode, r.message);
        int pid = worker_pid(w);
        divcase c;
        make_i32(&c, t->n);
        set_i32(&c, t->at, t->a, t->b);
        CHECK(run_case(w, &c, &r) == 0);
        show(t->mode, &r);
        CHECKF(r.outcome == t->outcome, "%s: outcome %s", t->mode,
               worker_outcome_name(r.outcome));
        CHECKF(r.stage == t->stage, "%s: stage %s", t->mode, worker_stage_name(r.stage));
        if (t->signal)
            CHECKF(r.signal == t->signal, "%s: signal %d", t->mode, r.signal);
        if (t->region) {
            CHECKF(r.fault_region == t->region, "%s: region %u", t->mode, r.fault_region);
            CHECKF(r.fault_offset == t->offset, "%s: offset %lld", t->mode,
                   (long long)r.fault_offset);
        }
        if (!strcmp(t->mode, "segv"))
            CHECK(r.fault_addr == 0 && r.fault_write == 0);
        if (!strcmp(t->mode, "oob") || !strcmp(t->mode, "underflow"))
            CHECK(r.fault_write == 1);
        if (!strcmp(t->mode, "exit")) {
            CHECK(r.exit_code == 3);
            CHECKF(strstr(r.message, "exit(3)") != NULL, "%s", r.message);
        }
        CHECK(r.computed == t->computed);
        check_recovers(w, pid, t->mode);
        worker_result_free(&r);
        divcase_free(&c);
        worker_free(w);
    }
    CHECKF(*atexit_in_child == 0, "the harness's atexit handlers ran %d times in children",
           *atexit_in_child);

    /* A write before the output that stays inside its page: no signal, the
     * slack's poison tells. */
    worker *w = new_worker("underflow", 0);
    worker_result r = WORKER_RESULT_INIT;
    divcase c;
    make_i32(&c, 5);
    set_i32(&c, 0, TRIGGER, 1);
    CHECK(run_case(w, &c, &r) == 0);
    show("underflow (slack)", &r);
    CHECK(r.outcome == WORKER_OUT_OOB_WRITE && r.signal == 0);
    CHECK(r.stage == WORKER_STAGE_COMPUTE1);
    CHECK(r.fault_region == WORKER_REGION_OUT && r.fault_offset == -4);
    CHECK((r.side_effects & WORKER_SIDE_SLACK) && r.computed);
    CHECK(worker_alive(w)); /* not a crash: the worker goes on */
    worker_result_free(&r);
    divcase_free(&c);
    worker_free(w);
}

/* The data pointers the plugin saw for the case's element 0 (A[0] is
 * TRIGGER_ADDR): A, B and C modulo 64 in bits 0, 8 and 16. */
static int32_t seen_offsets(const uint8_t *out)
{
    int32_t v;
    memcpy(&v, out, 4);
    return v;
}

/* 1 when elements 1..n-1 of out hold c's quotients. */
static int rest_right(const divcase *c, const uint8_t *out)
{
    uint64_t n = (uint64_t)c->a_shape.dims[0];
    const int32_t *a = (const int32_t *)c->a, *b = (const int32_t *)c->b;
    for (uint64_t i = 1; i < n; i++) {
        int32_t got;
        memcpy(&got, out + 4 * i, 4);
        if (got != a[i] / b[i])
            return 0;
    }
    return 1;
}

static void set_offsets(divcase *c, const uint8_t at[3])
{
    c->offsets.set = 1;
    memcpy(c->offsets.at, at, 3);
}

static void init_batch(worker_batch *bt)
{
    memset(bt, 0, sizeof *bt);
    bt->poison[0] = 0x11223344; /* four different bytes: a rotated pattern shows */
    bt->poison[1] = 0x55667788;
    bt->check_inputs = 1;
}

/* Data offsets (divcase.offsets): the plugin sees exactly the requested
 * pointer offsets of A, B and C, through worker_run and the batch runs,
 * the default placement included; a write into the output's tail slack is
 * an out-of-bounds write; the batch's poison elements stay whole at an
 * offset that is no multiple of the element size. */
static void test_offsets(void)
{
    printf("data offsets\n");
    static const uint8_t at[][3] = {{0, 0, 0}, {1, 2, 3}, {63, 17, 42}, {4, 8, 60}, {32, 0, 1}};
    static const uint64_t sizes[] = {1, 37, 1024, 1040, 0};
    worker *w = new_worker("good", 0);
    worker_result r = WORKER_RESULT_INIT;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint64_t n = sizes[s];
        for (size_t k = 0; k <= sizeof at / sizeof at[0]; k++) {
            divcase c;
            make_i32(&c, n);
            if (n)
                set_i32(&c, 0, TRIGGER_ADDR, 1);
            int32_t want;
            if (k < sizeof at / sizeof at[0]) {
                set_offsets(&c, at[k]);
                want = at[k][0] | at[k][1] << 8 | at[k][2] << 16;
            } else { /* the default: each tensor ends flush with its page */
                int32_t e = (int32_t)((0 - 4 * n) & 63);
                want = e | e << 8 | e << 16;
            }
            CHECK(run_case(w, &c, &r) == 0);
            CHECKF(r.outcome == WORKER_OUT_OK && r.computed && !r.side_effects,
                   "n %llu offsets %zu: %s", (unsigned long long)n, k,
                   worker_outcome_name(r.outcome));
            if (r.computed && n) { /* empty: nothing mapped, the slack unchecked */
                CHECKF(seen_offsets(r.out1) == want && seen_offsets(r.out2) == want,
                       "n %llu: offsets 0x%06x seen, 0x%06x asked", (unsigned long long)n,
                       (unsigned)seen_offsets(r.out1), (unsigned)want);
                CHECK(rest_right(&c, r.out1) && r.n_unwritten == 0);
            }
            divcase_free(&c);
        }
    }
    worker_free(w);

    /* One element past C lands in the tail slack: no signal, the poison
     * there tells, at byte 20 of a 20-byte output and at byte 4096 of a
     * 4096-byte one. */
    static const uint64_t oob_n[] = {5, 1024};
    w = new_worker("oob", 0);
    for (size_t k = 0; k < 2; k++) {
        divcase c;
        make_i32(&c, oob_n[k]);
        set_i32(&c, 0, TRIGGER, 1);
        set_offsets(&c, (const uint8_t[3]){4, 4, 4});
        CHECK(run_case(w, &c, &r) == 0);
        show("oob (tail slack)", &r);
        CHECK(r.outcome == WORKER_OUT_OOB_WRITE && r.signal == 0);
        CHECK(r.fault_region == WORKER_REGION_OUT &&
              r.fault_offset == (int64_t)(4 * oob_n[k]));
        CHECKF(strstr(r.message, "past its end") != NULL, "%s", r.message);
        CHECK((r.side_effects & WORKER_SIDE_SLACK) && r.computed);
        CHECK(worker_alive(w));
        divcase_free(&c);
    }
    worker_free(w);

    /* The batch runs: the same pointers; an unwritten element holds the
     * whole poison element at C offset 1; the tail slack is checked. */
    w = new_worker("good", 0);
    worker_batch bt;
    init_batch(&bt);
    for (size_t k = 0; k < sizeof at / sizeof at[0]; k++) {
        divcase c;
        make_i32(&c, 37);
        set_i32(&c, 0, TRIGGER_ADDR, 1);
        set_offsets(&c, at[k]);
        uint8_t *out = NULL;
        CHECK(worker_batch_run(w, &bt, &c, &c.a_shape, &r, &out) == 0);
        CHECKF(r.outcome == WORKER_OUT_OK && r.computed && !r.side_effects && out,
               "batch offsets %zu: %s", k, worker_outcome_name(r.outcome));
        if (out)
            CHECKF(seen_offsets(out) == (at[k][0] | at[k][1] << 8 | at[k][2] << 16) &&
                       rest_right(&c, out),
                   "batch: offsets 0x%06x seen", (unsigned)seen_offsets(out));
        divcase_free(&c);
    }
    worker_free(w);
    w = new_worker("unwritten", 0);
    init_batch(&bt);
    {
        divcase c;
        make_i32(&c, 37);
        set_offsets(&c, (const uint8_t[3]){2, 3, 1});
        uint8_t *out = NULL;
        CHECK(worker_batch_run(w, &bt, &c, &c.a_shape, &r, &out) == 0);
        CHECK(r.outcome == WORKER_OUT_OK && r.computed && !r.side_effects && out);
        if (out) {
            uint32_t last;
            memcpy(&last, out + 4 * 36, 4);
            CHECKF(last == 0x11223344u, "batch: the unwritten element holds 0x%08x", last);
        }
        CHECK(worker_batch_rerun(w, &bt, &c, &c.a_shape, &r) == 0);
        CHECK(r.computed && r.n_unwritten == 1 && r.first_unwritten == 36 && r.n_nondet == 0);
        CHECK(!r.side_effects);
        divcase_free(&c);
    }
    worker_free(w);
    w = new_worker("oob", 0);
    init_batch(&bt);
    {
        divcase c;
        make_i32(&c, 5);
        set_i32(&c, 0, TRIGGER, 1);
        set_offsets(&c, (const uint8_t[3]){4, 4, 4});
        uint8_t *out = NULL;
        CHECK(worker_batch_run(w, &bt, &c, &c.a_shape, &r, &out) == 0);
        CHECK(r.outcome == WORKER_OUT_OOB_WRITE && r.signal == 0 && r.fault_offset == 20);
        divcase_free(&c);
    }
    worker_free(w);
    worker_result_free(&r);
}

/* An i4 case of n elements: a = i - 8 + (i % 3), b = 1..7 cycling. */
static void make_i4(divcase *c, uint64_t n)
{
    make_case(c, DVG_DTYPE_I4, DVG_VARIANT_ONNX_DIV_13, n);
    for (uint64_t i = 0; i < n; i++) {
        oracle_store(DVG_DTYPE_I4, c->a, i, (uint64_t)((int64_t)(i % 16) - 8) & 0xf);
        oracle_store(DVG_DTYPE_I4, c->b, i, (i % 7) + 1);
    }
}

static void test_elements(void)
{
    printf("unwritten and nondeterministic elements\n");
    worker_result r = WORKER_RESULT_INIT;
    divcase c;

    /* i4: per nibble. A correct plugin first, odd and even counts. */
    worker *w = new_worker("good", 0);
    for (uint64_t n = 1; n <= 6; n++) {
        make_i4(&c, n);
        CHECK(run_case(w, &c, &r) == 0);
        CHECK(r.outcome == WORKER_OUT_OK && r.computed && r.count == n);
        CHECK(r.nbytes == (n + 1) / 2 && r.side_effects == 0);
        CHECK(r.n_unwritten == 0 && r.n_nondet == 0);
        int right = r.computed;
        for (uint64_t i = 0; right && i < n; i++) {
            int64_t p = oracle_int_value(DVG_DTYPE_I4, oracle_load(DVG_DTYPE_I4, c.a, i));
            int64_t q = oracle_int_value(DVG_DTYPE_I4, oracle_load(DVG_DTYPE_I4, c.b, i));
            right = oracle_int_value(DVG_DTYPE_I4, oracle_load(DVG_DTYPE_I4, r.out1, i)) == p / q;
        }
        CHECKF(right, "i4 x %llu", (unsigned long long)n);
        divcase_free(&c);
    }
    worker_free(w);
    w = new_worker("unwritten", 0);
    for (uint64_t n = 5; n <= 6; n++) {
        make_i4(&c, n);
        CHECK(run_case(w, &c, &r) == 0);
        CHECKF(r.computed && r.n_unwritten == 1 && r.first_unwritten == n - 1 &&
                   r.flags[n - 1] == WORKER_ELEM_UNWRITTEN && r.flags[n - 2] == 0 &&
                   r.n_nondet == 0,
               "i4 x %llu: %llu unwritten, first %llu", (unsigned long long)n,
               (unsigned long long)r.n_unwritten, (unsigned long long)r.first_unwritten);
        divcase_free(&c);
    }

    static const uint64_t sizes[] = {1, 13, 1024};
    for (size_t k = 0; k < 3; k++) {
        uint64_t n = sizes[k];
        make_i32(&c, n);
        CHECK(run_case(w, &c, &r) == 0);
        CHECK(r.outcome == WORKER_OUT_OK && r.computed);
        CHECKF(r.n_unwritten == 1 && r.first_unwritten == n - 1, "unwritten %llu first %llu",
               (unsigned long long)r.n_unwritten, (unsigned long long)r.first_unwritten);
        CHECK(r.flags[n - 1] == WORKER_ELEM_UNWRITTEN && r.n_nondet == 0);
        CHECK(n == 1 || r.flags[0] == 0);
        divcase_free(&c);
    }
    worker_free(w);

    w = new_worker("nondet", 0);
    make_i4(&c, 3);
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.computed && r.n_nondet == 1 && r.first_nondet == 0 && r.flags[1] == 0);
    divcase_free(&c);
    make_i32(&c, 20);
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_OK && r.computed);
    CHECK(r.n_nondet == 1 && r.first_nondet == 0 && r.flags[0] == WORKER_ELEM_NONDET);
    CHECK(r.n_unwritten == 0 && r.flags[1] == 0);
    divcase_free(&c);
    make_case(&c, DVG_DTYPE_F32, DVG_VARIANT_ONNX_DIV_13, 3);
    for (int i = 0; i < 3; i++) {
        ((float *)c.a)[i] = 1.0f;
        ((float *)c.b)[i] = 2.0f;
    }
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.n_nondet == 1 && r.first_nondet == 0);
    divcase_free(&c);
    worker_result_free(&r);
    worker_free(w);
}

static void test_shape_lies(void)
{
    printf("lying output_shape\n");
    worker *w = new_worker("badshape", 0);
    worker_result r = WORKER_RESULT_INIT;
    divcase c;
    make_case(&c, DVG_DTYPE_I32, DVG_VARIANT_ONNX_DIV_14, 4);
    CHECK(run_case(w, &c, &r) == 0);
    show("rank 9", &r);
    CHECK(r.outcome == WORKER_OUT_BAD_SHAPE && r.shape_rank == 9 && !r.has_shape);
    CHECK(worker_alive(w));
    divcase_free(&c);
    make_case(&c, DVG_DTYPE_I32, DVG_VARIANT_ONNX_DIV_7, 4);
    int pid = worker_pid(w);
    CHECK(run_case(w, &c, &r) == 0);
    show("shape[8] written", &r);
    CHECK(r.outcome == WORKER_OUT_OOB_WRITE && r.stage == WORKER_STAGE_SHAPE);
    CHECK(r.fault_region == WORKER_REGION_SHAPE && r.fault_offset == 8 * 8);
    divcase_free(&c);
    check_recovers(w, pid, "badshape");
    worker_result_free(&r);
    worker_free(w);
}

typedef struct load_case {
    const char *mode;  /* plugin file wp_<mode>.so, or a full path */
    uint32_t outcome;
    uint32_t load_error;
    uint32_t stage;
    const char *text;  /* in the message */
} load_case;

static void test_load_errors(void)
{
    printf("plugins that do not load\n");
    static const load_case cases[] = {
        {"abi2", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_ABI, WORKER_STAGE_LOAD,
         "ABI major 2, harness speaks 1"},
        {"noentry", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_NO_ENTRY, WORKER_STAGE_LOAD,
         "missing entry symbol dvg_iut_descriptor"},
        {"text", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_DLOPEN, WORKER_STAGE_LOAD,
         "invalid ELF header"},
        {"missingdep", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_DLOPEN, WORKER_STAGE_LOAD,
         "libwp_dep.so: cannot open shared object file"},
        {"nonexistent", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_DLOPEN, WORKER_STAGE_LOAD,
         "No such file"},
        {"nullfn", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
         "descriptor field compute is NULL"},
        {"manyclaims", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
         "n_claims 5000 exceeds"},
        {"badclaim", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
         "claim 1: unknown dtype 99"},
        {"nulldesc", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_NULL_DESCRIPTOR, WORKER_STAGE_LOAD,
         "returned NULL"},
        {"openfail", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_OPEN, WORKER_STAGE_OPEN,
         "returned 3"},
        {"loadsegv", WORKER_OUT_CRASH, WORKER_LOAD_NONE, WORKER_STAGE_LOAD, "SIGSEGV"},
        {"badlevel", WORKER_OUT_LOAD_ERROR, WORKER_LOAD_DESCRIPTOR, WORKER_STAGE_LOAD,
         "isa_levels[0] has an x86_level"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const load_case *t = &cases[k];
        worker *w = new_worker(t->mode, 0);
        worker_result r = WORKER_RESULT_INIT;
        CHECKF(worker_start(w, &r) == 1, "%s: loaded", t->mode);
        show(t->mode, &r);
        CHECKF(r.outcome == t->outcome, "%s: outcome %s", t->mode,
               worker_outcome_name(r.outcome));
        CHECKF(r.load_error == t->load_error, "%s: load error %s", t->mode,
               worker_load_error_name(r.load_error));
        CHECKF(r.stage == t->stage, "%s: stage %s", t->mode, worker_stage_name(r.stage));
        CHECKF(strstr(r.message, t->text) != NULL, "%s: message '%s'", t->mode, r.message);
        CHECK(!worker_alive(w) && worker_get_info(w) == NULL);
        /* A request on it reports the same failure and does not fail. */
        divcase c;
        make_i32(&c, 3);
        CHECK(run_case(w, &c, &r) == 0);
        CHECK(r.outcome == t->outcome && r.load_error == t->load_error);
        divcase_free(&c);
        worker_result_free(&r);
        worker_free(w);
    }
}

/* What open_with got (TRIGGER_OPTS), on a fresh worker of `mode`. */
static int32_t opened_with(const char *mode, uint32_t threads, const char *isa,
                           worker_info *info)
{
    worker_options o;
    worker_options_default(&o);
    o.quiet = 1;
    o.threads = threads;
    snprintf(o.isa, sizeof o.isa, "%s", isa);
    char path[4096];
    snprintf(path, sizeof path, "%s/wp_%s.so", plugin_dir, mode);
    worker *w = NULL;
    CHECK(worker_new(path, &o, &w) == 0);
    worker_result r = WORKER_RESULT_INIT;
    divcase c;
    make_i32(&c, 2);
    set_i32(&c, 0, TRIGGER_OPTS, 1);
    int32_t got = INT32_MIN;
    if (w && run_case(w, &c, &r) == 0 && r.computed)
        memcpy(&got, r.out1, 4);
    if (w && worker_get_info(w))
        *info = *worker_get_info(w);
    divcase_free(&c);
    worker_result_free(&r);
    worker_free(w);
    return got;
}

/* ABI 1.1: capabilities and ISA levels reach worker_info, threads and isa
 * reach open_with; a 1.0 descriptor (smaller size) loads, its fields past
 * close unread, and is opened with open(). */
static void test_abi11(void)
{
    printf("ABI 1.1\n");
    static worker_info info;
    memset(&info, 0, sizeof info);
    int32_t got = opened_with("abi11", 3, "avx2", &info);
    CHECKF(got == 1003, "open_with got %d", got);
    CHECK(info.capabilities == (DVG_CAP_IN_PLACE_A | DVG_CAP_THREADS) && info.open_with == 1);
    CHECK(info.abi_minor == 1 && info.descriptor_size == sizeof(dvg_descriptor));
    CHECK(info.n_isa_levels == 2 && !strcmp(info.isa_levels[0].name, "avx2") &&
          !strcmp(info.isa_levels[0].x86_level, "v3") &&
          !strcmp(info.isa_levels[1].name, "scalar") && !info.isa_levels[1].x86_level[0]);
    got = opened_with("abi11", 0, "", &info);
    CHECKF(got == 0, "open_with with defaults got %d", got);
    got = opened_with("abi10", 5, "scalar", &info);
    CHECKF(got == -1, "a 1.0 plugin got %d (open_with called?)", got);
    CHECK(info.abi_minor == 0 && info.descriptor_size == offsetof(dvg_descriptor, capabilities));
    CHECK(info.capabilities == 0 && info.n_isa_levels == 0 && info.open_with == 0);
    got = opened_with("good", 2, "", &info);
    CHECKF(got == -1, "a 1.1 plugin without open_with got %d", got);
}

static void test_narrow(void)
{
    printf("narrowing\n");
    worker *w = new_worker("fpe", 0);
    worker_result r = WORKER_RESULT_INIT;
    narrow_result nr;

    /* 1000 elements, INT_MIN / -1 at 637. */
    divcase c;
    make_i32(&c, 1000);
    for (int i = 0; i < 1000; i++)
        set_i32(&c, (uint64_t)i, i * 3 + 1, -1);
    set_i32(&c, 637, INT32_MIN, -1);
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_CRASH && r.signal == SIGFPE);
    CHECK(narrow_case(w, &c, &r, NULL, &nr) == 0);
    printf("  %s\n", nr.message);
    CHECK(nr.reproduced && nr.found && nr.index == 637 && nr.count == 1);
    CHECK(nr.a_offset == 637 && nr.b_offset == 637);
    CHECK(nr.steps <= 2 * 10 + 4);
    CHECK(nr.reduced.a_shape.rank == 1 && nr.reduced.a_shape.dims[0] == 1);
    CHECK(nr.reduced.a_bytes == 4 && oracle_load(DVG_DTYPE_I32, nr.reduced.a, 0) == 0x80000000u);
    CHECK(oracle_load(DVG_DTYPE_I32, nr.reduced.b, 0) == 0xffffffffu);
    CHECK(nr.failure.outcome == WORKER_OUT_CRASH && nr.failure.signal == SIGFPE);
    narrow_result_free(&nr);
    divcase_free(&c);

    /* Broadcast: A (10, 100), B a scalar; the crash at flat index 637. */
    memset(&c, 0, sizeof c);
    c.variant = DVG_VARIANT_ONNX_DIV_13;
    c.dtype = DVG_DTYPE_I32;
    oracle_attrs_default(oracle_variant_get(c.variant), &c.attrs);
    c.a_shape.rank = 2;
    c.a_shape.dims[0] = 10;
    c.a_shape.dims[1] = 100;
    c.b_shape.rank = 0;
    CHECK(divcase_alloc(&c, 1000) == 0);
    for (int i = 0; i < 1000; i++)
        ((int32_t *)c.a)[i] = 5 * i - 2000;
    ((int32_t *)c.a)[637] = INT32_MIN;
    ((int32_t *)c.b)[0] = -1;
    CHECK(run_case(w, &c, &r) == 0);
    CHECK(r.outcome == WORKER_OUT_CRASH && r.signal == SIGFPE);
    CHECK(narrow_case(w, &c, &r, NULL, &nr) == 0);
    printf("  %s\n", nr.message);
    CHECK(nr.found && nr.index == 637 && nr.a_offset == 637 && nr.b_offset == 0);
    CHECK(oracle_load(DVG_DTYPE_I32, nr.reduced.b, 0) == 0xffffffffu);
    narrow_result_free(&nr);

    /* A clean run is nothing to narrow. */
    ((int32_t *)c.a)[637] = 1;
    CHECK(run_case(w, &c, &r) == 0 && r.outcome == WORKER_OUT_OK);
    CHECK(narrow_case(w, &c, &r, NULL, &nr) == -1);
    narrow_result_free(&nr);
    divcase_free(&c);
    worker_free(w);

    /* A hang narrows too (each hanging run costs the timeout). */
    w = new_worker("hang", 700);
    make_i32(&c, 16);
    set_i32(&c, 11, TRIGGER, 1);
    CHECK(run_case(w, &c, &r) == 0 && r.outcome == WORKER_OUT_HANG);
    CHECK(narrow_case(w, &c, &r, NULL, &nr) == 0);
    printf("  %s\n", nr.message);
    CHECK(nr.found && nr.index == 11);
    narrow_result_free(&nr);
    divcase_free(&c);
    worker_free(w);

    /* Two elements that crash only together: the smallest reproducing
     * subset, not one element. */
    w = new_worker("pair", 0);
    make_i32(&c, 16);
    set_i32(&c, 3, TRIGGER, 1);
    set_i32(&c, 12, TRIGGER, 1);
    CHECK(run_case(w, &c, &r) == 0 && r.outcome == WORKER_OUT_CRASH);
    CHECK(narrow_case(w, &c, &r, NULL, &nr) == 0);
    printf("  %s\n", nr.message);
    CHECK(nr.reproduced && !nr.found && nr.index == 0 && nr.count == 16);
    CHECK(nr.steps == 3);
    narrow_result_free(&nr);
    /* The step bound holds. */
    narrow_options no = {2};
    set_i32(&c, 12, 5, 1);
    set_i32(&c, 4, TRIGGER, 1);
    CHECK(run_case(w, &c, &r) == 0 && r.outcome == WORKER_OUT_CRASH);
    CHECK(narrow_case(w, &c, &r, &no, &nr) == 0);
    printf("  %s\n", nr.message);
    CHECK(nr.steps == 2 && !nr.found && nr.index == 0 && nr.count == 8);
    narrow_result_free(&nr);
    divcase_free(&c);
    worker_result_free(&r);
    worker_free(w);
}

/* Lines in the file at path (0 when it is missing). */
static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, ch;
    if (!f)
        return 0;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

/* A crash costs a fork, not a reload: the plugin counts its open()s in a
 * file; after N crashing calls it was opened once (and, as the baseline
 * that shows the count works, N + 1 times without the zygote). A plugin
 * that left a thread running after open() cannot be forked: it is loaded
 * again after each crash, as without the zygote. The count file lies in
 * the caller's /tmp, which a sandboxed plugin does not see (its /tmp is a
 * private scratch): modes 0-2 count with --sandbox off (the seccomp filter
 * still split between zygote and runner); mode 3 is the zygote in the
 * sandbox, loaded once by the parent's count, its writes kept from the
 * caller's file wherever the mount namespace was in force. */
static void test_zygote(void)
{
    printf("zygote\n");
    enum { CRASHES = 5 };
    for (int mode = 0; mode <= 3; mode++) {
        int no_zygote = mode == 1, threads = mode == 2, sandboxed = mode == 3;
        char path[] = "/tmp/divergence-zygote-XXXXXX", config[64];
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd < 0)
            return;
        close(fd);
        snprintf(config, sizeof config, "%scount:%s", threads ? "thread-" : "", path);
        worker_options o;
        worker_options_default(&o);
        o.confine = 1;
        o.config = config;
        o.no_zygote = no_zygote;
        o.sandbox = sandboxed ? WORKER_SANDBOX_AUTO : WORKER_SANDBOX_OFF;
        worker *w = NULL;
        CHECK(worker_new(plugin("fpe"), &o, &w) == 0 && w);
        worker_result r = WORKER_RESULT_INIT;
        CHECKF(w && worker_start(w, &r) == 0, "start: %s", r.message);
        const worker_info *info = w ? worker_get_info(w) : NULL;
        int zygote = !no_zygote && !threads && !getenv("DIVERGENCE_NO_ZYGOTE");
        CHECKF(info && info->zygote == zygote && info->confined == 1, "zygote %d confined %d",
               info ? info->zygote : -1, info ? info->confined : -1);
        for (int k = 0; w && k < CRASHES; k++) {
            divcase c;
            make_i32(&c, 10);
            set_i32(&c, 3, INT32_MIN, -1);
            CHECK(run_case(w, &c, &r) == 0);
            CHECKF(r.outcome == WORKER_OUT_CRASH && r.signal == SIGFPE &&
                       r.stage == WORKER_STAGE_COMPUTE1 && WIFEXITED(r.wait_status),
                   "crash %d: %s: %s", k, worker_outcome_name(r.outcome), r.message);
            CHECKF(!worker_alive(w) && worker_pid(w) == 0, "crash %d: still alive", k);
            divcase_free(&c);
        }
        if (w) {
            divcase c;
            make_i32(&c, 10);
            CHECK(run_case(w, &c, &r) == 0);
            CHECKF(correct_i32(&c, &r), "after the crashes: %s", r.message);
            divcase_free(&c);
            int want = zygote ? 1 : CRASHES + 1;
            CHECKF(worker_spawns(w) == CRASHES + 1, "spawns %llu",
                   (unsigned long long)worker_spawns(w));
            CHECKF(worker_loads(w) == (uint64_t)want, "loads %llu, expected %d",
                   (unsigned long long)worker_loads(w), want);
            int seen = sandboxed && (info->layers & WORKER_LAYER_MOUNT) ? 0 : want;
            CHECKF(count_lines(path) == seen, "mode %d: the plugin was opened %d times, "
                   "expected %d", mode, count_lines(path), seen);
            /* The runner's group dies with the worker, the zygote too. */
            int pid = worker_pid(w);
            worker_free(w);
            CHECK(kill(pid, 0) != 0);
        }
        worker_result_free(&r);
        unlink(path);
    }
}

static void test_alloc_failures(void)
{
    printf("allocation failures\n");
    for (uint64_t nth = 1; nth <= 12; nth++) {
        dvg_alloc_fail_at(nth, 0);
        worker *w = NULL;
        int rc = worker_new(plugin("good"), NULL, &w);
        if (rc == 0) {
            divcase c;
            memset(&c, 0, sizeof c);
            c.variant = DVG_VARIANT_ONNX_DIV_13;
            c.dtype = DVG_DTYPE_I32;
            oracle_attrs_default(oracle_variant_get(c.variant), &c.attrs);
            c.a_shape.rank = c.b_shape.rank = 1;
            c.a_shape.dims[0] = c.b_shape.dims[0] = 4;
            if (divcase_alloc(&c, 4) == 0) {
                worker_result r = WORKER_RESULT_INIT;
                rc = run_case(w, &c, &r);
                CHECK(rc == 0 || rc == -1);
                worker_result_free(&r);
            }
            divcase_free(&c);
            worker_free(w);
        }
    }
    dvg_alloc_fail_at(0, 0);
}

/* harness/base/affinity.h: job i of N on the i-th allowed CPU, none when the
 * jobs do not fit; worker_options.cpu puts the worker's child there, and
 * a worker restarted after a crash goes back there. */
static void test_affinity(void)
{
    printf("affinity\n");
    uint32_t n = affinity_cpu_count();
    CHECK(n >= 1);
    CHECK(affinity_cpu_for_job(0, n + 1) == -1);
    CHECK(affinity_cpu_for_job(n, n) == -1);
    cpu_set_t mine;
    CPU_ZERO(&mine);
    CHECK(sched_getaffinity(0, sizeof mine, &mine) == 0);
    int last = -1;
    for (uint32_t i = 0; i < n; i++) {
        int cpu = affinity_cpu_for_job(i, n);
        CHECKF(cpu > last && CPU_ISSET(cpu, &mine), "job %u of %u: CPU %d", i, n, cpu);
        last = cpu;
    }
    int cpu = affinity_cpu_for_job(n - 1, n);
    worker_options o;
    worker_options_default(&o);
    CHECK(o.cpu == -1);
    o.cpu = cpu;
    worker *w = NULL;
    CHECK(worker_new(plugin("segv"), &o, &w) == 0 && w);
    worker_result r = WORKER_RESULT_INIT;
    for (int round = 0; w && round < 2; round++) {
        CHECK(worker_start(w, &r) == 0);
        cpu_set_t got;
        CPU_ZERO(&got);
        CHECK(sched_getaffinity(worker_pid(w), sizeof got, &got) == 0);
        CHECKF(CPU_COUNT(&got) == 1 && CPU_ISSET(cpu, &got), "round %d: the worker is not on "
               "CPU %d alone", round, cpu);
        divcase c; /* segv crashes on it: the next round is a fresh child */
        make_i32(&c, 8);
        set_i32(&c, 4, TRIGGER, 1);
        CHECK(run_case(w, &c, &r) == 0 && r.outcome == WORKER_OUT_CRASH);
        divcase_free(&c);
    }
    worker_result_free(&r);
    worker_free(w);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_worker PLUGIN_DIR\n");
        return 2;
    }
    plugin_dir = argv[1];
    main_pid = getpid();
    atexit_in_child = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (atexit_in_child == MAP_FAILED)
        return 2;
    atexit(on_exit_check);
    int fds = count_fds();

    test_good();
    test_crashes();
    test_offsets();
    test_elements();
    test_shape_lies();
    test_load_errors();
    test_abi11();
    test_narrow();
    test_zygote();
    test_alloc_failures();
    test_affinity();

    CHECKF(count_fds() == fds, "descriptors leaked: %d before, %d after", fds, count_fds());
    errno = 0;
    CHECKF(waitpid(-1, NULL, WNOHANG) == -1 && errno == ECHILD, "a child was left behind");
    return check_done("test_worker");
}
