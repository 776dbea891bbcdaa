/* SPDX-License-Identifier: MIT */
/*
 * harness/cli/target.h: the (variant, dtype, attributes) a command is aimed
 * at, read from `--variant V --dtype T [--attr k=v ...]`.
 */
#ifndef HARNESS_TARGET_H
#define HARNESS_TARGET_H

#include <stdio.h>
#include "oracle/rules.h"

typedef struct target {
    const oracle_variant *variant;
    uint32_t dtype;
    dvg_attrs attrs;
    oracle_rules rules;
} target;

/*
 * Consumes --variant, --dtype and --attr options from argv[1..argc-1] and
 * moves the remaining arguments, in order, to rest[0..*n_rest-1] (rest has
 * room for argc entries; it may be argv itself: argument i is read before
 * rest[i - 1] is written). Prints one clear message to `errors` and returns
 * 2 on a missing or unknown variant or dtype, a dtype outside the variant,
 * or a bad attribute; 0 on success with t->rules resolved.
 */
int target_parse(int argc, char **argv, target *t, char **rest, int *n_rest, FILE *errors);

#endif /* HARNESS_TARGET_H */
