/* SPDX-License-Identifier: MIT */
/*
 * The store across processes: a writer killed with SIGKILL in the middle of
 * a transaction leaves what it committed, loses what it did not, and its
 * run reads 'incomplete' afterwards; live runs are left alone; several
 * processes writing one file at once all finish with all their rows.
 */
#include <inttypes.h>
#include <signal.h>
#include <sys/wait.h>

#include "oracle/compare.h"
#include "store_test.h"

static const char *db_path;
static char err[1024];

static store_finding finding_of(const divcase *c, const char *impl, const char *operands)
{
    store_finding f = {0};
    f.implementation = impl;
    f.cls = ORACLE_CLASS_WRONG_VALUE;
    f.operand_class = operands;
    f.c = c;
    f.element = 0;
    f.ulps = 3;
    return f;
}

/* The child of the kill test: commits a run, 5 findings and counts, then
 * opens a batch with more, tells the parent and waits to be killed. */
static void killed_child(int ready_fd, const char *impl)
{
    store *s = NULL;
    static const int64_t d2[] = {2};
    divcase c;
    int64_t run = 0;
    store_run_info info = {.kind = "fuzz", .args = "killed child"};
    make_case(&c, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32, 1, d2, 1, d2, 3);
    store_finding committed = finding_of(&c, impl, "committed");
    store_finding lost = finding_of(&c, impl, "uncommitted");
    if (store_open(db_path, 0, &s, err, sizeof err) || store_begin_run(s, &info, &run))
        _exit(10);
    if (store_begin(s))
        _exit(11);
    for (int i = 0; i < 5; i++)
        if (store_record_finding(s, run, &committed, NULL, NULL))
            _exit(12);
    if (store_record_counts(s, run, impl, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                            ORACLE_CLASS_MATCH, 40, 2) ||
        store_commit(s))
        _exit(13);
    if (store_begin(s))
        _exit(14);
    for (int i = 0; i < 5; i++)
        if (store_record_finding(s, run, &lost, NULL, NULL) ||
            store_record_finding(s, run, &committed, NULL, NULL))
            _exit(15);
    if (store_record_counts(s, run, impl, DVG_VARIANT_ONNX_DIV_13, DVG_DTYPE_F32,
                            ORACLE_CLASS_MATCH, 1000, 9))
        _exit(16);
    char byte = 'k';
    if (write(ready_fd, &byte, 1) != 1)
        _exit(17);
    for (;;)
        pause();
}

/* Forks the child, waits until it is mid-transaction, kills it. When
 * `reap` is 0 the child is left a zombie while the parent reopens. */
static void kill_test(int reap, const char *impl)
{
    int fds[2];
    char sql[256];
    CHECK(pipe(fds) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        killed_child(fds[1], impl);
    }
    close(fds[1]);
    char byte = 0;
    CHECKF(read(fds[0], &byte, 1) == 1 && byte == 'k', "child did not get ready");
    close(fds[0]);
    CHECK(kill(pid, SIGKILL) == 0);
    int status = 0;
    if (reap) {
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    } else {
        /* Wait for the zombie without reaping it. */
        char path[64], line[512], state = 0;
        snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
        for (int i = 0; i < 500 && state != 'Z'; i++) {
            FILE *f = fopen(path, "r");
            if (f && fgets(line, sizeof line, f)) {
                char *p = strrchr(line, ')');
                state = p && p[1] == ' ' ? p[2] : 0;
            }
            if (f)
                fclose(f);
            if (state != 'Z')
                usleep(10000);
        }
        CHECKF(state == 'Z', "child %d never became a zombie", (int)pid);
    }

    /* Before any writable open, the run still reads 'running'. */
    snprintf(sql, sizeof sql,
             "SELECT status FROM runs WHERE pid = %d AND args = 'killed child'", (int)pid);
    CHECK(!strcmp(q_text(db_path, sql, NULL, err, sizeof err), "running"));

    store *s = NULL;
    CHECKF(store_open(db_path, 0, &s, err, sizeof err) == 0, "%s", err);
    store_close(s);
    CHECK(!strcmp(q_text(db_path, sql, NULL, err, sizeof err), "incomplete"));
    snprintf(sql, sizeof sql,
             "SELECT finished_at IS NULL FROM runs WHERE pid = %d AND args = 'killed child'",
             (int)pid);
    CHECK(q_int(db_path, sql, NULL) == 1);

    /* Committed: the first batch. Not committed: the second. */
    CHECK(q_int(db_path,
                "SELECT occurrences FROM signatures WHERE implementation = ?1 AND "
                "operand_class = 'committed'",
                impl) == 5);
    CHECK(q_int(db_path,
                "SELECT count(*) FROM reproducers r JOIN signatures s ON s.id = r.signature_id "
                "WHERE s.implementation = ?1 AND s.operand_class = 'committed'",
                impl) == 5);
    CHECK(q_int(db_path,
                "SELECT count(*) FROM signatures WHERE implementation = ?1 AND "
                "operand_class = 'uncommitted'",
                impl) == 0);
    CHECK(q_int(db_path,
                "SELECT elements * 100 + cases FROM counts WHERE implementation = ?1", impl) ==
          40 * 100 + 2);
    CHECKF(store_check(db_path, NULL, err, sizeof err) == 0, "%s", err);
    if (!reap)
        waitpid(pid, &status, 0);
}

/* A run of a live process stays 'running' whoever opens the file. */
static void live_run_test(void)
{
    store *a = NULL, *b = NULL;
    int64_t run = 0, marked = -1;
    char sql[128];
    store_run_info info = {.kind = "certify"};
    CHECK(store_open(db_path, 0, &a, err, sizeof err) == 0);
    CHECK(a && store_begin_run(a, &info, &run) == 0);
    CHECK(store_open(db_path, 0, &b, err, sizeof err) == 0);
    CHECK(b && store_mark_stale_runs(b, &marked) == 0 && marked == 0);
    snprintf(sql, sizeof sql, "SELECT status FROM runs WHERE id = %" PRId64, run);
    CHECK(!strcmp(q_text(db_path, sql, NULL, err, sizeof err), "running"));
    /* A run of a pid that is gone (above any pid_max) is stale. */
    CHECK(raw_exec(db_path, "UPDATE runs SET status = 'running', pid = 2147483646 WHERE "
                            "id = (SELECT min(id) FROM runs)") == 0);
    CHECK(store_mark_stale_runs(b, &marked) == 0 && marked == 1);
    /* Runs of other hosts are not judged. */
    CHECK(raw_exec(db_path, "UPDATE runs SET status = 'running', pid = 2147483646, "
                            "host = 'elsewhere' WHERE id = (SELECT min(id) FROM runs)") == 0);
    CHECK(store_mark_stale_runs(b, &marked) == 0 && marked == 0);
    CHECK(store_finish_run(a, run, STORE_RUN_COMPLETE) == 0);
    CHECK(!strcmp(q_text(db_path, sql, NULL, err, sizeof err), "complete"));
    store_close(a);
    store_close(b);
}

#define WRITERS 4
#define ROUNDS 150

/* One concurrent writer: ROUNDS transactions, each with a finding on a
 * shared signature, one on its own, and counts. Writers 0 and 1 batch;
 * the others let every call be its own transaction. */
static int writer(int k, int go_fd, const char *path)
{
    store *s = NULL;
    static const int64_t d4[] = {4};
    divcase c;
    char own[32], e[1024];
    int64_t run = 0;
    store_run_info info = {.kind = "fuzz", .has_seed = 1, .seed = (uint64_t)k,
                           .shard_index = (uint32_t)k, .shard_count = WRITERS};
    char byte;
    if (read(go_fd, &byte, 1) < 0) /* wait for the start (EOF) */
        return 20;
    make_case(&c, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F16, 1, d4, 1, d4, (uint32_t)k);
    snprintf(own, sizeof own, "writer-%d", k);
    store_finding shared = finding_of(&c, "acme-div", "shared");
    store_finding mine = finding_of(&c, "acme-div", own);
    if (store_open(path, STORE_CREATE, &s, e, sizeof e)) {
        fprintf(stderr, "writer %d: %s\n", k, e);
        return 21;
    }
    int rc = 0;
    if (store_begin_run(s, &info, &run)) {
        rc = 22;
        goto done;
    }
    for (int i = 0; i < ROUNDS; i++) {
        int batch = k < 2;
        if ((batch && store_begin(s)) || store_record_finding(s, run, &shared, NULL, NULL) ||
            store_record_finding(s, run, &mine, NULL, NULL) ||
            store_record_counts(s, run, "acme-div", DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F16,
                                ORACLE_CLASS_WRONG_VALUE, 2, 1) ||
            (batch && store_commit(s))) {
            rc = 23;
            goto done;
        }
    }
    if (store_finish_run(s, run, STORE_RUN_COMPLETE))
        rc = 24;
done:
    if (rc)
        fprintf(stderr, "writer %d: %s\n", k, store_errmsg(s));
    store_close(s);
    divcase_free(&c);
    return rc;
}

static void concurrent_test(void)
{
    /* A fresh file: the writers race to create it as well. */
    const char *path = test_path(1, "shared.db");
    int go[2];
    pid_t pids[WRITERS];
    CHECK(pipe(go) == 0);
    for (int k = 0; k < WRITERS; k++) {
        pids[k] = fork();
        if (pids[k] == 0) {
            close(go[1]);
            _exit(writer(k, go[0], path));
        }
    }
    close(go[0]);
    close(go[1]); /* all start at once */
    for (int k = 0; k < WRITERS; k++) {
        int status = 0;
        CHECK(waitpid(pids[k], &status, 0) == pids[k]);
        CHECKF(WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer %d: status %d", k,
               status);
    }
    CHECK(q_int(path, "SELECT count(*) FROM runs WHERE status = 'complete'", NULL) == WRITERS);
    CHECK(q_int(path, "SELECT occurrences FROM signatures WHERE operand_class = 'shared'",
                NULL) == WRITERS * ROUNDS);
    CHECK(q_int(path,
                "SELECT count(*) FROM signatures WHERE operand_class LIKE 'writer-%' AND "
                "occurrences = ?1",
                "150") == WRITERS);
    CHECK(q_int(path, "SELECT sum(elements) FROM counts", NULL) == 2 * WRITERS * ROUNDS);
    CHECK(q_int(path, "SELECT count(*) FROM counts", NULL) == WRITERS);
    /* The reproducer limit holds per signature and run: every writer's run
     * keeps its own of the shared signature and of its own one. */
    CHECK(q_int(path, "SELECT count(*) FROM reproducers", NULL) ==
          2 * WRITERS * STORE_DEFAULT_REPRODUCERS);
    CHECK(q_int(path, "SELECT sum(reproducers_dropped) FROM signatures", NULL) ==
          2 * WRITERS * ROUNDS - 2 * WRITERS * STORE_DEFAULT_REPRODUCERS);
    CHECKF(store_check(path, NULL, err, sizeof err) == 0, "%s", err);
}

int main(void)
{
    test_dir("store-procs");
    db_path = test_path(0, "divergence.db");
    store *s = NULL;
    CHECKF(store_open(db_path, STORE_CREATE, &s, err, sizeof err) == 0, "%s", err);
    store_close(s);
    kill_test(1, "reaped");
    kill_test(0, "zombie");
    live_run_test();
    concurrent_test();
    int rc = check_done("store_procs");
    if (rc == 0)
        test_dir_remove();
    else
        fprintf(stderr, "files kept in %s\n", test_dir_);
    return rc;
}
