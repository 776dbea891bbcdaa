/* SPDX-License-Identifier: MIT */
/*
 * tests/oracle/mpfr_ref.c: see mpfr_ref.h.
 */
#include "mpfr_ref.h"

void mref_init(mref *m, const tfmt *f)
{
    mpfr_prec_t p = f->fbits + 1;
    m->f = f;
    mpfr_init2(m->a, p);
    mpfr_init2(m->b, p);
    mpfr_init2(m->q, p);
    mpz_init(m->z);
}

void mref_clear(mref *m)
{
    mpfr_clear(m->a);
    mpfr_clear(m->b);
    mpfr_clear(m->q);
    mpz_clear(m->z);
}

void mref_enter(const mref *m)
{
    /* MPFR writes x = 0.1b..b * 2^E. The smallest subnormal 2^(emin - F)
     * has E = emin - F + 1; the largest finite is below 2^(emax + 1), so
     * E <= emax + 1 (binary64: -1073 and 1024, as MPFR's manual has it). */
    mpfr_set_emin(tfmt_emin(m->f) - m->f->fbits + 1);
    mpfr_set_emax(tfmt_emax(m->f) + 1);
}

/* Sets x to the value of the raw bits v (exactly). */
static void load(const tfmt *f, mpfr_t x, uint64_t v)
{
    const uint64_t all_ones = ((uint64_t)1 << f->ebits) - 1;
    const uint64_t frac_mask = ((uint64_t)1 << f->fbits) - 1;
    int sign = (int)((v >> (f->ebits + f->fbits)) & 1);
    uint64_t field = (v >> f->fbits) & all_ones, frac = v & frac_mask;

    if (field == all_ones) {
        if (frac)
            mpfr_set_nan(x);
        else
            mpfr_set_inf(x, sign ? -1 : 1);
        return;
    }
    if (field == 0 && frac == 0) {
        mpfr_set_zero(x, sign ? -1 : 1);
        return;
    }
    if (field != 0)
        frac |= (uint64_t)1 << f->fbits;
    mpfr_set_ui_2exp(x, (unsigned long)frac,
                     (mpfr_exp_t)((field ? (int64_t)field : 1) - tfmt_bias(f) - f->fbits),
                     MPFR_RNDN);
    if (sign)
        mpfr_neg(x, x, MPFR_RNDN);
}

uint64_t mref_div(mref *m, uint64_t a, uint64_t b)
{
    const tfmt *f = m->f;
    const uint64_t all_ones = ((uint64_t)1 << f->ebits) - 1;
    uint64_t sign, out;
    mpfr_exp_t e;
    int inex;

    load(f, m->a, a);
    load(f, m->b, b);
    inex = mpfr_div(m->q, m->a, m->b, MPFR_RNDN);
    inex = mpfr_subnormalize(m->q, inex, MPFR_RNDN);
    (void)inex;

    if (mpfr_nan_p(m->q))
        return tfmt_default_nan(f);
    sign = (uint64_t)(mpfr_signbit(m->q) != 0) << (f->ebits + f->fbits);
    if (mpfr_inf_p(m->q))
        return sign | (all_ones << f->fbits);
    if (mpfr_zero_p(m->q))
        return sign;
    e = mpfr_get_z_2exp(m->z, m->q);
    mpz_abs(m->z, m->z);
    if (tfmt_encode(f, 0, (uint64_t)mpz_get_ui(m->z), (int64_t)e, &out) != 0)
        return ~(uint64_t)0; /* cannot happen: flags a broken reference */
    return sign | out;
}
