/* SPDX-License-Identifier: MIT */
/*
 * harness/cli/target.h: the (variant, dtype, attributes) a command is aimed
 * at, read from `--variant V --dtype T [--attr k=v ...]` by cli_parse
 * (TARGET_FLAGS) and resolved by target_resolve.
 */
#ifndef HARNESS_TARGET_H
#define HARNESS_TARGET_H

#include <stdio.h>
#include "harness/cli/cli.h"
#include "oracle/rules.h"

typedef struct target {
    const oracle_variant *variant;
    uint32_t dtype;
    dvg_attrs attrs;
    oracle_rules rules;
} target;

/* The words of --variant V --dtype T [--attr k=v ...], as cli_parse
 * stores them (TARGET_FLAGS); borrowed from argv. */
#define TARGET_MAX_ATTRS 16
typedef struct target_flags {
    const char *variant, *dtype; /* NULL: not given */
    const char *attrs[TARGET_MAX_ATTRS];
    uint32_t n_attrs;
} target_flags;

/* The three rows of a cli_flag table that fill target_flags *tf. */
#define TARGET_FLAGS(tf)                                                                    \
    CLI_FLAG_TEXT("--variant", &(tf)->variant), CLI_FLAG_TEXT("--dtype", &(tf)->dtype),      \
        CLI_FLAG_TEXTS("--attr", (tf)->attrs, &(tf)->n_attrs, TARGET_MAX_ATTRS)

/*
 * Resolves the words of tf through the oracle's tables into *t: the
 * variant, the dtype, the attributes over the variant's defaults, and the
 * rules. Prints one clear message "divergence CMD: ..." to `errors` (with
 * the variants or the variant's dtypes to choose from where it helps) and
 * returns 2 on a missing or unknown variant or dtype, a dtype outside the
 * variant, or a bad attribute; 0 on success with t->rules resolved.
 */
int target_resolve(const char *cmd, const target_flags *tf, target *t, FILE *errors);

#endif /* HARNESS_TARGET_H */
