/* SPDX-License-Identifier: MIT */
/*
 * The store API behind reports and queries: store_select (read-only, one
 * statement, bound parameters), ULP histograms and their buckets, and
 * store_merge (shards fold into one run, idempotence, the reproducer
 * bound), and allocation failure at every step of a merge and of a report.
 */
#include <inttypes.h>
#include <sys/stat.h>

#include "check.h"
#include "harness/base/alloc.h"
#include "harness/judge/verdict.h"
#include "oracle/compare.h"
#include "reports/report.h"
#include "store/store_test.h"

typedef struct rows {
    int n;
    int64_t sum;
    char last[64];
    int types[4];
    char names[4][32];
    int stop_at;
} rows;

static int on_row(void *ctx, const store_row *r)
{
    rows *x = ctx;
    x->n++;
    x->sum += store_row_int(r, 0);
    const char *t = store_row_text(r, 1);
    snprintf(x->last, sizeof x->last, "%s", t ? t : "(null)");
    for (int i = 0; i < 4 && i < store_row_columns(r); i++) {
        x->types[i] = store_row_type(r, i);
        snprintf(x->names[i], sizeof x->names[i], "%s", store_row_name(r, i));
    }
    return x->stop_at && x->n >= x->stop_at;
}

static void test_select(store *s)
{
    rows x = {0};
    store_param p[2] = {STORE_PARAM_INT(40), STORE_PARAM_TEXT("it's")};
    CHECKF(store_select(s, "SELECT ?1 + 2 AS n, ?2 || ' text' AS t, NULL AS z, x'00ff' AS b", p, 2,
                        on_row, &x) == 0,
           "%s", store_errmsg(s));
    CHECK(x.n == 1 && x.sum == 42 && !strcmp(x.last, "it's text"));
    CHECK(x.types[0] == STORE_INT && x.types[1] == STORE_TEXT && x.types[2] == STORE_NULL &&
          x.types[3] == STORE_BLOB);
    CHECK(!strcmp(x.names[0], "n") && !strcmp(x.names[3], "b"));
    /* A NULL text parameter binds NULL. */
    memset(&x, 0, sizeof x);
    store_param null_text = STORE_PARAM_TEXT(NULL);
    CHECK(store_select(s, "SELECT 1, ?1", &null_text, 1, on_row, &x) == 0 &&
          !strcmp(x.last, "(null)"));
    /* Refused: writes, two statements, wrong parameter count, bad SQL. */
    memset(&x, 0, sizeof x);
    CHECK(store_select(s, "DELETE FROM runs", NULL, 0, on_row, &x) == -1);
    CHECKF(strstr(store_errmsg(s), "not a read-only statement"), "%s", store_errmsg(s));
    CHECK(store_select(s, "SELECT 1; DELETE FROM runs", NULL, 0, on_row, &x) == -1);
    CHECKF(strstr(store_errmsg(s), "exactly one statement"), "%s", store_errmsg(s));
    CHECK(store_select(s, "SELECT ?1, ?2", p, 1, on_row, &x) == -1);
    CHECKF(strstr(store_errmsg(s), "2 parameters, 1 given"), "%s", store_errmsg(s));
    CHECK(store_select(s, "SELEKT 1", NULL, 0, on_row, &x) == -1);
    CHECK(store_select(s, "PRAGMA user_version", NULL, 0, on_row, &x) == 0 &&
          x.sum == store_schema_version());
    /* The callback stops it. */
    memset(&x, 0, sizeof x);
    x.stop_at = 2;
    CHECK(store_select(s,
                       "WITH RECURSIVE c(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM c WHERE v < 10)"
                       " SELECT v, 'v' FROM c",
                       NULL, 0, on_row, &x) == -1);
    CHECKF(x.n == 2 && strstr(store_errmsg(s), "stopped by the caller at row 2"), "%d %s", x.n,
           store_errmsg(s));
}

static void test_buckets(void)
{
    static const struct {
        uint64_t ulps;
        uint32_t bucket;
        const char *label;
    } t[] = {{0, 0, "1"},         {1, 0, "1"},           {2, 1, "2"},
             {3, 2, "3-4"},       {4, 2, "3-4"},         {5, 3, "5-8"},
             {8, 3, "5-8"},       {9, 4, "9-16"},        {1u << 20, 20, "524289-1048576"},
             {(1u << 20) + 1, 21, ">1048576"}, {UINT64_MAX - 1, 21, ">1048576"},
             {UINT64_MAX, 22, "inf"}};
    char buf[32];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        uint32_t b = verdict_ulp_bucket(t[i].ulps);
        CHECKF(b == t[i].bucket, "ulps %" PRIu64 ": bucket %u, want %u", t[i].ulps, b, t[i].bucket);
        CHECKF(!strcmp(verdict_ulp_bucket_label(b, buf, sizeof buf), t[i].label), "%s", buf);
    }
    CHECK(VERDICT_ULP_BUCKETS == STORE_ULP_BUCKETS);
    CHECK(!strcmp(verdict_ulp_bucket_label(23, buf, sizeof buf), "?"));
}

/* A shard run of a little campaign: one claim (variant, dtype) with a
 * finding, counts, histogram and certificate. */
static int64_t shard(const char *path, uint32_t index, uint32_t count, uint32_t dtype,
                     const char *operand, uint64_t seed)
{
    store *s = NULL;
    char err[512];
    int64_t run = 0;
    CHECKF(store_open(path, STORE_CREATE, &s, err, sizeof err) == 0, "%s", err);
    if (!s)
        return 0;
    char args[128];
    snprintf(args, sizeof args, "divergence certify --plugin x.so --shard %u/%u --db %s", index,
             count, path);
    store_run_info ri = {.kind = "certify", .args = args, .seed = seed, .has_seed = 1,
                         .shard_index = index, .shard_count = count};
    CHECK(store_begin_run(s, &ri, &run) == 0);
    divcase c;
    int64_t da[1] = {4}, db[1] = {4};
    make_case(&c, DVG_VARIANT_ONNX_DIV_7, dtype, 1, da, 1, db, index + 1);
    store_finding f = {.implementation = "acme-div", .cls = ORACLE_CLASS_WRONG_VALUE,
                       .operand_class = operand, .c = &c, .element = 1, .expected = "1",
                       .actual = "2", .ulps = 3};
    for (int i = 0; i < 3; i++)
        CHECK(store_record_finding(s, run, &f, NULL, NULL) == 0);
    uint64_t hist[STORE_ULP_BUCKETS] = {0};
    hist[2] = 3;
    hist[22] = 1;
    CHECK(store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_7, dtype,
                              ORACLE_CLASS_MATCH, 100, 10) == 0);
    CHECK(store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_7, dtype,
                              ORACLE_CLASS_WRONG_VALUE, 4, 0) == 0);
    CHECK(store_record_ulp_histogram(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_7, dtype, hist,
                                     STORE_ULP_BUCKETS) == 0);
    CHECK(store_record_certificate(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_7, dtype,
                                   "NONCONFORMANT", "exact", 10, 104) == 0);
    CHECK(store_finish_run(s, run, STORE_RUN_COMPLETE) == 0);
    divcase_free(&c);
    store_close(s);
    return run;
}

static void test_histogram(store *s)
{
    int64_t run = 0;
    uint64_t hist[STORE_ULP_BUCKETS] = {0};
    store_run_info ri = {.kind = "certify"};
    CHECK(store_begin_run(s, &ri, &run) == 0);
    hist[0] = 5;
    hist[21] = 2;
    CHECK(store_record_ulp_histogram(s, run, "h", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, hist,
                                     STORE_ULP_BUCKETS) == 0);
    CHECK(store_record_ulp_histogram(s, run, "h", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, hist,
                                     1) == 0);
    CHECK(store_record_ulp_histogram(s, run, "h", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, hist,
                                     STORE_ULP_BUCKETS + 1) == -1);
    CHECK(store_record_ulp_histogram(s, run, "h", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, NULL,
                                     2) == -1);
    CHECK(store_record_ulp_histogram(s, run, "", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, hist,
                                     2) == -1);
    rows x = {0};
    store_param p = STORE_PARAM_INT(run);
    CHECK(store_select(s,
                       "SELECT sum(elements), group_concat(bucket || ':' || elements || ':' ||"
                       " ulps_from || ':' || coalesce(ulps_to, '-')) FROM v_ulp_histograms"
                       " WHERE run_id = ?1",
                       &p, 1, on_row, &x) == 0);
    CHECKF(x.sum == 12 && !strcmp(x.last, "0:10:1:1,21:2:1048577:-"), "%" PRId64 " %s", x.sum,
           x.last);
}

static int64_t count_of(const char *path, const char *sql)
{
    return q_int(path, sql, NULL);
}

static void test_merge(void)
{
    const char *s0 = test_path(0, "s0.db"), *s1 = test_path(1, "s1.db");
    const char *out = test_path(2, "out.db");
    char err[512];
    shard(s0, 0, 2, DVG_DTYPE_F32, "normal/normal", 9);
    shard(s1, 1, 2, DVG_DTYPE_F64, "normal/normal", 9);

    store *s = NULL;
    store_merge_stats st;
    CHECKF(store_open(out, STORE_CREATE, &s, err, sizeof err) == 0, "%s", err);
    if (!s)
        return;
    CHECKF(store_merge(s, s0, &st) == 0, "%s", store_errmsg(s));
    CHECK(st.input_version == store_schema_version() && st.runs_folded == 1 && st.runs_merged == 1 &&
          st.runs_added == 0 && st.signatures_added == 1 && st.reproducers_added == 3);
    CHECK(count_of(out, "SELECT status FROM runs") == INT64_MIN || 1);
    char text[64];
    CHECK(!strcmp(q_text(out, "SELECT status FROM runs", NULL, text, sizeof text), "incomplete"));
    CHECKF(store_merge(s, s1, &st) == 0, "%s", store_errmsg(s));
    CHECK(st.runs_folded == 1 && st.runs_skipped == 0);
    CHECK(count_of(out, "SELECT count(*) FROM runs") == 1);
    CHECK(!strcmp(q_text(out, "SELECT status FROM runs", NULL, text, sizeof text), "complete"));
    CHECK(count_of(out, "SELECT shard_count FROM runs WHERE shard_index IS NULL") == 2);
    CHECK(count_of(out, "SELECT count(*) FROM run_shards") == 2);
    CHECK(count_of(out, "SELECT sum(elements) FROM counts") == 208);
    CHECK(count_of(out, "SELECT sum(elements) FROM ulp_histograms") == 8);
    CHECK(count_of(out, "SELECT count(*) FROM certificates") == 2);
    CHECK(count_of(out, "SELECT count(*) FROM signatures") == 2);
    CHECK(count_of(out, "SELECT sum(occurrences) FROM signature_runs") == 6);
    CHECK(count_of(out, "SELECT count(*) FROM run_plugins") == 0);
    /* Again: nothing changes. */
    CHECKF(store_merge(s, s0, &st) == 0, "%s", store_errmsg(s));
    CHECK(st.runs_skipped == 1 && st.runs_folded == 0 && st.reproducers_added == 0 &&
          st.signatures_added == 0 && st.signatures_updated == 0);
    CHECK(count_of(out, "SELECT sum(occurrences) FROM signatures") == 6);
    CHECK(count_of(out, "SELECT sum(elements) FROM counts") == 208);
    /* Another campaign (other seed) with the same signature: its own run,
     * occurrences add, reproducers stop at the limit. */
    const char *s2 = test_path(3, "s2.db");
    shard(s2, 0, 2, DVG_DTYPE_F32, "normal/normal", 10);
    store_set_reproducer_limit(s, 4);
    CHECKF(store_merge(s, s2, &st) == 0, "%s", store_errmsg(s));
    CHECK(st.runs_merged == 1 && st.signatures_updated == 1 && st.reproducers_added == 1 &&
          st.reproducers_dropped == 2);
    CHECK(count_of(out, "SELECT count(*) FROM runs") == 2);
    CHECK(count_of(out, "SELECT occurrences FROM signatures WHERE dtype = 'f32'") == 6);
    CHECK(count_of(out, "SELECT reproducers_dropped FROM signatures WHERE dtype = 'f32'") == 2);
    CHECK(count_of(out, "SELECT count(*) FROM reproducers r JOIN signatures s"
                        " ON s.id = r.signature_id WHERE s.dtype = 'f32'") == 4);
    CHECK(count_of(out, "SELECT first_run_id FROM signatures WHERE dtype = 'f32'") == 1);
    CHECK(count_of(out, "SELECT last_run_id FROM signatures WHERE dtype = 'f32'") == 2);
    /* Refused: the output itself, a missing file. */
    CHECK(store_merge(s, out, &st) == -1 && strstr(store_errmsg(s), "output database itself"));
    CHECK(store_merge(s, test_path(3, "missing.db"), &st) == -1);
    CHECK(store_begin(s) == 0);
    CHECK(store_merge(s, s0, &st) == -1 && strstr(store_errmsg(s), "inside a batch"));
    CHECK(store_rollback(s) == 0);
    store_close(s);
    CHECKF(store_check(out, NULL, err, sizeof err) == 0, "%s", err);
}

/* Files named divergence-merge-* left in the scratch folder (TMPDIR). */
static int leftovers(void)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '^divergence-merge-'", test_dir_);
    return system(cmd) == 0;
}

/* Copies a file (no WAL beside it: its store was closed). 0 or -1. */
static int copy_file(const char *from, const char *to)
{
    char buf[65536];
    size_t n;
    int rc = 0;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc |= fwrite(buf, 1, n, out) != n;
    rc |= !in || !out || ferror(in);
    if (in)
        fclose(in);
    if (out)
        rc |= fclose(out) != 0;
    return rc ? -1 : 0;
}

/* Allocation failure at every step of a merge: each failure leaves the
 * output as it was and no temporary file; the merge then succeeds. */
static void test_merge_alloc_failures(void)
{
    const char *s0 = test_path(0, "s0.db");
    const char *pristine = test_path(1, "pristine.db"), *out = test_path(2, "fail.db");
    char err[512];
    store *s = NULL;
    CHECKF(store_open(pristine, STORE_CREATE, &s, err, sizeof err) == 0, "%s", err);
    store_close(s);
    /* Sticky: every allocation from the nth on fails, so the merge that
     * succeeds needed fewer than n. A merge makes some ten thousand
     * allocations (SQLite's): every one of the first 100 fails, then
     * every 4th percent, to keep the test short. */
    uint64_t n = 1, failed = 0;
    int done = 0;
    for (; n < 200000 && !done; n += n < 100 ? 1 : n / 25) {
        if (copy_file(pristine, out))
            break;
        s = NULL;
        if (store_open(out, 0, &s, err, sizeof err) != 0)
            break;
        dvg_alloc_fail_at(n, 1);
        store_merge_stats st;
        int rc = store_merge(s, s0, &st);
        dvg_alloc_fail_at(0, 0);
        store_close(s);
        if (rc == 0) {
            done = 1;
            break;
        }
        failed++;
        if (count_of(out, "SELECT count(*) FROM runs") != 0 ||
            count_of(out, "SELECT count(*) FROM signatures") != 0) {
            CHECKF(0, "allocation failure %" PRIu64 " left a partial merge", n);
            break;
        }
        if (leftovers()) {
            CHECKF(0, "allocation failure %" PRIu64 " left a temporary file", n);
            break;
        }
    }
    CHECKF(done && failed > 10, "merge succeeded after %" PRIu64 " injected failures", failed);
    CHECK(count_of(out, "SELECT count(*) FROM runs") == 1);
    printf("merge: %" PRIu64 " allocation failures injected up to %" PRIu64 "\n", failed, n);
}

/* Allocation failure at every step of writing each report format (sticky,
 * after the store is open): it fails cleanly until it fits. */
static void test_report_alloc_failures(void)
{
    const char *path = test_path(2, "out.db");
    char err[512];
    static const report_format fmts[] = {REPORT_HTML, REPORT_JUNIT, REPORT_MARKDOWN, REPORT_JSON};
    for (size_t k = 0; k < sizeof fmts / sizeof fmts[0]; k++) {
        uint64_t n = 1;
        int done = 0;
        for (; n < 100000 && !done; n += n < 100 ? 1 : n / 25) {
            store *s = NULL;
            if (store_open(path, 0, &s, err, sizeof err) != 0)
                break;
            FILE *f = fopen("/dev/null", "w");
            dvg_alloc_fail_at(n, 1);
            int rc = report_write(s, path, 1, NULL, fmts[k], f, err, sizeof err);
            dvg_alloc_fail_at(0, 0);
            fclose(f);
            store_close(s);
            if (rc == 0)
                done = 1;
        }
        CHECKF(done && n > 5, "format %zu: written after %" PRIu64 " attempts", k, n);
        printf("report format %zu: allocation failures injected up to %" PRIu64 "\n", k, n);
    }
}

int main(void)
{
    char err[512];
    test_dir("store-api");
    setenv("TMPDIR", test_dir_, 1);
    store *s = NULL;
    CHECKF(store_open(test_path(3, "select.db"), STORE_CREATE, &s, err, sizeof err) == 0, "%s",
           err);
    if (s) {
        test_select(s);
        test_histogram(s);
        store_close(s);
    }
    test_buckets();
    test_merge();
    test_merge_alloc_failures();
    test_report_alloc_failures();
    test_dir_remove();
    return check_done("db_store_api");
}
