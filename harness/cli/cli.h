/* SPDX-License-Identifier: MIT */
/*
 * harness/cli/cli.h: what the subcommands share in reading their flags.
 */
#ifndef HARNESS_CLI_H
#define HARNESS_CLI_H

#include <stdint.h>

/* *out = the decimal integer `text` of flag `flag` when it lies in
 * [lo, hi]: 0. Otherwise prints "divergence CMD: FLAG 'TEXT': expected an
 * integer in [LO, HI]" on stderr and returns -1 (a sign, a suffix, an
 * empty text and an overflow are refused). */
int cli_parse_u64(const char *cmd, const char *flag, const char *text, uint64_t lo, uint64_t hi,
                  uint64_t *out);

/* The sandbox flags of certify, fuzz and sweep: `--sandbox auto|strict|off`
 * into *mode (WORKER_SANDBOX_*), `--env K=V` appended to env (*n_env of
 * CLI_MAX_ENV). Returns 0 when `flag` was one of them and its value good,
 * 1 when `flag` is another, -1 after printing why `val` is refused. */
#define CLI_MAX_ENV 64
int cli_sandbox_flag(const char *cmd, const char *flag, const char *val, int32_t *mode,
                     const char **env, uint32_t *n_env);

#endif /* HARNESS_CLI_H */
