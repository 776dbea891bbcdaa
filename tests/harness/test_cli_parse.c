/* SPDX-License-Identifier: MIT */
/*
 * This file contains the tests of cli_parse, the one flag parser of the
 * commands (harness/cli/cli.h): every kind of cli_flag row stores its
 * value, the shared flags go through cli_parse_shared's rules, and each
 * mistake gets its one message (unknown option, option needs a value,
 * unexpected argument, at most N, unknown variant or dtype), with the
 * usage after a usage mistake and not after a refused value; --help,
 * CLI_HELP_ANYWHERE, operands and CLI_OPERANDS ("-7" and "--").
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "harness/cli/cli.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static FILE *usage_to; /* where the last usage went; NULL: none */

static int usage(FILE *to)
{
    usage_to = to;
    return 2;
}

/* The values a parse stores. */
typedef struct values {
    int sw, other;
    const char *text, *texts[2];
    uint32_t n_texts, u32, variant, variants[2], n_variants, dtype, dtypes[2], n_dtypes;
    uint64_t u64, seed;
    double seconds;
    const char *called;
    char *operands[2];
    uint32_t n_operands;
} values;

static int call(const char *cmd, const char *flag, const char *val, void *dest)
{
    (void)cmd;
    (void)flag;
    if (!strcmp(val, "no")) {
        fprintf(stderr, "call refused '%s'\n", val);
        return -1;
    }
    *(const char **)dest = val;
    return 0;
}

static char err[4096]; /* what the last parse printed on stderr */

/* Parses the NULL-terminated words (after the command name "t") with the
 * test table, its operand room `room` and `mode`, `unknown` the word for an
 * unknown option; stderr into err. Returns cli_parse's answer. */
static int parse(values *v, uint32_t room, unsigned mode, const char *unknown,
                 char *const *words)
{
    char *argv[32];
    int argc = 0;
    argv[argc++] = "t";
    for (; *words; words++)
        argv[argc++] = *words;
    memset(v, 0, sizeof *v);
    const cli_shared shared = {.seed = &v->seed};
    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--sw", &v->sw, 7),
        CLI_FLAG_TEXT("--text", &v->text),
        CLI_FLAG_TEXTS("--texts", v->texts, &v->n_texts, 2),
        CLI_FLAG_U32("--u32", &v->u32, 2, 9),
        CLI_FLAG_U64("--u64", &v->u64, 0, UINT64_MAX),
        CLI_FLAG_SECONDS("--seconds", &v->seconds, 0, 100),
        CLI_FLAG_VARIANT("--variant", &v->variant),
        CLI_FLAG_VARIANTS("--variants", v->variants, &v->n_variants, 2),
        CLI_FLAG_DTYPE("--dtype", &v->dtype),
        CLI_FLAG_DTYPES("--dtypes", v->dtypes, &v->n_dtypes, 2),
        CLI_FLAG_CALL("--call", call, &v->called),
        CLI_FLAG_END};
    const cli_command c = {.name = "t", .usage = usage, .flags = flags, .shared = &shared,
                           .operands = room ? v->operands : NULL, .max_operands = room,
                           .n_operands = &v->n_operands, .unknown = unknown, .mode = mode};
    fflush(stderr);
    FILE *tmp = tmpfile();
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    usage_to = NULL;
    int rc = cli_parse(&c, argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(err, 1, sizeof err - 1, tmp);
    err[n] = '\0';
    fclose(tmp);
    return rc;
}

#define WORDS(...) ((char *const[]){__VA_ARGS__, NULL})

int main(void)
{
    values v;
    /* Every kind stores its value; lists append; the last text wins. */
    CHECK(parse(&v, 0, 0, NULL,
                WORDS("--sw", "--text", "a", "--text", "b", "--texts", "x", "--texts", "-y",
                      "--u32", "9", "--u64", "18446744073709551615", "--seconds", "100",
                      "--variant", "onnx-div-7", "--variants", "onnx-div-13", "--variants",
                      "onnx-div-14", "--dtype", "bf16", "--dtypes", "i8", "--dtypes", "u4",
                      "--call", "yes", "--seed", "42")) == 0);
    CHECKF(!err[0], "stderr: %s", err);
    CHECK(v.sw == 7 && !strcmp(v.text, "b"));
    CHECK(v.n_texts == 2 && !strcmp(v.texts[0], "x") && !strcmp(v.texts[1], "-y"));
    CHECK(v.u32 == 9 && v.u64 == UINT64_MAX && v.seconds == 100.0);
    CHECK(v.variant == oracle_variant_by_name("onnx-div-7")->id);
    CHECK(v.n_variants == 2 && v.variants[1] == oracle_variant_by_name("onnx-div-14")->id);
    CHECK(v.dtype == oracle_dtype_by_tag("bf16"));
    CHECK(v.n_dtypes == 2 && v.dtypes[0] == oracle_dtype_by_tag("i8") &&
          v.dtypes[1] == oracle_dtype_by_tag("u4"));
    CHECK(!strcmp(v.called, "yes") && v.seed == 42);

    /* --help and -h: the usage on stdout; a value is only a value. */
    CHECK(parse(&v, 0, 0, NULL, WORDS("--sw", "-h")) == CLI_HELP && usage_to == stdout);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--text", "--help")) == 0 && !strcmp(v.text, "--help"));
    CHECK(parse(&v, 0, CLI_HELP_ANYWHERE, NULL, WORDS("--text", "--help")) == CLI_HELP &&
          usage_to == stdout);
    CHECK(parse(&v, 0, CLI_HELP_ANYWHERE, NULL, WORDS("--bogus", "--help")) == CLI_HELP);
    CHECK(CLI_EXIT(CLI_HELP) == 0 && CLI_EXIT(CLI_ERROR) == 2);

    /* Usage mistakes: their message, then the usage on stderr. */
    CHECK(parse(&v, 0, 0, NULL, WORDS("--bogus", "1")) == CLI_ERROR && usage_to == stderr);
    CHECKF(!strcmp(err, "divergence t: unknown option '--bogus'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--sw", "--bogus")) == CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: unknown option '--bogus'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, "unknown or incomplete option", WORDS("--bogus")) == CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: unknown or incomplete option '--bogus'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--u32")) == CLI_ERROR && usage_to == stderr);
    CHECKF(!strcmp(err, "divergence t: option needs a value: '--u32'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--seed")) == CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: option needs a value: '--seed'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--timeout")) == CLI_ERROR); /* not this command's */
    CHECKF(!strcmp(err, "divergence t: unknown option '--timeout'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("stray")) == CLI_ERROR && usage_to == stderr);
    CHECKF(!strcmp(err, "divergence t: unexpected argument 'stray'\n"), "%s", err);

    /* Refused values: their message, no usage. */
    CHECK(parse(&v, 0, 0, NULL, WORDS("--u32", "10")) == CLI_ERROR && !usage_to);
    CHECKF(!strcmp(err, "divergence t: --u32 '10': expected an integer in [2, 9]\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--seconds", "-1")) == CLI_ERROR && !usage_to);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--seed", "x")) == CLI_ERROR && !usage_to);
    CHECKF(strstr(err, "--seed 'x': expected an integer") != NULL, "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--variant", "div")) == CLI_ERROR && !usage_to);
    CHECKF(!strcmp(err, "divergence t: unknown variant 'div'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--dtypes", "f8")) == CLI_ERROR && !usage_to);
    CHECKF(!strcmp(err, "divergence t: unknown dtype 'f8'\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--texts", "a", "--texts", "b", "--texts", "c")) ==
          CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: at most 2 --texts\n"), "%s", err);
    CHECK(v.n_texts == 2);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--dtypes", "i8", "--dtypes", "i8", "--dtypes", "i8")) ==
          CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: at most 2 --dtypes\n"), "%s", err);
    CHECK(parse(&v, 0, 0, NULL, WORDS("--call", "no")) == CLI_ERROR && !usage_to);
    CHECKF(!strcmp(err, "call refused 'no'\n"), "%s", err);

    /* Operands: collected in order up to the room; "-7" and "--" are
     * options unless CLI_OPERANDS. */
    CHECK(parse(&v, 2, 0, NULL, WORDS("a", "--sw", "b")) == 0 && v.n_operands == 2 && v.sw);
    CHECK(!strcmp(v.operands[0], "a") && !strcmp(v.operands[1], "b"));
    CHECK(parse(&v, 2, 0, NULL, WORDS("a", "b", "c")) == CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: unexpected argument 'c'\n"), "%s", err);
    CHECK(parse(&v, 2, 0, NULL, WORDS("-7")) == CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: unknown option '-7'\n"), "%s", err);
    CHECK(parse(&v, 2, CLI_OPERANDS, NULL, WORDS("-7", "--sw")) == 0 && v.n_operands == 1 &&
          !strcmp(v.operands[0], "-7") && v.sw == 7);
    CHECK(parse(&v, 2, CLI_OPERANDS, NULL, WORDS("--", "--sw", "-1")) == 0 &&
          v.n_operands == 2 && !strcmp(v.operands[0], "--sw") && !v.sw);
    CHECK(parse(&v, 2, 0, "unexpected argument", WORDS("-5")) == CLI_ERROR);
    CHECKF(!strcmp(err, "divergence t: unexpected argument '-5'\n"), "%s", err);
    return check_done("test_cli_parse");
}
