/* SPDX-License-Identifier: MIT */
#include "reports/report.h"

#include <inttypes.h>
#include <string.h>

#include "reports/model.h"
#include "reports/report_format.h"

int report_format_parse(const char *name, report_format *out)
{
    static const struct {
        const char *name;
        report_format fmt;
    } names[] = {{"html", REPORT_HTML},
                 {"junit", REPORT_JUNIT},
                 {"md", REPORT_MARKDOWN},
                 {"markdown", REPORT_MARKDOWN},
                 {"json", REPORT_JSON}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (name && !strcmp(name, names[i].name)) {
            *out = names[i].fmt;
            return 0;
        }
    return -1;
}

static int on_max(void *ctx, const store_row *r)
{
    *(int64_t *)ctx = store_row_type(r, 0) == STORE_INT ? store_row_int(r, 0) : 0;
    return 0;
}

int report_latest_run(store *s, const char *name, int64_t *run_id, char *err, size_t errlen)
{
    static const char *const sql =
        "SELECT max(run_id) FROM ("
        " SELECT p.run_id FROM read_run_plugins p"
        "  JOIN read_plugin_builds b ON b.id = p.plugin_build_id"
        "  WHERE b.name = ?1"
        " UNION ALL SELECT run_id FROM read_certificates WHERE implementation = ?1"
        " UNION ALL SELECT run_id FROM read_counts WHERE implementation = ?1"
        " UNION ALL SELECT g.run_id FROM read_signature_runs g JOIN read_signatures s"
        "  ON s.id = g.signature_id WHERE s.implementation = ?1)";
    store_param p = STORE_PARAM_TEXT(name);
    int64_t id = 0;
    if (store_select(s, sql, &p, 1, on_max, &id)) {
        snprintf(err, errlen, "%s", store_errmsg(s));
        return -1;
    }
    if (!id) {
        snprintf(err, errlen, "%s: no run of plugin '%s'", store_path(s), name);
        return -1;
    }
    *run_id = id;
    return 0;
}

int report_write(store *s, const char *db_path, int64_t run_id, const char *implementation,
                 report_format fmt, FILE *out, char *err, size_t errlen)
{
    report_model *m = NULL;
    int oom = 0;
    if (report_model_load(s, db_path, run_id, implementation, &m, err, errlen))
        return -1;
    switch (fmt) {
    case REPORT_HTML: report_html(m, out); break;
    case REPORT_JUNIT: oom = report_junit(m, out) != 0; break;
    case REPORT_MARKDOWN: report_markdown(m, out); break;
    case REPORT_JSON: report_json(m, out); break;
    }
    report_model_free(m);
    if (oom) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    if (fflush(out) != 0 || ferror(out)) {
        snprintf(err, errlen, "write error");
        return -1;
    }
    return 0;
}

int report_same_claim(const report_key *a, const report_key *b)
{
    return !strcmp(a->implementation, b->implementation) && !strcmp(a->variant, b->variant) &&
           !strcmp(a->dtype, b->dtype);
}

void report_claim_counts(const report_model *m, const report_key *k, size_t *first, size_t *n)
{
    *first = 0;
    *n = 0;
    for (size_t i = 0; i < m->n_counts; i++) {
        if (!report_same_claim(&m->counts[i].k, k))
            continue;
        if (!*n)
            *first = i;
        ++*n;
    }
}

const report_hist *report_claim_hist(const report_model *m, const report_key *k)
{
    for (size_t i = 0; i < m->n_hists; i++)
        if (report_same_claim(&m->hists[i].k, k))
            return &m->hists[i];
    return NULL;
}

void report_claim_totals(const report_model *m, size_t *held, size_t *total)
{
    *held = 0;
    *total = m->n_certs;
    for (size_t i = 0; i < m->n_certs; i++)
        *held += (size_t)m->certs[i].held;
}

const char *report_version_of(const report_model *m, const char *implementation)
{
    for (size_t i = 0; i < m->n_plugins; i++)
        if (!strcmp(m->plugins[i].name, implementation))
            return m->plugins[i].version;
    return "";
}

static void add_name(const char **out, size_t *n, size_t max, const char *name)
{
    for (size_t j = 0; j < *n; j++)
        if (!strcmp(out[j], name))
            return;
    if (*n < max)
        out[(*n)++] = name;
}

size_t report_implementations(const report_model *m, const char **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_plugins; i++)
        add_name(out, &n, max, m->plugins[i].name);
    for (size_t i = 0; i < m->n_certs; i++)
        add_name(out, &n, max, m->certs[i].k.implementation);
    for (size_t i = 0; i < m->n_counts; i++)
        add_name(out, &n, max, m->counts[i].k.implementation);
    for (size_t i = 0; i < m->n_findings; i++)
        add_name(out, &n, max, m->findings[i].k.implementation);
    return n;
}

void report_matrix_axes(const report_model *m, const char *impl, const char **rows, size_t *nr,
                        const char **cols, size_t *nc, size_t max)
{
    uint32_t col_id[REPORT_MAX_AXIS];
    *nr = *nc = 0;
    if (max > REPORT_MAX_AXIS)
        max = REPORT_MAX_AXIS;
    /* Certificates are sorted by variant id, so rows come in order;
     * columns are kept in dtype order by insertion. */
    for (size_t i = 0; i < m->n_certs; i++) {
        const report_cert *c = &m->certs[i];
        if (strcmp(c->k.implementation, impl))
            continue;
        add_name(rows, nr, max, c->k.variant);
        size_t j = 0;
        while (j < *nc && strcmp(cols[j], c->k.dtype))
            j++;
        if (j < *nc || *nc == max)
            continue;
        size_t at = (*nc)++;
        while (at > 0 && col_id[at - 1] > c->k.dtype_id) {
            cols[at] = cols[at - 1];
            col_id[at] = col_id[at - 1];
            at--;
        }
        cols[at] = c->k.dtype;
        col_id[at] = c->k.dtype_id;
    }
}

const report_cert *report_find_cert(const report_model *m, const char *impl, const char *variant,
                                    const char *dtype)
{
    for (size_t i = 0; i < m->n_certs; i++) {
        const report_cert *c = &m->certs[i];
        if (!strcmp(c->k.implementation, impl) && !strcmp(c->k.variant, variant) &&
            !strcmp(c->k.dtype, dtype))
            return c;
    }
    return NULL;
}
