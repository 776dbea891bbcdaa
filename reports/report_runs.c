/* SPDX-License-Identifier: MIT */
/*
 * This file contains the report of several runs (`divergence report
 * --runs R1,R2,...` or `--latest-per-plugin`, reports/report.h): the run
 * choice of --latest-per-plugin, the loading of one report model per run
 * (reports/model.h), and the three forms of the one page - HTML (the
 * single-run page's style and Content-Security-Policy), Markdown and
 * JSON: the matrix of implementations x (variant, dtype) with each
 * certificate's verdict and counts, the table of what each plugin set of
 * the diff runs does where the specs leave room, each with the command
 * that replays its reproducer, and the command that renders each run's
 * own report. Every text from the store is escaped
 * (reports/escape.h).
 */
#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/compare.h"
#include "reports/escape.h"
#include "reports/model.h"
#include "reports/report.h"
#include "reports/report_format.h"

#ifndef DVG_VERSION
#define DVG_VERSION "unknown"
#endif

/* Rows and columns of the matrix, at most this many each. */
#define RUNS_MAX_AXIS 128

typedef struct latest_ctx {
    int64_t *runs;
    size_t max, n;
} latest_ctx;

static int on_run(void *ctx, const store_row *r)
{
    latest_ctx *c = ctx;
    if (store_row_type(r, 0) != STORE_INT || c->n >= c->max)
        return 0;
    int64_t id = store_row_int(r, 0);
    for (size_t i = 0; i < c->n; i++)
        if (c->runs[i] == id)
            return 0;
    c->runs[c->n++] = id;
    return 0;
}

int report_latest_runs(store *s, int64_t *runs, size_t max, size_t *n, char *err, size_t errlen)
{
    static const char *const certified =
        "SELECT max(run_id) FROM read_certificates GROUP BY implementation ORDER BY min(run_id)";
    static const char *const diffed = "SELECT max(id) FROM read_runs WHERE kind = 'diff'";
    latest_ctx c = {runs, max, 0};
    if (store_select(s, certified, NULL, 0, on_run, &c) ||
        store_select(s, diffed, NULL, 0, on_run, &c)) {
        snprintf(err, errlen, "%s", store_errmsg(s));
        return -1;
    }
    if (!c.n) {
        snprintf(err, errlen, "%s: no certificate and no diff run", store_path(s));
        return -1;
    }
    *n = c.n;
    return 0;
}

/* The page's axes: implementations with certificates (rows) and the
 * (variant, dtype) pairs (columns, in variant then dtype order). */
typedef struct runs_axes {
    const char *rows[RUNS_MAX_AXIS];
    size_t nr;
    const report_key *cols[RUNS_MAX_AXIS];
    size_t nc;
} runs_axes;

static int key_before(const report_key *a, const report_key *b)
{
    if (a->variant_id != b->variant_id)
        return a->variant_id < b->variant_id;
    if (strcmp(a->variant, b->variant))
        return strcmp(a->variant, b->variant) < 0;
    if (a->dtype_id != b->dtype_id)
        return a->dtype_id < b->dtype_id;
    return strcmp(a->dtype, b->dtype) < 0;
}

static void axes_build(const report_model *const *m, size_t n, runs_axes *ax)
{
    ax->nr = ax->nc = 0;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < m[r]->n_certs; i++) {
            const report_key *k = &m[r]->certs[i].k;
            size_t j = 0;
            while (j < ax->nr && strcmp(ax->rows[j], k->implementation))
                j++;
            if (j == ax->nr && ax->nr < RUNS_MAX_AXIS)
                ax->rows[ax->nr++] = k->implementation;
            j = 0;
            while (j < ax->nc && !(!strcmp(ax->cols[j]->variant, k->variant) &&
                                   !strcmp(ax->cols[j]->dtype, k->dtype)))
                j++;
            if (j < ax->nc || ax->nc == RUNS_MAX_AXIS)
                continue;
            j = ax->nc++; /* insertion in order */
            while (j > 0 && key_before(k, ax->cols[j - 1])) {
                ax->cols[j] = ax->cols[j - 1];
                j--;
            }
            ax->cols[j] = k;
        }
}

/* The certificate of (impl, column) in the latest of the runs (the
 * highest id, whatever the order of --runs) that has one, with its run's
 * id; NULL when none. */
static const report_cert *cert_of(const report_model *const *m, size_t n, const char *impl,
                                  const report_key *col, int64_t *run)
{
    const report_cert *best = NULL;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < m[r]->n_certs; i++) {
            const report_cert *c = &m[r]->certs[i];
            if (!strcmp(c->k.implementation, impl) && !strcmp(c->k.variant, col->variant) &&
                !strcmp(c->k.dtype, col->dtype) && (!best || m[r]->run.id > *run)) {
                *run = m[r]->run.id;
                best = c;
            }
        }
    return best;
}

/* 1 when the run compares plugins: a diff run, or a differential fuzz
 * (or import) run, whose hazards are findings of a plugin set ("a|b").
 * Its findings go into the table of what each implementation does. */
static int compares_plugins(const report_model *m)
{
    if (!strcmp(m->run.kind, "diff"))
        return 1;
    for (size_t i = 0; i < m->n_findings; i++)
        if (strchr(m->findings[i].k.implementation, '|'))
            return 1;
    return 0;
}

/* What the finding's first reproducer recorded each plugin giving, or
 * its expected text. */
static const char *given_of(const report_finding *f)
{
    return f->n_repros && f->repros[0].actual ? f->repros[0].actual : "";
}

/* The replay command of the finding's first reproducer, or "" when it
 * has none. Writes buf (len bytes) and returns it. */
static const char *replay_of(const report_model *m, const report_finding *g, char *buf,
                             size_t len)
{
    if (!g->n_repros) {
        buf[0] = '\0';
        return buf;
    }
    return report_replay_command(m, g->repros[0].id, buf, len);
}

static void report_command(const report_model *m, int64_t run, FILE *f, void (*esc)(FILE *,
                                                                                      const char *))
{
    char q[4200];
    esc_shell_word(m->db_path, q, sizeof q, NULL);
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "divergence report --db %s --run %" PRId64 " --format html", q,
             run);
    esc(f, cmd);
}

void report_runs_html(const report_model *const *m, size_t n, FILE *f)
{
    runs_axes ax;
    char buf[4400];
    axes_build(m, n, &ax);
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"divergence " DVG_VERSION "\">\n"
          "<title>Divergence: every implementation side by side</title>\n", f);
    fprintf(f, "<style>%s</style>\n</head>\n<body>\n<header>\n<h1>Every implementation side by "
               "side</h1>\n<p class=\"summary\" id=\"runs\" data-runs=\"%zu\">%zu runs, %zu "
               "implementations certified</p>\n</header>\n<main>\n",
            report_html_style, n, n, ax.nr);
    fputs("<section id=\"matrix\">\n<h2>Certificates</h2>\n<table class=\"matrix\">\n<tr>"
          "<th>implementation</th>", f);
    for (size_t c = 0; c < ax.nc; c++) {
        fputs("<th>", f);
        esc_html(f, ax.cols[c]->variant);
        fputs("<br>", f);
        esc_html(f, ax.cols[c]->dtype);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (size_t r = 0; r < ax.nr; r++) {
        fputs("<tr><th>", f);
        esc_html(f, ax.rows[r]);
        fputs("</th>", f);
        for (size_t c = 0; c < ax.nc; c++) {
            int64_t run = 0;
            const report_cert *ce = cert_of(m, n, ax.rows[r], ax.cols[c], &run);
            if (!ce) {
                fputs("<td class=\"v-none\">-</td>", f);
                continue;
            }
            fprintf(f, "<td class=\"v-%s\"><span class=\"verdict\">",
                    report_verdict_kind(ce->verdict));
            esc_html(f, ce->verdict);
            fprintf(f, "</span><span class=\"profile\">%" PRId64 " cases, run %" PRId64
                       "</span></td>",
                    ce->cases, run);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n</section>\n<section id=\"hazards\">\n<h2>Where the specs leave room"
          "</h2>\n<p>What each implementation gives where every one of them conforms but their "
          "bits differ (portability hazards), and where one departs, from the diff runs.</p>\n"
          "<table>\n<tr><th>run</th><th>implementations</th><th>variant</th><th>dtype</th>"
          "<th>class</th><th>operands</th><th>expected</th><th>what each gives</th>"
          "<th>signature</th><th>reproducer</th></tr>\n", f);
    for (size_t r = 0; r < n; r++) {
        if (!compares_plugins(m[r]))
            continue;
        for (size_t i = 0; i < m[r]->n_findings; i++) {
            const report_finding *g = &m[r]->findings[i];
            fprintf(f, "<tr class=\"%s\"><td class=\"num\">%" PRId64 "</td><td>",
                    g->cls_id == ORACLE_CLASS_COUNT ? "hazard" : "departure", m[r]->run.id);
            esc_html(f, g->k.implementation);
            fputs("</td><td>", f);
            esc_html(f, g->k.variant);
            fputs("</td><td>", f);
            esc_html(f, g->k.dtype);
            fputs("</td><td>", f);
            esc_html(f, g->cls);
            fputs("</td><td>", f);
            esc_html(f, g->operand_class);
            fputs("</td><td>", f);
            esc_html(f, g->n_repros && g->repros[0].expected ? g->repros[0].expected : "");
            fputs("</td><td>", f);
            esc_html(f, given_of(g));
            fprintf(f, "</td><td class=\"mono\">sig:%" PRId64 "</td><td><code class=\"replay\">",
                    g->signature_id);
            esc_html(f, replay_of(m[r], g, buf, sizeof buf));
            fputs("</code></td></tr>\n", f);
        }
    }
    fputs("</table>\n</section>\n<section id=\"runs-list\">\n<h2>Runs</h2>\n<table>\n<tr><th>run"
          "</th><th>kind</th><th>status</th><th>implementations</th><th>its own report</th></tr>\n",
          f);
    for (size_t r = 0; r < n; r++) {
        const char *impls[64];
        size_t ni = report_implementations(m[r], impls, 64);
        fprintf(f, "<tr><td class=\"num\">%" PRId64 "</td><td>", m[r]->run.id);
        esc_html(f, m[r]->run.kind);
        fputs("</td><td>", f);
        esc_html(f, m[r]->run.status);
        fputs("</td><td>", f);
        for (size_t i = 0; i < ni; i++) {
            if (i)
                fputs(", ", f);
            esc_html(f, impls[i]);
        }
        fputs("</td><td><code>", f);
        report_command(m[r], m[r]->run.id, f, esc_html);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</table>\n</section>\n</main>\n<footer>divergence " DVG_VERSION "</footer>\n"
          "</body>\n</html>\n", f);
}

void report_runs_markdown(const report_model *const *m, size_t n, FILE *f)
{
    runs_axes ax;
    char buf[4400];
    axes_build(m, n, &ax);
    fprintf(f, "# Every implementation side by side\n\n%zu runs, %zu implementations "
               "certified.\n\n## Certificates\n\n| implementation |",
            n, ax.nr);
    for (size_t c = 0; c < ax.nc; c++) {
        fputc(' ', f);
        esc_md(f, ax.cols[c]->variant);
        fputc(' ', f);
        esc_md(f, ax.cols[c]->dtype);
        fputs(" |", f);
    }
    fputs("\n| --- |", f);
    for (size_t c = 0; c < ax.nc; c++)
        fputs(" --- |", f);
    fputc('\n', f);
    for (size_t r = 0; r < ax.nr; r++) {
        fputs("| ", f);
        esc_md(f, ax.rows[r]);
        fputs(" |", f);
        for (size_t c = 0; c < ax.nc; c++) {
            int64_t run = 0;
            const report_cert *ce = cert_of(m, n, ax.rows[r], ax.cols[c], &run);
            fputc(' ', f);
            if (ce) {
                esc_md(f, ce->verdict);
                fprintf(f, " (%" PRId64 " cases, run %" PRId64 ")", ce->cases, run);
            } else {
                fputc('-', f);
            }
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    fputs("\n## Where the specs leave room\n\n| run | implementations | variant | dtype | class "
          "| operands | what each gives | signature | reproducer |\n| --- | --- | --- | --- | --- "
          "| --- | --- | --- | --- |\n", f);
    for (size_t r = 0; r < n; r++) {
        if (!compares_plugins(m[r]))
            continue;
        for (size_t i = 0; i < m[r]->n_findings; i++) {
            const report_finding *g = &m[r]->findings[i];
            fprintf(f, "| %" PRId64 " | ", m[r]->run.id);
            esc_md(f, g->k.implementation);
            fputs(" | ", f);
            esc_md(f, g->k.variant);
            fputs(" | ", f);
            esc_md(f, g->k.dtype);
            fputs(" | ", f);
            esc_md(f, g->cls);
            fputs(" | ", f);
            esc_md(f, g->operand_class);
            fputs(" | ", f);
            esc_md(f, given_of(g));
            fprintf(f, " | sig:%" PRId64 " | ", g->signature_id);
            esc_md(f, replay_of(m[r], g, buf, sizeof buf));
            fputs(" |\n", f);
        }
    }
    fputs("\n## Runs\n\n", f);
    for (size_t r = 0; r < n; r++) {
        fprintf(f, "- run %" PRId64 " (", m[r]->run.id);
        esc_md(f, m[r]->run.kind);
        fputs("): `", f);
        report_command(m[r], m[r]->run.id, f, esc_plain);
        fputs("`\n", f);
    }
}

void report_runs_json(const report_model *const *m, size_t n, FILE *f)
{
    char buf[4400];
    fputs("{\"runs\": [", f);
    for (size_t r = 0; r < n; r++) {
        fprintf(f, "%s{\"id\": %" PRId64 ", \"kind\": ", r ? ", " : "", m[r]->run.id);
        esc_json(f, m[r]->run.kind);
        fputs(", \"status\": ", f);
        esc_json(f, m[r]->run.status);
        fputs("}", f);
    }
    fputs("],\n \"certificates\": [", f);
    int first = 1;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < m[r]->n_certs; i++) {
            const report_cert *c = &m[r]->certs[i];
            fprintf(f, "%s\n  {\"run\": %" PRId64 ", \"implementation\": ", first ? "" : ",",
                    m[r]->run.id);
            first = 0;
            esc_json(f, c->k.implementation);
            fputs(", \"variant\": ", f);
            esc_json(f, c->k.variant);
            fputs(", \"dtype\": ", f);
            esc_json(f, c->k.dtype);
            fputs(", \"verdict\": ", f);
            esc_json(f, c->verdict);
            fprintf(f, ", \"cases\": %" PRId64 ", \"elements\": %" PRId64 "}", c->cases,
                    c->elements);
        }
    fputs("],\n \"diff\": [", f);
    first = 1;
    for (size_t r = 0; r < n; r++) {
        if (!compares_plugins(m[r]))
            continue;
        for (size_t i = 0; i < m[r]->n_findings; i++) {
            const report_finding *g = &m[r]->findings[i];
            fprintf(f, "%s\n  {\"run\": %" PRId64 ", \"signature\": %" PRId64
                       ", \"hazard\": %s, \"implementation\": ",
                    first ? "" : ",", m[r]->run.id, g->signature_id,
                    g->cls_id == ORACLE_CLASS_COUNT ? "true" : "false");
            first = 0;
            esc_json(f, g->k.implementation);
            fputs(", \"variant\": ", f);
            esc_json(f, g->k.variant);
            fputs(", \"dtype\": ", f);
            esc_json(f, g->k.dtype);
            fputs(", \"class\": ", f);
            esc_json(f, g->cls);
            fputs(", \"operand_class\": ", f);
            esc_json(f, g->operand_class);
            fputs(", \"given\": ", f);
            esc_json(f, given_of(g));
            fputs(", \"replay\": ", f);
            esc_json(f, replay_of(m[r], g, buf, sizeof buf));
            fputs("}", f);
        }
    }
    fputs("]}\n", f);
}

int report_write_runs(store *s, const char *db_path, const int64_t *runs, size_t n,
                      report_format fmt, FILE *out, char *err, size_t errlen)
{
    if (n < 1 || n > REPORT_MAX_RUNS) {
        snprintf(err, errlen, "between 1 and %d runs", REPORT_MAX_RUNS);
        return -1;
    }
    if (fmt == REPORT_JUNIT) {
        snprintf(err, errlen, "the report of several runs is html, md or json");
        return -1;
    }
    report_model *m[REPORT_MAX_RUNS] = {0};
    int rc = -1;
    for (size_t i = 0; i < n; i++)
        if (report_model_load(s, db_path, runs[i], NULL, &m[i], err, errlen))
            goto done;
    const report_model *const *cm = (const report_model *const *)m;
    switch (fmt) {
    case REPORT_HTML: report_runs_html(cm, n, out); break;
    case REPORT_MARKDOWN: report_runs_markdown(cm, n, out); break;
    default: report_runs_json(cm, n, out); break;
    }
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errlen, "write error");
        goto done;
    }
    rc = 0;
done:
    for (size_t i = 0; i < n; i++)
        report_model_free(m[i]);
    return rc;
}
