/* SPDX-License-Identifier: MIT */
/*
 * divergence certify --plugin PATH [--variant V ...] [--dtype T ...]
 *                    [--profile exact|ftz|ulp:N] [--seed N] [--db FILE]
 *                    [--cases DIR] [--random N] [--max-elements N]
 *                    [--timeout MS] [--config TEXT] [--shard I/N] [--no-progress]
 *                    [--memory-limit MIB] [--cpu-limit S] [--resume]
 *                    [--sandbox auto|strict|off] [--env K=V ...]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/certify.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence certify --plugin PATH [--variant V ...] [--dtype T ...]\n"
            "         [--profile exact|ftz|ulp:N] [--seed N] [--db FILE] [--cases DIR]\n"
            "         [--random N] [--max-elements N] [--timeout MS] [--config TEXT]\n"
            "         [--shard I/N] [--no-progress] [--memory-limit MIB] [--cpu-limit S]\n"
            "         [--resume] [--sandbox auto|strict|off] [--env K=V ...]\n"
            "--shard I/N judges the selected claims k with k %% N == I (0 <= I < N): the N\n"
            "shards of one seed, merged with 'divergence db merge', equal the unsharded run\n"
            "--memory-limit MIB: address space the plugin's worker may add (default 8192,\n"
            "0: none); --cpu-limit S: CPU seconds per plugin call (default 300, 0: none)\n"
            "--sandbox: the plugin's isolation (README, \"The sandbox\"): auto (default) every\n"
            "layer the kernel allows, strict all of them or exit 2, off none (debugging);\n"
            "--env K=V: a variable for the plugin besides the allowlist (PATH, LANG, LC_*,\n"
            "TZ, LD_LIBRARY_PATH, OMP_*, MKL_*, DNNL_*, ...)\n"
            "--resume continues the latest incomplete run of this command line and plugin\n"
            "build in the database (claims already certified are kept); none: a new run\n"
            "exit: 0 every claim holds, 1 a claim does not, 2 usage or environment error\n");
    return 2;
}

int cmd_certify(int argc, char **argv)
{
    certify_options o;
    certify_options_default(&o);
    char args[1024] = "divergence";
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(args);
        if (strcmp(argv[i], "--resume")) /* the run's command line, resumed or not */
            snprintf(args + used, sizeof args - used, " %s", argv[i]);
    }
    o.args = args;
    static const char *env[CLI_MAX_ENV];
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
        if (a[0] != '-' || i + 1 >= argc) {
            fprintf(stderr, "divergence certify: %s '%s'\n",
                    a[0] == '-' ? "option needs a value:" : "unexpected argument", a);
            return usage(stderr);
        }
        const char *val = argv[++i];
        uint64_t n;
        int sb = cli_sandbox_flag("certify", a, val, &o.sandbox, env, &o.n_env);
        if (sb <= 0) {
            if (sb < 0)
                return 2;
            continue;
        }
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
        } else if (!strcmp(a, "--profile")) {
            char err[160];
            if (verdict_profile_parse(val, &o.profile, err, sizeof err)) {
                fprintf(stderr, "divergence certify: %s\n", err);
                return 2;
            }
        } else if (!strcmp(a, "--seed")) {
            if (cli_parse_u64("certify", a, val, 0, UINT64_MAX, &o.seed))
                return 2;
        } else if (!strcmp(a, "--random")) {
            if (cli_parse_u64("certify", a, val, 0, 10000000, &n))
                return 2;
            o.random_cases = (uint32_t)n;
        } else if (!strcmp(a, "--max-elements")) {
            if (cli_parse_u64("certify", a, val, 1, 1u << 24, &n))
                return 2;
            o.max_elements = (uint32_t)n;
        } else if (!strcmp(a, "--shard")) {
            unsigned idx, cnt;
            char tail;
            if (sscanf(val, "%u/%u%c", &idx, &cnt, &tail) != 2 || cnt < 1 || cnt > 1000000 ||
                idx >= cnt || val[0] == '-' || strchr(val, '-')) {
                fprintf(stderr, "divergence certify: --shard '%s': expected I/N with "
                                "0 <= I < N\n", val);
                return 2;
            }
            o.shard_index = idx;
            o.shard_count = cnt;
        } else if (!strcmp(a, "--timeout")) {
            if (cli_parse_u64("certify", a, val, 1, 3600000, &n))
                return 2;
            o.timeout_ms = (uint32_t)n;
        } else if (!strcmp(a, "--memory-limit")) {
            if (cli_parse_u64("certify", a, val, 0, UINT64_C(1) << 30, &n))
                return 2;
            o.memory_limit = n << 20;
        } else if (!strcmp(a, "--cpu-limit")) {
            if (cli_parse_u64("certify", a, val, 0, 86400, &n))
                return 2;
            o.cpu_limit_s = (uint32_t)n;
        } else {
            fprintf(stderr, "divergence certify: unknown option '%s'\n", a);
            return usage(stderr);
        }
    }
    if (!o.plugin_path) {
        fprintf(stderr, "divergence certify: --plugin PATH is required\n");
        return usage(stderr);
    }
    return certify_run(&o, stdout, stderr);
}
