/* SPDX-License-Identifier: MIT */
/*
 * This file contains the HTML report: one self-contained page, no
 * script, read top-down: the certificate matrix, the bugs with their
 * signatures underneath, each finding with its reproducers, counts per
 * class, ULP histograms, operand classes, the coverage of each claim
 * (folded, one per claim, without the lists no claim has), and the run.
 */
#include <inttypes.h>
#include <string.h>

#include "harness/judge/verdict.h"
#include "oracle/compare.h"
#include "reports/escape.h"
#include "reports/model.h"
#include "reports/report_format.h"

#ifndef DVG_VERSION
#define DVG_VERSION "unknown"
#endif

const char report_html_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 16px;"
    "color:#1b1f24;background:#fff}"
    ".not-complete{margin:16px 0 0;padding:10px 14px;border:2px solid #cf222e;"
    "background:#ffebe9;color:#82071e;font-weight:600}"
    "h1{font-size:24px;margin:20px 0 4px}h2{font-size:19px;margin:28px 0 8px;"
    "border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:16px 0 6px}"
    "table{border-collapse:collapse;margin:6px 0}th,td{border:1px solid #d0d7de;padding:3px 7px;"
    "text-align:left;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;"
    "font-variant-numeric:tabular-nums}"
    ".matrix td{text-align:center;min-width:72px;font-size:12px}.matrix td .verdict{display:block;"
    "font-weight:600}.matrix td .profile,.matrix td .refusal{display:block;color:#57606a;"
    "font-size:11px}"
    ".v-conformant{background:#dafbe1}.v-conformant-profile{background:#fff8c5}"
    ".v-nonconformant{background:#ffebe9}.v-crashed{background:#ff8182}.v-unsupported{"
    "background:#eaeef2}.v-other{background:#fbefff}.v-none{color:#8c959f}"
    ".subject{font-size:16px;margin:0 0 6px}.summary{font-size:16px;font-weight:600}"
    ".matrix th.impl{max-width:110px;overflow-wrap:anywhere;font-size:12px}"
    ".incomplete{background:#fff8c5;border:1px solid #d4a72c;padding:6px 8px;font-weight:600}"
    "code,pre,.mono{font-family:ui-monospace,monospace;font-size:12px}"
    "pre{background:#f6f8fa;padding:6px 8px;overflow-x:auto;white-space:pre-wrap;"
    "word-break:break-all}"
    ".finding{border:1px solid #d0d7de;border-radius:6px;padding:4px 12px 8px;margin:10px 0}"
    ".badge{font-size:11px;border-radius:10px;padding:1px 7px;background:#ddf4ff;margin-left:6px}"
    ".badge.new{background:#ffebe9}.badge.reopened{background:#fff8c5}dl{display:grid;grid-template-columns:max-content 1fr;"
    "gap:2px 12px;margin:6px 0}dt{font-weight:600;color:#57606a}dd{margin:0;word-break:break-all}"
    "svg text{font:11px system-ui,sans-serif;fill:#1b1f24}svg .bar{fill:#cf222e}"
    "svg .obar{fill:#0969da}svg .axis{stroke:#57606a}figure{display:inline-block;margin:6px 18px"
    " 6px 0}figcaption{font-size:12px;color:#57606a}footer{color:#57606a;font-size:12px;"
    "margin:30px 0 20px}";

/* ` name="value"` with the value escaped. */
static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    esc_html(f, value);
    fputc('"', f);
}

static void attr_int(FILE *f, const char *name, int64_t v)
{
    fprintf(f, " %s=\"%" PRId64 "\"", name, v);
}

/* <tag class="cls">text</tag> */
static void el(FILE *f, const char *tag, const char *cls, const char *text)
{
    fprintf(f, "<%s", tag);
    if (cls)
        attr(f, "class", cls);
    fputc('>', f);
    esc_html(f, text);
    fprintf(f, "</%s>", tag);
}

/* "implementation · variant dtype", escaped. */
static void claim_label(FILE *f, const report_key *k)
{
    esc_html(f, k->implementation);
    fputs(" &#183; ", f);
    esc_html(f, k->variant);
    fputc(' ', f);
    esc_html(f, k->dtype);
}

static void dt_dd(FILE *f, const char *term, const char *text)
{
    fprintf(f, "<dt>%s</dt><dd>", term);
    esc_html(f, text);
    fputs("</dd>\n", f);
}

/* The refusals of undefined input a claim accepted, named in its cell
 * (docs/semantics.md, "Refusing undefined input"). */
static void refusal_note(const report_model *m, const report_key *k, FILE *f)
{
    size_t first, n;
    report_claim_counts(m, k, &first, &n);
    for (size_t i = first; i < first + n; i++)
        if (m->counts[i].cls_id == ORACLE_CLASS_REFUSED_UNDEFINED) {
            char text[96];
            snprintf(text, sizeof text, "%s (%" PRId64 " elements)", VERDICT_REFUSED_TEXT,
                     m->counts[i].elements);
            el(f, "span", "refusal", text);
        }
}

static void matrix(const report_model *m, FILE *f, const char *impl)
{
    const char *rows[REPORT_MAX_AXIS], *cols[REPORT_MAX_AXIS];
    size_t nr, nc;
    report_matrix_axes(m, impl, rows, &nr, cols, &nc, REPORT_MAX_AXIS);
    if (!nr) {
        fputs("<p>No certificate: this run judged no claim of ", f);
        esc_html(f, impl);
        fputs(".</p>\n", f);
        return;
    }
    fputs("<table class=\"matrix\"", f);
    attr(f, "data-implementation", impl);
    fputs(">\n<thead><tr><th>variant \\ dtype</th>", f);
    for (size_t j = 0; j < nc; j++)
        el(f, "th", NULL, cols[j]);
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < nr; i++) {
        fputs("<tr>", f);
        fputs("<th scope=\"row\">", f);
        esc_html(f, rows[i]);
        fputs("</th>", f);
        for (size_t j = 0; j < nc; j++) {
            const report_cert *c = report_find_cert(m, impl, rows[i], cols[j]);
            if (!c) {
                fputs("<td class=\"v-none\" title=\"not claimed or not in this run\">&#8211;</td>",
                      f);
                continue;
            }
            char cls[48];
            snprintf(cls, sizeof cls, "cell v-%s", report_verdict_kind(c->verdict));
            fputs("<td", f);
            attr(f, "class", cls);
            attr(f, "data-variant", c->k.variant);
            attr(f, "data-dtype", c->k.dtype);
            attr(f, "data-verdict", c->verdict);
            attr(f, "data-profile", c->profile);
            attr_int(f, "data-cases", c->cases);
            attr_int(f, "data-elements", c->elements);
            fprintf(f, " title=\"%" PRId64 " cases, %" PRId64 " elements\">", c->cases,
                    c->elements);
            el(f, "span", "verdict", c->verdict);
            el(f, "span", "profile", c->profile);
            refusal_note(m, &c->k, f);
            fputs("</td>", f);
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void class_totals(const report_model *m, FILE *f)
{
    /* Sum per class over the claims (counts are sorted by claim, then
     * class: gather by class name). */
    const char *names[64];
    int64_t el_sum[64] = {0}, case_sum[64] = {0};
    uint32_t ids[64];
    size_t n = 0;
    for (size_t i = 0; i < m->n_counts; i++) {
        const report_count *c = &m->counts[i];
        size_t j = 0;
        while (j < n && strcmp(names[j], c->cls))
            j++;
        if (j == n) {
            if (n == 64)
                continue;
            size_t at = n++;
            while (at > 0 && ids[at - 1] > c->cls_id) {
                names[at] = names[at - 1];
                ids[at] = ids[at - 1];
                el_sum[at] = el_sum[at - 1];
                case_sum[at] = case_sum[at - 1];
                at--;
            }
            names[at] = c->cls;
            ids[at] = c->cls_id;
            el_sum[at] = case_sum[at] = 0;
            j = at;
        }
        el_sum[j] += c->elements;
        case_sum[j] += c->cases;
    }
    fputs("<table id=\"class-totals\"><thead><tr><th>class</th><th>elements</th>"
          "<th>cases</th></tr></thead><tbody>\n", f);
    for (size_t j = 0; j < n; j++) {
        fputs("<tr", f);
        attr(f, "data-class", names[j]);
        fputs(">", f);
        el(f, "td", NULL, names[j]);
        fprintf(f, "<td class=\"num elements\">%" PRId64 "</td><td class=\"num cases\">%" PRId64
                   "</td></tr>\n",
                el_sum[j], case_sum[j]);
    }
    fputs("</tbody></table>\n", f);
}

static void counts_table(const report_model *m, FILE *f)
{
    fputs("<table id=\"counts\"><thead><tr><th>implementation</th><th>variant</th><th>dtype</th>"
          "<th>class</th><th>elements</th><th>cases</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < m->n_counts; i++) {
        const report_count *c = &m->counts[i];
        fputs("<tr", f);
        attr(f, "data-implementation", c->k.implementation);
        attr(f, "data-variant", c->k.variant);
        attr(f, "data-dtype", c->k.dtype);
        attr(f, "data-class", c->cls);
        fputs(">", f);
        el(f, "td", NULL, c->k.implementation);
        el(f, "td", NULL, c->k.variant);
        el(f, "td", NULL, c->k.dtype);
        el(f, "td", NULL, c->cls);
        fprintf(f, "<td class=\"num elements\">%" PRId64 "</td><td class=\"num cases\">%" PRId64
                   "</td></tr>\n",
                c->elements, c->cases);
    }
    fputs("</tbody></table>\n", f);
}

static void histogram_svg(const report_hist *h, FILE *f)
{
    int last = 7;
    int64_t max = 0;
    for (int b = 0; b < STORE_ULP_BUCKETS; b++) {
        if (h->buckets[b] && b > last)
            last = b;
        if (h->buckets[b] > max)
            max = h->buckets[b];
    }
    int n = last + 1, w = 44 + n * 30 + 80, hgt = 230, base = 150, top = 24;
    char label[32], caption[256];
    fputs("<figure class=\"ulp-histogram\"", f);
    attr(f, "data-implementation", h->k.implementation);
    attr(f, "data-variant", h->k.variant);
    attr(f, "data-dtype", h->k.dtype);
    attr_int(f, "data-total", h->total);
    fprintf(f, ">\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
               " viewBox=\"0 0 %d %d\" role=\"img\"",
            w, hgt, w, hgt);
    snprintf(caption, sizeof caption, "ULP-error histogram of %s %s", h->k.variant, h->k.dtype);
    attr(f, "aria-label", caption);
    fputs(">\n", f);
    fprintf(f, "<line class=\"axis\" x1=\"40\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", base, w - 4,
            base);
    fprintf(f, "<text x=\"2\" y=\"%d\">%" PRId64 "</text><text x=\"2\" y=\"%d\">0</text>\n",
            top + 4, max, base);
    for (int b = 0; b < n; b++) {
        int64_t v = h->buckets[b];
        int x = 44 + b * 30;
        int bh = max ? (int)((double)(base - top) * (double)v / (double)max + 0.5) : 0;
        if (v && bh < 2)
            bh = 2;
        verdict_ulp_bucket_label((uint32_t)b, label, sizeof label);
        fprintf(f, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"24\" height=\"%d\"", x,
                base - bh, bh);
        fprintf(f, " data-bucket=\"%d\" data-elements=\"%" PRId64 "\"><title>%s ulp: %" PRId64
                   " elements</title></rect>",
                b, v, label, v);
        if (v)
            fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%" PRId64 "</text>",
                    x + 12, base - bh - 3, v);
        fprintf(f, "<text transform=\"translate(%d,%d) rotate(50)\">%s</text>\n", x + 8, base + 10,
                label);
    }
    fprintf(f, "<text x=\"%d\" y=\"12\" text-anchor=\"end\">elements per ULP distance</text>\n",
            w - 4);
    fputs("</svg>\n<figcaption>", f);
    claim_label(f, &h->k);
    fprintf(f, " &#183; %" PRId64 " wrong values</figcaption></figure>\n", h->total);
}

/* Occurrences in this run per (class, operand classes), largest first. */
static void operands_svg(const report_model *m, FILE *f)
{
    enum { MAX_ROWS = 24 };
    const char *cls[MAX_ROWS], *op[MAX_ROWS];
    int64_t occ[MAX_ROWS];
    size_t n = 0, more = 0;
    for (size_t i = 0; i < m->n_findings; i++) {
        const report_finding *x = &m->findings[i];
        if (!x->operand_class[0])
            continue;
        size_t j = 0;
        while (j < n && (strcmp(cls[j], x->cls) || strcmp(op[j], x->operand_class)))
            j++;
        if (j == n) {
            if (n == MAX_ROWS) {
                more++;
                continue;
            }
            cls[n] = x->cls;
            op[n] = x->operand_class;
            occ[n++] = 0;
        }
        occ[j] += x->occurrences_run;
    }
    if (!n) {
        fputs("<p>No element-level finding in this run.</p>\n", f);
        return;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort, largest first */
        for (size_t j = i; j > 0 && occ[j] > occ[j - 1]; j--) {
            const char *t = cls[j];
            cls[j] = cls[j - 1];
            cls[j - 1] = t;
            t = op[j];
            op[j] = op[j - 1];
            op[j - 1] = t;
            int64_t o = occ[j];
            occ[j] = occ[j - 1];
            occ[j - 1] = o;
        }
    int64_t max = occ[0] ? occ[0] : 1;
    int w = 760, label_w = 330, bar_w = w - label_w - 70, hgt = (int)n * 20 + 10;
    fprintf(f, "<figure id=\"operand-classes\"><svg xmlns=\"http://www.w3.org/2000/svg\""
               " width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\""
               " aria-label=\"findings by difference class and operand classes\">\n",
            w, hgt, w, hgt);
    for (size_t i = 0; i < n; i++) {
        int y = 6 + (int)i * 20;
        int bw = (int)((double)bar_w * (double)occ[i] / (double)max + 0.5);
        if (bw < 2)
            bw = 2;
        fprintf(f, "<text x=\"0\" y=\"%d\">", y + 12);
        esc_html(f, cls[i]);
        fputs(" &#183; ", f);
        esc_html(f, op[i]);
        fprintf(f, "</text><rect class=\"obar\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"14\">"
                   "<title>%" PRId64 " findings</title></rect><text x=\"%d\" y=\"%d\">%" PRId64
                   "</text>\n",
                label_w, y, bw, occ[i], label_w + bw + 4, y + 12, occ[i]);
    }
    fputs("</svg><figcaption>Findings of this run (one per case and signature) by difference "
          "class and the operand classes of A / B", f);
    if (more)
        fprintf(f, "; %zu more signatures not drawn", more);
    fputs("</figcaption></figure>\n", f);
}

static void reproducer(const report_model *m, const report_repro *x, const char *dtype, FILE *f)
{
    char buf[8400], num[64];
    fputs("<div class=\"reproducer\"", f);
    attr_int(f, "data-reproducer", x->id);
    fputs("><dl>\n", f);
    snprintf(num, sizeof num, STORE_REF_REPRODUCER "%" PRId64 " (recorded by run %" PRId64 ")",
             x->id, x->run_id);
    dt_dd(f, "reproducer", num);
    dt_dd(f, "case", x->case_id);
    dt_dd(f, "source", x->source);
    if (x->attrs[0])
        dt_dd(f, "attributes", x->attrs);
    snprintf(buf, sizeof buf, "%s / %s", x->a_shape, x->b_shape);
    dt_dd(f, "shapes A / B", buf);
    if (x->has_element) {
        snprintf(num, sizeof num, "%" PRId64, x->element);
        dt_dd(f, "element", num);
    }
    if (x->expected)
        dt_dd(f, "expected", x->expected);
    if (x->actual)
        dt_dd(f, "actual", x->actual);
    if (x->has_ulps) {
        snprintf(num, sizeof num, "%" PRId64, x->ulps);
        dt_dd(f, "ULP distance", num);
    }
    if (x->note)
        dt_dd(f, "note", x->note);
    /* the operands as values (and bits) first, their bytes after */
    for (int o = 0; o < 2; o++) {
        const char *hex = o ? x->b_hex : x->a_hex;
        int64_t bytes = o ? x->b_bytes : x->a_bytes;
        char values[4 * VERDICT_TEXT_MAX + 64];
        report_operand_values(dtype, hex, bytes, values, sizeof values);
        fputs(o ? "<dt>B</dt><dd class=\"mono\">" : "<dt>A</dt><dd class=\"mono\">", f);
        if (values[0]) {
            el(f, "span", "values", values);
            fputs("<br>", f);
        }
        snprintf(buf, sizeof buf, "bytes: %s%s (%" PRId64 " bytes)", hex,
                 bytes > REPORT_MAX_OPERAND_BYTES ? "..." : "", bytes);
        esc_html(f, buf);
        fputs("</dd>", f);
    }
    fputs("\n</dl><pre class=\"replay\">", f);
    esc_html(f, report_replay_command(m, x->id, buf, sizeof buf));
    fputs("</pre></div>\n", f);
}

/* The bugs (docs/store.md, "bugs"): one row each, its signatures (shown
 * in full under Findings) underneath. */
static void bugs(const report_model *m, FILE *f)
{
    if (!report_bugs_confirmed(m)) {
        fputs("<p>No bug in this run.</p>\n", f);
        return;
    }
    fputs("<table id=\"bugs\"><thead><tr><th>bug</th><th>implementation</th><th>class</th>"
          "<th>kind</th><th>locus</th><th>signatures</th><th>new</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < m->n_bugs; i++) {
        const report_bug *b = &m->bugs[i];
        if (b->emulation_only)
            continue; /* the section seen only under emulation's */
        fputs("<tr class=\"bug\"", f);
        attr_int(f, "data-bug", b->id);
        attr_int(f, "data-signatures", (int64_t)b->n_members);
        fprintf(f, "><td class=\"num\">%" PRId64 "</td>", b->id);
        el(f, "td", NULL, b->implementation);
        el(f, "td", "class", b->cls);
        el(f, "td", NULL, b->kind);
        el(f, "td", NULL, b->locus);
        fprintf(f, "<td class=\"num\">%zu</td><td class=\"num\">%zu</td></tr>\n",
                b->n_members, b->n_new);
        fputs("<tr class=\"bug-signatures\"><td></td><td colspan=\"6\">", f);
        for (size_t k = 0; k < b->n_members; k++) {
            const report_finding *x = &m->findings[b->members[k]];
            if (k == 24 && b->n_members > 25) {
                fprintf(f, " and %zu more", b->n_members - k);
                break;
            }
            fprintf(f, "%s" STORE_REF_SIGNATURE "%" PRId64 " ", k ? ", " : "", x->signature_id);
            esc_html(f, x->k.variant);
            fputc(' ', f);
            esc_html(f, x->k.dtype);
            fputc(' ', f);
            esc_html(f, x->cls);
            if (x->operand_class[0]) {
                fputc(' ', f);
                esc_html(f, x->operand_class);
            }
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* What each claim's cases exercised (docs/store.md, "coverage"): one
 * folded table per claim, without the lists no claim has. */
static void coverage(const report_model *m, FILE *f)
{
    if (!m->n_coverage) {
        fputs("<p>No coverage recorded for this run (certify records it).</p>\n", f);
        return;
    }
    unsigned used = report_coverage_used(m);
    fputs("<div id=\"coverage\">\n", f);
    for (size_t i = 0; i < m->n_coverage; i++) {
        const report_coverage *c = &m->coverage[i];
        const char *v[REPORT_COVERAGE_LISTS];
        report_coverage_lists(c, v);
        fputs("<details class=\"claim-exercised\"", f);
        attr(f, "data-claim-variant", c->k.variant);
        attr(f, "data-claim-dtype", c->k.dtype);
        fputs("><summary>", f);
        claim_label(f, &c->k);
        fprintf(f, ": %" PRId64 " cases</summary>\n<table><thead><tr><th>cases</th>", c->cases);
        for (unsigned k = 0; k < REPORT_COVERAGE_LISTS; k++)
            if (used & (1u << k))
                fprintf(f, "<th>%s</th>", report_coverage_names[k]);
        fputs("</tr></thead><tbody>\n<tr", f);
        attr(f, "data-variant", c->k.variant);
        attr(f, "data-dtype", c->k.dtype);
        fprintf(f, "><td class=\"num\">%" PRId64 "</td>", c->cases);
        for (unsigned k = 0; k < REPORT_COVERAGE_LISTS; k++)
            if (used & (1u << k))
                el(f, "td", NULL, v[k]);
        fputs("</tr>\n</tbody></table></details>\n", f);
    }
    fputs("</div>\n", f);
}

/* The findings that are emulation-only (1) or not (0), each in full. */
static void findings(const report_model *m, FILE *f, int emulated)
{
    if (!emulated && !report_findings_confirmed(m)) {
        fputs("<p>No finding in this run.</p>\n", f);
        return;
    }
    for (size_t i = 0; i < m->n_findings; i++) {
        const report_finding *x = &m->findings[i];
        char text[512];
        if (x->emulation_only != emulated)
            continue;
        fputs("<article class=\"finding\"", f);
        fprintf(f, " id=\"signature-%" PRId64 "\"", x->signature_id);
        attr_int(f, "data-signature", x->signature_id);
        attr(f, "data-class", x->cls);
        attr(f, "data-variant", x->k.variant);
        attr(f, "data-dtype", x->k.dtype);
        attr_int(f, "data-occurrences", x->occurrences_run);
        fputs(">\n<h3>", f);
        el(f, "span", "class", x->cls);
        fputs(" &#183; ", f);
        esc_html(f, x->k.variant);
        fputc(' ', f);
        esc_html(f, x->k.dtype);
        if (x->operand_class[0]) {
            fputs(" &#183; operands ", f);
            el(f, "span", "operand", x->operand_class);
        }
        if (x->is_new)
            fputs("<span class=\"badge new\">new</span>", f);
        if (x->reopened)
            fputs("<span class=\"badge reopened\">reopened</span>", f);
        el(f, "span", "badge", x->status);
        fputs("</h3>\n<p>Signature ", f);
        fprintf(f, STORE_REF_SIGNATURE "%" PRId64 " of ", x->signature_id);
        el(f, "span", "implementation", x->k.implementation);
        snprintf(text, sizeof text,
                 ": %" PRId64 " times in this run, %" PRId64 " in all; first found by run %" PRId64,
                 x->occurrences_run, x->occurrences_total, x->first_run_id);
        esc_html(f, text);
        if (x->reproducers_dropped)
            fprintf(f, "; %" PRId64 " more reproducers counted, not stored", x->reproducers_dropped);
        fputs(".</p>\n", f);
        if (x->ranges) {
            fputs("<p>Ranges (divergence bisect): ", f);
            esc_html(f, x->ranges);
            fputs("</p>\n", f);
        }
        for (size_t r = 0; r < x->n_repros; r++)
            reproducer(m, &x->repros[r], x->k.dtype, f);
        if (!x->n_repros)
            fputs("<p>No reproducer stored.</p>\n", f);
        fputs("</article>\n", f);
    }
}

static void run_metadata(const report_model *m, FILE *f)
{
    const report_run *r = &m->run;
    char buf[256];
    fputs("<dl id=\"run-metadata\">\n", f);
    snprintf(buf, sizeof buf, "%" PRId64, r->id);
    dt_dd(f, "run", buf);
    dt_dd(f, "kind", r->kind);
    dt_dd(f, "status", r->status);
    dt_dd(f, "started", r->started_at);
    dt_dd(f, "finished", r->finished_at[0] ? r->finished_at : "(not finished)");
    if (r->seconds >= 0) {
        snprintf(buf, sizeof buf, "%.1f s", r->seconds);
        dt_dd(f, "duration", buf);
    }
    dt_dd(f, "profile", r->profile);
    if (r->has_seed) {
        snprintf(buf, sizeof buf, "%" PRIu64, (uint64_t)r->seed);
        dt_dd(f, "seed", buf);
    }
    report_shard_label(m, buf, sizeof buf);
    dt_dd(f, "shards", buf[0] ? buf : "not sharded");
    dt_dd(f, "host", r->host);
    fputs("<dt>CPU features</dt><dd><details><summary>", f);
    snprintf(buf, sizeof buf, "%.60s%s", r->cpu_features,
             strlen(r->cpu_features) > 60 ? " ..." : "");
    esc_html(f, buf);
    fputs("</summary><span class=\"mono\" id=\"cpu-features\">", f);
    esc_html(f, r->cpu_features);
    fputs("</span></details></dd>\n", f);
    dt_dd(f, "divergence", r->divergence_version);
    dt_dd(f, "build", r->build_flags);
    dt_dd(f, "sandbox", r->sandbox);
    fputs("<dt>command</dt><dd class=\"mono\">", f);
    esc_html(f, r->args);
    fputs("</dd>\n", f);
    dt_dd(f, "database", m->db_path);
    fputs("</dl>\n<h3>Plugin builds</h3>\n", f);
    fputs("<table id=\"plugins\"><thead><tr><th>name</th><th>version</th><th>SHA-256</th>"
          "<th>path</th></tr></thead><tbody>\n", f);
    for (size_t i = 0; i < m->n_plugins; i++) {
        const report_plugin *p = &m->plugins[i];
        fputs("<tr>", f);
        el(f, "td", "plugin-name", p->name);
        el(f, "td", "plugin-version", p->version);
        el(f, "td", "mono plugin-sha256", p->sha256);
        el(f, "td", "mono", p->path);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (m->n_shards) {
        fputs("<h3>Shards</h3>\n<table id=\"shards\"><thead><tr><th>shard</th><th>status</th>"
              "<th>host</th><th>started</th><th>finished</th></tr></thead><tbody>\n", f);
        for (size_t i = 0; i < m->n_shards; i++) {
            const report_shard *h = &m->shards[i];
            fprintf(f, "<tr><td>%" PRId64 "/%" PRId64 "</td>", h->index, h->count);
            el(f, "td", NULL, h->status);
            el(f, "td", NULL, h->host);
            el(f, "td", NULL, h->started_at);
            el(f, "td", NULL, h->finished_at);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
}

void report_html(const report_model *m, FILE *f)
{
    const char *impls[64];
    size_t n_impls = report_implementations(m, impls, 64), held, total;
    report_claim_totals(m, &held, &total);
    char title[512];

    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"divergence " DVG_VERSION "\">\n<title>", f);
    snprintf(title, sizeof title, "Divergence certificate: %s %s, run %" PRId64,
             n_impls ? impls[0] : "no plugin", n_impls ? report_version_of(m, impls[0]) : "",
             m->run.id);
    esc_html(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n", report_html_style);
    char why[2048];
    if (report_not_complete(m, why, sizeof why)) { /* before anything else */
        el(f, "p", "not-complete", why);
        fputc('\n', f);
    }
    fputs("<h1>Divergence certificate</h1>\n", f);
    for (size_t i = 0; i < n_impls; i++) {
        fputs("<p class=\"subject\">", f);
        el(f, "span", "subject-name", impls[i]);
        fputc(' ', f);
        el(f, "span", "subject-version", report_version_of(m, impls[i]));
        fputs("</p>\n", f);
    }
    char shards[256];
    report_shard_label(m, shards, sizeof shards);
    fprintf(f, "<p class=\"summary\" id=\"claims-held\" data-held=\"%zu\" data-total=\"%zu\">"
               "%zu of %zu claims hold</p>\n<p>Run %" PRId64 " (",
            held, total, held, total, m->run.id);
    esc_html(f, m->run.kind);
    fputs(", ", f);
    esc_html(f, m->run.status);
    fputs("), profile ", f);
    esc_html(f, m->run.profile);
    if (m->run.has_seed)
        fprintf(f, ", seed %" PRIu64, (uint64_t)m->run.seed);
    if (shards[0]) {
        fputs(", ", f);
        esc_html(f, shards);
    }
    fputs(", started ", f);
    esc_html(f, m->run.started_at);
    fputs(" on ", f);
    esc_html(f, m->run.host);
    fputs(".</p>\n</header>\n<main>\n", f);

    fputs("<section id=\"matrix\">\n<h2>Certificate matrix</h2>\n", f);
    for (size_t i = 0; i < n_impls; i++) {
        if (n_impls > 1)
            el(f, "h3", NULL, impls[i]);
        matrix(m, f, impls[i]);
    }
    if (!n_impls)
        fputs("<p>No certificate in this run.</p>\n", f);
    size_t confirmed = report_findings_confirmed(m);
    fprintf(f, "</section>\n<section id=\"bugs-section\">\n<h2>Bugs (%zu bugs, %zu signatures)"
               "</h2>\n", report_bugs_confirmed(m), confirmed);
    bugs(m, f);
    fprintf(f, "</section>\n<section id=\"findings\">\n<h2>Findings (%zu signatures)</h2>\n",
            confirmed);
    findings(m, f, 0);
    if (confirmed < m->n_findings) {
        fprintf(f, "</section>\n<section id=\"emulation-only\">\n<h2>Seen only under emulation, "
                   "not bugs (%zu signatures)</h2>\n<p>", m->n_findings - confirmed);
        esc_html(f, report_emulation_only_text);
        fputs("</p>\n", f);
        findings(m, f, 1);
    }
    fputs("</section>\n<section id=\"classes\">\n<h2>Counts per difference class</h2>\n", f);
    class_totals(m, f);
    fputs("<details><summary>per variant and dtype</summary>\n", f);
    counts_table(m, f);
    fputs("</details>\n</section>\n<section id=\"ulp\">\n<h2>ULP-error histograms</h2>\n", f);
    size_t drawn = 0;
    for (size_t i = 0; i < m->n_hists; i++)
        if (m->hists[i].total) {
            histogram_svg(&m->hists[i], f);
            drawn++;
        }
    if (!drawn)
        fputs("<p>No wrong value in this run.</p>\n", f);
    fputs("</section>\n<section id=\"operands\">\n<h2>Operand classes of findings</h2>\n", f);
    operands_svg(m, f);
    fputs("</section>\n<section id=\"coverage-section\">\n<h2>Coverage: what the cases exercised"
          "</h2>\n", f);
    coverage(m, f);
    fputs("</section>\n<section id=\"run\">\n<h2>Run</h2>\n", f);
    run_metadata(m, f);
    fputs("</section>\n</main>\n<footer>Written by divergence " DVG_VERSION " from ", f);
    esc_html(f, m->db_path);
    fputs(".</footer>\n</body>\n</html>\n", f);
}
