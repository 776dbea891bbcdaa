/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/coverage.c: what a set of cases exercised.
 *
 * This file contains the coverage accumulator of certify's claims: each
 * judged case's plan adds its output rank, its inner (last) dimension,
 * its broadcast pattern class (read from the plan's strides: a stride of
 * 0 under a dimension above 1 is a stretched operand) and its
 * element-count tier, and where its data sat against a 64-byte line;
 * coverage_format and coverage_format_offsets write the lists as the
 * store keeps them.
 */
#include "harness/cases/coverage.h"

#include <stdio.h>
#include <string.h>

#include "oracle/dtype.h"

static const char *const pattern_names[COVERAGE_PATTERNS] = {
    "same-shape", "scalar-a", "scalar-b", "row", "column",
    "outer", "middle-ones", "leading-ones", "both-sides", "empty",
};
enum { SAME, SCALAR_A, SCALAR_B, ROW, COLUMN, OUTER, MIDDLE, LEADING, BOTH, EMPTY };

static const char *const tier_names[COVERAGE_TIERS] = {
    "0", "1", "2-15", "16-255", "256-4095", "4k-64k", "64k-1M", "1M+",
};

const char *coverage_pattern_name(uint32_t k)
{
    return k < COVERAGE_PATTERNS ? pattern_names[k] : NULL;
}

const char *coverage_tier_name(uint32_t k)
{
    return k < COVERAGE_TIERS ? tier_names[k] : NULL;
}

static uint32_t tier_of(uint64_t n)
{
    if (n < 2)
        return (uint32_t)n;
    if (n < 16)
        return 2;
    if (n < 256)
        return 3;
    if (n < 4096)
        return 4;
    if (n < 65536)
        return 5;
    return n < (1u << 20) ? 6 : 7;
}

/* The pattern of one stretched operand (stretched: bit i set for dims
 * where it is read with stride 0 under a dimension above 1). */
static uint32_t one_side(const oracle_plan *p, uint32_t stretched)
{
    int last = -1;
    for (uint32_t i = 0; i < p->out.rank; i++)
        if (p->out.dims[i] > 1)
            last = (int)i;
    if (last < 0 || (stretched & (1u << last)))
        return COLUMN;
    /* A prefix of the dimensions above 1 stretched, the rest not? */
    int seen_kept = 0, prefix = 1, kept = 0;
    for (int i = 0; i <= last; i++) {
        if (p->out.dims[i] <= 1)
            continue;
        if (stretched & (1u << i)) {
            if (seen_kept)
                prefix = 0;
        } else {
            seen_kept = 1;
            kept++;
        }
    }
    if (!prefix)
        return MIDDLE;
    return kept == 1 ? ROW : LEADING;
}

uint32_t coverage_pattern_of(const oracle_plan *p)
{
    uint32_t sa = 0, sb = 0;
    if (p->count == 0)
        return EMPTY;
    for (uint32_t i = 0; i < p->out.rank && i < 32; i++) {
        if (p->out.dims[i] <= 1)
            continue;
        if (p->a_stride[i] == 0)
            sa |= 1u << i;
        if (p->b_stride[i] == 0)
            sb |= 1u << i;
    }
    if (!sa && !sb)
        return SAME;
    if (p->a_count == 1)
        return SCALAR_A;
    if (p->b_count == 1)
        return SCALAR_B;
    if (sa && sb) {
        /* All of A's stretched dims after all of B's, or the reverse: an
         * outer product ((n,1) by (1,m)). */
        uint32_t lo_a = (uint32_t)__builtin_ctz(sa), hi_a = 31u - (uint32_t)__builtin_clz(sa);
        uint32_t lo_b = (uint32_t)__builtin_ctz(sb), hi_b = 31u - (uint32_t)__builtin_clz(sb);
        return hi_a < lo_b || hi_b < lo_a ? OUTER : BOTH;
    }
    return one_side(p, sa ? sa : sb);
}

void coverage_clear(case_coverage *c)
{
    memset(c, 0, sizeof *c);
}

void coverage_merge(case_coverage *to, const case_coverage *from)
{
    to->cases += from->cases;
    to->ranks |= from->ranks;
    for (size_t i = 0; i < sizeof to->inner / sizeof to->inner[0]; i++)
        to->inner[i] |= from->inner[i];
    to->inner_above |= from->inner_above;
    to->patterns |= from->patterns;
    to->tiers |= from->tiers;
    for (int i = 0; i < 3; i++)
        to->offsets[i] |= from->offsets[i];
}

void coverage_add_plan(case_coverage *c, const oracle_plan *p)
{
    c->cases++;
    if (p->out.rank < 32)
        c->ranks |= 1u << p->out.rank;
    if (p->out.rank > 0) {
        int64_t n = p->out.dims[p->out.rank - 1];
        if (n >= 0 && n <= COVERAGE_MAX_INNER)
            c->inner[n / 64] |= 1ull << (n % 64);
        else
            c->inner_above = 1;
    }
    c->patterns |= 1u << coverage_pattern_of(p);
    c->tiers |= 1u << tier_of(p->count);
}

void coverage_add_offsets(case_coverage *c, const divcase *dc, const oracle_plan *p)
{
    uint64_t bytes[3] = {dc->a_bytes, dc->b_bytes, oracle_nbytes(dc->dtype, p->count)};
    for (int i = 0; i < 3; i++)
        if (bytes[i])
            c->offsets[i] |= UINT64_C(1) << divcase_data_offset(dc, i, bytes[i]);
}

/* Appends ",text" (or "text" first) to buf; once full, cuts at the last
 * comma that fits "...". */
static void append(char *buf, size_t len, size_t *used, int *full, const char *text)
{
    if (*full || len == 0)
        return;
    int n = snprintf(buf + *used, len - *used, "%s%s", *used ? "," : "", text);
    if (n >= 0 && *used + (size_t)n + 4 < len) {
        *used += (size_t)n;
        return;
    }
    *full = 1;
    buf[*used] = '\0';
    if (*used + 4 < len) {
        memcpy(buf + *used, *used ? ",..." : "...", *used ? 5 : 4);
        *used += strlen(buf + *used);
    }
}

static void names(uint32_t bits, const char *(*name)(uint32_t), uint32_t n, char *buf,
                  size_t len)
{
    size_t used = 0;
    int full = 0;
    if (len)
        buf[0] = '\0';
    for (uint32_t k = 0; k < n; k++)
        if (bits & (1u << k))
            append(buf, len, &used, &full, name(k));
}

static int inner_has(const case_coverage *c, int64_t n)
{
    return (c->inner[n / 64] >> (n % 64)) & 1;
}

void coverage_format(const case_coverage *c, char *ranks, size_t ranks_len, char *inner,
                     size_t inner_len, char *patterns, size_t patterns_len, char *tiers,
                     size_t tiers_len)
{
    char item[48];
    size_t used = 0;
    int full = 0;
    if (ranks_len)
        ranks[0] = '\0';
    for (uint32_t r = 0; r < 32; r++)
        if (c->ranks & (1u << r)) {
            snprintf(item, sizeof item, "%u", r);
            append(ranks, ranks_len, &used, &full, item);
        }
    used = 0;
    full = 0;
    if (inner_len)
        inner[0] = '\0';
    for (int64_t n = 0; n <= COVERAGE_MAX_INNER; n++) {
        if (!inner_has(c, n))
            continue;
        int64_t end = n;
        while (end < COVERAGE_MAX_INNER && inner_has(c, end + 1))
            end++;
        if (end == n)
            snprintf(item, sizeof item, "%lld", (long long)n);
        else
            snprintf(item, sizeof item, "%lld-%lld", (long long)n, (long long)end);
        append(inner, inner_len, &used, &full, item);
        n = end;
    }
    if (c->inner_above) {
        snprintf(item, sizeof item, ">%d", COVERAGE_MAX_INNER);
        append(inner, inner_len, &used, &full, item);
    }
    names(c->patterns, coverage_pattern_name, COVERAGE_PATTERNS, patterns, patterns_len);
    names(c->tiers, coverage_tier_name, COVERAGE_TIERS, tiers, tiers_len);
}

void coverage_format_offsets(const case_coverage *c, char *buf, size_t len)
{
    char all[3 * 64 * 7 + 16]; /* every offset of every tensor written out */
    size_t used = 0;
    all[0] = '\0';
    for (int i = 0; i < 3; i++) {
        uint64_t bits = c->offsets[i];
        int first = 1;
        for (uint32_t k = 0; k < 64; k++) {
            if (!((bits >> k) & 1))
                continue;
            uint32_t end = k;
            while (end < 63 && ((bits >> (end + 1)) & 1))
                end++;
            const char *lead = first ? (used ? "; " : "") : ",";
            char tensor[3] = {first ? "ABC"[i] : '\0', first ? ' ' : '\0', '\0'};
            int n = end == k ? snprintf(all + used, sizeof all - used, "%s%s%u", lead, tensor, k)
                             : snprintf(all + used, sizeof all - used, "%s%s%u-%u", lead, tensor,
                                        k, end);
            if (n > 0 && used + (size_t)n < sizeof all)
                used += (size_t)n;
            first = 0;
            k = end;
        }
    }
    if (!len)
        return;
    if (used < len) {
        memcpy(buf, all, used + 1);
        return;
    }
    /* cut at the last comma or semicolon that leaves room for "..." */
    size_t cut = len > 4 ? len - 4 : 0;
    while (cut > 0 && all[cut] != ',' && all[cut] != ';')
        cut--;
    memcpy(buf, all, cut);
    snprintf(buf + cut, len - cut, "%s", len - cut > 3 ? "..." : "");
}
