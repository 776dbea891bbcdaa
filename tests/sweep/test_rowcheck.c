/* SPDX-License-Identifier: MIT */
/*
 * tests/sweep/test_rowcheck.c: the sweep's bulk check (oracle/rowcheck.h)
 * lists exactly the elements its scalar definition lists.
 *
 * The scalar routine is oracle_expect_n element by element: an element is
 * left out only when the oracle's answer is EXACT or ANY_NAN and accepts
 * it (and it is neither poison nor an x/0 under a non-IEEE rule). The
 * vector kernels (oracle_rowcheck, once the self-check has enabled them) must give the same list, poison count and subnormal
 * count for the kernel's exact results, for results one bit off, for
 * random results and with a poisoned element, under every variant's
 * rules (and the other integer rounding): every i8 and u8 row, for 16-bit
 * types rows of fixed operands 0..65535 in steps of STEP plus edge values
 * against all 65536 values in both roles (--all: every row; f16 and bf16
 * rows also with every_value, the kernel that scales quotients), for f32
 * and f64 seeded random rows. The self-check must enable every kernel here.
 *
 * --sample (the ASan+UBSan build, where each row costs ten times as much):
 * 16-bit rows of every fourth edge value only, the others unchanged.
 *
 * Usage: test_rowcheck [--all|--sample]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/rowcheck.h"
#include "oracle/variant.h"

#define STEP 8191

static uint64_t rng = 0x5eed5eed5eedull;

static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

static uint32_t rules_of(uint32_t dtype, oracle_rules *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < oracle_variant_count(); i++) {
        const oracle_variant *v = oracle_variant_at(i);
        if (!oracle_variant_has_dtype(v, dtype))
            continue;
        dvg_attrs at;
        oracle_error e;
        oracle_attrs_default(v, &at);
        if (oracle_rules_resolve(v->id, dtype, &at, &out[n], &e) == ORACLE_OK)
            n++;
        if (v->attr_keys & (ORACLE_ATTR_PYTHONDIV | ORACLE_ATTR_INT_ROUNDING)) {
            at.pythondiv = !at.pythondiv;
            at.int_rounding = DVG_ROUND_TRUNC;
            if (oracle_rules_resolve(v->id, dtype, &at, &out[n], &e) == ORACLE_OK)
                n++;
        }
    }
    return n;
}

static uint32_t *l1, *l2;
static uint8_t *rp1, *rp2; /* copies of a row's output, for repoison */
static uint64_t rows_checked, listed_total;

/* With repoison, on two copies of the output: the vector kernel and the
 * scalar routine list the same elements and leave the same bytes - the
 * listed elements as they were, every other one the poison. */
static void compare_repoison(const oracle_row *row, const char *what)
{
    uint32_t dtype = row->rules->dtype;
    size_t bytes = oracle_nbytes(dtype, row->n);
    uint64_t poison = row->poison & oracle_dtype_mask(dtype);
    memcpy(rp1, row->out, bytes);
    memcpy(rp2, row->out, bytes);
    oracle_row a = *row, b = *row;
    a.out = a.repoison = rp1;
    b.out = b.repoison = rp2;
    oracle_row_result r1, r2;
    int v = oracle_rowcheck(&a, l1, &r1), sc = oracle_rowcheck_scalar(&b, l2, &r2);
    uint32_t wrong = 0, li = 0;
    for (uint32_t j = 0; j < row->n; j++) {
        int listed = li < r2.listed && l2[li] == j;
        li += (uint32_t)listed;
        uint64_t want = listed ? oracle_load(dtype, row->out, j) : poison;
        wrong += oracle_load(dtype, rp2, j) != want;
    }
    CHECKF(v == 0 && sc == 0 && r1.listed == r2.listed &&
               !memcmp(l1, l2, r1.listed * sizeof *l1) && !memcmp(rp1, rp2, bytes) && !wrong,
           "%s %s (%s) fixed 0x%llx as %s, repoison: vector listed %u, scalar %u; buffers %s; "
           "%u elements not as defined",
           oracle_dtype_tag(dtype), row->rules->variant->name, what,
           (unsigned long long)row->fixed, row->fixed_is_a ? "A" : "B", r1.listed, r2.listed,
           memcmp(rp1, rp2, bytes) ? "differ" : "equal", wrong);
}

static void compare_row(const oracle_row *row, const char *what)
{
    oracle_row_result r1, r2;
    /* the vector kernel where there is one (the self-check must have
     * enabled it: checked in main), the scalar routine elsewhere */
    int v = oracle_rowcheck_vector(row, l1, &r1);
    if (v)
        v = oracle_rowcheck_scalar(row, l1, &r1);
    int s = oracle_rowcheck_scalar(row, l2, &r2);
    int same = v == 0 && s == 0 && r1.listed == r2.listed && r1.poison == r2.poison &&
               r1.subnormal == r2.subnormal && !memcmp(l1, l2, r1.listed * sizeof *l1);
    rows_checked++;
    listed_total += r2.listed;
    if (!same) {
        uint32_t at = 0;
        while (at < r1.listed && at < r2.listed && l1[at] == l2[at])
            at++;
        CHECKF(0, "%s %s (%s) fixed 0x%llx as %s: vector listed %u poison %u subnormal %u, "
                  "scalar %u %u %u; first difference at list entry %u (vector %d, scalar %d)",
               oracle_dtype_tag(row->rules->dtype), row->rules->variant->name, what,
               (unsigned long long)row->fixed, row->fixed_is_a ? "A" : "B", r1.listed, r1.poison,
               r1.subnormal, r2.listed, r2.poison, r2.subnormal, at,
               at < r1.listed ? (int)l1[at] : -1, at < r2.listed ? (int)l2[at] : -1);
    } else {
        CHECK(1);
    }
}

/* Rows of one fixed operand against v (n values), each output kind. */
static void rows_for(const oracle_rules *r, uint64_t fixed, const uint8_t *v, uint32_t n,
                     uint8_t *out, uint64_t *a, uint64_t *b, oracle_elem *e)
{
    uint32_t dtype = r->dtype;
    uint64_t mask = oracle_dtype_mask(dtype);
    for (int role = 0; role < 2; role++) {
        for (uint32_t i = 0; i < n; i++) {
            uint64_t x = oracle_load(dtype, v, i);
            a[i] = role ? fixed : x;
            b[i] = role ? x : fixed;
        }
        oracle_expect_n(r, a, b, n, e);
        oracle_row row = {r, fixed, role, v, out, n, mask & 0xA5A5A5A5A5A5A5A5u, (int)(next() & 1),
                          0, NULL};
        /* v of every value (the caller's 16-bit rows): f16 and bf16 rows
         * also with every_value, where their kernel scales quotients */
        int scaled = n == 65536 && (dtype == DVG_DTYPE_F16 || dtype == DVG_DTYPE_BF16);
        static const char *const kinds[] = {"exact", "one bit off", "random", "poisoned",
                                            "exact, low nibble random"};
        /* 16-bit rows: the three kinds that matter most, poison in the last */
        int wide = oracle_dtype(dtype)->bits == 16;
        for (int k = 0; k < 5; k++) {
            if (wide && (k == 2 || k == 3))
                continue;
            for (uint32_t i = 0; i < n; i++) {
                uint64_t bits = e[i].bits;
                if (k == 1)
                    bits ^= 1;
                else if (k == 2)
                    bits = next();
                else if (k == 4 && (next() & 7) == 0)
                    bits ^= next() & 15;
                oracle_store(dtype, out, i, bits & mask);
            }
            if (k == 3 || (wide && k == 4)) {
                oracle_store(dtype, out, n / 2, row.poison);
                oracle_store(dtype, out, n - 1, row.poison);
            }
            row.every_value = 0;
            compare_row(&row, kinds[k]);
            if (k != 2) /* random results: every element listed, nothing to put back */
                compare_repoison(&row, kinds[k]);
            if (scaled) {
                row.every_value = 1;
                compare_row(&row, kinds[k]);
                compare_repoison(&row, kinds[k]);
            }
        }
    }
}

int main(int argc, char **argv)
{
    int all = argc > 1 && !strcmp(argv[1], "--all");
    int sample = argc > 1 && !strcmp(argv[1], "--sample");
    if (argc > 1 && !all && !sample) {
        fprintf(stderr, "usage: test_rowcheck [--all|--sample]\n");
        return 2;
    }
    static const uint32_t dtypes[] = {DVG_DTYPE_I8, DVG_DTYPE_U8, DVG_DTYPE_I4, DVG_DTYPE_U4,
                                      DVG_DTYPE_I16, DVG_DTYPE_U16, DVG_DTYPE_F16,
                                      DVG_DTYPE_BF16, DVG_DTYPE_F32, DVG_DTYPE_F64};
    uint32_t cap = 65536;
    uint8_t *v = malloc(cap * 8), *out = malloc(cap * 8);
    uint64_t *a = malloc(cap * sizeof *a), *b = malloc(cap * sizeof *b);
    oracle_elem *e = malloc(cap * sizeof *e);
    l1 = malloc(cap * sizeof *l1);
    l2 = malloc(cap * sizeof *l2);
    rp1 = malloc(cap * 8);
    rp2 = malloc(cap * 8);
    if (!v || !out || !a || !b || !e || !l1 || !l2 || !rp1 || !rp2)
        return 2;
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++) {
        uint32_t dtype = dtypes[t];
        const oracle_dtype_info *d = oracle_dtype(dtype);
        int has_kernel = d->bits == 8 || d->bits == 16 || d->kind == DVG_KIND_FLOAT;
        int on = oracle_rowcheck_selfcheck(dtype);
        CHECKF(on == has_kernel, "%s: self-check says %d", d->tag, on);
        oracle_rules rules[32];
        uint32_t n_rules = rules_of(dtype, rules);
        CHECKF(n_rules > 0, "%s has no rules", d->tag);
        uint64_t before = rows_checked;
        clock_t t0 = clock();
        if (d->bits <= 16) {
            uint32_t n = (uint32_t)1 << d->bits;
            for (uint32_t i = 0; i < n; i++)
                oracle_store(dtype, v, i, i);
            for (uint32_t k = 0; k < n_rules; k++) {
                uint32_t step = (d->bits <= 8 || all) ? 1 : STEP;
                for (uint32_t f = 0; f < n && !(sample && d->bits == 16); f += step)
                    rows_for(&rules[k], f, v, n, out, a, b, e);
                if (d->bits == 16 && !all) {
                    static const uint16_t edges[] = {
                        0x0000, 0x0001, 0x0002, 0x0003, 0x03FF, 0x0400, 0x3C00, 0x3F80, 0x4000,
                        0x7BFF, 0x7C00, 0x7C01, 0x7E00, 0x7F7F, 0x7F80, 0x7FC0, 0x7FFF, 0x8000,
                        0x8001, 0xBC00, 0xBF80, 0xFC00, 0xFF80, 0xFFFF, 0xFFFE};
                    for (size_t i = sample ? k % 4 : 0; i < sizeof edges / sizeof edges[0];
                         i += sample ? 4 : 1)
                        rows_for(&rules[k], edges[i], v, n, out, a, b, e);
                }
            }
        } else {
            uint32_t n = 4099; /* a tail for the kernels */
            uint64_t mask = oracle_dtype_mask(dtype);
            for (uint32_t k = 0; k < n_rules; k++)
                for (int row = 0; row < (all ? 2000 : 16); row++) {
                    for (uint32_t i = 0; i < n; i++) {
                        uint64_t x = next();
                        /* some zeros, infinities, NaNs, subnormals */
                        switch (x & 15) {
                        case 0: x &= (mask >> 1) + 1; break;
                        case 1: x = (x & ((mask >> 1) + 1)) | (mask >> 1); break;
                        case 2: x &= mask >> (d->bits == 32 ? 9 : 12); break;
                        default: break;
                        }
                        oracle_store(dtype, v, i, x & mask);
                    }
                    rows_for(&rules[k], next() & mask, v, n, out, a, b, e);
                    rows_for(&rules[k], oracle_load(dtype, v, row), v, n, out, a, b, e);
                }
        }
        printf("  %-5s %s, %llu rows, %.1f s\n", d->tag, oracle_rowcheck_method(dtype),
               (unsigned long long)(rows_checked - before), (double)(clock() - t0) / CLOCKS_PER_SEC);
    }
    printf("  %llu rows, %llu elements listed by the scalar definition\n",
           (unsigned long long)rows_checked, (unsigned long long)listed_total);
    free(v);
    free(out);
    free(a);
    free(b);
    free(e);
    free(l1);
    free(l2);
    free(rp1);
    free(rp2);
    return check_done("test_rowcheck");
}
