/* SPDX-License-Identifier: MIT */
/*
 * divergence bisect [--db FILE] (--plugin BUILD ... | --builds DIR [--order FILE] | --seen)
 *                   [--all] sig:N ... | --since RUN
 *
 * This file contains the `bisect` command: it reads its flags and the
 * signatures, and hands each to harness/run/replay/bisect.h, which replays the
 * signature's reproducer (the latest run's) on builds chosen by bisection and stores
 * its regression range (and fixed range).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/replay/bisect.h"
#include "harness/store/store.h"

#define BISECT_MAX_SIGNATURES 1024

static int usage(FILE *to)
{
    fputs("usage: divergence bisect [--db FILE] (--plugin BUILD ... | --builds DIR [--order FILE]\n"
          "         | --seen) [--all] [--config TEXT] [--grant pocl|cuda ...]\n"
          "         [--timeout MS] [--memory-limit MIB] sig:N ... | --since RUN\n",
          to);
    if (to == stdout)
        fputs("Replays each signature's reproducer (the latest run's, as replay sig:N)\n"
              "on builds of its implementation\n"
              "chosen by bisection, each in its own sandboxed worker, and stores the\n"
              "regression range (the last build without it, the first with it) and, where\n"
              "a later build lacks it, the fixed range (the last with it, the first\n"
              "without it); `divergence query history sig:N` shows them.\n"
              "  --plugin BUILD  the builds, oldest first (one --plugin each)\n"
              "  --builds DIR    the *.so files of DIR in version order of their names,\n"
              "                  or in the order --order FILE lists them (one a line)\n"
              "  --seen          the builds of the signature's implementation that runs of\n"
              "                  the database loaded, in the order first loaded\n"
              "  --all           replay every build, not log2(builds) + 1 of them: every\n"
              "                  change is seen, and a history where the signature comes and\n"
              "                  goes more than once is marked non-monotonic\n"
              "  --since RUN     every signature first found, or fixed, by a run after RUN\n"
              "exit: 0 ranges stored for every signature, 1 a signature shows on no build,\n"
              "2 usage or environment error\n",
              to);
    return 2;
}

/* --since RUN: a run id (0: every signature). */
static int flag_since(const char *cmd, const char *flag, const char *val, void *dest)
{
    uint64_t v;
    if (cli_parse_u64(cmd, flag, val, 0, INT64_MAX, &v))
        return -1;
    *(int64_t *)dest = (int64_t)v;
    return 0;
}

/* The signatures named sig:N into *ids (n of them, allocated). 0, or -1
 * with its message printed. */
static int parse_signatures(char **ops, uint32_t n, int64_t **ids)
{
    char err[1024];
    if (!(*ids = dvg_calloc(n, sizeof **ids))) {
        fprintf(stderr, "divergence bisect: out of memory\n");
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        int is_sig;
        if (store_ref_parse(ops[i], &is_sig, &(*ids)[i], err, sizeof err) || !is_sig) {
            fprintf(stderr, "divergence bisect: '%s': %s\n", ops[i],
                    is_sig ? err : "bisect takes signatures, sig:N");
            return -1;
        }
    }
    return 0;
}

/* The builds of --plugin, oldest first, as a series. 0, or -1 (printed). */
static int series_of_plugins(bisect_series *series, const char *const *plugins, uint32_t n)
{
    if (!(series->paths = dvg_calloc(n, sizeof *series->paths))) {
        fprintf(stderr, "divergence bisect: out of memory\n");
        return -1;
    }
    for (; series->n < n; series->n++)
        if (!(series->paths[series->n] = dvg_strdup(plugins[series->n]))) {
            fprintf(stderr, "divergence bisect: out of memory\n");
            return -1;
        }
    return 0;
}

/* The builds named one way (--plugin, --builds with its --order, or
 * --seen) and the signatures one way (sig:N ... or --since RUN). 0, or -1
 * (printed, with the usage where it helps). */
static int check_choices(uint32_t n_plugins, const char *dir, const char *order, int seen,
                         int64_t since, uint32_t n_ops)
{
    if ((n_plugins > 0) + (dir != NULL) + seen != 1) {
        fprintf(stderr, "divergence bisect: name the builds one way: --plugin BUILD ..., "
                        "--builds DIR or --seen\n");
        usage(stderr);
        return -1;
    }
    if (order && !dir) {
        fprintf(stderr, "divergence bisect: --order FILE orders the builds of --builds DIR\n");
        return -1;
    }
    if ((since >= 0) == (n_ops > 0)) {
        fprintf(stderr, "divergence bisect: name the signatures (sig:N ...) or --since RUN\n");
        usage(stderr);
        return -1;
    }
    return 0;
}

int cmd_bisect(int argc, char **argv)
{
    const char *db_path = STORE_DEFAULT_PATH, *dir = NULL, *order = NULL;
    const char **plugins = NULL;
    char **ops = NULL;
    uint32_t n_plugins = 0, n_ops = 0;
    int seen = 0, all = 0, status = 2;
    int64_t since = -1, *ids = NULL;
    uint32_t n_ids = 0;
    store *db = NULL;
    bisect_session *bs = NULL;
    bisect_series series;
    char err[1024];

    memset(&series, 0, sizeof series);
    plugins = dvg_calloc(BISECT_MAX_BUILDS, sizeof *plugins);
    ops = dvg_calloc(BISECT_MAX_SIGNATURES, sizeof *ops);
    if (!plugins || !ops) {
        fprintf(stderr, "divergence bisect: out of memory\n");
        goto done;
    }
    const char *config = NULL;
    run_isolation iso;
    isolation_default(&iso, 0);
    const cli_shared shared = {.grants = &iso.grants, .timeout_ms = &iso.timeout_ms,
                               .memory_limit = &iso.memory_limit};
    const cli_flag flags[] = {
        CLI_FLAG_TEXT("--db", &db_path),
        CLI_FLAG_TEXT("--config", &config),
        CLI_FLAG_TEXTS("--plugin", plugins, &n_plugins, BISECT_MAX_BUILDS),
        CLI_FLAG_TEXT("--builds", &dir),
        CLI_FLAG_TEXT("--order", &order),
        CLI_FLAG_SWITCH("--seen", &seen, 1),
        CLI_FLAG_SWITCH("--all", &all, 1),
        CLI_FLAG_CALL("--since", flag_since, &since),
        CLI_FLAG_END};
    const cli_command cc = {.name = "bisect", .usage = usage, .flags = flags, .shared = &shared,
                            .operands = ops,
                            .max_operands = BISECT_MAX_SIGNATURES, .n_operands = &n_ops,
                            .unknown = "unknown option"};
    int prc = cli_parse(&cc, argc, argv);
    if (prc) {
        status = CLI_EXIT(prc);
        goto done;
    }
    if (check_choices(n_plugins, dir, order, seen, since, n_ops))
        goto done;
    if (n_ops) {
        if (parse_signatures(ops, n_ops, &ids))
            goto done;
        n_ids = n_ops;
    }
    if (n_plugins) {
        if (series_of_plugins(&series, plugins, n_plugins))
            goto done;
    } else if (dir && bisect_series_from_dir(&series, dir, order, err, sizeof err)) {
        fprintf(stderr, "divergence bisect: %s\n", err);
        goto done;
    }
    /* Writable: the ranges and the builds go into the store; it must
     * exist (the signatures are in it). */
    if (store_open(db_path, 0, &db, err, sizeof err)) {
        fprintf(stderr, "divergence bisect: %s\n", err);
        goto done;
    }
    if (since >= 0 && bisect_signatures_since(db, since, &ids, &n_ids)) {
        fprintf(stderr, "divergence bisect: %s\n", store_errmsg(db));
        goto done;
    }
    if (since >= 0 && !n_ids)
        printf("no signature first found or fixed after run %" PRId64 ": nothing to bisect\n",
               since);
    if (bisect_open(&bs, db, all, stdout, stderr)) {
        fprintf(stderr, "divergence bisect: out of memory\n");
        goto done;
    }
    bisect_plugin_options(bs, config, &iso);
    int worst = 0;
    for (uint32_t i = 0; i < n_ids; i++) {
        int rc = bisect_signature(bs, ids[i], seen ? NULL : &series);
        if (rc < 0)
            worst = 2;
        else if (rc > 0 && worst < 1)
            worst = 1;
    }
    status = worst;
    if (fflush(stdout))
        status = 2;
done:
    bisect_close(bs);
    store_close(db);
    bisect_series_free(&series);
    dvg_free(ids);
    dvg_free(ops);
    dvg_free(plugins);
    return status;
}
