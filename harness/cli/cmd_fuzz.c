/* SPDX-License-Identifier: MIT */
/*
 * divergence fuzz   --plugin P [--plugin Q ...] [--seconds N] [--cases N] [--jobs J] [--seed S]
 *                   [--shard I/N] [--db F] [--corpus DIR] [--max-elements N]
 *                   [--timeout MS] [--profile exact|ftz|daz|ftz+daz|ulp:N[+no-refusals]]
 *                   [--no-progress]
 *                   [--memory-limit MIB] [--cpu-limit S] [--resume] [--pin|--no-pin]
 *                   [--cpu MODEL]
 * divergence import --plugin P [--plugin Q ...] [--db F] [--max-elements N] [--memory-limit MIB]
 *                   [--cpu-limit S] FILE|DIR...
 *
 * This file contains the `fuzz` and `import` commands: their tables of
 * flags (read by cli_parse, harness/cli/cli.h) and the calls into
 * harness/run/campaign/campaign.h.
 */
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/campaign/campaign.h"

static const char fuzz_usage[] =
    "usage: divergence fuzz --plugin P [--plugin Q ...] [--seconds N] [--cases N] [--jobs J]\n"
    "         [--seed S] [--shard I/N] [--db F] [--corpus DIR] [--max-elements N] [--timeout MS]\n"
    "         [--profile exact|ftz|daz|ftz+daz|ulp:N[+no-refusals]] [--stop-on-finding]\n"
    "         [--no-progress] [--memory-limit MIB] [--cpu-limit S] [--resume] [--pin|--no-pin]\n"
    "         [--sandbox auto|strict|off] [--env K=V ...] [--grant pocl|cuda ...]\n"
    "         [--cpu MODEL]\n"
    "--cpu MODEL: the plugins run under that CPU: native (default), or x86-64-v3\n"
    "(haswell, avx2) or x86-64-v2 (nehalem, sse4.2) under QEMU's user-mode emulator\n"
    "several --plugin (at most 16): differential mode, on the pairs all of them claim: each\n"
    "plugin's departures from the oracle, and where they all conform but disagree (a\n"
    "portability hazard, stored for the plugin set; hazards alone exit 0)\n"
    "--sandbox: the plugin's isolation (auto, strict: all layers or exit 2, off);\n"
    "--env K=V: a variable for the plugin besides the allowlist\n"
    "--pin: job i and its worker on the i-th CPU (default when --jobs is the CPU count)\n"
    "--memory-limit MIB: address space each worker may add (default 8192, 0: none);\n"
    "--cpu-limit S: CPU seconds per plugin call (default 300, 0: none)\n"
    "--resume continues the latest incomplete fuzz run of this command line and plugin\n"
    "build from the cases it recorded (--seconds budgets this session); none: a new run\n"
    "exit: 0 nothing found, 1 findings, 2 usage or environment error, 128 + the signal\n"
    "when SIGINT, SIGTERM or SIGHUP stopped it (run stored as 'interrupted')\n";
static const char import_usage[] =
    "usage: divergence import --plugin P [--plugin Q ...] [--db F] [--max-elements N] [--memory-limit MIB]\n"
    "         [--cpu-limit S] FILE|DIR...\n"
    "  imports libFuzzer / AFL++ finding files of fuzz/fuzz_div.c into the store;\n"
    "  --max-elements must be the fuzz target's (DIVERGENCE_FUZZ_MAX_ELEMENTS,\n"
    "  default 256) so the bytes decode to the same case\n";

static int fuzz_help(FILE *to)
{
    fputs(fuzz_usage, to);
    return 2;
}

static int import_help(FILE *to)
{
    fputs(import_usage, to);
    return 2;
}

/*
 * Reads the flags of fuzz (rest NULL) or import (its files to
 * rest[0 .. *n_rest), room for argc) into o. Returns 0, CLI_HELP or
 * CLI_ERROR (as cli_parse: the usage or the error printed).
 */
static int parse(const char *cmd, int argc, char **argv, campaign_options *o, char **rest,
                 uint32_t *n_rest)
{
    int is_fuzz = !rest;
    static const char *env[CLI_MAX_ENV];
    cli_shared shared = {.timeout_ms = &o->iso.timeout_ms,
                         .memory_limit = &o->iso.memory_limit,
                         .cpu_limit_s = &o->iso.cpu_limit_s, .sandbox = &o->iso.sandbox,
                         .grants = &o->iso.grants,
                         .env = env, .n_env = &o->iso.n_env};
    static uint8_t cpus[CLI_MAX_CPUS];
    uint32_t n_cpus = 0;
    if (is_fuzz) { /* fuzz's own among the shared flags */
        shared.cpus = cpus;
        shared.n_cpus = &n_cpus;
        shared.seed = &o->seed;
        shared.shard_index = &o->shard_index;
        shared.shard_count = &o->shard_count;
        shared.profile = &o->profile;
    }
    o->iso.env = env;
    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--no-progress", &o->progress, 0),
        CLI_FLAG_TEXTS("--plugin", o->plugin_paths, &o->n_plugins, CAMPAIGN_MAX_PLUGINS),
        CLI_FLAG_TEXT("--db", &o->db_path),
        CLI_FLAG_TEXT("--config", &o->config),
        CLI_FLAG_U32("--max-elements", &o->max_elements, 1, 1u << 24),
        /* fuzz only, from here */
        CLI_FLAG_SWITCH("--stop-on-finding", &o->stop_on_finding, 1),
        CLI_FLAG_SWITCH("--pin", &o->pin, 1),
        CLI_FLAG_SWITCH("--no-pin", &o->pin, 0),
        CLI_FLAG_SWITCH("--resume", &o->resume, 1),
        CLI_FLAG_SECONDS("--seconds", &o->seconds, 0, 30 * 86400),
        CLI_FLAG_U64("--cases", &o->max_cases, 0, UINT64_MAX),
        CLI_FLAG_U32("--jobs", &o->jobs, 1, 64),
        CLI_FLAG_TEXT("--corpus", &o->corpus_dir),
        CLI_FLAG_END};
    static const cli_flag end = CLI_FLAG_END;
    cli_flag import_flags[6]; /* import's: the first five */
    memcpy(import_flags, flags, 5 * sizeof flags[0]);
    import_flags[5] = end;
    const cli_command c = {.name = cmd, .usage = is_fuzz ? fuzz_help : import_help,
                           .flags = is_fuzz ? flags : import_flags, .shared = &shared,
                           .operands = rest, .max_operands = rest ? (uint32_t)argc : 0,
                           .n_operands = n_rest, .mode = CLI_HELP_ANYWHERE};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return rc;
    if (n_cpus > 1) {
        fprintf(stderr, "divergence %s: --cpu: one CPU per campaign (run one campaign per CPU)\n",
                cmd);
        return CLI_ERROR;
    }
    o->iso.cpu_model = n_cpus ? cpus[0] : 0;
    if (!o->n_plugins) {
        fprintf(stderr, "divergence %s: --plugin PATH is required\n%s", cmd,
                is_fuzz ? fuzz_usage : import_usage);
        return CLI_ERROR;
    }
    return 0;
}

int cmd_fuzz(int argc, char **argv)
{
    campaign_options o;
    campaign_options_default(&o);
    int prc = parse("fuzz", argc, argv, &o, NULL, NULL);
    if (prc)
        return CLI_EXIT(prc);
    if (o.seconds == 0 && o.max_cases == 0) {
        fprintf(stderr, "divergence fuzz: --seconds 0 needs --cases N\n");
        return 2;
    }
    char *key, *resume;
    if (cli_run_key(argc, argv, &key, &resume)) {
        fprintf(stderr, "divergence fuzz: out of memory\n");
        return 2;
    }
    o.args = key;
    o.resume_command = resume;
    int rc = campaign_run(&o, stdout, stderr);
    dvg_free(resume);
    dvg_free(key);
    return rc;
}

int cmd_import(int argc, char **argv)
{
    campaign_options o;
    campaign_options_default(&o);
    o.progress = 0;
    o.max_elements = 256; /* fuzz/fuzz_div.c's default: same bytes, same case */
    char **rest = dvg_calloc(argc > 0 ? (size_t)argc : 1, sizeof *rest); /* the files */
    char *key = NULL;
    uint32_t n_rest = 0;
    int rc = 2;
    if (!rest) {
        fprintf(stderr, "divergence import: out of memory\n");
        goto done;
    }
    if ((rc = parse("import", argc, argv, &o, rest, &n_rest))) {
        rc = CLI_EXIT(rc);
        goto done;
    }
    rc = 2;
    if (!n_rest) {
        fprintf(stderr, "divergence import: no finding files given\n%s", import_usage);
        goto done;
    }
    if (cli_run_key(argc, argv, &key, NULL)) {
        fprintf(stderr, "divergence import: out of memory\n");
        goto done;
    }
    o.args = key;
    rc = campaign_import(&o, rest, (int)n_rest, stdout, stderr);
done:
    dvg_free(key);
    dvg_free(rest);
    return rc;
}
