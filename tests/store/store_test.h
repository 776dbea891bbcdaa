/* SPDX-License-Identifier: MIT */
/*
 * tests/store/store_test.h: helpers of the store tests: a scratch folder,
 * direct SQLite queries to look at what the store wrote, and cases to
 * record.
 */
#ifndef TESTS_STORE_TEST_H
#define TESTS_STORE_TEST_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "harness/cases/divcase.h"
#include "harness/store/store.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static char test_dir_[256];

/* Makes a fresh scratch folder; returns its path. */
static inline const char *test_dir(const char *name)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(test_dir_, sizeof test_dir_, "%s/dvg-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (!mkdtemp(test_dir_)) {
        perror("mkdtemp");
        exit(2);
    }
    return test_dir_;
}

/* Removes the scratch folder and what is in it. */
static inline void test_dir_remove(void)
{
    char cmd[512];
    if (!test_dir_[0])
        return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", test_dir_);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", test_dir_);
}

/* A path inside the scratch folder (static buffer per slot 0..3). */
static inline const char *test_path(int slot, const char *file)
{
    static char paths[4][512];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", test_dir_, file);
    return paths[slot];
}

/* The first column of the first row of `sql` (one optional text parameter
 * ?1) on the database at `path`, read with a connection of its own;
 * INT64_MIN when there is no row or the query fails. */
static inline int64_t q_int(const char *path, const char *sql, const char *param)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t v = INT64_MIN;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        goto done;
    sqlite3_busy_timeout(db, 10000);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "query '%s': %s\n", sql, sqlite3_errmsg(db));
        goto done;
    }
    if (param)
        sqlite3_bind_text(st, 1, param, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
        v = sqlite3_column_int64(st, 0);
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Like q_int for a text column, into buf ("" when none). */
static inline const char *q_text(const char *path, const char *sql, const char *param, char *buf,
                          size_t len)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    buf[0] = '\0';
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
        goto done;
    sqlite3_busy_timeout(db, 10000);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
        fprintf(stderr, "query '%s': %s\n", sql, sqlite3_errmsg(db));
        goto done;
    }
    if (param)
        sqlite3_bind_text(st, 1, param, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st, 0));
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    return buf;
}

/* Runs `sql` (no parameters) on the file at `path` directly; 0 or -1. */
static inline int raw_exec(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    int rc = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) ==
            SQLITE_OK &&
        sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
        rc = 0;
    else
        fprintf(stderr, "raw_exec '%s': %s\n", sql, db ? sqlite3_errmsg(db) : "no db");
    sqlite3_close(db);
    return rc;
}

/* Builds a case of `variant` and `dtype` with the given shapes (dims from
 * da[0..ra-1] and db[0..rb-1]) and operand bytes from a simple generator seeded with
 * `seed`. Exits on allocation failure (tests only). */
static inline void make_case(divcase *c, uint32_t variant, uint32_t dtype, uint32_t ra,
                      const int64_t *da, uint32_t rb, const int64_t *db, uint32_t seed)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "gen:seed:%u", seed);
    snprintf(c->source, sizeof c->source, "tests/store:%u", seed);
    c->variant = variant;
    c->dtype = dtype;
    oracle_attrs_default(oracle_variant_get(variant), &c->attrs);
    c->a_shape.rank = ra;
    for (uint32_t i = 0; i < ra; i++)
        c->a_shape.dims[i] = da[i];
    c->b_shape.rank = rb;
    for (uint32_t i = 0; i < rb; i++)
        c->b_shape.dims[i] = db[i];
    if (divcase_alloc(c, 1u << 20) != 0) {
        fprintf(stderr, "make_case: allocation failed\n");
        exit(2);
    }
    uint32_t x = seed * 2654435761u + 1;
    for (uint64_t i = 0; i < c->a_bytes; i++) {
        x = x * 1103515245u + 12345u;
        c->a[i] = (uint8_t)(x >> 16);
    }
    for (uint64_t i = 0; i < c->b_bytes; i++) {
        x = x * 1103515245u + 12345u;
        c->b[i] = (uint8_t)(x >> 16);
    }
}

#endif /* TESTS_STORE_TEST_H */
