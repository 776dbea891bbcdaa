/* SPDX-License-Identifier: MIT */
/*
 * This file contains the built-in fuzzing campaign (`divergence fuzz`,
 * harness/run/campaign/campaign.h) and what import shares with it: the
 * options, the shared state, the plugins' descriptions and claims, the run
 * in the store (new or --resume's), the counts recorded at every
 * checkpoint and at the end, the summary (bugs, then signatures); and the
 * campaign on the run engine: case i of the shard per unit (generate.c),
 * run in a job (jobs.c), its findings committed as they come, until the
 * time or case budget, or the first finding, ends it.
 */
#include "harness/run/campaign/campaign_internal.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/base/interrupt.h"
#include "harness/base/datadir.h"
#include "harness/run/engine/resume.h"
#include "harness/store/store.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"

void campaign_options_default(campaign_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seconds = 60;
    o->seed = 1;
    o->max_elements = 64;
    o->progress = isatty(2);
    o->pin = -1;
    isolation_default(&o->iso, 2000);
}

int campaign_shared_init(shared *sh, const campaign_options *o, const char *kind, FILE *out,
                         FILE *err)
{
    memset(sh, 0, sizeof *sh);
    sh->o = o;
    sh->kind = kind;
    sh->out = out;
    sh->err = err;
    pthread_mutex_init(&sh->lock, NULL);
    sh->signatures = dvg_calloc(MAX_SIGNATURES, sizeof sh->signatures[0]);
    if (!sh->signatures) {
        fprintf(err, "divergence %s: out of memory\n", kind);
        return -1;
    }
    if (run_shard_check(kind, o->shard_index, o->shard_count, err))
        return -1;
    if (o->n_plugins < 1 || o->n_plugins > CAMPAIGN_MAX_PLUGINS) {
        fprintf(err, "divergence %s: between 1 and %d plugins\n", kind, CAMPAIGN_MAX_PLUGINS);
        return -1;
    }
    if (o->resume && o->n_plugins > 1) {
        fprintf(err, "divergence %s: --resume continues a run of one plugin; a differential "
                     "run (several --plugin) starts anew\n", kind);
        return -1;
    }
    sh->n_plugins = o->n_plugins;
    sh->jobs = 1;
    sh->tallies = dvg_calloc(o->n_plugins, sizeof *sh->tallies);
    sh->recorded = dvg_calloc(o->n_plugins, sizeof *sh->recorded);
    if (!sh->tallies || !sh->recorded) {
        fprintf(err, "divergence %s: out of memory\n", kind);
        return -1;
    }
    return 0;
}

void campaign_shared_free(shared *sh, int failed)
{
    session_close(&sh->session, failed);
    for (uint32_t p = 0; p < CAMPAIGN_MAX_PLUGINS; p++)
        dvg_free(sh->info[p]);
    dvg_free(sh->tallies);
    dvg_free(sh->recorded);
    corpus_free(&sh->corpus);
    dvg_free(sh->signatures);
    pthread_mutex_destroy(&sh->lock);
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

/* The claims worth fuzzing: the first plugin's that the variant table
 * allows and every other plugin claims too. */
static void take_claims(shared *sh)
{
    sh->n_claims = 0;
    for (uint32_t i = 0; i < sh->info[0]->n_claims; i++) {
        const dvg_claim *cl = &sh->info[0]->claims[i];
        int all = oracle_variant_has_dtype(oracle_variant_get(cl->variant), cl->dtype);
        for (uint32_t p = 1; p < sh->n_plugins && all; p++)
            all = worker_info_claims(sh->info[p], cl->variant, cl->dtype);
        if (all)
            sh->claims[sh->n_claims++] = *cl;
    }
}


int campaign_take_info(shared *sh, const job *j)
{
    size_t at = 0;
    for (uint32_t p = 0; p < sh->n_plugins; p++) {
        worker_info *copy = dvg_malloc(sizeof *copy);
        if (!copy) {
            fprintf(sh->err, "divergence %s: out of memory\n", sh->kind);
            return -1;
        }
        *copy = *worker_get_info(j->lanes[p].w);
        sh->info[p] = copy;
        at += (size_t)snprintf(sh->set_name + at, sizeof sh->set_name - at, "%s%s",
                               p ? "|" : "", copy->name);
    }
    take_claims(sh);
    if (!sh->n_claims) {
        fprintf(sh->err, "divergence %s: %s claim%s no (variant, dtype) pair of the variant "
                         "table%s\n", sh->kind,
                sh->set_name, sh->n_plugins > 1 ? "" : "s", sh->n_plugins > 1 ? " in common" : "");
        return -1;
    }
    return 0;
}

static int take_signature(void *ctx, uint32_t variant, uint32_t dtype, const char *cls,
                          const char *operand_class)
{
    shared *sh = ctx;
    char key[160];
    snprintf(key, sizeof key, "0|%u|%u|%s|%s", (unsigned)variant, (unsigned)dtype, cls,
             operand_class); /* one plugin: --resume takes no more */
    pthread_mutex_lock(&sh->lock);
    if (sh->n_signatures < MAX_SIGNATURES)
        snprintf(sh->signatures[sh->n_signatures++], sizeof sh->signatures[0], "%s", key);
    pthread_mutex_unlock(&sh->lock);
    return 0;
}

/* Opens the run session: the store, and a new run with the plugin build
 * (or, with --resume, the run to continue, and what it had done). */
int campaign_open_run(shared *sh)
{
    const campaign_options *o = sh->o;
    const char *kind = sh->kind;
    FILE *err = sh->err;
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
        sh->first_case = sh->resumed_from;
        return 0;
    }
    char sandbox[WORKER_SANDBOX_TEXT];
    isolation_report_sandbox(kind, sh->info[0], NULL, sh->err, sandbox, sizeof sandbox);
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

int campaign_close_run(shared *sh, int status)
{
    const char *kind = sh->kind;
    FILE *err = sh->err;
    if (!sh->db || !sh->run_id)
        return 0;
    int rc = record_counts(sh);
    if (session_finish(&sh->session, rc ? STORE_RUN_INCOMPLETE : status))
        rc = -1;
    if (rc)
        fprintf(err, "divergence %s: %s\n", kind, store_errmsg(sh->db));
    return rc;
}

void campaign_sum_tallies(shared *sh)
{
    memset(sh->tallies, 0, sh->n_plugins * sizeof *sh->tallies);
    for (uint32_t i = 0; sh->job_of && i < sh->jobs; i++)
        for (uint32_t p = 0; p < sh->job_of[i]->n_lanes; p++)
            for (uint32_t v = 0; v < DVG_VARIANT_COUNT; v++)
                for (uint32_t d = 0; d < DVG_DTYPE_COUNT; d++)
                    verdict_tally_add(&sh->tallies[p][v][d],
                                      &sh->job_of[i]->lanes[p].tallies[v][d]);
}

/* The engine's checkpoint (the jobs paused between cases): the counts
 * they gained since the last one, recorded. A store error stops the
 * campaign. */
static int checkpoint(void *ctx)
{
    shared *sh = ctx;
    campaign_sum_tallies(sh);
    if (record_counts(sh)) {
        fprintf(sh->err, "divergence fuzz: recording a checkpoint: %s\n", store_errmsg(sh->db));
        return -1;
    }
    return 0;
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

void campaign_print_summary(shared *sh, double secs)
{
    const char *kind = sh->kind;
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
    char sandbox[WORKER_SANDBOX_TEXT];
    isolation_report_sandbox(kind, sh->info[0], sh->out, NULL, sandbox, sizeof sandbox);
    char cpu[320];
    fprintf(sh->out, "  cpus: %s\n",
            isolation_describe_cpu(sh->o->iso.cpu_model, UINT64_MAX, cpu, sizeof cpu));
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


/* ---- the campaign on the engine ------------------------------------------- */

/* The engine's run: case u of this session (case first_case + u of the
 * shard) through the job. */
static int fuzz_run(void *ctx, engine_job *ej, uint64_t u, void **result)
{
    shared *sh = ctx;
    job *j = ej->state;
    uint64_t index = sh->first_case + u;
    case_result *res = campaign_result_new();
    divcase c;
    j->case_key = campaign_case_key(sh, index);
    j->keyed = 1;
    if (!res || campaign_make_case(sh, j->case_key, j->scratch, MAX_CORPUS_BYTES + 64, &c)) {
        campaign_result_free(res);
        fprintf(sh->err, "divergence fuzz: out of memory making case %" PRIu64 "\n", index);
        return -1;
    }
    *result = res;
    j->res = res;
    j->case_number = index;
    int v = campaign_run_case(j, &c);
    divcase_free(&c);
    return v < 0 ? -1 : 0;
}

static int fuzz_commit(void *ctx, uint64_t u, void *result)
{
    (void)u;
    int rc = campaign_record(ctx, result);
    campaign_result_free(result);
    return rc;
}

/* The stop conditions: the deadline, the first finding (--stop-on-finding). */
static int fuzz_stop(void *ctx)
{
    shared *sh = ctx;
    if (sh->deadline > 0 && engine_now() >= sh->deadline)
        return 1;
    if (!sh->o->stop_on_finding)
        return 0;
    pthread_mutex_lock(&sh->lock);
    int found = sh->first_finding_at > 0;
    pthread_mutex_unlock(&sh->lock);
    return found;
}

static void fuzz_tick(void *ctx, int last)
{
    shared *sh = ctx;
    if (last) {
        fprintf(sh->err, "\r%60s\r", "");
        return;
    }
    pthread_mutex_lock(&sh->lock);
    uint32_t sigs = sh->n_signatures;
    pthread_mutex_unlock(&sh->lock);
    fprintf(sh->err, "\rfuzz: %.0f s, %" PRIu64 " cases, %u signatures   ",
            engine_now() - sh->started_at, sh->cases, sigs);
}

/* The corpus: --corpus DIR, "" none, or the data directory's. 0 or -1. */
static int load_corpus(shared *sh)
{
    const campaign_options *o = sh->o;
    char found[DATADIR_PATH_MAX], where[2 * DATADIR_PATH_MAX];
    const char *dir = o->corpus_dir ? o->corpus_dir : found;
    if (!o->corpus_dir && datadir_find("corpus/div", found, sizeof found, where, sizeof where)) {
        fprintf(sh->err, "divergence fuzz: %s; --corpus DIR names the corpus, --corpus \"\" none\n",
                where);
        return -1;
    }
    return dir[0] ? corpus_load(dir, &sh->corpus, sh->err) : 0;
}

/* The jobs' states; job 0 started here (its workers describe the plugins). */
static int start_first_job(shared *sh, job **jobs)
{
    *jobs = dvg_calloc(sh->jobs, sizeof **jobs);
    sh->job_of = dvg_calloc(sh->jobs, sizeof *sh->job_of);
    if (!*jobs || !sh->job_of) {
        fprintf(sh->err, "divergence fuzz: out of memory\n");
        return -1;
    }
    for (uint32_t i = 0; i < sh->jobs; i++)
        sh->job_of[i] = &(*jobs)[i];
    if (campaign_job_start(sh, &(*jobs)[0], engine_cpu(sh->pinned, 0, sh->jobs)))
        return -1;
    return campaign_take_info(sh, &(*jobs)[0]);
}

int campaign_run(const campaign_options *o, FILE *out, FILE *err)
{
    shared sh;
    job *jobs = NULL;
    int status = 2;
    if (campaign_shared_init(&sh, o, "fuzz", out, err))
        goto done;
    sh.jobs = o->jobs ? o->jobs : engine_jobs();
    if (sh.jobs > ENGINE_MAX_JOBS)
        sh.jobs = ENGINE_MAX_JOBS;
    sh.pinned = engine_pin(o->pin, sh.jobs);
    oracle_fastpath_selfcheck();
    if (start_first_job(&sh, &jobs) || load_corpus(&sh) || campaign_open_run(&sh))
        goto done;
    if (sh.resumed_from)
        fprintf(out, "fuzz: resuming run %" PRId64 " at case %" PRIu64 "\n", sh.run_id,
                sh.resumed_from);
    sh.started_at = engine_now();
    sh.deadline = o->seconds > 0 ? sh.started_at + o->seconds : 0;
    uint64_t units = UINT64_MAX;
    if (o->max_cases)
        units = o->max_cases > sh.first_case ? o->max_cases - sh.first_case : 0;
    engine_policy p = {.ctx = &sh, .jobs = sh.jobs, .pin = sh.pinned, .units = units,
                       .job_start = campaign_engine_job_start,
                       .job_free = campaign_engine_job_free, .run = fuzz_run,
                       .commit = fuzz_commit, .discard = campaign_engine_discard,
                       .stop = fuzz_stop, .tick = o->progress ? fuzz_tick : NULL, .tick_s = 0.2,
                       .checkpoint = checkpoint, .checkpoint_s = CAMPAIGN_CHECKPOINT_S};
    int ran = units ? engine_run(&p, "fuzz", err) : 0;
    int sig = ran > 0 ? interrupt_signal() : 0;
    double secs = engine_now() - sh.started_at;
    campaign_sum_tallies(&sh);
    if (campaign_close_run(&sh, ran < 0 ? STORE_RUN_INCOMPLETE
                                : sig  ? STORE_RUN_INTERRUPTED
                                       : STORE_RUN_COMPLETE) ||
        ran < 0)
        goto done;
    campaign_print_summary(&sh, secs);
    status = sh.n_signatures > sh.n_hazard_signatures ? 1 : 0; /* hazards do not fail */
    if (sig)
        status = session_say_interrupted(&sh.session, sig, o->resume_command);
done:
    for (uint32_t i = 0; jobs && i < sh.jobs; i++)
        campaign_job_free(&jobs[i]);
    dvg_free(jobs);
    dvg_free(sh.job_of);
    sh.job_of = NULL;
    campaign_shared_free(&sh, status == 2);
    return status;
}
