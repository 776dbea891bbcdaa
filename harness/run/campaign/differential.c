/* SPDX-License-Identifier: MIT */
/*
 * This file contains the differential part of the fuzz campaign (several
 * plugins): the elements where every plugin that computed a case conforms
 * but their bits differ (crosscheck), kept when their signature (class,
 * pair, operand classes) is new to the run, minimised while the plugins
 * still disagree with the same class, and kept in the case's recorder as
 * findings of the plugin set, named by their hazard class.
 */
#include "harness/run/campaign/campaign_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/run/campaign/minimise.h"
#include "oracle/dtype.h"

int campaign_on_hazard(void *ctx, const crosscheck_elem *x)
{
    job *j = ctx;
    shared *sh = j->sh;
    const divcase *c = j->current;
    char key[160];
    snprintf(key, sizeof key, "h|%u|%u|%s|%s/%s", (unsigned)c->variant, (unsigned)c->dtype,
             hazard_name(x->hazard), oracle_operand_name(x->operand_a),
             oracle_operand_name(x->operand_b));
    if (!campaign_claim_signature(sh, key, 1, j->case_number) || j->n_hazards == MAX_NEW_PER_CASE)
        return 0;
    pending_hazard *h = &j->hazards[j->n_hazards++];
    h->x = *x;
    h->expected = *x->expected;
    h->x.expected = &h->expected;
    const trial *t[CAMPAIGN_MAX_PLUGINS];
    const char *names[CAMPAIGN_MAX_PLUGINS];
    campaign_lane_trials(j, 0, t);
    campaign_lane_names(sh, names);
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

/* minimise_probe: 1 when the plugins still disagree with the class. */
static int hazard_reproduces(void *ctx, const divcase *c, verdict_example *ex)
{
    hazard_probe *p = ctx;
    job *j = p->j;
    const trial *t[CAMPAIGN_MAX_PLUGINS];
    for (uint32_t k = 0; k < j->n_lanes; k++)
        if (trial_run(&j->lanes[k].probe, c, NULL, NULL, NULL) < 0)
            return -1;
    campaign_lane_trials(j, 1, t);
    hazard_find f = {.hazard = p->hazard};
    if (!crosscheck_outputs(t, j->n_lanes, c, NULL, find_hazard, &f))
        return 0;
    crosscheck_example(&f.x, ex);
    const char *names[CAMPAIGN_MAX_PLUGINS];
    campaign_lane_names(j->sh, names);
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

int campaign_minimise_hazards(job *j, const divcase *c)
{
    shared *sh = j->sh;
    case_result *res = j->res;
    for (uint32_t i = 0; i < j->n_hazards; i++) {
        const pending_hazard *h = &j->hazards[i];
        verdict_example ex;
        crosscheck_example(&h->x, &ex);
        hazard_probe p = {.j = j, .hazard = h->x.hazard};
        snprintf(p.given, sizeof p.given, "%s", h->given);
        minimise_target tg = {hazard_reproduces, &p, NULL, NULL};
        divcase m;
        char how[64], note[256];
        if (minimise_case(&tg, c, &ex, &m, how, sizeof how)) {
            fprintf(sh->err, "divergence %s: minimising a disagreement: %s\n", sh->kind,
                    probe_error(j));
            return -1;
        }
        snprintf(note, sizeof note,
                 "conformant implementations disagree here (fuzz seed %" PRIu64
                 ", case %.60s, minimised: %s)", sh->o->seed, c->id, how);
        long at = recorder_hazard(&res->rec, sh->set_name, h->x.hazard, &m, &ex, p.given, note);
        divcase_free(&m);
        if (at < 0) {
            fprintf(sh->err, "divergence %s: out of memory keeping a finding\n", sh->kind);
            return -1;
        }
        if (res->hazard_handle[h->x.hazard] < 0)
            res->hazard_handle[h->x.hazard] = at;
    }
    j->n_hazards = 0;
    return 0;
}
