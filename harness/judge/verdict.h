/* SPDX-License-Identifier: MIT */
/*
 * harness/judge/verdict.h: the judge. Compares what an implementation
 * produced for one case (verdict_outputs: plain outputs, whoever ran it -
 * the worker through harness/run/engine/trial.h, the sweep's batches, the
 * in-process fuzz target) with the oracle, element by element, under a
 * tolerance profile; classifies every difference (oracle/compare.h's
 * classes); tallies the counts of one (variant, dtype) claim; and writes
 * the words every command prints and stores for an element.
 *
 * Findings are reported to a sink once per distinct signature per case -
 * (class, operand class of A, operand class of B) - with the count of
 * elements behind it and the first element as the example, so a kernel
 * that flushes a million subnormals costs one sink call, not a million.
 */
#ifndef HARNESS_VERDICT_H
#define HARNESS_VERDICT_H

#include <stddef.h>
#include <stdint.h>
#include "harness/cases/divcase.h"
#include "oracle/compare.h"
#include "oracle/expect.h"
#include "oracle/rules.h"
#include "oracle/shape.h"

/* Bytes of a note (verdict_outputs.note, .leak, verdict_example.note), NUL
 * included. */
#define VERDICT_NOTE_MAX 512

/*
 * How the implementation's calls for one case ended (verdict_outputs.outcome):
 *   OK             every call made returned ok (whether compute ran:
 *                  verdict_outputs.computed);
 *   INVALID_INPUT  it answered "invalid input";
 *   UNSUPPORTED    it answered "unsupported";
 *   FAILURE        a failure status, or a status that is no status;
 *   BAD_SHAPE      output_shape said ok with a rank or a dimension that
 *                  makes no shape;
 *   CRASH          it died (a signal, exit, a broken protocol) or could
 *                  not be loaded;
 *   OOB_WRITE, OOB_READ, INPUT_MUTATED
 *                  a write past the output, a read past an input, a write
 *                  into an input, caught while it ran;
 *   HANG           a call outlived its deadline;
 *   LATE_WRITE     a thread the plugin left running wrote into the output
 *                  (or an input) after compute returned.
 * Every outcome but OK is a case-level finding (or none: INVALID_INPUT on
 * invalid input, UNSUPPORTED from output_shape on invalid input).
 */
enum {
    VERDICT_OUT_OK,
    VERDICT_OUT_INVALID_INPUT,
    VERDICT_OUT_UNSUPPORTED,
    VERDICT_OUT_FAILURE,
    VERDICT_OUT_BAD_SHAPE,
    VERDICT_OUT_CRASH,
    VERDICT_OUT_OOB_WRITE,
    VERDICT_OUT_OOB_READ,
    VERDICT_OUT_INPUT_MUTATED,
    VERDICT_OUT_HANG,
    VERDICT_OUT_LATE_WRITE
};

/* Bits of verdict_outputs.flags[i]: what is known of output element i. */
#define VERDICT_ELEM_UNWRITTEN 1u /* it kept the poison it was given, in both runs */
#define VERDICT_ELEM_NONDET    2u /* written, but run 1 and run 2 differ */
#define VERDICT_ELEM_REFUSED   4u /* no value: the implementation refused (an
                                     error status) every call that held it,
                                     the calls of a refused case narrowed
                                     (harness/run/engine/narrow.h) */

/* Bits of verdict_outputs.side: what the checks after a compute that
 * returned ok found, and what any call left changed. */
#define VERDICT_SIDE_INPUT        1u /* an input's bytes changed */
#define VERDICT_SIDE_SLACK        2u /* a byte before the output changed */
#define VERDICT_SIDE_FP_STATE     4u /* a call left the FP environment changed */
#define VERDICT_SIDE_SIGNAL_STATE 8u /* a call left signal state changed */
#define VERDICT_SIDE_PADDING     16u /* i4/u4 with an odd count: the unused high
                                        nibble of C's last byte changed */

/*
 * What an implementation produced for one case: plain data, filled by
 * whoever ran it. Zero it, then set what applies. The pointers are
 * borrowed; they must stay valid during verdict_case.
 */
typedef struct verdict_outputs {
    uint32_t outcome;       /* VERDICT_OUT_* */
    int32_t in_shape;       /* 1: the outcome arose in output_shape */
    char note[VERDICT_NOTE_MAX]; /* with an outcome other than OK: one
                               sentence saying what happened (the note of
                               its case-level finding) */
    int32_t has_shape;      /* 1: output_shape said ok and `shape` holds it */
    oracle_shape shape;
    int32_t computed;       /* 1: compute returned ok; out1 holds the
                               plan's count elements of the case's dtype */
    const uint8_t *out1;    /* the output (of run 1) */
    const uint8_t *out2;    /* the output of run 2, for the note of a
                               nondeterministic element; NULL: out1 */
    const uint8_t *flags;   /* VERDICT_ELEM_* per element; NULL: all 0 */
    uint64_t period;        /* 0, or the operands repeat every `period`
                               output elements (equal shapes, A[i] and B[i]
                               depend only on i mod period; a whole number
                               of bytes): `expected` then holds one period,
                               and a later period whose output bytes and
                               flags repeat the first's is judged by
                               counting the first's findings again */
    uint32_t side;          /* VERDICT_SIDE_* */
    char leak[VERDICT_NOTE_MAX]; /* with SIDE_FP_STATE or SIDE_SIGNAL_STATE:
                               which call, and what it left changed */
} verdict_outputs;

/* A tolerance profile: what differences a certificate accepts. */
typedef struct verdict_profile {
    char name[48];          /* "exact", "ftz", "daz", "ftz+daz", "ulp:2",
                               any of them + "+no-refusals" */
    uint32_t modes;         /* ORACLE_MODE_* whose values it accepts
                               (oracle/compare.h): ftz flushed-subnormal-output,
                               daz subnormal-input-as-zero */
    uint64_t ulp_tolerance; /* float wrong values within this many ULPs (0: none) */
    int32_t no_refusals;    /* 1: an element refused with an error status is
                               a departure even where the spec leaves its
                               result undefined (verdict_may_refuse) */
    int32_t bitwise;        /* 1: an answer under another context (thread
                               count) that conforms but whose bits differ
                               from the judged run's (NaN payloads and
                               signs, undefined elements) is a failure,
                               not a determinism note */
} verdict_profile;

/* Parses "exact", "ftz" (flush-to-zero), "daz" (denormals-are-zero),
 * "ftz+daz" (both) or "ulp:N" (1 <= N <= 2^32), each optionally followed
 * by "+no-refusals" and "+bitwise", in either order (alone:
 * "exact+no-refusals", "exact+bitwise"); the name puts them in that order.
 * 0, or -1 with the reason in err. */
int verdict_profile_parse(const char *text, verdict_profile *p, char *err, size_t errlen);

/*
 * Refusals of undefined input (docs/semantics.md, "Refusing undefined
 * input"). Where the spec leaves an element's result undefined or
 * unspecified (the oracle answers ORACLE_UNSPECIFIED: integer x / 0,
 * INT_MIN / -1, OpenVINO's float x / 0), an implementation may refuse the
 * call with an error status instead of giving a value: verdict_may_refuse
 * is 1 for such an element under profile p (0 with p->no_refusals, and
 * for every element whose result is defined). A crash, a hang or a fault
 * is never a refusal.
 *
 * verdict_refusal_narrowable is 1 when the outputs of a valid case are a
 * refusal the harness narrows to learn which elements were refused: a
 * FAILURE outcome from compute (not from output_shape, which sees no
 * value) under a profile that accepts refusals. The harness then judges
 * the case from the narrowed calls, each refused element flagged
 * VERDICT_ELEM_REFUSED: verdict_case classes it refused-undefined
 * (accepted) where verdict_may_refuse, else failure (a departure).
 */
int verdict_may_refuse(const verdict_profile *p, const oracle_elem *e);
int verdict_refusal_narrowable(const verdict_outputs *out, int valid, const verdict_profile *p);

/* The modes (ORACLE_MODE_*) the descriptor's DVG_DEV_* bits declare. */
uint32_t verdict_declared_modes(uint64_t declared);

/* The name of the profile of `modes` (ORACLE_MODE_* bits): "ftz", "daz",
 * "ftz+daz", or "exact" for none. Static text. */
const char *verdict_modes_name(uint32_t modes);

/* One example of a difference. */
typedef struct verdict_example {
    uint32_t cls;          /* ORACLE_CLASS_* */
    uint32_t operand_a, operand_b; /* ORACLE_OPERAND_* of the example's operands */
    uint64_t index;        /* output element; UINT64_MAX for a case-level finding */
    uint64_t a, b;         /* operand bits (element findings) */
    oracle_elem expected;  /* the oracle's answer (element findings) */
    uint64_t actual;       /* the implementation's bits (element findings;
                              of run 1 when it ran the case twice) */
    uint64_t actual2;      /* the bits of run 2: equal to actual but for a
                              nondeterministic element (ORACLE_CLASS_
                              NONDETERMINISTIC), whose runs differ */
    uint64_t ulps;         /* ULP (or integer) distance for wrong values */
    uint64_t elements;     /* elements of this case with this signature */
    int accepted;          /* 1: the profile accepts it */
    char note[VERDICT_NOTE_MAX]; /* what happened, for case-level ones; for
                              element ones, anything more to say ("" none) */
} verdict_example;

/* Called once per distinct signature per case. Returns 0 to go on, non-zero
 * to make verdict_case return -1 (the caller's error, e.g. the store). */
typedef int (*verdict_sink)(void *ctx, const divcase *c, const verdict_example *ex);

/* A sink that keeps the first finding the profile does not accept (ctx: a
 * verdict_first, zeroed before verdict_case; found 1 when there was one). */
typedef struct verdict_first {
    int found;
    verdict_example ex;
} verdict_first;
int verdict_keep_first(void *ctx, const divcase *c, const verdict_example *ex);

/* The words for an expected element, the same in every command's output
 * and in the store (reproducers.expected): "1.5 (0x3fc00000)" for an exact
 * answer, "nan (any)", "+inf or -inf", "unspecified". Writes into buf (len
 * bytes, always NUL-terminated when len > 0; VERDICT_TEXT_MAX is enough)
 * and returns it. */
#define VERDICT_TEXT_MAX 96
char *verdict_elem_text(uint32_t dtype, const oracle_elem *e, char *buf, size_t len);

/* The words for a value an implementation gave (or an operand):
 * "1.5 (0x3fc00000)". As verdict_elem_text. */
char *verdict_bits_text(uint32_t dtype, uint64_t bits, char *buf, size_t len);

/* The operands of one element as every command and report names them:
 * "-2147483648 (0x80000000) / -1 (0xffffffff)", verdict_bits_text of
 * each. Writes buf (2 * VERDICT_TEXT_MAX + 4 is enough) and returns it. */
char *verdict_operands_text(uint32_t dtype, uint64_t a, uint64_t b, char *buf, size_t len);

/* The words for what an implementation gave for the element of example
 * `ex` (an element finding), the same in every command's output and in the
 * store (reproducers.actual): verdict_bits_text of ex->actual, or, when
 * its two runs differ (ex->actual2 != ex->actual: a nondeterministic
 * element), both: "-2 (0xc000) in run 1, -3 (0xc001) in run 2"; for a
 * refused element (class refused-undefined, or failure at an element)
 * VERDICT_REFUSED_TEXT. Writes
 * into buf (len bytes, always NUL-terminated when len > 0;
 * VERDICT_ACTUAL_MAX is enough) and returns it. */
#define VERDICT_ACTUAL_MAX (2 * VERDICT_TEXT_MAX + 32)
#define VERDICT_REFUSED_TEXT "refuses: error status"
char *verdict_actual_text(uint32_t dtype, const verdict_example *ex, char *buf, size_t len);

/* The words a stored finding carries for example ex of a case of `dtype`:
 * its operand classes ("normal/zero"), the expected element
 * (verdict_elem_text) and what was given (verdict_actual_text); all three
 * "" for a finding about the whole case (ex->index == UINT64_MAX). */
typedef struct verdict_words {
    char operand[64];
    char expected[128];
    char actual[VERDICT_ACTUAL_MAX];
} verdict_words;
void verdict_example_words(uint32_t dtype, const verdict_example *ex, verdict_words *w);

/* ULP-error histogram buckets of wrong values: bucket 0 holds distance 1
 * (and 0), bucket 1 distance 2, bucket k (1..20) distances 2^(k-1)+1 to
 * 2^k (3-4, 5-8, ..., 524289-1048576), bucket 21 everything above 2^20,
 * bucket 22 infinite distances (NaN against a number, infinities of
 * opposite sign). Integers count their absolute difference the same way.
 * The store keeps them per (run, implementation, variant, dtype) under
 * these numbers (table ulp_histograms, docs/store.md). */
#define VERDICT_ULP_BUCKETS 23

/* The bucket of ULP distance `ulps` (UINT64_MAX: infinite). */
uint32_t verdict_ulp_bucket(uint64_t ulps);

/* Label of bucket b: "1", "2", "3-4", ..., ">1048576", "inf"; "?" past the
 * last. Writes into buf (len bytes, NUL-terminated) and returns it. */
const char *verdict_ulp_bucket_label(uint32_t b, char *buf, size_t len);

/* Counts of one claim over all its cases. */
typedef struct verdict_tally {
    uint64_t cases, elements;
    uint64_t counts[ORACLE_CLASS_COUNT];   /* differing elements (element
                                              classes) or cases (case classes) */
    uint64_t accepted[ORACLE_CLASS_COUNT]; /* those the profile accepts */
    uint64_t class_cases[ORACLE_CLASS_COUNT]; /* cases in which the class
                                              occurred (counts or accepted
                                              grew); [MATCH]: unused, the
                                              cases judged are `cases` */
    uint64_t max_ulps;                     /* largest float ULP distance seen */
    uint64_t ulp_hist[VERDICT_ULP_BUCKETS]; /* wrong-value elements (accepted
                                              or not) per ULP bucket */
    uint64_t unspecified;                  /* elements whose result was free */
    uint64_t unspecified_not_preferred;    /* of those, ones that differ from
                                              IEEE's / the wrap value (report only) */
    uint64_t any_inf_positive, any_inf_negative; /* SONNX 'inf': signs given */
    uint64_t subnormal_results;            /* exact subnormal results expected */
    uint64_t declared_checked;             /* elements a declared deviation covered */
    /* a worker's memory that grew per new shape while identical calls
     * added nothing (harness/run/engine/leak.h): a cache, a note. Its
     * largest growth in one worker life and that life's calls; bytes per
     * new shape, least (0: none seen) and most. Merged by max and min, so
     * adding the same figure twice changes nothing. */
    uint64_t cache_bytes, cache_calls, cache_lo, cache_hi;
} verdict_tally;

/*
 * The capability classes (issue 25): what a case gave under another
 * calling pattern than the one compute is judged in - two instances at
 * once, one instance from two threads, C in A's or B's buffer, another
 * thread count - compared element by element with the one-thread answer.
 * verdict_capability(cls) is the DVG_CAP_* bit class cls stands for (0:
 * not a capability class). A capability the plugin declares and breaks is
 * counted (counts[]: NONCONFORMANT); one it does not declare is counted
 * as accepted (accepted[]: the certificate shows it as a capability row,
 * "re-entrant: no [sig:N]", and it never makes the verdict, nor its
 * profile). verdict_capability_row gives the row's words for class cls,
 * seen (1) or not (0), in ("re-entrant", "no") form.
 */
uint64_t verdict_capability(uint32_t cls);
void verdict_capability_row(uint32_t cls, int seen, const char **what, const char **answer);

/* Adds every count of *from to *to (max_ulps: the larger). */
void verdict_tally_add(verdict_tally *to, const verdict_tally *from);

/*
 * Judges one case: what the implementation produced (*out) against the
 * oracle. `valid` is 1 when the oracle planned the case (p and expected
 * describe it: expected[i] for output element i, or for i < out->period
 * only when that is set; expected may be NULL when out->computed is 0) and 0 when the oracle says the input is invalid (p
 * and expected unused). `declared` is the plugin's DVG_DEV_* bits and
 * `int_div_zero_value` its declared integer x/0 value. Adds to *t and calls
 * `sink` (may be NULL) for each distinct finding, in the order of their
 * first element (case-level findings after the elements').
 * Returns 1 when the case conforms (under the profile and the declared
 * deviations), 0 when not, -1 when the sink failed or memory ran out.
 */
int verdict_case(const oracle_rules *r, const divcase *c, int valid, const oracle_plan *p,
                 const oracle_elem *expected, const verdict_outputs *out,
                 const verdict_profile *prof, uint64_t declared, int64_t int_div_zero_value,
                 verdict_tally *t, verdict_sink sink, void *ctx);

/*
 * Judges one element alone, as verdict_case judges it (without the element
 * flags and the declared integer x/0 value): operands a, b, the oracle's
 * answer *e, the implementation's bits `actual`. Returns 1 when it
 * conforms, with *cls (may be NULL) ORACLE_CLASS_MATCH when the oracle
 * accepts the value itself, or the class of a difference that the profile
 * or the declared deviations accept (a declared flush, say); 0 when it
 * departs, with *cls its class. For `divergence diff`, which compares
 * conformant implementations element by element.
 */
int verdict_element(const oracle_rules *r, uint64_t a, uint64_t b, const oracle_elem *e,
                    uint64_t actual, const verdict_profile *prof, uint64_t declared,
                    uint32_t *cls);

/* 1 when the tally has a finding the profile does not accept. */
int verdict_tally_failed(const verdict_tally *t);

/* Under an emulated CPU (harness/base/cpumodel.h, QEMU) some findings
 * can be the emulator's, not the plugin's: QEMU's vmaskmovps/vpmaskmovd
 * touch the masked-off lanes, so a masked tail load that stops at the
 * input's end on hardware faults on the guard page past it
 * (out-of-bounds-read). 1 when class `cls` is such a class. A finding of
 * that class seen only under emulation is "emulation-only, unconfirmed":
 * recorded with that note, never counted as nonconformance. (QEMU's
 * rcpps/rsqrtps are exact where hardware gives a 12-bit estimate: that
 * makes an estimate-based kernel look better under emulation, not worse;
 * its wrong values are counted as any other.) */
int verdict_emulation_fakeable(uint32_t cls);

/* Moves the counts of the classes verdict_emulation_fakeable names from
 * *t into *fake (which is zeroed first; its cases: 1 when any moved).
 * Returns 1 when any did. */
int verdict_take_emulation_fakes(verdict_tally *t, verdict_tally *fake);

/* 1 when the tally has accepted differences (conformant only under the
 * profile or the declared deviations). */
int verdict_tally_accepted(const verdict_tally *t);

/* The verdict of a claim's (or a sweep's) tally, as certificates print it:
 * UNSUPPORTED (unsupported in half its cases or more), CRASHED (a crash,
 * hang, out-of-bounds access or mutated input), NONCONFORMANT, INCOMPLETE
 * (with `incomplete`: part was not judged), "CONFORMANT under profile X"
 * (accepted differences; "ftz (declared)", "daz (declared)" or "ftz+daz
 * (declared)" - the modes whose values were accepted - when declared
 * deviations made them acceptable beyond the profile; written into buf,
 * len bytes) or CONFORMANT. Refusals of undefined input
 * (refused-undefined) leave a claim CONFORMANT: the certificate names them
 * beside the verdict. */
const char *verdict_certificate(const verdict_tally *t, const verdict_profile *prof,
                                uint64_t declared, int incomplete, char *buf, size_t len);

#endif /* HARNESS_VERDICT_H */
