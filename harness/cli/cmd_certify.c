/* SPDX-License-Identifier: MIT */
/*
 * divergence certify --plugin PATH [--variant V ...] [--dtype T ...]
 *                    [--profile exact|ftz|daz|ftz+daz|ulp:N] [--seed N] [--db FILE]
 *                    [--cases DIR] [--random N] [--max-elements N]
 *                    [--timeout MS] [--config TEXT] [--shard I/N] [--no-progress]
 *                    [--memory-limit MIB] [--cpu-limit S] [--resume]
 *                    [--sandbox auto|strict|off] [--env K=V ...]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cases/shapes.h"
#include "harness/run/certify.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence certify --plugin PATH [--variant V ...] [--dtype T ...]\n"
            "         [--profile exact|ftz|daz|ftz+daz|ulp:N] [--seed N] [--db FILE] [--cases DIR]\n"
            "         [--random N] [--max-elements N] [--shape-tier K] [--timeout MS]\n"
            "         [--config TEXT] [--shard I/N] [--no-progress] [--memory-limit MIB]\n"
            "         [--cpu-limit S] [--resume] [--sandbox auto|strict|off] [--env K=V ...]\n"
            "--shape-tier K: shape-path cases up to 2^K + 1 elements (default 24; 0: none)\n"
            "--shard I/N judges the selected claims k with k %% N == I (0 <= I < N): the N\n"
            "shards of one seed, merged with 'divergence db merge', equal the unsharded run\n"
            "--memory-limit MIB: address space the plugin's worker may add (default 8192,\n"
            "0: none); --cpu-limit S: CPU seconds per plugin call (default 300, 0: none)\n"
            "--sandbox: the plugin's isolation (docs/sandbox.md): auto (default) every\n"
            "layer the kernel allows, strict all of them or exit 2, off none (debugging);\n"
            "--env K=V: a variable for the plugin besides the allowlist (PATH, LANG, LC_*,\n"
            "TZ, LD_LIBRARY_PATH, OMP_*, MKL_*, DNNL_*, ...)\n"
            "--resume continues the latest incomplete run of this command line and plugin\n"
            "build in the database (claims already certified are kept); none: a new run\n"
            "exit: 0 every claim holds, 1 a claim does not, 2 usage or environment error\n");
    return 2;
}

/* The options that take a value. */
static const char *const with_value[] = {
    "--plugin", "--db", "--cases", "--config", "--variant", "--dtype", "--profile", "--seed",
    "--random", "--max-elements", "--shard", "--timeout", "--memory-limit", "--cpu-limit",
    "--sandbox", "--env", "--shape-tier", NULL};

int cmd_certify(int argc, char **argv)
{
    certify_options o;
    certify_options_default(&o);
    static const char *env[CLI_MAX_ENV];
    const cli_shared shared = {.seed = &o.seed, .shard_index = &o.shard_index,
                               .shard_count = &o.shard_count, .timeout_ms = &o.timeout_ms,
                               .memory_limit = &o.memory_limit, .cpu_limit_s = &o.cpu_limit_s,
                               .profile = &o.profile, .sandbox = &o.sandbox, .env = env,
                               .shape_tier = &o.shape_tier,
                               .n_env = &o.n_env};
    o.env = env;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        if (!strcmp(a, "--no-progress")) {
            o.progress = 0;
            continue;
        }
        if (!strcmp(a, "--resume")) {
            o.resume = 1;
            continue;
        }
        if (a[0] != '-') {
            fprintf(stderr, "divergence certify: unexpected argument '%s'\n", a);
            return usage(stderr);
        }
        if (i + 1 >= argc) {
            cli_missing_value("certify", a, with_value);
            return usage(stderr);
        }
        const char *val = argv[++i];
        uint64_t n;
        int taken = cli_parse_shared("certify", &shared, a, val);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        if (!strcmp(a, "--plugin"))
            o.plugin_path = val;
        else if (!strcmp(a, "--db"))
            o.db_path = val;
        else if (!strcmp(a, "--cases"))
            o.cases_dir = val;
        else if (!strcmp(a, "--config"))
            o.config = val;
        else if (!strcmp(a, "--variant")) {
            const oracle_variant *v = oracle_variant_by_name(val);
            if (!v) {
                fprintf(stderr, "divergence certify: unknown variant '%s'\n", val);
                return 2;
            }
            if (o.n_variants == CERTIFY_MAX_FILTERS)
                return usage(stderr);
            o.variants[o.n_variants++] = v->id;
        } else if (!strcmp(a, "--dtype")) {
            uint32_t d = oracle_dtype_by_tag(val);
            if (!d) {
                fprintf(stderr, "divergence certify: unknown dtype '%s'\n", val);
                return 2;
            }
            if (o.n_dtypes == CERTIFY_MAX_FILTERS)
                return usage(stderr);
            o.dtypes[o.n_dtypes++] = d;
        } else if (!strcmp(a, "--random")) {
            if (cli_parse_u64("certify", a, val, 0, 10000000, &n))
                return 2;
            o.random_cases = (uint32_t)n;
        } else if (!strcmp(a, "--max-elements")) {
            if (cli_parse_u64("certify", a, val, 1, 1u << 24, &n))
                return 2;
            o.max_elements = (uint32_t)n;
        } else {
            fprintf(stderr, "divergence certify: unknown option '%s'\n", a);
            return usage(stderr);
        }
    }
    o.shape_paths = o.shape_tier > 0;
    if (!o.plugin_path) {
        fprintf(stderr, "divergence certify: --plugin PATH is required\n");
        return usage(stderr);
    }
    char *key;
    if (cli_run_key(argc, argv, &key)) {
        fprintf(stderr, "divergence certify: out of memory\n");
        return 2;
    }
    o.args = key;
    int rc = certify_run(&o, stdout, stderr);
    dvg_free(key);
    return rc;
}
