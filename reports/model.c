/* SPDX-License-Identifier: MIT */
/*
 * This file contains the report model (reports/model.h): the loader that
 * reads one run from the store (with its bugs and its claims' coverage)
 * into a model whose strings live in one pool, sorted into the order every writer shows them, and the lookups the
 * writers make over a loaded model (claims, counts, histograms,
 * implementations, the certificate matrix, replay commands, shard labels).
 */
#include "reports/model.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/judge/verdict.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"
#include "reports/escape.h"

/* ------------------------------------------------------------------------
 * The SQL. ?1 is the run, ?2 the implementation or NULL (all of them).
 * ---------------------------------------------------------------------- */
static const char *const sql_run =
    "SELECT id, kind, status, started_at, finished_at, profile, host, cpu_features,"
    " build_flags, divergence_version, seed, shard_index, shard_count, args,"
    " (julianday(finished_at) - julianday(started_at)) * 86400.0"
    " FROM read_runs WHERE id = ?1";
/* A view of its own: a file of schema version 3 or older has no column. */
static const char *const sql_sandbox = "SELECT sandbox FROM read_run_sandbox WHERE run_id = ?1";
static const char *const sql_shards =
    "SELECT shard_index, shard_count, status, started_at, finished_at, host, cpu_features, args"
    " FROM read_run_shards WHERE run_id = ?1 ORDER BY shard_index";
static const char *const sql_plugins =
    "SELECT b.name, b.version, b.sha256, b.path FROM read_run_plugins p"
    " JOIN read_plugin_builds b ON b.id = p.plugin_build_id"
    " WHERE p.run_id = ?1 AND (?2 IS NULL OR b.name = ?2) ORDER BY b.name, b.version, b.id";
static const char *const sql_certs =
    "SELECT implementation, variant, dtype, verdict, profile, cases, elements"
    " FROM read_certificates WHERE run_id = ?1 AND (?2 IS NULL OR implementation = ?2)";
static const char *const sql_counts =
    "SELECT implementation, variant, dtype, class, elements, cases FROM read_counts"
    " WHERE run_id = ?1 AND (?2 IS NULL OR implementation = ?2)";
static const char *const sql_hists =
    "SELECT implementation, variant, dtype, bucket, elements FROM read_ulp_histograms"
    " WHERE run_id = ?1 AND (?2 IS NULL OR implementation = ?2)"
    " ORDER BY implementation, variant, dtype";
static const char *const sql_findings =
    "SELECT s.id, s.implementation, s.variant, s.dtype, s.class, s.operand_class, s.status,"
    " g.occurrences, s.occurrences, s.first_run_id, s.reproducers_dropped,"
    " coalesce(s.bug_id, 0),"
    " (SELECT group_concat(x.range, '; ') FROM (SELECT kind || ' '"
    "   || coalesce(before_version, '(before the first build)') || ' .. ' || after_version"
    "   AS range FROM v_signature_ranges WHERE signature_id = s.id ORDER BY kind DESC) x),"
    " (SELECT count(*) FROM read_signature_events e WHERE e.signature_id = s.id"
    "   AND e.run_id = ?1 AND e.kind = 'reopened')"
    " FROM read_signature_runs g JOIN read_signatures s ON s.id = g.signature_id"
    " WHERE g.run_id = ?1 AND (?2 IS NULL OR s.implementation = ?2)";
static const char *const sql_bugs =
    "SELECT b.id, b.implementation, b.class, b.kind, b.locus FROM read_bugs b"
    " WHERE b.id IN (SELECT s.bug_id FROM read_signature_runs g"
    "  JOIN read_signatures s ON s.id = g.signature_id"
    "  WHERE g.run_id = ?1 AND (?2 IS NULL OR s.implementation = ?2)) ORDER BY b.id";
static const char *const sql_coverage =
    "SELECT implementation, variant, dtype, cases, ranks, inner_sizes, broadcast_classes,"
    " size_tiers, paths, alignments FROM read_coverage"
    " WHERE run_id = ?1 AND (?2 IS NULL OR implementation = ?2)";
/* ?1 signature, ?2 run (its own reproducers first, and of those a crash
 * narrowed to its one pair of operands first), ?3 how many. */
static const char *const sql_repros =
    "SELECT id, run_id, case_id, source, attrs, a_shape, b_shape, element, expected, actual,"
    " ulps, note, length(a), length(b), hex(substr(a, 1, ?4)), hex(substr(b, 1, ?4))"
    " FROM read_reproducers WHERE signature_id = ?1 ORDER BY run_id = ?2 DESC,"
    " coalesce(note, '') LIKE '%; narrowed to output element %' DESC, id LIMIT ?3";

/* ------------------------------------------------------------------------
 * Strings and arrays.
 * ---------------------------------------------------------------------- */
typedef struct chunk {
    struct chunk *next;
    char text[];
} chunk;

typedef struct loader {
    report_model *m;
    int failed;              /* out of memory */
    report_finding *finding; /* the finding whose reproducers are read */
    size_t cap_shards, cap_plugins, cap_certs, cap_counts, cap_hists, cap_findings, cap_bugs,
        cap_coverage;
} loader;

/* A copy of `text` owned by the model; NULL stays NULL. */
static const char *keep(loader *l, const char *text)
{
    if (!text)
        return NULL;
    size_t n = strlen(text);
    chunk *c = dvg_malloc(sizeof *c + n + 1);
    if (!c) {
        l->failed = 1;
        return "";
    }
    memcpy(c->text, text, n + 1);
    c->next = (chunk *)l->m->pool;
    l->m->pool = (char *)c;
    return c->text;
}

/* A text column; "" for NULL. */
static const char *col(loader *l, const store_row *r, int i)
{
    const char *t = store_row_text(r, i);
    return keep(l, t ? t : "");
}

/* A text column that may be NULL. */
static const char *col_null(loader *l, const store_row *r, int i)
{
    return keep(l, store_row_text(r, i));
}

/* A new zeroed element at the end of *items (n of them, cap allocated). */
static void *grow(loader *l, void **items, size_t *n, size_t *cap, size_t size)
{
    if (*n == *cap) {
        size_t ncap = *cap ? 2 * *cap : 16;
        void *p = dvg_realloc(*items, ncap * size);
        if (!p) {
            l->failed = 1;
            return NULL;
        }
        *items = p;
        *cap = ncap;
    }
    void *slot = (char *)*items + (*n)++ * size;
    memset(slot, 0, size);
    return slot;
}


static void key_of(loader *l, const store_row *r, int first, report_key *k)
{
    k->implementation = col(l, r, first);
    k->variant = col(l, r, first + 1);
    k->dtype = col(l, r, first + 2);
    const oracle_variant *v = oracle_variant_by_name(k->variant);
    uint32_t d = oracle_dtype_by_tag(k->dtype);
    k->variant_id = v ? v->id : DVG_VARIANT_COUNT;
    k->dtype_id = d ? d : DVG_DTYPE_COUNT;
}

/* One column of a row and the field of the model's item it fills: a text
 * ("" for NULL), a text that may be NULL, an int64_t, an int64_t with an
 * int flag set when the column is not NULL, or a report_key (three
 * columns: implementation, variant, dtype). */
enum { COL_TEXT, COL_TEXT_NULL, COL_INT, COL_INT_OR_NULL, COL_KEY };
typedef struct column {
    int kind;
    size_t at, flag_at; /* offsetof the field (and of its flag) */
} column;
#define TEXT(T, f) {COL_TEXT, offsetof(T, f), 0}
#define TEXT_NULL(T, f) {COL_TEXT_NULL, offsetof(T, f), 0}
#define INT(T, f) {COL_INT, offsetof(T, f), 0}
#define INT_OR_NULL(T, f, has) {COL_INT_OR_NULL, offsetof(T, f), offsetof(T, has)}
#define KEY(T, f) {COL_KEY, offsetof(T, f), 0}
#define COLUMNS(cols) (sizeof(cols) / sizeof(cols)[0])

/* Fills item from row r, its columns in the order cols names them. */
static void fill_row(loader *l, const store_row *r, void *item, const column *cols, size_t n)
{
    int i = 0;
    for (size_t c = 0; c < n; c++) {
        char *field = (char *)item + cols[c].at;
        switch (cols[c].kind) {
        case COL_TEXT:
            *(const char **)(void *)field = col(l, r, i++);
            break;
        case COL_TEXT_NULL:
            *(const char **)(void *)field = col_null(l, r, i++);
            break;
        case COL_INT:
            *(int64_t *)(void *)field = store_row_int(r, i++);
            break;
        case COL_INT_OR_NULL:
            *(int *)(void *)((char *)item + cols[c].flag_at) = store_row_type(r, i) == STORE_INT;
            *(int64_t *)(void *)field = store_row_int(r, i++);
            break;
        default: /* COL_KEY */
            key_of(l, r, i, (report_key *)(void *)field);
            i += 3;
            break;
        }
    }
}

/* A new item at the end of *items (grow), filled from row r; NULL out of
 * memory (l->failed). */
static void *add_row(loader *l, const store_row *r, void **items, size_t *n, size_t *cap,
                     size_t size, const column *cols, size_t n_cols)
{
    void *item = grow(l, items, n, cap, size);
    if (!item)
        return NULL;
    fill_row(l, r, item, cols, n_cols);
    return l->failed ? NULL : item;
}

static int key_cmp(const report_key *a, const report_key *b)
{
    int c = strcmp(a->implementation, b->implementation);
    if (c)
        return c;
    if (a->variant_id != b->variant_id)
        return a->variant_id < b->variant_id ? -1 : 1;
    if ((c = strcmp(a->variant, b->variant)))
        return c;
    if (a->dtype_id != b->dtype_id)
        return a->dtype_id < b->dtype_id ? -1 : 1;
    return strcmp(a->dtype, b->dtype);
}

static uint32_t class_id(const char *name)
{
    int k = oracle_class_by_name(name);
    return k < 0 ? ORACLE_CLASS_COUNT : (uint32_t)k;
}

static int cert_cmp(const void *a, const void *b)
{
    return key_cmp(&((const report_cert *)a)->k, &((const report_cert *)b)->k);
}

static int hist_cmp(const void *a, const void *b)
{
    return key_cmp(&((const report_hist *)a)->k, &((const report_hist *)b)->k);
}

static int count_cmp(const void *pa, const void *pb)
{
    const report_count *a = pa, *b = pb;
    int c = key_cmp(&a->k, &b->k);
    if (c)
        return c;
    if (a->cls_id != b->cls_id)
        return a->cls_id < b->cls_id ? -1 : 1;
    return strcmp(a->cls, b->cls);
}

static int finding_cmp(const void *pa, const void *pb)
{
    const report_finding *a = pa, *b = pb;
    int c = key_cmp(&a->k, &b->k);
    if (c)
        return c;
    if (a->cls_id != b->cls_id)
        return a->cls_id < b->cls_id ? -1 : 1;
    if ((c = strcmp(a->cls, b->cls)))
        return c;
    return a->signature_id < b->signature_id ? -1 : a->signature_id > b->signature_id;
}

/* qsort, which must not see a NULL array even when it is empty. */
static void sort(void *items, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(items, n, size, cmp);
}

/* ------------------------------------------------------------------------
 * Row callbacks.
 * ---------------------------------------------------------------------- */
static int on_run(void *ctx, const store_row *r)
{
    loader *l = ctx;
    report_run *run = &l->m->run;
    run->id = store_row_int(r, 0);
    run->kind = col(l, r, 1);
    run->status = col(l, r, 2);
    run->started_at = col(l, r, 3);
    run->finished_at = col(l, r, 4);
    run->profile = col(l, r, 5);
    run->host = col(l, r, 6);
    run->cpu_features = col(l, r, 7);
    run->build_flags = col(l, r, 8);
    run->divergence_version = col(l, r, 9);
    run->has_seed = store_row_type(r, 10) == STORE_INT;
    run->seed = store_row_int(r, 10);
    run->has_shard_index = store_row_type(r, 11) == STORE_INT;
    run->shard_index = store_row_int(r, 11);
    run->has_shard_count = store_row_type(r, 12) == STORE_INT;
    run->shard_count = store_row_int(r, 12);
    run->args = col(l, r, 13);
    run->seconds = store_row_type(r, 14) == STORE_NULL ? -1 : store_row_real(r, 14);
    return l->failed;
}

static int on_sandbox(void *ctx, const store_row *r)
{
    loader *l = ctx;
    if (store_row_type(r, 0) != STORE_NULL)
        l->m->run.sandbox = col(l, r, 0);
    return 0;
}

static int on_shard(void *ctx, const store_row *r)
{
    static const column cols[] = {INT(report_shard, index), INT(report_shard, count),
                                  TEXT(report_shard, status), TEXT(report_shard, started_at),
                                  TEXT(report_shard, finished_at), TEXT(report_shard, host),
                                  TEXT(report_shard, cpu_features), TEXT(report_shard, args)};
    loader *l = ctx;
    return add_row(l, r, (void **)&l->m->shards, &l->m->n_shards, &l->cap_shards,
                   sizeof(report_shard), cols, COLUMNS(cols)) == NULL;
}

static int on_plugin(void *ctx, const store_row *r)
{
    static const column cols[] = {TEXT(report_plugin, name), TEXT(report_plugin, version),
                                  TEXT(report_plugin, sha256), TEXT(report_plugin, path)};
    loader *l = ctx;
    return add_row(l, r, (void **)&l->m->plugins, &l->m->n_plugins, &l->cap_plugins,
                   sizeof(report_plugin), cols, COLUMNS(cols)) == NULL;
}

static int on_cert(void *ctx, const store_row *r)
{
    static const column cols[] = {KEY(report_cert, k), TEXT(report_cert, verdict),
                                  TEXT(report_cert, profile), INT(report_cert, cases),
                                  INT(report_cert, elements)};
    loader *l = ctx;
    report_cert *c = add_row(l, r, (void **)&l->m->certs, &l->m->n_certs, &l->cap_certs,
                             sizeof *c, cols, COLUMNS(cols));
    if (!c)
        return 1;
    c->held = !strncmp(c->verdict, "CONFORMANT", 10);
    return 0;
}

static int on_count(void *ctx, const store_row *r)
{
    static const column cols[] = {KEY(report_count, k), TEXT(report_count, cls),
                                  INT(report_count, elements), INT(report_count, cases)};
    loader *l = ctx;
    report_count *c = add_row(l, r, (void **)&l->m->counts, &l->m->n_counts, &l->cap_counts,
                              sizeof *c, cols, COLUMNS(cols));
    if (!c)
        return 1;
    c->cls_id = class_id(c->cls);
    return 0;
}

static int on_hist(void *ctx, const store_row *r)
{
    loader *l = ctx;
    report_model *m = l->m;
    report_key k;
    key_of(l, r, 0, &k);
    report_hist *h = m->n_hists ? &m->hists[m->n_hists - 1] : NULL;
    if (!h || key_cmp(&h->k, &k) != 0 || strcmp(h->k.variant, k.variant) ||
        strcmp(h->k.dtype, k.dtype)) {
        if (!(h = grow(l, (void **)&m->hists, &m->n_hists, &l->cap_hists, sizeof *h)))
            return 1;
        h->k = k;
    }
    int64_t b = store_row_int(r, 3), n = store_row_int(r, 4);
    if (b >= 0 && b < STORE_ULP_BUCKETS) {
        h->buckets[b] += n;
        h->total += n;
    }
    return l->failed;
}

static int on_finding(void *ctx, const store_row *r)
{
    static const column cols[] = {
        INT(report_finding, signature_id), KEY(report_finding, k), TEXT(report_finding, cls),
        TEXT(report_finding, operand_class), TEXT(report_finding, status),
        INT(report_finding, occurrences_run), INT(report_finding, occurrences_total),
        INT(report_finding, first_run_id), INT(report_finding, reproducers_dropped),
        INT(report_finding, bug_id), TEXT_NULL(report_finding, ranges),
        INT(report_finding, reopened)};
    loader *l = ctx;
    report_finding *f = add_row(l, r, (void **)&l->m->findings, &l->m->n_findings,
                                &l->cap_findings, sizeof *f, cols, COLUMNS(cols));
    if (!f)
        return 1;
    f->cls_id = class_id(f->cls);
    f->is_new = f->first_run_id == l->m->run.id;
    return 0;
}

static int on_bug(void *ctx, const store_row *r)
{
    static const column cols[] = {INT(report_bug, id), TEXT(report_bug, implementation),
                                  TEXT(report_bug, cls), TEXT(report_bug, kind),
                                  TEXT(report_bug, locus)};
    loader *l = ctx;
    return add_row(l, r, (void **)&l->m->bugs, &l->m->n_bugs, &l->cap_bugs, sizeof(report_bug),
                   cols, COLUMNS(cols)) == NULL;
}

static int on_coverage(void *ctx, const store_row *r)
{
    static const column cols[] = {
        KEY(report_coverage, k), INT(report_coverage, cases), TEXT(report_coverage, ranks),
        TEXT(report_coverage, inner_sizes), TEXT(report_coverage, broadcast_classes),
        TEXT(report_coverage, size_tiers), TEXT(report_coverage, paths),
        TEXT(report_coverage, alignments)};
    loader *l = ctx;
    return add_row(l, r, (void **)&l->m->coverage, &l->m->n_coverage, &l->cap_coverage,
                   sizeof(report_coverage), cols, COLUMNS(cols)) == NULL;
}

/* The note the harness gives a sighting of a class the emulator can fake
 * seen under an emulated CPU (harness/run/engine/isolation.c). */
#define EMULATION_ONLY_NOTE "emulation-only, unconfirmed: "

const char report_emulation_only_text[] =
    "Seen under QEMU only (an emulated CPU of a lower level), in a class the emulator can fake: "
    "QEMU's masked loads (vmaskmovps, vpmaskmovd) touch the masked-off lanes, so a tail load "
    "that stops at the input's end on hardware faults on the guard page under QEMU. They are "
    "not counted and are not bugs. To confirm one on hardware, replay its reproducer "
    "(divergence replay --db DB repro:N) on a machine whose CPU is of that level (x86-64-v3: "
    "AVX2 without AVX-512); only a departure there makes it a bug.";

static int emulation_only(const report_finding *f)
{
    if (!f->n_repros)
        return 0;
    for (size_t i = 0; i < f->n_repros; i++)
        if (!f->repros[i].note ||
            strncmp(f->repros[i].note, EMULATION_ONLY_NOTE, strlen(EMULATION_ONLY_NOTE)))
            return 0;
    return 1;
}

size_t report_bugs_confirmed(const report_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_bugs; i++)
        n += !m->bugs[i].emulation_only;
    return n;
}

size_t report_findings_confirmed(const report_model *m)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_findings; i++)
        n += !m->findings[i].emulation_only;
    return n;
}

/* Each bug's members: the findings that name it, in the findings' order;
 * emulation-only when all of them are. */
static void bug_members(loader *l)
{
    report_model *m = l->m;
    for (size_t k = 0; k < m->n_findings; k++)
        m->findings[k].emulation_only = emulation_only(&m->findings[k]);
    for (size_t i = 0; i < m->n_bugs && !l->failed; i++) {
        report_bug *b = &m->bugs[i];
        for (size_t k = 0; k < m->n_findings; k++)
            b->n_members += m->findings[k].bug_id == b->id;
        if (!b->n_members)
            continue;
        if (!(b->members = dvg_calloc(b->n_members, sizeof *b->members))) {
            l->failed = 1;
            return;
        }
        b->n_members = 0;
        b->emulation_only = 1;
        for (size_t k = 0; k < m->n_findings; k++)
            if (m->findings[k].bug_id == b->id) {
                b->members[b->n_members++] = k;
                b->n_new += m->findings[k].is_new != 0;
                b->emulation_only &= m->findings[k].emulation_only;
            }
    }
}

static int coverage_cmp(const void *a, const void *b)
{
    return key_cmp(&((const report_coverage *)a)->k, &((const report_coverage *)b)->k);
}

static int on_repro(void *ctx, const store_row *r)
{
    static const column cols[] = {
        INT(report_repro, id), INT(report_repro, run_id), TEXT(report_repro, case_id),
        TEXT(report_repro, source), TEXT(report_repro, attrs), TEXT(report_repro, a_shape),
        TEXT(report_repro, b_shape), INT_OR_NULL(report_repro, element, has_element),
        TEXT_NULL(report_repro, expected), TEXT_NULL(report_repro, actual),
        INT_OR_NULL(report_repro, ulps, has_ulps), TEXT_NULL(report_repro, note),
        INT(report_repro, a_bytes), INT(report_repro, b_bytes), TEXT(report_repro, a_hex),
        TEXT(report_repro, b_hex)};
    loader *l = ctx;
    report_finding *f = l->finding;
    if (f->n_repros >= REPORT_MAX_REPRODUCERS)
        return 0;
    report_repro *x = &f->repros[f->n_repros++];
    memset(x, 0, sizeof *x);
    fill_row(l, r, x, cols, COLUMNS(cols));
    return l->failed;
}

/* ------------------------------------------------------------------------
 * Loading.
 * ---------------------------------------------------------------------- */
int report_model_load(store *s, const char *db_path, int64_t run_id, const char *implementation,
                      report_model **out, char *err, size_t errlen)
{
    loader l = {0};
    int rc = -1;
    report_model *m = dvg_calloc(1, sizeof *m);
    store_param p[2] = {STORE_PARAM_INT(run_id), STORE_PARAM_TEXT(implementation)};

    if (!m) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    l.m = m;
    m->db_path = keep(&l, db_path ? db_path : STORE_DEFAULT_PATH);
    m->implementation = keep(&l, implementation);
    if (store_select(s, sql_run, p, 1, on_run, &l))
        goto db_error;
    if (!m->run.id && !l.failed) {
        snprintf(err, errlen, "%s: no run %" PRId64, db_path ? db_path : STORE_DEFAULT_PATH,
                 run_id);
        goto done;
    }
    m->run.sandbox = "not recorded";
    if (store_select(s, sql_sandbox, p, 1, on_sandbox, &l) != 0)
        m->run.sandbox = "not recorded"; /* an older file: no such column */
    if (store_select(s, sql_shards, p, 1, on_shard, &l) ||
        store_select(s, sql_plugins, p, 2, on_plugin, &l) ||
        store_select(s, sql_certs, p, 2, on_cert, &l) ||
        store_select(s, sql_counts, p, 2, on_count, &l) ||
        store_select(s, sql_hists, p, 2, on_hist, &l) ||
        store_select(s, sql_findings, p, 2, on_finding, &l) ||
        store_select(s, sql_bugs, p, 2, on_bug, &l) ||
        store_select(s, sql_coverage, p, 2, on_coverage, &l))
        goto db_error;
    for (size_t i = 0; i < m->n_findings; i++) {
        report_finding *f = &m->findings[i];
        store_param q[4] = {STORE_PARAM_INT(f->signature_id), STORE_PARAM_INT(run_id),
                            STORE_PARAM_INT(REPORT_MAX_REPRODUCERS),
                            STORE_PARAM_INT(REPORT_MAX_OPERAND_BYTES)};
        if (!(f->repros = dvg_calloc(REPORT_MAX_REPRODUCERS, sizeof *f->repros))) {
            l.failed = 1;
            break;
        }
        l.finding = f;
        if (store_select(s, sql_repros, q, 4, on_repro, &l))
            goto db_error;
    }
    if (l.failed) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    sort(m->certs, m->n_certs, sizeof *m->certs, cert_cmp);
    sort(m->counts, m->n_counts, sizeof *m->counts, count_cmp);
    sort(m->hists, m->n_hists, sizeof *m->hists, hist_cmp);
    sort(m->findings, m->n_findings, sizeof *m->findings, finding_cmp);
    sort(m->coverage, m->n_coverage, sizeof *m->coverage, coverage_cmp);
    bug_members(&l);
    if (l.failed) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    rc = 0;
    goto done;
db_error:
    snprintf(err, errlen, "%s", l.failed ? "out of memory" : store_errmsg(s));
done:
    if (rc) {
        report_model_free(m);
    } else {
        *out = m;
    }
    return rc;
}

void report_model_free(report_model *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_findings; i++)
        dvg_free(m->findings[i].repros);
    dvg_free(m->findings);
    for (size_t i = 0; i < m->n_bugs; i++)
        dvg_free(m->bugs[i].members);
    dvg_free(m->bugs);
    dvg_free(m->coverage);
    dvg_free(m->shards);
    dvg_free(m->plugins);
    dvg_free(m->certs);
    dvg_free(m->counts);
    dvg_free(m->hists);
    for (chunk *c = (chunk *)m->pool; c;) {
        chunk *next = c->next;
        dvg_free(c);
        c = next;
    }
    dvg_free(m);
}

const char *report_verdict_kind(const char *verdict)
{
    if (!strcmp(verdict, "CONFORMANT"))
        return "conformant";
    if (!strncmp(verdict, "CONFORMANT", 10))
        return "conformant-profile";
    if (!strcmp(verdict, "NONCONFORMANT"))
        return "nonconformant";
    if (!strcmp(verdict, "CRASHED"))
        return "crashed";
    if (!strcmp(verdict, "UNSUPPORTED"))
        return "unsupported";
    return "other";
}

const char *report_replay_command(const report_model *m, int64_t id, char *buf, size_t len)
{
    char path[4200];
    esc_shell_word(m->db_path, path, sizeof path, NULL);
    snprintf(buf, len, "divergence replay --db %s " STORE_REF_REPRODUCER "%" PRId64, path, id);
    return buf;
}

const char *report_shard_label(const report_model *m, char *buf, size_t len)
{
    const report_run *r = &m->run;
    buf[0] = '\0';
    if (m->n_shards) {
        size_t used = (size_t)snprintf(buf, len, "%zu of %" PRId64 " shards merged (", m->n_shards,
                                       r->has_shard_count ? r->shard_count : m->shards[0].count);
        for (size_t i = 0; i < m->n_shards && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%" PRId64, i ? ", " : "",
                                     m->shards[i].index);
        if (used < len)
            snprintf(buf + used, len - used, ")");
    } else if (r->has_shard_index && r->has_shard_count) {
        snprintf(buf, len, "shard %" PRId64 "/%" PRId64, r->shard_index, r->shard_count);
    }
    return buf;
}

int report_hex_bytes(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (; hex[0] && hex[1] && n < cap; hex += 2) {
        unsigned v;
        if (sscanf(hex, "%2x", &v) != 1)
            return -1;
        out[n++] = (uint8_t)v;
    }
    return hex[0] ? -1 : (int)n;
}

const char *report_operand_values(const char *dtype, const char *hex, int64_t bytes, char *buf,
                                  size_t len)
{
    enum { SHOWN = 4 };
    uint32_t t = oracle_dtype_by_tag(dtype);
    const oracle_dtype_info *info = oracle_dtype(t);
    uint8_t raw[REPORT_MAX_OPERAND_BYTES];
    int n = report_hex_bytes(hex, raw, sizeof raw);
    size_t at = 0;
    buf[0] = '\0';
    if (!info || n < 0 || bytes < 0)
        return buf;
    uint64_t elements = (uint64_t)bytes * 8 / info->bits;
    uint64_t held = (uint64_t)n * 8 / info->bits;
    for (uint64_t i = 0; i < held && i < SHOWN && at < len; i++) {
        char one[VERDICT_TEXT_MAX];
        at += (size_t)snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
                               verdict_bits_text(t, oracle_load(t, raw, i), one, sizeof one));
    }
    if (elements > 1 && at < len)
        snprintf(buf + at, len - at, "%s (%" PRIu64 " elements)", elements > SHOWN ? ", ..." : "",
                 elements);
    return buf;
}

const char *report_not_complete(const report_model *m, char *buf, size_t len)
{
    const report_run *r = &m->run;
    if (!strcmp(r->status, "complete"))
        return NULL;
    const char *why = !strcmp(r->status, "interrupted")
                          ? "was interrupted (SIGINT, SIGTERM or SIGHUP) before it was done"
                      : !strcmp(r->status, "running")
                          ? "is still running (or its process was killed and not noticed yet)"
                          : "is incomplete: it stopped early or its process was killed";
    int resumable = !strcmp(r->kind, "certify") || !strcmp(r->kind, "fuzz") ||
                    !strcmp(r->kind, "sweep");
    snprintf(buf, len, "NOT COMPLETE: run %" PRId64 " (%s) %s; what follows is only what it "
                       "recorded, the claims and cases it did not reach are not judged%s%s%s",
             r->id, r->status, why, resumable ? "; continue it with: " : "",
             resumable ? r->args : "", resumable ? " --resume" : "");
    return buf;
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

const report_coverage *report_claim_coverage(const report_model *m, const report_key *k)
{
    for (size_t i = 0; i < m->n_coverage; i++)
        if (report_same_claim(&m->coverage[i].k, k))
            return &m->coverage[i];
    return NULL;
}

const char *const report_coverage_names[REPORT_COVERAGE_LISTS] = {
    "ranks", "inner sizes", "broadcast classes", "size tiers", "paths", "data offsets"};
const char *const report_coverage_keys[REPORT_COVERAGE_LISTS] = {
    "ranks", "inner_sizes", "broadcast_classes", "size_tiers", "paths", "alignments"};

void report_coverage_lists(const report_coverage *c, const char **v)
{
    v[0] = c->ranks;
    v[1] = c->inner_sizes;
    v[2] = c->broadcast_classes;
    v[3] = c->size_tiers;
    v[4] = c->paths;
    v[5] = c->alignments;
}

unsigned report_coverage_used(const report_model *m)
{
    unsigned used = 0;
    for (size_t i = 0; i < m->n_coverage; i++) {
        const char *v[REPORT_COVERAGE_LISTS];
        report_coverage_lists(&m->coverage[i], v);
        for (unsigned k = 0; k < REPORT_COVERAGE_LISTS; k++)
            if (v[k][0])
                used |= 1u << k;
    }
    return used;
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

/* Appends name to out[*n] unless it is there or out is full (max). */
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
