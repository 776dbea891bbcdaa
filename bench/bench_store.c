/* SPDX-License-Identifier: MIT */
/*
 * bench/bench_store.c: the store's insert rates, with plain SQLite inserts
 * into the same kind of file as the baseline measured in the same run.
 *
 *   findings   store_record_finding of N findings over 64 signatures (a
 *              sweep's or a campaign's pattern: mostly known signatures,
 *              8 reproducers each, the rest counted as dropped), in
 *              transactions of 1000;
 *   signatures store_record_finding of N distinct signatures, each with its
 *              4-element reproducer;
 *   counts     store_record_counts of N rows (a chunk's counts);
 *   baseline   sqlite3 INSERT of N rows of 6 columns with one prepared
 *              statement, same journal mode (WAL) and transactions.
 *
 * Usage: bench_store [N] [DIR]   (N default 20000; DIR default /tmp)
 * Prints one line of key=value rates in rows per second.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/store/store.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}


int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    char path[512], err[512];
    snprintf(path, sizeof path, "%s/bench-store-%d.db", dir, (int)getpid());
    static const char *const opclass[] = {"normal/normal", "subnormal/normal", "zero/zero",
                                          "normal/subnormal", "inf/normal", "nan/normal",
                                          "normal/zero", "negative/positive"};
    divcase c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "bench");
    c.variant = DVG_VARIANT_ONNX_DIV_13;
    c.dtype = DVG_DTYPE_F16;
    c.a_shape.rank = c.b_shape.rank = 1;
    c.a_shape.dims[0] = c.b_shape.dims[0] = 4;
    if (divcase_alloc(&c, 16))
        return 2;
    double rate[3];
    for (int what = 0; what < 3; what++) {
        store_remove_files(path);
        store *s;
        if (store_open(path, STORE_CREATE, &s, err, sizeof err)) {
            fprintf(stderr, "bench_store: %s\n", err);
            return 2;
        }
        store_run_info ri = {.kind = "bench"};
        int64_t run;
        store_begin_run(s, &ri, &run);
        double t0 = now();
        for (long i = 0; i < n; i++) {
            if (i % 1000 == 0)
                store_begin(s);
            int rc;
            if (what == 2) {
                rc = store_record_counts(s, run, "bench-impl", DVG_VARIANT_ONNX_DIV_13,
                                         DVG_DTYPE_F16, (uint32_t)(i % ORACLE_CLASS_COUNT), 7, 1);
            } else {
                char opc[64];
                if (what == 1)
                    snprintf(opc, sizeof opc, "sig-%ld", i);
                store_finding f = {.implementation = "bench-impl",
                                   .cls = (uint32_t)(1 + i % 8),
                                   .operand_class = what == 1 ? opc : opclass[(i / 8) % 8],
                                   .c = &c, .element = 1, .expected = "1.0 (0x3c00)",
                                   .actual = "0.0 (0x0000)", .ulps = 15360, .note = "bench"};
                rc = store_record_finding(s, run, &f, NULL, NULL);
            }
            if (rc) {
                fprintf(stderr, "bench_store: %s\n", store_errmsg(s));
                return 1;
            }
            if (i % 1000 == 999 || i == n - 1)
                store_commit(s);
        }
        rate[what] = (double)n / (now() - t0);
        store_close(s);
    }
    /* baseline: plain SQLite */
    store_remove_files(path);
    sqlite3 *db;
    sqlite3_stmt *st;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"
                         "CREATE TABLE t(a TEXT, b TEXT, c TEXT, d INTEGER, e INTEGER, f BLOB)",
                     NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO t VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL) !=
            SQLITE_OK)
        return 2;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        if (i % 1000 == 0)
            sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);
        sqlite3_bind_text(st, 1, "bench-impl", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, "onnx-div-13", -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, opclass[i % 8], -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, i);
        sqlite3_bind_int64(st, 5, 7);
        sqlite3_bind_blob(st, 6, c.a, (int)c.a_bytes, SQLITE_STATIC);
        sqlite3_step(st);
        sqlite3_reset(st);
        if (i % 1000 == 999 || i == n - 1)
            sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    }
    double raw = (double)n / (now() - t0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    store_remove_files(path);
    divcase_free(&c);
    printf("findings=%.0f signatures=%.0f counts=%.0f raw=%.0f n=%ld\n", rate[0], rate[1], rate[2],
           raw, n);
    return 0;
}
