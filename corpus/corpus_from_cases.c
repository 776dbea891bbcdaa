/* SPDX-License-Identifier: MIT */
/*
 * corpus/corpus_from_cases.c: builds the seed corpora and the dictionary
 * from the conformance cases (scripts/gen-corpus runs it; corpus/ holds
 * its committed output).
 *
 *   corpus_from_cases CASES DIV_OUT CASEFILE_OUT DICT_OUT
 *
 * DIV_OUT       decode_encode() of every case of CASES (casefile_load) whose
 *               tensors hold at most 4096 elements, and, for every valid
 *               one of those with more output elements than fuzz_div
 *               decodes by default (16), its element pairs in 1-D slices
 *               of 16 under
 *               the same variant, dtype and rounding attributes; so every
 *               (A, B) pair the cases write down reaches the in-process
 *               target unshrunk.
 * CASEFILE_OUT  every `case` block of every *.case file under CASES, one
 *               file per block (the block's lines as written).
 * DICT_OUT      the dictionary of fuzz/div.dict: the edge values of each
 *               dtype (gen_edge_values) as the little-endian bytes the
 *               decoder's raw operands read, and the decoder's escape bytes.
 *
 * Every corpus file is named by the first 16 hex digits of the SHA-256 of
 * its content, so identical inputs collapse and a rerun writes the same
 * files. The output directories must exist; files are only added.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/cases/decode.h"
#include "harness/base/alloc.h"
#include "harness/cases/casefile.h"
#include "harness/cases/gen.h"
#include "harness/base/sha256.h"
#include "oracle/dtype.h"
#include "oracle/rules.h"
#include "oracle/shape.h"
#include "oracle/variant.h"

#define WHOLE_MAX_ELEMENTS 4096u
#define SLICE_ELEMENTS 16u

static unsigned long n_written;

static int write_named(const char *dir, const void *data, size_t n)
{
    sha256_ctx h;
    uint8_t dg[SHA256_DIGEST_BYTES];
    char hex[SHA256_HEX_CHARS], path[4096];
    sha256_init(&h);
    sha256_update(&h, data, n);
    sha256_final(&h, dg);
    sha256_hex(dg, hex);
    hex[16] = 0;
    snprintf(path, sizeof path, "%s/%s", dir, hex);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, n, f) != n || fclose(f)) {
        fprintf(stderr, "corpus_from_cases: cannot write %s: %s\n", path, strerror(errno));
        if (f)
            fclose(f);
        return -1;
    }
    n_written++;
    return 0;
}

static int write_case(const char *dir, const divcase *c)
{
    uint8_t *bytes;
    size_t n;
    if (decode_encode(c, &bytes, &n)) {
        fprintf(stderr, "corpus_from_cases: case %s cannot be encoded\n", c->id);
        return -1;
    }
    int rc = write_named(dir, bytes, n);
    dvg_free(bytes);
    return rc;
}

/* The element pairs of output elements [first, first + k) of a valid case
 * as a 1-D case: same variant, dtype and rounding; shapes (k) and (k), which
 * every shape rule accepts once the axis attributes are the defaults. */
static int write_slice(const char *dir, const divcase *c, const oracle_plan *p, uint64_t first,
                       uint64_t k)
{
    divcase s;
    memset(&s, 0, sizeof s);
    snprintf(s.id, sizeof s.id, "%.70s[%" PRIu64 "]", c->id, first);
    s.variant = c->variant;
    s.dtype = c->dtype;
    s.attrs = c->attrs;
    oracle_attrs_default(oracle_variant_get(c->variant), &s.attrs);
    s.attrs.broadcast = c->attrs.broadcast;
    s.attrs.pythondiv = c->attrs.pythondiv;
    s.attrs.auto_broadcast = c->attrs.auto_broadcast;
    s.attrs.int_rounding = c->attrs.int_rounding;
    s.a_shape.rank = s.b_shape.rank = 1;
    s.a_shape.dims[0] = s.b_shape.dims[0] = (int64_t)k;
    if (divcase_alloc(&s, k))
        return -1;
    for (uint64_t i = 0; i < k; i++) {
        uint64_t ao, bo;
        oracle_plan_offsets(p, first + i, &ao, &bo);
        oracle_store(c->dtype, s.a, i, oracle_load(c->dtype, c->a, ao));
        oracle_store(c->dtype, s.b, i, oracle_load(c->dtype, c->b, bo));
    }
    int rc = write_case(dir, &s);
    divcase_free(&s);
    return rc;
}

static int div_corpus(const casefile_set *set, const char *dir)
{
    decode_limits whole;
    decode_limits_default(&whole);
    whole.max_elements = WHOLE_MAX_ELEMENTS;
    for (size_t i = 0; i < set->count; i++) {
        const divcase *c = &set->cases[i];
        if (decode_limits_admit(&whole, c) && write_case(dir, c))
            return -1;
        oracle_rules r;
        oracle_plan p;
        if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, NULL) ||
            oracle_plan_shapes(&r, &c->a_shape, &c->b_shape, &p, NULL) || p.count <= SLICE_ELEMENTS ||
            p.count > WHOLE_MAX_ELEMENTS)
            continue;
        for (uint64_t first = 0; first < p.count; first += SLICE_ELEMENTS) {
            uint64_t k = p.count - first < SLICE_ELEMENTS ? p.count - first : SLICE_ELEMENTS;
            if (write_slice(dir, c, &p, first, k))
                return -1;
        }
    }
    return 0;
}

/* ---- case-file blocks ------------------------------------------------------ */

static int is_case_line(const char *line, size_t len)
{
    return len >= 5 && !memcmp(line, "case", 4) && (line[4] == ' ' || line[4] == '\t');
}

static int split_file(const char *path, const char *dir)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "corpus_from_cases: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 16, n = 0, got;
    char *text = malloc(cap);
    while (text && (got = fread(text + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *t = realloc(text, cap * 2);
            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            cap *= 2;
        }
    }
    fclose(f);
    if (!text)
        return -1;
    int rc = 0;
    size_t start = SIZE_MAX;
    for (size_t pos = 0; pos <= n && !rc;) {
        size_t eol = pos;
        while (eol < n && text[eol] != '\n')
            eol++;
        int boundary = pos == n || is_case_line(text + pos, eol - pos);
        if (boundary && start != SIZE_MAX)
            rc = write_named(dir, text + start, pos - start);
        if (boundary)
            start = pos;
        if (pos == n)
            break;
        pos = eol < n ? eol + 1 : n;
    }
    free(text);
    return rc;
}

static int name_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Every *.case file under `path` (names starting with '.' skipped), in name
 * order, like casefile_load. */
static int casefile_corpus(const char *path, const char *dir, int depth)
{
    struct stat st;
    if (stat(path, &st))
        return -1;
    if (S_ISREG(st.st_mode)) {
        size_t len = strlen(path);
        return len > 5 && !strcmp(path + len - 5, ".case") ? split_file(path, dir) : 0;
    }
    if (!S_ISDIR(st.st_mode) || depth > CASEFILE_MAX_DEPTH)
        return 0;
    DIR *d = opendir(path);
    if (!d)
        return -1;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char **t = realloc(names, (n + 1) * sizeof *names);
        if (!t)
            break;
        names = t;
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n])
            break;
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        if (!rc && casefile_corpus(names[i], dir, depth + 1))
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

/* ---- dictionary ------------------------------------------------------------ */

static int write_dict(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "corpus_from_cases: cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    fprintf(f, "# Generated by scripts/gen-corpus (corpus/corpus_from_cases.c); do not edit.\n"
               "# Dictionary of fuzz_div for libFuzzer (-dict=) and AFL++ (-x): the edge values\n"
               "# of each dtype (harness/cases/gen.c) as the little-endian bytes a raw operand reads\n"
               "# (fuzz/README.md, \"The byte format\"), and the decoder's escape bytes.\n");
    fprintf(f, "# Escapes: a 4-byte dimension, a long axis, a raw element (and a broken shape\n"
               "# pair), the generator operand mode with a zero seed.\n");
    fprintf(f, "dim_long=\"\\xf8\"\naxis_long=\"\\xff\"\nelem_raw=\"\\xe0\"\n"
               "op_gen=\"\\x03\\x00\\x00\\x00\\x00\"\n");
    /* Each byte string once (the widths share many). */
    static uint64_t seen_v[DVG_DTYPE_COUNT * 64];
    static unsigned seen_w[DVG_DTYPE_COUNT * 64];
    size_t n_seen = 0;
    for (uint32_t dt = 1; dt < DVG_DTYPE_COUNT; dt++) {
        size_t n;
        const uint64_t *edges = gen_edge_values(dt, &n);
        unsigned w = (oracle_dtype(dt)->bits + 7) / 8;
        fprintf(f, "# %s\n", oracle_dtype_tag(dt));
        for (size_t i = 0; i < n; i++) {
            size_t k = 0;
            while (k < n_seen && !(seen_v[k] == edges[i] && seen_w[k] == w))
                k++;
            if (k < n_seen || n_seen == sizeof seen_v / sizeof seen_v[0])
                continue;
            seen_v[n_seen] = edges[i];
            seen_w[n_seen++] = w;
            fprintf(f, "%s_%zu=\"", oracle_dtype_tag(dt), i);
            for (unsigned b = 0; b < w; b++)
                fprintf(f, "\\x%02x", (unsigned)((edges[i] >> (8 * b)) & 0xff));
            fprintf(f, "\"\n");
        }
    }
    if (fclose(f)) {
        fprintf(stderr, "corpus_from_cases: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: corpus_from_cases CASES DIV_OUT CASEFILE_OUT DICT_OUT\n");
        return 2;
    }
    casefile_set *set;
    casefile_error err;
    if (casefile_load(argv[1], 0, &set, &err)) {
        fprintf(stderr, "corpus_from_cases: %s\n", err.text);
        return 1;
    }
    int rc = div_corpus(set, argv[2]);
    unsigned long n_div = n_written;
    casefile_set_free(set);
    if (!rc)
        rc = casefile_corpus(argv[1], argv[3], 0);
    if (!rc)
        rc = write_dict(argv[4]);
    if (rc)
        return 1;
    printf("corpus_from_cases: %lu div inputs, %lu case-file blocks written\n", n_div,
           n_written - n_div);
    return 0;
}
