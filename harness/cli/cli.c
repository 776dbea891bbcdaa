/* SPDX-License-Identifier: MIT */
/*
 * This file contains the one flag parser of the subcommands
 * (harness/cli/cli.h): cli_parse reads argv against a command's table of
 * flags (switches, texts, lists, integers in a range, variants, dtypes),
 * the shared flags (decimal integers in a range, --shard I/N, the seed,
 * limits, profile, sandbox, --env and --grant), the operands and --help; and the
 * resume key a run records.
 */
#include "harness/cases/shapes.h"
#include "harness/cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/base/cpumodel.h"
#include "harness/run/engine/resume.h"
#include "harness/sandbox/sandbox.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

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

/* --grant NAME: its WORKER_GRANT_* bit added to *grants. 0 or -1. */
static int parse_grant(const char *cmd, const char *val, uint32_t *grants)
{
    uint32_t bit;
    if (worker_grant_by_name(val, &bit) != 0) {
        fprintf(stderr, "divergence %s: --grant '%s': expected one of %s\n", cmd, val,
                worker_grant_names());
        return -1;
    }
    *grants |= bit;
    return 0;
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

/* The shared flags, each with its name (shared_names). */
enum {
    SH_SEED,
    SH_SHARD,
    SH_TIMEOUT,
    SH_CPU_LIMIT,
    SH_MEMORY_LIMIT,
    SH_PROFILE,
    SH_SHAPE_TIER,
    SH_SANDBOX,
    SH_ENV,
    SH_GRANT,
    SH_CPUS,
    SH_COUNT
};

static const char *const shared_names[SH_COUNT] = {
    "--seed", "--shard", "--timeout", "--cpu-limit", "--memory-limit",
    "--profile", "--shape-tier", "--sandbox", "--env", "--grant", "--cpu"};

/* 1 when s gives shared flag k a place. */
static int shared_has(const cli_shared *s, int k)
{
    switch (k) {
    case SH_SEED:
        return s->seed != NULL;
    case SH_SHARD:
        return s->shard_index && s->shard_count;
    case SH_TIMEOUT:
        return s->timeout_ms != NULL;
    case SH_CPU_LIMIT:
        return s->cpu_limit_s != NULL;
    case SH_MEMORY_LIMIT:
        return s->memory_limit != NULL;
    case SH_PROFILE:
        return s->profile != NULL;
    case SH_SHAPE_TIER:
        return s->shape_tier != NULL;
    case SH_SANDBOX:
        return s->sandbox != NULL;
    case SH_GRANT:
        return s->grants != NULL;
    case SH_CPUS:
        return s->cpus && s->n_cpus;
    default:
        return s->env && s->n_env;
    }
}

/* The shared flag named `flag` that s gives a place, or -1. */
static int shared_find(const cli_shared *s, const char *flag)
{
    for (int k = 0; s && k < SH_COUNT; k++)
        if (!strcmp(flag, shared_names[k]) && shared_has(s, k))
            return k;
    return -1;
}

/* Stores `val` of shared flag k. 0 or -1 (a message printed). */
static int shared_store(const char *cmd, const cli_shared *s, int k, const char *flag,
                        const char *val)
{
    switch (k) {
    case SH_SEED:
        return cli_parse_u64(cmd, flag, val, 0, UINT64_MAX, s->seed);
    case SH_SHARD:
        return cli_parse_shard(cmd, val, s->shard_index, s->shard_count);
    case SH_TIMEOUT:
        return parse_u32(cmd, flag, val, 1, 3600000, s->timeout_ms);
    case SH_CPU_LIMIT:
        return parse_u32(cmd, flag, val, 0, 86400, s->cpu_limit_s);
    case SH_MEMORY_LIMIT: {
        uint64_t mib;
        if (cli_parse_u64(cmd, flag, val, 0, UINT64_C(1) << 30, &mib))
            return -1;
        *s->memory_limit = mib << 20;
        return 0;
    }
    case SH_PROFILE: {
        char why[160];
        if (!verdict_profile_parse(val, s->profile, why, sizeof why))
            return 0;
        fprintf(stderr, "divergence %s: %s\n", cmd, why);
        return -1;
    }
    case SH_SHAPE_TIER:
        return parse_u32(cmd, flag, val, 0, SHAPES_MAX_TIER, s->shape_tier);
    case SH_SANDBOX:
        return parse_sandbox(cmd, val, s->sandbox);
    case SH_GRANT:
        return parse_grant(cmd, val, s->grants);
    case SH_CPUS:
        return cli_parse_cpus(cmd, val, s->cpus, s->n_cpus);
    default:
        return parse_env(cmd, val, s->env, s->n_env);
    }
}

int cli_parse_cpus(const char *cmd, const char *text, uint8_t *cpus, uint32_t *n)
{
    uint32_t got = 0;
    const char *p = text;
    for (;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[32];
        int k = -1;
        if (len < sizeof name) {
            memcpy(name, p, len);
            name[len] = '\0';
            k = cpum_find(name);
        }
        if (k < 0) {
            fprintf(stderr, "divergence %s: --cpu '%s': unknown CPU '%.*s' (known:", cmd, text,
                    (int)(len < 64 ? len : 64), p);
            for (int i = 0; i < cpum_count(); i++)
                fprintf(stderr, "%s %s%s%s%s", i ? "," : "", cpum_get(i)->name,
                        cpum_get(i)->aliases[0] ? " (" : "", cpum_get(i)->aliases,
                        cpum_get(i)->aliases[0] ? ")" : "");
            fprintf(stderr, ")\n");
            return -1;
        }
        int seen = 0;
        for (uint32_t i = 0; i < got; i++)
            seen |= cpus[i] == (uint8_t)k;
        if (!seen && got < CLI_MAX_CPUS)
            cpus[got++] = (uint8_t)k;
        if (!end)
            break;
        p = end + 1;
    }
    *n = got;
    return 0;
}

int cli_parse_shared(const char *cmd, const cli_shared *s, const char *flag, const char *val)
{
    int k = shared_find(s, flag);
    if (k < 0)
        return 0;
    return shared_store(cmd, s, k, flag, val) ? -1 : 1;
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

/* "divergence" and the words of argv, each after a space and quoted as
 * put_word does: with `judged_only` only those resume_flag_kind says
 * change what is judged; then `tail` (a word, or NULL). Sized to fit:
 * 0 with *out the caller's to dvg_free, or -1 when out of memory. */
static int join_words(int argc, char **argv, int judged_only, const char *tail, char **out)
{
    char *buf = NULL;
    for (int pass = 0; pass < 2; pass++) {
        size_t at = 0;
        put(buf, &at, "divergence", strlen("divergence"));
        for (int i = 0; i < argc; i++) {
            int kind = resume_flag_kind(argv[i], strlen(argv[i]));
            if (judged_only && kind == RESUME_FLAG_SPEED_VALUE && i + 1 < argc)
                i++; /* and its value */
            else if (!judged_only || kind == RESUME_FLAG_JUDGED || i == 0)
                put_word(buf, &at, argv[i]);
        }
        if (tail)
            put_word(buf, &at, tail);
        if (buf) {
            buf[at] = '\0';
            *out = buf;
            return 0;
        }
        if (!(buf = dvg_malloc(at + 1)))
            return -1;
    }
    return -1; /* not reached */
}

int cli_run_key(int argc, char **argv, char **key, char **resume)
{
    int has = 0;
    for (int i = 1; i < argc; i++)
        has |= !strcmp(argv[i], "--resume");
    if (join_words(argc, argv, 1, NULL, key))
        return -1;
    if (resume && join_words(argc, argv, 0, has ? NULL : "--resume", resume)) {
        dvg_free(*key);
        return -1;
    }
    return 0;
}

/* The row of c's own flags named `name`, or NULL. */
static const cli_flag *flag_find(const cli_command *c, const char *name)
{
    for (const cli_flag *f = c->flags; f && f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

/* Appends one entry to list row f: 0, or -1 when it is full. */
static int list_room(const char *cmd, const cli_flag *f)
{
    if (*f->count < f->hi)
        return 0;
    fprintf(stderr, "divergence %s: at most %llu %s\n", cmd, (unsigned long long)f->hi, f->name);
    return -1;
}

/* Stores the id of a variant or dtype named by row f: the one value
 * (`single`) or the next entry of its list. 0, or -1 (a message printed). */
static int store_id(const char *cmd, const cli_flag *f, uint32_t id, int single)
{
    if (single) {
        *(uint32_t *)f->dest = id;
        return 0;
    }
    if (list_room(cmd, f))
        return -1;
    ((uint32_t *)f->dest)[(*f->count)++] = id;
    return 0;
}

/* Stores `val` of row f. 0, or -1 (a message printed). */
static int flag_store(const char *cmd, const cli_flag *f, const char *val)
{
    uint64_t n;
    switch (f->kind) {
    case CLI_SWITCH:
        *(int *)f->dest = f->set;
        return 0;
    case CLI_TEXT:
        *(const char **)f->dest = val;
        return 0;
    case CLI_TEXTS:
        if (list_room(cmd, f))
            return -1;
        ((const char **)f->dest)[(*f->count)++] = val;
        return 0;
    case CLI_U32:
    case CLI_U64:
    case CLI_SECONDS:
        if (cli_parse_u64(cmd, f->name, val, f->lo, f->hi, &n))
            return -1;
        if (f->kind == CLI_U32)
            *(uint32_t *)f->dest = (uint32_t)n;
        else if (f->kind == CLI_U64)
            *(uint64_t *)f->dest = n;
        else
            *(double *)f->dest = (double)n;
        return 0;
    case CLI_VARIANT:
    case CLI_VARIANTS: {
        const oracle_variant *v = oracle_variant_by_name(val);
        if (!v) {
            fprintf(stderr, "divergence %s: unknown variant '%s'\n", cmd, val);
            return -1;
        }
        return store_id(cmd, f, v->id, f->kind == CLI_VARIANT);
    }
    case CLI_DTYPE:
    case CLI_DTYPES: {
        uint32_t d = oracle_dtype_by_tag(val);
        if (!d) {
            fprintf(stderr, "divergence %s: unknown dtype '%s'\n", cmd, val);
            return -1;
        }
        return store_id(cmd, f, d, f->kind == CLI_DTYPE);
    }
    default:
        return f->call(cmd, f->name, val, f->dest);
    }
}

/* 1 when word a asks for the usage. */
static int is_help(const char *a)
{
    return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int cli_parse(const cli_command *c, int argc, char **argv)
{
    const char *cmd = c->name;
    int operands_only = 0, rc = 0;
    if (c->n_operands)
        *c->n_operands = 0;
    for (int i = 1; i < argc && (c->mode & CLI_HELP_ANYWHERE); i++)
        if (is_help(argv[i]))
            goto help;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const cli_flag *f = operands_only ? NULL : flag_find(c, a);
        int k = operands_only || f ? -1 : shared_find(c->shared, a);
        if (!operands_only && !f && k < 0) {
            if (is_help(a))
                goto help;
            if ((c->mode & CLI_OPERANDS) && !strcmp(a, "--")) {
                operands_only = 1;
                continue;
            }
            if (a[0] == '-' && !(c->mode & CLI_OPERANDS)) {
                fprintf(stderr, "divergence %s: %s '%s'\n", cmd,
                        c->unknown ? c->unknown : "unknown option", a);
                goto usage_error;
            }
        }
        if (!f && k < 0) { /* an operand */
            if (!c->operands || *c->n_operands == c->max_operands) {
                fprintf(stderr, "divergence %s: unexpected argument '%s'\n", cmd, a);
                goto usage_error;
            }
            c->operands[(*c->n_operands)++] = argv[i];
            continue;
        }
        if (f && f->kind == CLI_SWITCH) {
            *(int *)f->dest = f->set;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "divergence %s: option needs a value: '%s'\n", cmd, a);
            goto usage_error;
        }
        const char *val = argv[++i];
        if (f ? flag_store(cmd, f, val) : shared_store(cmd, c->shared, k, a, val)) {
            rc = CLI_ERROR; /* the value's message said why: no usage */
            goto done;
        }
    }
    goto done;
help:
    c->usage(stdout);
    rc = CLI_HELP;
    goto done;
usage_error:
    c->usage(stderr);
    rc = CLI_ERROR;
done:
    return rc;
}
