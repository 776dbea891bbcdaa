/* SPDX-License-Identifier: MIT */
/*
 * This file contains the FP environment guard of oracle/fpenv.h: save the
 * caller's environment, install the IEEE default one (FE_DFL_ENV, round to
 * nearest, and on x86 the power-on MXCSR with FTZ and DAZ clear), and put
 * everything back after. glibc's FE_DFL_ENV also clears flush-to-zero where
 * the architecture keeps it in the fenv (AArch64's FPCR.FZ); x86 keeps FTZ
 * and DAZ in MXCSR, outside C's model, so they are set explicitly.
 */
#include "oracle/fpenv.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE__)
#include <xmmintrin.h>
#define HAVE_MXCSR 1
/* MXCSR: all six exceptions masked, round to nearest, FTZ (bit 15) and DAZ
 * (bit 6) clear, no flags: the power-on default. */
#define MXCSR_DEFAULT 0x1F80u
#else
#define HAVE_MXCSR 0
#endif

void oracle_fpenv_enter(oracle_fpenv *saved)
{
#if HAVE_MXCSR
    saved->mxcsr = _mm_getcsr();
#else
    saved->mxcsr = 0;
#endif
    fegetenv(&saved->env);
    fesetenv(FE_DFL_ENV);
    fesetround(FE_TONEAREST);
#if HAVE_MXCSR
    _mm_setcsr(MXCSR_DEFAULT);
#endif
}

void oracle_fpenv_leave(const oracle_fpenv *saved)
{
    fesetenv(&saved->env);
#if HAVE_MXCSR
    _mm_setcsr(saved->mxcsr);
#endif
}
