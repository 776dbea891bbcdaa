/* SPDX-License-Identifier: MIT */
/*
 * Files the store must refuse or only read: missing, newer schema, not a
 * database, corrupt, another program's database, read-only (by flag and
 * by permissions); and allocation failure at every step of a session.
 */
#include <fcntl.h>
#include <grp.h>
#include <inttypes.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness/base/alloc.h"
#include "oracle/compare.h"
#include "store_test.h"

static char err[1024];

/* Creates a database with one run and one finding; returns the finding's
 * reproducer id. */
static int64_t make_db(const char *path)
{
    store *s = NULL;
    static const int64_t d3[] = {3};
    divcase c;
    int64_t run = 0;
    store_run_info info = {.kind = "certify"};
    CHECKF(store_open(path, STORE_CREATE, &s, err, sizeof err) == 0, "%s", err);
    if (!s)
        return -1;
    CHECK(store_begin_run(s, &info, &run) == 0);
    make_case(&c, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32, 1, d3, 1, d3, 5);
    store_finding f = {.implementation = "acme-div", .cls = ORACLE_CLASS_WRONG_VALUE,
                       .operand_class = "normal/normal", .c = &c, .element = 1,
                       .ulps = 2};
    CHECK(store_record_finding(s, run, &f, NULL, NULL) == 0);
    divcase_free(&c);
    store_close(s);
    return q_int(path, "SELECT max(id) FROM reproducers", NULL);
}

static void test_missing(void)
{
    store *s = (store *)&err; /* must stay as it is */
    const char *path = test_path(0, "missing.db");
    CHECK(store_open(path, 0, &s, err, sizeof err) == -1);
    CHECK(s == (store *)&err);
    CHECKF(strstr(err, path) && strstr(err, "No such file"), "%s", err);
    CHECK(access(path, F_OK) != 0); /* not created */
    CHECK(store_open(path, STORE_CREATE | STORE_READONLY, &s, err, sizeof err) == -1);
    CHECK(store_open(NULL, STORE_CREATE, &s, err, sizeof err) == -1);
    CHECK(store_open(path, 0, &s, NULL, 0) == -1); /* err may be NULL */
}

static void test_newer(void)
{
    const char *path = test_path(0, "newer.db");
    store *s = NULL;
    char sql[64], newer[64], knows[64];
    int v = store_schema_version();
    make_db(path);
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v + 1);
    snprintf(newer, sizeof newer, "schema version %d", v + 1);
    snprintf(knows, sizeof knows, "newer than this divergence knows (%d)", v);
    CHECK(raw_exec(path, sql) == 0);
    CHECK(store_open(path, 0, &s, err, sizeof err) == -1 && !s);
    CHECKF(strstr(err, path) && strstr(err, newer) && strstr(err, knows), "%s", err);
    CHECK(store_open(path, STORE_READONLY, &s, err, sizeof err) == -1);
    CHECK(q_int(path, "PRAGMA user_version", NULL) == v + 1); /* untouched */
    int version = -1;
    CHECK(store_check(path, &version, err, sizeof err) == -1 && version == -1);
    CHECKF(strstr(err, newer), "%s", err);
}

static void write_file(const char *path, const void *data, size_t n, long offset)
{
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    CHECK(pwrite(fd, data, n, offset) == (ssize_t)n);
    close(fd);
}

static void test_not_a_database(void)
{
    const char *path = test_path(0, "notes.db");
    char text[8192];
    store *s = NULL;
    memset(text, 'x', sizeof text);
    memcpy(text, "these are my notes, not a database\n", 35);
    write_file(path, text, sizeof text, 0);
    CHECK(store_open(path, 0, &s, err, sizeof err) == -1 && !s);
    CHECKF(strstr(err, path) && strstr(err, "not a SQLite database"), "%s", err);
    CHECK(store_open(path, STORE_CREATE, &s, err, sizeof err) == -1);
    CHECK(store_check(path, NULL, err, sizeof err) == -1);
    CHECKF(strstr(err, "not a SQLite database"), "%s", err);
}

static void test_corrupt(void)
{
    const char *path = test_path(0, "corrupt.db");
    char junk[4096];
    store *s = NULL;
    make_db(path);
    CHECK(store_check(path, NULL, err, sizeof err) == 0);
    /* Page 1 (the schema) stays; every later page becomes noise. */
    struct stat sb;
    CHECK(stat(path, &sb) == 0 && sb.st_size > 8192);
    for (long off = 4096; off < (long)sb.st_size; off += sizeof junk) {
        for (size_t i = 0; i < sizeof junk; i++)
            junk[i] = (char)(i * 131 + (size_t)off);
        write_file(path, junk, sizeof junk, off);
    }
    int opened = store_open(path, 0, &s, err, sizeof err) == 0;
    if (!opened)
        CHECKF(strstr(err, path) && (strstr(err, "malformed") || strstr(err, "corrupt")), "%s",
               err);
    store_close(s);
    CHECK(store_check(path, NULL, err, sizeof err) == -1);
    CHECKF(strstr(err, path) && strlen(err) > strlen(path) + 10, "%s", err);
}

static void test_foreign(void)
{
    const char *path = test_path(0, "other.db");
    store *s = NULL;
    CHECK(raw_exec(path, "CREATE TABLE recipes(name TEXT)") == 0);
    CHECK(store_open(path, STORE_CREATE, &s, err, sizeof err) == -1 && !s);
    CHECKF(strstr(err, path) && strstr(err, "not a Divergence database"), "%s", err);
    CHECK(q_int(path, "SELECT count(*) FROM sqlite_schema", NULL) == 1); /* untouched */
}

/* Every write on a read-only store fails with a message naming the file,
 * the operation and `why`; reads work. */
static void check_read_only(const char *path, unsigned flags, int64_t repro, const char *why)
{
    store *s = NULL;
    CHECKF(store_open(path, flags, &s, err, sizeof err) == 0, "%s", err);
    if (!s)
        return;
    store_run_info info = {.kind = "certify"};
    int64_t run = 0;
    CHECK(store_begin_run(s, &info, &run) == -1 && run == 0);
    CHECKF(strstr(store_errmsg(s), path) && strstr(store_errmsg(s), "begin run") &&
               strstr(store_errmsg(s), why),
           "%s", store_errmsg(s));
    CHECK(store_record_counts(s, 1, "acme-div", DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                              ORACLE_CLASS_MATCH, 1, 1) == -1);
    CHECKF(strstr(store_errmsg(s), "record counts") && strstr(store_errmsg(s), "read-only"),
           "%s", store_errmsg(s));
    CHECK(store_begin(s) == -1);
    CHECK(store_finish_run(s, 1, STORE_RUN_COMPLETE) == -1);
    divcase c;
    CHECKF(store_reproducer_load(s, repro, &c, NULL) == 0, "%s", store_errmsg(s));
    divcase_free(&c);
    store_close(s);
}

static void test_read_only(void)
{
    const char *path = test_path(0, "ro.db");
    int64_t repro = make_db(path);
    check_read_only(path, STORE_READONLY, repro, "opened for reading only");
    CHECK(store_check(path, NULL, err, sizeof err) == 0);

    /* By permissions: as a user who may not write the file. Root may write
     * anything, so a child drops to nobody for this part. */
    CHECK(chmod(test_dir_, 0777) == 0);
    CHECK(chmod(path, 0444) == 0);
    unsigned long failures_before = check_failures_;
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 &&
            (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0)) {
            fprintf(stderr, "cannot become nobody\n");
            _exit(3);
        }
        check_read_only(path, 0, repro, "not writable");
        _exit(check_failures_ > failures_before ? 1 : 0);
    }
    int status = 0;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read-only child: status %d", status);

    /* In a folder nobody may write, SQLite cannot create the -shm file a WAL
     * database needs even for reading: a clear refusal. */
    char side[600];
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side); /* left by the read-only connections; the -wal is empty */
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    CHECK(chmod(test_dir_, 0555) == 0);
    pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 &&
            (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
            _exit(3);
        store *s = NULL;
        int bad = store_open(path, 0, &s, err, sizeof err) == 0 || !strstr(err, path) ||
                  !strstr(err, "-shm");
        if (bad)
            fprintf(stderr, "read-only folder: %s\n", s ? "opened" : err);
        store_close(s);
        _exit(bad);
    }
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "read-only folder child: status %d",
           status);
    CHECK(chmod(test_dir_, 0700) == 0);
    CHECK(chmod(path, 0644) == 0);
}

/* Copies file `from` to `to` (libc's heap only); 0 or -1. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out))
        rc = -1;
    return rc;
}

/* A whole session with allocation number n failing (and all after it when
 * sticky): every step either works or fails with a message; nothing
 * crashes or leaks (ASan), and the file stays sound. Each session starts
 * from the same small database, so it makes the same number of
 * allocations whatever n is. */
static void test_alloc_failures(void)
{
    const char *path = test_path(0, "oom.db");
    char template_path[512], side[600];
    static const int64_t d4[] = {4};
    divcase c;
    snprintf(template_path, sizeof template_path, "%s", test_path(1, "oom-template.db"));
    make_db(template_path);
    make_case(&c, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F16, 1, d4, 1, d4, 9);
    int completed = 0, unexplained = 0;
    uint64_t n;
    for (n = 1; n < 20000 && !completed; n++) {
        for (int sticky = 0; sticky <= 1; sticky++) {
            snprintf(side, sizeof side, "%s-wal", path);
            unlink(side);
            snprintf(side, sizeof side, "%s-shm", path);
            unlink(side);
            if (copy_file(template_path, path)) {
                CHECK(0);
                return;
            }
            store *s = NULL;
            int64_t run = 0;
            int ok = 0;
            char e[512] = "";
            store_run_info info = {.kind = "fuzz"};
            store_finding f = {.implementation = "acme-div", .cls = ORACLE_CLASS_NAN_EXPECTED,
                               .operand_class = "zero/zero", .c = &c, .element = 0};
            divcase back;
            dvg_alloc_fail_at(n, sticky);
            if (store_open(path, 0, &s, e, sizeof e) != 0) {
                if (!e[0])
                    fprintf(stderr, "n=%" PRIu64 " sticky=%d: open failed silently\n", n,
                            sticky);
                unexplained += !e[0];
                goto next;
            }
            store_set_reproducer_limit(s, UINT32_MAX); /* every session stores one */
            if (store_begin_run(s, &info, &run) || store_begin(s) ||
                store_record_finding(s, run, &f, NULL, NULL) ||
                store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_13,
                                    DVG_DTYPE_F16, ORACLE_CLASS_MATCH, 3, 1) ||
                store_commit(s) || store_finish_run(s, run, STORE_RUN_COMPLETE) ||
                store_reproducer_load(s, store_last_reproducer(s), &back, NULL)) {
                if (!store_errmsg(s)[0])
                    fprintf(stderr, "n=%" PRIu64 " sticky=%d: failed silently\n", n, sticky);
                unexplained += !store_errmsg(s)[0];
                goto next;
            }
            ok = back.a_bytes == c.a_bytes && !memcmp(back.a, c.a, c.a_bytes);
            divcase_free(&back);
        next:
            store_close(s);
            dvg_alloc_fail_at(0, 0);
            if (ok && sticky)
                completed = 1; /* the whole session fits before allocation n */
        }
    }
    CHECKF(completed, "the session never completed (n = %" PRIu64 ")", n);
    CHECK(unexplained == 0);
    CHECKF(store_check(path, NULL, err, sizeof err) == 0, "%s", err);
    printf("allocation failures injected at 1..%" PRIu64 "\n", n - 1);
    divcase_free(&c);
}

int main(void)
{
    test_dir("store-errors");
    /* The first store_open installs the injectable allocator, before any
     * direct SQLite call of the helpers. */
    test_missing();
    test_alloc_failures();
    test_newer();
    test_not_a_database();
    test_corrupt();
    test_foreign();
    test_read_only();
    int rc = check_done("store_errors");
    if (rc == 0)
        test_dir_remove();
    else
        fprintf(stderr, "files kept in %s\n", test_dir_);
    return rc;
}
