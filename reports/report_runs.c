/* SPDX-License-Identifier: MIT */
/*
 * This file contains the report of several runs (`divergence report
 * --runs R1,R2,...` or `--latest-per-plugin`, reports/report.h): the run
 * choice of --latest-per-plugin, the loading of one report model per run
 * (reports/model.h) and of the page (reports/runs_model.h), and the three
 * forms of the one page - HTML (the single-run page's style and
 * Content-Security-Policy), Markdown and JSON - in the order a person
 * reads it: the matrix of implementations x (variant, dtype) with each
 * certificate's verdict and counts; one row per hazard class, plugin set
 * and variant family with what each implementation gives on an example; the
 * departures by bug; every signature with the command that replays its
 * reproducer (folded in HTML); the command that renders each
 * run's own report. Every text from the store is escaped
 * (reports/escape.h).
 */
#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/judge/verdict.h"
#include "reports/escape.h"
#include "reports/model.h"
#include "reports/report.h"
#include "reports/report_format.h"
#include "reports/runs_model.h"

#ifndef DVG_VERSION
#define DVG_VERSION "unknown"
#endif

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

static size_t signatures_shown(const runs_page *p)
{
    size_t n = 0;
    for (size_t r = 0; r < p->n; r++)
        if (runs_compares_plugins(p->m[r]))
            n += p->m[r]->n_findings;
    return n;
}

/* How many of the page's runs compare plugins: none, and the hazard and
 * departure tables were not measured (divergence diff did not run, or
 * failed), which the page says at its top instead of "no hazard". */
static size_t runs_comparing(const runs_page *p)
{
    size_t n = 0;
    for (size_t r = 0; r < p->n; r++)
        n += runs_compares_plugins(p->m[r]) != 0;
    return n;
}

static const char not_compared[] =
    "Not measured: no run on this page compares the implementations (divergence diff did not "
    "run, or it failed), so nothing here says whether they disagree or depart.";

/* The cells of a table row, escaped, each in <tag>; the last one (a
 * reproducer's replay command) in <code class="replay"> for td. With
 * `open` NULL the <tr> is opened here; "" it was opened by the caller. */
static void html_row(FILE *f, const char *tag, const char *open, const char *const *cells,
                     size_t n)
{
    if (!open)
        fputs("<tr>", f);
    for (size_t i = 0; i < n; i++) {
        int code = i + 1 == n && !strcmp(tag, "td");
        fprintf(f, "<%s>%s", tag, code ? "<code class=\"replay\">" : "");
        esc_html(f, cells[i]);
        fprintf(f, "%s</%s>", code ? "</code>" : "", tag);
    }
    fputs("</tr>\n", f);
}

/* The matrix, claims down and implementations across, one table per
 * variant (each folded open: every verdict shows), so that a page of
 * every implementation fits a screen of 1280 px (issue 37): at most
 * RUNS_MAX_AXIS implementations, each a column of ~100 px. */
static void html_matrix(const runs_page *p, FILE *f)
{
    fputs("<section id=\"matrix\">\n<h2>Certificates</h2>\n", f);
    for (size_t c = 0; c < p->nc; c++) {
        const char *variant = p->cols[c]->variant;
        size_t n = 1;
        if (c && !strcmp(p->cols[c - 1]->variant, variant))
            continue;
        while (c + n < p->nc && !strcmp(p->cols[c + n]->variant, variant))
            n++;
        fputs("<details class=\"variant\" open data-variant=\"", f);
        esc_html(f, variant);
        fputs("\"><summary>", f);
        esc_html(f, variant);
        fprintf(f, ": %zu dtype%s</summary>\n<table class=\"matrix\">\n<tr><th>dtype</th>", n,
                n == 1 ? "" : "s");
        for (size_t r = 0; r < p->nr; r++) {
            fputs("<th class=\"impl\">", f);
            esc_html(f, p->rows[r]);
            fputs("</th>", f);
        }
        fputs("</tr>\n", f);
        for (size_t k = c; k < c + n; k++) {
            fputs("<tr><th>", f);
            esc_html(f, p->cols[k]->dtype);
            fputs("</th>", f);
            for (size_t r = 0; r < p->nr; r++) {
                int64_t run = 0;
                const report_cert *ce = runs_cert_of(p, p->rows[r], p->cols[k], &run);
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
        fputs("</table>\n</details>\n", f);
    }
    fputs("</section>\n", f);
}

/* The page's "Every signature" section: each signature of the runs that
 * compare plugins, what each plugin gives, its replay command. */
static void html_signatures(const runs_page *p, FILE *f)
{
    char buf[4400];
    fprintf(f, "<section id=\"signatures\">\n<h2>Every signature</h2>\n"
               "<details><summary>%zu signatures of the runs that compare plugins, each with "
               "what each plugin gives and the command that replays it</summary>\n"
               "<table>\n<tr><th>run</th><th>implementations</th><th>variant</th><th>dtype</th>"
               "<th>class</th><th>operands</th><th>expected</th><th>what each gives</th>"
               "<th>signature</th><th>reproducer</th></tr>\n",
            signatures_shown(p));
    for (size_t r = 0; r < p->n; r++) {
        if (!runs_compares_plugins(p->m[r]))
            continue;
        for (size_t i = 0; i < p->m[r]->n_findings; i++) {
            const report_finding *g = &p->m[r]->findings[i];
            fprintf(f, "<tr class=\"%s\"><td class=\"num\">%" PRId64 "</td><td>",
                    runs_is_hazard(g) ? "hazard" : "departure", p->m[r]->run.id);
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
            esc_html(f, runs_expected_text(g));
            fputs("</td><td>", f);
            esc_html(f, runs_given_text(g));
            fprintf(f, "</td><td class=\"mono\">sig:%" PRId64 "</td><td><code class=\"replay\">",
                    g->signature_id);
            esc_html(f, runs_replay_text(p->m[r], g, buf, sizeof buf));
            fputs("</code></td></tr>\n", f);
        }
    }
    fputs("</table>\n</details>\n</section>\n", f);
}

/* The page's list of runs, each with the command of its own report. */
static void html_runs_list(const runs_page *p, FILE *f)
{
    fputs("<section id=\"runs-list\">\n<h2>Runs</h2>\n<table>\n"
          "<tr><th>run</th><th>kind</th><th>status</th><th>implementations</th><th>its own "
          "report</th></tr>\n", f);
    for (size_t r = 0; r < p->n; r++) {
        const report_model *m = p->m[r];
        const char *impls[64];
        size_t ni = report_implementations(m, impls, 64);
        fprintf(f, "<tr><td class=\"num\">%" PRId64 "</td><td>", m->run.id);
        esc_html(f, m->run.kind);
        fputs("</td><td>", f);
        esc_html(f, m->run.status);
        fputs("</td><td>", f);
        for (size_t i = 0; i < ni; i++) {
            if (i)
                fputs(", ", f);
            esc_html(f, impls[i]);
        }
        fputs("</td><td><code>", f);
        report_command(m, m->run.id, f, esc_html);
        fputs("</code></td></tr>\n", f);
    }
    fputs("</table>\n</section>\n", f);
}

void report_runs_html(const runs_page *p, FILE *f, runs_row *row)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"divergence " DVG_VERSION "\">\n"
          "<title>Divergence: every implementation side by side</title>\n", f);
    fprintf(f, "<style>%s</style>\n</head>\n<body>\n<header>\n<h1>Every implementation side by "
               "side</h1>\n<p class=\"summary\" id=\"runs\" data-runs=\"%zu\">%zu runs, %zu "
               "implementations certified</p>\n<p>%zu kinds of portability hazard (%zu "
               "signatures), %zu bugs that depart from the oracle (%zu signatures).</p>\n"
               "</header>\n<main>\n",
            report_html_style, p->n, p->n, p->nr, p->n_hazards, p->n_hazard_sigs,
            p->n_departures, p->n_departure_sigs);
    size_t compared = runs_comparing(p);
    if (!compared)
        fprintf(f, "<p class=\"incomplete\" id=\"not-compared\">%s</p>\n", not_compared);
    html_matrix(p, f);
    fputs("<section id=\"hazards\">\n<h2>Where the specs leave room</h2>\n"
          "<p>Portability hazards: every implementation of the set conforms, but their bits "
          "differ. One row per hazard class, plugin set and variant family, with the variants "
          "and dtypes it spans, its signatures and one example: what each implementation gives "
          "there (- : not in the set).</p>\n<table id=\"hazard-table\">\n", f);
    const char *head[RUNS_ROW_MAX];
    html_row(f, "th", NULL, head, runs_hazard_header(p, head));
    for (size_t h = 0; h < p->n_hazards; h++) {
        const runs_hazard *hz = &p->hazards[h];
        runs_hazard_row(p, h, row);
        fputs("<tr class=\"hazard-row\" data-set=\"", f);
        esc_html(f, hz->set);
        fputs("\" data-family=\"", f);
        esc_html(f, hz->family);
        fprintf(f, "\" data-signature=\"%" PRId64 "\">", p->hazard_sigs[hz->first].f->signature_id);
        html_row(f, "td", "", row->cell, row->n);
    }
    if (!p->n_hazards)
        fprintf(f, "<tr><td colspan=\"7\">%s</td></tr>\n",
                compared ? "No portability hazard in these runs." : not_compared);
    fputs("</table>\n</section>\n<section id=\"departures\">\n<h2>Departures from the oracle, "
          "by bug</h2>\n<p>Where an implementation does not conform, in the runs that compare "
          "plugins: one row per bug (its signatures share a fingerprint), with one example."
          "</p>\n<table id=\"departure-table\">\n", f);
    html_row(f, "th", NULL, runs_departure_header, RUNS_DEPARTURE_COLUMNS);
    for (size_t d = 0; d < p->n_departures; d++) {
        runs_departure_row(p, d, row);
        fputs("<tr class=\"bug-row\">", f);
        html_row(f, "td", "", row->cell, row->n);
    }
    if (!p->n_departures)
        fprintf(f, "<tr><td colspan=\"10\">%s</td></tr>\n",
                compared ? "No implementation departs in these runs." : not_compared);
    fputs("</table>\n</section>\n", f);
    if (p->n_emulation_only) {
        fprintf(f, "<section id=\"emulation-only\">\n<h2>Seen only under emulation, not "
                   "departures (%zu signatures)</h2>\n<p>", p->n_emulation_only);
        esc_html(f, report_emulation_only_text);
        fputs(" Each is listed under Every signature.</p>\n</section>\n", f);
    }
    html_signatures(p, f);
    html_runs_list(p, f);
    fputs("</main>\n<footer>divergence " DVG_VERSION "</footer>\n"
          "</body>\n</html>\n", f);
}

/* "| a | b |" cells, escaped. */
static void md_cells(FILE *f, const char *const *cells, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputs(i ? " | " : "| ", f);
        esc_md(f, cells[i]);
    }
    fputs(" |\n", f);
}

/* "| --- | --- |" for n columns. */
static void md_rule(FILE *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputs(i ? " --- |" : "| --- |", f);
    fputc('\n', f);
}

void report_runs_markdown(const runs_page *p, FILE *f, runs_row *row)
{
    char buf[4400];
    fprintf(f, "# Every implementation side by side\n\n%zu runs, %zu implementations "
               "certified. %zu kinds of portability hazard (%zu signatures), %zu bugs that "
               "depart from the oracle (%zu signatures).\n\n",
            p->n, p->nr, p->n_hazards, p->n_hazard_sigs, p->n_departures, p->n_departure_sigs);
    size_t compared = runs_comparing(p);
    if (!compared)
        fprintf(f, "**%s**\n\n", not_compared);
    fputs("## Certificates\n", f);
    for (size_t c = 0; c < p->nc; c++) {
        const char *variant = p->cols[c]->variant;
        if (c && !strcmp(p->cols[c - 1]->variant, variant))
            continue;
        fputs("\n### ", f);
        esc_md(f, variant);
        fputs("\n\n| dtype |", f);
        for (size_t r = 0; r < p->nr; r++) {
            fputc(' ', f);
            esc_md(f, p->rows[r]);
            fputs(" |", f);
        }
        fputc('\n', f);
        md_rule(f, p->nr + 1);
        for (size_t k = c; k < p->nc && !strcmp(p->cols[k]->variant, variant); k++) {
            fputs("| ", f);
            esc_md(f, p->cols[k]->dtype);
            fputs(" |", f);
            for (size_t r = 0; r < p->nr; r++) {
                int64_t run = 0;
                const report_cert *ce = runs_cert_of(p, p->rows[r], p->cols[k], &run);
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
    }
    fputs("\n## Where the specs leave room\n\nPortability hazards: every implementation of the "
          "set conforms, but their bits differ. One row per hazard class, plugin set and variant "
          "family; what each implementation gives on one example (- : not in the set).\n\n", f);
    const char *head[RUNS_ROW_MAX];
    size_t nh = runs_hazard_header(p, head);
    md_cells(f, head, nh);
    md_rule(f, nh);
    for (size_t h = 0; h < p->n_hazards; h++) {
        runs_hazard_row(p, h, row);
        md_cells(f, row->cell, row->n);
    }
    if (!p->n_hazards)
        fprintf(f, "\n%s\n", compared ? "No portability hazard in these runs." : not_compared);
    fputs("\n## Departures from the oracle, by bug\n\n", f);
    md_cells(f, runs_departure_header, RUNS_DEPARTURE_COLUMNS);
    md_rule(f, RUNS_DEPARTURE_COLUMNS);
    for (size_t d = 0; d < p->n_departures; d++) {
        runs_departure_row(p, d, row);
        md_cells(f, row->cell, row->n);
    }
    if (!p->n_departures)
        fprintf(f, "\n%s\n", compared ? "No implementation departs in these runs." : not_compared);
    if (p->n_emulation_only) {
        fprintf(f, "\n## Seen only under emulation, not departures (%zu signatures)\n\n",
                p->n_emulation_only);
        esc_md(f, report_emulation_only_text);
        fputs(" Each is listed under Every signature.\n", f);
    }
    fprintf(f, "\n## Every signature\n\n%zu signatures of the runs that compare plugins, "
               "each with what each plugin gives and the command that replays it.\n\n"
               "| run | implementations | variant | dtype | class "
               "| operands | what each gives | signature | reproducer |\n",
            signatures_shown(p));
    md_rule(f, 9);
    for (size_t r = 0; r < p->n; r++) {
        if (!runs_compares_plugins(p->m[r]))
            continue;
        for (size_t i = 0; i < p->m[r]->n_findings; i++) {
            const report_finding *g = &p->m[r]->findings[i];
            char run[32], sig[32];
            snprintf(run, sizeof run, "%" PRId64, p->m[r]->run.id);
            snprintf(sig, sizeof sig, "sig:%" PRId64, g->signature_id);
            const char *cells[] = {run, g->k.implementation, g->k.variant, g->k.dtype, g->cls,
                                   g->operand_class, runs_given_text(g), sig,
                                   runs_replay_text(p->m[r], g, buf, sizeof buf)};
            md_cells(f, cells, 9);
        }
    }
    fputs("\n## Runs\n\n", f);
    for (size_t r = 0; r < p->n; r++) {
        fprintf(f, "- run %" PRId64 " (", p->m[r]->run.id);
        esc_md(f, p->m[r]->run.kind);
        fputs("): `", f);
        report_command(p->m[r], p->m[r]->run.id, f, esc_plain);
        fputs("`\n", f);
    }
}

/* The JSON page's "hazards": each row of the hazard table with its
 * signatures and one example. */
static void json_hazards(const runs_page *p, FILE *f, runs_row *row)
{
    char buf[4400];
    fputs("],\n \"hazards\": [", f);
    for (size_t h = 0; h < p->n_hazards; h++) {
        const runs_hazard *hz = &p->hazards[h];
        const runs_finding *ex = &p->hazard_sigs[hz->first];
        runs_hazard_row(p, h, row);
        fputs(h ? ",\n  {\"class\": " : "\n  {\"class\": ", f);
        esc_json(f, hz->cls);
        fputs(", \"implementations\": ", f);
        esc_json(f, hz->set);
        fputs(", \"family\": ", f);
        esc_json(f, hz->family);
        fputs(", \"variants\": ", f);
        esc_json(f, row->variants);
        fputs(", \"dtypes\": ", f);
        esc_json(f, row->dtypes);
        fprintf(f, ", \"signatures\": %zu, \"signature_ids\": [", hz->n);
        for (size_t i = 0; i < hz->n; i++)
            fprintf(f, "%s%" PRId64, i ? ", " : "", p->hazard_sigs[hz->first + i].f->signature_id);
        fprintf(f, "], \"example\": {\"run\": %" PRId64 ", \"signature\": %" PRId64
                   ", \"variant\": ",
                ex->m->run.id, ex->f->signature_id);
        esc_json(f, ex->f->k.variant);
        fputs(", \"dtype\": ", f);
        esc_json(f, ex->f->k.dtype);
        fputs(", \"operands\": ", f);
        esc_json(f, runs_operands_text(ex->f, buf, sizeof buf));
        fputs(", \"expected\": ", f);
        esc_json(f, runs_expected_text(ex->f));
        fputs(", \"given\": {", f);
        for (size_t k = 0, n = 0; k < p->n_given; k++) {
            if (!strcmp(row->given[k], "-"))
                continue;
            fputs(n++ ? ", " : "", f);
            esc_json(f, p->given[k]);
            fputs(": ", f);
            esc_json(f, row->given[k]);
        }
        fputs("}, \"replay\": ", f);
        esc_json(f, row->replay);
        fputs("}}", f);
    }
}

/* The JSON page's "diff": every signature of the runs that compare
 * plugins. */
static void json_diff(const runs_page *p, FILE *f)
{
    char buf[4400];
    fputs("],\n \"diff\": [", f);
    int first = 1;
    for (size_t r = 0; r < p->n; r++) {
        if (!runs_compares_plugins(p->m[r]))
            continue;
        for (size_t i = 0; i < p->m[r]->n_findings; i++) {
            const report_finding *g = &p->m[r]->findings[i];
            fprintf(f, "%s\n  {\"run\": %" PRId64 ", \"signature\": %" PRId64
                       ", \"hazard\": %s, \"implementation\": ",
                    first ? "" : ",", p->m[r]->run.id, g->signature_id,
                    runs_is_hazard(g) ? "true" : "false");
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
            esc_json(f, runs_given_text(g));
            fputs(", \"replay\": ", f);
            esc_json(f, runs_replay_text(p->m[r], g, buf, sizeof buf));
            fputs("}", f);
        }
    }
}

void report_runs_json(const runs_page *p, FILE *f, runs_row *row)
{
    fputs("{\"certificates\": [", f);
    int first = 1;
    for (size_t r = 0; r < p->n; r++)
        for (size_t i = 0; i < p->m[r]->n_certs; i++) {
            const report_cert *c = &p->m[r]->certs[i];
            fprintf(f, "%s\n  {\"run\": %" PRId64 ", \"implementation\": ", first ? "" : ",",
                    p->m[r]->run.id);
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
    json_hazards(p, f, row);
    fputs("],\n \"departures\": [", f);
    for (size_t d = 0; d < p->n_departures; d++) {
        const runs_departure *dp = &p->departures[d];
        runs_departure_row(p, d, row);
        /* the table's cells under its column names; the bug a number or
         * null, the signatures a count and their ids */
        fputs(d ? ",\n  {" : "\n  {", f);
        for (size_t i = 0; i < RUNS_DEPARTURE_COLUMNS; i++) {
            fprintf(f, "%s\"%s\": ", i ? ", " : "",
                    i + 1 == RUNS_DEPARTURE_COLUMNS ? "replay" : runs_departure_header[i]);
            if (i == 1 || i == 5)
                fputs(dp->bug || i == 5 ? row->cell[i] : "null", f);
            else
                esc_json(f, row->cell[i]);
        }
        fputs(", \"signature_ids\": [", f);
        for (size_t i = 0; i < dp->n; i++)
            fprintf(f, "%s%" PRId64, i ? ", " : "",
                    p->departure_sigs[dp->first + i].f->signature_id);
        fputs("]}", f);
    }
    json_diff(p, f);
    fputs("],\n \"runs\": [", f);
    for (size_t r = 0; r < p->n; r++) {
        fprintf(f, "%s{\"id\": %" PRId64 ", \"kind\": ", r ? ", " : "", p->m[r]->run.id);
        esc_json(f, p->m[r]->run.kind);
        fputs(", \"status\": ", f);
        esc_json(f, p->m[r]->run.status);
        fputs("}", f);
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
    runs_page *page = NULL;
    runs_row *row = NULL;
    int rc = -1;
    for (size_t i = 0; i < n; i++)
        if (report_model_load(s, db_path, runs[i], NULL, &m[i], err, errlen))
            goto done;
    if (!(page = dvg_calloc(1, sizeof *page)) || !(row = dvg_malloc(sizeof *row)) ||
        runs_page_build((const report_model *const *)m, n, page)) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    switch (fmt) {
    case REPORT_HTML: report_runs_html(page, out, row); break;
    case REPORT_MARKDOWN: report_runs_markdown(page, out, row); break;
    default: report_runs_json(page, out, row); break;
    }
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errlen, "write error");
        goto done;
    }
    rc = 0;
done:
    runs_page_free(page);
    dvg_free(page);
    dvg_free(row);
    for (size_t i = 0; i < n; i++)
        report_model_free(m[i]);
    return rc;
}
