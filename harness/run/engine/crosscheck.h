/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/crosscheck.h: several plugins' outputs of the same case,
 * compared element by element - the rule `divergence diff` and the
 * differential fuzz campaign (`divergence fuzz --plugin A --plugin B`)
 * share. An element on which every plugin that computed the case conforms
 * (the one judge, verdict_element) but whose bits differ among them is a
 * portability hazard, named by its class (where the specs leave room).
 * An element a plugin refused (an error status where the spec leaves the
 * result undefined: verdict_may_refuse) conforms with no value: beside
 * another plugin's value it is a hazard ("refuses: error status").
 * Departures from the oracle are not classified here: verdict_case
 * reports them, per plugin, when each trial runs.
 */
#ifndef HARNESS_CROSSCHECK_H
#define HARNESS_CROSSCHECK_H

#include <stddef.h>
#include <stdint.h>
#include "harness/run/engine/trial.h"

/* Every plugin a machine builds fits (reference, the six adapters, the
 * three CUDA flavours: 10), with room. */
#define CROSSCHECK_MAX_PLUGINS 16

/* The hazard classes: where conformant implementations may disagree. */
enum {
    HAZARD_INT_DIV_ZERO,       /* integer x / 0 (unspecified everywhere) */
    HAZARD_INT_MIN_NEG_ONE,    /* INT_MIN / -1 (unspecified everywhere) */
    HAZARD_FLOAT_DIV_ZERO,     /* OpenVINO float x / 0 (undefined) */
    HAZARD_UNSIGNED_INF_SIGN,  /* SONNX x / 0 'inf' without a sign */
    HAZARD_NAN,                /* NaN sign or payload */
    HAZARD_DECLARED,           /* a declared deviation (FTZ, DAZ) or the
                                  profile's tolerance */
    HAZARD_COUNT
};

/* "int-div-zero", "int-min-neg-one", "float-div-zero-undefined",
 * "unsigned-inf-sign", "nan-sign-or-payload", "declared-deviation"; "?"
 * past the last. Static text. */
const char *hazard_name(uint32_t hazard);

/* The HAZARD_* a class name names (hazard_name's words), or -1 when it is
 * not a hazard class. */
int hazard_by_name(const char *name);

/* The hazard class of an element whose expected value is *e under rules
 * *r: `declared` 1 when a plugin's value conforms only through a declared
 * deviation or the profile. */
uint32_t hazard_of(const oracle_rules *r, const oracle_elem *e, int declared);

/* 1 when the oracle leaves element *e's result free (or a declared
 * deviation may change it): where a hazard can be. */
int hazard_possible(const oracle_elem *e);

/* One hazard element, as crosscheck_outputs hands it to its sink. */
typedef struct crosscheck_elem {
    uint64_t index;                /* output element */
    uint64_t a, b;                 /* its operands (bits) */
    const oracle_elem *expected;   /* the oracle's word */
    uint32_t hazard;               /* HAZARD_* */
    uint32_t operand_a, operand_b; /* ORACLE_OPERAND_* of a and b */
    uint32_t computed;             /* bit k: trial k computed the case */
    uint32_t refused;              /* bit k: trial k refused the element
                                      (an error status, accepted where the
                                      spec leaves it undefined) */
    uint64_t values[CROSSCHECK_MAX_PLUGINS]; /* trial k's bits where computed
                                      and not refused */
} crosscheck_elem;

/* The example a hazard element gives a recorder or the minimiser: its
 * element, operands, operand classes and the oracle's word; class MATCH
 * (every plugin conforms). */
void crosscheck_example(const crosscheck_elem *x, verdict_example *ex);

/* Called for each hazard element; a non-zero return stops the comparison
 * and is returned by crosscheck_outputs. */
typedef int (*crosscheck_sink)(void *ctx, const crosscheck_elem *e);

/* What crosscheck_outputs counted over the case. */
typedef struct crosscheck_counts {
    uint64_t elements;                 /* compared (0 when fewer than two
                                          trials computed the case) */
    uint64_t agree;                    /* same bits from every computing trial */
    uint64_t departures;               /* some computing trial departs */
    uint64_t hazards[HAZARD_COUNT];
} crosscheck_counts;

/* 1 when trial t ran its last case to the end and computed outputs (a
 * refusal of undefined elements only counts: its narrowed calls'
 * outputs, harness/run/engine/trial.h). */
int crosscheck_computed(const trial *t);

/*
 * Compares the outputs of the n trials (at most CROSSCHECK_MAX_PLUGINS)
 * that have all just run case c (trial_run), among those that computed it
 * (a plugin that failed, crashed or declined the case is left out of the
 * comparison: its outcome is a case-level departure or a choice the caller
 * reports). Adds to *counts (may be NULL) and calls sink for every hazard
 * element (sink may be NULL). Returns 0, or the sink's non-zero return.
 */
int crosscheck_outputs(const trial *const *t, uint32_t n, const divcase *c,
                       crosscheck_counts *counts, crosscheck_sink sink, void *ctx);

/* What trial t gave at output element i of its last case, as a table
 * cell: the value's words where it computed the case ("refuses: error
 * status" for an element it refused), else how its run ended: "failure
 * (error status)", "crash (SIGFPE)", "hang", "unsupported", ... Writes
 * into buf (cap bytes; VERDICT_TEXT_MAX is enough). */
void crosscheck_outcome_text(const trial *t, uint64_t i, char *buf, size_t cap);

/* "name: cell; name: cell" for the n trials at output element i (cells as
 * crosscheck_outcome_text): the `actual` of a stored disagreement.
 * CROSSCHECK_GIVEN_MAX bytes are enough. */
#define CROSSCHECK_GIVEN_MAX (CROSSCHECK_MAX_PLUGINS * (VERDICT_TEXT_MAX + WORKER_NAME_MAX + 4))
void crosscheck_given_text(const trial *const *t, const char *const *names, uint32_t n,
                           uint64_t i, char *buf, size_t cap);

#endif /* HARNESS_CROSSCHECK_H */
