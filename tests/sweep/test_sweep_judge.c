/* SPDX-License-Identifier: MIT */
/*
 * tests/sweep/test_sweep_judge.c: the sweep's judging of a batch (bulk
 * check, then the full oracle on the listed elements only) gives exactly
 * the verdict of judging every element with the full oracle.
 *
 * Kernels: the reference and the value mutants of the zoo, loaded in this
 * process. For each (variant, dtype) the variant table allows, batches of
 * sampled rows (16-bit types), every row (8- and 4-bit types) or random
 * rows (f32, f64) in the sweep's numpy layout, A (k, 1) against B (n), are
 * (equal 1-D shapes for the variants that need them) are
 * computed by the kernel and judged twice: by sweep_judge_batch and by
 * verdict_case over the whole batch with oracle_expect_tensor. Every field
 * of the two tallies and the elements per signature (class, operand
 * classes) must be equal, under the exact, ftz, daz, ftz+daz and ulp:1
 * profiles (the kernels include the zoo's x86 MXCSR.DAZ and MXCSR.FZ ones
 * and an Arm-style flush), with and without declared deviations, and with simulated unwritten and
 * nondeterministic elements from a second run.
 *
 * --sample (the ASan+UBSan build, where every batch is ten times slower
 * and a repeated one finds nothing new): the same batches on fewer
 * values: 32 rows of the 8- and 4-bit types, 4,096 columns of the 16-bit
 * ones (every 16th value, its low bits walking: zeros, subnormals,
 * infinities, NaNs and the extremes among them), one round each.
 *
 * Usage: test_sweep_judge PATH/reference.so MUTANT_DIR [--sample]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness/run/sweep/sweep.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/fastpath.h"
#include "oracle/rowcheck.h"
#include "oracle/variant.h"

typedef struct plugin {
    const char *name;
    void *so;
    const dvg_descriptor *d;
    dvg_iut *iut;
} plugin;

static int load(const char *path, plugin *p)
{
    dvg_entry_fn entry;
    p->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->so) {
        fprintf(stderr, "%s\n", dlerror());
        return -1;
    }
    *(void **)&entry = dlsym(p->so, DVG_ENTRY_SYMBOL);
    if (!entry)
        return -1;
    p->d = entry();
    return p->d->open("", &p->iut) == DVG_OK ? 0 : -1;
}

static uint64_t rng = 0x7e57u;
static uint64_t next(void)
{
    uint64_t z = (rng += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* Elements per signature, from a sink. */
typedef struct sigmap {
    uint32_t cls[256], oa[256], ob[256];
    uint64_t elements[256];
    uint32_t n;
} sigmap;

static void sig_add(sigmap *m, uint32_t cls, uint32_t oa, uint32_t ob, uint64_t e)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->cls[i] == cls && m->oa[i] == oa && m->ob[i] == ob) {
            m->elements[i] += e;
            return;
        }
    if (m->n < 256) {
        m->cls[m->n] = cls;
        m->oa[m->n] = oa;
        m->ob[m->n] = ob;
        m->elements[m->n++] = e;
    }
}

static int full_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    (void)c;
    sig_add(ctx, ex->cls, ex->operand_a, ex->operand_b, ex->elements);
    return 0;
}

/* subnormal_results: the sweep counts it only for a plugin that declares
 * flush-to-zero (its one use); `counted` says whether it did. */
static int same_tally(const verdict_tally *a, const verdict_tally *b, int counted)
{
    int same = a->cases == b->cases && a->elements == b->elements && a->max_ulps == b->max_ulps &&
               a->unspecified == b->unspecified &&
               a->unspecified_not_preferred == b->unspecified_not_preferred &&
               a->any_inf_positive == b->any_inf_positive &&
               a->any_inf_negative == b->any_inf_negative &&
               (!counted || a->subnormal_results == b->subnormal_results) &&
               a->declared_checked == b->declared_checked;
    same = same && !memcmp(a->counts, b->counts, sizeof a->counts) &&
           !memcmp(a->accepted, b->accepted, sizeof a->accepted) &&
           !memcmp(a->ulp_hist, b->ulp_hist, sizeof a->ulp_hist);
    return same;
}

static int same_sigs(const sigmap *x, const sigmap *y)
{
    if (x->n != y->n)
        return 0;
    for (uint32_t i = 0; i < x->n; i++) {
        int found = 0;
        for (uint32_t j = 0; j < y->n && !found; j++)
            found = x->cls[i] == y->cls[j] && x->oa[i] == y->oa[j] && x->ob[i] == y->ob[j] &&
                    x->elements[i] == y->elements[j];
        if (!found)
            return 0;
    }
    return 1;
}

static uint64_t batches, listed_total, compared_elements;
static sweep_judge *judge;

/* One batch: rows `fixed` (k) against `cols` (n) under (variant, attrs),
 * in the numpy layout or (flat) as equal 1-D shapes. */
static void one_batch(plugin *p, uint32_t variant, const dvg_attrs *at, uint32_t dtype,
                      const uint64_t *fixed, uint32_t k, const uint8_t *cols, uint32_t n,
                      const verdict_profile *prof, uint64_t declared, int simulate_rerun,
                      int flat)
{
    oracle_rules r;
    oracle_error why;
    if (oracle_rules_resolve(variant, dtype, at, &r, &why))
        return;
    uint64_t total = (uint64_t)k * n;
    size_t ab = oracle_nbytes(dtype, flat ? total : k), bb = oracle_nbytes(dtype, flat ? total : n);
    size_t cb = oracle_nbytes(dtype, total);
    uint8_t *a = calloc(1, ab + 8), *b = calloc(1, bb + 8), *out = calloc(1, cb + 8);
    uint8_t *out2 = calloc(1, cb + 8), *flags = calloc(1, total);
    oracle_elem *e = malloc(total * sizeof *e);
    for (uint64_t i = 0; i < (flat ? total : k); i++)
        oracle_store(dtype, a, i, fixed[flat ? i / n : i]);
    for (uint64_t i = 0; i < (flat ? total : n); i++)
        oracle_store(dtype, b, i, oracle_load(dtype, cols, i % n));
    dvg_tensor ta = {0}, tb = {0}, tc = {0};
    ta.dtype = tb.dtype = tc.dtype = dtype;
    ta.rank = flat ? 1 : 2;
    ta.shape[0] = flat ? (int64_t)total : k;
    ta.shape[1] = flat ? 0 : 1;
    ta.data = a;
    ta.nbytes = ab;
    tb.rank = 1;
    tb.shape[0] = flat ? (int64_t)total : n;
    tb.data = b;
    tb.nbytes = bb;
    tc.rank = flat ? 1 : 2;
    tc.shape[0] = flat ? (int64_t)total : k;
    tc.shape[1] = flat ? 0 : n;
    tc.data = out;
    tc.nbytes = cb;
    int32_t st = p->d->compute(p->iut, variant, &r.attrs, &ta, &tb, &tc);
    if (st != DVG_OK) {
        free(a), free(b), free(out), free(out2), free(flags), free(e);
        return; /* not claimed: nothing to compare */
    }
    memcpy(out2, out, cb);
    uint64_t poison_pattern = oracle_dtype_mask(dtype) & 0xA5A5A5A5A5A5A5A5u;
    const uint8_t *fl = NULL;
    if (simulate_rerun) { /* some elements unwritten, some nondeterministic */
        for (uint64_t i = 0; i < total; i += 997 + (next() % 50)) {
            if (next() & 1) {
                flags[i] = WORKER_ELEM_UNWRITTEN;
                oracle_store(dtype, out, i, poison_pattern);
            } else {
                flags[i] = WORKER_ELEM_NONDET;
                oracle_store(dtype, out2, i, oracle_load(dtype, out, i) ^ 1);
            }
        }
        fl = flags;
    }
    /* the sweep's way */
    /* cols of 16 bits and fewer hold every value in order (main) */
    sweep_view v = {&r, k, n, fixed, 1, cols, 0, poison_pattern,
                    oracle_dtype(dtype)->bits <= 16 && n == 1u << oracle_dtype(dtype)->bits, NULL};
    verdict_tally t1;
    memset(&t1, 0, sizeof t1);
    if (!(declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT))
        t1.subnormal_results = 0;
    uint64_t poison = 0;
    sweep_judge_clear(judge);
    /* without flags, as the sweep judges a first run: on a copy of the
     * output that the judge puts the poison back into */
    uint8_t *rp = malloc(cb ? cb : 1);
    memcpy(rp, out, cb);
    v.repoison = fl ? NULL : rp;
    int rc = sweep_judge_batch(judge, &v, fl ? out : rp, fl, fl ? out2 : NULL, NULL, prof,
                               declared, 0, &t1, &poison);
    CHECK(rc == 0);
    v.repoison = NULL;
    if (!fl && !poison) {
        uint64_t left = 0;
        for (uint64_t i = 0; i < total; i++)
            left += oracle_load(dtype, rp, i) != poison_pattern;
        CHECKF(left == 0, "%s %s: %llu elements without the poison after judging",
               oracle_dtype_tag(dtype), oracle_variant_get(variant)->name,
               (unsigned long long)left);
    }
    free(rp);
    if (!fl && poison) { /* genuine results equal to the poison: judged with flags, all 0 */
        memset(&t1, 0, sizeof t1);
        sweep_judge_clear(judge);
        CHECK(sweep_judge_batch(judge, &v, out, flags, out2, NULL, prof, declared, 0, &t1,
                                &poison) == 0);
    }
    listed_total += sweep_judge_listed(judge);
    sigmap s1 = {0}, s2 = {0};
    uint32_t n_sigs;
    const sweep_signature *sigs = sweep_judge_signatures(judge, &n_sigs);
    for (uint32_t i = 0; i < n_sigs; i++)
        sig_add(&s1, sigs[i].cls, sigs[i].operand_a, sigs[i].operand_b, sigs[i].elements);
    /* the full way */
    divcase c;
    memset(&c, 0, sizeof c);
    c.variant = variant;
    c.dtype = dtype;
    c.attrs = r.attrs;
    c.a_shape.rank = ta.rank;
    c.b_shape.rank = tb.rank;
    for (uint32_t i = 0; i < ta.rank; i++)
        c.a_shape.dims[i] = ta.shape[i];
    c.b_shape.dims[0] = tb.shape[0];
    c.a = a;
    c.b = b;
    c.a_bytes = ab;
    c.b_bytes = bb;
    oracle_plan plan;
    CHECK(oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &plan, &why) == ORACLE_OK);
    oracle_expect_tensor(&r, &plan, a, b, e);
    verdict_outputs vo;
    memset(&vo, 0, sizeof vo);
    vo.outcome = VERDICT_OUT_OK;
    vo.has_shape = 1;
    vo.shape = plan.out;
    vo.computed = 1;
    vo.out1 = out;
    vo.out2 = out2;
    vo.flags = fl ? flags : NULL;
    verdict_tally t2;
    memset(&t2, 0, sizeof t2);
    verdict_case(&r, &c, 1, &plan, e, &vo, prof, declared, 0, &t2, full_sink, &s2);
    batches++;
    compared_elements += total;
    /* signatures are itemised up to verdict's limit of 64 per case */
    int sigs_ok = s2.n >= 64 || same_sigs(&s1, &s2);
    CHECKF(same_tally(&t1, &t2, (declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) != 0) && sigs_ok,
           "%s %s %s profile %s declared %llu rerun %d, first row 0x%llx: sweep %llu elements "
           "%llu cases, full %llu %llu; wrong-value %llu/%llu, flushed %llu/%llu, subnormal "
           "results %llu/%llu, unspecified %llu/%llu; signatures %u/%u",
           p->name, oracle_variant_get(variant)->name, oracle_dtype_tag(dtype), prof->name,
           (unsigned long long)declared, simulate_rerun, (unsigned long long)fixed[0],
           (unsigned long long)t1.elements, (unsigned long long)t1.cases,
           (unsigned long long)t2.elements, (unsigned long long)t2.cases,
           (unsigned long long)t1.counts[ORACLE_CLASS_WRONG_VALUE],
           (unsigned long long)t2.counts[ORACLE_CLASS_WRONG_VALUE],
           (unsigned long long)(t1.counts[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] +
                                t1.accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT]),
           (unsigned long long)(t2.counts[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] +
                                t2.accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT]),
           (unsigned long long)t1.subnormal_results, (unsigned long long)t2.subnormal_results,
           (unsigned long long)t1.unspecified, (unsigned long long)t2.unspecified, s1.n, s2.n);
    free(a);
    free(b);
    free(out);
    free(out2);
    free(flags);
    free(e);
}

int main(int argc, char **argv)
{
    if (argc < 3 || (argc > 3 && strcmp(argv[3], "--sample") != 0)) {
        fprintf(stderr, "usage: test_sweep_judge REFERENCE.so MUTANT_DIR [--sample]\n");
        return 2;
    }
    int sample = argc > 3;
    static const char *const names[] = {"reference",       "flush_subnormals", "trunc_not_floor",
                                        "floor_not_trunc", "nan_to_num",       "wrong_inf_sign",
                                        "recip_mul",       "int_via_double",   "hw_daz",
                                        "hw_ftz",          "arm_ftz",          "bf16_truncates"};
    plugin plugins[12];
    uint32_t n_plugins = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        if (i == 0)
            snprintf(path, sizeof path, "%s", argv[1]);
        else
            snprintf(path, sizeof path, "%s/mutant_%s.so", argv[2], names[i]);
        memset(&plugins[n_plugins], 0, sizeof plugins[0]);
        plugins[n_plugins].name = names[i];
        if (load(path, &plugins[n_plugins])) {
            fprintf(stderr, "cannot load %s\n", path);
            return 2;
        }
        n_plugins++;
    }
    oracle_fastpath_selfcheck();
    judge = sweep_judge_new(UINT64_C(1) << 18);
    verdict_profile profiles[5];
    char err[128];
    verdict_profile_parse("exact", &profiles[0], err, sizeof err);
    verdict_profile_parse("ftz", &profiles[1], err, sizeof err);
    verdict_profile_parse("ulp:1", &profiles[2], err, sizeof err);
    verdict_profile_parse("daz", &profiles[3], err, sizeof err);
    verdict_profile_parse("ftz+daz", &profiles[4], err, sizeof err);
    static const uint32_t dtypes[] = {DVG_DTYPE_I8,  DVG_DTYPE_U8,  DVG_DTYPE_I4, DVG_DTYPE_U4,
                                      DVG_DTYPE_I16, DVG_DTYPE_U16, DVG_DTYPE_F16,
                                      DVG_DTYPE_BF16, DVG_DTYPE_F32, DVG_DTYPE_F64};
    uint8_t *cols = malloc(65536 * 8);
    uint64_t fixed[256];
    for (size_t t = 0; t < sizeof dtypes / sizeof dtypes[0]; t++) {
        uint32_t dtype = dtypes[t];
        const oracle_dtype_info *d = oracle_dtype(dtype);
        oracle_rowcheck_selfcheck(dtype);
        uint32_t n = d->bits <= 16 ? 1u << d->bits : 4096;
        uint64_t mask = oracle_dtype_mask(dtype);
        int spread = sample && d->bits == 16; /* every 16th value, low bits walking */
        if (spread)
            n = 4096;
        for (uint32_t j = 0; j < n; j++)
            oracle_store(dtype, cols, j,
                         spread ? j * 16 + (j & 15) : d->bits <= 16 ? j : (next() & mask));
        uint64_t before = batches;
        for (uint32_t vi = 0; vi < oracle_variant_count(); vi++) {
            const oracle_variant *v = oracle_variant_at(vi);
            if (!oracle_variant_has_dtype(v, dtype))
                continue;
            /* numpy layout where the variant broadcasts that way, else flat */
            int flat = !(v->shape_rule == ORACLE_SHAPE_NUMPY ||
                         (v->attr_keys & ORACLE_ATTR_AUTO_BROADCAST));
            for (int other = 0; other < 2; other++) {
                dvg_attrs at;
                oracle_attrs_default(v, &at);
                if (other) {
                    if (!(v->attr_keys & (ORACLE_ATTR_PYTHONDIV | ORACLE_ATTR_INT_ROUNDING)))
                        continue;
                    at.pythondiv = 0;
                    at.int_rounding = DVG_ROUND_TRUNC;
                }
                for (uint32_t pi = 0; pi < n_plugins; pi++) {
                    if (pi >= 8 && d->kind != DVG_KIND_FLOAT)
                        continue; /* the mode mutants are the reference for integers */
                    /* rows: every one (8 and 4 bits), a sample otherwise */
                    uint32_t k = d->bits <= 8 ? (1u << d->bits) : 4;
                    uint32_t rounds = d->bits == 16 ? 4 : 3;
                    if (sample && d->bits <= 8)
                        k = k < 32 ? k : 32;
                    for (uint32_t round = 0; round < rounds; round++) {
                        if (sample && round != (pi + vi) % rounds)
                            continue; /* one round, each in turn */
                        for (uint32_t i = 0; i < k; i++)
                            fixed[i] = d->bits == 8 && sample ? (i * 8 + (i & 7)) & mask
                                       : d->bits <= 8        ? i
                                                             : next() & mask;
                        if (d->bits == 16 && round == 0) { /* zeros, subnormals, INT_MIN, -1 */
                            fixed[0] = 0;
                            fixed[1] = 0x8000;
                            fixed[2] = 1;
                            fixed[3] = 0xFFFF;
                        }
                        int prof = (int)((round + pi) % 5);
                        uint64_t declared = round == 1   ? DVG_DEV_FLUSH_SUBNORMAL_OUTPUT |
                                                               DVG_DEV_INT_DIV_ZERO_VALUE
                                            : round == 3 ? DVG_DEV_SUBNORMAL_INPUT_ZERO
                                                         : 0;
                        one_batch(&plugins[pi], v->id, &at, dtype, fixed, k, cols, n,
                                  &profiles[prof], declared, round == 2, flat);
                    }
                }
            }
        }
        printf("  %-5s %llu batches\n", d->tag, (unsigned long long)(batches - before));
    }
    printf("  %llu batches, %llu elements; the sweep judged %llu of them in full\n",
           (unsigned long long)batches, (unsigned long long)compared_elements,
           (unsigned long long)listed_total);
    sweep_judge_free(judge);
    free(cols);
    for (uint32_t pi = 0; pi < n_plugins; pi++)
        plugins[pi].d->close(plugins[pi].iut);
    return check_done("test_sweep_judge");
}
