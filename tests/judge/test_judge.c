/* SPDX-License-Identifier: MIT */
/*
 * tests/judge/test_judge.c: the judge (harness/judge/verdict.h) on its own.
 * Each case is built by hand - operands, the oracle's plan and expected
 * elements, and the plain outputs an implementation might have produced
 * (verdict_outputs) - with no worker and no plugin, and judged; the test
 * asserts the class of every finding, whether the profile or a declared
 * deviation accepts it, the verdict, the tally's fields, verdict_tally_add,
 * the words of verdict_elem_text and verdict_actual_text, and a periodic
 * case judged one period at a time against the same case judged in full.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness/judge/verdict.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

#define MAX_N 8

/* One hand-built case: 1-D A (n_a) against B (n_b). */
typedef struct fixture {
    oracle_rules r;
    divcase c;
    oracle_plan p;
    int valid;
    oracle_elem e[MAX_N];
    uint8_t a[MAX_N * 8], b[MAX_N * 8], out[MAX_N * 8], out2[MAX_N * 8], flags[MAX_N];
    verdict_outputs o; /* computed, the oracle's shape, out1 = the exact answers */
} fixture;

static void setup(fixture *f, uint32_t variant, uint32_t dtype, const uint64_t *a, uint32_t n_a,
                  const uint64_t *b, uint32_t n_b)
{
    memset(f, 0, sizeof *f);
    const oracle_variant *v = oracle_variant_get(variant);
    dvg_attrs attrs;
    oracle_error why;
    CHECK(v && oracle_variant_has_dtype(v, dtype));
    oracle_attrs_default(v, &attrs);
    CHECK(oracle_rules_resolve(variant, dtype, &attrs, &f->r, &why) == ORACLE_OK);
    snprintf(f->c.id, sizeof f->c.id, "judge-test");
    f->c.variant = variant;
    f->c.dtype = dtype;
    f->c.attrs = f->r.attrs;
    f->c.a_shape.rank = f->c.b_shape.rank = 1;
    f->c.a_shape.dims[0] = n_a;
    f->c.b_shape.dims[0] = n_b;
    for (uint32_t i = 0; i < n_a; i++)
        oracle_store(dtype, f->a, i, a[i]);
    for (uint32_t i = 0; i < n_b; i++)
        oracle_store(dtype, f->b, i, b[i]);
    f->c.a = f->a;
    f->c.b = f->b;
    f->c.a_bytes = oracle_nbytes(dtype, n_a);
    f->c.b_bytes = oracle_nbytes(dtype, n_b);
    int rc = oracle_plan_shapes(&f->r, &f->c.a_shape, &f->c.b_shape, &f->p, &why);
    CHECK(rc != ORACLE_EUSAGE);
    f->valid = rc == ORACLE_OK;
    f->o.outcome = VERDICT_OUT_OK;
    if (!f->valid)
        return;
    CHECK(f->p.count <= MAX_N);
    oracle_expect_tensor(&f->r, &f->p, f->a, f->b, f->e);
    for (uint64_t i = 0; i < f->p.count; i++)
        oracle_store(dtype, f->out, i, f->e[i].bits);
    f->o.has_shape = 1;
    f->o.shape = f->p.out;
    f->o.computed = 1;
    f->o.out1 = f->out;
}

/* The findings a sink was given. */
typedef struct seen {
    verdict_example ex[16];
    int n;
} seen;

static int collect(void *ctx, const divcase *c, const verdict_example *ex)
{
    seen *s = ctx;
    (void)c;
    if (s->n < 16)
        s->ex[s->n++] = *ex;
    return 0;
}

/* Judges f under profile `prof` ("exact", "ftz", "ulp:1"); *s and *t are
 * zeroed first. Returns what verdict_case returns. */
static int judge(fixture *f, const char *prof, uint64_t declared, int64_t zero_value,
                 verdict_tally *t, seen *s)
{
    verdict_profile p;
    char err[128];
    CHECK(verdict_profile_parse(prof, &p, err, sizeof err) == 0);
    memset(t, 0, sizeof *t);
    memset(s, 0, sizeof *s);
    return verdict_case(&f->r, &f->c, f->valid, &f->p, f->e, &f->o, &p, declared, zero_value, t,
                        collect, s);
}

/* Counts of every class but `cls` are 0, in counts and accepted. */
static int only(const verdict_tally *t, uint32_t cls)
{
    for (uint32_t k = 1; k < ORACLE_CLASS_COUNT; k++)
        if (k != cls && (t->counts[k] || t->accepted[k]))
            return 0;
    return 1;
}

static const uint64_t F32_ONE = 0x3f800000u, F32_TWO = 0x40000000u, F32_THREE = 0x40400000u,
                      F32_SIX = 0x40c00000u, F32_MIN_NORMAL = 0x00800000u;

static void test_exact_match(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    uint64_t a[2] = {F32_SIX, F32_ONE}, b[2] = {F32_THREE, F32_THREE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 2, b, 2);
    CHECK(f.valid && f.p.count == 2 && f.e[0].kind == ORACLE_EXACT && f.e[0].bits == F32_TWO);
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 1);
    CHECK(s.n == 0);
    CHECK(t.cases == 1 && t.elements == 2 && only(&t, ORACLE_CLASS_COUNT));
    CHECK(!verdict_tally_failed(&t) && !verdict_tally_accepted(&t));
    char buf[64];
    verdict_profile p;
    verdict_profile_parse("exact", &p, buf, sizeof buf);
    CHECK(!strcmp(verdict_certificate(&t, &p, 0, 0, buf, sizeof buf), "CONFORMANT"));
}

static void test_one_ulp(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    uint64_t a[2] = {F32_SIX, F32_ONE}, b[2] = {F32_THREE, F32_THREE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 2, b, 2);
    oracle_store(DVG_DTYPE_F32, f.out, 1, f.e[1].bits + 1); /* 1/3, one ulp up */
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_WRONG_VALUE && !s.ex[0].accepted);
    CHECK(s.ex[0].index == 1 && s.ex[0].ulps == 1 && s.ex[0].elements == 1);
    CHECK(s.ex[0].a == F32_ONE && s.ex[0].b == F32_THREE && s.ex[0].actual == f.e[1].bits + 1);
    CHECK(s.ex[0].operand_a == ORACLE_OPERAND_NORMAL && s.ex[0].operand_b == ORACLE_OPERAND_NORMAL);
    CHECK(t.counts[ORACLE_CLASS_WRONG_VALUE] == 1 && only(&t, ORACLE_CLASS_WRONG_VALUE));
    CHECK(t.max_ulps == 1 && t.ulp_hist[0] == 1 && verdict_tally_failed(&t));
    /* within ulp:1 */
    CHECK(judge(&f, "ulp:1", 0, 0, &t, &s) == 1);
    CHECK(s.n == 1 && s.ex[0].accepted);
    CHECK(t.accepted[ORACLE_CLASS_WRONG_VALUE] == 1 && !t.counts[ORACLE_CLASS_WRONG_VALUE]);
    CHECK(!verdict_tally_failed(&t) && verdict_tally_accepted(&t));
}

static void test_nan_expected(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    uint64_t a[1] = {0}, b[1] = {0};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 1, b, 1);
    CHECK(f.e[0].kind == ORACLE_ANY_NAN);
    oracle_store(DVG_DTYPE_F32, f.out, 0, 0x7fc01234u); /* any NaN does */
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 1 && s.n == 0);
    oracle_store(DVG_DTYPE_F32, f.out, 0, F32_ONE); /* a number does not */
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_NAN_EXPECTED && !s.ex[0].accepted);
    CHECK(s.ex[0].operand_a == ORACLE_OPERAND_ZERO && s.ex[0].operand_b == ORACLE_OPERAND_ZERO);
    CHECK(t.counts[ORACLE_CLASS_NAN_EXPECTED] == 1 && only(&t, ORACLE_CLASS_NAN_EXPECTED));
}

/* min normal / 2 is subnormal: a kernel that flushes it to +0. */
static void test_flushed_subnormal(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    char buf[96];
    verdict_profile exact;
    verdict_profile_parse("exact", &exact, buf, sizeof buf);
    uint64_t a[1] = {F32_MIN_NORMAL}, b[1] = {F32_TWO};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 1, b, 1);
    CHECK(f.e[0].kind == ORACLE_EXACT && f.e[0].bits == 0x00400000u);
    oracle_store(DVG_DTYPE_F32, f.out, 0, 0);
    /* exact: a failure */
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT && !s.ex[0].accepted);
    CHECK(t.counts[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] == 1 && t.subnormal_results == 1);
    CHECK(only(&t, ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT));
    CHECK(!strcmp(verdict_certificate(&t, &exact, 0, 0, buf, sizeof buf), "NONCONFORMANT"));
    /* ftz: accepted */
    CHECK(judge(&f, "ftz", 0, 0, &t, &s) == 1);
    CHECK(s.n == 1 && s.ex[0].accepted);
    CHECK(t.accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] == 1 &&
          !t.counts[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT]);
    /* exact, but the descriptor declares the flush: accepted too */
    CHECK(judge(&f, "exact", DVG_DEV_FLUSH_SUBNORMAL_OUTPUT, 0, &t, &s) == 1);
    CHECK(s.n == 1 && s.ex[0].accepted && t.accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] == 1);
    CHECK(!strcmp(verdict_certificate(&t, &exact, DVG_DEV_FLUSH_SUBNORMAL_OUTPUT, 0, buf, sizeof buf),
                  "CONFORMANT under profile ftz (declared)"));
    /* a declaration of another deviation does not */
    CHECK(judge(&f, "exact", DVG_DEV_SUBNORMAL_INPUT_ZERO, 0, &t, &s) == 0);
}

/* The values of a processor's flush-to-zero and denormals-are-zero modes
 * (issue 17), each accepted by its profile or declaration and no other:
 *   0: 0x00ffffff / 2 -> 0: tiny before rounding, rounds to the smallest
 *      normal (x86 FZ flushes it)
 *   1: 0 / 0x00000001 -> NaN: DAZ reads 0 / 0
 *   2: 0x00000001 / 1 -> 0: both modes give it
 *   3: 1 / 0x00400000 -> inf: DAZ reads 1 / 0
 *   4: 1 / 3, exact */
static void test_ftz_daz(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    char buf[96];
    verdict_profile exact, ftz, daz, both;
    verdict_profile_parse("exact", &exact, buf, sizeof buf);
    verdict_profile_parse("ftz", &ftz, buf, sizeof buf);
    verdict_profile_parse("daz", &daz, buf, sizeof buf);
    verdict_profile_parse("ftz+daz", &both, buf, sizeof buf);
    CHECK(ftz.modes == ORACLE_MODE_FTZ && daz.modes == ORACLE_MODE_DAZ &&
          both.modes == (ORACLE_MODE_FTZ | ORACLE_MODE_DAZ) && exact.modes == 0);
    CHECK(verdict_profile_parse("fz", &exact, buf, sizeof buf) == -1 && strstr(buf, "ftz+daz"));
    verdict_profile_parse("exact", &exact, buf, sizeof buf);
    uint64_t a[5] = {0x00ffffff, 0, 1, F32_ONE, F32_ONE},
             b[5] = {F32_TWO, 1, F32_ONE, 0x00400000, F32_THREE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 5, b, 5);
    CHECK(f.e[0].bits == F32_MIN_NORMAL && f.e[1].bits == 0 && f.e[2].bits == 1 &&
          f.e[3].bits == 0x7f000000);
    oracle_store(DVG_DTYPE_F32, f.out, 0, 0);
    oracle_store(DVG_DTYPE_F32, f.out, 1, 0xffc00000);
    oracle_store(DVG_DTYPE_F32, f.out, 2, 0);
    oracle_store(DVG_DTYPE_F32, f.out, 3, 0x7f800000);
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(t.counts[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] == 2 &&
          t.counts[ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO] == 2 && !verdict_tally_accepted(&t));
    /* ftz: the flushes, not the operands read as zero */
    CHECK(judge(&f, "ftz", 0, 0, &t, &s) == 0);
    CHECK(t.accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] == 2 &&
          t.counts[ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO] == 2);
    /* daz: element 2 is the value DAZ gives, element 0 stays a failure */
    CHECK(judge(&f, "daz", 0, 0, &t, &s) == 0);
    CHECK(t.accepted[ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO] == 3 &&
          t.counts[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] == 1 && t.class_cases[0] == 0);
    /* both: conformant, by profile or by declaration */
    CHECK(judge(&f, "ftz+daz", 0, 0, &t, &s) == 1);
    CHECK(!strcmp(verdict_certificate(&t, &both, 0, 0, buf, sizeof buf),
                  "CONFORMANT under profile ftz+daz"));
    uint64_t decl = DVG_DEV_FLUSH_SUBNORMAL_OUTPUT | DVG_DEV_SUBNORMAL_INPUT_ZERO;
    CHECK(judge(&f, "exact", decl, 0, &t, &s) == 1);
    CHECK(!strcmp(verdict_certificate(&t, &exact, decl, 0, buf, sizeof buf),
                  "CONFORMANT under profile ftz+daz (declared)"));
    CHECK(judge(&f, "ftz", DVG_DEV_SUBNORMAL_INPUT_ZERO, 0, &t, &s) == 1);
    CHECK(!strcmp(verdict_certificate(&t, &ftz, DVG_DEV_SUBNORMAL_INPUT_ZERO, 0, buf, sizeof buf),
                  "CONFORMANT under profile ftz+daz (declared)"));
    /* ... and nothing else changed: one wrong normal result fails */
    oracle_store(DVG_DTYPE_F32, f.out, 4, f.e[4].bits + 1);
    CHECK(judge(&f, "ftz+daz", decl, 0, &t, &s) == 0);
    CHECK(t.counts[ORACLE_CLASS_WRONG_VALUE] == 1 && verdict_tally_failed(&t));
    CHECK(!strcmp(verdict_certificate(&t, &both, decl, 0, buf, sizeof buf), "NONCONFORMANT"));
    /* a flush to the zero of the other sign is no flush */
    oracle_store(DVG_DTYPE_F32, f.out, 4, f.e[4].bits);
    oracle_store(DVG_DTYPE_F32, f.out, 0, 0x80000000);
    CHECK(judge(&f, "ftz+daz", decl, 0, &t, &s) == 0);
    CHECK(t.counts[ORACLE_CLASS_WRONG_VALUE] == 1);
}

/* Issue 18.1: OpenVINO leaves x / 0 undefined, so reading a subnormal
 * divisor as zero explains IEEE's inf only. A bf16 kernel that truncates
 * 3 / 0x007f (0x7f42) to 0x7f41 is a wrong value under every profile. */
static void test_daz_undefined_divisor(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    uint64_t a[1] = {0x4040}, b[1] = {0x007f};
    setup(&f, DVG_VARIANT_OPENVINO_DIVIDE_1, DVG_DTYPE_BF16, a, 1, b, 1);
    CHECK(f.e[0].kind == ORACLE_EXACT && f.e[0].bits == 0x7f42);
    oracle_store(DVG_DTYPE_BF16, f.out, 0, 0x7f41);
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_WRONG_VALUE && s.ex[0].ulps == 1);
    CHECK(judge(&f, "ftz+daz", DVG_DEV_SUBNORMAL_INPUT_ZERO, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_WRONG_VALUE && !s.ex[0].accepted);
    /* what DAZ does give, inf, is accepted */
    oracle_store(DVG_DTYPE_BF16, f.out, 0, 0x7f80);
    CHECK(judge(&f, "daz", 0, 0, &t, &s) == 1);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO && s.ex[0].accepted);
}

/* An odd number of i4 elements: the high nibble of C's last byte is not an
 * element; writing it is the finding padding-written, under every profile. */
static void test_padding_written(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    char buf[96];
    verdict_profile both;
    verdict_profile_parse("ftz+daz", &both, buf, sizeof buf);
    uint64_t a[3] = {6, 5, 7}, b[3] = {3, 1, 2};
    setup(&f, DVG_VARIANT_SONNX_DIV, DVG_DTYPE_I4, a, 3, b, 3);
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 1);
    f.o.side = VERDICT_SIDE_PADDING;
    CHECK(judge(&f, "ftz+daz", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_PADDING_WRITTEN && !s.ex[0].accepted);
    CHECK(strstr(s.ex[0].note, "high nibble") != NULL && s.ex[0].index == UINT64_MAX);
    CHECK(t.counts[ORACLE_CLASS_PADDING_WRITTEN] == 1 && only(&t, ORACLE_CLASS_PADDING_WRITTEN));
    CHECK(!strcmp(verdict_certificate(&t, &both, 0, 0, buf, sizeof buf), "NONCONFORMANT"));
    CHECK(!strcmp(oracle_class_name(ORACLE_CLASS_PADDING_WRITTEN), "padding-written"));
}

/* Integer x / 0: unspecified, any value conforms unless the descriptor
 * declares the value. */
static void test_int_div_zero(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    uint64_t a[2] = {7, 9}, b[2] = {0, 3};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I32, a, 2, b, 2);
    CHECK(f.e[0].kind == ORACLE_UNSPECIFIED && f.e[0].rule == ORACLE_RULE_INT_DIV_ZERO);
    CHECK(f.e[1].kind == ORACLE_EXACT && f.e[1].bits == 3);
    oracle_store(DVG_DTYPE_I32, f.out, 0, 12345);
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 1 && s.n == 0);
    CHECK(t.unspecified == 1 && t.declared_checked == 0 && only(&t, ORACLE_CLASS_COUNT));
    /* declared -1, gave -1 */
    oracle_store(DVG_DTYPE_I32, f.out, 0, 0xffffffffu);
    CHECK(judge(&f, "exact", DVG_DEV_INT_DIV_ZERO_VALUE, -1, &t, &s) == 1 && s.n == 0);
    CHECK(t.unspecified == 1 && t.declared_checked == 1);
    /* declared -1, gave 12345: the descriptor lies */
    oracle_store(DVG_DTYPE_I32, f.out, 0, 12345);
    CHECK(judge(&f, "exact", DVG_DEV_INT_DIV_ZERO_VALUE, -1, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_WRONG_VALUE && !s.ex[0].accepted);
    CHECK(s.ex[0].expected.kind == ORACLE_EXACT && s.ex[0].expected.bits == 0xffffffffu);
    CHECK(strstr(s.ex[0].note, "declares integer x/0 = -1") != NULL);
    CHECK(t.declared_checked == 1 && t.counts[ORACLE_CLASS_WRONG_VALUE] == 1);
}

/* Refused elements (VERDICT_ELEM_REFUSED, the narrowed calls of a case
 * the implementation refused): accepted where the oracle leaves the
 * result undefined (refused-undefined, the claim stays CONFORMANT), a
 * failure where it is defined, and a failure everywhere under a profile
 * with +no-refusals. */
static void test_refused(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    char buf[128], words[VERDICT_ACTUAL_MAX];
    uint64_t a[3] = {7, 0x80000000u, 9}, b[3] = {0, 0xffffffffu, 3};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I32, a, 3, b, 3);
    CHECK(f.e[0].kind == ORACLE_UNSPECIFIED && f.e[1].kind == ORACLE_UNSPECIFIED &&
          f.e[2].kind == ORACLE_EXACT);
    f.flags[0] = f.flags[1] = VERDICT_ELEM_REFUSED;
    f.o.flags = f.flags;
    snprintf(f.o.note, sizeof f.o.note, "compute refused: integer division by zero");
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 1);
    CHECK(s.n == 2 && s.ex[0].cls == ORACLE_CLASS_REFUSED_UNDEFINED && s.ex[0].accepted);
    CHECK(s.ex[0].index == 0 && s.ex[1].index == 1 && s.ex[1].accepted);
    CHECK(strstr(s.ex[0].note, "integer division by zero") != NULL);
    CHECK(!strcmp(verdict_actual_text(DVG_DTYPE_I32, &s.ex[0], words, sizeof words),
                  VERDICT_REFUSED_TEXT));
    CHECK(t.accepted[ORACLE_CLASS_REFUSED_UNDEFINED] == 2 && only(&t, ORACLE_CLASS_REFUSED_UNDEFINED));
    CHECK(t.class_cases[ORACLE_CLASS_REFUSED_UNDEFINED] == 1 && !verdict_tally_failed(&t));
    verdict_profile p;
    CHECK(verdict_profile_parse("exact", &p, buf, sizeof buf) == 0);
    CHECK(!strcmp(verdict_certificate(&t, &p, 0, 0, buf, sizeof buf), "CONFORMANT"));
    CHECK(verdict_may_refuse(&p, &f.e[0]) && !verdict_may_refuse(&p, &f.e[2]));
    /* a defined element refused: a failure, the claim fails */
    f.flags[2] = VERDICT_ELEM_REFUSED;
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 3 && s.ex[2].cls == ORACLE_CLASS_FAILURE && !s.ex[2].accepted && s.ex[2].index == 2);
    CHECK(t.counts[ORACLE_CLASS_FAILURE] == 1 && verdict_tally_failed(&t));
    CHECK(!strcmp(verdict_certificate(&t, &p, 0, 0, buf, sizeof buf), "NONCONFORMANT"));
    /* +no-refusals: every refusal departs */
    f.flags[2] = 0;
    CHECK(verdict_profile_parse("exact+no-refusals", &p, buf, sizeof buf) == 0);
    CHECK(p.no_refusals && p.modes == 0 && !strcmp(p.name, "exact+no-refusals"));
    CHECK(!verdict_may_refuse(&p, &f.e[0]));
    CHECK(judge(&f, "exact+no-refusals", 0, 0, &t, &s) == 0);
    CHECK(s.n == 2 && s.ex[0].cls == ORACLE_CLASS_FAILURE && s.ex[1].cls == ORACLE_CLASS_FAILURE);
    CHECK(t.counts[ORACLE_CLASS_FAILURE] == 2 && !t.accepted[ORACLE_CLASS_REFUSED_UNDEFINED]);
    CHECK(verdict_profile_parse("no-refusals", &p, buf, sizeof buf) == 0 &&
          p.no_refusals && !strcmp(p.name, "exact+no-refusals"));
    CHECK(verdict_profile_parse("ftz+daz+no-refusals", &p, buf, sizeof buf) == 0 &&
          p.no_refusals && p.modes == (ORACLE_MODE_FTZ | ORACLE_MODE_DAZ));
    CHECK(verdict_profile_parse("ulp:2+no-refusals", &p, buf, sizeof buf) == 0 &&
          p.ulp_tolerance == 2 && p.no_refusals);
    CHECK(verdict_profile_parse("+no-refusals", &p, buf, sizeof buf) == -1);
    CHECK(verdict_profile_parse("exact+no-refusals+no-refusals", &p, buf, sizeof buf) == -1);
    /* +bitwise (issue 37): conformant answers of other contexts whose bits
     * differ fail; with +no-refusals in either order, each once */
    CHECK(verdict_profile_parse("exact+bitwise", &p, buf, sizeof buf) == 0 && p.bitwise &&
          !p.no_refusals && !strcmp(p.name, "exact+bitwise"));
    CHECK(verdict_profile_parse("bitwise", &p, buf, sizeof buf) == 0 && p.bitwise &&
          !strcmp(p.name, "exact+bitwise"));
    CHECK(verdict_profile_parse("ulp:2+bitwise+no-refusals", &p, buf, sizeof buf) == 0 &&
          p.bitwise && p.no_refusals && p.ulp_tolerance == 2 &&
          !strcmp(p.name, "ulp:2+no-refusals+bitwise"));
    CHECK(verdict_profile_parse("exact+bitwise+bitwise", &p, buf, sizeof buf) == -1);
    CHECK(verdict_profile_parse("+bitwise", &p, buf, sizeof buf) == -1);
    CHECK(verdict_profile_parse("exact", &p, buf, sizeof buf) == 0 && !p.bitwise);
    /* what is narrowed: a failure of compute, on a valid case, under a
     * profile that accepts refusals */
    verdict_outputs o;
    memset(&o, 0, sizeof o);
    o.outcome = VERDICT_OUT_FAILURE;
    CHECK(verdict_profile_parse("exact", &p, buf, sizeof buf) == 0);
    CHECK(verdict_refusal_narrowable(&o, 1, &p) && !verdict_refusal_narrowable(&o, 0, &p));
    o.in_shape = 1;
    CHECK(!verdict_refusal_narrowable(&o, 1, &p));
    o.in_shape = 0;
    o.outcome = VERDICT_OUT_CRASH;
    CHECK(!verdict_refusal_narrowable(&o, 1, &p));
    o.outcome = VERDICT_OUT_FAILURE;
    CHECK(verdict_profile_parse("exact+no-refusals", &p, buf, sizeof buf) == 0);
    CHECK(!verdict_refusal_narrowable(&o, 1, &p));
}

static void test_flags(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    uint64_t a[2] = {F32_SIX, F32_ONE}, b[2] = {F32_THREE, F32_THREE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 2, b, 2);
    f.o.flags = f.flags;
    f.flags[0] = VERDICT_ELEM_UNWRITTEN;
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_NOT_WRITTEN && s.ex[0].index == 0);
    CHECK(t.counts[ORACLE_CLASS_NOT_WRITTEN] == 1 && only(&t, ORACLE_CLASS_NOT_WRITTEN));
    /* nondeterministic: the note names both runs */
    memcpy(f.out2, f.out, sizeof f.out);
    oracle_store(DVG_DTYPE_F32, f.out2, 1, F32_ONE);
    f.o.out2 = f.out2;
    f.flags[0] = 0;
    f.flags[1] = VERDICT_ELEM_NONDET;
    CHECK(judge(&f, "ftz", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_NONDETERMINISTIC && s.ex[0].index == 1);
    CHECK(strstr(s.ex[0].note, "run 2 gave 0x3f800000") != NULL);
    /* ... and the words for what it gave show both runs' values */
    CHECK(s.ex[0].actual2 == F32_ONE && s.ex[0].actual != F32_ONE);
    char got[VERDICT_ACTUAL_MAX], want[VERDICT_ACTUAL_MAX], one[VERDICT_TEXT_MAX];
    snprintf(want, sizeof want, "%s in run 1, 1 (0x3f800000) in run 2",
             verdict_bits_text(DVG_DTYPE_F32, s.ex[0].actual, one, sizeof one));
    CHECK(!strcmp(verdict_actual_text(DVG_DTYPE_F32, &s.ex[0], got, sizeof got), want));
}

static void test_invalid_input(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    uint64_t a[2] = {F32_ONE, F32_ONE}, b[3] = {F32_ONE, F32_ONE, F32_ONE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 2, b, 3); /* (2) / (3): no broadcast */
    CHECK(!f.valid);
    /* accepted */
    f.o.has_shape = 1;
    f.o.shape.rank = 1;
    f.o.shape.dims[0] = 3;
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_INVALID_ACCEPTED && s.ex[0].index == UINT64_MAX);
    CHECK(t.cases == 1 && t.counts[ORACLE_CLASS_INVALID_ACCEPTED] == 1 &&
          only(&t, ORACLE_CLASS_INVALID_ACCEPTED));
    /* rejected: conforms */
    memset(&f.o, 0, sizeof f.o);
    f.o.outcome = VERDICT_OUT_INVALID_INPUT;
    f.o.in_shape = 1;
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 1 && s.n == 0 && t.cases == 1);
    /* 'unsupported' from output_shape: no claim failure either */
    f.o.outcome = VERDICT_OUT_UNSUPPORTED;
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 1 && s.n == 0);
    /* a failure status is one */
    f.o.outcome = VERDICT_OUT_FAILURE;
    snprintf(f.o.note, sizeof f.o.note, "failure in output_shape: status 3");
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_FAILURE && !strcmp(s.ex[0].note, f.o.note));

    /* valid input rejected */
    uint64_t b1[2] = {F32_ONE, F32_ONE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 2, b1, 2);
    memset(&f.o, 0, sizeof f.o);
    f.o.outcome = VERDICT_OUT_INVALID_INPUT;
    f.o.in_shape = 1;
    snprintf(f.o.note, sizeof f.o.note, "invalid-input in output_shape: shapes differ");
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_VALID_REJECTED && !strcmp(s.ex[0].note, f.o.note));
    /* unsupported on valid input: a claim failure */
    f.o.outcome = VERDICT_OUT_UNSUPPORTED;
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_UNSUPPORTED_CLAIM);
}

static void test_case_level(void)
{
    fixture f;
    verdict_tally t;
    seen s;
    char buf[96];
    verdict_profile exact;
    verdict_profile_parse("exact", &exact, buf, sizeof buf);
    uint64_t a[2] = {F32_SIX, F32_ONE}, b[2] = {F32_THREE, F32_THREE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 2, b, 2);
    /* a crash: one case-level finding with its note; no element judged */
    verdict_outputs ok = f.o;
    memset(&f.o, 0, sizeof f.o);
    f.o.outcome = VERDICT_OUT_CRASH;
    snprintf(f.o.note, sizeof f.o.note, "crash in compute (run 1): SIGSEGV at 0x0");
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_CRASH && s.ex[0].index == UINT64_MAX);
    CHECK(s.ex[0].operand_a == ORACLE_OPERAND_COUNT && !strcmp(s.ex[0].note, f.o.note));
    CHECK(t.cases == 1 && t.elements == 0 && t.counts[ORACLE_CLASS_CRASH] == 1);
    CHECK(!strcmp(verdict_certificate(&t, &exact, 0, 0, buf, sizeof buf), "CRASHED"));
    /* the other ends */
    static const uint32_t ends[][2] = {
        {VERDICT_OUT_HANG, ORACLE_CLASS_HANG},
        {VERDICT_OUT_OOB_WRITE, ORACLE_CLASS_OOB_WRITE},
        {VERDICT_OUT_OOB_READ, ORACLE_CLASS_OOB_READ},
        {VERDICT_OUT_INPUT_MUTATED, ORACLE_CLASS_INPUT_MUTATED},
        {VERDICT_OUT_BAD_SHAPE, ORACLE_CLASS_WRONG_SHAPE},
        {VERDICT_OUT_FAILURE, ORACLE_CLASS_FAILURE},
    };
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) {
        f.o.outcome = ends[i][0];
        CHECKF(judge(&f, "exact", 0, 0, &t, &s) == 0 && s.n == 1 && s.ex[0].cls == ends[i][1] &&
                   only(&t, ends[i][1]),
               "outcome %u", ends[i][0]);
    }
    /* a shape other than the oracle's */
    f.o = ok;
    f.o.shape.dims[0] = 3;
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 1 && s.ex[0].cls == ORACLE_CLASS_WRONG_SHAPE &&
          strstr(s.ex[0].note, "output_shape gave") != NULL);
    /* right values, but an input changed and the FP state leaked: case
     * findings after the elements */
    f.o = ok;
    f.o.side = VERDICT_SIDE_INPUT | VERDICT_SIDE_FP_STATE;
    snprintf(f.o.leak, sizeof f.o.leak, "compute (run 1): rounding mode left changed");
    oracle_store(DVG_DTYPE_F32, f.out, 0, F32_ONE);
    CHECK(judge(&f, "exact", 0, 0, &t, &s) == 0);
    CHECK(s.n == 3 && s.ex[0].cls == ORACLE_CLASS_WRONG_VALUE &&
          s.ex[1].cls == ORACLE_CLASS_INPUT_MUTATED && s.ex[2].cls == ORACLE_CLASS_FP_STATE_LEAKED);
    CHECK(!strcmp(s.ex[2].note, f.o.leak));
    CHECK(t.counts[ORACLE_CLASS_WRONG_VALUE] == 1 && t.counts[ORACLE_CLASS_INPUT_MUTATED] == 1 &&
          t.counts[ORACLE_CLASS_FP_STATE_LEAKED] == 1);
}

/* verdict_tally_add adds every field (max_ulps: the larger; the cache
 * figure: the larger growth with its calls, the least and most bytes per
 * shape, so that adding one figure twice changes nothing). */
static void test_tally_add(void)
{
    verdict_tally x, y;
    uint64_t *px = (uint64_t *)&x, *py = (uint64_t *)&y;
    size_t n = sizeof x / sizeof(uint64_t);
    CHECK(sizeof x % sizeof(uint64_t) == 0); /* every field is a uint64_t */
    for (size_t i = 0; i < n; i++) {
        px[i] = 1000 + i;
        py[i] = 7 * i + 1;
    }
    x.max_ulps = 5;
    y.max_ulps = 9;
    verdict_tally sum = x;
    verdict_tally_add(&sum, &y);
    uint64_t *ps = (uint64_t *)&sum;
    size_t at_max = (size_t)(&x.max_ulps - px);
    size_t cache_from = (size_t)(&x.cache_bytes - px), cache_to = (size_t)(&x.cache_hi - px);
    for (size_t i = 0; i < n; i++)
        if (i != at_max && (i < cache_from || i > cache_to))
            CHECKF(ps[i] == px[i] + py[i], "field %zu of verdict_tally", i);
    CHECK(sum.max_ulps == 9);
    /* the larger growth with its own calls; lo the lesser, hi the larger */
    const verdict_tally *big = x.cache_bytes > y.cache_bytes ? &x : &y;
    CHECK(sum.cache_bytes == big->cache_bytes && sum.cache_calls == big->cache_calls);
    CHECK(sum.cache_lo == (x.cache_lo < y.cache_lo ? x.cache_lo : y.cache_lo));
    CHECK(sum.cache_hi == (x.cache_hi > y.cache_hi ? x.cache_hi : y.cache_hi));
    verdict_tally again = sum;
    verdict_tally_add(&again, &y);
    CHECK(again.cache_bytes == sum.cache_bytes && again.cache_lo == sum.cache_lo &&
          again.cache_hi == sum.cache_hi);
    y.max_ulps = 2;
    sum = x;
    verdict_tally_add(&sum, &y);
    CHECK(sum.max_ulps == 5);

    /* two judged cases added give the tally of judging both into one */
    fixture f;
    seen s;
    verdict_tally t1, t2, both;
    uint64_t a[2] = {F32_SIX, F32_ONE}, b[2] = {F32_THREE, F32_THREE};
    setup(&f, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, a, 2, b, 2);
    oracle_store(DVG_DTYPE_F32, f.out, 1, f.e[1].bits + 3);
    judge(&f, "exact", 0, 0, &t1, &s);
    uint64_t ai[2] = {7, 9}, bi[2] = {0, 3};
    fixture g;
    setup(&g, DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I32, ai, 2, bi, 2);
    judge(&g, "exact", 0, 0, &t2, &s);
    both = t1;
    verdict_tally_add(&both, &t2);
    CHECK(both.cases == 2 && both.elements == 4 && both.unspecified == 1 && both.max_ulps == 3);
    CHECK(both.counts[ORACLE_CLASS_WRONG_VALUE] == 1 && both.ulp_hist[verdict_ulp_bucket(3)] == 1);
}

static void test_elem_text(void)
{
    char buf[VERDICT_TEXT_MAX];
    oracle_elem e;
    memset(&e, 0, sizeof e);
    e.kind = ORACLE_EXACT;
    e.bits = 0x3fc00000u;
    CHECK(!strcmp(verdict_elem_text(DVG_DTYPE_F32, &e, buf, sizeof buf), "1.5 (0x3fc00000)"));
    e.kind = ORACLE_ANY_NAN;
    CHECK(!strcmp(verdict_elem_text(DVG_DTYPE_F32, &e, buf, sizeof buf), "nan (any)"));
    e.kind = ORACLE_ANY_INF;
    CHECK(!strcmp(verdict_elem_text(DVG_DTYPE_F32, &e, buf, sizeof buf), "+inf or -inf"));
    e.kind = ORACLE_UNSPECIFIED;
    CHECK(!strcmp(verdict_elem_text(DVG_DTYPE_I32, &e, buf, sizeof buf), "unspecified"));
    CHECK(!strcmp(verdict_bits_text(DVG_DTYPE_I8, 0xfc, buf, sizeof buf), "-4 (0xfc)"));
    char small[6];
    verdict_bits_text(DVG_DTYPE_F32, 0x3fc00000u, small, sizeof small);
    CHECK(strlen(small) == 5); /* cut, still terminated */
    /* what an implementation gave: one value, or both runs' when they differ */
    char got[VERDICT_ACTUAL_MAX];
    verdict_example ex;
    memset(&ex, 0, sizeof ex);
    ex.actual = ex.actual2 = 0xfc;
    CHECK(!strcmp(verdict_actual_text(DVG_DTYPE_I8, &ex, got, sizeof got), "-4 (0xfc)"));
    ex.actual2 = 0xfd;
    CHECK(!strcmp(verdict_actual_text(DVG_DTYPE_I8, &ex, got, sizeof got),
                  "-4 (0xfc) in run 1, -3 (0xfd) in run 2"));
    ex.actual = UINT64_C(0x8010000000000001); /* the longest f64 words fit */
    ex.actual2 = UINT64_C(0xffefffffffffffff);
    verdict_actual_text(DVG_DTYPE_F64, &ex, got, sizeof got);
    CHECK(strstr(got, "(0xffefffffffffffff) in run 2") != NULL);
}

/* A periodic case (verdict_outputs.period): i32, 1-D, 5 periods of P plus
 * 3 elements, x/0 at position 7 of every period. Judged with the period and
 * in full, the tallies and findings must be the same: all exact; one wrong
 * element in period 2; the same wrong element in every period; an
 * unwritten element in period 3 only. */
static void test_periodic(void)
{
    enum { P = 64, N = 5 * P + 3 };
    const oracle_variant *v = oracle_variant_by_name("onnx-div-14");
    dvg_attrs attrs;
    oracle_rules r;
    oracle_error why;
    oracle_attrs_default(v, &attrs);
    CHECK(oracle_rules_resolve(v->id, DVG_DTYPE_I32, &attrs, &r, &why) == ORACLE_OK);
    static uint8_t a[N * 4], b[N * 4], out[N * 4], flags[N];
    static oracle_elem e[N];
    for (uint32_t i = 0; i < N; i++) {
        uint32_t k = i % P;
        oracle_store(DVG_DTYPE_I32, a, i, (uint64_t)(uint32_t)(1000 - 37 * (int32_t)k));
        oracle_store(DVG_DTYPE_I32, b, i, k == 7 ? 0 : (uint64_t)(k % 5 + 1));
    }
    divcase c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "periodic");
    c.variant = v->id;
    c.dtype = DVG_DTYPE_I32;
    c.attrs = r.attrs;
    c.a_shape.rank = c.b_shape.rank = 1;
    c.a_shape.dims[0] = c.b_shape.dims[0] = N;
    c.a = a;
    c.b = b;
    c.a_bytes = c.b_bytes = sizeof a;
    oracle_plan p;
    CHECK(oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, &why) == ORACLE_OK);
    oracle_expect_tensor(&r, &p, a, b, e);
    verdict_profile prof;
    char err[64];
    CHECK(verdict_profile_parse("exact", &prof, err, sizeof err) == 0);
    for (int variant_of_output = 0; variant_of_output < 4; variant_of_output++) {
        for (uint32_t i = 0; i < N; i++)
            oracle_store(DVG_DTYPE_I32, out, i, e[i].kind == ORACLE_EXACT ? e[i].bits : 12345);
        memset(flags, 0, sizeof flags);
        if (variant_of_output == 1)
            oracle_store(DVG_DTYPE_I32, out, 2 * P + 11, e[2 * P + 11].bits + 1);
        if (variant_of_output == 2)
            for (uint32_t k = 0; k < 5; k++)
                oracle_store(DVG_DTYPE_I32, out, k * P + 11, e[k * P + 11].bits + 1);
        if (variant_of_output == 3)
            flags[3 * P + 20] = VERDICT_ELEM_UNWRITTEN;
        verdict_outputs o;
        memset(&o, 0, sizeof o);
        o.outcome = VERDICT_OUT_OK;
        o.has_shape = 1;
        o.shape = p.out;
        o.computed = 1;
        o.out1 = out;
        o.flags = flags;
        verdict_tally full, per;
        seen sf, sp;
        memset(&full, 0, sizeof full);
        memset(&per, 0, sizeof per);
        memset(&sf, 0, sizeof sf);
        memset(&sp, 0, sizeof sp);
        int vf = verdict_case(&r, &c, 1, &p, e, &o, &prof, 0, 0, &full, collect, &sf);
        o.period = P; /* the expectation of the first period only */
        int vp = verdict_case(&r, &c, 1, &p, e, &o, &prof, 0, 0, &per, collect, &sp);
        CHECK(vf == vp && vf == (variant_of_output == 0));
        CHECK(!memcmp(&full, &per, sizeof full));
        CHECK(full.elements == N && full.unspecified == 5);
        CHECK(sf.n == sp.n);
        for (int k = 0; k < sf.n && k < sp.n; k++)
            CHECK(sf.ex[k].cls == sp.ex[k].cls && sf.ex[k].index == sp.ex[k].index &&
                  sf.ex[k].elements == sp.ex[k].elements && sf.ex[k].actual == sp.ex[k].actual);
        if (variant_of_output == 1)
            CHECK(sp.n == 1 && sp.ex[0].index == 2 * P + 11 && sp.ex[0].elements == 1);
        if (variant_of_output == 2)
            CHECK(sp.n == 1 && sp.ex[0].index == 11 && sp.ex[0].elements == 5 &&
                  per.counts[ORACLE_CLASS_WRONG_VALUE] == 5);
        if (variant_of_output == 3)
            CHECK(sp.n == 1 && sp.ex[0].cls == ORACLE_CLASS_NOT_WRITTEN &&
                  sp.ex[0].index == 3 * P + 20);
    }
}

int main(void)
{
    test_exact_match();
    test_one_ulp();
    test_nan_expected();
    test_flushed_subnormal();
    test_ftz_daz();
    test_daz_undefined_divisor();
    test_padding_written();
    test_int_div_zero();
    test_flags();
    test_refused();
    test_invalid_input();
    test_case_level();
    test_tally_add();
    test_elem_text();
    test_periodic();
    return check_done("test_judge");
}
