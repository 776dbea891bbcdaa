/* SPDX-License-Identifier: MIT */
/*
 * divergence report [--db FILE] [--run N | --plugin NAME --latest]
 *                   [--format html|junit|md|json] [-o PATH]
 * divergence report [--db FILE] --runs R1,R2,... | --latest-per-plugin
 *                   [--format html|md|json] [-o PATH]
 *
 * This file contains the `report` command: it reads the store (read-only:
 * a report never creates, changes or migrates a database) and writes one
 * run's report to standard output or to -o PATH. PATH is written only
 * when it is a regular file or does not exist yet: the report goes to a
 * new temporary file next to it (O_EXCL, so nothing that was there is
 * opened), which is renamed over PATH once PATH has been checked again
 * (lstat: a FIFO, a symbolic link, a device, a directory are refused,
 * exit 2). Between that last check and the rename another process could
 * still put something at PATH; rename then replaces that directory entry
 * only, never writes through it (into a FIFO, a device, a link's target).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/report.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence report [--db FILE] [--run N | --plugin NAME --latest]\n"
            "         [--format html|junit|md|json] [-o PATH]\n"
            "Writes the report of one run: --run N, or the newest run (--latest, the\n"
            "default): of --plugin NAME when given, else of the database. --plugin limits\n"
            "the report to that implementation. Format html (default), JUnit XML, Markdown or\n"
            "JSON; -o PATH (default: standard output) is replaced atomically; it must be a\n"
            "regular file or a new path (not a FIFO, symbolic link, device or directory).\n"
            "       divergence report [--db FILE] --runs R1,R2,... | --latest-per-plugin\n"
            "         [--format html|md|json] [-o PATH]\n"
            "One page of several runs: the matrix of implementations x (variant, dtype)\n"
            "with each certificate, and what each plugin set of the diff runs does where\n"
            "the specs leave room; --latest-per-plugin: the newest certificates of each\n"
            "implementation and the newest diff run.\n"
            "exit: 0 written, 2 usage or environment error\n");
    return 2;
}

static int parse_run(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < 1)
        return -1;
    *out = v;
    return 0;
}

/* --runs R1,R2,...: the run ids into runs[] (at most REPORT_MAX_RUNS),
 * their number into *n. 0, or -1. */
static int parse_runs(const char *text, int64_t *runs, size_t *n)
{
    char one[32];
    *n = 0;
    for (const char *p = text;;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof one || *n == REPORT_MAX_RUNS)
            return -1;
        memcpy(one, p, len);
        one[len] = '\0';
        if (parse_run(one, &runs[(*n)++]))
            return -1;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* --run N (dest: an int64_t). 0, or -1 with a message. */
static int flag_run(const char *cmd, const char *flag, const char *val, void *dest)
{
    if (!parse_run(val, dest))
        return 0;
    fprintf(stderr, "divergence %s: %s '%s': expected a run id\n", cmd, flag, val);
    return -1;
}

/* The runs of --runs. */
typedef struct run_list {
    int64_t ids[REPORT_MAX_RUNS];
    size_t n;
} run_list;

/* --runs R1,R2,... (dest: a run_list). 0, or -1 with a message. */
static int flag_runs(const char *cmd, const char *flag, const char *val, void *dest)
{
    run_list *l = dest;
    if (!parse_runs(val, l->ids, &l->n))
        return 0;
    fprintf(stderr, "divergence %s: %s '%s': expected run ids R1,R2,... (at most %d)\n", cmd, flag,
            val, REPORT_MAX_RUNS);
    return -1;
}

/* What is at `path` when it is something a report may not replace: NULL
 * when it is a regular file or nothing (errno ENOENT), else a word for
 * it. Symbolic links are not followed: PATH itself is replaced, never
 * what a link points to. */
static const char *not_replaceable(const char *path, int *error)
{
    struct stat sb;
    *error = 0;
    if (lstat(path, &sb) != 0) {
        if (errno != ENOENT)
            *error = errno;
        return NULL;
    }
    return S_ISREG(sb.st_mode)    ? NULL
           : S_ISLNK(sb.st_mode)  ? "a symbolic link"
           : S_ISDIR(sb.st_mode)  ? "a directory"
           : S_ISFIFO(sb.st_mode) ? "a FIFO"
           : S_ISCHR(sb.st_mode)  ? "a character device"
           : S_ISBLK(sb.st_mode)  ? "a block device"
           : S_ISSOCK(sb.st_mode) ? "a socket"
                                  : "not a regular file";
}

/* 0 when the report may be written to `path`; otherwise prints why,
 * naming path, and returns -1. */
static int check_output(const char *path)
{
    int error;
    const char *what = not_replaceable(path, &error);
    if (what) {
        fprintf(stderr, "divergence report: -o %s: %s, not a regular file: refused (give a "
                        "regular file or a new path)\n",
                path, what);
        return -1;
    }
    if (error) {
        fprintf(stderr, "divergence report: -o %s: %s\n", path, strerror(error));
        return -1;
    }
    return 0;
}

/* The folder of `path` into dir (len bytes): "." when it has none. */
static void folder_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* Creates a new temporary file next to `path` (tmp: its name, len bytes)
 * with O_EXCL: never one that exists, never through a link. The stream
 * or NULL (message printed, naming PATH's folder when it is missing). */
static FILE *open_temporary(const char *path, char *tmp, size_t len)
{
    int fd = -1;
    for (unsigned n = 0; n < 100 && fd < 0; n++) {
        snprintf(tmp, len, "%s.tmp%ld.%u", path, (long)getpid(), n);
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        char dir[4200];
        folder_of(path, dir, sizeof dir);
        if (e == ENOENT || e == ENOTDIR)
            fprintf(stderr, "divergence report: -o %s: folder %s: %s\n", path, dir, strerror(e));
        else
            fprintf(stderr, "divergence report: -o %s: cannot create a file in %s: %s\n", path,
                    dir, strerror(e));
        tmp[0] = '\0';
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (!f) {
        fprintf(stderr, "divergence report: -o %s: %s\n", path, strerror(errno));
        close(fd);
        unlink(tmp);
        tmp[0] = '\0';
    }
    return f;
}

int cmd_report(int argc, char **argv)
{
    const char *db_path = STORE_DEFAULT_PATH, *plugin = NULL, *out_path = "-";
    const char *format = "html";
    int64_t run_id = 0;
    int latest = 0, per_plugin = 0, status = 2;
    run_list runs = {{0}, 0};
    report_format fmt;
    store *s = NULL;
    FILE *out = NULL;
    char err[1024], tmp[4200] = "";

    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--latest", &latest, 1),
        CLI_FLAG_SWITCH("--latest-per-plugin", &per_plugin, 1),
        CLI_FLAG_TEXT("--db", &db_path),
        CLI_FLAG_TEXT("--plugin", &plugin),
        CLI_FLAG_TEXT("--format", &format),
        CLI_FLAG_TEXT("-o", &out_path),
        CLI_FLAG_TEXT("--output", &out_path),
        CLI_FLAG_CALL("--runs", flag_runs, &runs),
        CLI_FLAG_CALL("--run", flag_run, &run_id),
        CLI_FLAG_END};
    const cli_command c = {.name = "report", .usage = usage, .flags = flags};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    if (report_format_parse(format, &fmt)) {
        fprintf(stderr, "divergence report: --format '%s': expected html, junit, md or json\n",
                format);
        return 2;
    }
    if (run_id && latest) {
        fprintf(stderr, "divergence report: --run and --latest exclude each other\n");
        return 2;
    }
    int several = runs.n || per_plugin;
    if (several && (run_id || latest || plugin || (runs.n && per_plugin))) {
        fprintf(stderr, "divergence report: --runs or --latest-per-plugin alone: not with "
                        "--run, --latest, --plugin or each other\n");
        return 2;
    }
    if (several && fmt == REPORT_JUNIT) {
        fprintf(stderr, "divergence report: the report of several runs is html, md or json\n");
        return 2;
    }
    /* Before anything is read: a PATH that may not be replaced is refused
     * at once (and checked again before the rename). */
    if (strcmp(out_path, "-") && check_output(out_path))
        goto done;
    /* Read-only: a report never creates or migrates (an older schema is
     * read through a migrated copy). */
    if (store_open(db_path, STORE_READONLY, &s, err, sizeof err)) {
        fprintf(stderr, "divergence report: %s\n", err);
        goto done;
    }
    if (per_plugin && report_latest_runs(s, runs.ids, REPORT_MAX_RUNS, &runs.n, err, sizeof err)) {
        fprintf(stderr, "divergence report: %s\n", err);
        goto done;
    }
    if (!several && !run_id && report_latest_run(s, plugin, &run_id, err, sizeof err)) {
        fprintf(stderr, "divergence report: %s\n", err);
        goto done;
    }
    if (!strcmp(out_path, "-")) {
        out = stdout;
    } else {
        if (!(out = open_temporary(out_path, tmp, sizeof tmp)))
            goto done;
    }
    if (several ? report_write_runs(s, db_path, runs.ids, runs.n, fmt, out, err, sizeof err)
                : report_write(s, db_path, run_id, plugin, fmt, out, err, sizeof err)) {
        fprintf(stderr, "divergence report: %s\n", err);
        goto done;
    }
    if (out != stdout) {
        int closed = fclose(out);
        out = NULL;
        if (closed != 0) {
            fprintf(stderr, "divergence report: -o %s: %s\n", out_path, strerror(errno));
            goto done;
        }
        if (check_output(out_path))
            goto done;
        if (rename(tmp, out_path) != 0) {
            fprintf(stderr, "divergence report: -o %s: %s\n", out_path, strerror(errno));
            goto done;
        }
        tmp[0] = '\0';
    }
    status = 0;
done:
    if (out && out != stdout)
        fclose(out);
    if (tmp[0])
        unlink(tmp);
    store_close(s);
    return status;
}
