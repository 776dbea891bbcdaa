/* SPDX-License-Identifier: MIT */
/*
 * This file contains the JSON summary of a run: one object, schema
 * "divergence-report/2", in the HTML report's order: the claims held,
 * the certificates, the bugs (each with its signature ids), the findings
 * with their reproducers, counts, ULP histograms, the coverage of each
 * claim, the run and its plugins. (Schema 1 held each claim's coverage
 * under its certificate, before the findings, and the run first.)
 */
#include <inttypes.h>
#include <string.h>

#include "harness/judge/verdict.h"
#include "reports/escape.h"
#include "reports/model.h"
#include "reports/report_format.h"

/* "name": "text" (NULL: null), with a comma before it unless first. */
static void str(FILE *f, int *first, const char *name, const char *text)
{
    fprintf(f, "%s\"%s\": ", *first ? "" : ", ", name);
    esc_json(f, text);
    *first = 0;
}

static void num(FILE *f, int *first, const char *name, int has, int64_t v)
{
    if (has)
        fprintf(f, "%s\"%s\": %" PRId64, *first ? "" : ", ", name, v);
    else
        fprintf(f, "%s\"%s\": null", *first ? "" : ", ", name);
    *first = 0;
}

static void key(FILE *f, int *first, const report_key *k)
{
    str(f, first, "implementation", k->implementation);
    str(f, first, "variant", k->variant);
    str(f, first, "dtype", k->dtype);
}

/* The run's fields and its shards (inside the run object). */
static void run_fields(const report_model *m, FILE *f)
{
    const report_run *r = &m->run;
    char buf[32];
    int first = 1;
    num(f, &first, "id", 1, r->id);
    str(f, &first, "kind", r->kind);
    str(f, &first, "status", r->status);
    str(f, &first, "started_at", r->started_at);
    str(f, &first, "finished_at", r->finished_at[0] ? r->finished_at : NULL);
    str(f, &first, "profile", r->profile);
    /* The seed as text: 64 bits do not survive a JSON number. */
    snprintf(buf, sizeof buf, "%" PRIu64, (uint64_t)r->seed);
    str(f, &first, "seed", r->has_seed ? buf : NULL);
    num(f, &first, "shard_index", r->has_shard_index, r->shard_index);
    num(f, &first, "shard_count", r->has_shard_count, r->shard_count);
    str(f, &first, "host", r->host);
    str(f, &first, "cpu_features", r->cpu_features);
    str(f, &first, "divergence_version", r->divergence_version);
    str(f, &first, "build_flags", r->build_flags);
    str(f, &first, "sandbox", r->sandbox);
    str(f, &first, "args", r->args);
    str(f, &first, "database", m->db_path);
    fputs(", \"shards\": [", f);
    for (size_t i = 0; i < m->n_shards; i++) {
        const report_shard *h = &m->shards[i];
        first = 1;
        fputs(i ? ", {" : "{", f);
        num(f, &first, "index", 1, h->index);
        num(f, &first, "count", 1, h->count);
        str(f, &first, "status", h->status);
        str(f, &first, "host", h->host);
        str(f, &first, "started_at", h->started_at);
        str(f, &first, "finished_at", h->finished_at);
        fputc('}', f);
    }
    fputc(']', f);
}

static void plugins(const report_model *m, FILE *f)
{
    for (size_t i = 0; i < m->n_plugins; i++) {
        int first = 1;
        fputs(i ? ", {" : "{", f);
        str(f, &first, "name", m->plugins[i].name);
        str(f, &first, "version", m->plugins[i].version);
        str(f, &first, "sha256", m->plugins[i].sha256);
        str(f, &first, "path", m->plugins[i].path);
        fputc('}', f);
    }
}

static void certificates(const report_model *m, FILE *f)
{
    for (size_t i = 0; i < m->n_certs; i++) {
        const report_cert *c = &m->certs[i];
        int first = 1;
        fputs(i ? ",\n  {" : "\n  {", f);
        key(f, &first, &c->k);
        str(f, &first, "verdict", c->verdict);
        str(f, &first, "profile", c->profile);
        fprintf(f, ", \"held\": %s", c->held ? "true" : "false");
        num(f, &first, "cases", 1, c->cases);
        num(f, &first, "elements", 1, c->elements);
        fputc('}', f);
    }
}

/* What each claim's cases exercised, one object per claim. */
static void coverage(const report_model *m, FILE *f)
{
    for (size_t i = 0; i < m->n_coverage; i++) {
        const report_coverage *v = &m->coverage[i];
        const char *lists[REPORT_COVERAGE_LISTS];
        report_coverage_lists(v, lists);
        int first = 1;
        fputs(i ? ",\n  {" : "\n  {", f);
        key(f, &first, &v->k);
        num(f, &first, "cases", 1, v->cases);
        for (unsigned k = 0; k < REPORT_COVERAGE_LISTS; k++)
            str(f, &first, report_coverage_keys[k], lists[k]);
        fputc('}', f);
    }
}

static void counts(const report_model *m, FILE *f)
{
    for (size_t i = 0; i < m->n_counts; i++) {
        const report_count *c = &m->counts[i];
        int first = 1;
        fputs(i ? ",\n  {" : "\n  {", f);
        key(f, &first, &c->k);
        str(f, &first, "class", c->cls);
        num(f, &first, "elements", 1, c->elements);
        num(f, &first, "cases", 1, c->cases);
        fputc('}', f);
    }
}

static void histograms(const report_model *m, FILE *f)
{
    for (size_t i = 0; i < m->n_hists; i++) {
        const report_hist *h = &m->hists[i];
        int first = 1;
        fputs(i ? ",\n  {" : "\n  {", f);
        key(f, &first, &h->k);
        num(f, &first, "total", 1, h->total);
        fputs(", \"buckets\": [", f);
        for (int b = 0, n = 0; b < STORE_ULP_BUCKETS; b++) {
            if (!h->buckets[b])
                continue;
            char label[32];
            fprintf(f, "%s{\"bucket\": %d, \"ulps\": ", n++ ? ", " : "", b);
            esc_json(f, verdict_ulp_bucket_label((uint32_t)b, label, sizeof label));
            fprintf(f, ", \"elements\": %" PRId64 "}", h->buckets[b]);
        }
        fputs("]}", f);
    }
}

static void bugs(const report_model *m, FILE *f)
{
    for (size_t i = 0; i < m->n_bugs; i++) {
        const report_bug *b = &m->bugs[i];
        int first = 1;
        fputs(i ? ",\n  {" : "\n  {", f);
        num(f, &first, "bug_id", 1, b->id);
        str(f, &first, "implementation", b->implementation);
        str(f, &first, "class", b->cls);
        str(f, &first, "kind", b->kind);
        str(f, &first, "locus", b->locus);
        num(f, &first, "signatures", 1, (int64_t)b->n_members);
        num(f, &first, "new_signatures", 1, (int64_t)b->n_new);
        fprintf(f, ", \"emulation_only\": %s", b->emulation_only ? "true" : "false");
        fputs(", \"signature_ids\": [", f);
        for (size_t k = 0; k < b->n_members; k++)
            fprintf(f, "%s%" PRId64, k ? ", " : "", m->findings[b->members[k]].signature_id);
        fputs("]}", f);
    }
}

/* Reproducer p, the k-th of its finding (of dtype `dtype`, a tag). */
static void reproducer(const report_model *m, FILE *f, const report_repro *p, size_t k,
                       const char *dtype)
{
    char buf[8400];
    int first = 1;
    fputs(k ? ", {" : "{", f);
    num(f, &first, "id", 1, p->id);
    num(f, &first, "run_id", 1, p->run_id);
    str(f, &first, "case_id", p->case_id);
    str(f, &first, "source", p->source);
    str(f, &first, "attrs", p->attrs);
    str(f, &first, "a_shape", p->a_shape);
    str(f, &first, "b_shape", p->b_shape);
    num(f, &first, "element", p->has_element, p->element);
    str(f, &first, "expected", p->expected);
    str(f, &first, "actual", p->actual);
    num(f, &first, "ulps", p->has_ulps, p->ulps);
    str(f, &first, "note", p->note);
    num(f, &first, "a_bytes", 1, p->a_bytes);
    num(f, &first, "b_bytes", 1, p->b_bytes);
    /* the operands as values first (report_operand_values), bytes after */
    str(f, &first, "a_values", report_operand_values(dtype, p->a_hex, p->a_bytes, buf, sizeof buf));
    str(f, &first, "b_values", report_operand_values(dtype, p->b_hex, p->b_bytes, buf, sizeof buf));
    str(f, &first, "a_hex_prefix", p->a_hex);
    str(f, &first, "b_hex_prefix", p->b_hex);
    str(f, &first, "replay", report_replay_command(m, p->id, buf, sizeof buf));
    fputc('}', f);
}

static void findings(const report_model *m, FILE *f)
{
    for (size_t i = 0; i < m->n_findings; i++) {
        const report_finding *x = &m->findings[i];
        int first = 1;
        fputs(i ? ",\n  {" : "\n  {", f);
        num(f, &first, "signature_id", 1, x->signature_id);
        num(f, &first, "bug_id", x->bug_id != 0, x->bug_id);
        key(f, &first, &x->k);
        str(f, &first, "class", x->cls);
        str(f, &first, "operand_class", x->operand_class);
        str(f, &first, "status", x->status);
        fprintf(f, ", \"new\": %s, \"reopened\": %s", x->is_new ? "true" : "false",
                x->reopened ? "true" : "false");
        fprintf(f, ", \"emulation_only\": %s", x->emulation_only ? "true" : "false");
        num(f, &first, "occurrences_in_run", 1, x->occurrences_run);
        num(f, &first, "occurrences", 1, x->occurrences_total);
        num(f, &first, "first_run_id", 1, x->first_run_id);
        num(f, &first, "reproducers_dropped", 1, x->reproducers_dropped);
        str(f, &first, "ranges", x->ranges);
        fputs(", \"reproducers\": [", f);
        for (size_t k = 0; k < x->n_repros; k++)
            reproducer(m, f, &x->repros[k], k, x->k.dtype);
        fputs("]}", f);
    }
}

void report_json(const report_model *m, FILE *f)
{
    size_t held, total;
    char why[2048];
    report_claim_totals(m, &held, &total);
    /* first: whether the run is complete (null) or what it lacks */
    fputs("{\"not_complete\": ", f);
    esc_json(f, report_not_complete(m, why, sizeof why));
    fprintf(f, ", \"schema\": \"divergence-report/2\", \"claims_held\": %zu, \"claims\": %zu,\n"
               " \"certificates\": [", held, total);
    certificates(m, f);
    fputs("],\n \"bugs\": [", f);
    bugs(m, f);
    fputs("],\n \"findings\": [", f);
    findings(m, f);
    fputs("],\n \"counts\": [", f);
    counts(m, f);
    fputs("],\n \"ulp_histograms\": [", f);
    histograms(m, f);
    fputs("],\n \"coverage\": [", f);
    coverage(m, f);
    fputs("],\n \"run\": {", f);
    run_fields(m, f);
    fputs("},\n \"plugins\": [", f);
    plugins(m, f);
    fputs("]}\n", f);
}
