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
#include "harness/run/crosscheck.h"
#include "harness/run/minimise.h"
#include "harness/run/resume.h"
#include "harness/run/session.h"
#include "harness/run/trial.h"
#include "harness/store/store.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"

#define MAX_JOBS 64
#define MAX_CORPUS_FILES 20000
#define MAX_CORPUS_BYTES (64u << 10)
#define MAX_NEW_PER_CASE 8
#define MAX_SIGNATURES 4096

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

/* A tally per (variant, dtype). */
typedef verdict_tally pair_tallies[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];

typedef struct shared {
    const campaign_options *o;
    FILE *out, *err;
    uint32_t n_plugins;
    worker_info *info[CAMPAIGN_MAX_PLUGINS]; /* owned: copies of the first
                                       job's workers': a worker's own changes
                                       while it restarts, in its job's thread */
    char set_name[CAMPAIGN_MAX_PLUGINS * (WORKER_NAME_MAX + 1)]; /* the names
                                       joined by '|': the run's implementation
                                       and its hazards' */
    dvg_claim claims[WORKER_MAX_CLAIMS]; /* the pairs every plugin claims */
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
    uint32_t n_hazard_signatures;   /* of those, disagreements among plugins */
    uint64_t hazard_elements[HAZARD_COUNT];
    int64_t hazard_first[HAZARD_COUNT]; /* its first stored signature; 0 none */
    pair_tallies *tallies;          /* per plugin: the sum of the jobs' */
    int failed;                     /* a harness or store error: stop */
    /* checkpoints: the main thread pauses the jobs between cases */
    pthread_cond_t cond;
    int pause;
    uint32_t paused, active;        /* jobs waiting; jobs still in their loop */
    pair_tallies *recorded;         /* per plugin: in the store */
    uint64_t resumed_from;          /* --resume: the cases the run held */
    double deadline;
    double started_at, first_finding_at; /* first_finding_at 0: none yet */
    uint64_t first_finding_case;
} shared;

struct job;

/* One plugin of a job: its worker, the trial that runs each case and the
 * one that probes while minimising, its tallies, and its departures from
 * the oracle in the case that are new to the run. */
typedef struct lane {
    struct job *j;
    uint32_t k;                     /* the plugin's index */
    worker *w;
    trial t;
    trial probe;
    pair_tallies tallies;
    verdict_example pending[MAX_NEW_PER_CASE];
    uint32_t n_pending;
} lane;

/* A disagreement among the plugins in the case, new to the run: the
 * crosscheck element (its expected value copied out of the trial) and
 * what each plugin gave. */
typedef struct pending_hazard {
    crosscheck_elem x;
    oracle_elem expected;
    char given[CROSSCHECK_GIVEN_MAX];
} pending_hazard;

typedef struct job {
    shared *sh;
    lane lanes[CAMPAIGN_MAX_PLUGINS];
    uint32_t n_lanes;
    pending_hazard hazards[MAX_NEW_PER_CASE];
    uint32_t n_hazards;
    const divcase *current;
    int cpu; /* job and worker's CPU; -1 not pinned */
    pthread_t thread;
} job;

/* The store's signature key, with the plugin's index first (variant,
 * dtype, class, operand classes as the store writes them: "a/b", "" for a
 * whole-case finding). */
static void signature_key(uint32_t k, const divcase *c, const verdict_example *ex, char *key,
                          size_t len)
{
    snprintf(key, len, "%u|%u|%u|%s|%s%s%s", (unsigned)k, (unsigned)c->variant,
             (unsigned)c->dtype, oracle_class_name(ex->cls),
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

/* Claims a signature (signature_claim) and notes the first finding. */
static int signature_claim_finding(shared *sh, const char *key, int hazard)
{
    pthread_mutex_lock(&sh->lock);
    int is_new = signature_claim(sh, key);
    if (is_new && sh->first_finding_at == 0) {
        sh->first_finding_at = now_s();
        sh->first_finding_case = sh->next_case;
    }
    sh->n_hazard_signatures += (uint32_t)(is_new && hazard);
    pthread_mutex_unlock(&sh->lock);
    return is_new;
}

/* The verdict's sink: keep the examples whose signature is new to the run. */
static int collect(void *ctx, const divcase *c, const verdict_example *ex)
{
    lane *l = ctx;
    if (ex->accepted)
        return 0;
    char key[160];
    signature_key(l->k, c, ex, key, sizeof key);
    if (signature_claim_finding(l->j->sh, key, 0) && l->n_pending < MAX_NEW_PER_CASE)
        l->pending[l->n_pending++] = *ex;
    return 0;
}

/* ---- minimisation ------------------------------------------------------------ */

/* A departure of one plugin: its class, probed in the plugin's probe trial. */
typedef struct departure_probe {
    lane *l;
    uint32_t cls;
    int found;
    verdict_example ex;
} departure_probe;

static int departure_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    departure_probe *p = ctx;
    if (!p->found && ex->cls == p->cls && !ex->accepted) {
        p->found = 1;
        p->ex = *ex;
    }
    (void)c;
    return 0;
}

/* minimise_probe: 1 when the plugin still departs with the class. */
static int departure_reproduces(void *ctx, const divcase *c, verdict_example *ex)
{
    departure_probe *p = ctx;
    p->found = 0;
    if (trial_run(&p->l->probe, c, NULL, departure_sink, p) < 0)
        return -1;
    if (p->found)
        *ex = p->ex;
    return p->found;
}

/* Minimises and stores the departures of lane l new to this run. */
static int record_pending(lane *l, const divcase *c)
{
    shared *sh = l->j->sh;
    for (uint32_t i = 0; i < l->n_pending; i++) {
        verdict_example ex = l->pending[i];
        divcase m;
        char how[64], note[WORKER_MESSAGE_MAX + 160];
        departure_probe p = {.l = l, .cls = ex.cls};
        minimise_target tg = {departure_reproduces, &p, l->probe.w, &l->t.wr};
        if (minimise_case(&tg, c, &ex, &m, how, sizeof how)) {
            fprintf(sh->err, "divergence fuzz: minimising a finding: %s\n", l->probe.error);
            return -1;
        }
        verdict_words w;
        verdict_example_words(c->dtype, &ex, &w);
        snprintf(note, sizeof note, "fuzz seed %" PRIu64 ", case %s, minimised: %s%s%.400s",
                 sh->o->seed, c->id, how, ex.note[0] ? "; " : "", ex.note);
        store_finding f = {
            .implementation = sh->info[l->k]->name,
            .cls = ex.cls,
            .operand_class = w.operand,
            .c = &m,
            .element = ex.index == UINT64_MAX ? -1 : (int64_t)ex.index,
            .expected = ex.index == UINT64_MAX ? NULL : w.expected,
            .actual = ex.index == UINT64_MAX ? NULL : w.actual,
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
    l->n_pending = 0;
    return 0;
}

/* ---- disagreements among plugins (differential mode) ------------------------ */

/* The trials of a job's lanes: the runs (probe 0) or the probes (1). */
static void lane_trials(job *j, int probe, const trial **t)
{
    for (uint32_t k = 0; k < j->n_lanes; k++)
        t[k] = probe ? &j->lanes[k].probe : &j->lanes[k].t;
}

/* The plugins' names, for crosscheck_given_text. */
static void lane_names(const shared *sh, const char **names)
{
    for (uint32_t k = 0; k < sh->n_plugins; k++)
        names[k] = sh->info[k]->name;
}

/* crosscheck_outputs' sink in the campaign: keeps the hazards whose
 * signature (class, pair, operand classes) is new to the run. */
static int on_hazard(void *ctx, const crosscheck_elem *x)
{
    job *j = ctx;
    shared *sh = j->sh;
    const divcase *c = j->current;
    char key[160];
    snprintf(key, sizeof key, "h|%u|%u|%s|%s/%s", (unsigned)c->variant, (unsigned)c->dtype,
             hazard_name(x->hazard), oracle_operand_name(x->operand_a),
             oracle_operand_name(x->operand_b));
    if (!signature_claim_finding(sh, key, 1) || j->n_hazards == MAX_NEW_PER_CASE)
        return 0;
    pending_hazard *h = &j->hazards[j->n_hazards++];
    h->x = *x;
    h->expected = *x->expected;
    h->x.expected = &h->expected;
    const trial *t[CAMPAIGN_MAX_PLUGINS];
    const char *names[CAMPAIGN_MAX_PLUGINS];
    lane_trials(j, 0, t);
    lane_names(sh, names);
    crosscheck_given_text(t, names, j->n_lanes, x->index, h->given, sizeof h->given);
    return 0;
}

/* A disagreement of one class, probed through every plugin's probe trial. */
typedef struct hazard_probe {
    job *j;
    uint32_t hazard;
    char given[CROSSCHECK_GIVEN_MAX]; /* what each gave, at the last success */
} hazard_probe;

typedef struct hazard_find {
    uint32_t hazard;
    crosscheck_elem x;
} hazard_find;

static int find_hazard(void *ctx, const crosscheck_elem *x)
{
    hazard_find *f = ctx;
    if (x->hazard != f->hazard)
        return 0;
    f->x = *x;
    return 1;
}

/* The example a disagreement gives the minimiser: its element, operands,
 * operand classes and the oracle's word; class MATCH (every plugin
 * conforms). */
static void hazard_example(const crosscheck_elem *x, verdict_example *ex)
{
    memset(ex, 0, sizeof *ex);
    ex->cls = ORACLE_CLASS_MATCH;
    ex->index = x->index;
    ex->a = x->a;
    ex->b = x->b;
    ex->operand_a = x->operand_a;
    ex->operand_b = x->operand_b;
    ex->expected = *x->expected;
}

/* minimise_probe: 1 when the plugins still disagree with the class. */
static int hazard_reproduces(void *ctx, const divcase *c, verdict_example *ex)
{
    hazard_probe *p = ctx;
    job *j = p->j;
    const trial *t[CAMPAIGN_MAX_PLUGINS];
    for (uint32_t k = 0; k < j->n_lanes; k++)
        if (trial_run(&j->lanes[k].probe, c, NULL, NULL, NULL) < 0)
            return -1;
    lane_trials(j, 1, t);
    hazard_find f = {.hazard = p->hazard};
    if (!crosscheck_outputs(t, j->n_lanes, c, NULL, find_hazard, &f))
        return 0;
    hazard_example(&f.x, ex);
    const char *names[CAMPAIGN_MAX_PLUGINS];
    lane_names(j->sh, names);
    crosscheck_given_text(t, names, j->n_lanes, f.x.index, p->given, sizeof p->given);
    return 1;
}

/* The first probe error of the job's lanes, for a message. */
static const char *probe_error(const job *j)
{
    for (uint32_t k = 0; k < j->n_lanes; k++)
        if (j->lanes[k].probe.error[0])
            return j->lanes[k].probe.error;
    return "unknown error";
}

/* Minimises and stores the disagreements of the case new to this run, as
 * findings of the plugin set, named by their hazard class. */
static int record_hazards(job *j, const divcase *c)
{
    shared *sh = j->sh;
    for (uint32_t i = 0; i < j->n_hazards; i++) {
        const pending_hazard *h = &j->hazards[i];
        verdict_example ex;
        hazard_example(&h->x, &ex);
        hazard_probe p = {.j = j, .hazard = h->x.hazard};
        snprintf(p.given, sizeof p.given, "%s", h->given);
        minimise_target tg = {hazard_reproduces, &p, NULL, NULL};
        divcase m;
        char how[64], note[256];
        if (minimise_case(&tg, c, &ex, &m, how, sizeof how)) {
            fprintf(sh->err, "divergence fuzz: minimising a disagreement: %s\n", probe_error(j));
            return -1;
        }
        verdict_words w; /* its operand classes and expected words; actual: p.given */
        verdict_example_words(c->dtype, &ex, &w);
        snprintf(note, sizeof note,
                 "conformant implementations disagree here (fuzz seed %" PRIu64
                 ", case %.60s, minimised: %s)", sh->o->seed, c->id, how);
        store_finding f = {
            .implementation = sh->set_name,
            .class_name = hazard_name(h->x.hazard),
            .operand_class = w.operand,
            .c = &m,
            .element = (int64_t)ex.index,
            .expected = w.expected,
            .actual = p.given,
            .ulps = UINT64_MAX,
            .note = note,
        };
        int64_t sig = 0;
        pthread_mutex_lock(&sh->lock);
        int rc = store_record_finding(sh->db, sh->run_id, &f, &sig, NULL);
        if (rc)
            fprintf(sh->err, "divergence fuzz: %s\n", store_errmsg(sh->db));
        else if (!sh->hazard_first[h->x.hazard])
            sh->hazard_first[h->x.hazard] = sig;
        pthread_mutex_unlock(&sh->lock);
        divcase_free(&m);
        if (rc)
            return -1;
    }
    j->n_hazards = 0;
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

/*
 * Runs case c through every lane of job j (each plugin judged against the
 * oracle), compares their outputs when there are several (crosscheck),
 * then minimises and stores what is new to the run. *elements receives
 * the elements judged (the first plugin's). Returns 1 when every plugin
 * conforms, 0 when one departs, -1 on an error (`cmd`'s message printed).
 */
static int job_run_case(job *j, const divcase *c, uint64_t *elements, const char *cmd)
{
    shared *sh = j->sh;
    int conforms = 1;
    j->current = c;
    j->n_hazards = 0;
    *elements = 0;
    for (uint32_t k = 0; k < j->n_lanes; k++) {
        lane *l = &j->lanes[k];
        verdict_tally *t = &l->tallies[c->variant][c->dtype];
        uint64_t before = t->elements;
        l->n_pending = 0;
        int v = trial_run(&l->t, c, t, collect, l);
        if (v < 0) {
            fprintf(sh->err, "divergence %s: %s: %s\n", cmd, sh->info[k]->name, l->t.error);
            return -1;
        }
        conforms &= v;
        if (k == 0)
            *elements = t->elements - before;
    }
    if (j->n_lanes > 1) {
        const trial *t[CAMPAIGN_MAX_PLUGINS];
        crosscheck_counts n;
        memset(&n, 0, sizeof n);
        lane_trials(j, 0, t);
        crosscheck_outputs(t, j->n_lanes, c, &n, on_hazard, j);
        pthread_mutex_lock(&sh->lock);
        for (int h = 0; h < HAZARD_COUNT; h++)
            sh->hazard_elements[h] += n.hazards[h];
        pthread_mutex_unlock(&sh->lock);
    }
    for (uint32_t k = 0; k < j->n_lanes; k++)
        if (j->lanes[k].n_pending && record_pending(&j->lanes[k], c))
            return -1;
    if (j->n_hazards && record_hazards(j, c))
        return -1;
    return conforms;
}

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
        uint64_t n;
        int v = job_run_case(j, &c, &n, "fuzz");
        divcase_free(&c);
        if (v < 0)
            goto fail;
        cases++;
        elements += n;
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

/* Starts a job's workers, one per plugin (in the calling thread, which
 * outlives them). */
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
    for (uint32_t k = 0; k < sh->o->n_plugins; k++) {
        lane *l = &j->lanes[k];
        const char *path = sh->o->plugin_paths[k];
        l->j = j;
        l->k = k;
        j->n_lanes = k + 1; /* job_free frees what it made, all or part */
        if (worker_new(path, &wo, &l->w)) {
            fprintf(err, "divergence fuzz: cannot create a worker for %s\n", path);
            return -1;
        }
        trial_init(&l->t, l->w, &sh->o->profile);
        trial_init(&l->probe, l->w, &sh->o->profile);
        int rc = worker_start(l->w, &l->t.wr);
        if (rc) {
            char msg[WORKER_MESSAGE_MAX + 64];
            fprintf(err, "divergence fuzz: cannot load plugin %s: %s\n", path,
                    rc < 0 ? worker_errmsg(l->w)
                           : worker_result_format(&l->t.wr, msg, sizeof msg));
            return -1;
        }
    }
    return 0;
}

static void job_free(job *j)
{
    for (uint32_t k = 0; k < j->n_lanes; k++) {
        trial_free(&j->lanes[k].t);
        trial_free(&j->lanes[k].probe);
        worker_free(j->lanes[k].w);
        j->lanes[k].w = NULL;
    }
    j->n_lanes = 0;
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
    snprintf(key, sizeof key, "0|%u|%u|%s|%s", (unsigned)variant, (unsigned)dtype, cls,
             operand_class); /* one plugin: --resume takes no more */
    signature_claim(sh, key);
    return 0;
}

/* Opens the run session: the store, and a new run with the plugin build
 * (or, with --resume, the run to continue, and what it had done). */
static int open_run(shared *sh, const char *kind, FILE *err)
{
    const campaign_options *o = sh->o;
    if (session_open(&sh->session, kind, o->db_path, o->plugin_paths[0], sh->set_name,
                     sh->info[0]->version, err))
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
    trial_report_sandbox(kind, sh->info[0]->layers, NULL, sh->err, sandbox, sizeof sandbox);
    store_run_info ri = {.kind = kind, .profile = o->profile.name, .args = o->args,
                         .sandbox = sandbox, .seed = o->seed, .has_seed = 1,
                         .shard_index = o->shard_index,
                         .shard_count = o->shard_count};
    int rc = session_begin(&sh->session, &ri);
    sh->run_id = sh->session.run_id;
    /* differential: each plugin's own build too (session_link_plugin) */
    for (uint32_t p = 0; p < sh->n_plugins && sh->n_plugins > 1 && !rc; p++)
        rc = session_link_plugin(&sh->session, sh->info[p]->name, sh->info[p]->version,
                                 o->plugin_paths[p]);
    return rc;
}

/* Records what the tallies gained since the last checkpoint (counts per
 * plugin and (variant, dtype, class), ULP histograms) in one transaction.
 * The jobs are paused or done: nothing changes sh->tallies meanwhile. */
static int record_counts(shared *sh)
{
    int rc = store_begin(sh->db);
    for (uint32_t p = 0; p < sh->n_plugins && !rc; p++)
    for (uint32_t v = 0; v < DVG_VARIANT_COUNT && !rc; v++)
        for (uint32_t d = 0; d < DVG_DTYPE_COUNT && !rc; d++) {
            const verdict_tally *t = &sh->tallies[p][v][d], *was = &sh->recorded[p][v][d];
            uint64_t cases = t->cases - was->cases;
            if (!cases)
                continue;
            for (int k = 0; k < ORACLE_CLASS_COUNT && !rc; k++) {
                uint64_t n = k == 0 ? t->elements - was->elements
                                    : t->counts[k] + t->accepted[k] - was->counts[k] -
                                          was->accepted[k];
                /* the match row always: its cases are the run's case count */
                if (n || k == 0)
                    rc = store_record_counts(sh->db, sh->run_id, sh->info[p]->name, v, d,
                                             (uint32_t)k, n,
                                             k == 0 ? cases
                                                    : t->class_cases[k] - was->class_cases[k]);
            }
            uint64_t hist[VERDICT_ULP_BUCKETS], any = 0;
            for (int b = 0; b < VERDICT_ULP_BUCKETS; b++)
                any |= hist[b] = t->ulp_hist[b] - was->ulp_hist[b];
            if (!rc && any)
                rc = store_record_ulp_histogram(sh->db, sh->run_id, sh->info[p]->name, v, d,
                                                hist, VERDICT_ULP_BUCKETS);
        }
    if (!rc)
        rc = store_commit(sh->db);
    else
        store_rollback(sh->db);
    if (!rc)
        memcpy(sh->recorded, sh->tallies, sh->n_plugins * sizeof *sh->tallies);
    return rc;
}

/* Records the counts and ends the run. */
static int close_run(shared *sh, int complete, const char *kind, FILE *err)
{
    if (!sh->db || !sh->run_id)
        return 0;
    int rc = record_counts(sh);
    if (session_finish(&sh->session, complete && !rc ? STORE_RUN_COMPLETE
                                                     : STORE_RUN_INCOMPLETE))
        rc = -1;
    if (rc)
        fprintf(err, "divergence %s: %s\n", kind, store_errmsg(sh->db));
    return rc;
}

/* sh->tallies = the sum of the jobs' (paused or done) tallies, per plugin. */
static void sum_tallies(shared *sh, const job *jobs, uint32_t n_jobs)
{
    memset(sh->tallies, 0, sh->n_plugins * sizeof *sh->tallies);
    for (uint32_t i = 0; i < n_jobs; i++)
        for (uint32_t p = 0; p < jobs[i].n_lanes; p++)
            for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
                for (uint32_t d = 0; d < DVG_DTYPE_COUNT; d++)
                    verdict_tally_add(&sh->tallies[p][v][d], &jobs[i].lanes[p].tallies[v][d]);
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
        if (record_counts(sh)) {
            fprintf(sh->err, "divergence fuzz: recording a checkpoint: %s\n",
                    store_errmsg(sh->db));
            sh->failed = 1;
        }
    }
    sh->pause = 0;
    pthread_cond_broadcast(&sh->cond);
    pthread_mutex_unlock(&sh->lock);
}

/* The elements (or cases) of each class plugin p's departures hold; 1
 * when there is one. */
static int findings_total(const shared *sh, uint32_t p, uint64_t *by_class)
{
    int any = 0;
    for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
        for (uint32_t d = 0; d < DVG_DTYPE_COUNT; d++)
            for (int k = 1; k < ORACLE_CLASS_COUNT; k++) {
                by_class[k] += sh->tallies[p][v][d].counts[k];
                any |= sh->tallies[p][v][d].counts[k] != 0;
            }
    return any;
}

/* 1 when plugin p claims (variant, dtype). */
static int plugin_claims(const worker_info *info, const dvg_claim *cl)
{
    for (uint32_t i = 0; i < info->n_claims; i++)
        if (info->claims[i].variant == cl->variant && info->claims[i].dtype == cl->dtype)
            return 1;
    return 0;
}

/* The claims worth fuzzing: the first plugin's that the variant table
 * allows and every other plugin claims too. */
static void take_claims(shared *sh)
{
    sh->n_claims = 0;
    for (uint32_t i = 0; i < sh->info[0]->n_claims; i++) {
        const dvg_claim *cl = &sh->info[0]->claims[i];
        int all = oracle_variant_has_dtype(oracle_variant_get(cl->variant), cl->dtype);
        for (uint32_t p = 1; p < sh->n_plugins && all; p++)
            all = plugin_claims(sh->info[p], cl);
        if (all)
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
    for (uint32_t p = 0; p < sh->n_plugins; p++)
        findings_total(sh, p, by_class);
    fprintf(sh->out, "%s: %s%s%s, seed %" PRIu64 ", shard %u/%u, run %" PRId64 "\n", kind,
            sh->set_name, sh->n_plugins == 1 ? " " : "",
            sh->n_plugins == 1 ? sh->info[0]->version : "", sh->o->seed,
            sh->o->shard_count > 1 ? sh->o->shard_index : 0,
            sh->o->shard_count > 1 ? sh->o->shard_count : 1, sh->run_id);
    for (uint32_t p = 0; p < sh->n_plugins && sh->n_plugins > 1; p++)
        fprintf(sh->out, "  plugin %u: %s %s (%s)\n", p + 1, sh->info[p]->name,
                sh->info[p]->version, sh->o->plugin_paths[p]);
    char sandbox[160];
    trial_report_sandbox(kind, sh->info[0]->layers, sh->out, NULL, sandbox, sizeof sandbox);
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
    for (uint32_t p = 0; p < sh->n_plugins && sh->n_plugins > 1; p++) {
        uint64_t mine[ORACLE_CLASS_COUNT] = {0}, total = 0;
        if (!findings_total(sh, p, mine))
            continue;
        for (int k = 1; k < ORACLE_CLASS_COUNT; k++)
            total += mine[k];
        fprintf(sh->out, "  departs from the oracle: %s (%" PRIu64 " elements or cases)\n",
                sh->info[p]->name, total);
    }
    for (uint32_t p = 0; p < sh->n_plugins; p++) { /* accepted, and named */
        uint64_t refused = 0;
        for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
            for (uint32_t d = 0; d < DVG_DTYPE_COUNT; d++)
                refused += sh->tallies[p][v][d].accepted[ORACLE_CLASS_REFUSED_UNDEFINED];
        if (refused)
            fprintf(sh->out, "  %s: %s on %" PRIu64 " elements of undefined input (%s, accepted)\n",
                    sh->info[p]->name, VERDICT_REFUSED_TEXT, refused,
                    oracle_class_name(ORACLE_CLASS_REFUSED_UNDEFINED));
    }
    for (int h = 0; h < HAZARD_COUNT; h++) {
        if (!sh->hazard_elements[h])
            continue;
        fprintf(sh->out, "  hazard %-26s %10" PRIu64 " elements", hazard_name((uint32_t)h),
                sh->hazard_elements[h]);
        if (sh->hazard_first[h])
            fprintf(sh->out, "  [" STORE_REF_SIGNATURE "%" PRId64 "]", sh->hazard_first[h]);
        fputc('\n', sh->out);
        any |= sh->hazard_first[h] != 0;
    }
    if (sh->n_hazard_signatures)
        fprintf(sh->out, "  (a hazard: every plugin conforms, their bits differ; not a failure)\n");
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
    if (o->n_plugins < 1 || o->n_plugins > CAMPAIGN_MAX_PLUGINS) {
        fprintf(err, "divergence fuzz: between 1 and %d plugins\n", CAMPAIGN_MAX_PLUGINS);
        return -1;
    }
    if (o->resume && o->n_plugins > 1) {
        fprintf(err, "divergence fuzz: --resume continues a run of one plugin; a differential "
                     "run (several --plugin) starts anew\n");
        return -1;
    }
    sh->n_plugins = o->n_plugins;
    sh->tallies = dvg_calloc(o->n_plugins, sizeof *sh->tallies);
    sh->recorded = dvg_calloc(o->n_plugins, sizeof *sh->recorded);
    if (!sh->tallies || !sh->recorded) {
        fprintf(err, "divergence fuzz: out of memory\n");
        return -1;
    }
    return 0;
}

/* Copies the plugins' information from job j's workers, and names the set. */
static int shared_take_info(shared *sh, const job *j)
{
    size_t at = 0;
    for (uint32_t p = 0; p < sh->n_plugins; p++) {
        worker_info *copy = dvg_malloc(sizeof *copy);
        if (!copy) {
            fprintf(sh->err, "divergence fuzz: out of memory\n");
            return -1;
        }
        *copy = *worker_get_info(j->lanes[p].w);
        sh->info[p] = copy;
        at += (size_t)snprintf(sh->set_name + at, sizeof sh->set_name - at, "%s%s",
                               p ? "|" : "", copy->name);
    }
    return 0;
}

/* Frees what the campaign holds; failed: its run is left incomplete. */
static void shared_free(shared *sh, int failed)
{
    session_close(&sh->session, failed);
    for (uint32_t p = 0; p < CAMPAIGN_MAX_PLUGINS; p++)
        dvg_free(sh->info[p]);
    dvg_free(sh->tallies);
    dvg_free(sh->recorded);
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
    if (shared_take_info(&sh, &jobs[0]))
        goto done;
    take_claims(&sh);
    if (!sh.n_claims) {
        fprintf(err, "divergence fuzz: %s claim%s no (variant, dtype) pair of the variant "
                     "table%s\n",
                sh.set_name, sh.n_plugins > 1 ? "" : "s", sh.n_plugins > 1 ? " in common" : "");
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
    status = sh.n_signatures > sh.n_hazard_signatures ? 1 : 0; /* hazards do not fail */
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
    uint64_t n;
    int v = job_run_case(j, &c, &n, "import");
    if (v >= 0) {
        sh->cases++;
        sh->elements += n;
        fprintf(sh->out, "  %s: %s %s, %s\n", path, oracle_variant_get(c.variant)->name,
                oracle_dtype_tag(c.dtype),
                v ? "conforms (nothing to import)" : "departs from the spec");
    } else {
        fprintf(err, "divergence import: %s: not imported\n", path);
    }
    divcase_free(&c);
    return v < 0 ? -1 : 0;
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
    job *j = dvg_calloc(1, sizeof *j); /* job_free takes what job_start made */
    int status = 2;
    if (shared_init(&sh, o, out, err) || !j)
        goto done;
    oracle_fastpath_selfcheck();
    if (job_start(&sh, j, -1, err))
        goto done;
    if (shared_take_info(&sh, j))
        goto done;
    take_claims(&sh);
    if (!sh.n_claims) {
        fprintf(err, "divergence import: %s claim%s no pair of the variant table%s\n",
                sh.set_name, sh.n_plugins > 1 ? "" : "s", sh.n_plugins > 1 ? " in common" : "");
        goto done;
    }
    if (open_run(&sh, "import", err))
        goto done;
    int failed = 0;
    for (int i = 0; i < n_paths && !failed; i++)
        failed = import_path(&sh, j, paths[i], err) != 0;
    sum_tallies(&sh, j, 1);
    if (close_run(&sh, !failed, "import", err) || failed)
        goto done;
    print_summary(&sh, "import", 0);
    status = sh.n_signatures > sh.n_hazard_signatures ? 1 : 0;
done:
    if (j)
        job_free(j);
    dvg_free(j);
    shared_free(&sh, status == 2);
    return status;
}
