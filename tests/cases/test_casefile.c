/* SPDX-License-Identifier: MIT */
/*
 * The case-file parser (harness/cases/casefile.c) and `divergence cases --check`:
 * good input (values, raw bits, hex floats, named values, generators, packed
 * 4-bit types, expansion over variants and dtypes, continuation lines,
 * directories), malformed files each answered with the right
 * "FILE:LINE: message", allocation failure at every N, and --check finding a
 * wrong expectation at its line.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "harness/base/alloc.h"
#include "harness/cases/casefile.h"
#include "harness/cli/commands.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"

static char tmpdir[256];

static void write_file(const char *path, const char *text, size_t len)
{
    FILE *fp = fopen(path, "wb");
    if (!fp) {
        perror(path);
        abort();
    }
    fwrite(text, 1, len, fp);
    fclose(fp);
}

static casefile_set *parse(const char *text, casefile_error *err)
{
    casefile_set *s = NULL;
    if (casefile_parse_string("t.case", text, strlen(text), 0, &s, err))
        return NULL;
    return s;
}

static const divcase *find(const casefile_set *s, const char *id)
{
    for (size_t i = 0; s && i < s->count; i++)
        if (!strcmp(s->cases[i].id, id))
            return &s->cases[i];
    return NULL;
}

static uint64_t a_at(const divcase *c, uint64_t i) { return oracle_load(c->dtype, c->a, i); }
static uint64_t b_at(const divcase *c, uint64_t i) { return oracle_load(c->dtype, c->b, i); }

/* ---- good input ---------------------------------------------------------- */

static const char good[] =
    "# values of every kind\n"
    "case vals/f16\n"
    "note: free text\n"
    "variant: onnx-div-13\n"
    "dtype: f16\n"
    "requirement: IEEE-DIV-RNE SEM-RANK-LIMITS\n"
    "a.shape: 2x5   # a comment\n"
    "a: 1 -0 0x7bff 0x1p-24 1.00048828125000000000001\n"
    "   1.000488281249999999999, inf, -inf nan snan\n"
    "b.shape: (5,)\n"
    "b: max -max min_normal -min_sub max_sub\n"
    "expect.shape: 2x5\n"
    "expect: 1 -0 nan any-inf unspecified\n"
    "\n"
    "        0x3c01 0.5 -65504 min_sub -max_sub\n"
    "\n"
    "case vals/ints\n"
    "variant: openvino-divide-1\n"
    "dtype: i8\n"
    "attr: m_pythondiv=false auto_broadcast=pdpd axis=0\n"
    "requirement: OV-PYTHONDIV\n"
    "a.shape: 6\n"
    "a: min max -128 127 0xff +5\n"
    "b.shape: 6\n"
    "b: 1 2 3 4 5 6\n"
    "expect: invalid\n"
    "\n"
    "case vals/wide\n"
    "variant: onnx-div-7\n"
    "dtype: u64 i64\n"
    "requirement: ONNX-DIV7-TYPES\n"
    "a.shape: 2\n"
    "a: 0 9007199254740993\n"
    "b.shape: 2\n"
    "b: max min\n"
    "expect.shape: 2\n"
    "expect: 0 0\n"
    "\n"
    "case gen/each\n"
    "variant: onnx-div-1 onnx-div-6\n"
    "dtype: f32 f64\n"
    "attr: broadcast=1\n"
    "requirement: ONNX-LEGACY-EXAMPLES\n"
    "a.shape: 2x3\n"
    "a: each 3 1 2\n"
    "b.shape: 3\n"
    "b: repeat 1 2\n"
    "expect.shape: 2x3\n"
    "expect: iota -3 2\n"
    "\n"
    "case gen/random\n"
    "variant: openvino-divide-1\n"
    "dtype: u4 i4 f32\n"
    "requirement: SEM-SUBBYTE-PACKING\n"
    "a.shape: 1001\n"
    "a: random 7\n"
    "b.shape: 1001\n"
    "b: random 7 uniform\n"
    "expect.shape: 1001\n"
    "\n"
    "case gen/fill-i4\n"
    "variant: openvino-divide-1\n"
    "dtype: i4\n"
    "requirement: SEM-SUBBYTE-PACKING\n"
    "a.shape: 5\n"
    "a: 1 -1 7 -8 5\n"
    "b.shape: 3\n"
    "b: fill -2\n"
    "expect: invalid\n";

static void test_good(void)
{
    casefile_error err;
    casefile_set *s = parse(good, &err);
    CHECKF(s != NULL, "%s", err.text);
    if (!s)
        return;
    CHECK(s->n_blocks == 6);
    CHECKF(s->count == 1 + 1 + 2 + 4 + 3 + 1, "%zu cases", s->count);

    const divcase *c = find(s, "vals/f16");
    CHECK(c != NULL);
    if (c) {
        static const uint64_t a[] = {0x3c00, 0x8000, 0x7bff, 0x0001, 0x3c01,
                                     0x3c00, 0x7c00, 0xfc00, 0x7e00, 0x7d00};
        static const uint64_t b[] = {0x7bff, 0xfbff, 0x0400, 0x8001, 0x03ff};
        for (int i = 0; i < 10; i++)
            CHECKF(a_at(c, i) == a[i], "a[%d] = %#llx", i, (unsigned long long)a_at(c, i));
        for (int i = 0; i < 5; i++)
            CHECKF(b_at(c, i) == b[i], "b[%d] = %#llx", i, (unsigned long long)b_at(c, i));
        CHECK(c->variant == DVG_VARIANT_ONNX_DIV_13 && c->dtype == DVG_DTYPE_F16);
        CHECK(c->a_shape.rank == 2 && c->a_shape.dims[1] == 5 && c->b_shape.rank == 1);
        CHECK(c->has_expect_shape && !c->expect_invalid && c->expect_count == 10);
        CHECK(c->n_requirements == 2 && !strcmp(c->requirements[1], "SEM-RANK-LIMITS"));
        CHECK(!strcmp(c->source, "t.case:2"));
        if (c->expect) {
            CHECK(c->expect[0].kind == ORACLE_EXACT && c->expect[0].bits == 0x3c00);
            CHECK(c->expect[1].kind == ORACLE_EXACT && c->expect[1].bits == 0x8000);
            CHECK(c->expect[2].kind == ORACLE_ANY_NAN);
            CHECK(c->expect[3].kind == ORACLE_ANY_INF);
            CHECK(c->expect[4].kind == ORACLE_UNSPECIFIED);
            CHECK(c->expect[5].bits == 0x3c01 && c->expect[6].bits == 0x3800);
            CHECK(c->expect[7].bits == 0xfbff && c->expect[8].bits == 0x0001);
            CHECK(c->expect[9].bits == 0x83ff);
        }
        const casefile_meta *m = &s->meta[c - s->cases];
        CHECK(m->line == 2 && m->expect_line == 13 && m->expect_shape_line == 12);
        CHECK(casefile_elem_line(m, 0) == 13 && casefile_elem_line(m, 4) == 13);
        CHECK(casefile_elem_line(m, 5) == 15 && casefile_elem_line(m, 9) == 15);
    }

    c = find(s, "vals/ints");
    CHECK(c != NULL);
    if (c) {
        static const uint64_t a[] = {0x80, 0x7f, 0x80, 0x7f, 0xff, 0x05};
        for (int i = 0; i < 6; i++)
            CHECKF(a_at(c, i) == a[i], "a[%d] = %#llx", i, (unsigned long long)a_at(c, i));
        CHECK(c->expect_invalid && !c->has_expect_shape && !c->expect);
        CHECK(c->attrs.pythondiv == 0 && c->attrs.auto_broadcast == DVG_BROADCAST_PDPD);
        CHECK(c->attrs.axis == 0 && c->attrs.axis_set == 1);
    }

    c = find(s, "vals/wide:u64");
    CHECK(c != NULL && find(s, "vals/wide:i64") != NULL);
    if (c) {
        CHECK(a_at(c, 1) == UINT64_C(9007199254740993));
        CHECK(b_at(c, 0) == UINT64_MAX && b_at(c, 1) == 0);
        c = find(s, "vals/wide:i64");
        CHECK(b_at(c, 0) == (uint64_t)INT64_MAX && b_at(c, 1) == (UINT64_C(1) << 63));
    }

    c = find(s, "gen/each:onnx-div-6:f64");
    CHECK(c != NULL);
    CHECK(find(s, "gen/each:onnx-div-1:f32") != NULL);
    if (c) {
        static const double a[] = {1, 1, 1, 2, 2, 2}, b[] = {1, 2, 1};
        static const double e[] = {-3, -1, 1, 3, 5, 7};
        for (int i = 0; i < 6; i++) {
            double x;
            uint64_t bits = a_at(c, i);
            memcpy(&x, &bits, 8);
            CHECK(x == a[i]);
            memcpy(&x, &c->expect[i].bits, 8);
            CHECK(x == e[i] && c->expect[i].kind == ORACLE_EXACT);
        }
        for (int i = 0; i < 3; i++) {
            double x;
            uint64_t bits = b_at(c, i);
            memcpy(&x, &bits, 8);
            CHECK(x == b[i]);
        }
        CHECK(c->attrs.broadcast == 1);
    }

    /* random: deterministic, in range, edge-biased, same seed same stream */
    const divcase *r4 = find(s, "gen/random:u4");
    c = find(s, "gen/random:i4");
    CHECK(r4 != NULL && c != NULL);
    if (r4 && c) {
        CHECK(r4->a_bytes == 501);
        CHECK(r4->a[500] >> 4 == 0); /* the unused high nibble of an odd count */
        /* uniform bits give 1.0f about once in 2^32; the edge bias a
         * quarter of the time over some twenty edge values */
        const divcase *rf = find(s, "gen/random:f32");
        int ones = 0, ones_uniform = 0;
        for (uint64_t i = 0; rf && i < 1001; i++) {
            ones += a_at(rf, i) == 0x3f800000;
            ones_uniform += b_at(rf, i) == 0x3f800000;
        }
        CHECKF(ones >= 3 && ones_uniform == 0, "%d ones: no edge bias", ones);
        casefile_set *again = parse(good, &err);
        const divcase *r4b = again ? find(again, "gen/random:u4") : NULL;
        CHECK(r4b && !memcmp(r4b->a, r4->a, 501) && !memcmp(r4b->b, r4->b, 501));
        casefile_set_free(again);
    }

    /* packed i4: two per byte, low nibble first */
    c = find(s, "gen/fill-i4");
    CHECK(c != NULL);
    if (c) {
        CHECK(c->a_bytes == 3 && c->a[0] == 0xf1 && c->a[1] == 0x87 && c->a[2] == 0x05);
        CHECK(c->b_bytes == 2 && c->b[0] == 0xee && c->b[1] == 0x0e);
    }
    casefile_set_free(s);
}

static void test_values(void)
{
    char why[200];
    uint64_t bits = 0;
    /* decimal -> binary is correctly rounded however long the literal */
    CHECK(!casefile_parse_value(DVG_DTYPE_BF16, "1.00390625", &bits, why, sizeof why) &&
          bits == 0x3f80); /* tie: to even */
    CHECK(!casefile_parse_value(DVG_DTYPE_BF16, "1.0039062500000000000000000000001", &bits, why,
                                sizeof why) && bits == 0x3f81);
    CHECK(!casefile_parse_value(DVG_DTYPE_F32, "0.1", &bits, why, sizeof why) &&
          bits == 0x3dcccccd);
    CHECK(!casefile_parse_value(DVG_DTYPE_F32, "-1.401298464324817e-45", &bits, why, sizeof why) &&
          bits == 0x80000001);
    CHECK(!casefile_parse_value(DVG_DTYPE_F64, "4.9e-324", &bits, why, sizeof why) && bits == 1);
    CHECK(!casefile_parse_value(DVG_DTYPE_F16, "65519", &bits, why, sizeof why) &&
          bits == 0x7bff); /* below the rounding boundary to inf */
    CHECK(casefile_parse_value(DVG_DTYPE_F16, "65520", &bits, why, sizeof why) == -1 &&
          strstr(why, "overflows f16"));
    CHECK(casefile_parse_value(DVG_DTYPE_F16, "2.98023223876953125e-8", &bits, why,
                               sizeof why) == -1 && strstr(why, "rounds to zero"));
    /* half of min_sub is a tie to 0, refused; a hair above rounds up */
    CHECK(!casefile_parse_value(DVG_DTYPE_F16, "2.98023223876953126e-8", &bits, why,
                                sizeof why) && bits == 1);
    CHECK(!casefile_parse_value(DVG_DTYPE_F16, "6.1035e-05", &bits, why, sizeof why) &&
          bits == 0x0400); /* rounds up from the subnormal range to min_normal */
    CHECK(!casefile_parse_value(DVG_DTYPE_F32, "-0x1.8p1", &bits, why, sizeof why) &&
          bits == 0xc0400000);
    CHECK(!casefile_parse_value(DVG_DTYPE_U4, "15", &bits, why, sizeof why) && bits == 15);
    CHECK(!casefile_parse_value(DVG_DTYPE_I4, "-8", &bits, why, sizeof why) && bits == 8);
    CHECK(casefile_parse_value(DVG_DTYPE_I4, "8", &bits, why, sizeof why) == -1 &&
          !strcmp(why, "8 is out of the range of i4 [-8, 7]"));
    CHECK(casefile_parse_value(DVG_DTYPE_U64, "18446744073709551616", &bits, why, sizeof why) ==
          -1);
    CHECK(!casefile_parse_value(DVG_DTYPE_I64, "-9223372036854775808", &bits, why, sizeof why) &&
          bits == (UINT64_C(1) << 63));
    CHECK(casefile_parse_value(DVG_DTYPE_I32, "1.5", &bits, why, sizeof why) == -1);
    CHECK(casefile_parse_value(DVG_DTYPE_F32, "1.5x", &bits, why, sizeof why) == -1);
    CHECK(casefile_parse_value(DVG_DTYPE_F32, "-0x3c00", &bits, why, sizeof why) == -1);
    CHECK(casefile_parse_value(DVG_DTYPE_F32, "unspecified", &bits, why, sizeof why) == -1);
}

/* ---- malformed files ----------------------------------------------------- */

typedef struct bad_file {
    const char *text;
    const char *error; /* expected message after "PATH:" */
} bad_file;

#define HEAD "case x\nvariant: onnx-div-7\ndtype: f32\nrequirement: IEEE-DIV-RNE\n"
#define SHAPES "a.shape: 2\na: 1 2\nb.shape: 2\nb: 1 2\n"

static const bad_file bad_files[] = {
    {HEAD SHAPES "colour: blue\n",
     "9: unknown key 'colour' (keys: variant, dtype, attr, requirement, a.shape, a, b.shape, b, "
     "expect.shape, expect, offsets, note)"},
    {HEAD SHAPES "expect.shape: 2\noffsets: a=64\n",
     "10: offsets: the offset of a is not a number of bytes from 0 to 63"},
    {HEAD SHAPES "expect.shape: 2\noffsets: a=1 d=2\n", "10: offsets: 'd=2' is not a=N, b=N or c=N"},
    {HEAD SHAPES "expect.shape: 2\noffsets: c=1\n   c=2\n", "10: offsets: c given twice"},
    {HEAD SHAPES "expect.shape: 2\noffsets:\n", "10: offsets: no offset given (a=N b=N c=N)"},
    {"case x\nvariant: onnx-div-7\ndtype: i8\nrequirement: IEEE-DIV-RNE\n" SHAPES
     "expect.shape: 2\n",
     "3: dtype: i8 is not in the type list of onnx-div-7 (f16 f32 f64 i32 i64 u32 u64)"},
    {"case x\nvariant: onnx-div-14\ndtype: u8\nrequirement: IEEE-DIV-RNE\na.shape: 3\n"
     "a: 1 2\n   300\nb.shape: 3\nb: fill 1\nexpect.shape: 3\n",
     "7: a: 300 is out of the range of u8 [0, 255]"},
    {HEAD "a.shape: 2x3\na: 1 2 3 4 5\nb.shape: 3\nb: 1 2 3\nexpect.shape: 2x3\n",
     "6: a: 5 values for a.shape (2, 3), which holds 6 elements"},
    {"case x\nvariant: onnx-div-7\ndtype: f32\nrequirement: IEEE-DIV-RNE NOT-A-REQ\n" SHAPES
     "expect.shape: 2\n",
     "4: requirement: unknown requirement ID 'NOT-A-REQ' (see 'divergence cases --matrix')"},
    {HEAD SHAPES "expect.shape: 2\n\n" HEAD SHAPES "expect.shape: 2\n",
     "11: duplicate case name 'x' (first at $:1)"},
    {"case x\ndtype: f32\nrequirement: IEEE-DIV-RNE\n" SHAPES "expect.shape: 2\n",
     "1: case 'x' has no 'variant:' line"},
    {"case x\nvariant: onnx-div-8\ndtype: f32\nrequirement: IEEE-DIV-RNE\n" SHAPES
     "expect.shape: 2\n",
     "2: variant: unknown variant 'onnx-div-8' (known: onnx-div-1, onnx-div-6, onnx-div-7, "
     "onnx-div-13, onnx-div-14, openvino-divide-1, sonnx-div)"},
    {HEAD SHAPES "a: 3 4\n", "9: 'a:' given twice in case 'x' (first at line 6)"},
    {"variant: onnx-div-7\n", "1: 'variant:' before the first 'case NAME' line"},
    {"# a comment\n   1 2 3\n", "2: indented line continues no 'key:' line above it"},
    {HEAD "a.shape: 1x1x1x1x1x1x1x1x1\na: 1\nb.shape: ()\nb: 1\nexpect.shape: ()\n",
     "5: a.shape: shape '1x1x1x1x1x1x1x1x1': rank above 8"},
    {HEAD "a.shape: 100000x100000\na: fill 1\nb.shape: ()\nb: 1\nexpect.shape: ()\n",
     "5: a.shape (100000, 100000) holds more than the limit of 16777216 elements per tensor"},
    {HEAD SHAPES "expect: 1 1\n",
     "9: expect: values need an 'expect.shape:' line giving their shape"},
    {HEAD SHAPES, "1: case 'x' states no expectation: write 'expect.shape: ...' (and optionally "
                  "'expect: VALUES') or 'expect: invalid'"},
    {HEAD SHAPES "expect: invalid\nexpect.shape: 2\n",
     "10: expect.shape: contradicts 'expect: invalid' (line 9)"},
    {HEAD SHAPES "expect.shape: 2\nexpect: 1\n",
     "10: expect: 1 value for expect.shape (2,), which holds 2 elements"},
    {"case x\nvariant: onnx-div-7\ndtype: f16\nrequirement: IEEE-DIV-RNE\na.shape: 2\n"
     "a: 1 1e6\nb.shape: 2\nb: 1 2\nexpect.shape: 2\n",
     "6: a: '1e6' overflows f16 (write inf for infinity, max for the largest finite value)"},
    {"case x\nvariant: onnx-div-7\ndtype: f16\nrequirement: IEEE-DIV-RNE\na.shape: 2\n"
     "a: 0x1ffff 1\nb.shape: 2\nb: 1 2\nexpect.shape: 2\n",
     "6: a: '0x1ffff' does not fit in the 16 bits of f16"},
    {HEAD "attr: axis=1\n" SHAPES "expect.shape: 2\n",
     "5: attr: attribute 'axis' is not defined by onnx-div-7 (it has: no attributes)"},
    {HEAD SHAPES "expect.shape: 2\nexpect: random 1\n",
     "10: expect: 'random' makes operands; expected values come from the oracle or are written "
     "out"},
    {"case x\nvariant: onnx-div-14\ndtype: i8\nrequirement: IEEE-DIV-RNE\na.shape: 200\n"
     "a: iota 0\nb.shape: ()\nb: 1\nexpect.shape: 200\n",
     "6: a: iota element 128 is 128, not a value of i8"},
    {HEAD SHAPES "expect.shape: 2\nexpect: 1 frog\n",
     "10: expect: 'frog' is not a value of f32 (a decimal, a hex float 0x1.8p-3, raw bits 0x..., "
     "inf, -inf, nan, snan, max, min_normal, max_sub, min_sub, any-inf, unspecified)"},
    {"case has space\n", "1: case name 'has space': ' ' is not allowed (letters, digits and "
                         "._+/-=@ only; one word)"},
    {HEAD "a.shape: 2\na: 1 2\nb.shape: 2\nb: 1 2\nexpect.shape: 2\nexpect: nan -nan\n",
     "10: expect: '-nan' as an expected value: a quotient's NaN is any NaN, write 'nan' (or raw "
     "bits 0x... for one pattern)"},
    {HEAD "a.shape: 2\na: 1 2\na.shape:\n",
     "7: 'a.shape:' given twice in case 'x' (first at line 5)"},
    {HEAD "a.shape: 2\n   3\n", "6: a.shape: a shape is written on one line"},
    {"case x\nvariant: onnx-div-7\ndtype: f32\n   f32\nrequirement: IEEE-DIV-RNE\n" SHAPES
     "expect.shape: 2\n", "4: dtype: 'f32' named twice"},
};

static void test_bad_files(void)
{
    char path[512];
    for (size_t i = 0; i < sizeof bad_files / sizeof bad_files[0]; i++) {
        snprintf(path, sizeof path, "%s/bad%02zu.case", tmpdir, i);
        write_file(path, bad_files[i].text, strlen(bad_files[i].text));
        char want[2048];
        /* '$' in the expected text stands for the file's path */
        const char *at = strchr(bad_files[i].error, '$');
        if (at)
            snprintf(want, sizeof want, "%s:%.*s%s%s", path, (int)(at - bad_files[i].error),
                     bad_files[i].error, path, at + 1);
        else
            snprintf(want, sizeof want, "%s:%s", path, bad_files[i].error);
        casefile_set *s = NULL;
        casefile_error err;
        int rc = casefile_load(path, 0, &s, &err);
        CHECKF(rc == -1 && s == NULL, "bad file %zu parsed", i);
        CHECKF(!strcmp(err.text, want), "bad file %zu:\n   got  %s\n   want %s", i, err.text,
               want);
        casefile_set_free(s);
    }

    /* a NUL byte */
    static const char nul[] = "case x\nvariant: onnx\0-div-7\n";
    snprintf(path, sizeof path, "%s/nul.case", tmpdir);
    write_file(path, nul, sizeof nul - 1);
    casefile_set *s = NULL;
    casefile_error err;
    CHECK(casefile_load(path, 0, &s, &err) == -1 && strstr(err.text, ":2: NUL byte"));

    /* a missing file */
    snprintf(path, sizeof path, "%s/absent.case", tmpdir);
    CHECK(casefile_load(path, 0, &s, &err) == -1 && strstr(err.text, "absent.case: cannot open"));

    /* the element limit is checked before allocation */
    static const char big[] = HEAD "a.shape: 1000\na: fill 1\nb.shape: ()\nb: 1\n"
                                   "expect.shape: ()\n";
    uint64_t before = dvg_alloc_count();
    CHECK(casefile_parse_string("big", big, sizeof big - 1, 999, &s, &err) == -1);
    CHECKF(!strcmp(err.text, "big:5: a.shape (1000,) holds more than the limit of 999 elements "
                             "per tensor"), "%s", err.text);
    CHECK(dvg_alloc_count() - before < 10);
}

/* ---- data offsets ---------------------------------------------------------- */

/* `offsets:` places the data (divcase.offsets); without it the default
 * placement; the text form round-trips. */
static void test_offsets(void)
{
    static const char text[] = HEAD SHAPES "expect.shape: 2\noffsets: c=42 a=3\n"
                               "\ncase y\nvariant: onnx-div-7\ndtype: f32\n"
                               "requirement: IEEE-DIV-RNE\n" SHAPES "expect.shape: 2\n";
    casefile_error err;
    casefile_set *s = parse(text, &err);
    CHECKF(s != NULL, "%s", err.text);
    const divcase *x = find(s, "x"), *y = find(s, "y");
    CHECK(x && x->offsets.set == 1 && x->offsets.at[DIVCASE_A] == 3 &&
          x->offsets.at[DIVCASE_B] == 0 && x->offsets.at[DIVCASE_C] == 42);
    CHECK(y && y->offsets.set == 0);
    char buf[32], why[128];
    divcase_offsets o;
    CHECK(x && !strcmp(divcase_offsets_format(&x->offsets, buf, sizeof buf), "a=3 b=0 c=42"));
    CHECK(divcase_offsets_parse(buf, &o, why, sizeof why) == 0 && x &&
          !memcmp(&o, &x->offsets, sizeof o));
    CHECK(y && !strcmp(divcase_offsets_format(&y->offsets, buf, sizeof buf), ""));
    CHECK(divcase_offsets_parse("", &o, why, sizeof why) == 0 && o.set == 0);
    CHECK(divcase_offsets_parse("a=0", &o, why, sizeof why) == 0 && o.set == 1 && !o.at[0]);
    CHECK(divcase_offsets_parse("a=1x", &o, why, sizeof why) == -1);
    casefile_set_free(s);
}

/* ---- directories --------------------------------------------------------- */

static int wants_i8(const void *ctx, uint32_t variant, uint32_t dtype)
{
    (void)ctx;
    return variant == DVG_VARIANT_SONNX_DIV && dtype == DVG_DTYPE_I8;
}

static int wants_i16(const void *ctx, uint32_t variant, uint32_t dtype)
{
    (void)ctx;
    return dtype == DVG_DTYPE_I16 && variant < DVG_VARIANT_COUNT;
}

static void test_directory(void)
{
    char dir[512], sub[512], path[600];
    snprintf(dir, sizeof dir, "%s/dir", tmpdir);
    snprintf(sub, sizeof sub, "%s/dir/sub", tmpdir);
    mkdir(dir, 0700);
    mkdir(sub, 0700);
    static const char one[] = "case b-first\nvariant: sonnx-div\ndtype: i8\n"
                              "requirement: SONNX-R1\na.shape: ()\na: 1\nb.shape: ()\nb: 1\n"
                              "expect.shape: ()\nexpect: 1\n";
    static const char two[] = "case a-second\nvariant: sonnx-div\ndtype: i8\n"
                              "requirement: SONNX-R1\na.shape: ()\na: 1\nb.shape: ()\nb: 1\n"
                              "expect.shape: ()\n";
    snprintf(path, sizeof path, "%s/1.case", dir);
    write_file(path, one, sizeof one - 1);
    snprintf(path, sizeof path, "%s/2.case", sub);
    write_file(path, two, sizeof two - 1);
    snprintf(path, sizeof path, "%s/ignored.txt", dir);
    write_file(path, "garbage", 7);

    casefile_set *s = NULL;
    casefile_error err;
    CHECKF(casefile_load(dir, 0, &s, &err) == 0, "%s", err.text);
    CHECK(s && s->count == 2 && s->n_paths == 2);
    if (s && s->count == 2) {
        CHECK(!strcmp(s->cases[0].id, "b-first") && !strcmp(s->cases[1].id, "a-second"));
        CHECK(strstr(s->meta[1].path, "/sub/2.case") != NULL);
    }
    casefile_set_free(s);

    /* Built for some (variant, dtype) only: the others' cases left out,
     * their names still checked (below). */
    s = NULL;
    CHECKF(casefile_load_conformance(dir, wants_i16, NULL, &s, &err) == 0, "%s", err.text);
    CHECK(s == NULL || s->count == 0);
    casefile_set_free(s);
    s = NULL;
    CHECKF(casefile_load_conformance(dir, wants_i8, NULL, &s, &err) == 0, "%s", err.text);
    CHECK(s && s->count == 2);
    casefile_set_free(s);

    /* the same name in two files */
    snprintf(path, sizeof path, "%s/3.case", sub);
    write_file(path, one, sizeof one - 1);
    s = NULL;
    CHECK(casefile_load(dir, 0, &s, &err) == -1 && s == NULL);
    char want[1400];
    snprintf(want, sizeof want, "%s/3.case:1: duplicate case name 'b-first' (first at %s/1.case:1)",
             sub, dir);
    CHECKF(!strcmp(err.text, want), "got %s", err.text);
    s = NULL;
    CHECK(casefile_load_conformance(dir, wants_i16, NULL, &s, &err) == -1 && s == NULL);
    CHECKF(!strcmp(err.text, want), "built for i16 only: got %s", err.text);
}

/* ---- allocation failure at every N --------------------------------------- */

static void test_alloc_failure(void)
{
    int succeeded = 0;
    for (uint64_t n = 1; n < 2000 && !succeeded; n++) {
        casefile_set *s = NULL;
        casefile_error err;
        dvg_alloc_fail_at(n, 1);
        int rc = casefile_parse_string("t.case", good, sizeof good - 1, 0, &s, &err);
        dvg_alloc_fail_at(0, 0);
        if (rc == 0) {
            succeeded = 1;
            CHECK(s && s->count == 12);
        } else {
            CHECKF(s == NULL && strstr(err.text, "out of memory"), "n=%llu: %s",
                   (unsigned long long)n, err.text);
        }
        casefile_set_free(s);
    }
    CHECK(succeeded);
}

/* ---- divergence cases --check --------------------------------------------- */

static int run_cases(const char *out_path, int argc, char **argv)
{
    fflush(stdout);
    int saved = dup(1);
    int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    close(fd);
    int rc = cmd_cases(argc, argv);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    return rc;
}

static char *slurp(const char *path)
{
    static char buf[8192];
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
    if (fp)
        fclose(fp);
    buf[n] = '\0';
    return buf;
}

static void test_check_command(void)
{
    static const char wrong[] =
        "case right\nvariant: onnx-div-7\ndtype: f32\nrequirement: IEEE-DIV-RNE\n"
        "a.shape: 2\na: 1 1\nb.shape: 2\nb: 3 0\nexpect.shape: 2\n"
        "expect: 0.3333333432674408 inf\n"
        "case wrong-value\nvariant: onnx-div-7\ndtype: f32\nrequirement: IEEE-DIV-RNE\n"
        "a.shape: 2\na: 1 1\nb.shape: 2\nb: 3 3\nexpect.shape: 2\n"
        "expect: 0.3333333432674408\n"
        "        0.333\n"
        "case wrong-shape\nvariant: onnx-div-7\ndtype: f32\nrequirement: IEEE-DIV-RNE\n"
        "a.shape: 2x1\na: 1 1\nb.shape: 3\nb: 3 3 3\nexpect.shape: 2x1\n"
        "case wrong-invalid\nvariant: sonnx-div\ndtype: f32\nrequirement: SONNX-R1\n"
        "a.shape: 2\na: 1 1\nb.shape: 2\nb: 3 3\nexpect: invalid\n"
        "case wrong-kind\nvariant: sonnx-div\ndtype: f32\nrequirement: SONNX-R1\n"
        "a.shape: 2\na: 1 1\nb.shape: 2\nb: 0 -0\nexpect.shape: 2\nexpect: inf -inf\n";
    char path[512], out[512];
    snprintf(path, sizeof path, "%s/check.case", tmpdir);
    snprintf(out, sizeof out, "%s/check.out", tmpdir);
    write_file(path, wrong, sizeof wrong - 1);
    char *argv[] = {"cases", "--check", "--dir", path, NULL};
    CHECK(run_cases(out, 4, argv) == 1);
    const char *text = slurp(out);
    char want[700];
    snprintf(want, sizeof want, "%s:21: case wrong-value: element 1 (1 / 3): the file expects "
             "0.333000004 (0x3eaa7efa), the oracle says 0.333333343 (0x3eaaaaab)", path);
    CHECKF(strstr(text, want) != NULL, "missing:\n%s\nin:\n%s", want, text);
    snprintf(want, sizeof want, "%s:30: case wrong-shape: the file expects output shape (2, 1), "
             "the oracle gives (2, 3)", path);
    CHECKF(strstr(text, want) != NULL, "missing:\n%s\nin:\n%s", want, text);
    snprintf(want, sizeof want, "%s:39: case wrong-invalid: the file expects invalid input, "
             "the oracle gives output shape (2,)", path);
    CHECKF(strstr(text, want) != NULL, "missing:\n%s\nin:\n%s", want, text);
    snprintf(want, sizeof want, "%s:49: case wrong-kind: element 0", path);
    CHECKF(strstr(text, want) != NULL, "missing:\n%s\nin:\n%s", want, text);
    CHECKF(strstr(text, "case right:") == NULL, "%s", text);
    CHECK(strstr(text, ": 5 disagreements in 4 cases") != NULL);

    /* the listing and the matrix of the same file */
    char *list[] = {"cases", "--dir", path, NULL};
    CHECK(run_cases(out, 3, list) == 0);
    CHECK(strstr(slurp(out), "5 cases from 5 case blocks in 1 files") != NULL);
    char *matrix[] = {"cases", "--matrix", "--dir", path, NULL};
    CHECK(run_cases(out, 4, matrix) == 0);
    CHECK(strstr(slurp(out), "Cited by no case:") != NULL);
    char *bad[] = {"cases", "--frobnicate", NULL};
    CHECK(run_cases(out, 2, bad) == 2);
}

int main(void)
{
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/dvg-casefile-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 2;
    }
    test_values();
    test_good();
    test_bad_files();
    test_offsets();
    test_directory();
    test_alloc_failure();
    test_check_command();
    int rc = check_done("test_casefile");
    if (!rc) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmpdir);
    }
    return rc;
}
