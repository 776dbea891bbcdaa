/* SPDX-License-Identifier: MIT */
/*
 * This file contains the Markdown summary (CommonMark with GitHub
 * tables), in the HTML report's order: the certificate matrix, the bugs
 * with their signatures underneath, the findings, counts, ULP histograms,
 * the coverage of each claim (without the lists no claim has) and the
 * run. No raw markup: Markdown folds nothing.
 */
#include <inttypes.h>
#include <string.h>

#include "harness/judge/verdict.h"
#include "reports/escape.h"
#include "reports/model.h"
#include "reports/report_format.h"

/* A fenced code block holding `text` as it is: the fence is longer than
 * any run of backticks in it. */
static void code_block(FILE *f, const char *info, const char *text)
{
    size_t run = 0, longest = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence = longest < 3 ? 3 : longest + 1;
    for (size_t i = 0; i < fence; i++)
        fputc('`', f);
    fprintf(f, "%s\n", info);
    esc_plain(f, text); /* no control character can reach the reader */
    fputc('\n', f);
    for (size_t i = 0; i < fence; i++)
        fputc('`', f);
    fputs("\n\n", f);
}

static void matrix(const report_model *m, FILE *f, const char *impl)
{
    const char *rows[REPORT_MAX_AXIS], *cols[REPORT_MAX_AXIS];
    size_t nr, nc;
    report_matrix_axes(m, impl, rows, &nr, cols, &nc, REPORT_MAX_AXIS);
    if (!nr) {
        fputs("No certificate.\n\n", f);
        return;
    }
    fputs("| variant |", f);
    for (size_t j = 0; j < nc; j++) {
        fputc(' ', f);
        esc_md(f, cols[j]);
        fputs(" |", f);
    }
    fputs("\n| --- |", f);
    for (size_t j = 0; j < nc; j++)
        fputs(" --- |", f);
    fputc('\n', f);
    for (size_t i = 0; i < nr; i++) {
        fputs("| ", f);
        esc_md(f, rows[i]);
        fputs(" |", f);
        for (size_t j = 0; j < nc; j++) {
            const report_cert *c = report_find_cert(m, impl, rows[i], cols[j]);
            fputc(' ', f);
            if (!c) {
                fputs("-", f);
            } else {
                fputs(c->held ? "" : "**", f);
                esc_md(f, c->verdict);
                fputs(c->held ? "" : "**", f);
            }
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    fputs("\nProfile: ", f);
    /* One profile per run in practice; name each distinct one. */
    const char *seen[8];
    size_t n_seen = 0;
    for (size_t i = 0; i < m->n_certs; i++) {
        const char *p = m->certs[i].profile;
        size_t j = 0;
        while (j < n_seen && strcmp(seen[j], p))
            j++;
        if (j < n_seen || n_seen == 8 || strcmp(m->certs[i].k.implementation, impl))
            continue;
        seen[n_seen++] = p;
        fputs(n_seen > 1 ? ", " : "", f);
        esc_md(f, p);
    }
    fputs(".\n\n", f);
}

/* Table cells "| x " for each of the n texts (Markdown-escaped). */
static void cells(FILE *f, const char *const *texts, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        fputs("| ", f);
        esc_md(f, texts[k]);
        fputc(' ', f);
    }
}

/* The title, the claims that hold and the run's line. */
static void header(const report_model *m, FILE *f, const char *const *impls, size_t n_impls)
{
    const report_run *r = &m->run;
    size_t held, total;
    char buf[8400];
    report_claim_totals(m, &held, &total);
    const char *why = report_not_complete(m, buf, sizeof buf);
    if (why) { /* before anything else: the claims below are not all */
        fputs("> **", f);
        esc_md(f, why);
        fputs("**\n\n", f);
    }
    fputs("# Divergence certificate:", f);
    for (size_t i = 0; i < n_impls; i++) {
        fputs(i ? ", " : " ", f);
        esc_md(f, impls[i]);
        fputc(' ', f);
        esc_md(f, report_version_of(m, impls[i]));
    }
    fprintf(f, "\n\n**%zu of %zu claims hold.** Run %" PRId64 " (", held, total, r->id);
    esc_md(f, r->kind);
    fputs(", ", f);
    esc_md(f, r->status);
    fputs("), profile ", f);
    esc_md(f, r->profile);
    if (r->has_seed)
        fprintf(f, ", seed %" PRIu64, (uint64_t)r->seed);
    report_shard_label(m, buf, sizeof buf);
    if (buf[0]) {
        fputs(", ", f);
        esc_md(f, buf);
    }
    fputs(", started ", f);
    esc_md(f, r->started_at);
    fputs(" on ", f);
    esc_md(f, r->host);
    fputs(".\n\n## Certificate matrix\n\n", f);
    for (size_t i = 0; i < n_impls; i++) {
        if (n_impls > 1) {
            fputs("### ", f);
            esc_md(f, impls[i]);
            fputs("\n\n", f);
        }
        matrix(m, f, impls[i]);
    }
}

static void coverage(const report_model *m, FILE *f)
{
    fputs("\n## Coverage\n\n", f);
    if (!m->n_coverage) {
        fputs("No coverage recorded for this run (certify records it).\n\n", f);
        return;
    }
    /* One row per claim, without the lists no claim has (Markdown folds
     * nothing: it holds no raw markup). */
    unsigned used = report_coverage_used(m);
    fputs("| implementation | variant | dtype | cases |", f);
    for (unsigned k = 0; k < REPORT_COVERAGE_LISTS; k++)
        if (used & (1u << k))
            fprintf(f, " %s |", report_coverage_names[k]);
    fputs("\n| --- | --- | --- | ---: |", f);
    for (unsigned k = 0; k < REPORT_COVERAGE_LISTS; k++)
        if (used & (1u << k))
            fputs(" --- |", f);
    fputc('\n', f);
    for (size_t i = 0; i < m->n_coverage; i++) {
        const report_coverage *c = &m->coverage[i];
        const char *keys[] = {c->k.implementation, c->k.variant, c->k.dtype};
        cells(f, keys, 3);
        fprintf(f, "| %" PRId64 " ", c->cases);
        const char *lists[REPORT_COVERAGE_LISTS];
        report_coverage_lists(c, lists);
        for (unsigned k = 0; k < REPORT_COVERAGE_LISTS; k++)
            if (used & (1u << k))
                cells(f, &lists[k], 1);
        fputs("|\n", f);
    }
    fputc('\n', f);
}

static void counts(const report_model *m, FILE *f)
{
    fputs("\n## Counts per difference class\n\n", f);
    if (!m->n_counts) {
        fputs("No counts.\n", f);
        return;
    }
    fputs("| implementation | variant | dtype | class | elements | cases |\n"
          "| --- | --- | --- | --- | ---: | ---: |\n", f);
    for (size_t i = 0; i < m->n_counts; i++) {
        const report_count *c = &m->counts[i];
        const char *keys[4] = {c->k.implementation, c->k.variant, c->k.dtype, c->cls};
        cells(f, keys, 4);
        fprintf(f, "| %" PRId64 " | %" PRId64 " |\n", c->elements, c->cases);
    }
}

static void histograms(const report_model *m, FILE *f)
{
    fputs("\n## ULP-error histograms\n\n", f);
    size_t shown = 0;
    for (size_t i = 0; i < m->n_hists; i++) {
        const report_hist *h = &m->hists[i];
        if (!h->total)
            continue;
        fputs(shown++ ? "" : "| implementation | variant | dtype | wrong values by ULP distance |\n"
                             "| --- | --- | --- | --- |\n", f);
        const char *keys[3] = {h->k.implementation, h->k.variant, h->k.dtype};
        cells(f, keys, 3);
        fputs("|", f);
        for (int b = 0, first = 1; b < STORE_ULP_BUCKETS; b++) {
            if (!h->buckets[b])
                continue;
            char label[32];
            fprintf(f, "%s%s ulp: %" PRId64, first ? " " : ", ",
                    verdict_ulp_bucket_label((uint32_t)b, label, sizeof label), h->buckets[b]);
            first = 0;
        }
        fputs(" |\n", f);
    }
    if (!shown)
        fputs("No wrong value.\n", f);
}

/* "VARIANT DTYPE, CLASS[, operands OC]" of a finding. */
static void finding_key(FILE *f, const report_finding *x)
{
    esc_md(f, x->k.variant);
    fputc(' ', f);
    esc_md(f, x->k.dtype);
    fputs(", ", f);
    esc_md(f, x->cls);
    if (x->operand_class[0]) {
        fputs(", operands ", f);
        esc_md(f, x->operand_class);
    }
}

static void bugs(const report_model *m, FILE *f)
{
    fprintf(f, "## Bugs (%zu bugs, %zu signatures)\n\n", report_bugs_confirmed(m),
            report_findings_confirmed(m));
    if (!report_bugs_confirmed(m))
        fputs("No bug in this run.\n", f);
    for (size_t i = 0; i < m->n_bugs; i++) {
        const report_bug *b = &m->bugs[i];
        if (b->emulation_only)
            continue; /* the section seen only under emulation's */
        fprintf(f, "- **Bug %" PRId64 "**: ", b->id);
        const char *what[] = {b->implementation, b->cls, b->kind, b->locus};
        for (size_t k = 0; k < 4; k++) {
            fputs(k ? ", " : "", f);
            esc_md(f, what[k]);
        }
        fprintf(f, ": %zu signatures (%zu new)\n", b->n_members, b->n_new);
        for (size_t k = 0; k < b->n_members; k++) {
            const report_finding *x = &m->findings[b->members[k]];
            if (k == 24 && b->n_members > 25) {
                fprintf(f, "  - and %zu more\n", b->n_members - k);
                break;
            }
            fprintf(f, "  - signature " STORE_REF_SIGNATURE "%" PRId64 ": ", x->signature_id);
            finding_key(f, x);
            fputc('\n', f);
        }
    }
}

static void reproducer(FILE *f, const report_repro *p)
{
    fprintf(f, "- reproducer " STORE_REF_REPRODUCER "%" PRId64 " (run %" PRId64 "): case ",
            p->id, p->run_id);
    esc_md(f, p->case_id);
    fputs(", A ", f);
    esc_md(f, p->a_shape);
    fputs(" / B ", f);
    esc_md(f, p->b_shape);
    if (p->has_element)
        fprintf(f, ", element %" PRId64, p->element);
    if (p->expected) {
        fputs(": expected ", f);
        esc_md(f, p->expected);
    }
    if (p->actual) {
        fputs(", actual ", f);
        esc_md(f, p->actual);
    }
    if (p->has_ulps)
        fprintf(f, " (%" PRId64 " ulp)", p->ulps);
    if (p->note) {
        fputs("; ", f);
        esc_md(f, p->note);
    }
    fputc('\n', f);
}

/* The findings that are emulation-only (1) or not (0), under their title. */
static void findings(const report_model *m, FILE *f, int emulated)
{
    char buf[8400];
    size_t confirmed = report_findings_confirmed(m);
    if (!emulated) {
        fprintf(f, "\n## Findings (%zu signatures)\n\n", confirmed);
    } else if (confirmed < m->n_findings) {
        fprintf(f, "\n## Seen only under emulation, not bugs (%zu signatures)\n\n",
                m->n_findings - confirmed);
        esc_md(f, report_emulation_only_text);
        fputs("\n\n", f);
    }
    for (size_t i = 0; i < m->n_findings; i++) {
        const report_finding *x = &m->findings[i];
        if (x->emulation_only != emulated)
            continue;
        fprintf(f, "### Signature " STORE_REF_SIGNATURE "%" PRId64 ": ", x->signature_id);
        esc_md(f, x->cls);
        fputs(", ", f);
        esc_md(f, x->k.variant);
        fputc(' ', f);
        esc_md(f, x->k.dtype);
        if (x->operand_class[0]) {
            fputs(", operands ", f);
            esc_md(f, x->operand_class);
        }
        fputs(x->is_new ? " (new)\n\n" : x->reopened ? " (reopened: it was fixed)\n\n" : "\n\n",
              f);
        fputs("- ", f);
        esc_md(f, x->k.implementation);
        fprintf(f, ": %" PRId64 " times in this run, %" PRId64 " in all, first found by run %" PRId64
                   ", status ",
                x->occurrences_run, x->occurrences_total, x->first_run_id);
        esc_md(f, x->status);
        fputc('\n', f);
        if (x->ranges) {
            fputs("- ranges (divergence bisect): ", f);
            esc_md(f, x->ranges);
            fputc('\n', f);
        }
        for (size_t k = 0; k < x->n_repros; k++)
            reproducer(f, &x->repros[k]);
        fputc('\n', f);
        if (x->n_repros)
            code_block(f, "sh", report_replay_command(m, x->repros[0].id, buf, sizeof buf));
    }
}

/* The run's record, its plugins and shards. */
static void run_section(const report_model *m, FILE *f)
{
    const report_run *r = &m->run;
    fputs("## Run\n\n", f);
    struct {
        const char *name, *value;
    } items[] = {{"kind", r->kind},         {"status", r->status},
                 {"started", r->started_at}, {"finished", r->finished_at},
                 {"host", r->host},          {"divergence", r->divergence_version},
                 {"build", r->build_flags},  {"sandbox", r->sandbox},
                 {"database", m->db_path},
                 {"command", r->args},       {"CPU features", r->cpu_features}};
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        fprintf(f, "- %s: ", items[i].name);
        esc_md(f, items[i].value);
        fputc('\n', f);
    }
    for (size_t i = 0; i < m->n_plugins; i++) {
        fputs("- plugin: ", f);
        esc_md(f, m->plugins[i].name);
        fputc(' ', f);
        esc_md(f, m->plugins[i].version);
        fputs(", SHA-256 ", f);
        esc_md(f, m->plugins[i].sha256);
        fputs(", ", f);
        esc_md(f, m->plugins[i].path);
        fputc('\n', f);
    }
    for (size_t i = 0; i < m->n_shards; i++) {
        fprintf(f, "- shard %" PRId64 "/%" PRId64 ": ", m->shards[i].index, m->shards[i].count);
        esc_md(f, m->shards[i].status);
        fputs(" on ", f);
        esc_md(f, m->shards[i].host);
        fputs(", started ", f);
        esc_md(f, m->shards[i].started_at);
        fputc('\n', f);
    }
}

void report_markdown(const report_model *m, FILE *f)
{
    const char *impls[64];
    size_t n_impls = report_implementations(m, impls, 64);
    header(m, f, impls, n_impls);
    bugs(m, f);
    findings(m, f, 0);
    findings(m, f, 1);
    counts(m, f);
    histograms(m, f);
    coverage(m, f);
    run_section(m, f);
}
