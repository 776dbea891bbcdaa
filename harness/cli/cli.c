/* SPDX-License-Identifier: MIT */
/*
 * This file contains the flag parsing that the subcommands share
 * (harness/cli/cli.h): decimal integers in a range, --shard I/N, the
 * seed, limits, profile and sandbox flags, and the resume key a run
 * records.
 */
#include "harness/cases/shapes.h"
#include "harness/cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/run/resume.h"
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

int cli_parse_shard(const char *cmd, const char *text, uint32_t *index, uint32_t *count)
{
    unsigned idx, cnt;
    char tail;
    if (sscanf(text, "%u/%u%c", &idx, &cnt, &tail) != 2 || cnt < 1 || cnt > 1000000 ||
        idx >= cnt || strchr(text, '-')) {
        fprintf(stderr, "divergence %s: --shard '%s': expected I/N with 0 <= I < N\n", cmd, text);
        return -1;
    }
    *index = idx;
    *count = cnt;
    return 0;
}

/* *out = the value of a uint32_t flag in [lo, hi]. 0 or -1. */
static int parse_u32(const char *cmd, const char *flag, const char *val, uint64_t lo,
                     uint64_t hi, uint32_t *out)
{
    uint64_t n;
    if (cli_parse_u64(cmd, flag, val, lo, hi, &n))
        return -1;
    *out = (uint32_t)n;
    return 0;
}

/* --sandbox: *mode = WORKER_SANDBOX_AUTO, _STRICT or _OFF. 0 or -1. */
static int parse_sandbox(const char *cmd, const char *val, int32_t *mode)
{
    static const struct {
        const char *name;
        int32_t mode;
    } modes[] = {{"auto", WORKER_SANDBOX_AUTO},
                 {"strict", WORKER_SANDBOX_STRICT},
                 {"off", WORKER_SANDBOX_OFF}};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(val, modes[i].name)) {
            *mode = modes[i].mode;
            return 0;
        }
    fprintf(stderr, "divergence %s: --sandbox '%s': expected auto, strict or off\n", cmd, val);
    return -1;
}

/* --env K=V: appended to env[*n_env] (the text borrowed). 0 or -1. */
static int parse_env(const char *cmd, const char *val, const char **env, uint32_t *n_env)
{
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

int cli_parse_shared(const char *cmd, const cli_shared *s, const char *flag, const char *val)
{
    int rc;
    if (s->seed && !strcmp(flag, "--seed"))
        rc = cli_parse_u64(cmd, flag, val, 0, UINT64_MAX, s->seed);
    else if (s->shard_index && s->shard_count && !strcmp(flag, "--shard"))
        rc = cli_parse_shard(cmd, val, s->shard_index, s->shard_count);
    else if (s->timeout_ms && !strcmp(flag, "--timeout"))
        rc = parse_u32(cmd, flag, val, 1, 3600000, s->timeout_ms);
    else if (s->cpu_limit_s && !strcmp(flag, "--cpu-limit"))
        rc = parse_u32(cmd, flag, val, 0, 86400, s->cpu_limit_s);
    else if (s->memory_limit && !strcmp(flag, "--memory-limit")) {
        uint64_t mib;
        rc = cli_parse_u64(cmd, flag, val, 0, UINT64_C(1) << 30, &mib);
        if (!rc)
            *s->memory_limit = mib << 20;
    } else if (s->profile && !strcmp(flag, "--profile")) {
        char why[160];
        rc = verdict_profile_parse(val, s->profile, why, sizeof why);
        if (rc)
            fprintf(stderr, "divergence %s: %s\n", cmd, why);
    } else if (s->shape_tier && !strcmp(flag, "--shape-tier"))
        rc = parse_u32(cmd, flag, val, 0, SHAPES_MAX_TIER, s->shape_tier);
    else if (s->sandbox && !strcmp(flag, "--sandbox"))
        rc = parse_sandbox(cmd, val, s->sandbox);
    else if (s->env && s->n_env && !strcmp(flag, "--env"))
        rc = parse_env(cmd, val, s->env, s->n_env);
    else
        return 0;
    return rc ? -1 : 1;
}

/* 1 when word w must be quoted to stay one word of a shell command line. */
static int needs_quotes(const char *w)
{
    if (!*w)
        return 1;
    for (; *w; w++) {
        unsigned char c = (unsigned char)*w;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              strchr("_-./:=,+@%", c)))
            return 1;
    }
    return 0;
}

/* Appends the n bytes at s at buf + *at, or only counts them when buf is
 * NULL. */
static void put(char *buf, size_t *at, const char *s, size_t n)
{
    if (buf)
        memcpy(buf + *at, s, n);
    *at += n;
}

/* Appends " WORD", quoted when it must be (a ' as '\''). */
static void put_word(char *buf, size_t *at, const char *w)
{
    int quote = needs_quotes(w);
    put(buf, at, " ", 1);
    if (quote)
        put(buf, at, "'", 1);
    for (const char *q = w; *q; q++) {
        if (quote && *q == '\'')
            put(buf, at, "'\\''", 4);
        else
            put(buf, at, q, 1);
    }
    if (quote)
        put(buf, at, "'", 1);
}

int cli_run_key(int argc, char **argv, char **key)
{
    char *buf = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        put(buf, &at, "divergence", strlen("divergence"));
        for (int i = 0; i < argc; i++) {
            int kind = resume_flag_kind(argv[i], strlen(argv[i]));
            if (kind == RESUME_FLAG_SPEED_VALUE && i + 1 < argc)
                i++; /* and its value */
            else if (kind == RESUME_FLAG_JUDGED || i == 0)
                put_word(buf, &at, argv[i]);
        }
        if (buf) {
            buf[at] = '\0';
            *key = buf;
            return 0;
        }
        if (!(buf = dvg_malloc(at + 1)))
            return -1;
    }
    return -1; /* not reached */
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
