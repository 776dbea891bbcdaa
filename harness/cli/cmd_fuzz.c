/* SPDX-License-Identifier: MIT */
/*
 * divergence fuzz   --plugin P [--seconds N] [--cases N] [--jobs J] [--seed S]
 *                   [--shard i/N] [--db F] [--corpus DIR] [--max-elements N]
 *                   [--timeout MS] [--profile exact|ftz|ulp:N] [--no-progress]
 *                   [--memory-limit MIB] [--cpu-limit S] [--resume] [--pin|--no-pin]
 * divergence import --plugin P [--db F] [--max-elements N] [--memory-limit MIB]
 *                   [--cpu-limit S] FILE|DIR...
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/run/campaign.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"

static const char fuzz_usage[] =
    "usage: divergence fuzz --plugin P [--seconds N] [--cases N] [--jobs J] [--seed S]\n"
    "         [--shard i/N] [--db F] [--corpus DIR] [--max-elements N] [--timeout MS]\n"
    "         [--profile exact|ftz|ulp:N] [--stop-on-finding] [--no-progress]\n"
    "         [--memory-limit MIB] [--cpu-limit S] [--resume] [--pin|--no-pin]\n"
    "         [--sandbox auto|strict|off] [--env K=V ...]\n"
    "--sandbox: the plugin's isolation (auto, strict: all layers or exit 2, off);\n"
    "--env K=V: a variable for the plugin besides the allowlist\n"
    "--pin: job i and its worker on the i-th CPU (default when --jobs is the CPU count)\n"
    "--memory-limit MIB: address space each worker may add (default 8192, 0: none);\n"
    "--cpu-limit S: CPU seconds per plugin call (default 300, 0: none)\n"
    "--resume continues the latest incomplete fuzz run of this command line and plugin\n"
    "build from the cases it recorded (--seconds budgets this session); none: a new run\n"
    "exit: 0 nothing found, 1 findings, 2 usage or environment error\n";
static const char import_usage[] =
    "usage: divergence import --plugin P [--db F] [--max-elements N] [--memory-limit MIB]\n"
    "         [--cpu-limit S] FILE|DIR...\n"
    "  imports libFuzzer / AFL++ finding files of fuzz/fuzz_div.c into the store;\n"
    "  --max-elements must be the fuzz target's (DIVERGENCE_FUZZ_MAX_ELEMENTS,\n"
    "  default 16) so the bytes decode to the same case\n";

static int parse_shard(const char *text, campaign_options *o)
{
    unsigned i, n;
    char tail;
    if (sscanf(text, "%u/%u%c", &i, &n, &tail) != 2 || n == 0 || n > 1000000 || i >= n) {
        fprintf(stderr, "divergence fuzz: --shard '%s': expected i/N with 0 <= i < N\n", text);
        return -1;
    }
    o->shard_index = i;
    o->shard_count = n;
    return 0;
}

/* Parses the options of both commands; operands go to rest. */
static int parse(const char *cmd, int argc, char **argv, campaign_options *o, char **rest,
                 int *n_rest, char *args, size_t args_len)
{
    int is_fuzz = !strcmp(cmd, "fuzz");
    snprintf(args, args_len, "divergence");
    for (int i = 0; i < argc; i++) {
        size_t used = strlen(args);
        if (!is_fuzz || strcmp(argv[i], "--resume")) /* the run's command line */
            snprintf(args + used, args_len - used, " %s", argv[i]);
    }
    o->args = args;
    static const char *env[CLI_MAX_ENV];
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
            fprintf(stderr, "divergence %s: option %s needs a value\n", cmd, a);
            return 2;
        }
        const char *v = argv[++i];
        int sb = cli_sandbox_flag(cmd, a, v, &o->sandbox, env, &o->n_env);
        if (sb <= 0) {
            if (sb < 0)
                return 2;
            continue;
        }
        if (!strcmp(a, "--plugin"))
            o->plugin_path = v;
        else if (!strcmp(a, "--db"))
            o->db_path = v;
        else if (!strcmp(a, "--config"))
            o->config = v;
        else if (!strcmp(a, "--max-elements")) {
            if (cli_parse_u64(cmd, a, v, 1, 1u << 20, &n))
                return 2;
            o->max_elements = (uint32_t)n;
        } else if (!strcmp(a, "--timeout")) {
            if (cli_parse_u64(cmd, a, v, 1, 3600000, &n))
                return 2;
            o->timeout_ms = (uint32_t)n;
        } else if (!strcmp(a, "--memory-limit")) {
            if (cli_parse_u64(cmd, a, v, 0, UINT64_C(1) << 30, &n))
                return 2;
            o->memory_limit = n << 20;
        } else if (!strcmp(a, "--cpu-limit")) {
            if (cli_parse_u64(cmd, a, v, 0, 86400, &n))
                return 2;
            o->cpu_limit_s = (uint32_t)n;
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
        } else if (is_fuzz && !strcmp(a, "--seed")) {
            if (cli_parse_u64(cmd, a, v, 0, UINT64_MAX, &o->seed))
                return 2;
        } else if (is_fuzz && !strcmp(a, "--shard")) {
            if (parse_shard(v, o))
                return 2;
        } else if (is_fuzz && !strcmp(a, "--corpus"))
            o->corpus_dir = v;
        else if (is_fuzz && !strcmp(a, "--profile")) {
            char err[160];
            if (verdict_profile_parse(v, &o->profile, err, sizeof err)) {
                fprintf(stderr, "divergence fuzz: %s\n", err);
                return 2;
            }
        } else {
            fprintf(stderr, "divergence %s: unknown option '%s'\n%s", cmd, a,
                    is_fuzz ? fuzz_usage : import_usage);
            return 2;
        }
    }
    if (!o->plugin_path) {
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
    char args[1024];
    int n_rest;
    int rc = parse("fuzz", argc, argv, &o, NULL, &n_rest, args, sizeof args);
    if (rc)
        return rc;
    if (o.seconds == 0 && o.max_cases == 0) {
        fprintf(stderr, "divergence fuzz: --seconds 0 needs --cases N\n");
        return 2;
    }
    return campaign_run(&o, stdout, stderr);
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
    o.max_elements = 16; /* fuzz/fuzz_div.c's default: same bytes, same case */
    char args[1024];
    char *rest[argc > 0 ? argc : 1];
    int n_rest;
    int rc = parse("import", argc, argv, &o, rest, &n_rest, args, sizeof args);
    if (rc)
        return rc;
    if (!n_rest) {
        fprintf(stderr, "divergence import: no finding files given\n%s", import_usage);
        return 2;
    }
    return campaign_import(&o, rest, n_rest, stdout, stderr);
}
