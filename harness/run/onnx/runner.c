/* SPDX-License-Identifier: MIT */
/*
 * This file contains the runner of ONNX's own Div node tests
 * (onnx-tests): the tests found (a directory with model.onnx, or its
 * test_div* subdirectories), every test_data_set_* of each a unit of the
 * run engine, run in order on one job: the data set read as a case (the
 * model reader, model.c), ONNX's shipped output judged against the
 * oracle, and, with a plugin, the case run through the trial in the job's
 * worker and judged; a line per data set and a summary.
 */
#include "harness/run/onnx/onnx_internal.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/alloc.h"
#include "harness/cases/divcase.h"
#include "harness/judge/verdict.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/isolation.h"
#include "harness/run/engine/trial.h"
#include "harness/worker/worker.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/fastpath.h"
#include "oracle/rules.h"
#include "oracle/variant.h"

/* One test: its name, directory and model. */
typedef struct onnx_test {
    char name[256];
    char dir[4096];
    onnxtests_model model;
} onnx_test;

/* One data set: a unit. */
typedef struct onnx_set {
    uint32_t test;
    char name[64];
} onnx_set;

typedef struct run_state {
    const onnxtests_options *o;
    FILE *out, *err;
    worker *w;
    int loaded;              /* 1: the worker has started once, -1: it failed to */
    verdict_profile profile;
    trial t;
    uint64_t shown;          /* plugin findings shown for this data set */
    onnx_test *tests;
    uint32_t n_tests;
    size_t cap_tests;
    onnx_set *sets;
    size_t n_sets, cap_sets;
    /* totals */
    unsigned cases, conform, depart, skipped, data_disagree, data_agree, errors;
} run_state;

typedef struct name_list {
    char **names;
    size_t n, cap;
} name_list;

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        dvg_free(l->names[i]);
    dvg_free(l->names);
    memset(l, 0, sizeof *l);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* path = a/b (or a/b/c when c is not NULL); -1 when it does not fit. */
static int join(char *path, size_t len, const char *a, const char *b, const char *c)
{
    int n = c ? snprintf(path, len, "%s/%s/%s", a, b, c) : snprintf(path, len, "%s/%s", a, b);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Entries of `dir` whose names start with `prefix` and that are
 * directories, sorted. -1 on an unreadable directory or memory. */
static int list_dirs(const char *dir, const char *prefix, name_list *out, char *err, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    memset(out, 0, sizeof *out);
    if (!d)
        return onnxtests_fail(err, len, "%s: %s", dir, strerror(errno));
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        if (strncmp(e->d_name, prefix, strlen(prefix)))
            continue;
        if (join(path, sizeof path, dir, e->d_name, NULL) || stat(path, &st) ||
            !S_ISDIR(st.st_mode))
            continue;
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 16;
            char **p = dvg_realloc(out->names, cap * sizeof *p);
            if (!p)
                goto oom;
            out->names = p;
            out->cap = cap;
        }
        if (!(out->names[out->n] = dvg_strdup(e->d_name)))
            goto oom;
        out->n++;
    }
    closedir(d);
    if (out->n) /* qsort takes no NULL array, even empty (UBSan) */
        qsort(out->names, out->n, sizeof *out->names, cmp_names);
    return 0;
oom:
    closedir(d);
    names_free(out);
    return onnxtests_fail(err, len, "%s: out of memory", dir);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int show_finding(void *ctx, const divcase *c, const verdict_example *ex)
{
    run_state *rs = ctx;
    char a[80], b[80], want[96], got[VERDICT_ACTUAL_MAX];
    if (ex->accepted)
        return 0;
    if (ex->index == UINT64_MAX) {
        fprintf(rs->out, "    plugin: %s: %s\n", oracle_class_name(ex->cls), ex->note);
        return 0;
    }
    if (rs->shown++ >= (rs->o->verbose ? 20u : 3u))
        return 0;
    verdict_bits_text(c->dtype, ex->a, a, sizeof a);
    verdict_bits_text(c->dtype, ex->b, b, sizeof b);
    verdict_elem_text(c->dtype, &ex->expected, want, sizeof want);
    verdict_actual_text(c->dtype, ex, got, sizeof got);
    fprintf(rs->out, "    plugin: %s, %" PRIu64 " element(s), e.g. element %" PRIu64
            ": %s / %s: expected %s, got %s\n", oracle_class_name(ex->cls), ex->elements,
            ex->index, a, b, want, got);
    return 0;
}

/* Loads an operand of one data set: the initializer, or input_<n>.pb. */
static int load_operand(const char *set_dir, const onnxtests_operand *op, onnxtests_tensor *t,
                        char *err, size_t len)
{
    char path[4096], file[32];
    if (op->from == ONNXTESTS_FROM_INITIALIZER) {
        *t = op->init;
        t->data = dvg_malloc(op->init.nbytes ? (size_t)op->init.nbytes : 1);
        if (!t->data)
            return onnxtests_fail(err, len, "out of memory");
        memcpy(t->data, op->init.data, (size_t)op->init.nbytes);
        return 0;
    }
    snprintf(file, sizeof file, "input_%u.pb", op->index);
    if (join(path, sizeof path, set_dir, file, NULL))
        return onnxtests_fail(err, len, "%s: path too long", set_dir);
    return onnxtests_read_tensor(path, t, err, len);
}


/* The case of one data set: its operands and shipped output read, the
 * first lines printed. 0 with *c and *tc, 1 when it is skipped (said),
 * -1 on an error (printed). */
static int read_set(run_state *rs, const onnx_test *tt, const char *set, const char *set_dir,
                    divcase *c, onnxtests_tensor *tc)
{
    const onnxtests_model *m = &tt->model;
    onnxtests_tensor ta, tb;
    char err[1024], path[4096], file[32], sa[96], sb[96];
    oracle_rules rules;
    oracle_error why;
    int rc = -1;
    memset(&ta, 0, sizeof ta);
    memset(&tb, 0, sizeof tb);
    snprintf(file, sizeof file, "output_%u.pb", m->output);
    if (join(path, sizeof path, set_dir, file, NULL)) {
        fprintf(rs->err, "divergence onnx-tests: %s: path too long\n", set_dir);
        goto done;
    }
    if (load_operand(set_dir, &m->a, &ta, err, sizeof err) ||
        load_operand(set_dir, &m->b, &tb, err, sizeof err) ||
        onnxtests_read_tensor(path, tc, err, sizeof err)) {
        fprintf(rs->err, "divergence onnx-tests: %s/%s: %s\n", tt->name, set, err);
        goto done;
    }
    rs->cases++;
    fprintf(rs->out, "%s/%s: opset %" PRId64 " -> %s%s%s, %s, A %s, B %s\n", tt->name, set,
            m->opset, oracle_variant_get(m->variant)->name, m->attr_text[0] ? " " : "",
            m->attr_text, oracle_dtype_tag(ta.dtype), oracle_shape_format(&ta.shape, sa, sizeof sa),
            oracle_shape_format(&tb.shape, sb, sizeof sb));
    rc = 1;
    if (ta.dtype != tb.dtype || tc->dtype != ta.dtype) {
        fprintf(rs->out, "    test data: A, B and the output differ in type (%s, %s, %s); Div "
                "takes one type: skipped\n", oracle_dtype_tag(ta.dtype),
                oracle_dtype_tag(tb.dtype), oracle_dtype_tag(tc->dtype));
        goto skipped;
    }
    if (oracle_rules_resolve(m->variant, ta.dtype, &m->attrs, &rules, &why)) {
        fprintf(rs->out, "    test data: %s: skipped\n", why.text);
        goto skipped;
    }
    /* The case, as the rest of Divergence speaks it. */
    snprintf(c->id, sizeof c->id, "onnx:%.40s/%.40s", tt->name, set);
    snprintf(c->source, sizeof c->source, "%.150s", set_dir);
    c->variant = m->variant;
    c->dtype = ta.dtype;
    c->attrs = m->attrs;
    c->a_shape = ta.shape;
    c->b_shape = tb.shape;
    c->a = ta.data;
    c->b = tb.data;
    c->a_bytes = ta.nbytes;
    c->b_bytes = tb.nbytes;
    ta.data = tb.data = NULL; /* the case owns them now */
    rc = 0;
    goto done;
skipped:
    rs->data_disagree++;
    rs->skipped++;
done:
    onnxtests_tensor_free(&ta);
    onnxtests_tensor_free(&tb);
    return rc;
}

/* One element of the shipped output that the oracle does not accept. */
static void show_data_element(run_state *rs, const oracle_rules *rules, const oracle_plan *plan,
                              const divcase *c, uint64_t i, const oracle_elem *e, uint64_t got)
{
    uint64_t ao, bo;
    char a[80], b[80], want[96], have[80];
    oracle_plan_offsets(plan, i, &ao, &bo);
    uint64_t x = oracle_load(c->dtype, c->a, ao), y = oracle_load(c->dtype, c->b, bo);
    verdict_bits_text(c->dtype, x, a, sizeof a);
    verdict_bits_text(c->dtype, y, b, sizeof b);
    verdict_elem_text(c->dtype, e, want, sizeof want);
    verdict_bits_text(c->dtype, got, have, sizeof have);
    fprintf(rs->out, "    test data: element %" PRIu64 ": %s / %s: the oracle says %s, the test "
            "ships %s (%s", i, a, b, want, have,
            oracle_class_name(oracle_classify(rules, x, y, e, got, NULL)));
    if (e->kind == ORACLE_EXACT && oracle_dtype(c->dtype)->kind == DVG_KIND_FLOAT)
        fprintf(rs->out, ", %" PRIu64 " ulp", oracle_ulp_distance(c->dtype, e->bits, got));
    fprintf(rs->out, ")\n");
}

/* 1. The shipped output against the oracle. *same_shape: the oracle
 * planned the case with the shipped output's shape. 0, or -1 (printed). */
static int judge_shipped(run_state *rs, const char *what, const divcase *c,
                         const onnxtests_tensor *tc, oracle_plan *plan, int *same_shape)
{
    oracle_rules rules;
    oracle_error why;
    char sa[96], sc[96];
    *same_shape = 0;
    oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &rules, &why);
    int valid = oracle_plan_shapes(&rules, &c->a_shape, &c->b_shape, plan, &why);
    if (valid == ORACLE_EUSAGE) {
        fprintf(rs->err, "divergence onnx-tests: %s: %s\n", what, why.text);
        return -1;
    }
    if (valid == ORACLE_INVALID) {
        fprintf(rs->out, "    test data: ships an output of shape %s, but the oracle says the "
                "input is invalid: %s [%s]\n", oracle_shape_format(&tc->shape, sc, sizeof sc),
                why.text, why.requirement ? why.requirement : "-");
        rs->data_disagree++;
        return 0;
    }
    if (!oracle_shape_equal(&plan->out, &tc->shape)) {
        fprintf(rs->out, "    test data: output shape %s, the oracle's is %s\n",
                oracle_shape_format(&tc->shape, sc, sizeof sc),
                oracle_shape_format(&plan->out, sa, sizeof sa));
        rs->data_disagree++;
        return 0;
    }
    *same_shape = 1;
    oracle_elem *expected = dvg_malloc((plan->count ? plan->count : 1) * sizeof *expected);
    if (!expected) {
        fprintf(rs->err, "divergence onnx-tests: %s: out of memory\n", what);
        return -1;
    }
    oracle_expect_tensor(&rules, plan, c->a, c->b, expected);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < plan->count; i++) {
        uint64_t got = oracle_load(c->dtype, tc->data, i);
        if (oracle_elem_accepts(c->dtype, &expected[i], got))
            continue;
        if (bad++ < (rs->o->verbose ? 20u : 3u))
            show_data_element(rs, &rules, plan, c, i, &expected[i], got);
    }
    dvg_free(expected);
    if (bad) {
        fprintf(rs->out, "    test data: disagrees with the oracle on %" PRIu64 " of %" PRIu64
                " elements (a disagreement with ONNX's test data, not a plugin failure)\n",
                bad, plan->count);
        rs->data_disagree++;
    } else {
        fprintf(rs->out, "    test data: agrees with the oracle on all %" PRIu64 " elements\n",
                plan->count);
        rs->data_agree++;
    }
    return 0;
}

/* Starts the plugin's worker the first time. 0, or -1 (said once). */
static int start_plugin(run_state *rs)
{
    if (rs->loaded)
        return rs->loaded < 0 ? -1 : 0;
    worker_result r = WORKER_RESULT_INIT;
    int started = worker_start(rs->w, &r);
    char msg[WORKER_MESSAGE_MAX + 64];
    if (started)
        fprintf(rs->err, "divergence onnx-tests: cannot load %s: %s\n", rs->o->plugin_path,
                started < 0 ? worker_errmsg(rs->w) : worker_result_format(&r, msg, sizeof msg));
    worker_result_free(&r);
    rs->loaded = started ? -1 : 1;
    return started ? -1 : 0;
}

/* How the plugin's conforming output compares with the shipped one. */
static void compare_shipped(run_state *rs, const divcase *c, const onnxtests_tensor *tc,
                            uint64_t count)
{
    uint64_t same = 0, nans = 0;
    for (uint64_t i = 0; i < count; i++) {
        uint64_t x = oracle_load(c->dtype, rs->t.wr.out1, i);
        uint64_t y = oracle_load(c->dtype, tc->data, i);
        if (x == y)
            same++;
        else if (oracle_operand_class(c->dtype, x) == ORACLE_OPERAND_NAN &&
                 oracle_operand_class(c->dtype, y) == ORACLE_OPERAND_NAN)
            nans++; /* NaNs of another sign or payload */
    }
    fprintf(rs->out, "    plugin: conforms (%" PRIu64 " elements); the shipped output: "
            "%" PRIu64 " bit-identical, %" PRIu64 " NaN for NaN, %" PRIu64 " different\n",
            count, same, nans, count - same - nans);
}

/* 2. The plugin, judged by the oracle and compared with the test data.
 * 0, or -1 (printed). */
static int run_plugin(run_state *rs, const char *what, const divcase *c,
                      const onnxtests_tensor *tc, const oracle_plan *plan, int same_shape)
{
    if (start_plugin(rs))
        return -1;
    if (!worker_info_claims(worker_get_info(rs->w), c->variant, c->dtype)) {
        fprintf(rs->out, "    plugin: does not claim (%s, %s): skipped\n",
                oracle_variant_get(c->variant)->name, oracle_dtype_tag(c->dtype));
        rs->skipped++;
        return 0;
    }
    rs->shown = 0;
    int conforms = trial_run(&rs->t, c, NULL, show_finding, rs);
    if (conforms < 0) {
        fprintf(rs->err, "divergence onnx-tests: %s: %s\n", what, rs->t.error);
        return -1;
    }
    if (rs->t.wr.outcome == WORKER_OUT_LOAD_ERROR) {
        char msg[WORKER_MESSAGE_MAX + 64];
        fprintf(rs->err, "divergence onnx-tests: cannot load %s: %s\n", rs->o->plugin_path,
                worker_result_format(&rs->t.wr, msg, sizeof msg));
        return -1;
    }
    if (!conforms) {
        rs->depart++;
        if (rs->t.wr.outcome == WORKER_OUT_OK)
            fprintf(rs->out, "    plugin: DEPARTS from the spec on this case\n");
        else
            fprintf(rs->out, "    plugin: DEPARTS from the spec on this case (%s)\n",
                    worker_outcome_name(rs->t.wr.outcome));
        return 0;
    }
    rs->conform++;
    if (rs->t.valid && rs->t.wr.computed && same_shape)
        compare_shipped(rs, c, tc, plan->count);
    else
        fprintf(rs->out, "    plugin: conforms (%s)\n",
                rs->t.valid ? "no elements" : "rejects the invalid input");
    return 0;
}

/* The engine's run: one data set. Its errors are counted, not fatal. */
static int run_set(void *ctx, engine_job *j, uint64_t u, void **result)
{
    run_state *rs = ctx;
    const onnx_set *s = &rs->sets[u];
    const onnx_test *tt = &rs->tests[s->test];
    char set_dir[4096], what[400];
    divcase c;
    onnxtests_tensor tc;
    oracle_plan plan;
    int same_shape = 0;
    (void)j;
    *result = NULL;
    memset(&c, 0, sizeof c);
    memset(&tc, 0, sizeof tc);
    snprintf(what, sizeof what, "%.190s/%.190s", tt->name, s->name);
    int rc = join(set_dir, sizeof set_dir, tt->dir, s->name, NULL) ? -1
             : read_set(rs, tt, s->name, set_dir, &c, &tc);
    if (rc == 0)
        rc = judge_shipped(rs, what, &c, &tc, &plan, &same_shape);
    if (rc == 0 && rs->o->plugin_path)
        rc = run_plugin(rs, what, &c, &tc, &plan, same_shape);
    rs->errors += rc < 0;
    divcase_free(&c);
    onnxtests_tensor_free(&tc);
    return 0;
}

static int no_commit(void *ctx, uint64_t u, void *result)
{
    (void)ctx;
    (void)u;
    (void)result;
    return 0; /* the job printed its lines: one job runs them in order */
}

/* The engine's job: the plugin's worker (started at its first case). */
static int job_start(void *ctx, engine_job *j)
{
    run_state *rs = ctx;
    (void)j;
    if (!rs->o->plugin_path)
        return 0;
    run_isolation iso;
    isolation_default(&iso, rs->o->timeout_ms ? rs->o->timeout_ms : WORKER_DEFAULT_TIMEOUT_MS);
    worker_options wo;
    isolation_worker_options(&iso, WORKER_DEFAULT_TIMEOUT_MS, rs->o->config,
                             (isolation_place){-1, 1}, 0, &wo);
    if (worker_new(rs->o->plugin_path, &wo, &rs->w)) {
        fprintf(rs->err, "divergence onnx-tests: cannot create a worker for %s\n",
                rs->o->plugin_path);
        return -1;
    }
    trial_init(&rs->t, rs->w, &rs->profile);
    return 0;
}

/* A test directory: its model and data sets into the plan. Its errors
 * are printed and counted. */
static void add_test(run_state *rs, const char *dir, const char *name)
{
    char path[4096], err[1024];
    name_list sets;
    if (dvg_grow((void **)&rs->tests, &rs->cap_tests, rs->n_tests + 1, sizeof *rs->tests))
        goto oom;
    onnx_test *tt = &rs->tests[rs->n_tests];
    memset(tt, 0, sizeof *tt);
    snprintf(tt->name, sizeof tt->name, "%s", name);
    snprintf(tt->dir, sizeof tt->dir, "%s", dir);
    if (join(path, sizeof path, dir, "model.onnx", NULL)) {
        fprintf(rs->err, "divergence onnx-tests: %s: path too long\n", dir);
        rs->errors++;
        return;
    }
    if (onnxtests_read_model(path, &tt->model, err, sizeof err)) {
        fprintf(rs->err, "divergence onnx-tests: %s\n", err);
        rs->errors++;
        return;
    }
    rs->n_tests++;
    if (list_dirs(dir, "test_data_set_", &sets, err, sizeof err)) {
        fprintf(rs->err, "divergence onnx-tests: %s\n", err);
        rs->errors++;
        return;
    }
    if (!sets.n) {
        fprintf(rs->err, "divergence onnx-tests: %s: no test_data_set_* directory\n", dir);
        rs->errors++;
    }
    for (size_t i = 0; i < sets.n; i++) {
        if (dvg_grow((void **)&rs->sets, &rs->cap_sets, rs->n_sets + 1, sizeof *rs->sets)) {
            names_free(&sets);
            goto oom;
        }
        onnx_set *s = &rs->sets[rs->n_sets++];
        s->test = rs->n_tests - 1;
        snprintf(s->name, sizeof s->name, "%s", sets.names[i]);
    }
    names_free(&sets);
    return;
oom:
    fprintf(rs->err, "divergence onnx-tests: %s: out of memory\n", dir);
    rs->errors++;
}

/* The tests under dir: dir itself when it holds model.onnx, else its
 * test_div* subdirectories that hold one. */
static void find_tests(run_state *rs, const char *dir)
{
    char path[4096], msg[1024];
    name_list tests;
    memset(&tests, 0, sizeof tests);
    if (join(path, sizeof path, dir, "model.onnx", NULL)) {
        fprintf(rs->err, "divergence onnx-tests: %s: path too long\n", dir);
        rs->errors++;
        return;
    }
    if (exists(path)) { /* one test directory */
        const char *base = strrchr(dir, '/');
        add_test(rs, dir, base && base[1] ? base + 1 : dir);
        return;
    }
    if (list_dirs(dir, "test_div", &tests, msg, sizeof msg)) {
        fprintf(rs->err, "divergence onnx-tests: %s\n", msg);
        rs->errors++;
    }
    size_t found = 0;
    for (size_t i = 0; i < tests.n; i++) {
        if (join(path, sizeof path, dir, tests.names[i], "model.onnx") || !exists(path))
            continue;
        found++;
        join(path, sizeof path, dir, tests.names[i], NULL);
        add_test(rs, path, tests.names[i]);
    }
    if (!found && !rs->errors) {
        fprintf(rs->err, "divergence onnx-tests: %s holds no model.onnx and no test_div* "
                         "directory with one\n", dir);
        rs->errors++;
    }
    names_free(&tests);
}

int onnxtests_run(const char *dir, const onnxtests_options *o, FILE *out, FILE *err)
{
    run_state rs;
    char msg[64];
    memset(&rs, 0, sizeof rs);
    rs.o = o;
    rs.out = out;
    rs.err = err;
    if (!onnxtests_available()) {
        fprintf(err, "divergence onnx-tests: this divergence was built without protobuf-c "
                     "(libprotobuf-c-dev, protobuf-c-compiler) and libonnx-dev's onnx.proto: run "
                     "scripts/setup.sh\n");
        return 2;
    }
    oracle_fastpath_selfcheck();
    verdict_profile_parse("exact", &rs.profile, msg, sizeof msg);
    find_tests(&rs, dir);
    engine_policy p = {.ctx = &rs, .jobs = 1, .units = rs.n_sets, .ordered = 1,
                       .job_start = job_start, .run = run_set, .commit = no_commit};
    if (rs.n_sets && engine_run(&p, "onnx-tests", err) < 0)
        rs.errors++;
    fprintf(out, "%u case(s)", rs.cases);
    if (o->plugin_path)
        fprintf(out, "; plugin %s: %u conform, %u depart, %u skipped", o->plugin_path, rs.conform,
                rs.depart, rs.skipped);
    fprintf(out, "; test data: %u agree with the oracle, %u disagree%s\n", rs.data_agree,
            rs.data_disagree, rs.errors ? "; errors above" : "");
    int status = rs.errors ? 2 : rs.depart ? 1 : 0;
    trial_free(&rs.t);
    worker_free(rs.w);
    for (uint32_t i = 0; i < rs.n_tests; i++)
        onnxtests_model_free(&rs.tests[i].model);
    dvg_free(rs.tests);
    dvg_free(rs.sets);
    return status;
}
