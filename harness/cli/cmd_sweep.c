/* SPDX-License-Identifier: MIT */
/*
 * divergence sweep --plugin PATH --dtype f16|bf16|i16|u16|i8|u8|i4|u4|f32|f64
 *                  [--variant V] [--attr k=v ...] [--jobs J] [--shard I/N]
 *                  [--db FILE] [--resume] [--profile P] [--random N] [--seed N]
 *                  [--timeout MS] [--config TEXT] [--max-failures N]
 *                  [--batch-pairs N] [--nondet-every N] [--shape-tier K] [--pin]
 *                  [--no-progress] [--cpu MODEL]
 *
 * This file contains the `sweep` command: its table of flags (read by
 * cli_parse, harness/cli/cli.h) and the call into harness/run/sweep/sweep.h.
 */
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/sweep/sweep.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence sweep --plugin PATH --dtype f16|bf16|i16|u16|i8|u8|i4|u4|f32|f64\n"
            "         [--variant V] [--attr k=v ...] [--jobs J] [--shard I/N] [--db FILE]\n"
            "         [--resume] [--profile exact|ftz|daz|ftz+daz|ulp:N] [--random N] [--seed N]\n"
            "         [--timeout MS] [--config TEXT] [--max-failures N] [--batch-pairs N]\n"
            "         [--nondet-every N] [--shape-tier K] [--pin] [--no-progress] [--memory-limit MIB]\n"
            "         [--sandbox auto|strict|off] [--env K=V ...] [--grant pocl|cuda ...]\n"
            "         [--cpu MODEL]\n"
            "Every operand pair of the dtype (f32, f64: every pair of the edge table plus\n"
            "--random N seeded random pairs, default 16777216), in large batches through\n"
            "isolated workers, judged against the oracle; results in the store, deduplicated.\n"
            "--variant: default the plugin's first claim with the dtype. --shard I/N: the\n"
            "chunks c with c %% N == I. --resume: continue the newest unfinished sweep with\n"
            "the same settings and plugin build (a killed sweep), or start one.\n"
            "--shape-tier K: after the pairs, the shape-path cases of the claim up to 2^K + 1\n"
            "elements (default 12; 0: none), docs/shapes.md\n"
            "--cpu MODEL: the CPU the plugin runs on: native (default), x86-64-v3 (haswell,\n"
            "avx2) or x86-64-v2 (nehalem, sse4.2) under QEMU's user-mode emulator\n"
            "exit: 0 every pair conforms, 1 not (or the sweep stopped), 2 usage or\n"
            "environment error, 128 + the signal when SIGINT, SIGTERM or SIGHUP stopped it\n"
            "(the run is stored as 'interrupted'; --resume continues it)\n");
    return 2;
}

/* --attr k=v: appended to the sweep's attributes (o: the sweep_options).
 * 0 or -1. */
static int parse_attr(const char *cmd, const char *flag, const char *val, void *dest)
{
    sweep_options *o = dest;
    static char keys[SWEEP_MAX_ATTRS][64];
    const char *eq = strchr(val, '=');
    (void)flag;
    if (!eq || eq == val || o->n_attrs == SWEEP_MAX_ATTRS) {
        fprintf(stderr, "divergence %s: --attr '%s': expected key=value (at most %d)\n", cmd, val,
                SWEEP_MAX_ATTRS);
        return -1;
    }
    size_t len = (size_t)(eq - val) < sizeof keys[0] - 1 ? (size_t)(eq - val) : sizeof keys[0] - 1;
    memcpy(keys[o->n_attrs], val, len);
    keys[o->n_attrs][len] = '\0';
    o->attr_key[o->n_attrs] = keys[o->n_attrs];
    o->attr_value[o->n_attrs] = eq + 1;
    o->n_attrs++;
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    sweep_options o;
    sweep_options_default(&o);
    static const char *env[CLI_MAX_ENV];
    static uint8_t cpus[CLI_MAX_CPUS];
    uint32_t n_cpus = 0;
    const cli_shared shared = {.cpus = cpus, .n_cpus = &n_cpus,
                               .seed = &o.seed, .shard_index = &o.shard_index,
                               .shard_count = &o.shard_count, .timeout_ms = &o.iso.timeout_ms,
                               .profile = &o.profile, .sandbox = &o.iso.sandbox,
                               .grants = &o.iso.grants, .memory_limit = &o.iso.memory_limit, .env = env,
                               .shape_tier = &o.shape_tier,
                               .n_env = &o.iso.n_env};
    o.iso.env = env;
    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--no-progress", &o.progress, 0),
        CLI_FLAG_SWITCH("--resume", &o.resume, 1),
        CLI_FLAG_SWITCH("--pin", &o.pin, 1),
        CLI_FLAG_TEXT("--plugin", &o.plugin_path),
        CLI_FLAG_TEXT("--db", &o.db_path),
        CLI_FLAG_TEXT("--config", &o.config),
        CLI_FLAG_DTYPE("--dtype", &o.dtype),
        CLI_FLAG_VARIANT("--variant", &o.variant),
        CLI_FLAG_CALL("--attr", parse_attr, &o),
        CLI_FLAG_U32("--jobs", &o.jobs, 1, 64),
        CLI_FLAG_U64("--random", &o.random_pairs, 0, UINT64_C(1) << 40),
        CLI_FLAG_U32("--max-failures", &o.max_failures, 1, 1000000),
        CLI_FLAG_U32("--batch-pairs", &o.batch_pairs, 256, UINT64_C(1) << 26),
        CLI_FLAG_U32("--nondet-every", &o.nondet_every, 0, UINT32_MAX),
        CLI_FLAG_END};
    const cli_command c = {.name = "sweep", .usage = usage, .flags = flags, .shared = &shared};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    if (n_cpus > 1) {
        fprintf(stderr, "divergence sweep: --cpu: one CPU per sweep (run one sweep per CPU)\n");
        return CLI_ERROR;
    }
    o.iso.cpu_model = n_cpus ? cpus[0] : 0;
    if (!o.plugin_path || !o.dtype) {
        fprintf(stderr, "divergence sweep: --plugin PATH and --dtype T are required\n");
        return usage(stderr);
    }
    char *key, *resume;
    if (cli_run_key(argc, argv, &key, &resume)) {
        fprintf(stderr, "divergence sweep: out of memory\n");
        return 2;
    }
    o.args = key;
    o.resume_command = resume;
    rc = sweep_run(&o, stdout, stderr);
    dvg_free(resume);
    dvg_free(key);
    return rc;
}
