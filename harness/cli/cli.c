/* SPDX-License-Identifier: MIT */
#include "harness/cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/worker/worker.h"

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

int cli_sandbox_flag(const char *cmd, const char *flag, const char *val, int32_t *mode,
                     const char **env, uint32_t *n_env)
{
    if (!strcmp(flag, "--sandbox")) {
        static const char *const names[] = {"auto", "strict", "off"};
        for (int32_t i = 0; i < 3; i++)
            if (!strcmp(val, names[i])) {
                *mode = i; /* WORKER_SANDBOX_AUTO, _STRICT, _OFF */
                return 0;
            }
        fprintf(stderr, "divergence %s: --sandbox '%s': expected auto, strict or off\n", cmd, val);
        return -1;
    }
    if (strcmp(flag, "--env"))
        return 1;
    const char *eq = strchr(val, '=');
    if (!eq || eq == val) {
        fprintf(stderr, "divergence %s: --env '%s': expected NAME=VALUE\n", cmd, val);
        return -1;
    }
    if (*n_env >= CLI_MAX_ENV) {
        fprintf(stderr, "divergence %s: --env: at most %d\n", cmd, CLI_MAX_ENV);
        return -1;
    }
    env[(*n_env)++] = val;
    return 0;
}
