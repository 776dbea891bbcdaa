/* SPDX-License-Identifier: MIT */
/*
 * The store in one process: runs, plugin builds, counts, signatures and
 * their dedupe, the reproducer bound, reproducer round trips, certificates,
 * fixed signatures, batches, views, store_check.
 */
#include <inttypes.h>
#include <sys/stat.h>

#include "oracle/compare.h"
#include "store_test.h"

static const char *db_path;
static char msg[1024];

static void test_open_new(void)
{
    store *s = NULL;
    char err[512] = "x";
    CHECKF(store_open(db_path, STORE_CREATE, &s, err, sizeof err) == 0, "%s", err);
    CHECK(err[0] == '\0');
    CHECK(!strcmp(store_path(s), db_path));
    CHECK(!strcmp(store_errmsg(s), ""));
    store_close(s);
    CHECK(store_schema_version() == 10);
    CHECK(q_int(db_path, "PRAGMA user_version", NULL) == store_schema_version());
    CHECK(!strcmp(q_text(db_path, "PRAGMA journal_mode", NULL, msg, sizeof msg), "wal"));
    /* Opening again migrates nothing and keeps the version. */
    CHECK(store_open(db_path, 0, &s, err, sizeof err) == 0);
    store_close(s);
    CHECK(q_int(db_path, "PRAGMA user_version", NULL) == store_schema_version());
    store_close(NULL);
}

static int64_t begin_run(store *s, const char *kind, uint64_t seed)
{
    store_run_info info = {0};
    int64_t run = -1;
    info.kind = kind;
    info.profile = "exact";
    info.args = "divergence certify --plugin x.so";
    info.build_flags = "-O2 test";
    info.seed = seed;
    info.has_seed = 1;
    info.shard_index = 2;
    info.shard_count = 4;
    CHECKF(store_begin_run(s, &info, &run) == 0, "%s", store_errmsg(s));
    return run;
}

static void test_runs_builds_counts(store *s)
{
    char sql[512];
    int64_t run = begin_run(s, "certify", UINT64_MAX);
    CHECK(run > 0);
    snprintf(sql, sizeof sql, "SELECT %s FROM runs WHERE id = %" PRId64, "status", run);
    CHECK(!strcmp(q_text(db_path, sql, NULL, msg, sizeof msg), "running"));
    snprintf(sql, sizeof sql, "SELECT pid FROM runs WHERE id = %" PRId64, run);
    CHECK(q_int(db_path, sql, NULL) == (int64_t)getpid());
    snprintf(sql, sizeof sql, "SELECT seed FROM runs WHERE id = %" PRId64, run);
    CHECK(q_int(db_path, sql, NULL) == -1); /* UINT64_MAX as two's complement */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM runs WHERE id = %" PRId64 " AND shard_index = 2 AND "
             "shard_count = 4 AND kind = 'certify' AND profile = 'exact' AND "
             "args = 'divergence certify --plugin x.so' AND build_flags = '-O2 test' AND "
             "length(host) > 0 AND length(cpu_features) > 0 AND finished_at IS NULL AND "
             "length(started_at) = 24",
             run);
    CHECK(q_int(db_path, sql, NULL) == 1);

    /* A shard out of range and a missing kind are refused. */
    store_run_info bad = {0};
    int64_t untouched = 77;
    bad.kind = "fuzz";
    bad.shard_index = 4;
    bad.shard_count = 4;
    CHECK(store_begin_run(s, &bad, &untouched) == -1 && untouched == 77);
    CHECK(strstr(store_errmsg(s), "shard 4/4"));
    bad.kind = NULL;
    bad.shard_count = 0;
    CHECK(store_begin_run(s, &bad, &untouched) == -1 && untouched == 77);

    /* Plugin builds: hashed, deduplicated by (name, version, hash). */
    const char *so = test_path(1, "plugin.so");
    FILE *f = fopen(so, "wb");
    CHECK(f && fputs("hello", f) >= 0);
    if (f)
        fclose(f);
    int64_t b1 = 0, b2 = 0, b3 = 0;
    CHECKF(store_plugin_build(s, run, "acme-div", "2.3.1", so, &b1) == 0, "%s",
           store_errmsg(s));
    CHECK(store_plugin_build(s, run, "acme-div", "2.3.1", so, &b2) == 0);
    CHECK(b1 > 0 && b1 == b2);
    snprintf(sql, sizeof sql, "SELECT sha256 FROM plugin_builds WHERE id = %" PRId64, b1);
    CHECK(!strcmp(q_text(db_path, sql, NULL, msg, sizeof msg),
                  "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"));
    CHECK(store_plugin_build(s, 0, "acme-div", "2.4.0", so, &b3) == 0 && b3 != b1);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM run_plugins WHERE run_id = %" PRId64, run);
    CHECK(q_int(db_path, sql, NULL) == 1);
    CHECK(store_plugin_build(s, run, "acme-div", "2.3.1", test_path(2, "missing.so"), &b2) ==
          -1);
    CHECKF(strstr(store_errmsg(s), "missing.so") && strstr(store_errmsg(s), "No such file"),
           "%s", store_errmsg(s));

    /* Counts add up per (run, implementation, variant, dtype, class). */
    CHECK(store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                              ORACLE_CLASS_MATCH, 100, 2) == 0);
    CHECK(store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                              ORACLE_CLASS_MATCH, 50, 1) == 0);
    CHECK(store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                              ORACLE_CLASS_WRONG_VALUE, 7, 1) == 0);
    snprintf(sql, sizeof sql,
             "SELECT elements * 1000 + cases FROM counts WHERE run_id = %" PRId64
             " AND implementation = 'acme-div' AND variant = 'onnx-div-13' AND dtype = 'f32'"
             " AND class = ?1",
             run);
    CHECK(q_int(db_path, sql, "match") == 150003);
    CHECK(q_int(db_path, sql, "wrong-value") == 7001);
    CHECK(store_record_counts(s, run, "acme-div", 99, DVG_DTYPE_F32, ORACLE_CLASS_MATCH, 1, 1) ==
          -1);
    CHECKF(strstr(store_errmsg(s), db_path) && strstr(store_errmsg(s), "record counts") &&
               strstr(store_errmsg(s), "unknown variant 99"),
           "%s", store_errmsg(s));
    CHECK(store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                              ORACLE_CLASS_COUNT, 1, 1) == -1);

    /* Certificates: one per key, replaced when recorded again. */
    CHECK(store_record_certificate(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                                   "NONCONFORMANT", "exact", 3, 157) == 0);
    CHECK(store_record_certificate(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                                   "CONFORMANT under profile ftz", "ftz", 3, 157) == 0);
    CHECK(store_record_certificate(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16,
                                   "UNSUPPORTED", "exact", 0, 0) == 0);
    snprintf(sql, sizeof sql,
             "SELECT verdict FROM certificates WHERE run_id = %" PRId64 " AND dtype = 'f32'",
             run);
    CHECK(!strcmp(q_text(db_path, sql, NULL, msg, sizeof msg), "CONFORMANT under profile ftz"));
    snprintf(sql, sizeof sql, "SELECT count(*) FROM certificates WHERE run_id = %" PRId64, run);
    CHECK(q_int(db_path, sql, NULL) == 2);
    snprintf(sql, sizeof sql,
             "SELECT version FROM v_certificates WHERE run_id = %" PRId64 " AND dtype = 'f16'",
             run);
    CHECK(!strcmp(q_text(db_path, sql, NULL, msg, sizeof msg), "2.3.1"));

    /* Finishing: status and time. */
    CHECK(store_finish_run(s, run, STORE_RUN_COMPLETE) == 0);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM runs WHERE id = %" PRId64
             " AND status = 'complete' AND finished_at >= started_at",
             run);
    CHECK(q_int(db_path, sql, NULL) == 1);
    CHECK(store_finish_run(s, run + 1000, STORE_RUN_COMPLETE) == -1);
    CHECK(strstr(store_errmsg(s), "no run"));
    CHECK(store_finish_run(s, run, 7) == -1);

    /* The run summary view sees it all. */
    snprintf(sql, sizeof sql,
             "SELECT elements * 100000 + differences * 100 + conformant * 10 + not_conformant "
             "FROM v_run_summary WHERE run_id = %" PRId64,
             run);
    CHECK(q_int(db_path, sql, NULL) == 157 * 100000 + 7 * 100 + 1 * 10 + 1);
    snprintf(sql, sizeof sql, "SELECT plugins FROM v_run_summary WHERE run_id = %" PRId64, run);
    CHECK(!strcmp(q_text(db_path, sql, NULL, msg, sizeof msg), "acme-div 2.3.1"));
}

static store_finding finding(const divcase *c, uint32_t cls, const char *operands)
{
    store_finding f = {0};
    f.implementation = "acme-div";
    f.cls = cls;
    f.operand_class = operands;
    f.c = c;
    f.element = 3;
    f.expected = "0x3c00 (1.0)";
    f.actual = "0x3c01";
    f.ulps = 1;
    f.note = "first seen in a sweep";
    return f;
}

static void test_signatures(store *s)
{
    char sql[512];
    static const int64_t da[] = {2, 3}, db[] = {3};
    divcase c;
    make_case(&c, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, 2, da, 1, db, 1);
    int64_t run1 = begin_run(s, "fuzz", 1), run2 = begin_run(s, "fuzz", 2);
    int64_t sig1 = 0, sig2 = 0;
    int is_new = -1;

    store_finding f = finding(&c, ORACLE_CLASS_WRONG_VALUE, "normal/normal");
    CHECK(store_last_reproducer(s) == 0);
    CHECKF(store_record_finding(s, run1, &f, &sig1, &is_new) == 0, "%s", store_errmsg(s));
    CHECK(sig1 > 0 && is_new == 1 && store_last_reproducer(s) > 0);
    int64_t first_repro = store_last_reproducer(s);
    CHECK(store_record_finding(s, run2, &f, &sig2, &is_new) == 0);
    CHECK(sig2 == sig1 && is_new == 0 && store_last_reproducer(s) > first_repro);
    CHECK(q_int(db_path, "SELECT count(*) FROM signatures WHERE class = 'wrong-value'", NULL) ==
          1);
    snprintf(sql, sizeof sql,
             "SELECT occurrences * 10000 + first_run_id * 100 + last_run_id FROM signatures "
             "WHERE id = %" PRId64,
             sig1);
    CHECK(q_int(db_path, sql, NULL) == 2 * 10000 + run1 * 100 + run2);
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM signatures WHERE id = %" PRId64
             " AND status = 'open' AND first_seen <= last_seen AND implementation = 'acme-div'"
             " AND variant = 'onnx-div-13' AND dtype = 'f16' AND operand_class = 'normal/normal'",
             sig1);
    CHECK(q_int(db_path, sql, NULL) == 1);
    /* A finding recorded late by an older run does not move last_run_id back. */
    CHECK(store_record_finding(s, run1, &f, NULL, NULL) == 0);
    snprintf(sql, sizeof sql, "SELECT last_run_id FROM signatures WHERE id = %" PRId64, sig1);
    CHECK(q_int(db_path, sql, NULL) == run2);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM reproducers WHERE signature_id = %" PRId64,
             sig1);
    CHECK(q_int(db_path, sql, NULL) == 3);

    /* Another operand class is another signature. */
    store_finding g = finding(&c, ORACLE_CLASS_WRONG_VALUE, "subnormal/normal");
    CHECK(store_record_finding(s, run1, &g, &sig2, &is_new) == 0);
    CHECK(sig2 != sig1 && is_new == 1);

    /* The bound: default 8 kept, the rest counted. */
    store_finding h = finding(&c, ORACLE_CLASS_NAN_UNEXPECTED, "inf/inf");
    int64_t sig3 = 0;
    for (int i = 0; i < 11; i++) {
        CHECK(store_record_finding(s, run1, &h, &sig3, NULL) == 0);
        CHECK((store_last_reproducer(s) != 0) == (i < 8)); /* 0 once only counted */
    }
    snprintf(sql, sizeof sql,
             "SELECT occurrences * 10000 + reproducers_dropped * 100 + reproducers_stored "
             "FROM v_signatures WHERE id = %" PRId64,
             sig3);
    CHECK(q_int(db_path, sql, NULL) == 11 * 10000 + 3 * 100 + 8);
    /* A smaller bound for this handle. */
    store_set_reproducer_limit(s, 2);
    store_finding k = finding(&c, ORACLE_CLASS_INT_WRAP, "int-min/minus-one");
    int64_t sig4 = 0;
    for (int i = 0; i < 5; i++)
        CHECK(store_record_finding(s, run1, &k, &sig4, NULL) == 0);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM reproducers WHERE signature_id = %" PRId64,
             sig4);
    CHECK(q_int(db_path, sql, NULL) == 2);
    store_set_reproducer_limit(s, STORE_DEFAULT_REPRODUCERS);

    /* v_findings: one row per reproducer. */
    snprintf(sql, sizeof sql,
             "SELECT count(*) FROM v_findings WHERE signature_id = %" PRId64
             " AND expected = '0x3c00 (1.0)' AND actual = '0x3c01' AND ulps = 1 AND element = 3",
             sig3);
    CHECK(q_int(db_path, sql, NULL) == 8);

    /* Refused findings. */
    store_finding bad = f;
    bad.cls = ORACLE_CLASS_MATCH;
    CHECK(store_record_finding(s, run1, &bad, NULL, NULL) == -1);
    CHECK(strstr(store_errmsg(s), "record finding"));
    bad = f;
    bad.implementation = "";
    CHECK(store_record_finding(s, run1, &bad, NULL, NULL) == -1);
    divcase lying = c;
    lying.a_bytes = 5;
    bad = f;
    bad.c = &lying;
    CHECK(store_record_finding(s, run1, &bad, NULL, NULL) == -1);
    CHECKF(strstr(store_errmsg(s), "do not match"), "%s", store_errmsg(s));
    /* A run that does not exist is refused by the foreign key. */
    CHECK(store_record_finding(s, 987654, &f, NULL, NULL) == -1);
    CHECKF(strstr(store_errmsg(s), "FOREIGN KEY"), "%s", store_errmsg(s));
    snprintf(sql, sizeof sql, "SELECT occurrences FROM signatures WHERE id = %" PRId64, sig1);
    CHECK(q_int(db_path, sql, NULL) == 3);

    /* Fixed: run3 tests the triple and does not see sig1 or sig2. */
    int64_t run3 = begin_run(s, "certify", 3), fixed = -1;
    CHECK(store_record_finding(s, run3, &h, NULL, NULL) == 0); /* sig3 seen in run3 */
    CHECK(store_mark_fixed(s, run3, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, &fixed) ==
          0);
    CHECK(fixed == 3); /* sig1, sig2, sig4 */
    snprintf(sql, sizeof sql, "SELECT status || ' ' || fixed_run_id FROM signatures WHERE id = ?1");
    char want[64];
    snprintf(want, sizeof want, "fixed %" PRId64, run3);
    char id_text[32];
    snprintf(id_text, sizeof id_text, "%" PRId64, sig1);
    CHECK(!strcmp(q_text(db_path, sql, id_text, msg, sizeof msg), want));
    snprintf(id_text, sizeof id_text, "%" PRId64, sig3);
    CHECK(!strcmp(q_text(db_path, "SELECT status FROM signatures WHERE id = ?1", id_text, msg,
                         sizeof msg),
                  "open"));
    /* It comes back: open again. */
    int64_t run4 = begin_run(s, "certify", 4);
    CHECK(store_record_finding(s, run4, &f, NULL, &is_new) == 0 && is_new == 0);
    snprintf(id_text, sizeof id_text, "%" PRId64, sig1);
    CHECK(!strcmp(q_text(db_path,
                         "SELECT status || ' ' || ifnull(fixed_run_id, '-') FROM signatures "
                         "WHERE id = ?1",
                         id_text, msg, sizeof msg),
                  "open -"));
    divcase_free(&c);
}

/* Records c as a finding and loads it back: every field must match. */
static void round_trip(store *s, int64_t run, const divcase *c, uint64_t ulps, int64_t element)
{
    int64_t sig = 0;
    store_finding f = finding(c, ORACLE_CLASS_WRONG_SIGN_ZERO, c->id);
    f.ulps = ulps;
    f.element = element;
    f.note = NULL;
    CHECKF(store_record_finding(s, run, &f, &sig, NULL) == 0, "%s", store_errmsg(s));
    int64_t id = store_last_reproducer(s);
    CHECK(id > 0);
    divcase back;
    store_reproducer info;
    memset(&back, 0xa5, sizeof back);
    CHECKF(store_reproducer_load(s, id, &back, &info) == 0, "%s", store_errmsg(s));
    CHECK(!strcmp(back.id, c->id) && !strcmp(back.source, c->source));
    CHECK(back.variant == c->variant && back.dtype == c->dtype);
    CHECK(memcmp(&back.attrs, &c->attrs, sizeof c->attrs) == 0);
    CHECK(memcmp(&back.a_shape, &c->a_shape, sizeof c->a_shape) == 0);
    CHECK(memcmp(&back.b_shape, &c->b_shape, sizeof c->b_shape) == 0);
    CHECK(memcmp(&back.offsets, &c->offsets, sizeof c->offsets) == 0);
    CHECK(back.a_bytes == c->a_bytes && back.b_bytes == c->b_bytes);
    CHECK(back.a && back.b);
    CHECK(c->a_bytes == 0 || memcmp(back.a, c->a, c->a_bytes) == 0);
    CHECK(c->b_bytes == 0 || memcmp(back.b, c->b, c->b_bytes) == 0);
    CHECK(back.expect == NULL && back.n_requirements == 0 && !back.expect_invalid);
    CHECK(info.id == id && info.signature_id == sig && info.run_id == run);
    CHECK(info.element == element && info.ulps == ulps);
    CHECK(!strcmp(info.expected, "0x3c00 (1.0)") && !strcmp(info.actual, "0x3c01"));
    CHECK(!strcmp(info.note, "") && !strcmp(info.implementation, "acme-div"));
    CHECK(!strcmp(info.cls, "wrong-sign-zero") && !strcmp(info.operand_class, c->id));
    divcase_free(&back);
}

static void test_reproducers(store *s)
{
    int64_t run = begin_run(s, "sweep", 5);
    const char *so = test_path(1, "plugin.so");
    CHECK(store_plugin_build(s, run, "acme-div", "2.4.0", so, NULL) == 0);
    divcase c;

    /* Every attribute field set away from its default. */
    static const int64_t d23[] = {2, 3}, d3[] = {3};
    make_case(&c, DVG_VARIANT_OPENVINO_DIVIDE_1, DVG_DTYPE_I32, 2, d23, 1, d3, 11);
    snprintf(c.id, sizeof c.id, "attrs");
    c.attrs.broadcast = 1;
    c.attrs.axis_set = 1;
    c.attrs.axis = -2;
    c.attrs.pythondiv = 0;
    c.attrs.auto_broadcast = DVG_BROADCAST_PDPD;
    c.attrs.int_rounding = DVG_ROUND_FLOOR;
    round_trip(s, run, &c, 12345, 4);
    /* Data offsets: kept, so a replay places the data again as found. */
    c.offsets.set = 1;
    c.offsets.at[DIVCASE_A] = 3;
    c.offsets.at[DIVCASE_B] = 0;
    c.offsets.at[DIVCASE_C] = 63;
    snprintf(c.id, sizeof c.id, "offsets");
    round_trip(s, run, &c, 12345, 4);
    divcase_free(&c);

    /* Odd count of i4 (packed nibbles), a scalar, an empty tensor, rank 8. */
    static const int64_t d5[] = {5}, d0[] = {0, 4};
    make_case(&c, DVG_VARIANT_SONNX_DIV, DVG_DTYPE_I4, 1, d5, 1, d5, 12);
    snprintf(c.id, sizeof c.id, "i4-odd");
    c.attrs.int_rounding = DVG_ROUND_TRUNC;
    round_trip(s, run, &c, UINT64_MAX, -1);
    divcase_free(&c);
    make_case(&c, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_BF16, 0, NULL, 0, NULL, 13);
    snprintf(c.id, sizeof c.id, "scalar");
    round_trip(s, run, &c, 0, 0);
    divcase_free(&c);
    make_case(&c, DVG_VARIANT_ONNX_DIV_7, DVG_DTYPE_F64, 2, d0, 1, d5, 14);
    snprintf(c.id, sizeof c.id, "empty");
    CHECK(c.a_bytes == 0);
    round_trip(s, run, &c, 1, 2);
    divcase_free(&c);
    {
        static const int64_t d8[] = {1, 2, 1, 2, 1, 2, 1, 3};
        memset(&c, 0, sizeof c);
        snprintf(c.id, sizeof c.id, "rank8");
        c.variant = DVG_VARIANT_ONNX_DIV_13;
        c.dtype = DVG_DTYPE_U64;
        oracle_attrs_default(oracle_variant_get(c.variant), &c.attrs);
        c.a_shape.rank = 8;
        memcpy(c.a_shape.dims, d8, sizeof d8);
        c.b_shape.rank = 1;
        c.b_shape.dims[0] = 3;
        CHECK(divcase_alloc(&c, 1000) == 0);
        for (uint64_t i = 0; i < c.a_bytes; i++)
            c.a[i] = (uint8_t)(255 - i);
        round_trip(s, run, &c, (uint64_t)INT64_MAX, 7);
        divcase_free(&c);
    }

    /* The plugin of the reproducer's run. */
    {
        int64_t id = q_int(db_path, "SELECT max(id) FROM reproducers", NULL);
        store_reproducer info;
        divcase back;
        CHECK(store_reproducer_load(s, id, &back, &info) == 0);
        CHECK(!strcmp(info.plugin_version, "2.4.0") && !strcmp(info.plugin_path, so));
        CHECK(strlen(info.plugin_sha256) == 64);
        divcase_free(&back);
        CHECK(store_reproducer_load(s, id, &back, NULL) == 0);
        divcase_free(&back);
    }

    /* Unknown id; damaged rows are refused with the column named. */
    divcase back;
    memset(&back, 0, sizeof back);
    CHECK(store_reproducer_load(s, 999999, &back, NULL) == -1);
    CHECKF(strstr(store_errmsg(s), "load reproducer 999999") &&
               strstr(store_errmsg(s), "no such reproducer"),
           "%s", store_errmsg(s));
    int64_t id = q_int(db_path, "SELECT min(id) FROM reproducers", NULL);
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE reproducers SET a = zeroblob(3) WHERE id = %" PRId64, id);
    CHECK(raw_exec(db_path, sql) == 0);
    CHECK(store_reproducer_load(s, id, &back, NULL) == -1);
    CHECKF(strstr(store_errmsg(s), "column a holds 3 bytes"), "%s", store_errmsg(s));
    snprintf(sql, sizeof sql,
             "UPDATE reproducers SET a_shape = '(1099511627776, 1099511627776)' WHERE id = %" PRId64,
             id);
    CHECK(raw_exec(db_path, sql) == 0);
    CHECK(store_reproducer_load(s, id, &back, NULL) == -1);
    CHECKF(strstr(store_errmsg(s), "a_shape"), "%s", store_errmsg(s));
    snprintf(sql, sizeof sql, "UPDATE reproducers SET dtype = 'f128' WHERE id = %" PRId64, id);
    CHECK(raw_exec(db_path, sql) == 0);
    CHECK(store_reproducer_load(s, id, &back, NULL) == -1);
    CHECKF(strstr(store_errmsg(s), "unknown dtype 'f128'"), "%s", store_errmsg(s));
    snprintf(sql, sizeof sql,
             "UPDATE reproducers SET attr_auto_broadcast = -1 WHERE id = %" PRId64, id);
    CHECK(raw_exec(db_path, sql) == 0);
    snprintf(sql, sizeof sql, "UPDATE reproducers SET dtype = 'i32' WHERE id = %" PRId64, id);
    CHECK(raw_exec(db_path, sql) == 0);
    CHECK(store_reproducer_load(s, id, &back, NULL) == -1);
    CHECKF(strstr(store_errmsg(s), "attr_auto_broadcast"), "%s", store_errmsg(s));
    CHECK(back.a == NULL);
    CHECK(store_finish_run(s, run, STORE_RUN_COMPLETE) == 0);
}

static void test_batches(store *s)
{
    static const int64_t d4[] = {4};
    divcase c;
    make_case(&c, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32, 1, d4, 1, d4, 21);
    int64_t run = begin_run(s, "fuzz", 21);
    store_finding f = finding(&c, ORACLE_CLASS_HANG, "batch");

    CHECK(store_commit(s) == -1 && strstr(store_errmsg(s), "no batch"));
    CHECK(store_rollback(s) == 0);
    CHECK(store_begin(s) == 0);
    CHECK(store_begin(s) == -1 && strstr(store_errmsg(s), "already open"));
    store_run_info info = {.kind = "fuzz"};
    int64_t r2;
    CHECK(store_begin_run(s, &info, &r2) == -1 && strstr(store_errmsg(s), "inside a batch"));
    for (int i = 0; i < 3; i++)
        CHECK(store_record_finding(s, run, &f, NULL, NULL) == 0);
    CHECK(store_rollback(s) == 0);
    CHECK(q_int(db_path, "SELECT count(*) FROM signatures WHERE operand_class = 'batch'",
                NULL) == 0);

    CHECK(store_begin(s) == 0);
    for (int i = 0; i < 3; i++)
        CHECK(store_record_finding(s, run, &f, NULL, NULL) == 0);
    /* Not visible to others before the commit. */
    CHECK(q_int(db_path, "SELECT count(*) FROM signatures WHERE operand_class = 'batch'",
                NULL) == 0);
    /* A failing operation inside the batch leaves no trace and no damage. */
    CHECK(store_record_finding(s, 987654, &f, NULL, NULL) == -1);
    CHECK(store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                              ORACLE_CLASS_HANG, 1, 1) == 0);
    CHECKF(store_commit(s) == 0, "%s", store_errmsg(s));
    CHECK(q_int(db_path, "SELECT occurrences FROM signatures WHERE operand_class = 'batch'",
                NULL) == 3);
    CHECK(store_finish_run(s, run, STORE_RUN_INCOMPLETE) == 0);
    divcase_free(&c);
}

static void test_check(void)
{
    int version = -1;
    char err[512] = "";
    CHECKF(store_check(db_path, &version, err, sizeof err) == 0, "%s", err);
    CHECK(version == store_schema_version());
}

int main(void)
{
    test_dir("store");
    db_path = test_path(0, "divergence.db");
    test_open_new();

    store *s = NULL;
    char err[512];
    CHECKF(store_open(db_path, 0, &s, err, sizeof err) == 0, "%s", err);
    if (s) {
        test_runs_builds_counts(s);
        test_signatures(s);
        test_reproducers(s);
        test_batches(s);
    }
    store_close(s);
    test_check();
    int rc = check_done("store_roundtrip");
    if (rc == 0)
        test_dir_remove();
    else
        fprintf(stderr, "database kept in %s\n", test_dir_);
    return rc;
}
