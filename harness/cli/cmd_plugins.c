/* SPDX-License-Identifier: MIT */
/*
 * divergence plugins [--grant NAME ...] PATH...
 *
 * Loads each plugin in a worker (with the grants named: harness/sandbox/
 * grant.h), validates its descriptor and shows it (harness/run/inspect/
 * inspect.h): name, version, ABI, claims, declared deviations, the
 * sandbox. Exit 0 when every plugin
 * loads, 2 when one does not (with the reason); a plugin whose open()
 * failed (a missing device) still has its descriptor shown before the
 * reason.
 */
#include <stdio.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/inspect/inspect.h"

static int usage(FILE *to)
{
    fprintf(to, "usage: divergence plugins [--grant pocl|cuda ...] [--timeout MS] PATH...\n");
    return 2;
}

int cmd_plugins(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    /* Every word a PATH (even one starting with '-'), stored over itself. */
    uint32_t n_paths, grants = 0, timeout_ms = 0;
    const cli_shared shared = {.grants = &grants, .timeout_ms = &timeout_ms};
    const cli_command c = {.name = "plugins", .usage = usage, .shared = &shared,
                           .operands = argv + 1, .max_operands = (uint32_t)argc - 1,
                           .n_operands = &n_paths, .mode = CLI_OPERANDS};
    int prc = cli_parse(&c, argc, argv);
    if (prc)
        return CLI_EXIT(prc);
    int status = 0;
    for (int i = 1; i <= (int)n_paths; i++)
        if (inspect_plugin(argv[i], grants, timeout_ms, stdout, stderr))
            status = 2;
    return status;
}
