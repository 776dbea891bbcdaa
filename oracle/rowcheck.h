/* SPDX-License-Identifier: MIT */
/*
 * oracle/rowcheck.h: bulk checking for sweeps. Compares what a kernel gave
 * for one row of operand pairs - one fixed operand against a vector of the
 * other - with the exact answers, several elements per instruction, and
 * lists the elements that need the full oracle (oracle_expect and the
 * verdict's classification). Every element it does not list conforms with
 * an answer of kind ORACLE_EXACT or ORACLE_ANY_NAN and nothing to report,
 * so judging only the listed elements in full gives exactly the verdict of
 * judging them all. Listed are
 *   - elements whose bits differ from the exact result (a NaN where a NaN
 *     is due counts as equal, whatever its payload);
 *   - elements whose answer is not IEEE's: x / ±0 when the variant's float
 *     x/0 is undefined or an unsigned "inf" (ORACLE_FDZ_UNDEFINED,
 *     ORACLE_FDZ_UNSIGNED_INF); integer x / 0 and INT_MIN / -1 (never
 *     verified, so always listed);
 *   - elements equal to the caller's poison pattern (counted apart too:
 *     the caller tells an unwritten element from a genuine value).
 *
 * How the exact result is had, per dtype (x86-64 with AVX2 and F16C; the
 * kernels are picked at run time):
 *   f16, bf16  operands widened to float (exact), one float division
 *              (the quotient rounded once to 24 bits), narrowed to nearest
 *              even; the double rounding is innocuous since 24 >= 2p + 2
 *              for p = 11 and 8 (bf16 subnormals are float subnormals; a
 *              quotient rounded to float's finer grid cannot land on a
 *              bf16 midpoint it was not on);
 *              with every_value, a division per significand, the other
 *              quotients scaled from those where that is exact;
 *   f32, f64   the host's IEEE division in the same format;
 *   i8, u8, i16, u16
 *              no division: q is the quotient of a / b toward zero iff
 *              r = a - q * b has |r| < |b| and r is 0 or has a's sign
 *              (toward negative infinity: b's sign); 32-bit products of
 *              16-bit operands are exact;
 *   anything else, or another CPU: oracle_expect_n per element.
 * The float kernels run in the IEEE default environment (round to
 * nearest, FTZ and DAZ clear), the caller's restored after. A dtype's
 * kernel is used only after oracle_rowcheck_selfcheck has compared it with
 * the scalar routine (edge values against a sample of the dtype's values,
 * every value for 8 bits, with exact, perturbed and poisoned results under
 * each kind of rule; tests/sweep/test_rowcheck.c checks far more rows,
 * and every row with --all);
 * otherwise that dtype goes through oracle_expect_n.
 *
 * Thread-safe: no state but the one-time self-checks.
 */
#ifndef ORACLE_ROWCHECK_H
#define ORACLE_ROWCHECK_H

#include <stdint.h>
#include "oracle/rules.h"

/* One row of a sweep. Elements are packed as in tensors (i4/u4 two per
 * byte, low nibble first); nothing is owned. */
typedef struct oracle_row {
    const oracle_rules *rules; /* rules->dtype is the element type */
    uint64_t fixed;            /* the fixed operand's bits */
    int fixed_is_a;            /* 1: pairs (fixed, v[j]); 0: (v[j], fixed) */
    const void *v;             /* n elements: the other operand */
    const void *out;           /* n elements: what the kernel gave */
    uint32_t n;                /* elements in the row */
    uint64_t poison;           /* an element pattern to report (bits) */
    int count_subnormal;       /* 1: count the unlisted exact subnormal
                                  results (oracle_row_result.subnormal) */
    int every_value;           /* 1: v holds every value of the dtype in
                                  ascending bit order (n = 2^bits), as the
                                  rows of an exhaustive sweep do: the f16
                                  and bf16 kernels then derive most
                                  quotients from one division per
                                  significand (rowcheck.c, half_scaled).
                                  The listing does not change. */
    void *repoison;            /* NULL, or out itself, writable: every
                                  element the check does not list is set to
                                  the poison pattern as it is read (a sweep
                                  hands the worker an output that needs no
                                  separate fill); listed elements keep their
                                  values. */
} oracle_row;

/* What oracle_rowcheck found. */
typedef struct oracle_row_result {
    uint32_t listed;           /* indices written to the list */
    uint32_t poison;           /* elements equal to the poison pattern */
    uint32_t subnormal;        /* with count_subnormal: unlisted elements
                                  whose exact result is a subnormal (floats;
                                  0 for integers); else 0 */
} oracle_row_result;

/*
 * Checks one row: writes the indices j (ascending) of the elements to
 * judge in full into list (room for row->n entries) and fills *res.
 * Returns 0, or -1 for an unknown dtype.
 */
int oracle_rowcheck(const oracle_row *row, uint32_t *list, oracle_row_result *res);

/* 1 when oracle_rowcheck puts the poison back (oracle_row.repoison) in the
 * same pass as its check for dtype (its vector kernel is in use and does
 * it); 0 when it would take a pass of its own, element by element. */
int oracle_rowcheck_repoison_fused(uint32_t dtype);

/*
 * Runs the self-check of `dtype`'s kernel once per process (thread-safe;
 * later calls return the first answer): 1 when the vector kernel is used,
 * 0 when the dtype goes through oracle_expect_n (no kernel for it, no
 * AVX2/F16C, DIVERGENCE_NO_FASTPATH set, or a disagreement).
 */
int oracle_rowcheck_selfcheck(uint32_t dtype);

/* How the row check of `dtype` works now: "avx2", "scalar" (before or
 * without the self-check). Never NULL. */
const char *oracle_rowcheck_method(uint32_t dtype);

/*
 * For tests: the same check with the vector kernel whether or not the
 * self-check has enabled it (scalar where there is none). Returns 0, or -1
 * when the dtype has no vector kernel on this machine.
 */
int oracle_rowcheck_vector(const oracle_row *row, uint32_t *list, oracle_row_result *res);

/* For tests: the same check through oracle_expect_n, element by element. */
int oracle_rowcheck_scalar(const oracle_row *row, uint32_t *list, oracle_row_result *res);

#endif /* ORACLE_ROWCHECK_H */
