/* SPDX-License-Identifier: MIT */
/*
 * This file contains the differential run across implementations
 * (`divergence diff`, harness/run/diff/diff.h): the plugins loaded in the
 * first job's workers, the (variant, dtype) pairs they all claim (with
 * --partial, two or more), the run in the store (kind "diff"), the pairs on
 * the run engine (pair.c runs one; here each is committed in pair order:
 * its findings recorded, the plugin set's hazards of its triple that the
 * run did not see marked fixed, its table of hazard class x plugin and a
 * reproducer per hazard signature printed), and the summary.
 */
#include "harness/run/diff/diff_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/store/store.h"
#include "oracle/dtype.h"
#include "oracle/fastpath.h"
#include "oracle/variant.h"

void diff_options_default(diff_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seed = 1;
    o->random_cases = 100;
    o->max_elements = 64;
    o->pin = -1;
    isolation_default(&o->iso, 2000);
}

int diff_start_worker(diff *d, uint32_t k, int cpu, worker **w)
{
    const char *path = d->o->plugins[k];
    worker_options wo;
    isolation_worker_options(&d->o->iso, 2000, d->o->config,
                             (isolation_place){cpu, d->jobs * d->n}, 0, &wo);
    if (worker_new(path, &wo, w)) {
        fprintf(d->err, "divergence diff: cannot create a worker for %s\n", path);
        return -1;
    }
    worker_result wr = WORKER_RESULT_INIT;
    int started = worker_start(*w, &wr);
    if (started != 0) {
        char msg[512];
        fprintf(d->err, "divergence diff: cannot load plugin %s: %s\n", path,
                started < 0 ? worker_errmsg(*w) : worker_result_format(&wr, msg, sizeof msg));
    }
    worker_result_free(&wr);
    return started ? -1 : 0;
}

/* The first job's workers, the plugins' descriptions and the set's name.
 * 0 or -1. */
static int load_plugins(diff *d)
{
    size_t at = 0;
    for (uint32_t k = 0; k < d->n; k++) {
        if (diff_start_worker(d, k, engine_cpu(d->pinned, 0, d->jobs), &d->w[k]))
            return -1;
        d->info[k] = dvg_malloc(sizeof *d->info[k]);
        if (!d->info[k]) {
            fprintf(d->err, "divergence diff: out of memory\n");
            return -1;
        }
        *d->info[k] = *worker_get_info(d->w[k]);
        at += (size_t)snprintf(d->set_name + at, sizeof d->set_name - at, "%s%s", k ? "|" : "",
                               d->info[k]->name);
    }
    return 0;
}

/* The case-file cases diff builds: those of the pairs it compares. */
static int wants_pair(const void *ctx, uint32_t variant, uint32_t dtype)
{
    const diff *d = ctx;
    for (uint32_t i = 0; i < d->n_pairs; i++)
        if (d->pairs[i].variant == variant && d->pairs[i].dtype == dtype)
            return 1;
    return 0;
}

/* The pairs every plugin claims (--partial: at least two), in the order
 * the plugins claim them. 0, or -1 (its message printed). */
static int find_pairs(diff *d)
{
    const diff_options *o = d->o;
    d->pairs = dvg_calloc(DIFF_MAX_PLUGINS * WORKER_MAX_CLAIMS, sizeof *d->pairs);
    if (!d->pairs) {
        fprintf(d->err, "divergence diff: out of memory\n");
        return -1;
    }
    for (uint32_t f = 0; f < d->n; f++)
        for (uint32_t i = 0; i < d->info[f]->n_claims; i++) {
            uint32_t var = d->info[f]->claims[i].variant, dt = d->info[f]->claims[i].dtype;
            if (!run_filter_selects(&o->only, var, dt) ||
                !oracle_variant_has_dtype(oracle_variant_get(var), dt))
                continue;
            uint32_t mask = 0, count = 0, j = 0;
            for (uint32_t k = 0; k < d->n; k++)
                if (worker_info_claims(d->info[k], var, dt)) {
                    mask |= 1u << k;
                    count++;
                }
            if (mask & ((1u << f) - 1))
                continue; /* listed with an earlier plugin's claims */
            while (j < d->n_pairs && !(d->pairs[j].variant == var && d->pairs[j].dtype == dt))
                j++;
            if (j < d->n_pairs || count < (o->partial ? 2 : d->n))
                continue;
            diff_pair *p = &d->pairs[d->n_pairs++];
            p->variant = var;
            p->dtype = dt;
            p->mask = mask;
            size_t len = 0;
            for (uint32_t k = 0, na = 0; k < d->n; k++)
                if (mask & (1u << k))
                    len += (size_t)snprintf(p->name + len, sizeof p->name - len, "%s%s",
                                            na++ ? "|" : "", d->info[k]->name);
        }
    if (!d->n_pairs) {
        fprintf(d->err, "divergence diff: the plugins claim no (variant, dtype) pair in common%s\n",
                run_filter_any(&o->only) ? " that the filters select" : "");
        return -1;
    }
    return 0;
}

/* The session: the store and a new run, with each plugin's own build
 * linked to it (a departure is a finding of one plugin, and `divergence
 * replay` finds that plugin's file through its build in the run). 0 or -1. */
static int open_run(diff *d)
{
    const diff_options *o = d->o;
    if (session_open(&d->session, "diff", o->db_path, o->plugins[0], d->set_name,
                     d->info[0]->version, d->err))
        return -1;
    d->db = d->session.db;
    char sandbox[WORKER_SANDBOX_TEXT];
    worker_describe_sandbox(d->info[0]->layers, d->info[0]->grants, sandbox, sizeof sandbox);
    store_run_info ri = {.kind = "diff", .profile = o->profile.name, .args = o->args,
                         .sandbox = sandbox, .seed = o->seed, .has_seed = 1};
    if (session_begin(&d->session, &ri))
        return -1;
    d->run_id = d->session.run_id;
    for (uint32_t k = 0; k < d->n; k++)
        if (session_link_plugin(&d->session, d->info[k]->name, d->info[k]->version,
                                o->plugins[k]))
            return -1;
    return 0;
}

/* Prints one table row per plugin: what each gave. */
static void print_given(diff *d, const pair_result *res, const diff_sig *s)
{
    for (uint32_t k = 0; k < res->na; k++)
        fprintf(d->out, "      %-32s %s\n", d->info[res->plugin[k]]->name, s->given[k]);
}

/* Prints the pair's table and reproducers. */
static void print_pair(diff *d, const diff_pair *pr, const pair_result *res)
{
    const char *tag = oracle_dtype_tag(pr->dtype);
    uint64_t hazards = 0, departing = 0;
    char a[VERDICT_TEXT_MAX], b[VERDICT_TEXT_MAX];
    for (int h = 0; h < HAZARD_COUNT; h++)
        hazards += res->hazard_elems[h];
    for (uint32_t k = 0; k < res->na; k++)
        departing += res->departed_cases[k] != 0;
    fprintf(d->out, "  %-18s %-5s %6" PRIu64 " cases %8" PRIu64 " elements: %" PRIu64
                    " agree, %" PRIu64 " hazards, %" PRIu64 " departing plugins\n",
            oracle_variant_get(pr->variant)->name, tag, res->cases_run, res->elements,
            res->agree, hazards, departing);
    if (res->na < d->n)
        fprintf(d->out, "    compared: %s (the plugins that claim it)\n", pr->name);
    for (int h = 0; h < HAZARD_COUNT; h++) {
        if (res->hazard_first[h] < 0)
            continue;
        const diff_sig *s = &res->sigs[res->hazard_first[h]];
        fprintf(d->out, "    hazard %-24s %8" PRIu64 " elements  e.g. %s / %s (oracle: %s):\n",
                hazard_name((uint32_t)h), res->hazard_elems[h],
                verdict_bits_text(pr->dtype, s->a, a, sizeof a),
                verdict_bits_text(pr->dtype, s->b, b, sizeof b), s->expected);
        print_given(d, res, s);
    }
    for (int h = 0; h < HAZARD_COUNT; h++) {
        if (!res->outcome_noted[h])
            continue;
        const diff_sig *s = &res->outcome[h];
        fprintf(d->out, "    where %s, a plugin does not compute  e.g. %s / %s alone:\n",
                hazard_name((uint32_t)h), verdict_bits_text(pr->dtype, s->a, a, sizeof a),
                verdict_bits_text(pr->dtype, s->b, b, sizeof b));
        print_given(d, res, s);
    }
    for (uint32_t s = 0; s < res->n_sigs; s++) {
        const diff_sig *g = &res->sigs[s];
        fprintf(d->out, "    reproducer %s %s/%s: %s / %s (%" PRIu64 " elements)  ["
                        STORE_REF_SIGNATURE "%" PRId64 "]\n",
                hazard_name(g->hazard), oracle_operand_name(g->operand_a),
                oracle_operand_name(g->operand_b), verdict_bits_text(pr->dtype, g->a, a, sizeof a),
                verdict_bits_text(pr->dtype, g->b, b, sizeof b), g->elements,
                recorder_signature_id(&res->rec, g->handle));
    }
    for (uint32_t k = 0; k < res->na; k++)
        if (res->departed_cases[k])
            fprintf(d->out, "    DEPARTS %s: %" PRIu64 " cases, first %s: %s\n",
                    d->info[res->plugin[k]]->name, res->departed_cases[k],
                    oracle_class_name(res->first_cls[k]), res->first_text[k]);
}

/* The engine's commit: a pair's findings recorded in one transaction
 * with the set's hazards of its triple this run did not see marked fixed;
 * its table printed. 0, or -1 (the store's error printed). */
static int commit_pair(void *ctx, uint64_t u, void *result)
{
    diff *d = ctx;
    const diff_pair *pr = &d->pairs[u];
    pair_result *res = result;
    int rc = 0;
    if (store_begin(d->db) || recorder_write(&res->rec, d->db, d->run_id, &d->new_signatures) ||
        store_mark_fixed(d->db, d->run_id, pr->name, pr->variant, pr->dtype, NULL) ||
        store_commit(d->db)) {
        fprintf(d->err, "divergence diff: %s\n", store_errmsg(d->db));
        store_rollback(d->db);
        rc = -1;
    } else {
        print_pair(d, pr, res);
        d->with_hazards += res->n_sigs > 0;
        for (uint32_t k = 0; k < res->na; k++)
            if (res->departed_cases[k]) {
                d->departed++;
                break;
            }
    }
    diff_pair_discard(d, res);
    return rc;
}

/* The header, the pairs on the engine, the summary: the exit status. */
static int compare_pairs(diff *d, double t0)
{
    const diff_options *o = d->o;
    char sandbox[WORKER_SANDBOX_TEXT];
    fprintf(d->out, "Diff: %s, profile %s, seed %" PRIu64 ", %u shared pairs, run %" PRId64
                    " in %s\n",
            d->set_name, o->profile.name, o->seed, d->n_pairs, d->run_id, d->session.db_path);
    for (uint32_t k = 0; k < d->n; k++)
        fprintf(d->out, "  plugin %u: %s %s (%s)\n", k + 1, d->info[k]->name, d->info[k]->version,
                o->plugins[k]);
    isolation_report_sandbox("diff", d->info[0], d->out, d->err, sandbox, sizeof sandbox);
    engine_policy p = {.ctx = d, .jobs = d->jobs, .pin = d->pinned, .units = d->n_pairs,
                       .ordered = 1, .job_start = diff_job_start, .job_free = diff_job_free,
                       .run = diff_pair_run, .commit = commit_pair,
                       .discard = diff_pair_discard};
    if (engine_run(&p, "diff", d->err) < 0)
        return 2;
    fprintf(d->out, "%u of %u pairs with portability hazards, %u with a departure from the "
                    "oracle; %" PRIu64 " new signatures; %.1f s; 'divergence replay --db %s "
                    STORE_REF_SIGNATURE "N' re-runs a reproducer\n",
            d->with_hazards, d->n_pairs, d->departed, d->new_signatures, engine_now() - t0,
            d->session.db_path);
    if (session_finish(&d->session, STORE_RUN_COMPLETE)) {
        fprintf(d->err, "divergence diff: %s\n", store_errmsg(d->db));
        return 2;
    }
    return d->departed ? 1 : 0;
}

int diff_run(const diff_options *o, FILE *out, FILE *err)
{
    diff *d = dvg_calloc(1, sizeof *d);
    if (!d) {
        fprintf(err, "divergence diff: out of memory\n");
        return 2;
    }
    d->o = o;
    d->out = out;
    d->err = err;
    d->jobs = o->jobs ? o->jobs : engine_jobs();
    d->pinned = engine_pin(o->pin, d->jobs);
    int status = 2;
    double t0 = engine_now();
    oracle_fastpath_selfcheck();
    if (o->n_plugins < 2 || o->n_plugins > DIFF_MAX_PLUGINS) {
        fprintf(err, "divergence diff: between 2 and %d plugins\n", DIFF_MAX_PLUGINS);
        goto done;
    }
    d->n = o->n_plugins;
    if (load_plugins(d) || find_pairs(d))
        goto done;
    casefile_error ce;
    if (casefile_load_conformance(o->cases_dir, wants_pair, d, &d->cases, &ce)) {
        fprintf(err, "divergence diff: %s\n", ce.text);
        goto done;
    }
    if (open_run(d))
        goto done;
    status = compare_pairs(d, t0);
done:
    session_close(&d->session, status == 2);
    for (uint32_t k = 0; k < DIFF_MAX_PLUGINS; k++) {
        worker_free(d->w[k]);
        dvg_free(d->info[k]);
    }
    casefile_set_free(d->cases);
    dvg_free(d->pairs);
    dvg_free(d);
    return status;
}
