/* SPDX-License-Identifier: MIT */
/* divergence: the command-line entry point. Dispatches to the commands of
 * harness/cli/commands.h, one harness/cli/cmd_*.c each (cmd_certify.c,
 * cmd_diff.c, ...), which read their flags with cli_parse and call into
 * harness/run/ (the run engine and the commands on it), harness/store/ and
 * reports/. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/interrupt.h"
#include "harness/cli/commands.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"certify", cmd_certify, "certify a plugin against every variant and dtype it claims"},
    {"diff", cmd_diff, "the same cases through several plugins: where conformant kernels still disagree"},
    {"plugins", cmd_plugins, "load plugins in a worker and show their descriptors"},
    {"sweep", cmd_sweep, "every operand pair of a small dtype (f32/f64: the edge table and random pairs), in batches, judged against the oracle"},
    {"fuzz", cmd_fuzz, "fuzzing campaign: generated and mutated cases on every core, findings minimised into the store"},
    {"import", cmd_import, "bring libFuzzer / AFL++ finding files into the store"},
    {"replay", cmd_replay, "re-run one recorded reproducer and show expected vs actual"},
    {"bisect", cmd_bisect, "regression and fixed ranges of signatures: their reproducers replayed on builds chosen by bisection"},
    {"report", cmd_report, "HTML, JUnit XML, Markdown or JSON report of a run"},
    {"query", cmd_query, "runs, new, fixed, history, regressions, diff: questions to the store"},
    {"db", cmd_db, "merge databases (shards), check them, migrate them"},
    {"explain", cmd_explain, "expected result of one division, with its rule and spec sentence"},
    {"oracle", cmd_oracle, "expected results of hex operand pairs read from stdin"},
    {"cases", cmd_cases, "list the conformance cases, their requirement matrix, or --check them"},
    {"onnx-tests", cmd_onnx_tests, "run ONNX's backend Div tests (test_div*) on a plugin, judged by the oracle"},
};

static void usage(FILE *to)
{
    fprintf(to, "usage: divergence <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(to, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(to, "\n'divergence <command> --help' describes one command.\n");
}

int main(int argc, char **argv)
{
    /* Past RLIMIT_FSIZE (ulimit -f) a write fails with EFBIG instead of
     * killing the process silently: the store reports the error and the
     * run is marked incomplete. The workers put every signal back to its
     * default before loading a plugin. */
    signal(SIGXFSZ, SIG_IGN);
    /* SIGINT, SIGTERM, SIGHUP stop a run cleanly: what it holds is
     * stored and the run marked 'interrupted' (interrupt.h). */
    interrupt_install();
    /* stdout to a file or a pipe goes out a line at a time, as stderr
     * (unbuffered) does: a process stopped at any moment, even by
     * SIGKILL, never leaves a line cut in the middle. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("divergence %s\n", DVG_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "divergence: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
