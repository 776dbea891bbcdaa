/* SPDX-License-Identifier: MIT */
#include "harness/cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

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
