/* SPDX-License-Identifier: MIT */
/*
 * This file contains the questions `divergence query` asks the store
 * (runs, new, bugs, fixed, history, regressions, diff): their read-only SQL over
 * the store's read views with bound parameters, and the two printers of
 * the answers, aligned tables and JSON.
 */
#include "reports/query.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "reports/escape.h"

/* ------------------------------------------------------------------------
 * The SQL. docs/store.md documents the views they use.
 * ---------------------------------------------------------------------- */
/* ?1 plugin or NULL */
static const char *const sql_runs =
    "SELECT run_id AS run, kind, status, started_at, host, plugins, profile, seed,"
    " CASE WHEN merged_shards > 0 THEN merged_shards || ' of ' || shard_count || ' merged'"
    "  WHEN shard_count IS NOT NULL THEN shard_index || '/' || shard_count ELSE '' END AS shards,"
    " elements, differences, new_signatures AS new, signatures_in_run AS findings,"
    " conformant AS held, not_conformant AS failed"
    " FROM v_run_summary WHERE ?1 IS NULL OR run_id IN (SELECT p.run_id FROM read_run_plugins p"
    "  JOIN read_plugin_builds b ON b.id = p.plugin_build_id WHERE b.name = ?1)"
    " ORDER BY run_id";

/* ?1 since, ?2 plugin or NULL: the bugs with a signature first found
 * after run ?1, each with its signatures and those new since ?1. */
static const char *const sql_bugs =
    "SELECT b.id AS bug, b.implementation, b.class, b.kind, b.locus,"
    " count(s.id) AS signatures, sum(s.first_run_id > ?1) AS new_signatures,"
    " sum(s.occurrences) AS occurrences, b.first_run_id AS first_run,"
    " max(s.last_run_id) AS last_run,"
    " CASE WHEN sum(s.status = 'open') > 0 THEN 'open' ELSE 'fixed' END AS status,"
    " group_concat(DISTINCT s.variant) AS variants, group_concat(DISTINCT s.dtype) AS dtypes"
    " FROM read_bugs b JOIN read_signatures s ON s.bug_id = b.id"
    " WHERE ?2 IS NULL OR b.implementation = ?2"
    " GROUP BY b.id HAVING max(s.first_run_id) > ?1 ORDER BY b.first_run_id, b.id";

/* new since ?1: first found after it, or reopened (seen again after a
 * fix) after it (schema 10) */
static const char *const sql_new =
    "SELECT id AS signature, bug_id AS bug, implementation, first_version AS version, variant,"
    " dtype, class, operand_class, first_run_id AS first_run, first_seen, occurrences, status,"
    " CASE WHEN first_run_id > ?1 THEN 'new' ELSE 'reopened' END AS change,"
    " reopened_run_id AS reopened_run"
    " FROM v_signatures WHERE (first_run_id > ?1 OR reopened_run_id > ?1)"
    " AND (?2 IS NULL OR implementation = ?2)"
    " ORDER BY bug_id, first_run_id, id";

static const char *const sql_fixed =
    "SELECT id AS signature, implementation, variant, dtype, class, operand_class,"
    " last_run_id AS last_seen_run, last_version, fixed_run_id AS fixed_by_run, fixed_version"
    " FROM v_signatures WHERE status = 'fixed' AND fixed_run_id > ?1"
    " AND (?2 IS NULL OR implementation = ?2) ORDER BY fixed_run_id, id";

/* ?1 signature */
static const char *const sql_signature =
    "SELECT id AS signature, implementation, variant, dtype, class, operand_class, status,"
    " first_run_id AS first_run, first_version, first_seen, last_run_id AS last_run,"
    " last_version, last_seen, fixed_run_id AS fixed_by_run, fixed_version,"
    " reopened_run_id AS reopened_by_run, occurrences,"
    " reproducers_stored, reproducers_dropped FROM v_signatures WHERE id = ?1";

static const char *const sql_history =
    "WITH s AS (SELECT implementation, variant, dtype FROM read_signatures WHERE id = ?1),"
    " r AS (SELECT g.run_id FROM read_signature_runs g WHERE g.signature_id = ?1"
    "  UNION SELECT t.run_id FROM read_certificates t JOIN s ON t.implementation = s.implementation"
    "  AND t.variant = s.variant AND t.dtype = s.dtype"
    "  UNION SELECT e.run_id FROM read_signature_events e WHERE e.signature_id = ?1)"
    " SELECT r.run_id AS run, x.kind, x.started_at,"
    " (SELECT group_concat(DISTINCT b.version) FROM read_run_plugins p"
    "   JOIN read_plugin_builds b ON b.id = p.plugin_build_id JOIN s ON b.name = s.implementation"
    "   WHERE p.run_id = r.run_id) AS version,"
    " (SELECT t.verdict FROM read_certificates t JOIN s ON t.implementation = s.implementation"
    "   AND t.variant = s.variant AND t.dtype = s.dtype WHERE t.run_id = r.run_id) AS verdict,"
    " CASE WHEN g.run_id IS NULL THEN 'absent' ELSE 'seen' END AS finding,"
    " coalesce(g.occurrences, 0) AS occurrences,"
    " coalesce((SELECT group_concat(e.kind, ', ') FROM read_signature_events e"
    "   WHERE e.signature_id = ?1 AND e.run_id = r.run_id), '') AS change"
    " FROM r JOIN read_runs x ON x.id = r.run_id"
    " LEFT JOIN read_signature_runs g ON g.signature_id = ?1 AND g.run_id = r.run_id"
    " ORDER BY r.run_id";

/* ?1 signature: its regression and fixed ranges (`divergence bisect`,
 * schema 7). before/after: the last build before the change and the first
 * after it, each as "version (sha256 prefix)"; before NULL: the change
 * lies before the first build bisected. */
static const char *const sql_ranges =
    "SELECT kind AS range,"
    " CASE WHEN before_build_id IS NOT NULL THEN before_version || ' ('"
    "  || substr(before_sha256, 1, 12) || ')' END AS before,"
    " after_version || ' (' || substr(after_sha256, 1, 12) || ')' AS after,"
    " builds, replays, CASE WHEN monotonic THEN 'yes' ELSE 'no' END AS monotonic, note,"
    " recorded_at FROM v_signature_ranges WHERE signature_id = ?1 ORDER BY kind DESC";

/* ?1 plugin, ?2 since */
static const char *const sql_regressions =
    "SELECT c.variant, c.dtype, c.previous_version AS held_in, c.previous_run_id AS held_run,"
    " c.version AS fails_in, c.run_id AS failing_run, c.verdict,"
    " (SELECT group_concat(k.class || ' ' || k.elements, ', ') FROM read_counts k"
    "   WHERE k.run_id = c.run_id AND k.implementation = c.implementation"
    "   AND k.variant = c.variant AND k.dtype = c.dtype AND k.class <> 'match') AS classes,"
    " (SELECT group_concat(g.signature_id, ' ') FROM read_signature_runs g"
    "   JOIN read_signatures s ON s.id = g.signature_id WHERE g.run_id = c.run_id"
    "   AND s.implementation = c.implementation AND s.variant = c.variant"
    "   AND s.dtype = c.dtype) AS signatures,"
    " (SELECT group_concat(e.signature_id, ' ') FROM read_signature_events e"
    "   JOIN read_signatures s ON s.id = e.signature_id WHERE e.run_id = c.run_id"
    "   AND e.kind = 'reopened' AND s.implementation = c.implementation"
    "   AND s.variant = c.variant AND s.dtype = c.dtype) AS reopened"
    " FROM v_certificate_changes c WHERE c.implementation = ?1 AND c.previously_held = 1"
    " AND c.held = 0 AND c.version IS NOT c.previous_version AND c.run_id > ?2"
    " ORDER BY c.run_id, c.variant, c.dtype";

/* ?1 run1, ?2 run2 */
static const char *const sql_diff_certs =
    "WITH a AS (SELECT implementation, variant, dtype, verdict FROM read_certificates"
    "  WHERE run_id = ?1),"
    " b AS (SELECT implementation, variant, dtype, verdict FROM read_certificates"
    "  WHERE run_id = ?2),"
    " k AS (SELECT implementation, variant, dtype FROM a"
    "  UNION SELECT implementation, variant, dtype FROM b)"
    " SELECT k.implementation, k.variant, k.dtype, a.verdict AS run1, b.verdict AS run2"
    " FROM k LEFT JOIN a ON a.implementation = k.implementation AND a.variant = k.variant"
    "  AND a.dtype = k.dtype"
    " LEFT JOIN b ON b.implementation = k.implementation AND b.variant = k.variant"
    "  AND b.dtype = k.dtype"
    " WHERE a.verdict IS NOT b.verdict ORDER BY 1, 2, 3";

static const char *const sql_diff_sigs =
    "WITH a AS (SELECT signature_id, occurrences FROM read_signature_runs WHERE run_id = ?1),"
    " b AS (SELECT signature_id, occurrences FROM read_signature_runs WHERE run_id = ?2),"
    " k AS (SELECT signature_id FROM a UNION SELECT signature_id FROM b)"
    " SELECT s.id AS signature, s.implementation, s.variant, s.dtype, s.class, s.operand_class,"
    " coalesce(a.occurrences, 0) AS run1, coalesce(b.occurrences, 0) AS run2,"
    " CASE WHEN a.signature_id IS NULL THEN 'appeared' ELSE 'gone' END AS change"
    " FROM k JOIN read_signatures s ON s.id = k.signature_id"
    " LEFT JOIN a ON a.signature_id = k.signature_id"
    " LEFT JOIN b ON b.signature_id = k.signature_id"
    " WHERE a.signature_id IS NULL OR b.signature_id IS NULL ORDER BY change, s.id";

static const char *const sql_diff_counts =
    "WITH a AS (SELECT implementation, variant, dtype, class, elements FROM read_counts"
    "  WHERE run_id = ?1),"
    " b AS (SELECT implementation, variant, dtype, class, elements FROM read_counts"
    "  WHERE run_id = ?2),"
    " k AS (SELECT implementation, variant, dtype, class FROM a"
    "  UNION SELECT implementation, variant, dtype, class FROM b)"
    " SELECT k.implementation, k.variant, k.dtype, k.class,"
    " coalesce(a.elements, 0) AS run1, coalesce(b.elements, 0) AS run2"
    " FROM k LEFT JOIN a ON a.implementation = k.implementation AND a.variant = k.variant"
    "  AND a.dtype = k.dtype AND a.class = k.class"
    " LEFT JOIN b ON b.implementation = k.implementation AND b.variant = k.variant"
    "  AND b.dtype = k.dtype AND b.class = k.class"
    " WHERE coalesce(a.elements, 0) <> coalesce(b.elements, 0) ORDER BY 1, 2, 3, 4";

static const char *const sql_run_exists = "SELECT count(*) FROM read_runs WHERE id = ?1";

static const char *const names[] = {"runs", "new", "bugs", "fixed", "history", "regressions",
                                    "diff"};

int query_known(const char *name)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (name && !strcmp(name, names[i]))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------
 * Rows, collected to align the columns.
 * ---------------------------------------------------------------------- */
typedef struct cell {
    char *text;  /* escaped for the terminal (tables) or as JSON (json) */
    size_t width; /* code points of text */
} cell;

typedef struct result {
    int json;
    int failed;
    int n_cols;
    char **names;
    cell *cells;  /* rows x n_cols */
    size_t rows, cap;
} result;

static size_t width_of(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* The value of column i, formatted (JSON value, or terminal text), in a
 * string from open_memstream: libc's heap, freed with free(), the one
 * exception to harness/base/alloc.h (the escapers write to a FILE). */
static char *format_value(const store_row *r, int i, int json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    switch (store_row_type(r, i)) {
    case STORE_NULL: fputs(json ? "null" : "", f); break;
    case STORE_INT: fprintf(f, "%" PRId64, store_row_int(r, i)); break;
    case STORE_REAL: fprintf(f, json ? "%.17g" : "%g", store_row_real(r, i)); break;
    case STORE_BLOB: {
        size_t n;
        const unsigned char *p = store_row_blob(r, i, &n);
        fputs(json ? "\"" : "", f);
        for (size_t k = 0; k < n; k++)
            fprintf(f, "%02x", p[k]);
        fputs(json ? "\"" : "", f);
        break;
    }
    default:
        if (json)
            esc_json(f, store_row_text(r, i));
        else
            esc_term(f, store_row_text(r, i));
        break;
    }
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int on_row(void *ctx, const store_row *r)
{
    result *res = ctx;
    if (!res->names) {
        res->n_cols = store_row_columns(r);
        if (!(res->names = dvg_calloc((size_t)res->n_cols + 1, sizeof *res->names)))
            return res->failed = 1;
        for (int i = 0; i < res->n_cols; i++)
            if (!(res->names[i] = dvg_strdup(store_row_name(r, i))))
                return res->failed = 1;
    }
    if (res->rows == res->cap) {
        size_t ncap = res->cap ? 2 * res->cap : 32;
        cell *grown = dvg_realloc(res->cells, ncap * (size_t)res->n_cols * sizeof *grown);
        if (!grown)
            return res->failed = 1;
        res->cells = grown;
        res->cap = ncap;
    }
    cell *row = &res->cells[res->rows * (size_t)res->n_cols];
    for (int i = 0; i < res->n_cols; i++) {
        row[i].text = format_value(r, i, res->json);
        if (!row[i].text) {
            for (int k = 0; k < i; k++)
                free(row[k].text);
            return res->failed = 1;
        }
        row[i].width = width_of(row[i].text);
    }
    res->rows++;
    return 0;
}

static void result_free(result *res)
{
    for (size_t i = 0; i < res->rows * (size_t)res->n_cols; i++)
        free(res->cells[i].text);
    dvg_free(res->cells);
    for (int i = 0; res->names && i < res->n_cols; i++)
        dvg_free(res->names[i]);
    dvg_free(res->names);
    memset(res, 0, sizeof *res);
}

/* Column names of a statement that returned no row: none to print. */
static void print_table(const result *res, FILE *out)
{
    if (!res->rows) {
        fputs("(none)\n", out);
        return;
    }
    size_t *w = dvg_calloc((size_t)res->n_cols, sizeof *w);
    if (!w)
        return;
    for (int c = 0; c < res->n_cols; c++) {
        w[c] = width_of(res->names[c]);
        for (size_t r = 0; r < res->rows; r++)
            if (res->cells[r * (size_t)res->n_cols + c].width > w[c])
                w[c] = res->cells[r * (size_t)res->n_cols + c].width;
    }
    for (int c = 0; c < res->n_cols; c++)
        fprintf(out, "%s%-*s", c ? "  " : "", c + 1 < res->n_cols ? (int)w[c] : 0,
                res->names[c]);
    fputc('\n', out);
    for (size_t r = 0; r < res->rows; r++) {
        for (int c = 0; c < res->n_cols; c++) {
            const cell *x = &res->cells[r * (size_t)res->n_cols + c];
            fputs(c ? "  " : "", out);
            fputs(x->text, out);
            if (c + 1 < res->n_cols)
                for (size_t pad = x->width; pad < w[c]; pad++)
                    fputc(' ', out);
        }
        fputc('\n', out);
    }
    dvg_free(w);
}

static void print_json(const result *res, FILE *out)
{
    fputc('[', out);
    for (size_t r = 0; r < res->rows; r++) {
        fputs(r ? ",\n  {" : "\n  {", out);
        for (int c = 0; c < res->n_cols; c++) {
            fputs(c ? ", " : "", out);
            esc_json(out, res->names[c]);
            fprintf(out, ": %s", res->cells[r * (size_t)res->n_cols + c].text);
        }
        fputc('}', out);
    }
    fputs(res->rows ? "\n]" : "]", out);
}

typedef struct section {
    const char *title;
    const char *sql;
    store_param params[2];
    size_t n_params;
} section;

static int on_count(void *ctx, const store_row *r)
{
    *(int64_t *)ctx = store_row_int(r, 0);
    return 0;
}

static int run_exists(store *s, int64_t id, int *exists, char *err, size_t errlen)
{
    int64_t n = 0;
    store_param p = STORE_PARAM_INT(id);
    if (store_select(s, sql_run_exists, &p, 1, on_count, &n)) {
        snprintf(err, errlen, "%s", store_errmsg(s));
        return -1;
    }
    *exists = n > 0;
    if (!n)
        snprintf(err, errlen, "%s: no run %" PRId64, store_path(s), id);
    return 0;
}

int query_run(store *s, const query_request *q, FILE *out, char *err, size_t errlen)
{
    section sec[3];
    size_t n = 0;
    int exists = 1;
    const char *name = q->name ? q->name : "";
    store_param plugin = STORE_PARAM_TEXT(q->plugin);

    err[0] = '\0';
    if (!strcmp(name, "runs")) {
        sec[n++] = (section){"runs", sql_runs, {plugin}, 1};
    } else if (!strcmp(name, "new")) {
        sec[n++] = (section){"bugs", sql_bugs, {STORE_PARAM_INT(q->since), plugin}, 2};
        sec[n++] = (section){"new", sql_new, {STORE_PARAM_INT(q->since), plugin}, 2};
    } else if (!strcmp(q->name, "bugs")) {
        sec[n++] = (section){"bugs", sql_bugs, {STORE_PARAM_INT(q->since), plugin}, 2};
    } else if (!strcmp(name, "fixed")) {
        sec[n++] = (section){"fixed", sql_fixed, {STORE_PARAM_INT(q->since), plugin}, 2};
    } else if (!strcmp(name, "history")) {
        store_param sig = STORE_PARAM_INT(q->signature);
        sec[n++] = (section){"signature", sql_signature, {sig}, 1};
        sec[n++] = (section){"runs", sql_history, {sig}, 1};
        sec[n++] = (section){"ranges", sql_ranges, {sig}, 1};
    } else if (!strcmp(name, "regressions")) {
        sec[n++] = (section){"regressions", sql_regressions, {plugin, STORE_PARAM_INT(q->since)}, 2};
    } else if (!strcmp(name, "diff")) {
        store_param p2[2] = {STORE_PARAM_INT(q->run1), STORE_PARAM_INT(q->run2)};
        if (run_exists(s, q->run1, &exists, err, errlen))
            return -1;
        if (exists && run_exists(s, q->run2, &exists, err, errlen))
            return -1;
        if (!exists)
            return 1;
        sec[n++] = (section){"certificates", sql_diff_certs, {p2[0], p2[1]}, 2};
        sec[n++] = (section){"signatures", sql_diff_sigs, {p2[0], p2[1]}, 2};
        sec[n++] = (section){"counts", sql_diff_counts, {p2[0], p2[1]}, 2};
    } else {
        snprintf(err, errlen, "unknown query '%s'", name);
        return -1;
    }
    if (q->json)
        fputc('{', out);
    for (size_t i = 0; i < n; i++) {
        result res = {0};
        res.json = q->json;
        if (store_select(s, sec[i].sql, sec[i].params, sec[i].n_params, on_row, &res)) {
            snprintf(err, errlen, "%s", res.failed ? "out of memory" : store_errmsg(s));
            result_free(&res);
            return -1;
        }
        if (!strcmp(name, "history") && i == 0 && !res.rows) {
            snprintf(err, errlen, "%s: no signature %" PRId64, store_path(s), q->signature);
            result_free(&res);
            return 1;
        }
        if (q->json) {
            fputs(i ? ",\n " : "", out);
            esc_json(out, sec[i].title);
            fputs(": ", out);
            print_json(&res, out);
        } else {
            if (n > 1)
                fprintf(out, "%s%s:\n", i ? "\n" : "", sec[i].title);
            print_table(&res, out);
        }
        result_free(&res);
    }
    if (q->json)
        fputs("}\n", out);
    return 0;
}
