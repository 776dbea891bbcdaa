/* SPDX-License-Identifier: MIT */
/*
 * harness/cli/cli.h: what the subcommands share in reading their flags.
 * One parser per shared flag, so that every command accepts and refuses
 * the same texts with the same message:
 *   --seed N            any 64-bit unsigned decimal integer
 *   --shard I/N         0 <= I < N <= 1000000, no sign
 *   --timeout MS        1 .. 3600000 milliseconds per plugin call
 *   --memory-limit MIB  0 .. 2^30 MiB the plugin's worker may add (0: none)
 *   --cpu-limit S       0 .. 86400 CPU seconds per plugin call (0: none)
 *   --shape-tier K      0 .. 24: shape-path cases up to 2^K + 1 elements
 *   --profile P         exact, ftz, daz, ftz+daz or ulp:N (verdict_profile_parse)
 *   --sandbox MODE      auto, strict or off (WORKER_SANDBOX_*)
 *   --env K=V           a variable for the plugin, K not empty (at most
 *                       CLI_MAX_ENV)
 * and the resume key a run records (cli_run_key).
 */
#ifndef HARNESS_CLI_H
#define HARNESS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include "harness/judge/verdict.h"

/* *out = the decimal integer `text` of flag `flag` when it lies in
 * [lo, hi]: 0. Otherwise prints "divergence CMD: FLAG 'TEXT': expected an
 * integer in [LO, HI]" on stderr and returns -1 (a sign, a suffix, an
 * empty text and an overflow are refused). */
int cli_parse_u64(const char *cmd, const char *flag, const char *text, uint64_t lo, uint64_t hi,
                  uint64_t *out);

/* --shard I/N: *index = I, *count = N when 0 <= I < N <= 1000000 and the
 * text holds no '-': 0. Otherwise prints "divergence CMD: --shard 'TEXT':
 * expected I/N with 0 <= I < N" on stderr and returns -1; nothing is
 * written. */
int cli_parse_shard(const char *cmd, const char *text, uint32_t *index, uint32_t *count);

/* Where a command keeps the values of the shared flags it has; a NULL
 * field: the command has no such flag. Owned by the caller. */
typedef struct cli_shared {
    uint64_t *seed;                      /* --seed N */
    uint32_t *shard_index, *shard_count; /* --shard I/N (both or neither) */
    uint32_t *timeout_ms;                /* --timeout MS */
    uint64_t *memory_limit;              /* --memory-limit MIB, stored in bytes */
    uint32_t *cpu_limit_s;               /* --cpu-limit S */
    verdict_profile *profile;            /* --profile P */
    int32_t *sandbox;                    /* --sandbox MODE (WORKER_SANDBOX_*) */
    uint32_t *shape_tier;                /* --shape-tier K, 0 .. SHAPES_MAX_TIER */
    const char **env;                    /* --env K=V: appended to env[*n_env], */
    uint32_t *n_env;                     /* CLI_MAX_ENV at most (both or neither) */
} cli_shared;

/* The most --env flags one command takes. */
#define CLI_MAX_ENV 64

/*
 * Reads `flag val` when flag is one of the shared flags that `s` gives a
 * place for. Returns 1 when it was (the value stored), 0 when flag is not
 * such a flag (nothing done: the command's own), -1 when the value is
 * malformed (a message naming the flag and the value printed on
 * stderr).
 */
int cli_parse_shared(const char *cmd, const cli_shared *s, const char *flag, const char *val);

/*
 * The resume key of a run (harness/run/resume.h), recorded as its command
 * line (runs.args): "divergence", then argv (argv[0] the command's name,
 * as the commands receive it) without the words that change only speed or
 * display (resume_flag_kind: --resume, --no-progress, --pin, --no-pin,
 * --jobs N), each word after a space, a word with characters other than
 * letters, digits and "_-./:=,+@%" (or an empty one) in single quotes as a
 * POSIX shell reads it. Sized to fit: never truncated. On success *key is
 * the NUL-terminated text, the caller's to dvg_free, and 0 is returned; -1
 * when out of memory (*key unchanged).
 */
int cli_run_key(int argc, char **argv, char **key);

/* For flag `flag` given last, without the value it would need: prints
 * "divergence CMD: option needs a value: 'FLAG'" on stderr when it is one
 * of `with_value` (a NULL-terminated list: the command's options that
 * take a value), else "divergence CMD: unknown option 'FLAG'". */
void cli_missing_value(const char *cmd, const char *flag, const char *const *with_value);

#endif /* HARNESS_CLI_H */
