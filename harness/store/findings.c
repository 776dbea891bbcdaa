/* SPDX-License-Identifier: MIT */
/*
 * harness/store/findings.c: findings and their reproducers.
 *
 * This file contains store_record_finding (a finding's signature,
 * deduplicated, grouped into its bug when new, its sighting per run, and
 * its case kept as a reproducer up to the per-signature limit), store_reproducer_load, which gives
 * a reproducer back as a case ready to run again, every field validated
 * before anything is allocated, and the ids people type for them
 * ("sig:N", "repro:N": store_ref_parse, store_signature_reproducer).
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/store/store_internal.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/shape.h"
#include "oracle/variant.h"

/* Elements of a shape, or -1 when a dimension is negative, the rank too
 * large or the product overflows. */
static int shape_elements(const oracle_shape *sh, uint64_t *out)
{
    uint64_t n = 1;
    if (sh->rank > DVG_MAX_RANK)
        return -1;
    for (uint32_t i = 0; i < sh->rank; i++) {
        if (sh->dims[i] < 0 || __builtin_mul_overflow(n, (uint64_t)sh->dims[i], &n))
            return -1;
    }
    *out = n;
    return 0;
}

void store_set_reproducer_limit(store *s, uint32_t limit)
{
    s->repro_limit = limit;
}

/* Checks that the case's operand buffers hold what its shapes say. */
static int check_case(store *s, const divcase *c)
{
    uint64_t na, nb;
    if (shape_elements(&c->a_shape, &na) || shape_elements(&c->b_shape, &nb))
        return store_fail(s, "case '%.*s' has an invalid shape", (int)sizeof c->id, c->id);
    if (c->a_bytes != oracle_nbytes(c->dtype, na) || c->b_bytes != oracle_nbytes(c->dtype, nb))
        return store_fail(s, "case '%.*s': operand sizes %" PRIu64 " and %" PRIu64
                             " bytes do not match its shapes",
                          (int)sizeof c->id, c->id, c->a_bytes, c->b_bytes);
    if ((c->a_bytes && !c->a) || (c->b_bytes && !c->b))
        return store_fail(s, "case '%.*s' has no operand bytes", (int)sizeof c->id, c->id);
    return 0;
}

/* The raw locus of a finding's case (store_internal.h, "Bugs"; the SQL
 * of STORE_SQL_RAW_LOCUS says the same of a stored reproducer). */
static const char *finding_locus(const store_finding *f)
{
    const oracle_shape *a = &f->c->a_shape, *b = &f->c->b_shape;
    if (f->element < 0)
        return "case";
    if ((a->rank != b->rank || memcmp(a->dims, b->dims, a->rank * sizeof a->dims[0])) &&
        strncmp(f->c->id, "sweep:", 6))
        return "broadcast";
    return "elementwise";
}

/* Puts new signature `sig` into its bug, made when it is the first. */
static int group_signature(store *s, int64_t sig, int64_t run_id, const store_finding *f,
                           const char *dname)
{
    const char *cls = f->class_name ? f->class_name : oracle_class_name(f->cls), *locus = finding_locus(f);
    sqlite3_stmt *st;
    if (!strcmp(locus, "broadcast")) {
        /* The implementation's arithmetic bug of this class, if any,
         * explains it without the shape. */
        int64_t known = 0;
        if (!(st = store_prepare(s, SQL_BUG_ARITHMETIC)))
            return -1;
        store_bind_text(st, 1, f->implementation);
        store_bind_text(st, 2, cls);
        store_bind_text(st, 3, dname);
        if (store_step_row(s, st))
            return -1;
        known = sqlite3_column_int64(st, 0);
        if (store_step_done(s, st))
            return -1;
        if (known)
            locus = "elementwise";
    }
    if (!(st = store_prepare(s, SQL_BUG_UPSERT)))
        return -1;
    store_bind_text(st, 1, f->implementation);
    store_bind_text(st, 2, cls);
    store_bind_text(st, 3, dname);
    store_bind_text(st, 4, locus);
    sqlite3_bind_int64(st, 5, run_id);
    if (store_step_row(s, st))
        return -1;
    int64_t bug = sqlite3_column_int64(st, 0);
    if (store_step_done(s, st) || !(st = store_prepare(s, SQL_SIG_SET_BUG)))
        return -1;
    sqlite3_bind_int64(st, 1, sig);
    sqlite3_bind_int64(st, 2, bug);
    return store_step_done(s, st);
}

static int insert_reproducer(store *s, int64_t sig, int64_t run_id, const store_finding *f,
                             const char *vname, const char *dname)
{
    const divcase *c = f->c;
    char attrs[256], sa[256], sb[256], offsets[32];
    sqlite3_stmt *st = store_prepare(s, SQL_REPRO_INSERT);
    if (!st)
        return -1;
    oracle_attrs_format(oracle_variant_get(c->variant), &c->attrs, attrs, sizeof attrs);
    oracle_shape_format(&c->a_shape, sa, sizeof sa);
    oracle_shape_format(&c->b_shape, sb, sizeof sb);
    sqlite3_bind_int64(st, 1, sig);
    sqlite3_bind_int64(st, 2, run_id);
    sqlite3_bind_text(st, 3, c->id, (int)strnlen(c->id, sizeof c->id), SQLITE_STATIC);
    sqlite3_bind_text(st, 4, c->source, (int)strnlen(c->source, sizeof c->source),
                      SQLITE_STATIC);
    store_bind_text(st, 5, vname);
    store_bind_text(st, 6, dname);
    store_bind_text(st, 7, attrs);
    sqlite3_bind_int64(st, 8, c->attrs.broadcast);
    sqlite3_bind_int64(st, 9, c->attrs.axis_set);
    sqlite3_bind_int64(st, 10, c->attrs.axis);
    sqlite3_bind_int64(st, 11, c->attrs.pythondiv);
    sqlite3_bind_int64(st, 12, c->attrs.auto_broadcast);
    sqlite3_bind_int64(st, 13, c->attrs.int_rounding);
    store_bind_text(st, 14, sa);
    store_bind_text(st, 15, sb);
    /* A NULL pointer would bind NULL: an empty operand is an empty blob. */
    sqlite3_bind_blob64(st, 16, c->a_bytes ? (const void *)c->a : "", c->a_bytes, SQLITE_STATIC);
    sqlite3_bind_blob64(st, 17, c->b_bytes ? (const void *)c->b : "", c->b_bytes, SQLITE_STATIC);
    if (f->element >= 0)
        sqlite3_bind_int64(st, 18, f->element);
    store_bind_text(st, 19, f->expected);
    store_bind_text(st, 20, f->actual);
    if (f->ulps <= INT64_MAX)
        sqlite3_bind_int64(st, 21, (int64_t)f->ulps);
    store_bind_text(st, 22, f->note);
    store_bind_text(st, 23, divcase_offsets_format(&c->offsets, offsets, sizeof offsets));
    store_bind_text(st, 24, f->calls_before ? f->calls_before : "");
    return store_step_done(s, st);
}

/* A change of signature sig's state by run run_id (signature_events),
 * once per (signature, run, kind). 0 or -1. */
static int record_event(store *s, int64_t sig, int64_t run_id, const char *kind)
{
    sqlite3_stmt *st = store_prepare(s, SQL_SIG_EVENT);
    if (!st)
        return -1;
    sqlite3_bind_int64(st, 1, sig);
    sqlite3_bind_int64(st, 2, run_id);
    store_bind_text(st, 3, kind);
    return store_step_done(s, st);
}

int store_record_finding(store *s, int64_t run_id, const store_finding *f,
                         int64_t *signature_id, int *is_new)
{
    const char *vname, *dname;
    sqlite3_stmt *st;
    int64_t sig = 0, occurrences = 0, stored = 0, repro = 0, reopened = 0;
    int rc = -1;

    s->op = "record finding";
    if (!f || !f->c)
        return store_fail(s, "no finding or no case");
    if (store_need_text(s, "implementation", f->implementation) ||
        store_name_ids(s, f->c->variant, f->c->dtype, &vname, &dname) || check_case(s, f->c))
        return -1;
    if (!f->class_name && (f->cls == ORACLE_CLASS_MATCH || f->cls >= ORACLE_CLASS_COUNT))
        return store_fail(s, "class %" PRIu32 " is not a difference", f->cls);
    if (f->class_name && !f->class_name[0])
        return store_fail(s, "class name is empty");
    if (!f->operand_class)
        return store_fail(s, "operand class is missing");
    if (store_begin_op(s, "record finding"))
        return -1;
    if (!(st = store_prepare(s, SQL_SIG_UPSERT)))
        goto done;
    store_bind_text(st, 1, f->implementation);
    store_bind_text(st, 2, vname);
    store_bind_text(st, 3, dname);
    store_bind_text(st, 4, f->class_name ? f->class_name : oracle_class_name(f->cls));
    store_bind_text(st, 5, f->operand_class);
    sqlite3_bind_int64(st, 6, run_id);
    if (store_step_row(s, st))
        goto done;
    sig = sqlite3_column_int64(st, 0);
    occurrences = sqlite3_column_int64(st, 1);
    reopened = sqlite3_column_int64(st, 2); /* NULL reads 0 */
    if (store_step_done(s, st))
        goto done;
    /* its life: first seen by this run, or seen again after a fix */
    if ((occurrences == 1 && record_event(s, sig, run_id, "new")) ||
        (reopened == run_id && record_event(s, sig, run_id, "reopened")))
        goto done;
    if (occurrences == 1 && group_signature(s, sig, run_id, f, dname))
        goto done;
    if (!(st = store_prepare(s, SQL_SIGRUN_ADD)))
        goto done;
    sqlite3_bind_int64(st, 1, sig);
    sqlite3_bind_int64(st, 2, run_id);
    if (store_step_done(s, st))
        goto done;
    /* the bound is per run: every run that sees a signature keeps
     * reproducers of its own (issue 34), not only the first run */
    if (!(st = store_prepare(s, SQL_REPRO_COUNT)))
        goto done;
    sqlite3_bind_int64(st, 1, sig);
    sqlite3_bind_int64(st, 2, run_id);
    if (store_step_row(s, st))
        goto done;
    stored = sqlite3_column_int64(st, 0);
    if (store_step_done(s, st))
        goto done;
    if (stored < (int64_t)s->repro_limit && f->c->a_bytes <= STORE_MAX_OPERAND_BYTES &&
        f->c->b_bytes <= STORE_MAX_OPERAND_BYTES) {
        if (insert_reproducer(s, sig, run_id, f, vname, dname))
            goto done;
        repro = sqlite3_last_insert_rowid(s->db);
    } else {
        if (!(st = store_prepare(s, SQL_SIG_DROPPED)))
            goto done;
        sqlite3_bind_int64(st, 1, sig);
        if (store_step_done(s, st))
            goto done;
    }
    rc = 0;
done:
    rc = store_end_op(s, rc);
    if (rc == 0) {
        s->last_reproducer = repro;
        if (signature_id)
            *signature_id = sig;
        if (is_new)
            *is_new = occurrences == 1;
    }
    return rc;
}

int64_t store_last_reproducer(const store *s)
{
    return s->last_reproducer;
}

/* Text column `col` of the current row into dst (truncated). */
static void column_text(sqlite3_stmt *st, int col, char *dst, size_t len)
{
    store_copy_text(dst, len, (const char *)sqlite3_column_text(st, col));
}

/* An integer column that must fit [lo, hi]. */
static int column_range(store *s, sqlite3_stmt *st, int col, int64_t lo, int64_t hi,
                        int64_t *out)
{
    if (sqlite3_column_type(st, col) != SQLITE_INTEGER)
        return store_fail(s, "column %s is not an integer", sqlite3_column_name(st, col));
    int64_t v = sqlite3_column_int64(st, col);
    if (v < lo || v > hi)
        return store_fail(s, "column %s = %" PRId64 " is out of range",
                          sqlite3_column_name(st, col), v);
    *out = v;
    return 0;
}

/* Parses and checks one operand: its shape text and its blob. */
static int load_operand(store *s, sqlite3_stmt *st, int shape_col, int blob_col, uint32_t dtype,
                        oracle_shape *shape, uint64_t *nbytes)
{
    const char *text = (const char *)sqlite3_column_text(st, shape_col);
    oracle_error why;
    uint64_t count;
    if (!text || oracle_shape_parse(text, shape, &why) != ORACLE_OK)
        return store_fail(s, "column %s: %s", sqlite3_column_name(st, shape_col),
                          text ? why.text : "NULL");
    if (shape_elements(shape, &count))
        return store_fail(s, "column %s: shape '%s' is too large",
                          sqlite3_column_name(st, shape_col), text);
    uint64_t want = oracle_nbytes(dtype, count);
    uint64_t have = (uint64_t)sqlite3_column_bytes(st, blob_col);
    if (want > STORE_MAX_OPERAND_BYTES || have != want)
        return store_fail(s,
                          "column %s holds %" PRIu64 " bytes; shape %s of %s needs %" PRIu64
                          " (at most %" PRIu64 ")",
                          sqlite3_column_name(st, blob_col), have, text, oracle_dtype_tag(dtype),
                          want, STORE_MAX_OPERAND_BYTES);
    *nbytes = have;
    return 0;
}

/* The case of the reproducer row st (SQL_REPRO_LOAD) but its operands'
 * bytes into *c; *na, *nb their byte sizes. 0 or -1 (store_fail). */
static int row_case(store *s, sqlite3_stmt *st, divcase *c, uint64_t *na, uint64_t *nb)
{
    int64_t v[6];
    const char *vname = (const char *)sqlite3_column_text(st, 4);
    const char *dname = (const char *)sqlite3_column_text(st, 5);
    const oracle_variant *variant = vname ? oracle_variant_by_name(vname) : NULL;
    c->dtype = dname ? oracle_dtype_by_tag(dname) : DVG_DTYPE_NONE;
    if (!variant)
        return store_fail(s, "unknown variant '%s'", vname ? vname : "NULL");
    if (c->dtype == DVG_DTYPE_NONE)
        return store_fail(s, "unknown dtype '%s'", dname ? dname : "NULL");
    c->variant = variant->id;
    if (column_range(s, st, 6, INT32_MIN, INT32_MAX, &v[0]) ||
        column_range(s, st, 7, INT32_MIN, INT32_MAX, &v[1]) ||
        column_range(s, st, 8, INT64_MIN, INT64_MAX, &v[2]) ||
        column_range(s, st, 9, INT32_MIN, INT32_MAX, &v[3]) ||
        column_range(s, st, 10, 0, UINT32_MAX, &v[4]) ||
        column_range(s, st, 11, 0, UINT32_MAX, &v[5]))
        return -1;
    c->attrs.size = sizeof c->attrs;
    c->attrs.broadcast = (int32_t)v[0];
    c->attrs.axis_set = (int32_t)v[1];
    c->attrs.axis = v[2];
    c->attrs.pythondiv = (int32_t)v[3];
    c->attrs.auto_broadcast = (uint32_t)v[4];
    c->attrs.int_rounding = (uint32_t)v[5];
    if (load_operand(s, st, 12, 14, c->dtype, &c->a_shape, na) ||
        load_operand(s, st, 13, 15, c->dtype, &c->b_shape, nb))
        return -1;
    column_text(st, 2, c->id, sizeof c->id);
    column_text(st, 3, c->source, sizeof c->source);
    char offsets[64], why[128];
    column_text(st, 24, offsets, sizeof offsets);
    if (divcase_offsets_parse(offsets, &c->offsets, why, sizeof why))
        return store_fail(s, "column data_offsets: %s", why);
    return 0;
}

/* What the reproducer row st says beside its case, into *r. */
static void row_info(sqlite3_stmt *st, int64_t id, store_reproducer *r)
{
    r->id = id;
    r->signature_id = sqlite3_column_int64(st, 0);
    r->run_id = sqlite3_column_int64(st, 1);
    r->element = sqlite3_column_type(st, 16) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 16);
    column_text(st, 17, r->expected, sizeof r->expected);
    column_text(st, 18, r->actual, sizeof r->actual);
    r->ulps = sqlite3_column_type(st, 19) == SQLITE_NULL ? UINT64_MAX
                                                         : (uint64_t)sqlite3_column_int64(st, 19);
    column_text(st, 20, r->note, sizeof r->note);
    column_text(st, 21, r->implementation, sizeof r->implementation);
    column_text(st, 22, r->cls, sizeof r->cls);
    column_text(st, 23, r->operand_class, sizeof r->operand_class);
}

int store_reproducer_load(store *s, int64_t id, divcase *out, store_reproducer *info)
{
    sqlite3_stmt *st;
    divcase c;
    store_reproducer r;
    uint64_t na, nb;
    int rc = -1;

    memset(&c, 0, sizeof c);
    memset(&r, 0, sizeof r);
    snprintf(s->op_text, sizeof s->op_text, "load reproducer %" PRId64, id);
    s->op = s->op_text;
    s->err[0] = '\0';
    if (!(st = store_prepare(s, SQL_REPRO_LOAD)))
        goto done;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        store_fail(s, "no such reproducer");
        goto done;
    }
    if (step != SQLITE_ROW) {
        store_fail_db(s);
        goto done;
    }
    if (row_case(s, st, &c, &na, &nb))
        goto done;
    row_info(st, id, &r);
    /* Sizes were checked against the shapes above: allocate and copy. */
    if (divcase_alloc(&c, ORACLE_MAX_ELEMENTS) || c.a_bytes != na || c.b_bytes != nb) {
        store_fail(s, "out of memory for %" PRIu64 " + %" PRIu64 " operand bytes", na, nb);
        goto done;
    }
    if (na)
        memcpy(c.a, sqlite3_column_blob(st, 14), na);
    if (nb)
        memcpy(c.b, sqlite3_column_blob(st, 15), nb);
    store_reset_stmt(st);
    if (info) {
        store_build b;
        if (store_run_build(s, r.run_id, r.implementation, &b) < 0)
            goto done;
        snprintf(r.plugin_version, sizeof r.plugin_version, "%s", b.version);
        snprintf(r.plugin_path, sizeof r.plugin_path, "%s", b.path);
        snprintf(r.plugin_sha256, sizeof r.plugin_sha256, "%s", b.sha256);
    }
    rc = 0;
done:
    store_reset_stmt(st);
    if (rc) {
        divcase_free(&c);
    } else {
        *out = c;
        if (info)
            *info = r;
    }
    return rc;
}

int store_ref_parse(const char *text, int *is_signature, int64_t *id, char *err, size_t errlen)
{
    static const char sig[] = STORE_REF_SIGNATURE, repro[] = STORE_REF_REPRODUCER;
    int is_sig = !strncmp(text, sig, sizeof sig - 1);
    int is_repro = !strncmp(text, repro, sizeof repro - 1);
    const char *digits = is_sig ? text + sizeof sig - 1 : is_repro ? text + sizeof repro - 1 : text;
    int64_t v = 0;
    int ok = *digits != '\0';
    for (const char *p = digits; ok && *p; p++) {
        if (*p < '0' || *p > '9' || v > (INT64_MAX - (*p - '0')) / 10)
            ok = 0;
        else
            v = v * 10 + (*p - '0');
    }
    ok = ok && v > 0;
    if (ok && (is_sig || is_repro)) {
        *is_signature = is_sig;
        *id = v;
        return 0;
    }
    if (err && errlen) {
        if (ok)
            snprintf(err, errlen,
                     "'%s' is a bare number: write " STORE_REF_SIGNATURE "%s for signature %s"
                     " or " STORE_REF_REPRODUCER "%s for reproducer %s",
                     text, text, text, text, text);
        else
            snprintf(err, errlen,
                     "'%s' is not " STORE_REF_SIGNATURE "N (a signature) or "
                     STORE_REF_REPRODUCER "N (a reproducer), N a positive integer", text);
    }
    return -1;
}

int store_run_build(store *s, int64_t run_id, const char *name, store_build *out)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *pl = store_prepare(s, SQL_REPRO_PLUGIN);
    if (!pl)
        return -1;
    sqlite3_bind_int64(pl, 1, run_id);
    store_bind_text(pl, 2, name);
    int step = sqlite3_step(pl), rc = 1;
    if (step == SQLITE_ROW) {
        column_text(pl, 0, out->version, sizeof out->version);
        column_text(pl, 1, out->path, sizeof out->path);
        column_text(pl, 2, out->sha256, sizeof out->sha256);
        rc = 0;
    } else if (step != SQLITE_DONE) {
        store_fail_db(s);
        rc = -1;
    }
    store_reset_stmt(pl);
    return rc;
}

int store_signature_reproducers(store *s, int64_t signature_id, int64_t run_id, int64_t *ids,
                                int64_t *runs, size_t cap, size_t *n)
{
    sqlite3_stmt *st;
    *n = 0;
    snprintf(s->op_text, sizeof s->op_text, "find signature %" PRId64, signature_id);
    s->op = s->op_text;
    s->err[0] = '\0';
    if (!(st = store_prepare(s, SQL_SIG_DROPPED_COUNT)))
        return -1;
    sqlite3_bind_int64(st, 1, signature_id);
    int step = sqlite3_step(st);
    int64_t dropped = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    store_reset_stmt(st);
    if (step == SQLITE_DONE) {
        store_fail(s, "no such signature");
        return -1;
    }
    if (step != SQLITE_ROW) {
        store_fail_db(s);
        return -1;
    }
    if (!(st = store_prepare(s, SQL_SIG_RUN_REPROS)))
        return -1;
    sqlite3_bind_int64(st, 1, signature_id);
    sqlite3_bind_int64(st, 2, run_id);
    while (*n < cap && (step = sqlite3_step(st)) == SQLITE_ROW) {
        ids[*n] = sqlite3_column_int64(st, 0);
        if (runs)
            runs[*n] = sqlite3_column_int64(st, 1);
        (*n)++;
    }
    int rc = 0;
    if (*n < cap && step != SQLITE_DONE) {
        store_fail_db(s);
        rc = -1;
    } else if (!*n && run_id) {
        store_fail(s, "signature %" PRId64 " keeps no reproducer of run %" PRId64, signature_id,
                   run_id);
        rc = -1;
    } else if (!*n) {
        store_fail(s, "signature %" PRId64 " keeps no reproducer (%" PRId64 " dropped)",
                   signature_id, dropped);
        rc = -1;
    }
    store_reset_stmt(st);
    return rc;
}

int store_signature_reproducer(store *s, int64_t signature_id, int64_t *reproducer_id)
{
    size_t n;
    return store_signature_reproducers(s, signature_id, 0, reproducer_id, NULL, 1, &n);
}

int store_reproducer_calls(store *s, int64_t id, char **text)
{
    sqlite3_stmt *st;
    *text = NULL;
    snprintf(s->op_text, sizeof s->op_text, "load the earlier calls of reproducer %" PRId64, id);
    s->op = s->op_text;
    if (!(st = store_prepare(s, SQL_REPRO_CALLS)))
        return -1;
    sqlite3_bind_int64(st, 1, id);
    int step = sqlite3_step(st);
    if (step == SQLITE_DONE) {
        store_reset_stmt(st);
        return store_fail(s, "no such reproducer");
    }
    if (step != SQLITE_ROW) {
        store_fail_db(s);
        store_reset_stmt(st);
        return -1;
    }
    const char *t = (const char *)sqlite3_column_text(st, 0);
    size_t n = t ? strlen(t) : 0;
    *text = dvg_malloc(n + 1);
    if (*text) {
        memcpy(*text, t ? t : "", n);
        (*text)[n] = '\0';
    }
    store_reset_stmt(st);
    return *text ? 0 : store_fail(s, "out of memory");
}
