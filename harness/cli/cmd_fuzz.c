/* SPDX-License-Identifier: MIT */
/*
 * divergence fuzz   --plugin P [--plugin Q ...] [--seconds N] [--cases N] [--jobs J] [--seed S]
 *                   [--shard I/N] [--db F] [--corpus DIR] [--max-elements N]
 *                   [--timeout MS] [--profile exact|ftz|daz|ftz+daz|ulp:N] [--no-progress]
 *                   [--memory-limit MIB] [--cpu-limit S] [--resume] [--pin|--no-pin]
 * divergence import --plugin P [--plugin Q ...] [--db F] [--max-elements N] [--memory-limit MIB]
 *                   [--cpu-limit S] FILE|DIR...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/campaign.h"

static const char fuzz_usage[] =
    "usage: divergence fuzz --plugin P [--plugin Q ...] [--seconds N] [--cases N] [--jobs J]\n"
    "         [--seed S] [--shard I/N] [--db F] [--corpus DIR] [--max-elements N] [--timeout MS]\n"
    "         [--profile exact|ftz|daz|ftz+daz|ulp:N] [--stop-on-finding] [--no-progress]\n"
    "         [--memory-limit MIB] [--cpu-limit S] [--resume] [--pin|--no-pin]\n"
    "         [--sandbox auto|strict|off] [--env K=V ...]\n"
    "several --plugin (at most 8): differential mode, on the pairs all of them claim: each\n"
    "plugin's departures from the oracle, and where they all conform but disagree (a\n"
    "portability hazard, stored for the plugin set; hazards alone exit 0)\n"
    "--sandbox: the plugin's isolation (auto, strict: all layers or exit 2, off);\n"
    "--env K=V: a variable for the plugin besides the allowlist\n"
    "--pin: job i and its worker on the i-th CPU (default when --jobs is the CPU count)\n"
    "--memory-limit MIB: address space each worker may add (default 8192, 0: none);\n"
    "--cpu-limit S: CPU seconds per plugin call (default 300, 0: none)\n"
    "--resume continues the latest incomplete fuzz run of this command line and plugin\n"
    "build from the cases it recorded (--seconds budgets this session); none: a new run\n"
    "exit: 0 nothing found, 1 findings, 2 usage or environment error\n";
static const char import_usage[] =
    "usage: divergence import --plugin P [--plugin Q ...] [--db F] [--max-elements N] [--memory-limit MIB]\n"
    "         [--cpu-limit S] FILE|DIR...\n"
    "  imports libFuzzer / AFL++ finding files of fuzz/fuzz_div.c into the store;\n"
    "  --max-elements must be the fuzz target's (DIVERGENCE_FUZZ_MAX_ELEMENTS,\n"
    "  default 256) so the bytes decode to the same case\n";

/* Parses the options of both commands; operands go to rest. */
/* The options that take a value. */
static const char *const with_value[] = {
    "--plugin", "--db", "--config", "--max-elements", "--timeout", "--memory-limit",
    "--cpu-limit", "--seconds", "--cases", "--jobs", "--seed", "--shard", "--corpus",
    "--profile", "--sandbox", "--env", NULL};

static int parse(const char *cmd, int argc, char **argv, campaign_options *o, char **rest,
                 int *n_rest)
{
    int is_fuzz = !strcmp(cmd, "fuzz");
    static const char *env[CLI_MAX_ENV];
    cli_shared shared = {.timeout_ms = &o->timeout_ms, .memory_limit = &o->memory_limit,
                         .cpu_limit_s = &o->cpu_limit_s, .sandbox = &o->sandbox, .env = env,
                         .n_env = &o->n_env};
    if (is_fuzz) { /* fuzz's own among the shared flags */
        shared.seed = &o->seed;
        shared.shard_index = &o->shard_index;
        shared.shard_count = &o->shard_count;
        shared.profile = &o->profile;
    }
    o->env = env;
    *n_rest = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        uint64_t n;
        if (!strcmp(a, "--no-progress")) {
            o->progress = 0;
            continue;
        }
        if (is_fuzz && !strcmp(a, "--stop-on-finding")) {
            o->stop_on_finding = 1;
            continue;
        }
        if (is_fuzz && (!strcmp(a, "--pin") || !strcmp(a, "--no-pin"))) {
            o->pin = !strcmp(a, "--pin");
            continue;
        }
        if (is_fuzz && !strcmp(a, "--resume")) {
            o->resume = 1;
            continue;
        }
        if (a[0] != '-') {
            if (is_fuzz) {
                fprintf(stderr, "divergence fuzz: unexpected argument '%s'\n%s", a, fuzz_usage);
                return 2;
            }
            rest[(*n_rest)++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            cli_missing_value(cmd, a, with_value);
            return 2;
        }
        const char *v = argv[++i];
        int taken = cli_parse_shared(cmd, &shared, a, v);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        if (!strcmp(a, "--plugin")) {
            if (o->n_plugins == CAMPAIGN_MAX_PLUGINS) {
                fprintf(stderr, "divergence %s: at most %d --plugin\n", cmd,
                        CAMPAIGN_MAX_PLUGINS);
                return 2;
            }
            o->plugin_paths[o->n_plugins++] = v;
        } else if (!strcmp(a, "--db"))
            o->db_path = v;
        else if (!strcmp(a, "--config"))
            o->config = v;
        else if (!strcmp(a, "--max-elements")) {
            if (cli_parse_u64(cmd, a, v, 1, 1u << 24, &n))
                return 2;
            o->max_elements = (uint32_t)n;
        } else if (is_fuzz && !strcmp(a, "--seconds")) {
            if (cli_parse_u64(cmd, a, v, 0, 30 * 86400, &n))
                return 2;
            o->seconds = (double)n;
        } else if (is_fuzz && !strcmp(a, "--cases")) {
            if (cli_parse_u64(cmd, a, v, 0, UINT64_MAX, &n))
                return 2;
            o->max_cases = n;
        } else if (is_fuzz && !strcmp(a, "--jobs")) {
            if (cli_parse_u64(cmd, a, v, 1, 64, &n))
                return 2;
            o->jobs = (uint32_t)n;
        } else if (is_fuzz && !strcmp(a, "--corpus"))
            o->corpus_dir = v;
        else {
            fprintf(stderr, "divergence %s: unknown option '%s'\n%s", cmd, a,
                    is_fuzz ? fuzz_usage : import_usage);
            return 2;
        }
    }
    if (!o->n_plugins) {
        fprintf(stderr, "divergence %s: --plugin PATH is required\n%s", cmd,
                is_fuzz ? fuzz_usage : import_usage);
        return 2;
    }
    return 0;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

int cmd_fuzz(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        fputs(fuzz_usage, stdout);
        return 0;
    }
    campaign_options o;
    campaign_options_default(&o);
    int n_rest;
    int prc = parse("fuzz", argc, argv, &o, NULL, &n_rest);
    if (prc)
        return prc;
    if (o.seconds == 0 && o.max_cases == 0) {
        fprintf(stderr, "divergence fuzz: --seconds 0 needs --cases N\n");
        return 2;
    }
    char *key;
    if (cli_run_key(argc, argv, &key)) {
        fprintf(stderr, "divergence fuzz: out of memory\n");
        return 2;
    }
    o.args = key;
    int rc = campaign_run(&o, stdout, stderr);
    dvg_free(key);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    if (wants_help(argc, argv)) {
        fputs(import_usage, stdout);
        return 0;
    }
    campaign_options o;
    campaign_options_default(&o);
    o.progress = 0;
    o.max_elements = 256; /* fuzz/fuzz_div.c's default: same bytes, same case */
    char **rest = dvg_calloc(argc > 0 ? (size_t)argc : 1, sizeof *rest); /* the files */
    char *key = NULL;
    int n_rest, rc = 2;
    if (!rest) {
        fprintf(stderr, "divergence import: out of memory\n");
        goto done;
    }
    if ((rc = parse("import", argc, argv, &o, rest, &n_rest)))
        goto done;
    rc = 2;
    if (!n_rest) {
        fprintf(stderr, "divergence import: no finding files given\n%s", import_usage);
        goto done;
    }
    if (cli_run_key(argc, argv, &key)) {
        fprintf(stderr, "divergence import: out of memory\n");
        goto done;
    }
    o.args = key;
    rc = campaign_import(&o, rest, n_rest, stdout, stderr);
done:
    dvg_free(key);
    dvg_free(rest);
    return rc;
}
