/* SPDX-License-Identifier: MIT */
/*
 * divergence report [--db FILE] [--run N | --plugin NAME --latest]
 *                   [--format html|junit|md|json] [-o PATH]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/report.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence report [--db FILE] [--run N | --plugin NAME --latest]\n"
            "         [--format html|junit|md|json] [-o PATH]\n"
            "Writes the report of one run: --run N, or the newest run of --plugin NAME\n"
            "(--latest; also the default when --run is not given). --plugin limits the\n"
            "report to that implementation. Format html (default), JUnit XML, Markdown or\n"
            "JSON; -o PATH (default: standard output) is replaced atomically.\n"
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

int cmd_report(int argc, char **argv)
{
    const char *db_path = STORE_DEFAULT_PATH, *plugin = NULL, *out_path = "-";
    const char *format = "html";
    int64_t run_id = 0;
    int latest = 0, status = 2;
    report_format fmt;
    store *s = NULL;
    FILE *out = NULL;
    char err[1024], tmp[4200] = "";

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--latest")) {
            latest = 1;
            continue;
        }
        if (a[0] != '-' || i + 1 >= argc) {
            fprintf(stderr, "divergence report: %s '%s'\n",
                    a[0] == '-' ? "option needs a value:" : "unexpected argument", a);
            return usage(stderr);
        }
        const char *val = argv[++i];
        if (!strcmp(a, "--db"))
            db_path = val;
        else if (!strcmp(a, "--plugin"))
            plugin = val;
        else if (!strcmp(a, "--format"))
            format = val;
        else if (!strcmp(a, "-o") || !strcmp(a, "--output"))
            out_path = val;
        else if (!strcmp(a, "--run")) {
            if (parse_run(val, &run_id)) {
                fprintf(stderr, "divergence report: --run '%s': expected a run id\n", val);
                return 2;
            }
        } else {
            fprintf(stderr, "divergence report: unknown option '%s'\n", a);
            return usage(stderr);
        }
    }
    if (report_format_parse(format, &fmt)) {
        fprintf(stderr, "divergence report: --format '%s': expected html, junit, md or json\n",
                format);
        return 2;
    }
    if (run_id && latest) {
        fprintf(stderr, "divergence report: --run and --latest exclude each other\n");
        return 2;
    }
    if (!run_id && !plugin) {
        fprintf(stderr, "divergence report: say which run: --run N or --plugin NAME --latest\n");
        return usage(stderr);
    }
    /* Writable when possible: an older schema is migrated first. */
    if (store_open(db_path, 0, &s, err, sizeof err)) {
        fprintf(stderr, "divergence report: %s\n", err);
        goto done;
    }
    if (!run_id && report_latest_run(s, plugin, &run_id, err, sizeof err)) {
        fprintf(stderr, "divergence report: %s\n", err);
        goto done;
    }
    if (!strcmp(out_path, "-")) {
        out = stdout;
    } else {
        snprintf(tmp, sizeof tmp, "%s.tmp%ld", out_path, (long)getpid());
        if (!(out = fopen(tmp, "w"))) {
            fprintf(stderr, "divergence report: %s: %s\n", tmp, strerror(errno));
            tmp[0] = '\0';
            goto done;
        }
    }
    if (report_write(s, db_path, run_id, plugin, fmt, out, err, sizeof err)) {
        fprintf(stderr, "divergence report: %s\n", err);
        goto done;
    }
    if (out != stdout) {
        int rc = fclose(out);
        out = NULL;
        if (rc != 0 || rename(tmp, out_path) != 0) {
            fprintf(stderr, "divergence report: %s: %s\n", out_path, strerror(errno));
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
