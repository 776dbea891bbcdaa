/* SPDX-License-Identifier: MIT */
/*
 * oracle/compare.h: the comparison primitives of the verdict step: ULP
 * distance in the output format, operand classes, and the classification
 * of one (expected, actual) pair into a difference class.
 *
 * The difference classes are one list (ORACLE_CLASS_LIST) shared by the
 * oracle, the harness, the store and the reports. The element-level ones
 * are decided here; the rest (crash, hang, ...) by the harness.
 */
#ifndef ORACLE_COMPARE_H
#define ORACLE_COMPARE_H

#include <stdint.h>
#include "oracle/expect.h"
#include "oracle/rules.h"

/* X(ID, name, description) */
#define ORACLE_CLASS_LIST(X)                                                          \
    X(MATCH, "match", "the result conforms")                                          \
    X(WRONG_VALUE, "wrong-value", "a different value (floats: with its ULP distance)")\
    X(FLOOR_VS_TRUNC, "floor-vs-trunc",                                               \
      "integer quotient rounded the other way (floor where truncation is due, or the reverse)") \
    X(FLUSHED_SUBNORMAL_OUTPUT, "flushed-subnormal-output",                           \
      "a subnormal result was flushed to zero")                                       \
    X(SUBNORMAL_INPUT_AS_ZERO, "subnormal-input-as-zero",                             \
      "a subnormal operand was treated as zero")                                      \
    X(NAN_EXPECTED, "nan-expected", "NaN was due, a number came")                     \
    X(NAN_UNEXPECTED, "nan-unexpected", "a NaN came where a number was due")         \
    X(WRONG_SIGN_INF, "wrong-sign-inf", "infinity of the wrong sign")                \
    X(WRONG_SIGN_ZERO, "wrong-sign-zero", "zero of the wrong sign")                  \
    X(INT_WRAP, "int-wrap", "integer result wrapped around the type's range")       \
    X(CRASH, "crash", "the implementation died on a signal")                          \
    X(HANG, "hang", "the implementation did not return within the timeout")         \
    X(OOB_WRITE, "out-of-bounds-write", "a write past the end of the output")        \
    X(OOB_READ, "out-of-bounds-read", "a read past the end of an input")              \
    X(INPUT_MUTATED, "input-mutated", "an input tensor was written")                 \
    X(NOT_WRITTEN, "element-not-written", "an output element was left unwritten")    \
    X(WRONG_SHAPE, "wrong-output-shape", "the reported output shape is wrong")       \
    X(VALID_REJECTED, "valid-input-rejected", "valid input was rejected as invalid") \
    X(INVALID_ACCEPTED, "invalid-input-accepted", "invalid input was accepted")      \
    X(NONDETERMINISTIC, "nondeterministic", "a second run gave a different answer")  \
    X(UNSUPPORTED_CLAIM, "unsupported-claim",                                         \
      "a claimed (variant, dtype) pair was answered 'unsupported'")                   \
    X(FAILURE, "failure", "the implementation returned a failure status")           \
    X(FP_STATE_LEAKED, "fp-state-leaked",                                             \
      "a call left the floating-point environment changed (rounding mode, FTZ/DAZ, traps)") \
    X(SIGNAL_STATE_LEAKED, "signal-state-leaked",                                     \
      "a call left signal handlers, the signal mask or a timer (alarm) changed")       \
    X(PADDING_WRITTEN, "padding-written",                                             \
      "the unused high nibble of an odd-length i4/u4 output's last byte was written")  \
    X(REFUSED_UNDEFINED, "refused-undefined",                                         \
      "refuses: error status, on elements whose result the spec leaves undefined (accepted)") \
    X(EARLIER_CALLS, "depends-on-earlier-calls",                                      \
      "the case departs only after certain earlier calls in the same worker (state kept between calls); alone it conforms") \
    X(RESOURCE_LEAK, "resource-leak",                                                 \
      "the plugin's memory, open files or threads grew steadily from call to call") \
    X(INSTANCES_NOT_CONCURRENT, "instances-not-concurrent",                           \
      "two instances used at once, each from its own thread, gave another answer")      \
    X(INSTANCE_NOT_CONCURRENT, "instance-not-concurrent",                             \
      "one instance used from two threads at once gave another answer")                 \
    X(IN_PLACE_A_WRONG, "in-place-a-wrong",                                           \
      "with C in A's buffer (in place) the answer differs, or the call failed")         \
    X(IN_PLACE_B_WRONG, "in-place-b-wrong",                                           \
      "with C in B's buffer (in place) the answer differs, or the call failed")         \
    X(THREAD_COUNT_DIFFERS, "thread-count-differs",                                   \
      "at another thread count (open_with's threads, OMP_NUM_THREADS) the answer differs") \
    X(LATE_WRITE, "late-write",                                                       \
      "the output (or an input) was written after compute returned, by a thread the plugin left running") \
    X(PERFORMANCE_CLIFF, "performance-cliff",                                         \
      "a call took 20 times or more the time per element of the plugin's comparable calls")

#define ORACLE_CLASS_ENUM_(ID, name, desc) ORACLE_CLASS_##ID,
enum { ORACLE_CLASS_LIST(ORACLE_CLASS_ENUM_) ORACLE_CLASS_COUNT };
#undef ORACLE_CLASS_ENUM_

/* Name and description of class `cls`; "?" for an unknown one. */
const char *oracle_class_name(uint32_t cls);
const char *oracle_class_description(uint32_t cls);
/* The class named `name`, or -1. */
int oracle_class_by_name(const char *name);

/*
 * ULP distance between two values of a float dtype: the number of
 * representable values between them plus one, with +0 and -0 counting as
 * one point; 0 when equal. UINT64_MAX when either is NaN or they are
 * infinities of different signs. Integers: |x - y| as unsigned.
 */
uint64_t oracle_ulp_distance(uint32_t dtype, uint64_t x, uint64_t y);

/* X(ID, name): operand classes, for signatures and reports. */
#define ORACLE_OPERAND_LIST(X)                                    \
    X(ZERO, "zero") X(SUBNORMAL, "subnormal") X(NORMAL, "normal") \
    X(INF, "inf") X(NAN, "nan")                                   \
    X(INT_MIN, "int-min") X(MINUS_ONE, "minus-one") X(ONE, "one") \
    X(INT_MAX, "int-max") X(NEGATIVE, "negative") X(POSITIVE, "positive")

#define ORACLE_OPERAND_ENUM_(ID, name) ORACLE_OPERAND_##ID,
enum { ORACLE_OPERAND_LIST(ORACLE_OPERAND_ENUM_) ORACLE_OPERAND_COUNT };
#undef ORACLE_OPERAND_ENUM_

/* Class of one operand's bits in `dtype`, and its name. */
uint32_t oracle_operand_class(uint32_t dtype, uint64_t bits);
const char *oracle_operand_name(uint32_t operand_class);

/*
 * The two subnormal modes of processors (bits of a mode set), as the
 * declared deviations DVG_DEV_FLUSH_SUBNORMAL_OUTPUT and
 * DVG_DEV_SUBNORMAL_INPUT_ZERO and the profiles ftz and daz name them:
 *   ORACLE_MODE_FTZ  flush-to-zero (x86 MXCSR.FZ, Arm FPCR.FZ): a result
 *                    whose exact quotient is tiny - non-zero and below the
 *                    smallest normal in magnitude - may be a zero with the
 *                    quotient's sign. This covers tininess detected before
 *                    rounding (x86: 0x00ffffff / 2 flushes although it
 *                    rounds to 0x00800000) and after it (Arm), which flushes
 *                    a subset; nothing else (a zero of the other sign, a
 *                    normal quotient) is a flush.
 *   ORACLE_MODE_DAZ  denormals-are-zero (x86 MXCSR.DAZ): every subnormal
 *                    operand is read as a zero of its sign, and the answer
 *                    is the one for those operands (0 / subnormal is NaN,
 *                    x / subnormal is inf); where the variant leaves that
 *                    answer unspecified (OpenVINO's x / 0) it is IEEE 754's,
 *                    so an unspecified answer never explains a value.
 * In either mode the exact answer conforms too.
 */
#define ORACLE_MODE_FTZ 1u
#define ORACLE_MODE_DAZ 2u

/*
 * Flush-to-zero for one element: 1 when the exact quotient of float
 * operands a, b (r->dtype) is tiny, and then *zero = the zero of the
 * quotient's sign; 0 otherwise (integers, NaN, infinite or zero operands,
 * normal quotients).
 */
int oracle_ftz_zero(const oracle_rules *r, uint64_t a, uint64_t b, uint64_t *zero);

/*
 * Denormals-are-zero for one element: 1 when a or b is a subnormal float,
 * and then *out = the answer with every subnormal operand read as a zero of
 * its sign (kind ORACLE_EXACT, ORACLE_ANY_NAN or ORACLE_ANY_INF, never
 * ORACLE_UNSPECIFIED: see ORACLE_MODE_DAZ); 0 otherwise.
 */
int oracle_daz_expect(const oracle_rules *r, uint64_t a, uint64_t b, oracle_elem *out);

/* The modes (ORACLE_MODE_* bits) under which a processor gives `actual`
 * for operands a, b although it is not the answer; 0 when none. */
uint32_t oracle_modes_explaining(const oracle_rules *r, uint64_t a, uint64_t b,
                                 uint64_t actual);

/*
 * Classifies one element: `a`, `b` the operands, `e` the oracle's answer,
 * `actual` the implementation's bits. Returns ORACLE_CLASS_MATCH when the
 * result conforms; otherwise the most specific element class, in this
 * order: nan-expected, flushed-subnormal-output, subnormal-input-as-zero
 * (the value a mode gives: oracle_modes_explaining; flush-to-zero first
 * when both do), nan-unexpected, wrong-sign-inf, wrong-sign-zero,
 * floor-vs-trunc, int-wrap, wrong-value. *ulps (may be NULL) receives the
 * ULP distance (floats) or the absolute difference (integers) for wrong
 * values, else 0.
 */
uint32_t oracle_classify(const oracle_rules *r, uint64_t a, uint64_t b,
                         const oracle_elem *e, uint64_t actual, uint64_t *ulps);

/* As oracle_classify, but where both modes explain the value, the class of
 * the one in `prefer` (ORACLE_MODE_* bits; 0 or both: flush-to-zero). A
 * judge passes the modes its profile accepts. */
uint32_t oracle_classify_preferring(const oracle_rules *r, uint32_t prefer, uint64_t a,
                                    uint64_t b, const oracle_elem *e, uint64_t actual,
                                    uint64_t *ulps);

#endif /* ORACLE_COMPARE_H */
