/* SPDX-License-Identifier: MIT */
#include "harness/cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cli_parse_u64(const char *cmd, const char *flag, const char *text, uint64_t lo, uint64_t hi,
                  uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < lo || v > hi) {
        fprintf(stderr, "divergence %s: %s '%s': expected an integer in [%llu, %llu]\n", cmd, flag,
                text, (unsigned long long)lo, (unsigned long long)hi);
        return -1;
    }
    *out = v;
    return 0;
}

void cli_missing_value(const char *cmd, const char *flag, const char *const *with_value)
{
    for (; *with_value; with_value++)
        if (!strcmp(flag, *with_value)) {
            fprintf(stderr, "divergence %s: option needs a value: '%s'\n", cmd, flag);
            return;
        }
    fprintf(stderr, "divergence %s: unknown option '%s'\n", cmd, flag);
}
