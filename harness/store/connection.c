/* SPDX-License-Identifier: MIT */
/*
 * harness/store/connection.c: a store's connection to its file.
 *
 * This file contains the bridge that sends SQLite's heap through
 * harness/base/alloc.h; store_open with everything it does before the
 * first write (WAL index recovery for read-only opens, the version and
 * foreign-file checks, the soundness check of writable opens
 * (store_verify), migrations, WAL mode, marking stale runs, the read
 * views; a migrated copy for readers of an older file) and store_close; the batches (store_begin,
 * store_commit, store_rollback) and the transaction or savepoint of every
 * single write (store_begin_op, store_end_op).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "harness/base/alloc.h"
#include "harness/store/store_internal.h"

/* ------------------------------------------------------------------------
 * SQLite's heap through harness/base/alloc.h. An 8-byte header keeps the size.
 * ---------------------------------------------------------------------- */
static void *mem_malloc(int n)
{
    uint64_t *p = dvg_malloc((size_t)n + 8);
    if (!p)
        return NULL;
    p[0] = (uint64_t)n;
    return p + 1;
}

static void mem_free(void *p)
{
    if (p)
        dvg_free((uint64_t *)p - 1);
}

static void *mem_realloc(void *p, int n)
{
    uint64_t *q = dvg_realloc((uint64_t *)p - 1, (size_t)n + 8);
    if (!q)
        return NULL;
    q[0] = (uint64_t)n;
    return q + 1;
}

static int mem_size(void *p)
{
    return p ? (int)((uint64_t *)p)[-1] : 0;
}

static int mem_roundup(int n)
{
    return (n + 7) & ~7;
}

static int mem_init(void *unused)
{
    return SQLITE_OK;
}

static void mem_shutdown(void *unused)
{
}

static const sqlite3_mem_methods mem_methods = {
    mem_malloc, mem_free, mem_realloc, mem_size, mem_roundup, mem_init, mem_shutdown, NULL,
};

static pthread_once_t mem_once = PTHREAD_ONCE_INIT;

static void mem_install(void)
{
    /* SQLITE_MISUSE when SQLite is already initialised: it keeps its own
     * allocator then, which is correct, only not injectable. */
    (void)sqlite3_config(SQLITE_CONFIG_MALLOC, &mem_methods);
}

/* ------------------------------------------------------------------------
 * The transaction of one write.
 * ---------------------------------------------------------------------- */
/* Starts one write operation named `op`: its own transaction, or a
 * savepoint inside the caller's batch. */
int store_begin_op(store *s, const char *op)
{
    s->op = op;
    s->err[0] = '\0';
    if (s->readonly)
        return store_fail_readonly(s);
    if (s->batch && sqlite3_get_autocommit(s->db))
        return store_fail(s, "the batch was rolled back by an earlier failure; "
                             "call store_rollback and begin again");
    return store_exec(s, s->batch ? "SAVEPOINT store_op" : "BEGIN IMMEDIATE");
}

/* Ends the operation begun by op_begin: commits (or releases) when rc is
 * 0, rolls back otherwise. Returns rc, or -1 when the commit fails. */
int store_end_op(store *s, int rc)
{
    if (s->batch) {
        if (rc) {
            /* Both fail harmlessly when SQLite rolled the batch back. */
            store_exec_quiet(s, "ROLLBACK TO store_op");
            store_exec_quiet(s, "RELEASE store_op");
        } else if (store_exec(s, "RELEASE store_op")) {
            rc = -1;
        }
        return rc;
    }
    if (rc == 0 && store_exec(s, "COMMIT"))
        rc = -1;
    if (rc && !sqlite3_get_autocommit(s->db))
        store_exec_quiet(s, "ROLLBACK");
    return rc;
}

/* ------------------------------------------------------------------------
 * Open and close.
 * ---------------------------------------------------------------------- */
/* Reads user_version, with a clear word for files that are no database. */
static int read_version(store *s, int64_t *version)
{
    s->code = SQLITE_OK;
    if (store_read_int(s, SQL_USER_VERSION, version) == 0)
        return 0;
    if (s->code == SQLITE_NOTADB || s->code == SQLITE_CORRUPT)
        snprintf(s->err, sizeof s->err, "%s: not a SQLite database, or a corrupt one (%s)",
                 s->path, sqlite3_errmsg(s->db));
    else if (s->code == SQLITE_READONLY)
        snprintf(s->err, sizeof s->err,
                 "%s: open: cannot read it: a WAL database needs its -shm file, which cannot "
                 "be created here (folder not writable?); copy the file to a writable folder "
                 "(%s)",
                 s->path, sqlite3_errmsg(s->db));
    return -1;
}

static int set_wal(store *s)
{
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK) {
        store_fail_db(s);
        goto done;
    }
    if (store_step_row(s, st))
        goto done;
    const char *mode = (const char *)sqlite3_column_text(st, 0);
    if (!mode || strcmp(mode, "wal") != 0) {
        store_fail(s, "cannot switch to WAL journal mode (the mode is %s)", mode ? mode : "?");
        goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(st);
    return rc;
}

/* s->db: a connection to `path` with SQLite's open flags `oflags` and the
 * busy timeout. 0, or -1 with the message in s. */
static int open_connection(store *s, const char *path, int oflags)
{
    if (sqlite3_open_v2(path, &s->db, oflags, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(s->db, STORE_BUSY_TIMEOUT_MS);
        return 0;
    }
    if (s->db)
        store_fail_db(s);
    else
        store_fail(s, "out of memory");
    return -1;
}

/* Opens `path` read-write only to read it, which makes SQLite recover a
 * WAL index a crashed writer left inconsistent. 0 when that worked. */
static int wal_recover(const char *path)
{
    sqlite3 *db = NULL;
    int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, STORE_BUSY_TIMEOUT_MS);
        rc = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL);
    }
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : -1;
}

/* store_verify before the first read or write of a session: 0 when the
 * file is sound; otherwise fails saying what it found (a reader's answers
 * from a damaged file could be missing rows without a word). */
static int verify_sound(store *s)
{
    char problem[sizeof s->err - 200];
    int found = store_verify(s, problem, sizeof problem);
    if (found > 0)
        store_fail(s, "the database is damaged (SQLite's %s); %s'divergence db check' reports "
                      "on it",
                   problem, s->readonly ? "" : "nothing was written to it; ");
    return found ? -1 : 0;
}

/* A reader of a file at an older schema reads a migrated copy: the file
 * is backed up (SQLite's backup API: a consistent snapshot, WAL included)
 * into a private temporary database that replaces s->db and is migrated
 * there. The file itself is never changed. */
static int read_migrated_copy(store *s, int64_t *version)
{
    sqlite3 *copy = NULL;
    sqlite3_backup *b = NULL;
    int rc = -1;
    if (sqlite3_open_v2("", &copy, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        store_fail(s, "a temporary copy to read at schema version %d: %s", store_schema_version(),
                   copy ? sqlite3_errmsg(copy) : "out of memory");
        goto done;
    }
    if (!(b = sqlite3_backup_init(copy, "main", s->db, "main"))) {
        store_fail(s, "a temporary copy to read: %s", sqlite3_errmsg(copy));
        goto done;
    }
    int step = sqlite3_backup_step(b, -1);
    sqlite3_backup_finish(b);
    if (step != SQLITE_DONE) {
        store_fail(s, "a temporary copy to read: %s", sqlite3_errstr(step));
        goto done;
    }
    for (int i = 0; i < SQL_COUNT_; i++) { /* statements of the file's connection */
        sqlite3_finalize(s->stmt[i]);
        s->stmt[i] = NULL;
    }
    sqlite3_close_v2(s->db);
    s->db = copy;
    copy = NULL;
    if (store_exec(s, "PRAGMA foreign_keys = ON") || store_migrate(s, version))
        goto done;
    rc = 0;
done:
    sqlite3_close(copy);
    return rc;
}

/* The path may be opened with these flags: it exists as a regular file
 * (*exists 1, *sb its status), or may be created. 0, or -1 with the
 * reason in err. */
static int check_path(const char *path, unsigned flags, struct stat *sb, int *exists, char *err,
                      size_t errlen)
{
    if (!path) {
        store_copy_text(err, errlen, "store: open: no path or no output pointer given");
        return -1;
    }
    if (!*path) {
        store_copy_text(err, errlen, "store: open: empty path: give the database's file name");
        return -1;
    }
    *exists = stat(path, sb) == 0;
    if (!*exists && (!(flags & STORE_CREATE) || (flags & STORE_READONLY) || errno != ENOENT)) {
        if (err)
            snprintf(err, errlen, "%s: open: %s", path, strerror(errno));
        return -1;
    }
    /* A directory, a FIFO, a device (/dev/null) is no database, and
     * SQLite would wait on, or write into, what it is. */
    if (*exists && !S_ISREG(sb->st_mode)) {
        if (err)
            snprintf(err, errlen, "%s: open: not a regular file (%s)", path,
                     S_ISDIR(sb->st_mode)    ? "a directory"
                     : S_ISFIFO(sb->st_mode) ? "a FIFO"
                     : S_ISCHR(sb->st_mode)  ? "a character device"
                     : S_ISBLK(sb->st_mode)  ? "a block device"
                     : S_ISSOCK(sb->st_mode) ? "a socket"
                                             : "not a plain file");
        return -1;
    }
    return 0;
}

/* A read-only connection of a file at schema `version`: it never creates
 * a schema, nor migrates one (an older file is read through a migrated
 * copy). empty: the file holds no byte. 0 or -1 (store_fail). */
static int open_readonly(store *s, unsigned flags, int64_t *version, int empty)
{
    if (*version == 0 && store_check_foreign(s))
        return -1;
    if (*version > 0 && !(flags & OPEN_ANY_VERSION) && verify_sound(s))
        return -1;
    if (*version == 0 && (flags & STORE_READONLY)) {
        if (empty)
            store_fail(s, "empty file: not a Divergence database (nothing was ever written to "
                          "it)");
        else
            store_fail(s, "not a Divergence database (a SQLite file without a schema)");
        return -1;
    }
    if (*version < store_schema_version() && (flags & STORE_READONLY) &&
        !(flags & OPEN_ANY_VERSION) && read_migrated_copy(s, version))
        return -1;
    if (*version < store_schema_version() && !(flags & OPEN_ANY_VERSION)) {
        store_fail(s, "schema version %" PRId64 " must be migrated to %d, but the database is "
                      "read-only",
                   *version, store_schema_version());
        return -1;
    }
    return 0;
}

/* A writable connection of a file at schema `version`: checked (nothing
 * is written into a damaged file: it would only bury what is left of its
 * findings deeper), migrated before WAL (a file that turns out to belong
 * to another program is left exactly as it was), WAL, its stale runs
 * marked. 0 or -1. */
static int open_writable(store *s, int64_t *version)
{
    if (*version > 0 && verify_sound(s))
        return -1;
    if (*version < store_schema_version() && store_migrate(s, version))
        return -1;
    if (set_wal(s) || store_exec(s, "PRAGMA synchronous = NORMAL"))
        return -1;
    return store_mark_stale_runs(s, NULL) ? -1 : 0;
}

int store_open(const char *path, unsigned flags, store **out, char *err, size_t errlen)
{
    store *s = NULL;
    int rc = -1, exists = 0;
    int64_t version = 0;
    struct stat sb;

    store_copy_text(err, errlen, "");
    if (!out) {
        store_copy_text(err, errlen, "store: open: no path or no output pointer given");
        goto done;
    }
    pthread_once(&mem_once, mem_install);
    if (check_path(path, flags, &sb, &exists, err, errlen))
        goto done;
    s = dvg_calloc(1, sizeof *s);
    if (!s || !(s->path = dvg_strdup(path))) {
        if (err)
            snprintf(err, errlen, "%s: open: out of memory", path);
        goto done;
    }
    s->repro_limit = STORE_DEFAULT_REPRODUCERS;
    s->op = "open";
    int oflags = (flags & STORE_READONLY)
                     ? SQLITE_OPEN_READONLY
                     : SQLITE_OPEN_READWRITE | ((flags & STORE_CREATE) ? SQLITE_OPEN_CREATE : 0);
    if (open_connection(s, path, oflags))
        goto done;
    s->readonly = (flags & STORE_READONLY)                    ? 1
                  : sqlite3_db_readonly(s->db, "main") == 1 ? 2
                                                            : 0;
    if (read_version(s, &version)) {
        /* A writer killed at the wrong moment can leave the WAL index
         * needing a recovery that a read-only connection may not run: a
         * read-write connection that only reads runs it (the -shm file is
         * rebuilt from the -wal; the database is not changed), then the
         * read-only one tries again. */
        if (!(s->readonly && s->code == SQLITE_READONLY && wal_recover(path) == 0))
            goto done;
        sqlite3_close(s->db);
        s->db = NULL;
        if (open_connection(s, path, oflags) || read_version(s, &version))
            goto done;
    }
    if (version > store_schema_version()) {
        store_fail(s, "schema version %" PRId64 " is newer than this divergence knows (%d); "
                      "open it with a newer divergence",
                   version, store_schema_version());
        goto done;
    }
    if (store_exec(s, "PRAGMA foreign_keys = ON") ||
        (s->readonly ? open_readonly(s, flags, &version, exists && sb.st_size == 0)
                     : open_writable(s, &version)))
        goto done;
    s->op = NULL;
    s->err[0] = '\0';
    rc = 0;
done:
    if (rc) {
        if (s && s->err[0])
            store_copy_text(err, errlen, s->err);
        store_close(s);
    } else {
        *out = s;
    }
    return rc;
}

void store_remove_files(const char *path)
{
    static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        char name[4200];
        snprintf(name, sizeof name, "%s%s", path, sides[i]);
        unlink(name);
    }
}

void store_close(store *s)
{
    if (!s)
        return;
    if (s->db) {
        if (s->batch)
            store_exec_quiet(s, "ROLLBACK");
        for (int i = 0; i < SQL_COUNT_; i++)
            sqlite3_finalize(s->stmt[i]);
        sqlite3_close(s->db);
    }
    dvg_free(s->path);
    dvg_free(s);
}

const char *store_errmsg(const store *s)
{
    return s ? s->err : "no store";
}

const char *store_path(const store *s)
{
    return s ? s->path : "";
}

/* ------------------------------------------------------------------------
 * Batches.
 * ---------------------------------------------------------------------- */
int store_begin(store *s)
{
    s->op = "begin";
    s->err[0] = '\0';
    if (s->batch)
        return store_fail(s, "a batch is already open");
    if (s->readonly)
        return store_fail_readonly(s);
    if (store_exec(s, "BEGIN IMMEDIATE"))
        return -1;
    s->batch = 1;
    return 0;
}

int store_commit(store *s)
{
    s->op = "commit";
    s->err[0] = '\0';
    if (!s->batch)
        return store_fail(s, "no batch is open");
    if (sqlite3_get_autocommit(s->db)) {
        s->batch = 0;
        return store_fail(s, "the batch was rolled back by an earlier failure");
    }
    if (store_exec(s, "COMMIT")) {
        /* The batch stays open when SQLite keeps the transaction. */
        s->batch = !sqlite3_get_autocommit(s->db);
        return -1;
    }
    s->batch = 0;
    return 0;
}

int store_rollback(store *s)
{
    s->op = "rollback";
    s->err[0] = '\0';
    if (!s->batch)
        return 0;
    s->batch = 0;
    if (sqlite3_get_autocommit(s->db))
        return 0; /* SQLite rolled back already */
    return store_exec(s, "ROLLBACK");
}
