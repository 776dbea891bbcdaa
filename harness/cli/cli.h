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

/* For flag `flag` given last, without the value it would need: prints
 * "divergence CMD: option needs a value: 'FLAG'" on stderr when it is one
 * of `with_value` (a NULL-terminated list: the command's options that
 * take a value), else "divergence CMD: unknown option 'FLAG'". */
void cli_missing_value(const char *cmd, const char *flag, const char *const *with_value);

#endif /* HARNESS_CLI_H */
