/* SPDX-License-Identifier: MIT */
/*
 * oracle/fpenv.h: the guard around every stretch of host floating point
 * the oracle relies on (the fast path of oracle/fastpath.c, the vector
 * kernels of oracle/rowcheck.c).
 *
 * Inside the guard the FPU is in the IEEE default environment: round to
 * nearest (ties to even), every exception masked, no flags raised, and on
 * x86 flush-to-zero and denormals-are-zero clear in MXCSR (they lie outside
 * C's fenv model, so fesetenv alone does not clear them). The caller's
 * environment is saved on entry and restored on exit, flags, traps,
 * rounding mode and FTZ/DAZ included, so the guard is invisible to a caller
 * that runs the kernel under test in a non-default mode.
 *
 * A file that computes inside the guard must be compiled with
 * -frounding-math (oracle/CMakeLists.txt) so the compiler neither folds
 * nor moves its FP operations across oracle_fpenv_enter/leave. The state is
 * per thread (the FP environment is), the saved record the caller's.
 */
#ifndef ORACLE_FPENV_H
#define ORACLE_FPENV_H

#include <fenv.h>

/* What oracle_fpenv_enter saved; opaque to callers, lives on their stack. */
typedef struct oracle_fpenv {
    fenv_t env;
    unsigned int mxcsr; /* x86 only; unused elsewhere */
} oracle_fpenv;

/* Saves the calling thread's FP environment into *saved and installs the
 * IEEE default one described above. Pair with oracle_fpenv_leave on the
 * same thread, with no other enter in between on that record. */
void oracle_fpenv_enter(oracle_fpenv *saved);

/* Restores the environment oracle_fpenv_enter saved into *saved. */
void oracle_fpenv_leave(const oracle_fpenv *saved);

#endif /* ORACLE_FPENV_H */
