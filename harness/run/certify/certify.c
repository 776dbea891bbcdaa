/* SPDX-License-Identifier: MIT */
/*
 * This file contains the certification of one plugin (`divergence
 * certify`, harness/run/certify/certify.h): the plugin loaded in the first
 * job's worker, the conformance cases, the run in the store through a run
 * session (harness/run/engine/session.h), the header, the claims' cases on
 * the run engine (plan.c the case source, unit.c and claim.c the policy),
 * and the summary.
 */
#include "harness/run/certify/certify_internal.h"

#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/base/interrupt.h"
#include "harness/store/store.h"
#include "oracle/fastpath.h"

void certify_options_default(certify_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seed = 1;
    o->random_cases = 200;
    o->max_elements = 64;
    o->shape_paths = 1;
    o->shape_tier = SHAPES_MAX_TIER;
    o->max_hangs = CERTIFY_MAX_HANGS;
    o->progress = isatty(2);
    o->pin = -1;
    o->probes = 1;
    o->thread_counts = 1;
    isolation_default(&o->iso, 2000);
}

/* resume_certificates' callback: one claim the resumed run holds, kept
 * in cf->had. */
static int had_add(void *ctx, const resume_certificate *c)
{
    certify *cf = ctx;
    if (dvg_grow((void **)&cf->had, &cf->cap_had, cf->n_had + 1, sizeof *cf->had))
        return -1;
    cf->had[cf->n_had++] = *c;
    return 0;
}

/* Starts the first job's worker and loads the plugin. 0, or -1 with a
 * message. */
static int load_plugin(certify *cf)
{
    const certify_options *o = cf->o;
    worker_options wo;
    isolation_worker_options(&o->iso, 5000, o->config,
                             (isolation_place){engine_cpu(cf->pinned, 0, cf->jobs), cf->jobs}, 0,
                             &wo);
    if (worker_new(o->plugin_path, &wo, &cf->w)) {
        fprintf(cf->err, "divergence certify: cannot create a worker for %s\n", o->plugin_path);
        return -1;
    }
    worker_result wr = WORKER_RESULT_INIT;
    int started = worker_start(cf->w, &wr);
    if (started != 0) {
        char msg[512];
        fprintf(cf->err, "divergence certify: cannot load plugin %s: %s\n", o->plugin_path,
                started < 0 ? worker_errmsg(cf->w) : worker_result_format(&wr, msg, sizeof msg));
    }
    worker_result_free(&wr);
    if (started)
        return -1;
    cf->info = worker_get_info(cf->w);
    /* Nothing to judge: said before the store is touched. */
    uint32_t selectable = 0;
    for (uint32_t i = 0; i < cf->info->n_claims; i++)
        selectable += run_filter_selects(&o->only, cf->info->claims[i].variant,
                                         cf->info->claims[i].dtype);
    if (!selectable) {
        fprintf(cf->err, "divergence certify: %s (%s) claims no (variant, dtype) pair%s\n",
                o->plugin_path, cf->info->name,
                run_filter_any(&o->only) ? " that the filters select" : " at all");
        return -1;
    }
    return 0;
}

/* Opens the session: the store, and the run (a new one, or with
 * --resume the one to continue, and the claims it holds into cf->had). 0
 * or -1 (its message printed). */
static int open_run(certify *cf)
{
    const certify_options *o = cf->o;
    if (session_open(&cf->session, "certify", o->db_path, o->plugin_path, cf->info->name,
                     cf->info->version, cf->err))
        return -1;
    cf->db = cf->session.db;
    if (run_shard_check("certify", o->shard_index, o->shard_count, cf->err))
        return -1;
    int resumed = o->resume ? session_resume(&cf->session, "certify", o->args) : 0;
    if (resumed < 0)
        return -1;
    if (resumed && resume_certificates(cf->db, cf->session.run_id, cf->info->name, had_add, cf)) {
        fprintf(cf->err, "divergence certify: %s\n", store_errmsg(cf->db));
        return -1;
    }
    char sandbox[WORKER_SANDBOX_TEXT];
    worker_describe_sandbox(cf->info->layers, cf->info->grants, sandbox, sizeof sandbox);
    store_run_info ri = {.kind = "certify", .profile = o->profile.name, .args = o->args,
                         .sandbox = sandbox, .seed = o->seed, .has_seed = 1,
                         .shard_index = o->shard_index, .shard_count = o->shard_count};
    if (!resumed && session_begin(&cf->session, &ri))
        return -1;
    cf->run_id = cf->session.run_id;
    return 0;
}

const char *certify_describe_cpus(const certify *cf, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < cf->n_cpu && at < cap; k++) {
        char one[320];
        if (cf->forced[k][0])
            snprintf(one, sizeof one, "%s natively, the plugin forced to its level %s%s",
                     cpum_get(cf->cpu[k])->name, cf->forced[k],
                     cf->sampled[k] ? " (on the sample)" : "");
        else
            isolation_describe_cpu(cf->cpu[k], cf->sampled[k] ? cf->sample_cases : UINT64_MAX,
                                   one, sizeof one);
        at += (size_t)snprintf(buf + at, cap - at, "%s%s", k ? ", " : "", one);
    }
    if (cf->cpus_missing[0] && at < cap)
        snprintf(buf + at, cap - at, "; %s", cf->cpus_missing);
    return buf;
}

/* The header: the plugin, the run, the sandbox, the CPUs, the FP
 * environment. */
static void print_header(certify *cf)
{
    const certify_options *o = cf->o;
    char shard[48] = "", sandbox[WORKER_SANDBOX_TEXT];
    if (o->shard_count > 1)
        snprintf(shard, sizeof shard, ", shard %u/%u", o->shard_index, o->shard_count);
    fprintf(cf->out, "Certificate: %s %s (%s), profile %s, seed %" PRIu64 "%s, run %" PRId64
                     " in %s%s\n",
            cf->info->name, cf->info->version, o->plugin_path, o->profile.name, o->seed, shard,
            cf->run_id, cf->session.db_path, cf->session.resumed ? " (resumed)" : "");
    isolation_report_sandbox("certify", cf->info, cf->out, cf->err, sandbox,
                             sizeof sandbox);
    char cpus[512];
    fprintf(cf->out, "  cpus: %s\n", certify_describe_cpus(cf, cpus, sizeof cpus));
    if (cf->info->fp_at_open) {
        char fp[128];
        fprintf(cf->out, "  note: loading and open() leave the FP environment changed (%s); "
                         "every call starts from it\n",
                worker_fp_describe(cf->info->fp_at_open, fp, sizeof fp));
    }
}

/* The claims on the engine, then the summary. Returns the exit status. */
static int judge_claims(certify *cf, double t0)
{
    const certify_options *o = cf->o;
    engine_policy p = {.ctx = cf, .jobs = cf->jobs, .pin = cf->pinned, .units = cf->n_units,
                       .ordered = 1, .job_start = certify_job_start,
                       .job_free = certify_job_free, .run = certify_unit_run,
                       .commit = certify_unit_commit, .discard = certify_unit_discard,
                       .tick = o->progress ? certify_tick : NULL, .tick_s = 0.2};
    int ran = engine_run(&p, "certify", cf->err);
    if (ran < 0)
        return 2;
    int sig = ran > 0 ? interrupt_signal() : 0;
    if (sig) {
        if (certify_store_held(cf))
            return 2;
        fprintf(cf->out, "INTERRUPTED by %s: %u of %u claims certified, the others not "
                         "judged; %u of them hold; %" PRIu64 " new finding signatures; %.1f s\n",
                interrupt_name(sig), cf->claims_done, cf->n_claims, cf->claims_held,
                cf->new_signatures, engine_now() - t0);
        if (session_finish(&cf->session, STORE_RUN_INTERRUPTED)) {
            fprintf(cf->err, "divergence certify: %s\n", store_errmsg(cf->db));
            return 2;
        }
        return session_say_interrupted(&cf->session, sig, o->resume_command);
    }
    int64_t n_new, n_reopened, n_fixed;
    if (store_run_changes(cf->db, cf->run_id, &n_new, &n_reopened, &n_fixed)) {
        fprintf(cf->err, "divergence certify: %s\n", store_errmsg(cf->db));
        return 2;
    }
    /* a signature's life (docs/store.md): new, reopened after a fix, fixed */
    fprintf(cf->out, "%u of %u claims hold; finding signatures: %" PRId64 " new, %" PRId64
                     " reopened, %" PRId64 " fixed; %.1f s; "
                     "'divergence replay --db %s " STORE_REF_SIGNATURE "N' re-runs the latest "
                     "reproducer of signature [" STORE_REF_SIGNATURE "N]\n",
            cf->claims_held, cf->n_claims, n_new, n_reopened, n_fixed, engine_now() - t0,
            cf->session.db_path);
    if (session_finish(&cf->session, STORE_RUN_COMPLETE)) {
        fprintf(cf->err, "divergence certify: %s\n", store_errmsg(cf->db));
        return 2;
    }
    return cf->status;
}

/* The case-file cases certify builds: those of the plugin's claims that
 * --variant and --dtype select (the same set in every shard and on
 * --resume, whose command lines select the same claims). */
static int wants_claim(const void *ctx, uint32_t variant, uint32_t dtype)
{
    const certify *cf = ctx;
    return run_filter_selects(&cf->o->only, variant, dtype) &&
           worker_info_claims(cf->info, variant, dtype);
}

int certify_run(const certify_options *o, FILE *out, FILE *err)
{
    certify cf;
    memset(&cf, 0, sizeof cf);
    cf.o = o;
    cf.out = out;
    cf.err = err;
    cf.jobs = o->jobs ? o->jobs : engine_jobs();
    cf.pinned = engine_pin(o->pin, cf.jobs);
    recorder_init(&cf.acc.rec, STORE_DEFAULT_REPRODUCERS, CERTIFY_HELD_BYTES);
    int status = 2;
    double t0 = engine_now();
    oracle_fastpath_selfcheck();
    if (load_plugin(&cf))
        goto done;
    casefile_error ce;
    if (casefile_load_conformance(o->cases_dir, wants_claim, &cf, &cf.cases, &ce)) {
        fprintf(err, "divergence certify: %s\n", ce.text);
        goto done;
    }
    if (certify_cpus(&cf) || open_run(&cf) || certify_plan(&cf, cf.had, cf.n_had))
        goto done;
    print_header(&cf);
    uint32_t selected = 0;
    for (uint32_t i = 0; i < cf.info->n_claims; i++)
        selected += run_filter_selects(&o->only, cf.info->claims[i].variant,
                                       cf.info->claims[i].dtype);
    if (cf.n_claims == 0) {
        /* a shard that holds none of the selected claims: an empty run */
        fprintf(out, "shard %u/%u holds none of the %u selected claims\n", o->shard_index,
                o->shard_count, selected);
        status = session_finish(&cf.session, STORE_RUN_COMPLETE) ? 2 : 0;
        if (status)
            fprintf(err, "divergence certify: %s\n", store_errmsg(cf.db));
        goto done;
    }
    status = judge_claims(&cf, t0);
done:
    session_close(&cf.session, status == 2);
    recorder_free(&cf.acc.rec);
    certify_plan_free(&cf);
    dvg_free(cf.had);
    worker_free(cf.w);
    casefile_set_free(cf.cases);
    return status;
}
