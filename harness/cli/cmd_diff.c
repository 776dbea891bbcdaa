/* SPDX-License-Identifier: MIT */
/*
 * This file contains `divergence diff`: its flags (the shared ones through
 * harness/cli/cli.h) and the call into harness/run/diff.h.
 *
 * divergence diff --plugin A --plugin B [--plugin C ...] [--variant V ...]
 *                 [--dtype T ...] [--profile P] [--seed N] [--db FILE]
 *                 [--cases DIR] [--random N] [--max-elements N]
 *                 [--timeout MS] [--partial] [--sandbox auto|strict|off]
 *                 [--env K=V ...]
 */
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/diff.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence diff --plugin A --plugin B [--plugin C ...] [--variant V ...]\n"
            "         [--dtype T ...] [--profile exact|ftz|daz|ftz+daz|ulp:N] [--seed N]\n"
            "         [--db FILE] [--cases DIR] [--random N] [--max-elements N]\n"
            "         [--timeout MS] [--partial] [--sandbox auto|strict|off] [--env K=V ...]\n"
            "--partial: also the pairs only some (two or more) claim, among those\n"
            "The same cases through every plugin (2 to 8), each in its own worker, on the\n"
            "(variant, dtype) pairs they all claim; prints per pair what each plugin gives\n"
            "where they all conform but differ (portability hazards: int-div-zero,\n"
            "int-min-neg-one, float-div-zero-undefined, unsigned-inf-sign,\n"
            "nan-sign-or-payload, declared-deviation) and which plugin departs from the\n"
            "oracle. docs/diff.md has the details.\n"
            "exit: 0 no plugin departs (hazards are not failures), 1 a plugin departs,\n"
            "2 usage or environment error\n");
    return 2;
}

static const char *const with_value[] = {
    "--plugin", "--db", "--cases", "--variant", "--dtype", "--profile", "--seed", "--random",
    "--max-elements", "--timeout", "--sandbox", "--env", NULL};

int cmd_diff(int argc, char **argv)
{
    diff_options o;
    diff_options_default(&o);
    static const char *env[CLI_MAX_ENV];
    const cli_shared shared = {.seed = &o.seed, .timeout_ms = &o.timeout_ms,
                               .profile = &o.profile, .sandbox = &o.sandbox, .env = env,
                               .n_env = &o.n_env};
    o.env = env;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--partial")) {
            o.partial = 1;
            continue;
        }
        if (a[0] != '-') {
            fprintf(stderr, "divergence diff: unexpected argument '%s'\n", a);
            return usage(stderr);
        }
        if (i + 1 >= argc) {
            cli_missing_value("diff", a, with_value);
            return usage(stderr);
        }
        const char *val = argv[++i];
        uint64_t n;
        int taken = cli_parse_shared("diff", &shared, a, val);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        if (!strcmp(a, "--plugin")) {
            if (o.n_plugins == DIFF_MAX_PLUGINS) {
                fprintf(stderr, "divergence diff: at most %d plugins\n", DIFF_MAX_PLUGINS);
                return 2;
            }
            o.plugins[o.n_plugins++] = val;
        } else if (!strcmp(a, "--db"))
            o.db_path = val;
        else if (!strcmp(a, "--cases"))
            o.cases_dir = val;
        else if (!strcmp(a, "--variant")) {
            const oracle_variant *v = oracle_variant_by_name(val);
            if (!v) {
                fprintf(stderr, "divergence diff: unknown variant '%s'\n", val);
                return 2;
            }
            if (o.n_variants == DIFF_MAX_FILTERS)
                return usage(stderr);
            o.variants[o.n_variants++] = v->id;
        } else if (!strcmp(a, "--dtype")) {
            uint32_t d = oracle_dtype_by_tag(val);
            if (!d) {
                fprintf(stderr, "divergence diff: unknown dtype '%s'\n", val);
                return 2;
            }
            if (o.n_dtypes == DIFF_MAX_FILTERS)
                return usage(stderr);
            o.dtypes[o.n_dtypes++] = d;
        } else if (!strcmp(a, "--random")) {
            if (cli_parse_u64("diff", a, val, 0, 10000000, &n))
                return 2;
            o.random_cases = (uint32_t)n;
        } else if (!strcmp(a, "--max-elements")) {
            if (cli_parse_u64("diff", a, val, 1, 1u << 24, &n))
                return 2;
            o.max_elements = (uint32_t)n;
        } else {
            fprintf(stderr, "divergence diff: unknown option '%s'\n", a);
            return usage(stderr);
        }
    }
    if (o.n_plugins < 2) {
        fprintf(stderr, "divergence diff: two --plugin PATH at least\n");
        return usage(stderr);
    }
    char *key;
    if (cli_run_key(argc, argv, &key)) {
        fprintf(stderr, "divergence diff: out of memory\n");
        return 2;
    }
    o.args = key;
    int rc = diff_run(&o, stdout, stderr);
    dvg_free(key);
    return rc;
}
