/* SPDX-License-Identifier: MIT */
/*
 * This file contains the jobs of the fuzz campaign and of import: a job's
 * lanes (one plugin each: its worker, the trial that runs a case and the
 * one that probes while minimising, its tallies); one case through every
 * lane, judged, compared among the plugins; every departure whose
 * signature is new to the run minimised and kept in the case's result;
 * and the commit of a result (its findings into the store).
 */
#include "harness/run/campaign/campaign_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/run/campaign/minimise.h"
#include "harness/run/engine/isolation.h"
#include "oracle/dtype.h"

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

/* 1 when `key` is among the run's signatures (sh->lock held). */
static int known_locked(const shared *sh, const char *key)
{
    for (uint32_t i = 0; i < sh->n_signatures; i++)
        if (strcmp(sh->signatures[i], key) == 0)
            return 1;
    return 0;
}

int campaign_claim_signature(shared *sh, const char *key, int hazard, uint64_t case_number)
{
    pthread_mutex_lock(&sh->lock);
    int is_new = !known_locked(sh, key);
    if (is_new && sh->n_signatures == MAX_SIGNATURES)
        is_new = 0; /* enough for one run: count, do not record */
    if (is_new) {
        snprintf(sh->signatures[sh->n_signatures++], sizeof sh->signatures[0], "%s", key);
        if (sh->first_finding_at == 0) {
            sh->first_finding_at = engine_now();
            sh->first_finding_case = case_number;
        }
        sh->n_hazard_signatures += (uint32_t)(hazard != 0);
    }
    pthread_mutex_unlock(&sh->lock);
    return is_new;
}

/* The marker of a signature whose departures need earlier calls
 * ("E|" and its key), among the run's signatures: later sightings of the
 * signature count as depends-on-earlier-calls without a probe. */
static void explained_key(const char *key, char *marker, size_t len)
{
    snprintf(marker, len, "E|%.150s", key);
}

static int has_signature(shared *sh, const char *key)
{
    pthread_mutex_lock(&sh->lock);
    int found = known_locked(sh, key);
    pthread_mutex_unlock(&sh->lock);
    return found;
}

static void add_signature(shared *sh, const char *key)
{
    pthread_mutex_lock(&sh->lock);
    if (!known_locked(sh, key) && sh->n_signatures < MAX_SIGNATURES)
        snprintf(sh->signatures[sh->n_signatures++], sizeof sh->signatures[0], "%s", key);
    pthread_mutex_unlock(&sh->lock);
}

void campaign_lane_trials(job *j, int probe, const trial **t)
{
    for (uint32_t k = 0; k < j->n_lanes; k++)
        t[k] = probe ? &j->lanes[k].probe : &j->lanes[k].t;
}

void campaign_lane_names(const shared *sh, const char **names)
{
    for (uint32_t k = 0; k < sh->n_plugins; k++)
        names[k] = sh->info[k]->name;
}

/* The verdict's sink: keep the examples whose signature is new to the run. */
static int collect(void *ctx, const divcase *c, const verdict_example *ex)
{
    lane *l = ctx;
    if (ex->accepted)
        return 0;
    char key[160], marker[160];
    signature_key(l->k, c, ex, key, sizeof key);
    if (campaign_claim_signature(l->j->sh, key, 0, l->j->case_number)) {
        if (l->n_pending < MAX_NEW_PER_CASE)
            l->pending[l->n_pending++] = *ex;
    } else if (l->j->keyed && ex->cls < ORACLE_CLASS_COUNT) {
        explained_key(key, marker, sizeof marker);
        if (has_signature(l->j->sh, marker))
            l->moved[ex->cls] += ex->elements ? ex->elements : 1;
    }
    return 0;
}

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

/* history_source: the case of a key, made again. */
static int rebuild_case(void *ctx, uint64_t key, divcase *c)
{
    job *j = ctx;
    return campaign_make_case(j->sh, key, j->rebuild_scratch, MAX_CORPUS_BYTES + 64, c);
}

static void release_case(void *ctx, divcase *c)
{
    (void)ctx;
    divcase_free(c);
}

/* The departures of lane l new to the run in case c (key `key`), each
 * class the history may explain tried alone on a fresh child of the
 * worker (history.h); one that shows only after earlier calls is marked
 * for depends-on-earlier-calls with its minimised calls, its signature
 * noted so (later sightings count so too) and its count put in l->moved.
 * The case's call joins the history either way. 0, or -1 (printed). */
static int explain_departures(lane *l, const divcase *c, uint64_t key)
{
    shared *sh = l->j->sh;
    const history_source src = {rebuild_case, release_case, l->j};
    uint64_t *alone = &l->shows_alone[c->variant][c->dtype];
    uint8_t *unexplained = &l->unexplained[c->variant][c->dtype];
    int probed = 0;
    memset(l->is_explained, 0, sizeof l->is_explained);
    for (uint32_t i = 0; i < l->n_pending; i++) {
        uint32_t cls = l->pending[i].cls;
        uint64_t bit = UINT64_C(1) << (cls & 63);
        uint32_t first = 0; /* one probe per class of the case: the first sighting's */
        while (first < i && l->pending[first].cls != cls)
            first++;
        if (first < i) {
            if ((l->is_explained[i] = l->is_explained[first]))
                l->explained[i] = l->explained[first];
            continue;
        }
        if (!history_probes_class(cls) || (*alone & bit) || *unexplained >= CAMPAIGN_UNEXPLAINED)
            continue;
        probed = 1;
        int v = history_explain(&l->hist, &l->probe, c, key, cls, &src, &l->explained[i]);
        if (v < 0) {
            fprintf(sh->err, "divergence %s: probing the calls before case %s: %s\n", sh->kind,
                    c->id, l->probe.error);
            return -1;
        }
        if (v == 0)
            *alone |= bit;
        else if (v == 2)
            (*unexplained)++;
        else
            l->is_explained[i] = 1;
    }
    for (uint32_t i = 0; i < l->n_pending; i++) {
        if (!l->is_explained[i])
            continue;
        char sig[160], marker[160];
        signature_key(l->k, c, &l->pending[i], sig, sizeof sig);
        explained_key(sig, marker, sizeof marker);
        add_signature(sh, marker);
        l->moved[l->pending[i].cls] += l->pending[i].elements ? l->pending[i].elements : 1;
    }
    if (!probed)
        history_push(&l->hist, l->w, key, c);
    return 0;
}

/* The counts of the case's sightings that need earlier calls (l->moved)
 * move, in its tally *one, to depends-on-earlier-calls. */
static void move_explained(lane *l, verdict_tally *one)
{
    int any = 0;
    for (uint32_t cls = 0; cls < ORACLE_CLASS_COUNT; cls++) {
        uint64_t n = l->moved[cls] < one->counts[cls] ? l->moved[cls] : one->counts[cls];
        if (!l->moved[cls])
            continue;
        any = 1;
        one->counts[cls] -= n;
        one->counts[ORACLE_CLASS_EARLIER_CALLS] += n;
        if (!one->counts[cls] && one->class_cases[cls])
            one->class_cases[cls]--;
    }
    if (any && !one->class_cases[ORACLE_CLASS_EARLIER_CALLS])
        one->class_cases[ORACLE_CLASS_EARLIER_CALLS] = 1;
}

/* Keeps departure i of lane l, explained by earlier calls, with its
 * calls: the case as found (its shapes are part of it), or its element
 * when the case is too large to keep. 0 or -1. */
static int keep_explained(lane *l, const divcase *c, uint32_t i)
{
    shared *sh = l->j->sh;
    const history_source src = {rebuild_case, release_case, l->j};
    verdict_example ex = l->pending[i];
    char said[VERDICT_NOTE_MAX + 96], note[VERDICT_NOTE_MAX + 200], *calls = NULL;
    history_describe(&src, ex.cls, &l->explained[i], ex.note, sizeof ex.note);
    ex.cls = ORACLE_CLASS_EARLIER_CALLS;
    snprintf(said, sizeof said, "fuzz seed %" PRIu64 ", case %s: %.400s", sh->o->seed, c->id,
             ex.note);
    if (!isolation_cpu_note(sh->o->iso.cpu_model, NULL, 0, said, note, sizeof note))
        snprintf(note, sizeof note, "%s", said);
    long at = recorder_departure(&l->j->res->rec, sh->info[l->k]->name, &l->t, c, &ex, note);
    if (at < 0 || history_calls_text(&src, l->explained[i].keys, l->explained[i].n, &calls)) {
        fprintf(sh->err, "divergence %s: out of memory keeping a finding\n", sh->kind);
        return -1;
    }
    recorder_set_calls(&l->j->res->rec, at, calls);
    return 0;
}

/* Minimises the departures of lane l new to this run into the case's
 * recorder. 0 or -1. */
static int minimise_departures(lane *l, const divcase *c)
{
    shared *sh = l->j->sh;
    for (uint32_t i = 0; i < l->n_pending; i++) {
        verdict_example ex = l->pending[i];
        if (l->is_explained[i]) {
            if (keep_explained(l, c, i))
                return -1;
            continue;
        }
        divcase m;
        char how[64], note[WORKER_MESSAGE_MAX + 160];
        departure_probe p = {.l = l, .cls = ex.cls};
        minimise_target tg = {departure_reproduces, &p, l->probe.w, &l->t.wr};
        if (minimise_case(&tg, c, &ex, &m, how, sizeof how)) {
            fprintf(sh->err, "divergence %s: minimising a finding: %s\n", sh->kind,
                    l->probe.error);
            return -1;
        }
        char said[WORKER_MESSAGE_MAX + 96];
        snprintf(said, sizeof said, "fuzz seed %" PRIu64 ", case %s, minimised: %s%s%.400s",
                 sh->o->seed, c->id, how, ex.note[0] ? "; " : "", ex.note);
        /* Under --cpu, the note starts with the CPU (replay runs it there). */
        if (!isolation_cpu_note(sh->o->iso.cpu_model, NULL, verdict_emulation_fakeable(ex.cls),
                                said, note, sizeof note))
            snprintf(note, sizeof note, "%s", said);
        long at = recorder_departure(&l->j->res->rec, sh->info[l->k]->name, NULL, &m, &ex, note);
        divcase_free(&m);
        if (at < 0) {
            fprintf(sh->err, "divergence %s: out of memory keeping a finding\n", sh->kind);
            return -1;
        }
    }
    l->n_pending = 0;
    return 0;
}

int campaign_run_case(job *j, const divcase *c)
{
    shared *sh = j->sh;
    int conforms = 1;
    j->current = c;
    j->n_hazards = 0;
    j->res->elements = 0;
    for (uint32_t k = 0; k < j->n_lanes; k++) {
        lane *l = &j->lanes[k];
        verdict_tally one;
        memset(&one, 0, sizeof one);
        l->n_pending = 0;
        memset(l->is_explained, 0, sizeof l->is_explained);
        memset(l->moved, 0, sizeof l->moved);
        int v = trial_run(&l->t, c, &one, collect, l);
        if (v < 0) {
            fprintf(sh->err, "divergence %s: %s: %s\n", sh->kind, sh->info[k]->name, l->t.error);
            return -1;
        }
        if (j->keyed && explain_departures(l, c, j->case_key))
            return -1;
        move_explained(l, &one);
        verdict_tally_add(&l->tallies[c->variant][c->dtype], &one);
        conforms &= v;
        if (k == 0)
            j->res->elements = one.elements;
    }
    if (j->n_lanes > 1) {
        const trial *t[CAMPAIGN_MAX_PLUGINS];
        crosscheck_counts n;
        memset(&n, 0, sizeof n);
        campaign_lane_trials(j, 0, t);
        crosscheck_outputs(t, j->n_lanes, c, &n, campaign_on_hazard, j);
        pthread_mutex_lock(&sh->lock);
        for (int h = 0; h < HAZARD_COUNT; h++)
            sh->hazard_elements[h] += n.hazards[h];
        pthread_mutex_unlock(&sh->lock);
    }
    for (uint32_t k = 0; k < j->n_lanes; k++)
        if (j->lanes[k].n_pending && minimise_departures(&j->lanes[k], c))
            return -1;
    if (j->n_hazards && campaign_minimise_hazards(j, c))
        return -1;
    j->res->conforms = conforms;
    return conforms;
}

case_result *campaign_result_new(void)
{
    case_result *r = dvg_calloc(1, sizeof *r);
    if (!r)
        return NULL;
    recorder_init(&r->rec, STORE_DEFAULT_REPRODUCERS, UINT64_MAX);
    for (int h = 0; h < HAZARD_COUNT; h++)
        r->hazard_handle[h] = -1;
    return r;
}

void campaign_result_free(case_result *r)
{
    if (!r)
        return;
    recorder_free(&r->rec);
    dvg_free(r);
}

int campaign_record(shared *sh, case_result *r)
{
    if (recorder_count(&r->rec)) {
        if (store_begin(sh->db) || recorder_write(&r->rec, sh->db, sh->run_id, NULL) ||
            store_commit(sh->db)) {
            fprintf(sh->err, "divergence %s: %s\n", sh->kind, store_errmsg(sh->db));
            store_rollback(sh->db);
            return -1;
        }
        for (int h = 0; h < HAZARD_COUNT; h++)
            if (r->hazard_handle[h] >= 0 && !sh->hazard_first[h])
                sh->hazard_first[h] = recorder_signature_id(&r->rec, r->hazard_handle[h]);
    }
    sh->cases++;
    sh->elements += r->elements;
    return 0;
}

int campaign_job_start(shared *sh, job *j, int cpu)
{
    memset(j, 0, sizeof *j);
    j->sh = sh;
    j->cpu = cpu;
    j->scratch = dvg_malloc(MAX_CORPUS_BYTES + 64);
    j->rebuild_scratch = dvg_malloc(MAX_CORPUS_BYTES + 64);
    if (!j->scratch || !j->rebuild_scratch) {
        fprintf(sh->err, "divergence %s: out of memory\n", sh->kind);
        return -1;
    }
    worker_options wo;
    isolation_worker_options(&sh->o->iso, 2000, sh->o->config,
                             (isolation_place){cpu, sh->jobs * sh->n_plugins}, 1, &wo);
    for (uint32_t k = 0; k < sh->o->n_plugins; k++) {
        lane *l = &j->lanes[k];
        const char *path = sh->o->plugin_paths[k];
        l->j = j;
        l->k = k;
        j->n_lanes = k + 1; /* campaign_job_free frees what it made, all or part */
        if (worker_new(path, &wo, &l->w)) {
            fprintf(sh->err, "divergence %s: cannot create a worker for %s\n", sh->kind, path);
            return -1;
        }
        trial_init(&l->t, l->w, &sh->o->profile);
        trial_init(&l->probe, l->w, &sh->o->profile);
        l->probe.pace.off = 1; /* a fresh child's first calls: not timed */
        history_init(&l->hist);
        int rc = worker_start(l->w, &l->t.wr);
        if (rc) {
            char msg[WORKER_MESSAGE_MAX + 64];
            fprintf(sh->err, "divergence %s: cannot load plugin %s: %s\n", sh->kind, path,
                    rc < 0 ? worker_errmsg(l->w)
                           : worker_result_format(&l->t.wr, msg, sizeof msg));
            return -1;
        }
    }
    return 0;
}

void campaign_job_free(job *j)
{
    for (uint32_t k = 0; k < j->n_lanes; k++) {
        trial_free(&j->lanes[k].t);
        trial_free(&j->lanes[k].probe);
        worker_free(j->lanes[k].w);
        j->lanes[k].w = NULL;
    }
    j->n_lanes = 0;
    dvg_free(j->scratch);
    dvg_free(j->rebuild_scratch);
    j->scratch = j->rebuild_scratch = NULL;
}

int campaign_engine_job_start(void *ctx, engine_job *ej)
{
    shared *sh = ctx;
    job *j = sh->job_of[ej->index];
    ej->state = j;
    if (!j->sh && campaign_job_start(sh, j, ej->cpu)) /* job 0 was started before */
        return -1;
    return 0;
}

void campaign_engine_job_free(void *ctx, engine_job *ej)
{
    (void)ctx;
    (void)ej; /* the campaign frees its jobs after the engine */
}

void campaign_engine_discard(void *ctx, void *result)
{
    (void)ctx;
    campaign_result_free(result);
}
