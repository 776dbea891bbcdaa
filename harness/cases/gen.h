/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/gen.h: seeded random cases biased to the edge values of
 * docs/semantics.md ("Edge values every generator must reach") and to every
 * broadcasting rule, valid and invalid. The same (seed, stream, index)
 * gives the same case on every machine: the splitmix64 generator of
 * oracle/prng.h, no host floating point, no global state.
 */
#ifndef HARNESS_GEN_H
#define HARNESS_GEN_H

#include <stddef.h>
#include <stdint.h>
#include "harness/cases/divcase.h"
#include "oracle/prng.h"

typedef struct gen_rng {
    uint64_t state;
} gen_rng;

/* Seeds a stream: the same (seed, stream) gives the same sequence. */
void gen_seed(gen_rng *g, uint64_t seed, uint64_t stream);

/* The stream's next 64 random bits (splitmix64: every value equally
 * likely, the sequence a function of the seed and stream alone); advances
 * g. Inline, as gen_below: they sit in the generator's inner loops, where
 * a constant n turns the reduction into a mask or a multiplication. */
static inline uint64_t gen_next(gen_rng *g)
{
    return oracle_prng_next(&g->state);
}

/* In [0, n) for n > 0 (oracle_prng_below: the next value modulo n); one
 * step of g. */
static inline uint64_t gen_below(gen_rng *g, uint64_t n)
{
    return oracle_prng_below(&g->state, n);
}

/* The edge values of a dtype as zero-extended bits: oracle_edge_values
 * (oracle/edges.h), the table gen_value and gen_edge_case draw from; *n
 * receives their count. The table is static; the pointer stays valid. */
const uint64_t *gen_edge_values(uint32_t dtype, size_t *n);

/* One operand value: an edge value, a value near one, a float with a
 * boundary exponent, or random bits. */
uint64_t gen_value(gen_rng *g, uint32_t dtype);

/* Elements drawn one by one per operand; past this, gen_fill_operands
 * repeats them. */
#define GEN_FILL_PERIOD 4096u

/* Fills the operand buffers of c (allocated for its shapes) with values
 * from gen_value: a run of up to about GEN_FILL_PERIOD elements per
 * operand, repeated, and in signed dtypes with equal element counts an
 * INT_MIN / -1 pair one time in four. */
void gen_fill_operands(gen_rng *g, divcase *c);

/* Like gen_fill_operands, but A and B repeat with the same period,
 * GEN_FILL_PERIOD elements, and the INT_MIN / -1 pair lies at one place
 * in every period: for equal shapes, output element i depends only on i mod
 * GEN_FILL_PERIOD, so the judge checks one period by the oracle and the
 * others by comparing their bytes with it (verdict_outputs.period). The
 * size tiers of the shape walker use it: a case of 2^24 elements then
 * costs about what a memcmp of its output costs to judge. */
void gen_fill_operands_periodic(gen_rng *g, divcase *c);

/* Advances g exactly as gen_fill_operands (periodic 0) or
 * gen_fill_operands_periodic (1) would fill the operands of c (its dtype
 * and shapes read; its buffers neither needed nor written): a planner
 * finds where the stream stands before each case of a list without
 * building them. */
void gen_skip_operands(gen_rng *g, const divcase *c, int periodic);

/*
 * Fills *c (zeroed first) with a random case for (variant, dtype, attrs):
 * shapes drawn for the variant's shape rule (attrs may be changed: the
 * ONNX legacy broadcast/axis, OpenVINO auto_broadcast/axis/m_pythondiv are
 * drawn too when `vary_attrs` is 1), mostly valid, about one in
 * `invalid_one_in` (0: never) deliberately invalid; operands from
 * gen_value, with divisors that make A's remainder non-zero and with
 * INT_MIN / -1 pairs. At most max_elements output elements. `id` names
 * the case. Returns 0, or -1 on allocation failure.
 */
int gen_case(gen_rng *g, uint32_t variant, uint32_t dtype, const dvg_attrs *attrs,
             int vary_attrs, uint32_t invalid_one_in, uint64_t max_elements, const char *id,
             divcase *c);

/*
 * Fills *c with the edge-value cross product of a dtype: A and B are 1-D
 * tensors of n*n elements holding every (edge_i, edge_j) pair, under the
 * variant's default attributes merged with `attrs` (equal shapes are valid
 * in every variant's default rule). Returns 0 or -1.
 */
int gen_edge_case(uint32_t variant, uint32_t dtype, const dvg_attrs *attrs, const char *id,
                  divcase *c);

#endif /* HARNESS_GEN_H */
