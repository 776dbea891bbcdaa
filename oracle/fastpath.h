/* SPDX-License-Identifier: MIT */
/*
 * oracle/fastpath.h: the fast path, which divides with the host's floating
 * point where that is provably exact:
 *   f16, bf16, f32: operands widened to double (exact), one double
 *   division (correctly rounded to 53 bits), then one rounding to the
 *   output format. Double rounding is innocuous because 53 >= 2p + 2 for
 *   p = 11, 8, 24 (Figueroa, "When is double rounding innocuous?", 1995);
 *   f64: the host's correctly rounded double division.
 * Every fast-path call runs under a saved and restored FP environment set
 * to round-to-nearest with FTZ and DAZ cleared, so a caller's settings
 * cannot leak in, and the fast path is used only after
 * oracle_fastpath_selfcheck() has compared it with the exact path.
 */
#ifndef ORACLE_FASTPATH_H
#define ORACLE_FASTPATH_H

#include <stddef.h>
#include <stdint.h>

/*
 * Runs the start-up self-check once per process (thread-safe): for each
 * float dtype, a fixed table of edge operand pairs plus a seeded sample
 * are divided by both paths; a dtype whose fast path disagrees anywhere
 * stays on the exact path. Returns the number of dtypes enabled.
 * Setting the environment variable DIVERGENCE_NO_FASTPATH=1 disables it.
 */
int oracle_fastpath_selfcheck(void);

/* 1 when the self-check has enabled the fast path for `dtype`, else 0. */
int oracle_fastpath_enabled(uint32_t dtype);

/*
 * IEEE quotients of n raw-bit pairs of a float dtype, through the host FPU,
 * into out[] (NaN results as the format's default NaN). Usable whether or
 * not the self-check enabled the dtype (the self-check and the benchmarks
 * call it directly). Returns 0, or -1 for a non-float dtype.
 */
int oracle_fastpath_div(uint32_t dtype, const uint64_t *a, const uint64_t *b,
                        size_t n, uint64_t *out);

#endif /* ORACLE_FASTPATH_H */
