/* SPDX-License-Identifier: MIT */
/*
 * divergence onnx-tests DIR [--plugin PATH] [--config TEXT] [--timeout MS] [--verbose]
 *
 * Runs ONNX's backend node tests for Div (the test_div* directories of
 * Debian's libonnx-testdata, or any directory of that layout): the oracle
 * judges the shipped outputs, and the plugin, when given, runs each case in
 * a worker and is judged by the oracle and compared with the shipped
 * output. See harness/run/onnx_tests.h. Exit 0 when the plugin conforms on
 * every case it claims, 1 when it departs on one, 2 on errors.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/onnx_tests.h"

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
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h"))
            return usage(stdout);
        if (!strcmp(a, "--verbose")) {
            o.verbose = 1;
            continue;
        }
        if (a[0] != '-') {
            if (dir) {
                fprintf(stderr, "divergence onnx-tests: more than one DIR ('%s')\n", a);
                return usage(stderr);
            }
            dir = a;
            continue;
        }
        if (i + 1 >= argc) {
            static const char *const with_value[] = {"--plugin", "--config", "--timeout", NULL};
            cli_missing_value("onnx-tests", a, with_value);
            return usage(stderr);
        }
        const char *val = argv[++i];
        int taken = cli_parse_shared("onnx-tests", &shared, a, val);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        if (!strcmp(a, "--plugin"))
            o.plugin_path = val;
        else if (!strcmp(a, "--config"))
            o.config = val;
        else {
            fprintf(stderr, "divergence onnx-tests: unknown option '%s'\n", a);
            return usage(stderr);
        }
    }
    if (!dir) {
        fprintf(stderr, "divergence onnx-tests: DIR is required\n");
        return usage(stderr);
    }
    return onnxtests_run(dir, &o, stdout, stderr);
}
