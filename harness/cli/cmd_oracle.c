/* SPDX-License-Identifier: MIT */
/*
 * divergence oracle --variant V --dtype T [--attr k=v ...] [--exact]
 *
 * Reads lines "A B" (hex bit patterns exactly as wide as the dtype, with or
 * without 0x) from stdin and writes one line per pair: the expected
 * result's hex bits (same width, no prefix), or "nan" (any NaN), "inf"
 * (+inf or -inf: the variant leaves the sign open), or "unspecified".
 * Blank lines are skipped. Built for throughput: buffered I/O, batches
 * through oracle_expect_n (the self-checked fast path unless --exact).
 */
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/cli/commands.h"
#include "harness/cli/target.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/fastpath.h"

#define BATCH 4096
#define IN_BUF (1u << 20)
#define OUT_BUF (1u << 20)

typedef struct reader {
    char *buf;
    size_t len, pos;
    int eof;
    unsigned long line;
} reader;

typedef struct writer {
    char *buf;
    size_t len;
} writer;

static const char hexdig[] = "0123456789abcdef";

static void flush_out(writer *w)
{
    fwrite(w->buf, 1, w->len, stdout);
    w->len = 0;
}

/* Returns the next line (NUL-terminated, without newline) or NULL at end;
 * sets *too_long when a line exceeds the buffer. */
static char *next_line(reader *r, int *too_long)
{
    *too_long = 0;
    for (;;) {
        char *start = r->buf + r->pos;
        char *nl = memchr(start, '\n', r->len - r->pos);
        if (nl) {
            *nl = '\0';
            r->pos = (size_t)(nl - r->buf) + 1;
            r->line++;
            if (nl > start && nl[-1] == '\r')
                nl[-1] = '\0';
            return start;
        }
        if (r->eof) {
            if (r->pos == r->len)
                return NULL;
            r->buf[r->len] = '\0'; /* last line without newline */
            r->pos = r->len;
            r->line++;
            return start;
        }
        size_t keep = r->len - r->pos;
        if (keep == IN_BUF) {
            *too_long = 1;
            r->line++;
            return NULL;
        }
        memmove(r->buf, start, keep);
        r->len = keep;
        r->pos = 0;
        size_t got = fread(r->buf + r->len, 1, IN_BUF - r->len, stdin);
        r->len += got;
        if (got == 0)
            r->eof = 1;
    }
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parses one operand at *p; returns NULL on success or the error text. */
static const char *parse_operand(char **p, unsigned width, uint64_t *out)
{
    char *s = *p;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    uint64_t v = 0;
    unsigned n = 0;
    int d;
    while ((d = hexval(s[n])) >= 0) {
        v = (v << 4) | (uint64_t)d;
        n++;
        if (n > width)
            return "operand is wider than the dtype";
    }
    if (n == 0)
        return "malformed hex operand";
    if (s[n] && s[n] != ' ' && s[n] != '\t')
        return "malformed hex operand";
    if (n != width)
        return "operand has the wrong width (it must have exactly as many hex digits as the dtype)";
    *out = v;
    *p = s + n;
    return NULL;
}

static void emit(writer *w, const oracle_elem *e, unsigned width)
{
    if (w->len + 32 > OUT_BUF)
        flush_out(w);
    char *o = w->buf + w->len;
    switch (e->kind) {
    case ORACLE_EXACT:
        for (unsigned i = 0; i < width; i++)
            o[i] = hexdig[(e->bits >> (4 * (width - 1 - i))) & 0xf];
        o[width] = '\n';
        w->len += width + 1;
        return;
    case ORACLE_ANY_NAN:
        memcpy(o, "nan\n", 4);
        w->len += 4;
        return;
    case ORACLE_ANY_INF:
        memcpy(o, "inf\n", 4);
        w->len += 4;
        return;
    default:
        memcpy(o, "unspecified\n", 12);
        w->len += 12;
        return;
    }
}

/* Answers n pairs and writes their lines. */
static void answer(const oracle_rules *r, int exact, const uint64_t *a, const uint64_t *b,
                   size_t n, oracle_elem *e, writer *w, unsigned width)
{
    if (exact)
        for (size_t i = 0; i < n; i++)
            oracle_expect(r, a[i], b[i], &e[i]);
    else
        oracle_expect_n(r, a, b, n, e);
    for (size_t i = 0; i < n; i++)
        emit(w, &e[i], width);
}

static const char usage_text[] =
    "usage: divergence oracle --variant V --dtype T [--attr k=v ...] [--exact]\n"
    "  stdin: lines 'A B' of hex bits as wide as the dtype\n"
    "  stdout: per line the expected hex bits, nan, inf (either sign) or unspecified\n";

static int usage(FILE *to)
{
    fputs(usage_text, to);
    return 2;
}

int cmd_oracle(int argc, char **argv)
{
    target_flags tf = {0};
    target t;
    int exact = 0;
    const cli_flag flags[] = {TARGET_FLAGS(&tf), CLI_FLAG_SWITCH("--exact", &exact, 1),
                              CLI_FLAG_END};
    const cli_command c = {.name = "oracle", .usage = usage, .flags = flags,
                           .unknown = "unexpected argument", .mode = CLI_HELP_ANYWHERE};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    if (target_resolve("oracle", &tf, &t, stderr))
        return 2;
    if (!exact)
        oracle_fastpath_selfcheck();

    unsigned width = (oracle_dtype(t.dtype)->bits + 3) / 4;
    int status = 0;
    reader r = {0};
    writer w = {0};
    uint64_t *a = dvg_malloc(BATCH * sizeof *a), *b = dvg_malloc(BATCH * sizeof *b);
    oracle_elem *e = dvg_malloc(BATCH * sizeof *e);
    r.buf = dvg_malloc(IN_BUF + 1);
    w.buf = dvg_malloc(OUT_BUF);
    if (!a || !b || !e || !r.buf || !w.buf) {
        fprintf(stderr, "divergence oracle: out of memory\n");
        status = 2;
        goto done;
    }
    for (;;) {
        size_t n = 0;
        char *line;
        int too_long = 0;
        while (n < BATCH && (line = next_line(&r, &too_long))) {
            char *p = line;
            while (*p == ' ' || *p == '\t')
                p++;
            if (!*p)
                continue;
            const char *why = parse_operand(&p, width, &a[n]);
            if (!why) {
                if (*p != ' ' && *p != '\t')
                    why = "expected two operands 'A B'";
                while (*p == ' ' || *p == '\t')
                    p++;
            }
            if (!why && !*p)
                why = "expected two operands 'A B'";
            if (!why)
                why = parse_operand(&p, width, &b[n]);
            while (!why && (*p == ' ' || *p == '\t'))
                p++;
            if (!why && *p)
                why = "trailing text after the two operands";
            if (why) {
                answer(&t.rules, exact, a, b, n, e, &w, width);
                flush_out(&w);
                fprintf(stderr, "divergence oracle: stdin line %lu: %s (%s has %u hex digits): '%.60s'\n",
                        r.line, why, oracle_dtype_tag(t.dtype), width, line);
                status = 2;
                goto done;
            }
            n++;
        }
        if (too_long) {
            fprintf(stderr, "divergence oracle: stdin line %lu: line longer than %u bytes\n",
                    r.line, IN_BUF);
            status = 2;
            break;
        }
        answer(&t.rules, exact, a, b, n, e, &w, width);
        if (n < BATCH)
            break;
    }
done:
    if (w.buf)
        flush_out(&w);
    fflush(stdout);
    if (ferror(stdout)) {
        fprintf(stderr, "divergence oracle: write error on stdout\n");
        status = 2;
    }
    dvg_free(a);
    dvg_free(b);
    dvg_free(e);
    dvg_free(r.buf);
    dvg_free(w.buf);
    return status;
}
