/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/mpfr_ref.h: IEEE division of a float format evaluated with
 * MPFR: precision p, the format's exponent range, mpfr_subnormalize for
 * subnormal results, MPFR_RNDN. The independent library reference of the
 * float tests and of bench/bench_oracle.c.
 */
#ifndef TESTS_ORACLE_MPFR_REF_H
#define TESTS_ORACLE_MPFR_REF_H

#include <mpfr.h>

#include "float_gen.h"

typedef struct mref {
    const tfmt *f;
    mpfr_t a, b, q;
    mpz_t z;
} mref;

/* Sets up the variables for format `f`. */
void mref_init(mref *m, const tfmt *f);
void mref_clear(mref *m);

/* Sets MPFR's (thread-local) exponent range to the format's: call before
 * a run of mref_div calls, and again after anything else changed it. */
void mref_enter(const mref *m);

/* a / b as raw bits; NaN results as the format's default NaN. */
uint64_t mref_div(mref *m, uint64_t a, uint64_t b);

#endif /* TESTS_ORACLE_MPFR_REF_H */
