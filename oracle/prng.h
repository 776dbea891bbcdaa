/* SPDX-License-Identifier: MIT */
/*
 * oracle/prng.h: the project's one pseudo-random generator, splitmix64
 * (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", 2014), and the draws built on it.
 *
 * Every seeded sequence of the project comes from here: the case
 * generators (harness/cases/gen.c), the case files' `random SEED`
 * generator, the sweeps' random rows and the self-checks of the fast paths
 * (oracle/fastpath.c, oracle/rowcheck.c). Corpora, committed cases and
 * stored runs depend on the exact sequences: the constants and the order of
 * the steps must never change.
 *
 * The state is one uint64_t the caller owns (any value is a valid seed);
 * nothing here keeps global state, so streams are thread-safe as long as
 * each has its own state. Header-only: the generator sits in the inner loop
 * of the sweeps and the generators, where a call would cost more than it.
 */
#ifndef ORACLE_PRNG_H
#define ORACLE_PRNG_H

#include <stdint.h>

/* Advances *state and returns the next 64 random bits. */
static inline uint64_t oracle_prng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Advances *state past the next k outputs of oracle_prng_next without
 * computing them (the state is a Weyl sequence; the output a hash of it). */
static inline void oracle_prng_skip(uint64_t *state, uint64_t k)
{
    *state += k * UINT64_C(0x9e3779b97f4a7c15);
}

/* A draw in [0, n) by reduction modulo n (slightly biased for n not a power
 * of two; the sequences depend on it): one step of *state. n == 0 gives 0
 * without advancing *state. */
static inline uint64_t oracle_prng_below(uint64_t *state, uint64_t n)
{
    return n ? oracle_prng_next(state) % n : 0;
}

#endif /* ORACLE_PRNG_H */
