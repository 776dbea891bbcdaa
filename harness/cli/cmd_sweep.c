/* SPDX-License-Identifier: MIT */
/*
 * divergence sweep --plugin PATH --dtype f16|bf16|i16|u16|i8|u8|i4|u4|f32|f64
 *                  [--variant V] [--attr k=v ...] [--jobs J] [--shard I/N]
 *                  [--db FILE] [--resume] [--profile P] [--random N] [--seed N]
 *                  [--timeout MS] [--config TEXT] [--max-failures N]
 *                  [--batch-pairs N] [--nondet-every N] [--shape-tier K] [--pin]
 *                  [--no-progress]
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/sweep.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence sweep --plugin PATH --dtype f16|bf16|i16|u16|i8|u8|i4|u4|f32|f64\n"
            "         [--variant V] [--attr k=v ...] [--jobs J] [--shard I/N] [--db FILE]\n"
            "         [--resume] [--profile exact|ftz|daz|ftz+daz|ulp:N] [--random N] [--seed N]\n"
            "         [--timeout MS] [--config TEXT] [--max-failures N] [--batch-pairs N]\n"
            "         [--nondet-every N] [--shape-tier K] [--pin] [--no-progress]\n"
            "         [--sandbox auto|strict|off] [--env K=V ...]\n"
            "Every operand pair of the dtype (f32, f64: every pair of the edge table plus\n"
            "--random N seeded random pairs, default 16777216), in large batches through\n"
            "isolated workers, judged against the oracle; results in the store, deduplicated.\n"
            "--variant: default the plugin's first claim with the dtype. --shard I/N: the\n"
            "chunks c with c %% N == I. --resume: continue the newest unfinished sweep with\n"
            "the same settings and plugin build (a killed sweep), or start one.\n"
            "--shape-tier K: after the pairs, the shape-path cases of the claim up to 2^K + 1\n"
            "elements (default 12; 0: none), docs/shapes.md\n"
            "exit: 0 every pair conforms, 1 not (or the sweep stopped), 2 usage or\n"
            "environment error\n");
    return 2;
}

/* The options that take a value. */
static const char *const with_value[] = {
    "--plugin", "--db", "--config", "--dtype", "--variant", "--attr", "--profile", "--jobs",
    "--random", "--seed", "--timeout", "--max-failures", "--batch-pairs", "--nondet-every",
    "--shard", "--sandbox", "--env", "--shape-tier", NULL};

int cmd_sweep(int argc, char **argv)
{
    sweep_options o;
    sweep_options_default(&o);
    static const char *env[CLI_MAX_ENV];
    const cli_shared shared = {.seed = &o.seed, .shard_index = &o.shard_index,
                               .shard_count = &o.shard_count, .timeout_ms = &o.timeout_ms,
                               .profile = &o.profile, .sandbox = &o.sandbox, .env = env,
                               .shape_tier = &o.shape_tier,
                               .n_env = &o.n_env};
    o.env = env;
    const char *variant_name = NULL;
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
        if (!strcmp(a, "--pin")) {
            o.pin = 1;
            continue;
        }
        if (a[0] != '-') {
            fprintf(stderr, "divergence sweep: unexpected argument '%s'\n", a);
            return usage(stderr);
        }
        if (i + 1 >= argc) {
            cli_missing_value("sweep", a, with_value);
            return usage(stderr);
        }
        const char *val = argv[++i];
        uint64_t n;
        int taken = cli_parse_shared("sweep", &shared, a, val);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        if (!strcmp(a, "--plugin")) {
            o.plugin_path = val;
        } else if (!strcmp(a, "--db")) {
            o.db_path = val;
        } else if (!strcmp(a, "--config")) {
            o.config = val;
        } else if (!strcmp(a, "--dtype")) {
            o.dtype = oracle_dtype_by_tag(val);
            if (!o.dtype) {
                fprintf(stderr, "divergence sweep: unknown dtype '%s'\n", val);
                return 2;
            }
        } else if (!strcmp(a, "--variant")) {
            const oracle_variant *v = oracle_variant_by_name(val);
            if (!v) {
                fprintf(stderr, "divergence sweep: unknown variant '%s'\n", val);
                return 2;
            }
            o.variant = v->id;
            variant_name = val;
        } else if (!strcmp(a, "--attr")) {
            const char *eq = strchr(val, '=');
            if (!eq || eq == val || o.n_attrs == SWEEP_MAX_ATTRS) {
                fprintf(stderr, "divergence sweep: --attr '%s': expected key=value (at most %d)\n",
                        val, SWEEP_MAX_ATTRS);
                return 2;
            }
            static char keys[SWEEP_MAX_ATTRS][64];
            size_t len = (size_t)(eq - val) < sizeof keys[0] - 1 ? (size_t)(eq - val)
                                                                 : sizeof keys[0] - 1;
            memcpy(keys[o.n_attrs], val, len);
            keys[o.n_attrs][len] = '\0';
            o.attr_key[o.n_attrs] = keys[o.n_attrs];
            o.attr_value[o.n_attrs] = eq + 1;
            o.n_attrs++;
        } else if (!strcmp(a, "--jobs")) {
            if (cli_parse_u64("sweep", a, val, 1, 64, &n))
                return 2;
            o.jobs = (uint32_t)n;
        } else if (!strcmp(a, "--random")) {
            if (cli_parse_u64("sweep", a, val, 0, UINT64_C(1) << 40, &n))
                return 2;
            o.random_pairs = n;
        } else if (!strcmp(a, "--max-failures")) {
            if (cli_parse_u64("sweep", a, val, 1, 1000000, &n))
                return 2;
            o.max_failures = (uint32_t)n;
        } else if (!strcmp(a, "--batch-pairs")) {
            if (cli_parse_u64("sweep", a, val, 256, UINT64_C(1) << 26, &n))
                return 2;
            o.batch_pairs = (uint32_t)n;
        } else if (!strcmp(a, "--nondet-every")) {
            if (cli_parse_u64("sweep", a, val, 0, UINT32_MAX, &n))
                return 2;
            o.nondet_every = (uint32_t)n;
        } else {
            fprintf(stderr, "divergence sweep: unknown option '%s'\n", a);
            return usage(stderr);
        }
    }
    (void)variant_name;
    if (!o.plugin_path || !o.dtype) {
        fprintf(stderr, "divergence sweep: --plugin PATH and --dtype T are required\n");
        return usage(stderr);
    }
    char *key;
    if (cli_run_key(argc, argv, &key)) {
        fprintf(stderr, "divergence sweep: out of memory\n");
        return 2;
    }
    o.args = key;
    int rc = sweep_run(&o, stdout, stderr);
    dvg_free(key);
    return rc;
}
