/* SPDX-License-Identifier: MIT */
/*
 * oracle/edges.h: the edge values of every dtype, the values each
 * generator, sweep and self-check must reach (docs/semantics.md, "Edge values
 * every generator must reach"), held in one place.
 *
 * Two views of the same fact:
 *   - oracle_edge_values: one table per dtype, in a fixed order. Floats:
 *     +-0, +-smallest, mid and largest subnormal, +-smallest normal and its
 *     neighbour, +-largest finite, +-inf, 1 and its neighbours, 2, 3, 0.5,
 *     7, 2 - ulp, a quiet NaN of each sign and a signalling NaN. Integers:
 *     0, 1, 2, 3, 7, -1 (UINT_MAX), -2, -3, -7, INT_MAX, INT_MIN and their
 *     neighbours, and for 32 and 64 bits values that lose exactness
 *     through float or double.
 *   - TestFloat's boundary exponents and significand patterns of a float
 *     format, which a consumer crosses into a grid (the sweeps).
 *
 * The tables are part of the project's reproducibility: seeded cases, the
 * fuzz decoder and the committed corpus index oracle_edge_values by
 * position, and stored sweeps name their grid by its size. Appending,
 * removing or reordering an entry changes what every seed means.
 */
#ifndef ORACLE_EDGES_H
#define ORACLE_EDGES_H

#include <stddef.h>
#include <stdint.h>

/* Upper bounds of the counts below, for callers' arrays. */
#define ORACLE_EDGE_MAX_VALUES 48
#define ORACLE_EDGE_MAX_EXPONENTS 32
#define ORACLE_EDGE_MAX_SIGNIFICANDS (6 + 4 * 64)

/* The edge values of `dtype` as zero-extended bits; *n receives their
 * count (<= ORACLE_EDGE_MAX_VALUES). The table is static and built on first
 * use (thread-safe); the pointer stays valid for the life of the process.
 * An unknown dtype gives NULL and *n = 0. */
const uint64_t *oracle_edge_values(uint32_t dtype, size_t *n);

/* TestFloat's boundary biased exponents of float `dtype`: 0 .. 3, around
 * the precision p (p/2, p), around the bias (bias +- 1, 2, p/2, p, p + 1),
 * and below the all-ones exponent (all_ones - p - 1, - 4 .. 0), in that
 * order, those outside [0, all_ones] left out. Writes them into out
 * (room for ORACLE_EDGE_MAX_EXPONENTS) and returns the count; 0 for a
 * dtype that is not a float. */
size_t oracle_edge_exponents(uint32_t dtype, uint64_t *out);

/* TestFloat's significand patterns of float `dtype` (fraction bits only):
 * 0, all ones, 0101.., 1010.., 0011.., 11110000.., then for i = 1 ..
 * frac_bits - 1 the run of i low ones and its complement, then for
 * i = 0 .. frac_bits - 1 the single bit i and its complement, in that
 * order (not unique). Writes them into out (room for
 * ORACLE_EDGE_MAX_SIGNIFICANDS) and returns the count; 0 for a dtype that
 * is not a float. */
size_t oracle_edge_significands(uint32_t dtype, uint64_t *out);

#endif /* ORACLE_EDGES_H */
