/* SPDX-License-Identifier: MIT */
/*
 * divergence certify --plugin PATH [--variant V ...] [--dtype T ...]
 *                    [--profile exact|ftz|daz|ftz+daz|ulp:N[+no-refusals]]
 *                    [--seed N] [--db FILE] [--cases DIR] [--random N] [--max-elements N]
 *                    [--timeout MS] [--config TEXT] [--shard I/N] [--no-progress]
 *                    [--memory-limit MIB] [--cpu-limit S] [--resume]
 *                    [--sandbox auto|strict|off] [--env K=V ...] [--jobs N]
 *                    [--pin|--no-pin] [--cpu LIST]
 *
 * This file contains the `certify` command: its table of flags (read by
 * cli_parse, harness/cli/cli.h) and the call into harness/run/certify/certify.h.
 */
#include <stdio.h>

#include "harness/base/alloc.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/certify/certify.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence certify --plugin PATH [--variant V ...] [--dtype T ...]\n"
            "         [--profile exact|ftz|daz|ftz+daz|ulp:N[+no-refusals]] [--seed N]\n"
            "         [--db FILE] [--cases DIR] [--random N] [--max-elements N]\n"
            "         [--shape-tier K] [--timeout MS] [--config TEXT] [--shard I/N]\n"
            "         [--no-progress] [--memory-limit MIB] [--cpu-limit S] [--resume]\n"
            "         [--sandbox auto|strict|off] [--env K=V ...] [--grant pocl|cuda ...]\n"
            "         [--jobs N] [--pin|--no-pin] [--no-probes] [--no-thread-counts]\n"
            "         [--cpu LIST]\n"
            "--cpu LIST: the CPUs each claim is judged under, every case under each:\n"
            "native, x86-64-v3 (haswell, avx2), x86-64-v2 (nehalem, sse4.2); the models\n"
            "run under QEMU's user-mode emulator (qemu-user-static). Default: native, and\n"
            "the level below this host's emulated on a sample (edge and shape-path cases)\n"
            "--shape-tier K: shape-path cases up to 2^K + 1 elements (default 24; 0: none)\n"
            "--shard I/N judges the selected claims k with k %% N == I (0 <= I < N): the N\n"
            "shards of one seed, merged with 'divergence db merge', equal the unsharded run\n"
            "--memory-limit MIB: address space the plugin's worker may add (default 8192,\n"
            "0: none); --cpu-limit S: CPU seconds per plugin call (default 300, 0: none)\n"
            "--sandbox: the plugin's isolation (docs/sandbox.md): auto (default) every\n"
            "layer the kernel allows, strict all of them or exit 2, off none (debugging);\n"
            "--env K=V: a variable for the plugin besides the allowlist (PATH, LANG, LC_*,\n"
            "TZ, LD_LIBRARY_PATH, OMP_*, MKL_*, DNNL_*, ...)\n"
            "--jobs N: the claims' cases on N jobs, a worker each (default: one per CPU\n"
            "this process may use); the certificates and ids are the same for any N;\n"
            "--pin / --no-pin: each job and its worker on one CPU (default: when the jobs\n"
            "are as many as the CPUs)\n"
            "--no-probes, --no-thread-counts: leave out the calling contexts of a sample\n"
            "of cases (two instances at once, in place) or the thread counts 1, 2, 3, CPUs+1\n"
            "of the largest (docs/contexts.md)\n"
            "--resume continues the latest incomplete run of this command line and plugin\n"
            "build in the database (claims already certified are kept); none: a new run\n"
            "exit: 0 every claim holds, 1 a claim does not, 2 usage or environment error,\n"
            "128 + the signal when SIGINT, SIGTERM or SIGHUP stopped it (the run is stored\n"
            "as 'interrupted'; stderr names the --resume command that continues it)\n");
    return 2;
}

int cmd_certify(int argc, char **argv)
{
    certify_options o;
    certify_options_default(&o);
    static const char *env[CLI_MAX_ENV];
    const cli_shared shared = {.seed = &o.seed, .shard_index = &o.shard_index,
                               .shard_count = &o.shard_count, .timeout_ms = &o.iso.timeout_ms,
                               .memory_limit = &o.iso.memory_limit,
                               .cpu_limit_s = &o.iso.cpu_limit_s, .profile = &o.profile,
                               .sandbox = &o.iso.sandbox,
                               .grants = &o.iso.grants, .env = env,
                               .shape_tier = &o.shape_tier, .n_env = &o.iso.n_env,
                               .cpus = o.cpus, .n_cpus = &o.n_cpus};
    _Static_assert(CLI_MAX_CPUS <= CERTIFY_MAX_CPUS, "--cpu fits certify's CPUs");
    o.iso.env = env;
    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--no-progress", &o.progress, 0),
        CLI_FLAG_SWITCH("--resume", &o.resume, 1),
        CLI_FLAG_SWITCH("--pin", &o.pin, 1),
        CLI_FLAG_SWITCH("--no-pin", &o.pin, 0),
        CLI_FLAG_SWITCH("--no-probes", &o.probes, 0),
        CLI_FLAG_SWITCH("--no-thread-counts", &o.thread_counts, 0),
        CLI_FLAG_U32("--jobs", &o.jobs, 1, 64),
        CLI_FLAG_TEXT("--plugin", &o.plugin_path),
        CLI_FLAG_TEXT("--db", &o.db_path),
        CLI_FLAG_TEXT("--cases", &o.cases_dir),
        CLI_FLAG_TEXT("--config", &o.config),
        CLI_FLAG_VARIANTS("--variant", o.only.variants, &o.only.n_variants, RUN_MAX_FILTERS),
        CLI_FLAG_DTYPES("--dtype", o.only.dtypes, &o.only.n_dtypes, RUN_MAX_FILTERS),
        CLI_FLAG_U32("--random", &o.random_cases, 0, 10000000),
        CLI_FLAG_U32("--max-elements", &o.max_elements, 1, 1u << 24),
        CLI_FLAG_END};
    const cli_command c = {.name = "certify", .usage = usage, .flags = flags, .shared = &shared};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    o.shape_paths = o.shape_tier > 0;
    if (!o.plugin_path) {
        fprintf(stderr, "divergence certify: --plugin PATH is required\n");
        return usage(stderr);
    }
    char *key, *resume;
    if (cli_run_key(argc, argv, &key, &resume)) {
        fprintf(stderr, "divergence certify: out of memory\n");
        return 2;
    }
    o.args = key;
    o.resume_command = resume;
    rc = certify_run(&o, stdout, stderr);
    dvg_free(resume);
    dvg_free(key);
    return rc;
}
