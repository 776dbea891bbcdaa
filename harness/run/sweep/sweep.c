/* SPDX-License-Identifier: MIT */
/*
 * This file contains `divergence sweep` (sweep.h) on top of its parts
 * (sweep_internal.h): the plugin probed, the variant and layout picked, the
 * space sized, the run session opened (a new sweep, or the one --resume
 * continues), the jobs run with progress, the verdict and the summary.
 */
#include "harness/run/sweep/sweep.h"

#include <inttypes.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/base/interrupt.h"
#include "harness/run/sweep/sweep_internal.h"
#include "harness/run/engine/trial.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"
#include "oracle/rowcheck.h"
#include "oracle/value.h"

void sweep_options_default(sweep_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seed = 1;
    o->random_pairs = UINT64_C(1) << 24;
    isolation_default(&o->iso, 10000);
    o->max_failures = 8;
    o->batch_pairs = DEFAULT_BATCH_PAIRS;
    o->nondet_every = 64;
    o->shape_tier = SWEEP_PATHS_TIER;
    o->pin = 0;
    o->progress = isatty(2);
}


/* ---- set-up ---------------------------------------------------------------- */

/* Poison patterns: a signalling NaN no IEEE division returns for floats,
 * 0xA5.. / 0x5A.. bytes for integers. */
static void poisons(uint32_t dtype, uint64_t p[2])
{
    switch (dtype) {
    case DVG_DTYPE_F16: p[0] = 0x7DA5; p[1] = 0x7C5A; break;
    case DVG_DTYPE_BF16: p[0] = 0x7FA5; p[1] = 0x7F9A; break;
    case DVG_DTYPE_F32: p[0] = 0x7FA5A5A5u; p[1] = 0x7F9A5A5Au; break;
    case DVG_DTYPE_F64:
        p[0] = UINT64_C(0x7FF5A5A5A5A5A5A5);
        p[1] = UINT64_C(0x7FF25A5A5A5A5A5A);
        break;
    default: {
        uint64_t m = oracle_dtype(dtype)->bits == 4 ? 0xFF : oracle_dtype_mask(dtype);
        p[0] = UINT64_C(0xA5A5A5A5A5A5A5A5) & m;
        p[1] = UINT64_C(0x5A5A5A5A5A5A5A5A) & m;
        break;
    }
    }
}

/* The variant to sweep: the given one (claimed), or the plugin's first
 * claim of the dtype that the variant table allows. */
static int pick_variant(shared *sh, FILE *err)
{
    const sweep_options *o = sh->o;
    for (uint32_t i = 0; i < sh->info->n_claims; i++) {
        const dvg_claim *cl = &sh->info->claims[i];
        if (cl->dtype != o->dtype || (o->variant && cl->variant != o->variant))
            continue;
        if (!oracle_variant_has_dtype(oracle_variant_get(cl->variant), o->dtype))
            continue;
        sh->variant = cl->variant;
        return 0;
    }
    if (o->variant)
        fprintf(err, "divergence sweep: %s does not claim (%s, %s)\n", sh->info->name,
                oracle_variant_get(o->variant)->name, oracle_dtype_tag(o->dtype));
    else
        fprintf(err, "divergence sweep: %s claims no variant with %s\n", sh->info->name,
                oracle_dtype_tag(o->dtype));
    return -1;
}

/* Attributes and the layout of product batches. */
static int pick_layout(shared *sh, FILE *err)
{
    const sweep_options *o = sh->o;
    const oracle_variant *v = oracle_variant_get(sh->variant);
    oracle_error why;
    int axis_given = 0;
    oracle_attrs_default(v, &sh->attrs);
    for (uint32_t i = 0; i < o->n_attrs; i++) {
        if (oracle_attrs_set(v, &sh->attrs, o->attr_key[i], o->attr_value[i], &why)) {
            fprintf(err, "divergence sweep: --attr %s=%s: %s\n", o->attr_key[i], o->attr_value[i],
                    why.text);
            return -1;
        }
        axis_given |= !strcmp(o->attr_key[i], "axis");
    }
    if (oracle_rules_resolve(sh->variant, o->dtype, &sh->attrs, &sh->rules, &why)) {
        fprintf(err, "divergence sweep: %s\n", why.text);
        return -1;
    }
    int layout;
    switch (sh->rules.shape_rule) {
    case ORACLE_SHAPE_NUMPY: layout = L_NUMPY; break;
    case ORACLE_SHAPE_ONNX_LEGACY:
    case ORACLE_SHAPE_PDPD:
        if (axis_given && sh->attrs.axis != 0) {
            fprintf(err, "divergence sweep: the sweep lays B along axis 0 under this "
                         "broadcasting: give --attr axis=0 or leave it out\n");
            return -1;
        }
        sh->attrs.axis = 0;
        if (sh->rules.shape_rule == ORACLE_SHAPE_ONNX_LEGACY)
            sh->attrs.axis_set = 1;
        if (oracle_rules_resolve(sh->variant, o->dtype, &sh->attrs, &sh->rules, &why)) {
            fprintf(err, "divergence sweep: %s\n", why.text);
            return -1;
        }
        layout = L_AXIS0;
        break;
    default: layout = L_FLAT; break;
    }
    sh->sp.layout = layout;
    oracle_attrs_format(v, &sh->attrs, sh->attrs_text, sizeof sh->attrs_text);
    return 0;
}

static void describe_layout(shared *sh)
{
    const space *sp = &sh->sp;
    uint32_t k = sp->k, n = sp->n;
    switch (sp->layout) {
    case L_NUMPY:
        snprintf(sh->layout_text, sizeof sh->layout_text,
                 "A (%u, 1) dividends / B (%u) divisors, numpy broadcasting", k, n);
        break;
    case L_AXIS0:
        snprintf(sh->layout_text, sizeof sh->layout_text,
                 "A (%u, %u) dividends / B (%u) divisors along axis 0", k, n, k);
        break;
    default:
        snprintf(sh->layout_text, sizeof sh->layout_text,
                 "A (%llu) / B (%llu), equal shapes", (unsigned long long)k * n,
                 (unsigned long long)k * n);
        break;
    }
    if (sp->structured) {
        size_t used = strlen(sh->layout_text);
        snprintf(sh->layout_text + used, sizeof sh->layout_text - used,
                 "; random pairs: A (%u) / B (%u)", sp->random_k * RANDOM_ROW,
                 sp->random_k * RANDOM_ROW);
    }
}

typedef struct resume_ctx {
    shared *sh;
} resume_ctx;

static int resume_chunk(void *ctx, uint64_t chunk, uint64_t pairs, uint64_t unjudged,
                        const char *tally)
{
    shared *sh = ((resume_ctx *)ctx)->sh;
    counts c;
    if (chunk == sh->sp.n_chunks && sweep_chunk_in_shard(sh->o, chunk) && pairs == 0 &&
        !sweep_counts_parse(tally, &c) && c.unjudged == unjudged) {
        sh->paths_done = 1; /* the shape paths (sweep/paths.c) */
        sh->paths = c;
        return 0;
    }
    if (chunk >= sh->sp.n_chunks || !sweep_chunk_in_shard(sh->o, chunk) || pairs != sweep_chunk_pairs(&sh->sp, chunk) ||
        sweep_counts_parse(tally, &c) || c.unjudged != unjudged)
        return -1;
    sh->done[chunk] = 1;
    sweep_counts_add(&sh->total, &c);
    sh->pairs_done += pairs;
    sh->pairs_resumed += pairs;
    return 0;
}

static void print_summary(shared *sh, double secs, uint32_t jobs, const char *verdict)
{
    const counts *c = &sh->total;
    const verdict_tally *t = &c->t;
    FILE *out = sh->out;
    uint64_t judged = t->elements;
    fprintf(out, "  %" PRIu64 " pairs judged", judged);
    if (sh->pairs_resumed)
        fprintf(out, " (%" PRIu64 " of them by the run before --resume)", sh->pairs_resumed);
    double fresh = (double)(sh->pairs_done - sh->pairs_resumed);
    fprintf(out, "; %.2f s, %.3g pairs/s, %u jobs; %" PRIu64 " batches, %" PRIu64
                 " run twice; %" PRIu64 " elements judged in full\n",
            secs, secs > 0 ? fresh / secs : 0, jobs, t->cases, c->reruns, c->listed);
    if (c->unjudged)
        fprintf(out, "  %" PRIu64 " pairs not judged (their batches crashed, hung or failed)\n",
                c->unjudged);
    fprintf(out, "  %s\n", verdict);
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++) {
        if (!t->counts[k] && !t->accepted[k])
            continue;
        fprintf(out, "    %-26s %12" PRIu64 " elements%s", oracle_class_name((uint32_t)k),
                t->counts[k] + t->accepted[k], t->accepted[k] ? " (accepted)" : "");
        if (k == ORACLE_CLASS_WRONG_VALUE && t->max_ulps)
            fprintf(out, ", max %" PRIu64 " ulp", t->max_ulps);
        fprintf(out, ", in %" PRIu64 " batches\n", c->batches[k]);
    }
    if (sh->paths_done) {
        const verdict_tally *pt = &sh->paths.t;
        char pv[96];
        fprintf(out, "  shape paths (harness/cases/shapes.h, up to 2^%u + 1 elements): %" PRIu64
                     " cases, %" PRIu64 " elements%s: %s\n",
                sh->o->shape_tier, pt->cases, pt->elements,
                sh->paths_walked ? "" : " (by the run before --resume)",
                verdict_certificate(pt, &sh->o->profile, sh->declared, 0, pv, sizeof pv));
        for (int k = 1; k < ORACLE_CLASS_COUNT; k++)
            if (pt->counts[k] || pt->accepted[k])
                fprintf(out, "    %-26s %12" PRIu64 " elements%s, in %" PRIu64 " cases\n",
                        oracle_class_name((uint32_t)k), pt->counts[k] + pt->accepted[k],
                        pt->accepted[k] ? " (accepted)" : "", sh->paths.batches[k]);
    }
    if (t->any_inf_positive + t->any_inf_negative)
        fprintf(out, "    note: x/0 'inf' without a sign: %" PRIu64 " times +inf, %" PRIu64
                     " times -inf\n", t->any_inf_positive, t->any_inf_negative);
    if (t->unspecified)
        fprintf(out, "    note: %" PRIu64 " results unspecified by the variant (%" PRIu64
                     " differ from the preferred value)\n",
                t->unspecified, t->unspecified_not_preferred);
    if ((sh->declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) && t->subnormal_results &&
        !t->accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT])
        fprintf(out, "    note: declares flush-to-zero but delivered all %" PRIu64
                     " subnormal results\n", t->subnormal_results);
    if (verdict_tally_failed(t) || verdict_tally_failed(&sh->paths.t) || c->unjudged) {
        const char *db = sh->o->db_path ? sh->o->db_path : STORE_DEFAULT_PATH;
        fprintf(out, "  per operand class: sqlite3 %s \"SELECT class, operand_class, elements "
                     "FROM operand_counts WHERE run_id = %" PRId64 "\"\n", db, sh->run_id);
        fprintf(out, "  signatures: sqlite3 %s \"SELECT signature_id FROM signature_runs WHERE "
                     "run_id = %" PRId64 "\"; then divergence query --db %s history "
                     STORE_REF_SIGNATURE "N, divergence replay --db %s " STORE_REF_SIGNATURE "N\n",
                db, sh->run_id, db, db);
    }
}

/* The plugin's descriptor into *info (the caller's to dvg_free), from a
 * worker started once: the claims tell the variant, the variant the
 * layout, the layout the space. 0, or -1 with the reason on err. */
static int probe_plugin(const sweep_options *o, worker_info **info, FILE *err)
{
    worker *probe;
    worker_options wo; /* as the jobs' workers: its layers are the run's */
    isolation_worker_options(&o->iso, 10000, o->config, (isolation_place){-1, 1}, 1, &wo);
    worker_result pr = WORKER_RESULT_INIT;
    if (worker_new(o->plugin_path, &wo, &probe)) {
        fprintf(err, "divergence sweep: cannot create a worker for %s\n", o->plugin_path);
        return -1;
    }
    int rc = worker_start(probe, &pr);
    if (rc) {
        char m[WORKER_MESSAGE_MAX + 64];
        fprintf(err, "divergence sweep: cannot load plugin %s: %s\n", o->plugin_path,
                rc < 0 ? worker_errmsg(probe) : worker_result_format(&pr, m, sizeof m));
        worker_result_free(&pr);
        worker_free(probe);
        return -1;
    }
    *info = dvg_malloc(sizeof **info);
    if (*info)
        **info = *worker_get_info(probe);
    worker_result_free(&pr);
    worker_free(probe);
    if (!*info) {
        fprintf(err, "divergence sweep: out of memory\n");
        return -1;
    }
    return 0;
}

/* The variant, the layout and the space of the sweep, and the shard's
 * part of it. 0, or -1 with the reason on err. */
static int plan_space(shared *sh, FILE *err)
{
    const sweep_options *o = sh->o;
    char msg[512];
    sh->declared = sh->info->deviations;
    sh->repoison = oracle_rowcheck_repoison_fused(o->dtype);
    sh->int_div_zero_value = sh->info->int_div_zero_value;
    if (pick_variant(sh, err) || pick_layout(sh, err))
        return -1;
    if (sweep_space_init(&sh->sp, o->dtype, o->random_pairs, o->seed, o->batch_pairs,
                         sh->sp.layout, msg, sizeof msg)) {
        fprintf(err, "divergence sweep: %s\n", msg);
        return -1;
    }
    describe_layout(sh);
    for (uint64_t c = 0; c < sh->sp.n_chunks; c++)
        if (sweep_chunk_in_shard(o, c)) {
            sh->shard_chunks++;
            sh->shard_pairs += sweep_chunk_pairs(&sh->sp, c);
        }
    sh->done = dvg_calloc(sh->sp.n_chunks ? sh->sp.n_chunks : 1, 1);
    if (!sh->done) {
        fprintf(err, "divergence sweep: out of memory\n");
        return -1;
    }
    return 0;
}

/* The run session: a new run and sweep, or, with --resume, the unfinished
 * sweep of the same plan (settings and plugin build) and the chunks it
 * did. *resumed: 1 when taken up. 0, or -1 with the reason on err. */
static int open_run(shared *sh, int *resumed, FILE *err)
{
    const sweep_options *o = sh->o;
    *resumed = 0;
    if (session_open(&sh->session, "sweep", o->db_path, o->plugin_path, sh->info->name,
                     sh->info->version, err))
        return -1;
    sh->db = sh->session.db;
    snprintf(sh->plan, sizeof sh->plan,
             "sweep/1 plugin=%s sha256=%s variant=%s dtype=%s attrs=[%s] layout=%s space=%s "
             "n=%u k=%u rows_per_chunk=%" PRIu64 " chunks=%" PRIu64 " random=%" PRIu64
             " seed=%" PRIu64 " shard=%u/%u profile=%s nondet_every=%u paths=%u config=[%.200s]",
             sh->info->name, sh->session.sha256, oracle_variant_get(sh->variant)->name,
             oracle_dtype_tag(o->dtype), sh->attrs_text, sweep_layout_names[sh->sp.layout],
             sh->sp.structured ? "structured" : "exhaustive", sh->sp.n, sh->sp.k,
             sh->sp.rows_per_chunk, sh->sp.n_chunks, sh->sp.random_pairs,
             sh->sp.structured ? o->seed : 0, o->shard_count > 1 ? o->shard_index : 0,
             o->shard_count > 1 ? o->shard_count : 1, o->profile.name, o->nondet_every, o->shape_tier,
             o->config ? o->config : "");
    if (o->resume) {
        int64_t sid, rid;
        if (store_sweep_find(sh->db, sh->info->name, sh->plan, &sid, &rid)) {
            fprintf(err, "divergence sweep: %s\n", store_errmsg(sh->db));
            return -1;
        }
        if (sid) {
            if (session_adopt(&sh->session, rid))
                return -1;
            sh->run_id = rid;
            sh->sweep_id = sid;
            resume_ctx rc = {sh};
            if (store_sweep_chunks(sh->db, sid, resume_chunk, &rc)) {
                fprintf(err, "divergence sweep: run %" PRId64 ": %s\n", rid,
                        store_errmsg(sh->db));
                return -1;
            }
            *resumed = 1;
            return 0;
        }
        fprintf(err, "divergence sweep: no unfinished sweep with these settings and this "
                     "plugin build in %s: starting one\n", sh->session.db_path);
    }
    char sandbox[WORKER_SANDBOX_TEXT];
    worker_describe_sandbox(sh->info->layers, sh->info->grants, sandbox, sizeof sandbox);
    store_run_info ri = {.kind = "sweep", .profile = o->profile.name, .args = o->args,
                         .sandbox = sandbox, .seed = sh->sp.structured ? o->seed : 0,
                         .has_seed = sh->sp.structured, .shard_index = o->shard_index,
                         .shard_count = o->shard_count};
    if (session_begin(&sh->session, &ri))
        return -1;
    sh->run_id = sh->session.run_id;
    store_sweep_info si = {.implementation = sh->info->name, .variant = sh->variant,
                           .dtype = o->dtype, .attrs = sh->attrs_text,
                           .space = sh->sp.structured ? "structured" : "exhaustive",
                           .layout = sh->layout_text, .plan = sh->plan,
                           .pairs = sh->shard_pairs, .random_pairs = 0,
                           .chunks = sh->shard_chunks};
    for (uint64_t c = sh->sp.product_chunks; c < sh->sp.n_chunks; c++)
        if (sweep_chunk_in_shard(o, c))
            si.random_pairs += sweep_chunk_pairs(&sh->sp, c);
    if (o->shape_tier && sweep_chunk_in_shard(o, sh->sp.n_chunks))
        si.chunks++; /* the shape paths */
    if (store_sweep_begin(sh->db, sh->run_id, &si, &sh->sweep_id)) {
        fprintf(err, "divergence sweep: %s\n", store_errmsg(sh->db));
        return -1;
    }
    return 0;
}

/* What is swept, on out (and the warning of --sandbox off on err). */
static void print_header(const shared *sh, int resumed, FILE *out, FILE *err)
{
    char sandbox[WORKER_SANDBOX_TEXT];
    const sweep_options *o = sh->o;
    const oracle_dtype_info *d = oracle_dtype(o->dtype);
    char shard[48] = "";
    if (o->shard_count > 1)
        snprintf(shard, sizeof shard, ", shard %u/%u", o->shard_index, o->shard_count);
    fprintf(out, "Sweep: %s %s (%s), %s %s [%s]%s, run %" PRId64 " in %s%s\n", sh->info->name,
            sh->info->version, o->plugin_path, oracle_variant_get(sh->variant)->name, d->tag,
            sh->attrs_text, shard, sh->run_id, sh->session.db_path, resumed ? " (resumed)" : "");
    isolation_report_sandbox("sweep", sh->info, out, err, sandbox, sizeof sandbox);
    char cpu[320];
    fprintf(out, "  cpus: %s\n", isolation_describe_cpu(o->iso.cpu_model, UINT64_MAX, cpu, sizeof cpu));
    if (!sh->sp.structured)
        fprintf(out, "  space: exhaustive, every %s pair: %" PRIu64 " pairs%s\n", d->tag,
                (uint64_t)sh->sp.n * sh->sp.n_rows, o->shard_count > 1 ? "" : "");
    else
        fprintf(out, "  space: structured, NOT exhaustive (2^%u pairs exist): every pair of the "
                     "%s edge table (%u values: boundary exponents x %u significand patterns, "
                     "both signs) = %" PRIu64 " pairs, plus %" PRIu64 " random pairs (seed %"
                     PRIu64 ") = %" PRIu64 " pairs\n",
                2 * d->bits, d->tag, sh->sp.n, sh->sp.table_sigs,
                (uint64_t)sh->sp.n * sh->sp.n_rows, sh->sp.random_pairs, o->seed,
                (uint64_t)sh->sp.n * sh->sp.n_rows + sh->sp.random_pairs);
    if (o->shard_count > 1)
        fprintf(out, "  this shard: %" PRIu64 " chunks, %" PRIu64 " pairs\n", sh->shard_chunks,
                sh->shard_pairs);
    int bulk = strcmp(oracle_rowcheck_method(o->dtype), "scalar") != 0;
    fprintf(out, "  batches: %s; check: %s, the listed elements by the full oracle\n",
            sh->layout_text, bulk ? "AVX2 bulk check (self-checked)"
                                  : "element by element (no bulk check for this dtype here)");
    fflush(out);
}

/* The progress line and its ETA (the engine's tick). */
static void tick(void *ctx, int last)
{
    shared *sh = ctx;
    if (last) {
        fprintf(sh->err, "\r%78s\r", "");
        return;
    }
    pthread_mutex_lock(&sh->lock);
    uint64_t done_pairs = sh->pairs_done + sh->pairs_under_way;
    uint64_t diffs = 0;
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++)
        diffs += sh->total.t.counts[k];
    pthread_mutex_unlock(&sh->lock);
    double t = engine_now() - sh->t0;
    double fresh = (double)(done_pairs - sh->pairs_resumed);
    uint64_t capped = done_pairs < sh->shard_pairs ? done_pairs : sh->shard_pairs;
    double left = (double)(sh->shard_pairs - capped);
    fprintf(sh->err, "\rsweep %s: %5.1f%% of %" PRIu64 " pairs, %.1f s, ETA %.1f s, %" PRIu64
                     " differences   ",
            oracle_dtype_tag(sh->o->dtype),
            sh->shard_pairs ? 100.0 * (double)done_pairs / (double)sh->shard_pairs : 100.0,
            sh->shard_pairs, t, fresh > 0 ? t * left / fresh : 0.0, diffs);
}

/* The chunks of the shard not done yet, each a unit of the run engine,
 * until the shard is done, the sweep stopped or failed, with progress and
 * ETA on err. Returns the seconds they ran, or -1 on a failure. */
static double run_jobs(shared *sh)
{
    const sweep_options *o = sh->o;
    sh->units = dvg_calloc(sh->sp.n_chunks ? sh->sp.n_chunks : 1, sizeof *sh->units);
    if (!sh->units) {
        fprintf(sh->err, "divergence sweep: out of memory\n");
        return -1;
    }
    for (uint64_t c = 0; c < sh->sp.n_chunks; c++)
        if (!sh->done[c] && sweep_chunk_in_shard(o, c))
            sh->units[sh->n_units++] = c;
    sh->t0 = engine_now();
    engine_policy p = {.ctx = sh, .jobs = sh->n_jobs, .pin = engine_pin(o->pin, sh->n_jobs),
                       .units = sh->n_units, .job_start = sweep_engine_job_start,
                       .job_free = sweep_engine_job_free, .run = sweep_chunk_run,
                       .commit = sweep_chunk_commit, .discard = sweep_chunk_discard,
                       .stop = sweep_stop, .tick = o->progress ? tick : NULL, .tick_s = 0.25};
    int ran = engine_run(&p, "sweep", sh->err);
    if (ran < 0)
        return -1;
    sh->interrupted = ran > 0 && !sh->stopped ? interrupt_signal() : 0;
    double secs = engine_now() - sh->t0;
    for (uint32_t i = 0; i < sh->n_jobs; i++)
        worker_stop(sh->jobs[i].w); /* reaped: their peak memory is known */
    return secs;
}

/* A stopped sweep: the chunks of the shard not done are recorded with
 * their pairs unjudged, so the sweep is finished. 0, or -1 on err. */
static int record_stop(shared *sh, FILE *err)
{
    uint64_t left = sh->shard_pairs - sh->pairs_done;
    sh->total.unjudged += left;
    if (store_begin(sh->db) == 0) {
        int rc = 0;
        for (uint64_t c = 0; c < sh->sp.n_chunks && !rc; c++)
            if (sweep_chunk_in_shard(sh->o, c) && !sh->done[c]) {
                counts none;
                char tally[2048];
                memset(&none, 0, sizeof none);
                none.unjudged = sweep_chunk_pairs(&sh->sp, c);
                sweep_counts_format(&none, tally, sizeof tally);
                rc = store_sweep_chunk_done(sh->db, sh->sweep_id, c, none.unjudged,
                                            none.unjudged, tally);
            }
        rc = rc ? (store_rollback(sh->db), -1) : store_commit(sh->db);
        if (rc) {
            fprintf(err, "divergence sweep: %s\n", store_errmsg(sh->db));
            return -1;
        }
    }
    return 0;
}

/* A sweep that ran to its end (or was stopped): its verdict, from every
 * chunk of the shard and the shape paths together, stored with the run's
 * end, and the summary. The exit status: 0 CONFORMANT, 1 not, 2 a store
 * error (printed). */
static int finish_sweep(shared *sh, double secs, uint32_t n_jobs)
{
    const sweep_options *o = sh->o;
    FILE *out = sh->out, *err = sh->err;
    char vbuf[96];
    counts all = sh->total;
    sweep_counts_add(&all, &sh->paths);
    const char *verdict = verdict_certificate(&all.t, &o->profile, sh->declared,
                                              all.unjudged != 0, vbuf, sizeof vbuf);
    if (sh->stopped) {
        if (record_stop(sh, err))
            return 2;
        all = sh->total;
        sweep_counts_add(&all, &sh->paths);
        verdict = verdict_certificate(&all.t, &o->profile, sh->declared, all.unjudged != 0, vbuf,
                                      sizeof vbuf);
        fprintf(out, "  stopped: %s (%" PRIu64 " failing batches, %" PRIu64 " hangs)\n",
                sh->stop_reason ? sh->stop_reason : "", sh->total.failures, sh->total.hangs);
    }
    if (store_sweep_finish(sh->db, sh->sweep_id, verdict) ||
        session_finish(&sh->session, STORE_RUN_COMPLETE)) {
        fprintf(err, "divergence sweep: %s\n", store_errmsg(sh->db));
        return 2;
    }
    print_summary(sh, secs, n_jobs, verdict);
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) == 0 && getrusage(RUSAGE_CHILDREN, &kids) == 0)
        fprintf(out, "  memory: peak RSS %.1f MiB in this process, %.1f MiB in the largest "
                     "worker (%u workers)\n",
                (double)self.ru_maxrss / 1024, (double)kids.ru_maxrss / 1024, n_jobs);
    fprintf(out, "  %" PRIu64 " new finding signatures; run %" PRId64 ", sweep %" PRId64 "\n",
            sh->new_signatures, sh->run_id, sh->sweep_id);
    return !strncmp(verdict, "CONFORMANT", 10) ? 0 : 1;
}

int sweep_run(const sweep_options *o, FILE *out, FILE *err)
{
    shared sh;
    worker_info *info = NULL;
    uint32_t n_jobs = o->jobs ? o->jobs : engine_jobs();
    int status = 2, resumed;
    memset(&sh, 0, sizeof sh);
    sh.out = out;
    sh.err = err;
    pthread_mutex_init(&sh.lock, NULL);
    if (n_jobs > ENGINE_MAX_JOBS)
        n_jobs = ENGINE_MAX_JOBS;
    sh.n_jobs = n_jobs;
    sweep_options oo = *o;
    oo.jobs = n_jobs;
    sh.o = &oo;
    o = &oo;
    if (run_shard_check("sweep", o->shard_index, o->shard_count, err))
        goto done;
    if (!oracle_dtype(o->dtype)) {
        fprintf(err, "divergence sweep: --dtype is required\n");
        goto done;
    }
    oracle_fastpath_selfcheck();
    oracle_rowcheck_selfcheck(o->dtype);
    sh.jobs = dvg_calloc(n_jobs, sizeof *sh.jobs);
    if (!sh.jobs) {
        fprintf(err, "divergence sweep: out of memory\n");
        goto done;
    }
    if (probe_plugin(o, &info, err))
        goto done;
    sh.info = info;
    if (plan_space(&sh, err) || open_run(&sh, &resumed, err))
        goto done;
    print_header(&sh, resumed, out, err);
    sh.max_pairs = (uint64_t)sh.sp.k * sh.sp.n;
    if ((uint64_t)sh.sp.random_k * RANDOM_ROW > sh.max_pairs && sh.sp.random_chunks)
        sh.max_pairs = (uint64_t)sh.sp.random_k * RANDOM_ROW;
    poisons(o->dtype, sh.poison);
    double secs = run_jobs(&sh);
    if (secs < 0 || sh.failed)
        goto done;
    if (sh.interrupted) {
        /* the chunks done are stored; the sweep stays unfinished */
        fprintf(out, "  INTERRUPTED by %s: %" PRIu64 " of %" PRIu64 " pairs judged, the others "
                     "not; %" PRIu64 " new finding signatures; run %" PRId64 ", sweep %" PRId64 "\n",
                interrupt_name(sh.interrupted), sh.pairs_done, sh.shard_pairs, sh.new_signatures,
                sh.run_id, sh.sweep_id);
        if (session_finish(&sh.session, STORE_RUN_INTERRUPTED)) {
            fprintf(err, "divergence sweep: %s\n", store_errmsg(sh.db));
            goto done;
        }
        status = session_say_interrupted(&sh.session, sh.interrupted, o->resume_command);
        goto done;
    }
    double paths_secs = 0;
    if (!sh.stopped && sweep_walk_paths(&sh, sh.jobs[0].w, &paths_secs))
        goto done;
    secs += paths_secs;
    status = finish_sweep(&sh, secs, n_jobs);
done:
    for (uint32_t i = 0; sh.jobs && i < n_jobs; i++)
        sweep_job_free(&sh.jobs[i]);
    dvg_free(sh.jobs);
    dvg_free(sh.units);
    session_close(&sh.session, status == 2);
    dvg_free(info);
    dvg_free(sh.done);
    sweep_space_free(&sh.sp);
    pthread_mutex_destroy(&sh.lock);
    return status;
}
