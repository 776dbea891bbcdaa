/* SPDX-License-Identifier: MIT */
/*
 * This file contains the built-in fuzzing campaign and the import of
 * engine findings: the job threads, each with its own worker, drawing case
 * i of the shard from the seed (structured generation, a drawn shape
 * path of harness/cases/shapes.h under an element budget that grows with
 * the case number, or a mutated corpus input through the fuzz decoder),
 * judging it through the trial, and
 * minimising every new finding before it is stored once per signature;
 * the summary (bugs, then signatures); and `divergence import`, which replays libFuzzer and AFL++
 * finding files through the same decoder and stores them the same way.
 */
#include "harness/run/campaign.h"

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/cases/decode.h"
#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "harness/base/datadir.h"
#include "harness/cases/gen.h"
#include "harness/cases/shapes.h"
#include "harness/worker/narrow.h"
#include "harness/run/resume.h"
#include "harness/run/session.h"
#include "harness/run/trial.h"
#include "harness/store/store.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"
#include "oracle/value.h"

#define MAX_JOBS 64
#define MAX_CORPUS_FILES 20000
#define MAX_CORPUS_BYTES (64u << 10)
#define MAX_NEW_PER_CASE 8
#define MAX_SIGNATURES 4096
#define SHRINK_TRIES 64
#define SHRINK_ELEMENTS (UINT64_C(1) << 22) /* probe elements beyond 2x the case's */

void campaign_options_default(campaign_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seconds = 60;
    o->seed = 1;
    o->max_elements = 64;
    o->timeout_ms = 2000;
    o->progress = isatty(2);
    o->memory_limit = WORKER_LIMIT_AS;
    o->cpu_limit_s = WORKER_LIMIT_CPU_S;
    o->pin = -1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ---- the corpus ------------------------------------------------------------ */

typedef struct corpus {
    uint8_t **data;
    size_t *size;
    size_t n;
} corpus;

static void corpus_free(corpus *c)
{
    for (size_t i = 0; i < c->n; i++)
        dvg_free(c->data[i]);
    dvg_free(c->data);
    dvg_free(c->size);
    memset(c, 0, sizeof *c);
}

/* Reads one file of at most `max` bytes. 0, or -1 with *why. */
static int read_file(const char *path, size_t max, uint8_t **out, size_t *size, const char **why)
{
    /* Not blocking: a FIFO or a device is refused, not waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f = NULL;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        *why = "not a regular file";
        return -1;
    }
    if (fd < 0 || !(f = fdopen(fd, "rb"))) {
        if (fd >= 0)
            close(fd);
        *why = "cannot open";
        return -1;
    }
    uint8_t *buf = dvg_malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad || n > max) {
        dvg_free(buf);
        *why = !buf ? "out of memory" : bad ? "read error" : "larger than the limit";
        return -1;
    }
    *out = buf;
    *size = n;
    return 0;
}

/* Loads every regular file of `dir` (sorted by name, so the corpus and
 * thus the cases are the same on every machine). */
static int corpus_load(const char *dir, corpus *c, FILE *err)
{
    memset(c, 0, sizeof *c);
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(err, "divergence fuzz: corpus %s: cannot read the directory\n", dir);
        return -1;
    }
    int rc = 0;
    c->data = dvg_calloc((size_t)n + 1, sizeof *c->data);
    c->size = dvg_calloc((size_t)n + 1, sizeof *c->size);
    if (!c->data || !c->size)
        rc = -1;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && names[i]->d_name[0] != '.' && c->n < MAX_CORPUS_FILES) {
            char path[4096];
            struct stat st;
            int w = snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            const char *why = NULL;
            if (w < (int)sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (read_file(path, MAX_CORPUS_BYTES, &c->data[c->n], &c->size[c->n], &why) == 0)
                    c->n++;
                else
                    fprintf(err, "divergence fuzz: corpus file %s skipped: %s\n", path, why);
            }
        }
        free(names[i]);
    }
    free(names);
    if (rc)
        corpus_free(c);
    return rc;
}

/* ---- shared state ---------------------------------------------------------- */

typedef struct shared {
    const campaign_options *o;
    FILE *out, *err;
    worker_info *info;              /* owned: a copy of the first job's worker's:
                                       a worker's own changes while it
                                       restarts, in its job's thread */
    dvg_claim claims[WORKER_MAX_CLAIMS];
    uint32_t n_claims;
    corpus corpus;
    run_session session;        /* the run in the store */
    store *db;                  /* session.db */
    int64_t run_id;             /* session.run_id */
    pthread_mutex_t lock;
    /* everything below is guarded by lock */
    uint64_t next_case;             /* next case number of this shard */
    uint64_t cases, elements;
    char (*signatures)[160];        /* this run's signatures, as found
                                       (before minimising, which may
                                       change the operand classes) */
    uint32_t n_signatures;
    verdict_tally tallies[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];
    int failed;                     /* a harness or store error: stop */
    /* checkpoints: the main thread pauses the jobs between cases */
    pthread_cond_t cond;
    int pause;
    uint32_t paused, active;        /* jobs waiting; jobs still in their loop */
    verdict_tally recorded[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT]; /* in the store */
    uint64_t resumed_from;          /* --resume: the cases the run held */
    double deadline;
    double started_at, first_finding_at; /* first_finding_at 0: none yet */
    uint64_t first_finding_case;
} shared;

typedef struct job {
    shared *sh;
    worker *w;
    trial t;
    trial probe;                    /* for minimisation */
    verdict_tally tallies[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];
    verdict_example pending[MAX_NEW_PER_CASE];
    uint32_t n_pending;
    const divcase *current;
    int cpu; /* job and worker's CPU; -1 not pinned */
    pthread_t thread;
} job;

/* The store's signature key (variant, dtype, class, operand classes as
 * the store writes them: "a/b", "" for a whole-case finding). */
static void signature_key(const divcase *c, const verdict_example *ex, char *key, size_t len)
{
    snprintf(key, len, "%u|%u|%s|%s%s%s", (unsigned)c->variant, (unsigned)c->dtype,
             oracle_class_name(ex->cls),
             ex->index == UINT64_MAX ? "" : oracle_operand_name(ex->operand_a),
             ex->index == UINT64_MAX ? "" : "/",
             ex->index == UINT64_MAX ? "" : oracle_operand_name(ex->operand_b));
}

/* Claims a signature for this run: 1 when it is new to the run. */
static int signature_claim(shared *sh, const char *key)
{
    for (uint32_t i = 0; i < sh->n_signatures; i++)
        if (!strcmp(sh->signatures[i], key))
            return 0;
    if (sh->n_signatures == MAX_SIGNATURES)
        return 0; /* enough for one run: count, do not record */
    snprintf(sh->signatures[sh->n_signatures++], sizeof sh->signatures[0], "%s", key);
    return 1;
}

/* The verdict's sink: keep the examples whose signature is new to the run. */
static int collect(void *ctx, const divcase *c, const verdict_example *ex)
{
    job *j = ctx;
    if (ex->accepted)
        return 0;
    char key[160];
    signature_key(c, ex, key, sizeof key);
    pthread_mutex_lock(&j->sh->lock);
    int is_new = signature_claim(j->sh, key);
    if (is_new && j->sh->first_finding_at == 0) {
        j->sh->first_finding_at = now_s();
        j->sh->first_finding_case = j->sh->next_case;
    }
    pthread_mutex_unlock(&j->sh->lock);
    if (is_new && j->n_pending < MAX_NEW_PER_CASE)
        j->pending[j->n_pending++] = *ex;
    return 0;
}

/* ---- minimisation ------------------------------------------------------------ */

typedef struct probe_ctx {
    uint32_t cls;
    int found;
    verdict_example ex;
} probe_ctx;

static int probe_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    probe_ctx *p = ctx;
    if (!p->found && ex->cls == p->cls && !ex->accepted) {
        p->found = 1;
        p->ex = *ex;
    }
    (void)c;
    return 0;
}

/* 1 when case c shows a finding of class cls (its example in *ex), 0 when
 * not, -1 on a harness error. */
static int reproduces(job *j, const divcase *c, uint32_t cls, verdict_example *ex)
{
    probe_ctx p = {cls, 0, {0}};
    if (trial_run(&j->probe, c, NULL, probe_sink, &p) < 0)
        return -1;
    if (p.found && ex)
        *ex = p.ex;
    return p.found;
}

/* Simple values of a dtype, simplest first: candidates for operands. */
static size_t simple_values(uint32_t dtype, uint64_t *v, size_t max)
{
    size_t n = 0;
    const char *texts[] = {"0", "1", "-1", "2", "-2", "3", "-3", "7", "-7", "0.5", "-0.5",
                           "10", "-10", "100", "-100"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0] && n < max; i++) {
        uint64_t bits;
        oracle_error e;
        if (oracle_value_parse(dtype, texts[i], &bits, &e) == ORACLE_OK)
            v[n++] = bits;
    }
    size_t ne;
    const uint64_t *edges = gen_edge_values(dtype, &ne);
    for (size_t i = 0; i < ne && n < max; i++)
        v[n++] = edges[i];
    return n;
}

/* Replaces the operands of a 1-element case with the simplest values of
 * the same operand classes that keep the finding's class. */
static int simplify_operands(job *j, divcase *c, uint32_t cls, verdict_example *ex)
{
    uint64_t cand[64];
    size_t n = simple_values(c->dtype, cand, 64);
    for (int side = 0; side < 2; side++) {
        uint8_t *data = side ? c->b : c->a;
        uint64_t orig = oracle_load(c->dtype, data, 0);
        uint32_t klass = oracle_operand_class(c->dtype, orig);
        for (size_t i = 0; i < n; i++) {
            if (cand[i] == orig || oracle_operand_class(c->dtype, cand[i]) != klass)
                continue;
            oracle_store(c->dtype, data, 0, cand[i]);
            verdict_example e2;
            int r = reproduces(j, c, cls, &e2);
            if (r < 0)
                return -1;
            if (r && e2.operand_a == ex->operand_a && e2.operand_b == ex->operand_b) {
                *ex = e2;
                orig = cand[i];
                break;
            }
            oracle_store(c->dtype, data, 0, orig);
        }
        oracle_store(c->dtype, data, 0, orig);
    }
    return 0;
}

/* A copy of c with shapes (a, b) whose operands are c's first elements,
 * repeated, or with `fill` every element of A is fill[0] and of B fill[1]. */
static int reshaped(const divcase *c, const oracle_shape *a, const oracle_shape *b,
                    const uint64_t *fill, divcase *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->id, sizeof out->id, "%s", c->id);
    out->variant = c->variant;
    out->dtype = c->dtype;
    out->attrs = c->attrs;
    out->offsets = c->offsets;
    out->a_shape = *a;
    out->b_shape = *b;
    if (divcase_alloc(out, UINT64_C(1) << 24))
        return -1;
    uint64_t na = oracle_shape_count(a), nb = oracle_shape_count(b);
    uint64_t ca = oracle_shape_count(&c->a_shape), cb = oracle_shape_count(&c->b_shape);
    for (uint64_t i = 0; i < na && (ca || fill); i++)
        oracle_store(c->dtype, out->a, i, fill ? fill[0] : oracle_load(c->dtype, c->a, i % ca));
    for (uint64_t i = 0; i < nb && (cb || fill); i++)
        oracle_store(c->dtype, out->b, i, fill ? fill[1] : oracle_load(c->dtype, c->b, i % cb));
    return 0;
}

/* The shape shrinker's candidates: smaller pairs made from (a, b) by one
 * step, the steps a kernel's paths care about first: the leading output
 * axis dropped (from both operands, or one), one size mapped to 1, to
 * half, to half with its "+1" tail kept, or to one less everywhere it
 * occurs (a map of sizes keeps a broadcasting or window pair a pair: equal
 * dimensions stay equal, 1s stay 1), then one operand's dimension alone
 * to 1 or to one less. */
#define SHRINK_MAX_CANDIDATES 160

typedef struct shape_pair {
    oracle_shape a, b;
} shape_pair;

static void drop_leading(oracle_shape *s)
{
    memmove(s->dims, s->dims + 1, (s->rank - 1) * sizeof s->dims[0]);
    s->dims[--s->rank] = 0;
}

static void map_size(oracle_shape *s, int64_t from, int64_t to)
{
    for (uint32_t k = 0; k < s->rank; k++)
        if (s->dims[k] == from)
            s->dims[k] = to;
}

static size_t shrink_candidates(const oracle_shape *a, const oracle_shape *b, shape_pair *out)
{
    size_t n = 0;
    uint32_t rank = a->rank > b->rank ? a->rank : b->rank;
    if (rank) { /* the leading output axis, from both, then from each */
        shape_pair p = {*a, *b};
        if (p.a.rank == rank)
            drop_leading(&p.a);
        if (p.b.rank == rank)
            drop_leading(&p.b);
        out[n++] = p;
        for (int side = 0; side < 2; side++) {
            shape_pair q = {*a, *b};
            oracle_shape *t = side ? &q.b : &q.a;
            if (t->rank) {
                drop_leading(t);
                out[n++] = q;
            }
        }
    }
    /* Size maps, larger sizes first. */
    int64_t sizes[2 * DVG_MAX_RANK];
    size_t ns = 0;
    for (int side = 0; side < 2; side++) {
        const oracle_shape *s = side ? b : a;
        for (uint32_t k = 0; k < s->rank; k++) {
            size_t i = 0;
            while (i < ns && sizes[i] != s->dims[k])
                i++;
            if (i == ns && s->dims[k] > 1)
                sizes[ns++] = s->dims[k];
        }
    }
    for (size_t i = 0; i < ns; i++)
        for (size_t j = i + 1; j < ns; j++)
            if (sizes[j] > sizes[i]) {
                int64_t t = sizes[i];
                sizes[i] = sizes[j];
                sizes[j] = t;
            }
    for (size_t i = 0; i < ns; i++) {
        /* 1, half, half keeping a "+1" tail (65 -> 33 -> 17 -> 9), one less */
        int64_t d = sizes[i], to[4] = {1, d / 2, (d - 1) / 2 + 1, d - 1};
        for (int t = 0; t < 4; t++) {
            int dup = 0;
            for (int u = 0; u < t; u++)
                dup |= to[u] == to[t];
            if (dup || to[t] >= d)
                continue;
            shape_pair p = {*a, *b};
            map_size(&p.a, d, to[t]);
            map_size(&p.b, d, to[t]);
            out[n++] = p;
        }
    }
    /* One operand's dimension alone. */
    for (int side = 0; side < 2; side++) {
        const oracle_shape *s = side ? b : a;
        for (uint32_t k = 0; k < s->rank && n + 2 <= SHRINK_MAX_CANDIDATES; k++) {
            if (s->dims[k] <= 1)
                continue;
            shape_pair p = {*a, *b};
            oracle_shape *t = side ? &p.b : &p.a;
            t->dims[k] = 1;
            out[n++] = p;
            if (s->dims[k] > 2) {
                shape_pair q = {*a, *b};
                t = side ? &q.b : &q.a;
                t->dims[k] -= 1;
                out[n++] = q;
            }
        }
    }
    return n;
}

/* 1 when the pair is valid (or invalid) under c's attributes as c is. */
static int same_validity(const divcase *c, const oracle_shape *a, const oracle_shape *b,
                         int valid)
{
    oracle_rules r;
    oracle_plan p;
    int v = oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, NULL) == ORACLE_OK &&
            oracle_plan_shapes(&r, a, b, &p, NULL) == ORACLE_OK;
    return v == valid;
}

static uint64_t pair_elements(const oracle_shape *a, const oracle_shape *b)
{
    return oracle_shape_count(a) + oracle_shape_count(b);
}

/* What a probe of the pair costs: its operands and its output (numpy's
 * broadcast output can hold far more than both operands). */
static uint64_t probe_cost(const divcase *c, const oracle_shape *a, const oracle_shape *b)
{
    oracle_rules r;
    oracle_plan p;
    uint64_t n = pair_elements(a, b);
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, NULL) == ORACLE_OK &&
        oracle_plan_shapes(&r, a, b, &p, NULL) == ORACLE_OK)
        n += p.count;
    return n;
}

/* 1 when pair p is simpler than (a, b): fewer elements, or as many in
 * fewer dimensions. */
static int simpler(const shape_pair *p, const oracle_shape *a, const oracle_shape *b)
{
    uint64_t np = pair_elements(&p->a, &p->b), n = pair_elements(a, b);
    return np < n || (np == n && p->a.rank + p->b.rank < a->rank + b->rank);
}

/* Greedy: the first smaller candidate pair that still shows the class
 * replaces the case, until none does, SHRINK_TRIES probes are spent, or the
 * probes have cost SHRINK_ELEMENTS elements more than twice the case's
 * own (a case of millions of elements gets a few probes, not 64). An
 * element finding's operands are first made constant (every element of A
 * the example's a, of B its b), so a smaller shape keeps the values that
 * showed the finding wherever its path goes wrong. */
static int shrink_shapes(job *j, divcase *c, uint32_t cls, verdict_example *ex, int valid)
{
    shape_pair *cand = dvg_malloc(SHRINK_MAX_CANDIDATES * sizeof *cand);
    if (!cand)
        return -1;
    int rc = 0;
    uint64_t fill[2], *fillp = NULL;
    uint64_t spent = 0, allowance = SHRINK_ELEMENTS + 2 * probe_cost(c, &c->a_shape, &c->b_shape);
    int tries = 0;
    if (ex->index != UINT64_MAX) {
        divcase k;
        fill[0] = ex->a;
        fill[1] = ex->b;
        if (reshaped(c, &c->a_shape, &c->b_shape, fill, &k)) {
            rc = -1;
            goto done;
        }
        verdict_example e2;
        int r = reproduces(j, &k, cls, &e2);
        tries++;
        spent += probe_cost(c, &k.a_shape, &k.b_shape);
        if (r < 0) {
            divcase_free(&k);
            rc = -1;
            goto done;
        }
        if (r) {
            divcase_free(c);
            *c = k;
            *ex = e2;
            fillp = fill;
        } else {
            divcase_free(&k);
        }
    }
    for (int improved = 1; improved && tries < SHRINK_TRIES && spent < allowance;) {
        improved = 0;
        size_t n = shrink_candidates(&c->a_shape, &c->b_shape, cand);
        for (size_t i = 0; i < n && !improved && tries < SHRINK_TRIES && spent < allowance; i++) {
            if (!simpler(&cand[i], &c->a_shape, &c->b_shape) ||
                !same_validity(c, &cand[i].a, &cand[i].b, valid))
                continue;
            tries++;
            spent += probe_cost(c, &cand[i].a, &cand[i].b);
            divcase k;
            if (reshaped(c, &cand[i].a, &cand[i].b, fillp, &k)) {
                rc = -1;
                goto done;
            }
            verdict_example e2;
            int r = reproduces(j, &k, cls, &e2);
            if (r < 0) {
                divcase_free(&k);
                rc = -1;
                goto done;
            }
            if (r) {
                divcase_free(c);
                *c = k;
                *ex = e2;
                improved = 1;
            } else {
                divcase_free(&k);
            }
        }
    }
done:
    dvg_free(cand);
    return rc;
}

/*
 * Minimises the finding `ex` of case c into *out (a case the caller frees)
 * and updates *ex to the minimised example. *how says what was done.
 */
static int minimise(job *j, const divcase *c, verdict_example *ex, divcase *out, char *how,
                    size_t len)
{
    if (divcase_copy(out, c))
        return -1;
    snprintf(how, len, "as found");
    oracle_rules r;
    oracle_plan p;
    oracle_error why;
    int valid = oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, &why) == ORACLE_OK &&
                oracle_plan_shapes(&r, &c->a_shape, &c->b_shape, &p, &why) == ORACLE_OK;
    if (ex->cls == ORACLE_CLASS_HANG)
        return 0; /* every probe would cost a timeout */
    if (ex->index != UINT64_MAX && valid) {
        divcase one;
        if (p.count > 1 && narrow_subcase(c, &p, &c->attrs, ex->index, 1, &one) == 0) {
            verdict_example e2;
            int rr = reproduces(j, &one, ex->cls, &e2);
            if (rr < 0) {
                divcase_free(&one);
                return -1;
            }
            if (rr) {
                divcase_free(out);
                *out = one;
                *ex = e2;
                snprintf(how, len, "one element");
            } else {
                divcase_free(&one);
            }
        }
        if (oracle_shape_count(&out->a_shape) == 1 && oracle_shape_count(&out->b_shape) == 1) {
            if (simplify_operands(j, out, ex->cls, ex))
                return -1;
            snprintf(how, len, "one element, simplest operands");
            return 0;
        }
    }
    if ((ex->cls == ORACLE_CLASS_CRASH) && valid && p.count > 1) {
        narrow_result nr;
        memset(&nr, 0, sizeof nr);
        narrow_options no = {0};
        if (narrow_case(j->probe.w, c, &j->t.wr, &no, &nr) == 0 && nr.found) {
            divcase_free(out);
            if (divcase_copy(out, &nr.reduced)) {
                narrow_result_free(&nr);
                return -1;
            }
            snprintf(how, len, "narrowed to the crashing element");
            narrow_result_free(&nr);
            return 0;
        }
        narrow_result_free(&nr);
    }
    if (shrink_shapes(j, out, ex->cls, ex, valid))
        return -1;
    snprintf(how, len, "smallest shape that keeps the class");
    return 0;
}

/* Minimises and stores the findings new to this run. */
static int record_pending(job *j, const divcase *c)
{
    shared *sh = j->sh;
    for (uint32_t i = 0; i < j->n_pending; i++) {
        verdict_example ex = j->pending[i];
        divcase m;
        char how[64], note[WORKER_MESSAGE_MAX + 160];
        if (minimise(j, c, &ex, &m, how, sizeof how)) {
            fprintf(sh->err, "divergence fuzz: minimising a finding: %s\n", j->probe.error);
            return -1;
        }
        char operand[64] = "", expected[VERDICT_TEXT_MAX] = "", actual[VERDICT_ACTUAL_MAX] = "";
        if (ex.index != UINT64_MAX) {
            snprintf(operand, sizeof operand, "%s/%s", oracle_operand_name(ex.operand_a),
                     oracle_operand_name(ex.operand_b));
            verdict_elem_text(c->dtype, &ex.expected, expected, sizeof expected);
            verdict_actual_text(c->dtype, &ex, actual, sizeof actual);
        }
        snprintf(note, sizeof note, "fuzz seed %" PRIu64 ", case %s, minimised: %s%s%.400s",
                 sh->o->seed, c->id, how, ex.note[0] ? "; " : "", ex.note);
        store_finding f = {
            .implementation = sh->info->name,
            .cls = ex.cls,
            .operand_class = operand,
            .c = &m,
            .element = ex.index == UINT64_MAX ? -1 : (int64_t)ex.index,
            .expected = ex.index == UINT64_MAX ? NULL : expected,
            .actual = ex.index == UINT64_MAX ? NULL : actual,
            .ulps = ex.cls == ORACLE_CLASS_WRONG_VALUE ? ex.ulps : UINT64_MAX,
            .note = note,
        };
        pthread_mutex_lock(&sh->lock);
        int rc = store_record_finding(sh->db, sh->run_id, &f, NULL, NULL);
        if (rc)
            fprintf(sh->err, "divergence fuzz: %s\n", store_errmsg(sh->db));
        pthread_mutex_unlock(&sh->lock);
        divcase_free(&m);
        if (rc)
            return -1;
    }
    j->n_pending = 0;
    return 0;
}

/* ---- case generation ------------------------------------------------------- */

/* Mutates bytes in place (length may change within cap). */
static size_t mutate(gen_rng *g, uint8_t *buf, size_t n, size_t cap)
{
    uint32_t rounds = 1 + (uint32_t)gen_below(g, 8);
    for (uint32_t r = 0; r < rounds; r++) {
        switch (gen_below(g, 6)) {
        case 0: /* flip a bit */
            if (n)
                buf[gen_below(g, n)] ^= (uint8_t)(1u << gen_below(g, 8));
            break;
        case 1: /* random byte */
            if (n)
                buf[gen_below(g, n)] = (uint8_t)gen_next(g);
            break;
        case 2: /* interesting byte */
            if (n) {
                static const uint8_t interesting[] = {0, 1, 2, 3, 0x7f, 0x80, 0xff, 0xfe, 0x10, 0x40};
                buf[gen_below(g, n)] = interesting[gen_below(g, sizeof interesting)];
            }
            break;
        case 3: /* overwrite 2/4/8 bytes with an edge-like pattern */
            if (n >= 8) {
                size_t at = gen_below(g, n - 7);
                uint64_t v = gen_next(g);
                static const uint64_t pats[] = {0, UINT64_MAX, 0x8000000000000000u,
                                                0x7fffffffffffffffu, 1};
                v = gen_below(g, 2) ? pats[gen_below(g, 5)] : v;
                memcpy(buf + at, &v, 1u << (1 + gen_below(g, 3)));
            }
            break;
        case 4: /* erase a chunk */
            if (n > 2) {
                size_t at = gen_below(g, n), len = 1 + gen_below(g, n - at);
                if (len > 16)
                    len = 16;
                if (at + len <= n) {
                    memmove(buf + at, buf + at + len, n - at - len);
                    n -= len;
                }
            }
            break;
        default: /* insert random bytes */
            if (n < cap) {
                size_t at = n ? gen_below(g, n) : 0, len = 1 + gen_below(g, 8);
                if (n + len > cap)
                    len = cap - n;
                memmove(buf + at + len, buf + at, n - at);
                for (size_t i = 0; i < len; i++)
                    buf[at + i] = (uint8_t)gen_next(g);
                n += len;
            }
            break;
        }
    }
    return n;
}

/* The drawn shape paths' element budget (shape_budget): SHAPE_BUDGET_MIN
 * at case 0, doubling every SHAPE_BUDGET_STEP cases up to
 * SHAPE_BUDGET_SMALL, then every SHAPE_BUDGET_STEP * SMALL / budget cases
 * (each doubling then costs about the same time) up to SHAPE_BUDGET_MAX,
 * past the 2^22 elements where threaded paths start. Above SMALL one shape
 * case in SHAPE_BIG_ONE_IN draws under the whole budget, the others under
 * SMALL, so a campaign stays at hundreds of cases a second. A case of 2^23
 * f64 elements holds 3 x 64 MiB of tensors in the worker (and two outputs
 * in the parent). */
#define SHAPE_BUDGET_MIN   UINT64_C(256)
#define SHAPE_BUDGET_STEP  UINT64_C(20000)
#define SHAPE_BUDGET_SMALL (UINT64_C(1) << 16)
#define SHAPE_BUDGET_MAX   (UINT64_C(1) << 23)
#define SHAPE_BIG_ONE_IN   4

/* The budget at global case number `global`. */
static uint64_t shape_budget(uint64_t global)
{
    uint64_t budget = SHAPE_BUDGET_MIN, left = global;
    while (budget < SHAPE_BUDGET_MAX) {
        uint64_t span = budget < SHAPE_BUDGET_SMALL
                            ? SHAPE_BUDGET_STEP
                            : SHAPE_BUDGET_STEP * SHAPE_BUDGET_SMALL / budget;
        if (left < span)
            break;
        left -= span;
        budget *= 2;
    }
    return budget;
}

/* Case number `index` of this shard. Depends on (seed, global number) only. */
static int make_case(shared *sh, uint64_t index, uint8_t *scratch, size_t cap, divcase *c)
{
    const campaign_options *o = sh->o;
    uint32_t n_shards = o->shard_count > 1 ? o->shard_count : 1;
    uint64_t global = index * n_shards + (n_shards > 1 ? o->shard_index : 0);
    gen_rng g;
    gen_seed(&g, o->seed, global);
    char id[64];
    snprintf(id, sizeof id, "fuzz:%" PRIu64 ":%" PRIu64, o->seed, global);
    if (sh->corpus.n && gen_below(&g, 2)) {
        size_t k = gen_below(&g, sh->corpus.n);
        size_t n = sh->corpus.size[k] < cap ? sh->corpus.size[k] : cap;
        memcpy(scratch, sh->corpus.data[k], n);
        n = mutate(&g, scratch, n, cap);
        fuzz_limits lim;
        fuzz_limits_default(&lim);
        lim.max_elements = o->max_elements;
        lim.claims = sh->claims;
        lim.n_claims = sh->n_claims;
        if (fuzz_decode(scratch, n, &lim, c))
            return -1;
        snprintf(c->id, sizeof c->id, "%s", id);
        return 0;
    }
    const dvg_claim *cl = &sh->claims[gen_below(&g, sh->n_claims)];
    if (gen_below(&g, 4) == 0) {
        /* A shape path under the budget of the case number (sizes are
         * log-uniform below it, so most cases stay small). */
        uint64_t budget = shape_budget(global);
        if (budget > SHAPE_BUDGET_SMALL && gen_below(&g, SHAPE_BIG_ONE_IN))
            budget = SHAPE_BUDGET_SMALL;
        shapes_spec sp;
        shapes_draw(&g, cl->variant, cl->dtype, budget, &sp);
        return shapes_case(&g, cl->variant, cl->dtype, &sp, id, c);
    }
    return gen_case(&g, cl->variant, cl->dtype, NULL, 1, 8, o->max_elements, id, c);
}

/* ---- jobs --------------------------------------------------------------------- */

static void *job_main(void *arg)
{
    job *j = arg;
    shared *sh = j->sh;
    affinity_pin_thread(j->cpu);
    uint8_t *scratch = dvg_malloc(MAX_CORPUS_BYTES + 64);
    if (!scratch) {
        pthread_mutex_lock(&sh->lock);
        sh->failed = 1;
        sh->active--;
        pthread_cond_broadcast(&sh->cond);
        pthread_mutex_unlock(&sh->lock);
        return NULL;
    }
    uint64_t cases = 0, elements = 0;
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        while (sh->pause && !sh->failed) { /* a checkpoint: wait between cases */
            sh->paused++;
            pthread_cond_broadcast(&sh->cond);
            pthread_cond_wait(&sh->cond, &sh->lock);
            sh->paused--;
        }
        int stop = sh->failed || (sh->o->max_cases && sh->next_case >= sh->o->max_cases) ||
                   (sh->deadline > 0 && now_s() >= sh->deadline) ||
                   (sh->o->stop_on_finding && sh->first_finding_at > 0);
        uint64_t index = sh->next_case;
        sh->next_case += stop ? 0 : 1;
        sh->cases += cases;
        sh->elements += elements;
        cases = elements = 0;
        if (stop) {
            sh->active--;
            pthread_cond_broadcast(&sh->cond);
        }
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
        divcase c;
        if (make_case(sh, index, scratch, MAX_CORPUS_BYTES + 64, &c)) {
            fprintf(sh->err, "divergence fuzz: out of memory making case %" PRIu64 "\n", index);
            goto fail;
        }
        verdict_tally *t = &j->tallies[c.variant][c.dtype];
        uint64_t before = t->elements;
        j->n_pending = 0;
        int v = trial_run(&j->t, &c, t, collect, j);
        if (v < 0) {
            fprintf(sh->err, "divergence fuzz: %s\n", j->t.error);
            divcase_free(&c);
            goto fail;
        }
        cases++;
        elements += t->elements - before;
        if (j->n_pending && record_pending(j, &c)) {
            divcase_free(&c);
            goto fail;
        }
        divcase_free(&c);
    }
    dvg_free(scratch);
    return NULL;
fail:
    pthread_mutex_lock(&sh->lock);
    sh->failed = 1;
    sh->cases += cases;
    sh->elements += elements;
    sh->active--;
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
    dvg_free(scratch);
    return NULL;
}

/* Starts a job's worker (in the calling thread, which outlives it). */
static int job_start(shared *sh, job *j, int cpu, FILE *err)
{
    memset(j, 0, sizeof *j);
    j->sh = sh;
    j->cpu = cpu;
    worker_options wo;
    worker_options_limited(&wo);
    wo.limit_as_bytes = sh->o->memory_limit;
    wo.limit_cpu_s = sh->o->cpu_limit_s;
    wo.config = sh->o->config;
    wo.timeout_ms = sh->o->timeout_ms ? sh->o->timeout_ms : 2000;
    wo.quiet = 1;
    wo.cpu = cpu;
    trial_sandbox_options(&wo, sh->o->sandbox, sh->o->env, sh->o->n_env);
    if (worker_new(sh->o->plugin_path, &wo, &j->w)) {
        fprintf(err, "divergence fuzz: cannot create a worker for %s\n", sh->o->plugin_path);
        return -1;
    }
    trial_init(&j->t, j->w, &sh->o->profile);
    trial_init(&j->probe, j->w, &sh->o->profile);
    int rc = worker_start(j->w, &j->t.wr);
    if (rc) {
        char msg[WORKER_MESSAGE_MAX + 64];
        fprintf(err, "divergence fuzz: cannot load plugin %s: %s\n", sh->o->plugin_path,
                rc < 0 ? worker_errmsg(j->w) : worker_result_format(&j->t.wr, msg, sizeof msg));
        return -1;
    }
    return 0;
}

static void job_free(job *j)
{
    trial_free(&j->t);
    trial_free(&j->probe);
    worker_free(j->w);
    j->w = NULL;
}

static uint32_t default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (uint32_t)n;
}

static int take_signature(void *ctx, uint32_t variant, uint32_t dtype, const char *cls,
                          const char *operand_class)
{
    shared *sh = ctx;
    char key[160];
    snprintf(key, sizeof key, "%u|%u|%s|%s", (unsigned)variant, (unsigned)dtype, cls,
             operand_class);
    signature_claim(sh, key);
    return 0;
}

/* Opens the run session: the store, and a new run with the plugin build
 * (or, with --resume, the run to continue, and what it had done). */
static int open_run(shared *sh, const char *kind, FILE *err)
{
    const campaign_options *o = sh->o;
    if (session_open(&sh->session, kind, o->db_path, o->plugin_path, sh->info->name,
                     sh->info->version, err))
        return -1;
    sh->db = sh->session.db;
    int found = o->resume ? session_resume(&sh->session, kind, o->args) : 0;
    if (found < 0)
        return -1;
    sh->run_id = sh->session.run_id;
    if (found) {
        if (resume_cases(sh->db, sh->run_id, &sh->resumed_from) ||
            resume_signatures(sh->db, sh->run_id, take_signature, sh)) {
            fprintf(err, "divergence %s: %s\n", kind, store_errmsg(sh->db));
            return -1;
        }
        sh->next_case = sh->resumed_from;
        return 0;
    }
    char sandbox[160];
    trial_report_sandbox(kind, sh->info->layers, NULL, sh->err, sandbox, sizeof sandbox);
    store_run_info ri = {.kind = kind, .profile = o->profile.name, .args = o->args,
                         .sandbox = sandbox, .seed = o->seed, .has_seed = 1,
                         .shard_index = o->shard_index,
                         .shard_count = o->shard_count};
    int rc = session_begin(&sh->session, &ri);
    sh->run_id = sh->session.run_id;
    return rc;
}

/* Records what the tallies gained since the last checkpoint (counts per
 * (variant, dtype, class), ULP histograms) in one transaction. The jobs
 * are paused or done: nothing changes `now` meanwhile. */
static int record_counts(shared *sh, verdict_tally (*now)[DVG_DTYPE_COUNT])
{
    int rc = store_begin(sh->db);
    for (uint32_t v = 0; v < DVG_VARIANT_COUNT && !rc; v++)
        for (uint32_t d = 0; d < DVG_DTYPE_COUNT && !rc; d++) {
            const verdict_tally *t = &now[v][d], *was = &sh->recorded[v][d];
            uint64_t cases = t->cases - was->cases;
            if (!cases)
                continue;
            for (int k = 0; k < ORACLE_CLASS_COUNT && !rc; k++) {
                uint64_t n = k == 0 ? t->elements - was->elements
                                    : t->counts[k] + t->accepted[k] - was->counts[k] -
                                          was->accepted[k];
                /* the match row always: its cases are the run's case count */
                if (n || k == 0)
                    rc = store_record_counts(sh->db, sh->run_id, sh->info->name, v, d,
                                             (uint32_t)k, n,
                                             k == 0 ? cases
                                                    : t->class_cases[k] - was->class_cases[k]);
            }
            uint64_t hist[VERDICT_ULP_BUCKETS], any = 0;
            for (int b = 0; b < VERDICT_ULP_BUCKETS; b++)
                any |= hist[b] = t->ulp_hist[b] - was->ulp_hist[b];
            if (!rc && any)
                rc = store_record_ulp_histogram(sh->db, sh->run_id, sh->info->name, v, d, hist,
                                                VERDICT_ULP_BUCKETS);
        }
    if (!rc)
        rc = store_commit(sh->db);
    else
        store_rollback(sh->db);
    if (!rc)
        memcpy(sh->recorded, now, sizeof sh->recorded);
    return rc;
}

/* Records the counts and ends the run. */
static int close_run(shared *sh, int complete, const char *kind, FILE *err)
{
    if (!sh->db || !sh->run_id)
        return 0;
    int rc = record_counts(sh, sh->tallies);
    if (session_finish(&sh->session, complete && !rc ? STORE_RUN_COMPLETE
                                                     : STORE_RUN_INCOMPLETE))
        rc = -1;
    if (rc)
        fprintf(err, "divergence %s: %s\n", kind, store_errmsg(sh->db));
    return rc;
}

/* sh->tallies = the sum of the jobs' (paused or done) tallies. */
static void sum_tallies(shared *sh, const job *jobs, uint32_t n_jobs)
{
    memset(sh->tallies, 0, sizeof sh->tallies);
    for (uint32_t i = 0; i < n_jobs; i++)
        for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
            for (uint32_t d = 0; d < DVG_DTYPE_COUNT; d++)
                verdict_tally_add(&sh->tallies[v][d], &jobs[i].tallies[v][d]);
}

/* Pauses the jobs between two cases, records the counts they gained since
 * the last checkpoint, lets them go on. A store error stops the campaign. */
static void checkpoint(shared *sh, const job *jobs, uint32_t n_jobs)
{
    pthread_mutex_lock(&sh->lock);
    sh->pause = 1;
    while (sh->paused < sh->active && !sh->failed)
        pthread_cond_wait(&sh->cond, &sh->lock);
    if (!sh->failed) {
        sum_tallies(sh, jobs, n_jobs);
        if (record_counts(sh, sh->tallies)) {
            fprintf(sh->err, "divergence fuzz: recording a checkpoint: %s\n",
                    store_errmsg(sh->db));
            sh->failed = 1;
        }
    }
    sh->pause = 0;
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
}

static int findings_total(const shared *sh, uint64_t *by_class)
{
    int any = 0;
    for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
        for (uint32_t d = 0; d < DVG_DTYPE_COUNT; d++)
            for (int k = 1; k < ORACLE_CLASS_COUNT; k++) {
                by_class[k] += sh->tallies[v][d].counts[k];
                any |= sh->tallies[v][d].counts[k] != 0;
            }
    return any;
}

/* The claims worth fuzzing: those the variant table allows. */
static void take_claims(shared *sh)
{
    sh->n_claims = 0;
    for (uint32_t i = 0; i < sh->info->n_claims; i++) {
        const dvg_claim *cl = &sh->info->claims[i];
        if (oracle_variant_has_dtype(oracle_variant_get(cl->variant), cl->dtype))
            sh->claims[sh->n_claims++] = *cl;
    }
}

/* store_select's callback: the bug and signature counts of the run. */
static int on_bug_counts(void *ctx, const store_row *r)
{
    int64_t *n = ctx;
    n[0] = store_row_int(r, 0);
    n[1] = store_row_int(r, 1);
    n[2] = store_row_int(r, 2);
    return 0;
}

/* "N bugs (M signatures)": the run's findings grouped into bugs
 * (docs/store.md), the new ones those first found by this run. */
static void print_bugs(shared *sh)
{
    int64_t n[3] = {0, 0, 0};
    store_param p = STORE_PARAM_INT(sh->run_id);
    if (!sh->db || store_select(sh->db,
                                "SELECT count(DISTINCT s.bug_id), count(*),"
                                " count(DISTINCT CASE WHEN b.first_run_id = ?1 THEN b.id END)"
                                " FROM read_signature_runs g"
                                " JOIN read_signatures s ON s.id = g.signature_id"
                                " LEFT JOIN read_bugs b ON b.id = s.bug_id WHERE g.run_id = ?1",
                                &p, 1, on_bug_counts, n))
        return;
    fprintf(sh->out, "  bugs: %" PRId64 " bug%s (%" PRId64 " signature%s), %" PRId64 " new\n",
            n[0], n[0] == 1 ? "" : "s", n[1], n[1] == 1 ? "" : "s", n[2]);
}

/* store_select's callback: the run's signatures and those first found
 * by it. */
static int on_signature_counts(void *ctx, const store_row *r)
{
    int64_t *n = ctx;
    n[0] = store_row_int(r, 0);
    n[1] = store_row_int(r, 1);
    return 0;
}

/* store_select's callback: a class and the first signature of it that
 * the run saw. */
static int on_class_signature(void *ctx, const store_row *r)
{
    int64_t *first = ctx;
    int k = oracle_class_by_name(store_row_text(r, 0) ? store_row_text(r, 0) : "");
    if (k > 0 && k < ORACLE_CLASS_COUNT)
        first[k] = store_row_int(r, 1);
    return 0;
}

/* "findings: N signatures (M new, K already known)": the distinct
 * signatures the store holds for the run, M of them first found by it, K
 * found by a run before it (a resumed run's own earlier findings are new).
 * first[k] receives the lowest signature id of class k the run saw (0:
 * none). */
static void print_signatures(shared *sh, int64_t first[ORACLE_CLASS_COUNT])
{
    int64_t n[2] = {0, 0};
    store_param p = STORE_PARAM_INT(sh->run_id);
    if (!sh->db ||
        store_select(sh->db,
                     "SELECT count(*), count(CASE WHEN s.first_run_id = ?1 THEN 1 END)"
                     " FROM read_signature_runs g JOIN read_signatures s ON s.id = g.signature_id"
                     " WHERE g.run_id = ?1",
                     &p, 1, on_signature_counts, n) ||
        store_select(sh->db,
                     "SELECT s.class, min(s.id) FROM read_signature_runs g"
                     " JOIN read_signatures s ON s.id = g.signature_id WHERE g.run_id = ?1"
                     " GROUP BY s.class",
                     &p, 1, on_class_signature, first)) {
        fprintf(sh->out, "  findings: unknown (%s)\n", store_errmsg(sh->db));
        return;
    }
    fprintf(sh->out, "  findings: %" PRId64 " signatures (%" PRId64 " new, %" PRId64
                     " already known)\n", n[0], n[1], n[0] - n[1]);
}

static void print_summary(shared *sh, const char *kind, double secs)
{
    uint64_t by_class[ORACLE_CLASS_COUNT] = {0};
    findings_total(sh, by_class);
    fprintf(sh->out, "%s: %s %s, seed %" PRIu64 ", shard %u/%u, run %" PRId64 "\n", kind,
            sh->info->name, sh->info->version, sh->o->seed,
            sh->o->shard_count > 1 ? sh->o->shard_index : 0,
            sh->o->shard_count > 1 ? sh->o->shard_count : 1, sh->run_id);
    char sandbox[160];
    trial_report_sandbox(kind, sh->info->layers, sh->out, NULL, sandbox, sizeof sandbox);
    fprintf(sh->out, "  cases %" PRIu64 ", elements %" PRIu64 " in %.1f s: %.0f cases/s, %.0f elements/s\n",
            sh->cases, sh->elements, secs, secs > 0 ? (double)sh->cases / secs : 0,
            secs > 0 ? (double)sh->elements / secs : 0);
    print_bugs(sh);
    int64_t first[ORACLE_CLASS_COUNT] = {0};
    print_signatures(sh, first);
    if (sh->first_finding_at > 0 && sh->started_at > 0)
        fprintf(sh->out, "  first finding after %.3f s (around case %" PRIu64 ")\n",
                sh->first_finding_at - sh->started_at, sh->first_finding_case);
    int any = 0;
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++) {
        if (!by_class[k])
            continue;
        fprintf(sh->out, "    %-26s %10" PRIu64, oracle_class_name((uint32_t)k), by_class[k]);
        if (first[k])
            fprintf(sh->out, "  [" STORE_REF_SIGNATURE "%" PRId64 "]", first[k]);
        fputc('\n', sh->out);
        any |= first[k] != 0;
    }
    if (any)
        fprintf(sh->out, "  'divergence replay --db %s " STORE_REF_SIGNATURE "N' re-runs the first "
                         "reproducer of signature [" STORE_REF_SIGNATURE "N]\n",
                sh->session.db_path);
}

static int shared_init(shared *sh, const campaign_options *o, FILE *out, FILE *err)
{
    memset(sh, 0, sizeof *sh);
    sh->o = o;
    sh->out = out;
    sh->err = err;
    pthread_mutex_init(&sh->lock, NULL);
    pthread_cond_init(&sh->cond, NULL);
    sh->signatures = dvg_calloc(MAX_SIGNATURES, sizeof sh->signatures[0]);
    if (!sh->signatures) {
        fprintf(err, "divergence fuzz: out of memory\n");
        return -1;
    }
    if (o->shard_count > 1 && o->shard_index >= o->shard_count) {
        fprintf(err, "divergence fuzz: shard %u/%u: the index must be below the count\n",
                o->shard_index, o->shard_count);
        return -1;
    }
    return 0;
}

static int shared_take_info(shared *sh, const worker *w)
{
    worker_info *copy = dvg_malloc(sizeof *copy);
    if (!copy) {
        fprintf(sh->err, "divergence fuzz: out of memory\n");
        return -1;
    }
    *copy = *worker_get_info(w);
    sh->info = copy;
    return 0;
}

/* Frees what the campaign holds; failed: its run is left incomplete. */
static void shared_free(shared *sh, int failed)
{
    session_close(&sh->session, failed);
    dvg_free(sh->info);
    corpus_free(&sh->corpus);
    dvg_free(sh->signatures);
    pthread_cond_destroy(&sh->cond);
    pthread_mutex_destroy(&sh->lock);
}

int campaign_run(const campaign_options *o, FILE *out, FILE *err)
{
    shared sh;
    job *jobs = NULL;
    uint32_t n_jobs = o->jobs ? o->jobs : default_jobs(), started = 0;
    int status = 2;
    if (n_jobs > MAX_JOBS)
        n_jobs = MAX_JOBS;
    if (shared_init(&sh, o, out, err))
        goto done;
    oracle_fastpath_selfcheck();
    int pin = o->pin > 0 || (o->pin < 0 && n_jobs == affinity_cpu_count());
    jobs = dvg_calloc(n_jobs, sizeof *jobs);
    if (!jobs)
        goto done;
    for (; started < n_jobs; started++)
        if (job_start(&sh, &jobs[started], pin ? affinity_cpu_for_job(started, n_jobs) : -1,
                      err)) {
            job_free(&jobs[started]); /* what it made before it failed */
            goto done;
        }
    if (shared_take_info(&sh, jobs[0].w))
        goto done;
    take_claims(&sh);
    if (!sh.n_claims) {
        fprintf(err, "divergence fuzz: %s claims no (variant, dtype) pair of the variant table\n",
                sh.info->name);
        goto done;
    }
    char corpus_found[DATADIR_PATH_MAX], where[2 * DATADIR_PATH_MAX];
    const char *corpus_dir = o->corpus_dir ? o->corpus_dir : corpus_found;
    if (!o->corpus_dir &&
        datadir_find("corpus/div", corpus_found, sizeof corpus_found, where, sizeof where)) {
        fprintf(err, "divergence fuzz: %s; --corpus DIR names the corpus, --corpus \"\" none\n",
                where);
        goto done;
    }
    if (corpus_dir[0] && corpus_load(corpus_dir, &sh.corpus, err))
        goto done;
    if (open_run(&sh, "fuzz", err))
        goto done;

    if (sh.resumed_from)
        fprintf(out, "fuzz: resuming run %" PRId64 " at case %" PRIu64 "\n", sh.run_id,
                sh.resumed_from);

    double t0 = now_s(), last_checkpoint = t0;
    sh.started_at = t0;
    sh.deadline = o->seconds > 0 ? t0 + o->seconds : 0;
    uint32_t running = 0;
    sh.active = n_jobs;
    for (; running < n_jobs; running++)
        if (pthread_create(&jobs[running].thread, NULL, job_main, &jobs[running])) {
            pthread_mutex_lock(&sh.lock);
            sh.failed = 1;
            sh.active = running;
            pthread_mutex_unlock(&sh.lock);
            break;
        }
    /* The main thread reports progress and records checkpoints while the
     * jobs run. */
    for (;;) {
        if (now_s() - last_checkpoint >= CAMPAIGN_CHECKPOINT_S) {
            checkpoint(&sh, jobs, n_jobs);
            last_checkpoint = now_s();
        }
        pthread_mutex_lock(&sh.lock);
        int over = sh.failed || (o->max_cases && sh.next_case >= o->max_cases) ||
                   (sh.deadline > 0 && now_s() >= sh.deadline) ||
                   (o->stop_on_finding && sh.first_finding_at > 0);
        uint64_t cases = sh.cases;
        uint32_t sigs = sh.n_signatures;
        pthread_mutex_unlock(&sh.lock);
        if (o->progress)
            fprintf(err, "\rfuzz: %.0f s, %" PRIu64 " cases, %u signatures   ", now_s() - t0, cases, sigs);
        if (over)
            break;
        struct timespec ts = {0, 200 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (uint32_t i = 0; i < running; i++)
        pthread_join(jobs[i].thread, NULL);
    if (o->progress)
        fprintf(err, "\r%60s\r", "");
    double secs = now_s() - t0;
    sum_tallies(&sh, jobs, n_jobs);
    if (close_run(&sh, !sh.failed, "fuzz", err) || sh.failed)
        goto done;
    print_summary(&sh, "fuzz", secs);
    status = sh.n_signatures ? 1 : 0;
done:
    for (uint32_t i = 0; jobs && i < started; i++)
        job_free(&jobs[i]);
    dvg_free(jobs);
    shared_free(&sh, status == 2);
    return status;
}

/* ---- import ------------------------------------------------------------------ */

static int import_one(shared *sh, job *j, const char *path, FILE *err)
{
    uint8_t *data;
    size_t size;
    const char *why;
    if (read_file(path, MAX_CORPUS_BYTES, &data, &size, &why)) {
        fprintf(err, "divergence import: %s: %s\n", path, why);
        return -1;
    }
    fuzz_limits lim;
    fuzz_limits_default(&lim);
    lim.max_elements = sh->o->max_elements;
    lim.claims = sh->claims;
    lim.n_claims = sh->n_claims;
    divcase c;
    int rc = fuzz_decode(data, size, &lim, &c);
    dvg_free(data);
    if (rc) {
        fprintf(err, "divergence import: %s: out of memory decoding\n", path);
        return -1;
    }
    const char *base = strrchr(path, '/');
    snprintf(c.id, sizeof c.id, "import:%.80s", base ? base + 1 : path);
    verdict_tally *t = &sh->tallies[c.variant][c.dtype];
    j->n_pending = 0;
    int v = trial_run(&j->t, &c, t, collect, j);
    if (v < 0) {
        fprintf(err, "divergence import: %s: %s\n", path, j->t.error);
        divcase_free(&c);
        return -1;
    }
    sh->cases++;
    sh->elements += j->t.valid ? j->t.plan.count : 0;
    fprintf(sh->out, "  %s: %s %s, %s\n", path, oracle_variant_get(c.variant)->name,
            oracle_dtype_tag(c.dtype), v ? "conforms (nothing to import)" : "departs from the spec");
    rc = j->n_pending ? record_pending(j, &c) : 0;
    divcase_free(&c);
    return rc;
}

static int import_path(shared *sh, job *j, const char *path, FILE *err)
{
    struct stat st;
    if (stat(path, &st)) {
        fprintf(err, "divergence import: %s: no such file or directory\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return import_one(sh, j, path, err);
    struct dirent **names = NULL;
    int n = scandir(path, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(err, "divergence import: %s: cannot read the directory\n", path);
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
        struct stat s2;
        /* libFuzzer names findings crash-*, AFL++ puts them in crashes/id:* */
        if (rc == 0 && names[i]->d_name[0] != '.' && strcmp(names[i]->d_name, "README.txt") &&
            stat(sub, &s2) == 0 && S_ISREG(s2.st_mode))
            rc = import_one(sh, j, sub, err);
        free(names[i]);
    }
    free(names);
    return rc;
}

int campaign_import(const campaign_options *o, char **paths, int n_paths, FILE *out, FILE *err)
{
    shared sh;
    job j;
    int status = 2, started = 0;
    memset(&j, 0, sizeof j);
    if (shared_init(&sh, o, out, err))
        goto done;
    oracle_fastpath_selfcheck();
    started = 1; /* job_free takes what job_start made, all or part */
    if (job_start(&sh, &j, -1, err))
        goto done;
    if (shared_take_info(&sh, j.w))
        goto done;
    take_claims(&sh);
    if (!sh.n_claims) {
        fprintf(err, "divergence import: %s claims no pair of the variant table\n", sh.info->name);
        goto done;
    }
    if (open_run(&sh, "import", err))
        goto done;
    int failed = 0;
    for (int i = 0; i < n_paths && !failed; i++)
        failed = import_path(&sh, &j, paths[i], err) != 0;
    if (close_run(&sh, !failed, "import", err) || failed)
        goto done;
    print_summary(&sh, "import", 0);
    status = sh.n_signatures ? 1 : 0;
done:
    if (started)
        job_free(&j);
    shared_free(&sh, status == 2);
    return status;
}
