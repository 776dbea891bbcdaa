/* SPDX-License-Identifier: MIT */
/*
 * harness/cli/commands.h: the subcommands of the `divergence` CLI. Each takes
 * the arguments after its own name (argv[0] is the command name) and
 * returns the process exit status: 0 success, 1 a claim or check failed,
 * 2 usage or environment error. Only main() exits.
 */
#ifndef HARNESS_COMMANDS_H
#define HARNESS_COMMANDS_H

int cmd_explain(int argc, char **argv);
int cmd_oracle(int argc, char **argv);
int cmd_cases(int argc, char **argv);
int cmd_certify(int argc, char **argv);
int cmd_diff(int argc, char **argv);      /* harness/cli/cmd_diff.c */
int cmd_plugins(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_bisect(int argc, char **argv); /* harness/cli/cmd_bisect.c */
int cmd_report(int argc, char **argv); /* harness/cli/cmd_report.c */
int cmd_query(int argc, char **argv);  /* harness/cli/cmd_query.c */
int cmd_db(int argc, char **argv);     /* harness/cli/cmd_db.c */
int cmd_fuzz(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_onnx_tests(int argc, char **argv);
int cmd_sweep(int argc, char **argv);     /* harness/cli/cmd_sweep.c */

#endif /* HARNESS_COMMANDS_H */
