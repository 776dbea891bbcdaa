/* SPDX-License-Identifier: MIT */
/*
 * harness/cli/cli.h: what the subcommands share in reading their flags.
 * One parser, cli_parse, reads every command's argv against the
 * command's table of flags (cli_flag, cli_command): --help, switches,
 * values, lists, operands, and one message for each mistake. The shared
 * flags have one parser each, so that every command accepts and refuses
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
 *   --grant NAME        a grant of the worker's sandbox (harness/sandbox/grant.h:
 *                       pocl, cuda), repeatable
 *   --cpu LIST          CPU models, comma-separated (harness/base/cpumodel.h:
 *                       native, x86-64-v3, x86-64-v2 and their aliases)
 * and the resume key a run records (cli_run_key), with the command that
 * continues a stopped run.
 */
#ifndef HARNESS_CLI_H
#define HARNESS_CLI_H

#include <stddef.h>
#include <stdio.h>
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
    uint32_t *grants;                    /* --grant NAME: WORKER_GRANT_* bits OR'ed */
    uint8_t *cpus;                       /* --cpu LIST: cpumodel.h indices, in */
    uint32_t *n_cpus;                    /* order, each once (both or neither) */
} cli_shared;

/* The most CPU models one --cpu names. */
#define CLI_MAX_CPUS 8

/* --cpu LIST: the models named (cpum_find), each once, in their order,
 * into cpus[0..*n) (CLI_MAX_CPUS room): 0. An unknown name prints
 * "divergence CMD: --cpu 'LIST': unknown CPU 'NAME' (known: ...)" and
 * returns -1. */
int cli_parse_cpus(const char *cmd, const char *text, uint8_t *cpus, uint32_t *n);

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
 * The resume key of a run (harness/run/engine/resume.h), recorded as its command
 * line (runs.args): "divergence", then argv (argv[0] the command's name,
 * as the commands receive it) without the words that change only speed or
 * display (resume_flag_kind: --resume, --no-progress, --pin, --no-pin,
 * --jobs N), each word after a space, a word with characters other than
 * letters, digits and "_-./:=,+@%" (or an empty one) in single quotes as a
 * POSIX shell reads it. Sized to fit: never truncated. With `resume` not
 * NULL, *resume is the command that continues the run when a signal stops
 * it: "divergence" and every word of argv, quoted alike, then "--resume"
 * unless argv has it. On success *key (and *resume) are NUL-terminated
 * texts, the caller's to dvg_free, and 0 is returned; -1 when out of
 * memory (both unchanged).
 */
int cli_run_key(int argc, char **argv, char **key, char **resume);

/*
 * One flag parser for every command: each command describes its flags in
 * a table of cli_flag rows (terminated by a row with a NULL name) and
 * cli_parse reads argv against it.
 *
 * The kinds of flag, and what `dest` (and `count`) point at:
 *   CLI_SWITCH    no value; *(int *)dest = set
 *   CLI_TEXT      *(const char **)dest = the value (last one wins)
 *   CLI_TEXTS     repeatable: ((const char **)dest)[(*count)++] = the value,
 *                 at most `max` ("divergence CMD: at most MAX FLAG")
 *   CLI_U32       *(uint32_t *)dest = a decimal integer in [lo, hi]
 *   CLI_U64       *(uint64_t *)dest = a decimal integer in [lo, hi]
 *   CLI_SECONDS   *(double *)dest = a decimal integer in [lo, hi]
 *                 (the three through cli_parse_u64 and its message)
 *   CLI_VARIANT   *(uint32_t *)dest = the id of the variant named
 *                 (oracle_variant_by_name; last one wins)
 *   CLI_VARIANTS  repeatable: ((uint32_t *)dest)[(*count)++] = the id, at
 *                 most `max`
 *   CLI_DTYPE     *(uint32_t *)dest = the dtype of the tag
 *                 (oracle_dtype_by_tag; last one wins)
 *   CLI_DTYPES    repeatable: ((uint32_t *)dest)[(*count)++] = the dtype,
 *                 at most `max`
 *   CLI_CALL      call(cmd, flag, value, dest): 0 taken, -1 refused (the
 *                 call printed why on stderr)
 * An unknown variant or dtype prints "divergence CMD: unknown variant
 * 'V'" ("unknown dtype 'T'"). Values are borrowed from argv: they live as
 * long as argv does. A refused value exits 2 without the usage.
 */
typedef enum cli_kind {
    CLI_SWITCH,
    CLI_TEXT,
    CLI_TEXTS,
    CLI_U32,
    CLI_U64,
    CLI_SECONDS,
    CLI_VARIANT,
    CLI_VARIANTS,
    CLI_DTYPE,
    CLI_DTYPES,
    CLI_CALL
} cli_kind;

typedef struct cli_flag {
    const char *name; /* "--plugin", "-o" */
    cli_kind kind;
    void *dest;       /* where the value goes (above); owned by the caller */
    uint32_t *count;  /* the lists: entries in dest so far */
    uint64_t lo, hi;  /* CLI_U32, CLI_U64, CLI_SECONDS: the range; the lists: hi = max entries */
    int set;          /* CLI_SWITCH: the value stored */
    int (*call)(const char *cmd, const char *flag, const char *val, void *dest); /* CLI_CALL */
} cli_flag;

/* The table's rows, one macro per kind. */
#define CLI_FLAG_SWITCH(n, d, v) {(n), CLI_SWITCH, (d), NULL, 0, 0, (v), NULL}
#define CLI_FLAG_TEXT(n, d) {(n), CLI_TEXT, (void *)(d), NULL, 0, 0, 0, NULL}
#define CLI_FLAG_TEXTS(n, d, c, max) {(n), CLI_TEXTS, (void *)(d), (c), 0, (max), 0, NULL}
#define CLI_FLAG_U32(n, d, l, h) {(n), CLI_U32, (d), NULL, (l), (h), 0, NULL}
#define CLI_FLAG_U64(n, d, l, h) {(n), CLI_U64, (d), NULL, (l), (h), 0, NULL}
#define CLI_FLAG_SECONDS(n, d, l, h) {(n), CLI_SECONDS, (d), NULL, (l), (h), 0, NULL}
#define CLI_FLAG_VARIANT(n, d) {(n), CLI_VARIANT, (d), NULL, 0, 0, 0, NULL}
#define CLI_FLAG_VARIANTS(n, d, c, max) {(n), CLI_VARIANTS, (d), (c), 0, (max), 0, NULL}
#define CLI_FLAG_DTYPE(n, d) {(n), CLI_DTYPE, (d), NULL, 0, 0, 0, NULL}
#define CLI_FLAG_DTYPES(n, d, c, max) {(n), CLI_DTYPES, (d), (c), 0, (max), 0, NULL}
#define CLI_FLAG_CALL(n, f, d) {(n), CLI_CALL, (d), NULL, 0, 0, 0, (f)}
#define CLI_FLAG_END {NULL, CLI_SWITCH, NULL, NULL, 0, 0, 0, NULL}

/* cli_command.mode bits. */
#define CLI_HELP_ANYWHERE 1u /* --help or -h anywhere in argv, even as a value, prints the usage */
#define CLI_OPERANDS 2u      /* a word no flag names is an operand even when it starts with
                                '-' (a negative number), and every word after "--" is one */

/* What one command accepts. Owned by the caller, read during cli_parse. */
typedef struct cli_command {
    const char *name;          /* in messages: "divergence NAME: ..." */
    int (*usage)(FILE *to);    /* prints the usage on `to` (its return value is ignored) */
    const cli_flag *flags;     /* the command's own flags; NULL: none */
    const cli_shared *shared;  /* its shared flags (cli_parse_shared); NULL: none */
    char **operands;           /* the words that are no flag, in order; NULL: none taken */
    uint32_t max_operands;     /* room in operands */
    uint32_t *n_operands;      /* set to the count (with operands) */
    const char *unknown;       /* how a word that is no flag is called; NULL: "unknown option" */
    unsigned mode;             /* CLI_HELP_ANYWHERE, CLI_OPERANDS */
} cli_command;

/* cli_parse's answers besides 0 (parsed: the command goes on). */
#define CLI_HELP 1  /* --help or -h: the usage was printed on stdout; exit 0 */
#define CLI_ERROR 2 /* a message (and for a usage mistake the usage) on stderr; exit 2 */
/* The exit status of a cli_parse answer other than 0. */
#define CLI_EXIT(rc) ((rc) == CLI_HELP ? 0 : 2)

/*
 * Reads argv[1 .. argc-1] (argv[0], the command's name, is skipped) as
 * command `c` describes:
 *  - "--help" or "-h" where a flag may stand (anywhere with
 *    CLI_HELP_ANYWHERE): c->usage(stdout), CLI_HELP;
 *  - a flag of c->flags or one of the shared flags c->shared gives a place
 *    for: its value (the next word, whatever it is) stored; none left:
 *    "divergence CMD: option needs a value: 'FLAG'";
 *  - another word starting with '-' (not with CLI_OPERANDS):
 *    "divergence CMD: UNKNOWN 'WORD'" (UNKNOWN: c->unknown);
 *  - any other word: an operand, appended to c->operands; past
 *    c->max_operands (or where the command takes none): "divergence CMD:
 *    unexpected argument 'WORD'".
 * Stops at the first mistake: a usage mistake (the three messages above)
 * also prints c->usage(stderr); a refused value prints only its message.
 * Returns 0 (every value stored), CLI_HELP or CLI_ERROR; the values
 * stored before a mistake stay stored.
 */
int cli_parse(const cli_command *c, int argc, char **argv);

#endif /* HARNESS_CLI_H */
