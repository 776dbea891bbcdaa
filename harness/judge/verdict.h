/* SPDX-License-Identifier: MIT */
/*
 * harness/judge/verdict.h: the verdict step. Compares what a worker brought back
 * for one case with the oracle, element by element, under a tolerance
 * profile; classifies every difference (oracle/compare.h's classes); and
 * tallies the counts of one (variant, dtype) claim.
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
#include "harness/worker/worker.h"
#include "oracle/compare.h"
#include "oracle/expect.h"
#include "oracle/rules.h"
#include "oracle/shape.h"

/* A tolerance profile: what differences a certificate accepts. */
typedef struct verdict_profile {
    char name[32];          /* "exact", "ftz", "ulp:2" */
    int accept_ftz;         /* flushed subnormal outputs, subnormal inputs read as 0 */
    uint64_t ulp_tolerance; /* float wrong values within this many ULPs (0: none) */
} verdict_profile;

/* Parses "exact", "ftz" or "ulp:N" (1 <= N <= 2^32). 0, or -1 with the
 * reason in err. */
int verdict_profile_parse(const char *text, verdict_profile *p, char *err, size_t errlen);

/* One example of a difference. */
typedef struct verdict_example {
    uint32_t cls;          /* ORACLE_CLASS_* */
    uint32_t operand_a, operand_b; /* ORACLE_OPERAND_* of the example's operands */
    uint64_t index;        /* output element; UINT64_MAX for a case-level finding */
    uint64_t a, b;         /* operand bits (element findings) */
    oracle_elem expected;  /* the oracle's answer (element findings) */
    uint64_t actual;       /* the implementation's bits (element findings) */
    uint64_t ulps;         /* ULP (or integer) distance for wrong values */
    uint64_t elements;     /* elements of this case with this signature */
    int accepted;          /* 1: the profile accepts it */
    char note[WORKER_MESSAGE_MAX]; /* what the worker said, for case-level ones */
} verdict_example;

/* Called once per distinct signature per case. Returns 0 to go on, non-zero
 * to make verdict_case return -1 (the caller's error, e.g. the store). */
typedef int (*verdict_sink)(void *ctx, const divcase *c, const verdict_example *ex);

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
    uint64_t max_ulps;                     /* largest float ULP distance seen */
    uint64_t ulp_hist[VERDICT_ULP_BUCKETS]; /* wrong-value elements (accepted
                                              or not) per ULP bucket */
    uint64_t unspecified;                  /* elements whose result was free */
    uint64_t unspecified_not_preferred;    /* of those, ones that differ from
                                              IEEE's / the wrap value (report only) */
    uint64_t any_inf_positive, any_inf_negative; /* SONNX 'inf': signs given */
    uint64_t subnormal_results;            /* exact subnormal results expected */
    uint64_t declared_checked;             /* elements a declared deviation covered */
} verdict_tally;

/*
 * Judges one case. `valid` is 1 when the oracle planned the case (p and
 * expected describe it: expected[i] for output element i) and 0 when the
 * oracle says the input is invalid (p and expected unused). `declared` is
 * the plugin's DVG_DEV_* bits and `int_div_zero_value` its declared integer
 * x/0 value. Adds to *t and calls `sink` for each distinct finding.
 * Returns 1 when the case conforms (under the profile and the declared
 * deviations), 0 when not, -1 when the sink failed.
 */
int verdict_case(const oracle_rules *r, const divcase *c, int valid, const oracle_plan *p,
                 const oracle_elem *expected, const worker_result *wr,
                 const verdict_profile *prof, uint64_t declared, int64_t int_div_zero_value,
                 verdict_tally *t, verdict_sink sink, void *ctx);

/* 1 when the tally has a finding the profile does not accept. */
int verdict_tally_failed(const verdict_tally *t);

/* 1 when the tally has accepted differences (conformant only under the
 * profile or the declared deviations). */
int verdict_tally_accepted(const verdict_tally *t);

/* The verdict of a claim's (or a sweep's) tally, as certificates print it:
 * UNSUPPORTED (unsupported in half its cases or more), CRASHED (a crash,
 * hang, out-of-bounds access or mutated input), NONCONFORMANT, INCOMPLETE
 * (with `incomplete`: part was not judged), "CONFORMANT under profile X"
 * (accepted differences; "ftz (declared)" when only declared deviations
 * made them acceptable; written into buf, len bytes) or CONFORMANT. */
const char *verdict_certificate(const verdict_tally *t, const verdict_profile *prof,
                                uint64_t declared, int incomplete, char *buf, size_t len);

#endif /* HARNESS_VERDICT_H */
