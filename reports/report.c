/* SPDX-License-Identifier: MIT */
/*
 * This file contains the entry points of `divergence report`
 * (reports/report.h): the format names, the choice of the newest run of a
 * plugin, and report_write, which loads the report model once
 * (reports/model.h) and hands it to the writer of the asked format
 * (reports/report_format.h). It only dispatches: what a report shows is
 * the model's, how it looks is each writer's.
 */
#include "reports/report.h"

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
    static const char *const any_sql = "SELECT max(id) FROM read_runs";
    store_param p = STORE_PARAM_TEXT(name);
    int64_t id = 0;
    if (name ? store_select(s, sql, &p, 1, on_max, &id)
             : store_select(s, any_sql, NULL, 0, on_max, &id)) {
        snprintf(err, errlen, "%s", store_errmsg(s));
        return -1;
    }
    if (!id && !name) {
        snprintf(err, errlen, "%s: the database holds no run", store_path(s));
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
