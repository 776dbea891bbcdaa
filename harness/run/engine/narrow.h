/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/narrow.h: narrows a case that crashes (or hangs, exits, writes
 * out of bounds, ...) down to the one element that does it, and a case the
 * plugin refuses (an error status) down to the elements it refuses.
 *
 * The output elements of the case are materialised into 1-D cases of equal
 * shapes: sub-case element i divides A[a_off(first + i)] by
 * B[b_off(first + i)], the offsets taken from the oracle's broadcasting
 * plan, same variant, dtype and attributes (the attributes are changed only
 * when the variant would not accept equal 1-D shapes under them: legacy
 * broadcast off, axis unset, auto_broadcast none). The range of output
 * indices is bisected while the failure reproduces, re-spawning the worker
 * after each crash (worker_run does that by itself).
 *
 * Nondeterministic failures are tolerated: when neither half of a range
 * reproduces, narrowing stops there and reports that range, the smallest
 * reproducing subset it found. The number of worker runs is bounded.
 */
#ifndef HARNESS_NARROW_H
#define HARNESS_NARROW_H

#include <stdint.h>
#include "harness/cases/divcase.h"
#include "harness/worker/worker.h"

typedef struct narrow_options {
    /* Worker runs at most, the first full 1-D run included; 0 means
     * 2 * ceil(log2(n)) + 4 for n output elements. */
    uint32_t max_steps;
} narrow_options;

typedef struct narrow_result {
    int32_t reproduced;   /* 1: the 1-D case of all elements failed the same
                             way; 0: it did not (the failure needs the
                             original shapes, or does not repeat) */
    int32_t found;        /* 1: narrowed to a single element */
    uint64_t index;       /* output index (row-major, in the original case) of
                             the first element of the smallest reproducing
                             subset; with `found`, the crashing element */
    uint64_t count;       /* elements of that subset (1 with `found`) */
    uint64_t a_offset;    /* with `found`: element offsets of the pair in the */
    uint64_t b_offset;    /*   original A and B */
    uint32_t steps;       /* worker runs made */
    divcase reduced;      /* the smallest reproducing 1-D case (with `found`,
                             the single (a, b) pair); owned by the result */
    worker_result failure;/* what the worker did with `reduced`; owned */
    char message[256];    /* one sentence: what narrowing found or why not */
} narrow_result;

/*
 * 1 when `got` is the same failure as `want`: the same outcome (not OK,
 * not LOAD_ERROR) and, for CRASH, the same signal.
 */
int narrow_same_failure(const worker_result *want, const worker_result *got);

/*
 * Builds the 1-D sub-case of output elements [first, first + count) of `c`
 * under plan `p` (oracle_plan_shapes of c) with attributes `attrs` into
 * *out (overwritten, not freed; release it with divcase_free). Returns 0,
 * or -1 when the range is outside the plan or on allocation failure.
 */
int narrow_subcase(const divcase *c, const oracle_plan *p, const dvg_attrs *attrs,
                   uint64_t first, uint64_t count, divcase *out);

/*
 * Narrows case `c`, whose run on `w` ended in `failure`, to one element.
 * `o` may be NULL for the defaults. *out is always initialised (release it
 * with narrow_result_free) and out->message says what happened.
 *
 * Returns 0 when narrowing ran (out->reproduced, out->found say how far it
 * got), or -1 when it could not: `failure` is not a failure to narrow, the
 * oracle rejects the case (no plan), the case has no elements, a worker
 * run failed for the harness (memory) or the worker no longer loads.
 */
int narrow_case(worker *w, const divcase *c, const worker_result *failure,
                const narrow_options *o, narrow_result *out);

/* Frees what the result owns and zeroes it. Accepts NULL. */
void narrow_result_free(narrow_result *r);

/*
 * Refusals (docs/semantics.md, "Refusing undefined input"). A case whose
 * compute the plugin refused with an error status (WORKER_OUT_FAILURE)
 * is narrowed to learn which elements it refuses: its defined elements
 * (undefined[i] == 0) run together as one 1-D sub-case, which must compute
 * (their values are kept); then its undefined elements of each kind
 * (undefined[i] > 0: x / 0 apart from INT_MIN / -1, so a refusal of one
 * does not hide a crash on the other) run together, and a refused range
 * of them is halved and each half run again, down to one
 * refused element (the example), as crash narrowing does; a range refused
 * after that, or when the runs are spent (o->max_steps; 0: 4 *
 * ceil(log2(n)) + 16; 2: no halving), is refused as a whole. So a case
 * costs about 1 + kinds + 2 log2(undefined elements) runs, or 1 + kinds.
 * The refusal is
 * `accepted` when the defined elements computed, every narrowed call
 * ended in a value or a refusal (a crash, hang or fault is never a
 * refusal) and one at least was refused: every refused element is then
 * an undefined one, and out1, out2 and flags hold the case's outputs as
 * the narrowed calls gave them (NARROW_ELEM_REFUSED where refused).
 */
#define NARROW_ELEM_REFUSED 4u /* beside WORKER_ELEM_*: refused, no value */

typedef struct narrow_refusal {
    int32_t accepted;      /* 1: as above; 0: not a refusal of undefined
                              elements only (message says why) */
    uint64_t count;        /* output elements of the case */
    uint64_t refused;      /* elements flagged NARROW_ELEM_REFUSED: each
                              in a refused call of undefined ones only */
    int32_t found;         /* 1: one element was refused alone ... */
    uint64_t index;        /* ... this output element */
    uint32_t steps;        /* worker runs made */
    uint32_t side_effects; /* WORKER_SIDE_INPUT_A, _B, _SLACK of the
                              narrowed calls */
    uint8_t *out1, *out2;  /* count elements of the case's dtype, as the
                              narrowed calls' runs 1 and 2 gave them; owned */
    uint8_t *flags;        /* WORKER_ELEM_* or NARROW_ELEM_REFUSED per
                              element; owned */
    char message[WORKER_MESSAGE_MAX]; /* accepted: what a refused call said
                              (the plugin's error text); else why not */
    /* private: buffers kept between cases */
    uint64_t *idx_;
    uint64_t cap_bytes_, cap_count_;
} narrow_refusal;

/*
 * Narrows the refused case c on w as above. `undefined`: one byte per
 * output element of c (row-major), 0 where the spec defines the element's
 * result, else its kind (1 + the oracle's rule) where the spec leaves it
 * undefined (the judge says which: verdict_may_refuse).
 * `o` may be NULL. *out must be zeroed before its first use; it is reused
 * (its buffers kept) from case to case and freed by narrow_refusal_free.
 * Returns 0 when narrowing ran or could not narrow the case (the oracle
 * rejects it, no equal 1-D shapes: out->accepted 0), or -1 on a harness
 * error (memory, a worker run failed for the harness, the worker no
 * longer loads); out->message says what happened.
 */
int narrow_refusals(worker *w, const divcase *c, const uint8_t *undefined,
                    const narrow_options *o, narrow_refusal *out);

/* Frees what the narrowing owns and zeroes it. Accepts NULL. */
void narrow_refusal_free(narrow_refusal *r);

#endif /* HARNESS_NARROW_H */
