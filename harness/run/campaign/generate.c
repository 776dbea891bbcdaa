/* SPDX-License-Identifier: MIT */
/*
 * This file contains the fuzz campaign's cases: case i of the shard, a
 * function of (seed, i * N + k) alone - half the time a corpus input
 * mutated and decoded by the fuzz decoder, else a claim drawn and either
 * a drawn shape path under an element budget that grows with the case
 * number and with the campaign's time, or a structured random case.
 */
#include "harness/run/campaign/campaign_internal.h"

#include <inttypes.h>
#include <string.h>

#include "harness/cases/decode.h"
#include "harness/cases/shapes.h"

/* Mutates bytes in place (length may change within cap). */
static size_t mutate(gen_rng *g, uint8_t *buf, size_t n, size_t cap)
{
    uint32_t rounds = 1 + (uint32_t)gen_below(g, 8);
    for (uint32_t r = 0; r < rounds; r++) {
        switch (gen_below(g, 6)) {
        case 0: /* flip a bit */
            if (n)
                buf[gen_below(g, n)] ^= (uint8_t)(1u << gen_below(g, 8));
            break;
        case 1: /* random byte */
            if (n)
                buf[gen_below(g, n)] = (uint8_t)gen_next(g);
            break;
        case 2: /* interesting byte */
            if (n) {
                static const uint8_t interesting[] = {0, 1, 2, 3, 0x7f, 0x80, 0xff, 0xfe, 0x10, 0x40};
                buf[gen_below(g, n)] = interesting[gen_below(g, sizeof interesting)];
            }
            break;
        case 3: /* overwrite 2/4/8 bytes with an edge-like pattern */
            if (n >= 8) {
                size_t at = gen_below(g, n - 7);
                uint64_t v = gen_next(g);
                static const uint64_t pats[] = {0, UINT64_MAX, 0x8000000000000000u,
                                                0x7fffffffffffffffu, 1};
                v = gen_below(g, 2) ? pats[gen_below(g, 5)] : v;
                memcpy(buf + at, &v, 1u << (1 + gen_below(g, 3)));
            }
            break;
        case 4: /* erase a chunk */
            if (n > 2) {
                size_t at = gen_below(g, n), len = 1 + gen_below(g, n - at);
                if (len > 16)
                    len = 16;
                if (at + len <= n) {
                    memmove(buf + at, buf + at + len, n - at - len);
                    n -= len;
                }
            }
            break;
        default: /* insert random bytes */
            if (n < cap) {
                size_t at = n ? gen_below(g, n) : 0, len = 1 + gen_below(g, 8);
                if (n + len > cap)
                    len = cap - n;
                memmove(buf + at + len, buf + at, n - at);
                for (size_t i = 0; i < len; i++)
                    buf[at + i] = (uint8_t)gen_next(g);
                n += len;
            }
            break;
        }
    }
    return n;
}

/* The drawn shape paths' element budget (shape_budget): SHAPE_BUDGET_MIN
 * at case 0, doubling every SHAPE_BUDGET_STEP cases up to
 * SHAPE_BUDGET_SMALL, then every SHAPE_BUDGET_STEP * SMALL / budget cases
 * (each doubling then costs about the same time) up to SHAPE_BUDGET_MAX,
 * past the 2^22 elements where threaded paths start. Above SMALL one shape
 * case in SHAPE_BIG_ONE_IN draws under the whole budget, the others under
 * SMALL, so a campaign stays at hundreds of cases a second. A case of 2^23
 * f64 elements holds 3 x 64 MiB of tensors in the worker (and two outputs
 * in the parent). */
#define SHAPE_BUDGET_MIN   UINT64_C(256)
#define SHAPE_BUDGET_STEP  UINT64_C(20000)
#define SHAPE_BUDGET_SMALL (UINT64_C(1) << 16)
#define SHAPE_BUDGET_MAX   (UINT64_C(1) << 23)
#define SHAPE_BIG_ONE_IN   4

/* The budget grows with the campaign's time as well: at T seconds it is at
 * least the budget of case T * SHAPE_BUDGET_RATE (a quick plugin's case
 * rate), so a slow plugin, whose cases come slowly, still reaches the large
 * sizes (2^23 after about 7 minutes). The time counts in whole seconds, and
 * only in a campaign with a time budget (--seconds): one bounded by its
 * case count alone (--seconds 0 --cases N) makes the same cases from the
 * same seed on any machine, with any number of jobs. */
#define SHAPE_BUDGET_RATE  UINT64_C(500)

/* The budget at global case number `global`. */
static uint64_t shape_budget(uint64_t global)
{
    uint64_t budget = SHAPE_BUDGET_MIN, left = global;
    while (budget < SHAPE_BUDGET_MAX) {
        uint64_t span = budget < SHAPE_BUDGET_SMALL
                            ? SHAPE_BUDGET_STEP
                            : SHAPE_BUDGET_STEP * SHAPE_BUDGET_SMALL / budget;
        if (left < span)
            break;
        left -= span;
        budget *= 2;
    }
    return budget;
}

/* The global number of case `index` of this shard. */
static uint64_t global_number(const campaign_options *o, uint64_t index)
{
    uint32_t n_shards = o->shard_count > 1 ? o->shard_count : 1;
    return index * n_shards + (n_shards > 1 ? o->shard_index : 0);
}

static uint32_t log2_of(uint64_t n)
{
    uint32_t k = 0;
    while (n >>= 1)
        k++;
    return k;
}

uint64_t campaign_case_key(shared *sh, uint64_t index)
{
    uint64_t global = global_number(sh->o, index);
    double secs = sh->deadline > 0 ? engine_now() - sh->started_at : 0;
    uint64_t by_time = secs > 0 ? (uint64_t)secs * SHAPE_BUDGET_RATE : 0;
    uint64_t budget = shape_budget(global > by_time ? global : by_time);
    return index << CAMPAIGN_KEY_BUDGET_BITS | log2_of(budget);
}

int campaign_make_case(shared *sh, uint64_t key, uint8_t *scratch, size_t cap, divcase *c)
{
    const campaign_options *o = sh->o;
    uint64_t global = global_number(o, key >> CAMPAIGN_KEY_BUDGET_BITS);
    gen_rng g;
    gen_seed(&g, o->seed, global);
    char id[64];
    snprintf(id, sizeof id, "fuzz:%" PRIu64 ":%" PRIu64, o->seed, global);
    if (sh->corpus.n && gen_below(&g, 2)) {
        size_t k = gen_below(&g, sh->corpus.n);
        size_t n = sh->corpus.size[k] < cap ? sh->corpus.size[k] : cap;
        memcpy(scratch, sh->corpus.data[k], n);
        n = mutate(&g, scratch, n, cap);
        decode_limits lim;
        decode_limits_default(&lim);
        lim.max_elements = o->max_elements;
        lim.claims = sh->claims;
        lim.n_claims = sh->n_claims;
        if (decode_case(scratch, n, &lim, c))
            return -1;
        snprintf(c->id, sizeof c->id, "%s", id);
        return 0;
    }
    const dvg_claim *cl = &sh->claims[gen_below(&g, sh->n_claims)];
    if (gen_below(&g, 4) == 0) {
        /* A shape path under the key's budget (sizes are log-uniform
         * below it, so most cases stay small). */
        uint64_t budget = UINT64_C(1) << (key & ((1u << CAMPAIGN_KEY_BUDGET_BITS) - 1));
        if (budget > SHAPE_BUDGET_SMALL && gen_below(&g, SHAPE_BIG_ONE_IN))
            budget = SHAPE_BUDGET_SMALL;
        shapes_spec sp;
        shapes_draw(&g, cl->variant, cl->dtype, budget, &sp);
        return shapes_case(&g, cl->variant, cl->dtype, &sp, id, c);
    }
    return gen_case(&g, cl->variant, cl->dtype, NULL, 1, 8, o->max_elements, id, c);
}
