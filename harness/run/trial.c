/* SPDX-License-Identifier: MIT */
#include "harness/run/trial.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"

void trial_init(trial *t, worker *w, const verdict_profile *profile)
{
    memset(t, 0, sizeof *t);
    t->w = w;
    t->profile = profile;
}

void trial_free(trial *t)
{
    if (!t)
        return;
    worker_result_free(&t->wr);
    dvg_free(t->expected);
    t->expected = NULL;
    t->expected_cap = 0;
}

int trial_run(trial *t, const divcase *c, verdict_tally *tally, verdict_sink sink, void *ctx)
{
    oracle_error why;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &t->rules, &why)) {
        snprintf(t->error, sizeof t->error, "case %s: %s", c->id, why.text);
        return -1;
    }
    memset(&t->plan, 0, sizeof t->plan);
    int rc = oracle_plan_shapes(&t->rules, &c->a_shape, &c->b_shape, &t->plan, &why);
    if (rc == ORACLE_EUSAGE) {
        snprintf(t->error, sizeof t->error, "case %s: %s", c->id, why.text);
        return -1;
    }
    t->valid = rc == ORACLE_OK;
    if (t->valid) {
        if (t->plan.count > t->expected_cap) {
            dvg_free(t->expected);
            t->expected = dvg_malloc(t->plan.count * sizeof *t->expected);
            t->expected_cap = t->expected ? t->plan.count : 0;
            if (!t->expected) {
                snprintf(t->error, sizeof t->error,
                         "case %s: out of memory for %" PRIu64 " expected elements", c->id,
                         t->plan.count);
                return -1;
            }
        }
        oracle_expect_tensor(&t->rules, &t->plan, c->a, c->b, t->expected);
    }
    if (worker_run(t->w, c, t->valid ? &t->plan.out : NULL, &t->wr)) {
        snprintf(t->error, sizeof t->error, "case %s: %s", c->id, worker_errmsg(t->w));
        return -1;
    }
    const worker_info *in = worker_get_info(t->w);
    if (in) {
        t->declared = in->deviations;
        t->int_div_zero_value = in->int_div_zero_value;
    }
    verdict_tally scratch;
    if (!tally) {
        memset(&scratch, 0, sizeof scratch);
        tally = &scratch;
    }
    int v = verdict_case(&t->rules, c, t->valid, &t->plan, t->expected, &t->wr, t->profile,
                         t->declared, t->int_div_zero_value, tally, sink, ctx);
    if (v < 0)
        snprintf(t->error, sizeof t->error, "case %s: recording a finding failed", c->id);
    return v;
}
