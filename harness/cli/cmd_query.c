/* SPDX-License-Identifier: MIT */
/*
 * divergence query [--db FILE] [--json] runs [--plugin NAME]
 *                  new --since RUN [--plugin NAME] | bugs [--since RUN] [--plugin NAME]
 *                  fixed --since RUN [--plugin NAME]
 *                  history sig:N | regressions --plugin NAME [--since RUN]
 *                  diff RUN1 RUN2
 *
 * This file contains the `query` command: it parses the question and
 * answers it from the store opened read-only (reports/query.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/query.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence query [--db FILE] [--json] QUERY\n"
            "  runs [--plugin NAME]             every run: kind, status, plugins, shards,\n"
            "                                   elements, differences, new signatures\n"
            "  new --since RUN [--plugin NAME]  bugs with signatures first found after run\n"
            "                                   RUN, then those signatures by bug\n"
            "  bugs [--since RUN] [--plugin NAME]\n"
            "                                   bugs (signatures grouped by fingerprint)\n"
            "                                   with a signature first found after RUN\n"
            "  fixed --since RUN [--plugin NAME]\n"
            "                                   signatures a run after RUN found fixed\n"
            "  history sig:N                    a signature, every run that\n"
            "                                   saw it or certified its variant and dtype,\n"
            "                                   and its ranges (divergence bisect)\n"
            "  regressions --plugin NAME [--since RUN]\n"
            "                                   claims that held in one version and fail\n"
            "                                   in the next one certified (after RUN)\n"
            "  diff RUN1 RUN2                   certificates, signatures, counts that differ\n"
            "Tables by default, --json for one JSON object. The views behind them are in\n"
            "docs/store.md, for sqlite3.\n"
            "exit: 0 answered, 2 no such run or signature, usage or environment error\n");
    return 2;
}

static int parse_id(const char *what, const char *text, int64_t min, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end || v < min) {
        fprintf(stderr, "divergence query: %s '%s': expected an integer >= %lld\n", what, text,
                (long long)min);
        return -1;
    }
    *out = v;
    return 0;
}

/* --since RUN (dest: a since_flag). 0, or -1 with a message. */
typedef struct since_flag {
    int64_t run;
    int given;
} since_flag;

static int flag_since(const char *cmd, const char *flag, const char *val, void *dest)
{
    since_flag *f = dest;
    (void)cmd;
    if (parse_id(flag, val, 0, &f->run))
        return -1;
    f->given = 1;
    return 0;
}

/* history's SIGNATURE: "sig:N", as certificates print it; a bare number
 * is refused as replay and bisect refuse it (store_ref_parse). */
static int parse_signature(const char *text, int64_t *out)
{
    int is_signature;
    char err[256];
    if (store_ref_parse(text, &is_signature, out, err, sizeof err)) {
        fprintf(stderr, "divergence query history: SIGNATURE %s\n", err);
        return -1;
    }
    if (!is_signature) {
        fprintf(stderr, "divergence query history: SIGNATURE '%s' is a reproducer; history "
                        "takes a signature (" STORE_REF_SIGNATURE "N)\n", text);
        return -1;
    }
    return 0;
}

int cmd_query(int argc, char **argv)
{
    query_request q = {0};
    const char *db_path = STORE_DEFAULT_PATH;
    char *pos[3] = {NULL, NULL, NULL};
    uint32_t n_pos = 0;
    since_flag since = {0, 0};
    int status = 2;
    store *s = NULL;
    char err[1024];

    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--json", &q.json, 1),
        CLI_FLAG_TEXT("--db", &db_path),
        CLI_FLAG_TEXT("--plugin", &q.plugin),
        CLI_FLAG_CALL("--since", flag_since, &since),
        CLI_FLAG_END};
    const cli_command c = {.name = "query", .usage = usage, .flags = flags, .operands = pos,
                           .max_operands = 3, .n_operands = &n_pos};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    q.since = since.run;
    if (!n_pos || !query_known(pos[0])) {
        if (n_pos)
            fprintf(stderr, "divergence query: unknown query '%s'\n", pos[0]);
        return usage(stderr);
    }
    q.name = pos[0];
    uint32_t want_pos = !strcmp(q.name, "history") ? 2 : !strcmp(q.name, "diff") ? 3 : 1;
    if (n_pos != want_pos) {
        fprintf(stderr, "divergence query %s: expected %u argument%s\n", q.name, want_pos - 1,
                want_pos == 2 ? "" : "s");
        return usage(stderr);
    }
    if ((!strcmp(q.name, "new") || !strcmp(q.name, "fixed")) && !since.given) {
        fprintf(stderr, "divergence query %s: --since RUN is required\n", q.name);
        return 2;
    }
    if (!strcmp(q.name, "regressions") && !q.plugin) {
        fprintf(stderr, "divergence query regressions: --plugin NAME is required\n");
        return 2;
    }
    if ((!strcmp(q.name, "history") && parse_signature(pos[1], &q.signature)) ||
        (!strcmp(q.name, "diff") &&
         (parse_id("RUN1", pos[1], 1, &q.run1) || parse_id("RUN2", pos[2], 1, &q.run2))))
        return 2;
    /* Read-only: a query never creates or migrates (an older schema is
     * read through a migrated copy). */
    if (store_open(db_path, STORE_READONLY, &s, err, sizeof err)) {
        fprintf(stderr, "divergence query: %s\n", err);
        goto done;
    }
    /* No such run or signature: 2, as report and replay answer it. */
    rc = query_run(s, &q, stdout, err, sizeof err);
    if (rc) {
        fprintf(stderr, "divergence query: %s\n", err);
        goto done;
    }
    status = fflush(stdout) == 0 ? 0 : 2;
done:
    store_close(s);
    return status;
}
