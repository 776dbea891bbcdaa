/* SPDX-License-Identifier: MIT */
/*
 * oracle/expect.h: the expected result of each element of C = A / B.
 *
 * The answer for one element is one of
 *   ORACLE_EXACT        exactly `bits`;
 *   ORACLE_ANY_NAN      any NaN (any payload and sign);
 *   ORACLE_ANY_INF      +inf or -inf, sign not specified (SONNX "inf");
 *                       `bits` holds the IEEE-signed one;
 *   ORACLE_UNSPECIFIED  any value conforms; `bits` holds the value IEEE or
 *                       the other reading would give when there is one
 *                       (has_alt), for reports only.
 * and names the rule that produced it (oracle_rule_info for the text and the
 * requirement it comes from).
 *
 * Integer elements also carry `alt`: the quotient under the other rounding
 * (floor when the variant truncates and the reverse), so a verdict can tell
 * floor-vs-trunc from any other wrong value.
 */
#ifndef ORACLE_EXPECT_H
#define ORACLE_EXPECT_H

#include <stddef.h>
#include <stdint.h>
#include "oracle/rules.h"
#include "oracle/shape.h"

#define ORACLE_EXACT       0u
#define ORACLE_ANY_NAN     1u
#define ORACLE_ANY_INF     2u
#define ORACLE_UNSPECIFIED 3u

/* X(ID, name, requirement, text): every rule an element result can come
 * from. The name appears in `divergence explain` and reports. */
#define ORACLE_RULE_LIST(X)                                                             \
    X(FLOAT_QUOTIENT, "float-quotient", "IEEE-DIV-RNE",                                 \
      "the exact quotient rounded to nearest, ties to even, in the output type")        \
    X(FLOAT_NAN_OPERAND, "nan-operand", "IEEE-NAN-PROPAGATE",                           \
      "an operand is NaN, so the result is NaN")                                        \
    X(FLOAT_ZERO_BY_ZERO, "zero-by-zero", "IEEE-INVALID-NAN",                           \
      "0 / 0 is an invalid operation: NaN")                                             \
    X(FLOAT_INF_BY_INF, "inf-by-inf", "IEEE-INVALID-NAN",                               \
      "inf / inf is an invalid operation: NaN")                                         \
    X(FLOAT_INF_DIVIDEND, "inf-dividend", "IEEE-DIV-RNE",                               \
      "inf / finite is inf with sign = sign(A) xor sign(B)")                            \
    X(FLOAT_INF_DIVISOR, "inf-divisor", "IEEE-DIV-RNE",                                 \
      "finite / inf is zero with sign = sign(A) xor sign(B)")                           \
    X(FLOAT_DIV_ZERO_IEEE, "div-by-zero-ieee", "IEEE-DIV-ZERO",                         \
      "x / 0 with x non-zero is inf with sign = sign(x) xor sign(0)")                   \
    X(FLOAT_DIV_ZERO_UNDEFINED, "div-by-zero-undefined", "OV-DIV-ZERO-UNDEF",           \
      "division by zero is undefined: any value conforms (IEEE's inf is preferred)")    \
    X(FLOAT_DIV_ZERO_UNSIGNED_INF, "div-by-zero-unsigned-inf", "SONNX-FLOAT-INF",       \
      "x / 0 with x non-zero is 'inf' without a sign: +inf or -inf conforms")          \
    X(INT_TRUNC, "int-trunc", NULL,                                                     \
      "integer quotient rounded toward zero")                                           \
    X(INT_FLOOR, "int-floor", NULL,                                                     \
      "integer quotient rounded toward negative infinity")                              \
    X(INT_DIV_ZERO, "int-div-by-zero", "SEM-INT-DIV-ZERO",                              \
      "integer x / 0 is unspecified: any value conforms, a crash does not")             \
    X(INT_MIN_BY_MINUS_ONE, "int-min-by-minus-one", "SEM-INT-MIN-NEG1",                 \
      "INT_MIN / -1 is not representable: unspecified, any value conforms")

#define ORACLE_RULE_ENUM_(ID, name, req, text) ORACLE_RULE_##ID,
enum { ORACLE_RULE_LIST(ORACLE_RULE_ENUM_) ORACLE_RULE_COUNT_ };
#undef ORACLE_RULE_ENUM_

typedef struct oracle_rule_info {
    const char *name;
    const char *requirement; /* NULL: taken from the rules (rounding) */
    const char *text;
} oracle_rule_info;

/* Info of rule `rule` (ORACLE_RULE_*), or NULL. */
const oracle_rule_info *oracle_rule_info_get(uint32_t rule);

typedef struct oracle_elem {
    uint64_t bits;   /* expected bits (see kinds above) */
    uint64_t alt;    /* integers: the quotient under the other rounding;
                        unspecified: the preferred value */
    uint8_t kind;    /* ORACLE_EXACT .. ORACLE_UNSPECIFIED */
    uint8_t rule;    /* ORACLE_RULE_* */
    uint8_t has_alt; /* 1 when `alt` is meaningful */
    uint8_t reserved[5];
} oracle_elem;

/* Expected result of one element; a and b are zero-extended raw bits.
 * Uses the exact (integer-only) path. Depends on no FP state. */
void oracle_expect(const oracle_rules *r, uint64_t a, uint64_t b, oracle_elem *out);

/* The requirement ID that justifies `e` under `r` (never NULL). */
const char *oracle_elem_requirement(const oracle_rules *r, const oracle_elem *e);

/*
 * Expected results of n element pairs. Uses the fast path for the dtype
 * when the start-up self-check has enabled it (see oracle/fastpath.h),
 * the exact path otherwise; the answers are identical either way.
 */
void oracle_expect_n(const oracle_rules *r, const uint64_t *a, const uint64_t *b,
                     size_t n, oracle_elem *out);

/*
 * Expected results of every element of C for a planned case: out[i] for
 * output element i (row-major), p->count entries. a_data and b_data are
 * dense buffers of p->a_count and p->b_count elements of r->dtype.
 */
void oracle_expect_tensor(const oracle_rules *r, const oracle_plan *p,
                          const void *a_data, const void *b_data, oracle_elem *out);

/* 1 when `actual` bits conform to `e` (exact match, any NaN for ANY_NAN,
 * ±inf for ANY_INF, anything for UNSPECIFIED), else 0. */
int oracle_elem_accepts(uint32_t dtype, const oracle_elem *e, uint64_t actual);

#endif /* ORACLE_EXPECT_H */
