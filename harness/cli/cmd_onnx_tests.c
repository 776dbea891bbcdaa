/* SPDX-License-Identifier: MIT */
/*
 * divergence onnx-tests DIR [--plugin PATH] [--config TEXT] [--timeout MS] [--verbose]
 *
 * Runs ONNX's backend node tests for Div (the test_div* directories of
 * Debian's libonnx-testdata, or any directory of that layout): the oracle
 * judges the shipped outputs, and the plugin, when given, runs each case in
 * a worker and is judged by the oracle and compared with the shipped
 * output. See harness/run/onnx/onnx_tests.h. Exit 0 when the plugin conforms on
 * every case it claims, 1 when it departs on one, 2 on errors.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/onnx/onnx_tests.h"

#define ONNX_TESTS_DEBIAN_DIR "/usr/share/libonnx-testdata/data/node"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence onnx-tests DIR [--plugin PATH] [--config TEXT] [--timeout MS]\n"
            "         [--verbose]\n"
            "DIR is one test_div* directory (model.onnx, test_data_set_*/input_N.pb,\n"
            "output_N.pb) or a folder of them, e.g. " ONNX_TESTS_DEBIAN_DIR "\n"
            "(Debian's libonnx-testdata). Without --plugin only the shipped outputs are\n"
            "judged by the oracle.\n"
            "exit: 0 the plugin conforms on every case it claims, 1 it departs on one,\n"
            "2 usage or environment error\n");
    return to == stdout ? 0 : 2;
}

int cmd_onnx_tests(int argc, char **argv)
{
    onnxtests_options o;
    const char *dir = NULL;
    memset(&o, 0, sizeof o);
    const cli_shared shared = {.timeout_ms = &o.timeout_ms};
    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--verbose", &o.verbose, 1),
        CLI_FLAG_TEXT("--plugin", &o.plugin_path),
        CLI_FLAG_TEXT("--config", &o.config),
        CLI_FLAG_END};
    char *operands[1];
    uint32_t n_operands;
    const cli_command c = {.name = "onnx-tests", .usage = usage, .flags = flags,
                           .shared = &shared, .operands = operands, .max_operands = 1,
                           .n_operands = &n_operands};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    if (n_operands)
        dir = operands[0];
    if (!dir) {
        fprintf(stderr, "divergence onnx-tests: DIR is required\n");
        return usage(stderr);
    }
    return onnxtests_run(dir, &o, stdout, stderr);
}
