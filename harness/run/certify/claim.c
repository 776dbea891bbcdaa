/* SPDX-License-Identifier: MIT */
/*
 * This file contains the commit side of certify's policy: each unit's
 * case records folded into their claim in case order, as one job judging
 * the claim's cases one after the other would have added them - counts,
 * coverage, one reproducer per class, the findings under the claim's
 * limits, its first narrowed crash - and its stop rules (max_hangs hangs,
 * CERTIFY_SHAPE_STOP incomplete shape cases) applied there; a finished
 * claim's findings, counts and certificate recorded in one transaction and
 * its certificate printed; and the progress line.
 */
#include "harness/run/certify/certify_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static void claim_begin(certify *cf)
{
    claim_state *a = &cf->acc;
    memset(&a->tally, 0, sizeof a->tally);
    coverage_clear(&a->coverage);
    memset(a->first, 0, sizeof a->first);
    recorder_clear(&a->rec);
    a->narrowed = a->hung = 0;
    a->incomplete = 0;
    a->shapes_done = 0;
    memset(a->contexts, 0, sizeof a->contexts);
    memset(a->cpu_cases, 0, sizeof a->cpu_cases);
    memset(a->cpu_failed, 0, sizeof a->cpu_failed);
    memset(a->cpu_classes, 0, sizeof a->cpu_classes);
    memset(a->cpu_unconfirmed, 0, sizeof a->cpu_unconfirmed);
    memset(a->cpu_fake_classes, 0, sizeof a->cpu_fake_classes);
    a->open = 1;
}

/* The classes of t's findings, as bits. */
static uint64_t class_bits(const verdict_tally *t)
{
    uint64_t bits = 0;
    for (int k = 1; k < ORACLE_CLASS_COUNT && k < 64; k++)
        if (t->counts[k])
            bits |= UINT64_C(1) << k;
    return bits;
}

/* Takes sighting i of the unit's recorder into the claim (as the judge's
 * sink did when a claim ran on one job). 0 or -1 (out of memory). */
static int take(certify *cf, unit_result *res, size_t i)
{
    const verdict_example *ex = recorder_example(&res->rec, i);
    if (!cf->acc.first[ex->cls].elements)
        cf->acc.first[ex->cls] = *ex;
    if (recorder_take(&cf->acc.rec, &res->rec, i) < 0) {
        fprintf(cf->err, "divergence certify: out of memory holding a finding\n");
        return -1;
    }
    return 0;
}

/* Folds case k of a unit into the claim; *at walks the unit's sightings.
 * 0 or -1. */
static int fold(certify *cf, unit_result *res, size_t k, size_t *at)
{
    claim_state *a = &cf->acc;
    const case_record *rec = &res->cases[k];
    size_t n = recorder_count(&res->rec);
    while (*at < n && recorder_tag(&res->rec, *at) < 2 * k)
        (*at)++;
    if (a->hung || (rec->stage == STAGE_SHAPES && a->incomplete >= CERTIFY_SHAPE_STOP))
        return 0; /* the claim stopped before this case */
    /* Under an emulated CPU, findings of a class the emulator can fake
     * are not counted (their sightings say "emulation-only, unconfirmed"). */
    verdict_tally t = rec->tally, fake;
    if (cpum_get(cf->cpu[rec->cpu])->qemu && !cf->forced[rec->cpu][0] &&
        verdict_take_emulation_fakes(&t, &fake)) {
        a->cpu_unconfirmed[rec->cpu]++;
        a->cpu_fake_classes[rec->cpu] |= class_bits(&fake);
    }
    a->cpu_cases[rec->cpu]++;
    if (verdict_tally_failed(&t)) {
        a->cpu_failed[rec->cpu]++;
        a->cpu_classes[rec->cpu] |= class_bits(&t);
    }
    /* The claim's case and element counts are its first CPU's (the same
     * cases again under another CPU are on that CPU's line), its findings
     * every CPU's. */
    if (rec->cpu) {
        t.cases = 0;
        t.elements = 0;
    }
    verdict_tally_add(&a->tally, &t);
    /* A case judged under two CPUs is one case of the claim: the cases a
     * class occurred in stay within the claim's (the sample is a subset
     * of the first CPU's plan). */
    for (int c = 1; rec->cpu && c < ORACLE_CLASS_COUNT; c++)
        if (a->tally.class_cases[c] > a->tally.cases)
            a->tally.class_cases[c] = a->tally.cases;
    if (rec->cpu == 0)
        coverage_merge(&a->coverage, &rec->coverage);
    for (int c = 0; c < CTX_COUNT; c++)
        a->contexts[c] += rec->contexts[c];
    for (; *at < n && recorder_tag(&res->rec, *at) == 2 * k; (*at)++)
        if (take(cf, res, *at))
            return -1;
    if (rec->narrow && !a->narrowed) { /* one narrowed reproducer per claim */
        a->narrowed = 1;
        for (; *at < n && recorder_tag(&res->rec, *at) == 2 * k + 1; (*at)++) {
            /* the certificate's example of a crash names the operands
             * that crash it: the narrowed pair's note */
            const verdict_example *ex = recorder_example(&res->rec, *at);
            a->first[ex->cls] = *ex;
            if (take(cf, res, *at))
                return -1;
        }
    }
    if (rec->stage == STAGE_SHAPES) {
        a->incomplete += (uint32_t)rec->incomplete;
        if (rec->cpu == 0)
            a->shapes_done = rec->index + 1;
    }
    if (a->tally.counts[ORACLE_CLASS_HANG] >= cf->o->max_hangs)
        a->hung = 1;
    return 0;
}

/* Records what the claim's cases exercised (docs/store.md, "coverage"). */
static int record_coverage(certify *cf, const certify_claim *cl)
{
    char ranks[64], inner[512], patterns[256], tiers[128], offsets[512];
    coverage_format(&cf->acc.coverage, ranks, sizeof ranks, inner, sizeof inner, patterns,
                    sizeof patterns, tiers, sizeof tiers);
    coverage_format_offsets(&cf->acc.coverage, offsets, sizeof offsets);
    store_coverage c = {cf->acc.coverage.cases, ranks, inner, patterns, tiers, "", offsets};
    return store_record_coverage(cf->db, cf->run_id, cf->info->name, cl->variant, cl->dtype, &c);
}

/* The claim's findings, counts, histogram, certificate and coverage in
 * one transaction; the findings of its triple this run did not see are
 * fixed (store_mark_fixed). 0, or -1 (the store's error printed). */
static int record_claim(certify *cf, const certify_claim *cl, const char *cert)
{
    const verdict_tally *t = &cf->acc.tally;
    const char *name = cf->info->name;
    if (store_begin(cf->db) ||
        recorder_write(&cf->acc.rec, cf->db, cf->run_id, &cf->new_signatures))
        goto fail;
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++) {
        uint64_t n = k == 0 ? t->elements : t->counts[k] + t->accepted[k];
        if (n && store_record_counts(cf->db, cf->run_id, name, cl->variant, cl->dtype,
                                     (uint32_t)k, n, k == 0 ? t->cases : t->class_cases[k]))
            goto fail;
    }
    if (store_record_ulp_histogram(cf->db, cf->run_id, name, cl->variant, cl->dtype, t->ulp_hist,
                                   VERDICT_ULP_BUCKETS) ||
        store_record_certificate(cf->db, cf->run_id, name, cl->variant, cl->dtype, cert,
                                 cf->o->profile.name, t->cases, t->elements) ||
        store_mark_fixed(cf->db, cf->run_id, name, cl->variant, cl->dtype, NULL) ||
        record_coverage(cf, cl) || store_commit(cf->db))
        goto fail;
    return 0;
fail:
    fprintf(cf->err, "divergence certify: %s\n", store_errmsg(cf->db));
    store_rollback(cf->db);
    return -1;
}

static void print_reproducers(certify *cf, uint32_t dtype)
{
    const verdict_tally *t = &cf->acc.tally;
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++) {
        /* refusals of undefined input are accepted, and named */
        uint64_t n = k == ORACLE_CLASS_REFUSED_UNDEFINED ? t->accepted[k] : t->counts[k];
        if (!n)
            continue;
        const verdict_example *ex = &cf->acc.first[k];
        fprintf(cf->out, "    %-26s %10" PRIu64 "  ", oracle_class_name((uint32_t)k), n);
        if (ex->index != UINT64_MAX && ex->elements) {
            char ops[2 * VERDICT_TEXT_MAX + 4], want[128], got[VERDICT_ACTUAL_MAX];
            verdict_operands_text(dtype, ex->a, ex->b, ops, sizeof ops);
            verdict_elem_text(dtype, &ex->expected, want, sizeof want);
            verdict_actual_text(dtype, ex, got, sizeof got);
            fprintf(cf->out, "e.g. %s: expected %s, got %s", ops, want, got);
            if (k == ORACLE_CLASS_WRONG_VALUE && t->max_ulps)
                fprintf(cf->out, " (max %" PRIu64 " ulp)", t->max_ulps);
            if (k == ORACLE_CLASS_EARLIER_CALLS)
                fprintf(cf->out, "; %s", ex->note);
        } else if (ex->elements) {
            fprintf(cf->out, "%s", ex->note);
        }
        int64_t id = recorder_first_of_class(&cf->acc.rec, (uint32_t)k);
        if (id)
            fprintf(cf->out, "  [" STORE_REF_SIGNATURE "%" PRId64 "]", id);
        fputc('\n', cf->out);
    }
}

/* The notes under a claim's certificate line. */
static void print_notes(certify *cf, const certify_claim *cl, int shapes_stopped)
{
    const verdict_tally *t = &cf->acc.tally;
    const oracle_variant *v = oracle_variant_get(cl->variant);
    int is_float = oracle_dtype(cl->dtype)->kind == DVG_KIND_FLOAT;
    if (shapes_stopped)
        fprintf(cf->out, "    note: shape paths stopped after %u cases the plugin did not complete "
                         "(%zu of them judged)\n", CERTIFY_SHAPE_STOP, cf->acc.shapes_done);
    if (t->any_inf_positive + t->any_inf_negative)
        fprintf(cf->out, "    note: x/0 'inf' without a sign: %" PRIu64 " times +inf, %" PRIu64
                         " times -inf\n", t->any_inf_positive, t->any_inf_negative);
    if (t->unspecified_not_preferred && v->float_div_zero == ORACLE_FDZ_UNDEFINED && is_float)
        fprintf(cf->out, "    note: %" PRIu64 " undefined x/0 results differ from IEEE 754\n",
                t->unspecified_not_preferred);
    if ((cf->info->deviations & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) && is_float &&
        t->subnormal_results && !t->accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT])
        fprintf(cf->out, "    note: declares flush-to-zero but delivered all %" PRIu64
                         " subnormal results\n", t->subnormal_results);
    if (t->cache_bytes)
        fprintf(cf->out, "    note: memory grows %" PRIu64 "-%" PRIu64 " KiB per new shape, up to %"
                         PRIu64 " MiB in a worker life of %" PRIu64 " calls: a cache (%u "
                         "identical calls added nothing); a failure past %" PRIu64 " MiB\n",
                t->cache_lo >> 10, t->cache_hi >> 10, t->cache_bytes >> 20, t->cache_calls,
                LEAK_REPEATS, LEAK_CACHE_MAX_BYTES >> 20);
}

/* Writes the class names of `bits` into buf ("wrong-value, crash"). */
static const char *class_names(uint64_t bits, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 1; k < ORACLE_CLASS_COUNT && k < 64 && at < cap; k++)
        if (bits & (UINT64_C(1) << k))
            at += (size_t)snprintf(buf + at, cap - at, "%s%s", at ? ", " : "",
                                   oracle_class_name((uint32_t)k));
    return buf;
}

/* Under a claim judged under several CPUs: a line per CPU, what it found
 * (and what the emulator may have faked). */
static void print_cpus(certify *cf)
{
    const claim_state *a = &cf->acc;
    if (cf->n_cpu < 2 && !cpum_get(cf->cpu[0])->qemu)
        return;
    for (uint32_t k = 0; k < cf->n_cpu; k++) {
        const cpum_model *m = cpum_get(cf->cpu[k]);
        char classes[256];
        int emulated = m->qemu && !cf->forced[k][0];
        fprintf(cf->out, "    cpu %-10s %-9s %6" PRIu64 " cases: ", m->name,
                emulated ? "emulated" : m->qemu ? "forced" : "", a->cpu_cases[k]);
        if (a->cpu_failed[k])
            fprintf(cf->out, "%" PRIu64 " with findings (%s)%s", a->cpu_failed[k],
                    class_names(a->cpu_classes[k], classes, sizeof classes),
                    k && !a->cpu_failed[0] && emulated ? ", seen only under emulation"
                    : k && !a->cpu_failed[0] && m->qemu ? ", seen only at that level (native)"
                                                        : "");
        else if (!a->cpu_cases[k])
            fprintf(cf->out, "not judged (no case reached it)");
        else
            fprintf(cf->out, "holds");
        if (a->cpu_unconfirmed[k])
            fprintf(cf->out, "; %" PRIu64 " emulation-only, unconfirmed (%s: not counted)",
                    a->cpu_unconfirmed[k],
                    class_names(a->cpu_fake_classes[k], classes, sizeof classes));
        fputc('\n', cf->out);
    }
}

/* A judged claim is done: recorded and printed. 0 or -1. */
static int claim_finish(certify *cf, const certify_claim *cl)
{
    claim_state *a = &cf->acc;
    const certify_options *o = cf->o;
    if (a->hung) {
        size_t used = strlen(a->first[ORACLE_CLASS_HANG].note);
        snprintf(a->first[ORACLE_CLASS_HANG].note + used,
                 sizeof a->first[ORACLE_CLASS_HANG].note - used,
                 " (claim stopped after %u hangs)", o->max_hangs);
    }
    char buf[96];
    const char *cert =
        verdict_certificate(&a->tally, &o->profile, cf->info->deviations, 0, buf, sizeof buf);
    if (record_claim(cf, cl, cert))
        return -1;
    a->open = 0;
    if (o->progress)
        fprintf(cf->err, "\r%60s\r", "");
    fprintf(cf->out, "  %-18s %-5s %-40s %6" PRIu64 " cases %9" PRIu64 " elements\n",
            oracle_variant_get(cl->variant)->name, oracle_dtype_tag(cl->dtype), cert,
            a->tally.cases, a->tally.elements);
    print_notes(cf, cl, !a->hung && a->shapes_done < cl->paths.n);
    contexts_print(cf, cl);
    print_cpus(cf);
    print_reproducers(cf, cl->dtype);
    int holds = !strncmp(cert, "CONFORMANT", 10);
    cf->claims_held += (uint32_t)holds;
    if (!holds)
        cf->status = 1;
    return 0;
}

/* A claim that is not judged: its line. */
static void claim_line(certify *cf, const certify_claim *cl)
{
    const char *vname = oracle_variant_get(cl->variant)->name, *tag = oracle_dtype_tag(cl->dtype);
    if (cl->kind == CLAIM_NO_DTYPE) {
        fprintf(cf->out, "  %-18s %-5s %-40s (the variant's type list has no %s)\n", vname, tag,
                "NONCONFORMANT", tag);
        cf->status = 1;
        return;
    }
    fprintf(cf->out, "  %-18s %-5s %-40s %6" PRIu64 " cases %9" PRIu64 " elements (recorded "
                     "before the run was resumed)\n",
            vname, tag, cl->had.verdict, cl->had.cases, cl->had.elements);
    int holds = !strncmp(cl->had.verdict, "CONFORMANT", 10);
    cf->claims_held += (uint32_t)holds;
    if (!holds)
        cf->status = 1;
}

int certify_unit_commit(void *ctx, uint64_t u, void *result)
{
    certify *cf = ctx;
    const certify_unit *cu = &cf->units[u];
    certify_claim *cl = &cf->claims[cu->claim];
    unit_result *res = result;
    int rc = 0;
    if (cl->kind != CLAIM_JUDGE) {
        claim_line(cf, cl);
    } else {
        if (cu->first)
            claim_begin(cf);
        size_t at = 0;
        for (size_t k = 0; k < res->n && rc == 0; k++) {
            rc = fold(cf, res, k, &at);
            if (cf->acc.hung || cf->acc.incomplete >= CERTIFY_SHAPE_STOP)
                claim_stop_at(cl, cu->from + k + 1); /* later units need not run */
        }
        cf->done_cases += cu->to - cu->from;
        if (rc == 0 && cu->last)
            rc = claim_finish(cf, cl);
    }
    if (cu->last)
        cf->claims_done++;
    certify_unit_discard(cf, res);
    return rc;
}

int certify_store_held(certify *cf)
{
    if (!cf->acc.open)
        return 0;
    if (store_begin(cf->db) ||
        recorder_write(&cf->acc.rec, cf->db, cf->run_id, &cf->new_signatures) ||
        store_commit(cf->db)) {
        fprintf(cf->err, "divergence certify: %s\n", store_errmsg(cf->db));
        store_rollback(cf->db);
        return -1;
    }
    cf->acc.open = 0;
    return 0;
}

void certify_tick(void *ctx, int last)
{
    certify *cf = ctx;
    if (last || cf->claims_done >= cf->n_claims) {
        fprintf(cf->err, "\r%60s\r", "");
        fflush(cf->err);
        return;
    }
    const certify_claim *cl = &cf->claims[cf->claims_done];
    fprintf(cf->err, "\r[%u/%u] %-18s %-5s %6" PRIu64 "/%-6" PRIu64 " cases", cf->claims_done + 1,
            cf->n_claims, oracle_variant_get(cl->variant)->name, oracle_dtype_tag(cl->dtype),
            cf->done_cases, cf->total_cases);
    fflush(cf->err);
}
