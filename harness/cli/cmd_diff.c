/* SPDX-License-Identifier: MIT */
/*
 * This file contains `divergence diff`: its table of flags (read by
 * cli_parse, harness/cli/cli.h) and the call into harness/run/diff/diff.h.
 *
 * divergence diff --plugin A --plugin B [--plugin C ...] [--variant V ...]
 *                 [--dtype T ...] [--profile P] [--seed N] [--db FILE]
 *                 [--cases DIR] [--random N] [--max-elements N]
 *                 [--timeout MS] [--partial] [--sandbox auto|strict|off]
 *                 [--env K=V ...] [--jobs N] [--pin|--no-pin]
 */
#include <stdio.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/diff/diff.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence diff --plugin A --plugin B [--plugin C ...] [--variant V ...]\n"
            "         [--dtype T ...] [--profile exact|ftz|daz|ftz+daz|ulp:N[+no-refusals]]\n"
            "         [--seed N] [--db FILE] [--cases DIR] [--random N] [--max-elements N]\n"
            "         [--timeout MS] [--memory-limit MIB] [--partial] [--sandbox auto|strict|off]\n"
            "         [--env K=V ...] [--grant pocl|cuda ...] [--config TEXT]\n"
            "         [--jobs N] [--pin|--no-pin]\n"
            "--partial: also the pairs only some (two or more) claim, among those\n"
            "--jobs N: the pairs on N jobs, each with a worker per plugin (default: one per\n"
            "CPU); the output and its ids are the same for any N. --pin / --no-pin: each\n"
            "job and its workers on one CPU (default: when the jobs are as many as the CPUs)\n"
            "The same cases through every plugin (2 to 16), each in its own worker, on the\n"
            "(variant, dtype) pairs they all claim; prints per pair what each plugin gives\n"
            "where they all conform but differ (portability hazards: int-div-zero,\n"
            "int-min-neg-one, float-div-zero-undefined, unsigned-inf-sign,\n"
            "nan-sign-or-payload, declared-deviation) and which plugin departs from the\n"
            "oracle. docs/diff.md has the details.\n"
            "exit: 0 no plugin departs (hazards are not failures), 1 a plugin departs,\n"
            "2 usage or environment error\n");
    return 2;
}

int cmd_diff(int argc, char **argv)
{
    diff_options o;
    diff_options_default(&o);
    static const char *env[CLI_MAX_ENV];
    const cli_shared shared = {.seed = &o.seed, .timeout_ms = &o.iso.timeout_ms,
                               .profile = &o.profile, .sandbox = &o.iso.sandbox,
                               .grants = &o.iso.grants, .memory_limit = &o.iso.memory_limit, .env = env,
                               .n_env = &o.iso.n_env};
    o.iso.env = env;
    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--partial", &o.partial, 1),
        CLI_FLAG_SWITCH("--pin", &o.pin, 1),
        CLI_FLAG_SWITCH("--no-pin", &o.pin, 0),
        CLI_FLAG_U32("--jobs", &o.jobs, 1, 64),
        CLI_FLAG_TEXTS("--plugin", o.plugins, &o.n_plugins, DIFF_MAX_PLUGINS),
        CLI_FLAG_TEXT("--db", &o.db_path),
        CLI_FLAG_TEXT("--config", &o.config),
        CLI_FLAG_TEXT("--cases", &o.cases_dir),
        CLI_FLAG_VARIANTS("--variant", o.only.variants, &o.only.n_variants, RUN_MAX_FILTERS),
        CLI_FLAG_DTYPES("--dtype", o.only.dtypes, &o.only.n_dtypes, RUN_MAX_FILTERS),
        CLI_FLAG_U32("--random", &o.random_cases, 0, 10000000),
        CLI_FLAG_U32("--max-elements", &o.max_elements, 1, 1u << 24),
        CLI_FLAG_END};
    const cli_command c = {.name = "diff", .usage = usage, .flags = flags, .shared = &shared};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    if (o.n_plugins < 2) {
        fprintf(stderr, "divergence diff: two --plugin PATH at least\n");
        return usage(stderr);
    }
    char *key;
    if (cli_run_key(argc, argv, &key, NULL)) {
        fprintf(stderr, "divergence diff: out of memory\n");
        return 2;
    }
    o.args = key;
    rc = diff_run(&o, stdout, stderr);
    dvg_free(key);
    return rc;
}
