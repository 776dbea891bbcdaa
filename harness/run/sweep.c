/* SPDX-License-Identifier: MIT */
/*
 * harness/run/sweep.c: `divergence sweep` (see sweep.h). In this file: the
 * judging of a batch, the space (rows, chunks, batches, the edge table),
 * the jobs (one worker each), the store (one transaction per chunk), the
 * resume, progress and the summary.
 */
#include "harness/run/sweep.h"

#include <inttypes.h>
#include <pthread.h>
#include <sys/resource.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/base/affinity.h"
#include "harness/base/alloc.h"
#include "harness/cases/gen.h"
#include "harness/run/trial.h"
#include "harness/worker/narrow.h"
#include "harness/base/sha256.h"
#include "harness/store/store.h"
#include "harness/worker/batch.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/edges.h"
#include "oracle/fastpath.h"
#include "oracle/rowcheck.h"
#include "oracle/value.h"

#define MAX_JOBS 64
#define MAX_SIGNATURES 512      /* per chunk and job; more are counted, not itemised */
#define DEFAULT_BATCH_PAIRS (1u << 19)
#define RANDOM_ROW 256u         /* pairs per random row */
#define RANDOM_CHUNK_ROWS 4096u /* random rows per chunk (2^20 pairs) */
#define FULL_CASE_BYTES (64u << 10) /* a failing batch this small is its own reproducer */
#define MAX_HANGS 1             /* hangs before the sweep stops (each costs a timeout) */

enum { L_NUMPY, L_AXIS0, L_FLAT };
static const char *const layout_names[] = {"numpy", "axis0", "flat"};

void sweep_options_default(sweep_options *o)
{
    memset(o, 0, sizeof *o);
    char err[64];
    verdict_profile_parse("exact", &o->profile, err, sizeof err);
    o->seed = 1;
    o->random_pairs = UINT64_C(1) << 24;
    o->timeout_ms = 10000;
    o->max_failures = 8;
    o->batch_pairs = DEFAULT_BATCH_PAIRS;
    o->nondet_every = 64;
    o->pin = 0;
    o->progress = isatty(2);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* ========================================================================
 * Judging one batch
 * ====================================================================== */

struct sweep_judge {
    uint64_t cap;          /* pairs */
    uint32_t *list;        /* listed batch indices */
    uint8_t *ma, *mb, *mo1, *mo2, *mflags; /* the 1-D case of the listed pairs */
    uint64_t *mpos;        /* its element m is batch element mpos[m] */
    oracle_elem *expected;
    sweep_signature *sigs;
    uint32_t n_sigs;
    uint64_t listed;
    const sweep_view *view; /* during a call */
    int failed;
};

sweep_judge *sweep_judge_new(uint64_t max_pairs)
{
    sweep_judge *j = dvg_calloc(1, sizeof *j);
    if (!j)
        return NULL;
    uint64_t n = max_pairs ? max_pairs : 1;
    j->cap = n;
    j->list = dvg_malloc(n * sizeof *j->list);
    j->ma = dvg_malloc(n * 8);
    j->mb = dvg_malloc(n * 8);
    j->mo1 = dvg_malloc(n * 8);
    j->mo2 = dvg_malloc(n * 8);
    j->mflags = dvg_malloc(n);
    j->mpos = dvg_malloc(n * sizeof *j->mpos);
    j->expected = dvg_malloc(n * sizeof *j->expected);
    j->sigs = dvg_calloc(MAX_SIGNATURES, sizeof *j->sigs);
    if (!j->list || !j->ma || !j->mb || !j->mo1 || !j->mo2 || !j->mflags || !j->mpos ||
        !j->expected || !j->sigs) {
        sweep_judge_free(j);
        return NULL;
    }
    return j;
}

void sweep_judge_free(sweep_judge *j)
{
    if (!j)
        return;
    dvg_free(j->list);
    dvg_free(j->ma);
    dvg_free(j->mb);
    dvg_free(j->mo1);
    dvg_free(j->mo2);
    dvg_free(j->mflags);
    dvg_free(j->mpos);
    dvg_free(j->expected);
    dvg_free(j->sigs);
    dvg_free(j);
}

const sweep_signature *sweep_judge_signatures(const sweep_judge *j, uint32_t *n)
{
    *n = j->n_sigs;
    return j->sigs;
}

void sweep_judge_clear(sweep_judge *j)
{
    j->n_sigs = 0;
}

uint64_t sweep_judge_listed(const sweep_judge *j)
{
    return j->listed;
}

/* Value j of row i's other operand. */
static uint64_t view_col(const sweep_view *v, uint32_t i, uint64_t col)
{
    return oracle_load(v->rules->dtype, v->cols, (uint64_t)i * v->col_stride + col);
}

/* Adds one finding of a batch (index: batch element, or UINT64_MAX) to
 * the signature list. */
static void add_signature(sweep_judge *j, const sweep_view *v, const verdict_example *ex,
                          uint64_t index)
{
    uint32_t oa = index == UINT64_MAX ? ORACLE_OPERAND_COUNT : ex->operand_a;
    uint32_t ob = index == UINT64_MAX ? ORACLE_OPERAND_COUNT : ex->operand_b;
    for (uint32_t i = 0; i < j->n_sigs; i++) {
        sweep_signature *s = &j->sigs[i];
        if (s->cls == ex->cls && s->operand_a == oa && s->operand_b == ob) {
            s->elements += ex->elements;
            return;
        }
    }
    if (j->n_sigs == MAX_SIGNATURES)
        return;
    sweep_signature *s = &j->sigs[j->n_sigs++];
    memset(s, 0, sizeof *s);
    s->cls = ex->cls;
    s->operand_a = oa;
    s->operand_b = ob;
    s->accepted = ex->accepted;
    s->elements = ex->elements;
    s->ex = *ex;
    s->ex.index = index;
    if (index == UINT64_MAX || !v)
        return;
    uint32_t row = (uint32_t)(index / v->n), col = (uint32_t)(index % v->n);
    uint32_t start = col / SWEEP_WINDOW * SWEEP_WINDOW;
    uint32_t len = v->n - start < SWEEP_WINDOW ? v->n - start : SWEEP_WINDOW;
    s->row = row;
    s->col = col;
    s->row_value = v->fixed[row];
    s->row_is_a = v->row_is_a;
    s->window_n = len;
    s->window_at = col - start;
    for (uint32_t t = 0; t < len; t++)
        s->window[t] = view_col(v, row, start + t);
}

static int judge_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    sweep_judge *j = ctx;
    (void)c;
    uint64_t index = ex->index == UINT64_MAX ? UINT64_MAX : j->mpos[ex->index];
    add_signature(j, j->view, ex, index);
    return 0;
}

/* Rules under which equal 1-D shapes are valid, for the case of listed
 * pairs: the attributes that only shape the output are reset; the element
 * rules stay. */
static int mini_rules(const oracle_rules *r, oracle_rules *out, oracle_plan *p,
                      const oracle_shape *s)
{
    oracle_error why;
    *out = *r;
    if (oracle_plan_shapes(out, s, s, p, &why) == ORACLE_OK)
        return 0;
    dvg_attrs at = r->attrs;
    at.broadcast = 0;
    at.axis_set = 0;
    at.axis = -1;
    at.auto_broadcast = DVG_BROADCAST_NONE;
    if (oracle_rules_resolve(r->variant->id, r->dtype, &at, out, &why) != ORACLE_OK ||
        oracle_plan_shapes(out, s, s, p, &why) != ORACLE_OK)
        return -1;
    return 0;
}

int sweep_judge_batch(sweep_judge *j, const sweep_view *v, const uint8_t *out,
                      const uint8_t *flags, const uint8_t *out2, const worker_result *wr,
                      const verdict_profile *prof, uint64_t declared, int64_t int_div_zero_value,
                      verdict_tally *t, uint64_t *poison)
{
    const oracle_rules *r = v->rules;
    uint32_t dtype = r->dtype;
    uint32_t bits = oracle_dtype(dtype)->bits;
    uint64_t total = (uint64_t)v->k * v->n, listed = 0, poisoned = 0, subnormal = 0;
    int count_sub = (declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) != 0;
    uint64_t subnormal_before = t->subnormal_results;
    *poison = 0;
    j->listed = 0;
    if (total > j->cap)
        return -1;
    /* 1. every row in bulk */
    for (uint32_t i = 0; i < v->k; i++) {
        uint64_t base = (uint64_t)i * v->n;
        oracle_row row = {r, v->fixed[i], v->row_is_a,
                          v->cols + (uint64_t)i * v->col_stride * bits / 8, out + base * bits / 8,
                          v->n, v->poison, count_sub, v->every_value,
                          v->repoison && !flags ? v->repoison + base * bits / 8 : NULL};
        oracle_row_result res;
        uint32_t *l = j->list + listed;
        oracle_rowcheck(&row, l, &res);
        poisoned += res.poison;
        int whole = 0;
        if (flags)
            for (uint32_t c = 0; c < v->n && !whole; c++)
                whole = flags[base + c] != 0;
        if (whole) { /* a row with unwritten or nondeterministic elements: in full */
            for (uint32_t c = 0; c < v->n; c++)
                l[c] = (uint32_t)(base + c);
            listed += v->n;
        } else {
            for (uint32_t q = 0; q < res.listed; q++)
                l[q] += (uint32_t)base;
            listed += res.listed;
            subnormal += res.subnormal;
        }
    }
    *poison = poisoned;
    if (!flags && poisoned)
        return 0;
    /* 2. the listed pairs, in full */
    t->elements += total - listed;
    t->subnormal_results += subnormal;
    j->listed = listed;
    int leaks = wr && (wr->side_effects & ~(uint32_t)WORKER_SIDE_PAD_NIBBLE);
    if (!listed && !leaks) {
        t->cases++;
        return 0;
    }
    for (uint64_t m = 0; m < listed; m++) {
        uint64_t idx = j->list[m];
        uint32_t i = (uint32_t)(idx / v->n);
        uint64_t col = view_col(v, i, idx % v->n);
        oracle_store(dtype, j->ma, m, v->row_is_a ? v->fixed[i] : col);
        oracle_store(dtype, j->mb, m, v->row_is_a ? col : v->fixed[i]);
        uint64_t o1 = oracle_load(dtype, out, idx);
        oracle_store(dtype, j->mo1, m, o1);
        oracle_store(dtype, j->mo2, m, flags ? oracle_load(dtype, out2, idx) : o1);
        j->mflags[m] = flags ? flags[idx] : 0;
        j->mpos[m] = idx;
        if (v->repoison && !flags) /* read: the poison back (the rest had it from step 1) */
            oracle_store(dtype, v->repoison, idx, v->poison);
    }
    divcase c;
    memset(&c, 0, sizeof c);
    snprintf(c.id, sizeof c.id, "sweep-listed");
    c.variant = r->variant->id;
    c.dtype = dtype;
    c.a_shape.rank = c.b_shape.rank = 1;
    c.a_shape.dims[0] = c.b_shape.dims[0] = (int64_t)listed;
    c.a = j->ma;
    c.b = j->mb;
    c.a_bytes = c.b_bytes = oracle_nbytes(dtype, listed);
    oracle_rules mr;
    oracle_plan p;
    if (mini_rules(r, &mr, &p, &c.a_shape))
        return -1;
    c.attrs = mr.attrs;
    oracle_expect_tensor(&mr, &p, c.a, c.b, j->expected);
    verdict_outputs mo; /* the listed pairs as computed, with wr's side effects */
    memset(&mo, 0, sizeof mo);
    if (wr)
        trial_outputs_from_worker(wr, &mo);
    mo.outcome = VERDICT_OUT_OK;
    mo.has_shape = 1;
    mo.shape = p.out;
    mo.computed = 1;
    mo.out1 = j->mo1;
    mo.out2 = j->mo2;
    mo.flags = flags ? j->mflags : NULL;
    j->view = v;
    uint64_t cases = t->cases;
    int rc = verdict_case(&mr, &c, 1, &p, j->expected, &mo, prof, declared, int_div_zero_value,
                          t, judge_sink, j);
    j->view = NULL;
    t->cases = cases + 1;
    if (!count_sub)
        t->subnormal_results = subnormal_before;
    return rc < 0 ? -1 : 0;
}

/* ========================================================================
 * The space
 * ====================================================================== */

typedef struct space {
    uint32_t dtype, bits;
    uint64_t mask;
    int structured;
    uint32_t n;              /* values per product row */
    uint64_t n_rows;         /* product rows */
    uint64_t *table;         /* structured: the n values; NULL: 0 .. n-1 */
    uint32_t table_exps, table_sigs; /* how the table was made */
    uint64_t rows_per_chunk; /* product rows per chunk */
    uint32_t k;              /* product rows per batch */
    uint64_t product_chunks;
    uint64_t random_pairs, random_rows, random_chunks, seed;
    uint32_t random_k;       /* random rows per batch */
    uint64_t n_chunks;
    int layout;              /* of product batches */
    uint8_t *cols;           /* the n product values, packed */
} space;

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The edge table of a float dtype, TestFloat's way: the oracle's boundary
 * exponents crossed with its significand patterns (oracle/edges.h), both
 * signs, sorted, unique. */
static int edge_table(space *sp)
{
    oracle_float_format f;
    if (!oracle_float_format_of(sp->dtype, &f))
        return -1;
    const int F = f.frac_bits;
    uint64_t exps[ORACLE_EDGE_MAX_EXPONENTS], sigs[ORACLE_EDGE_MAX_SIGNIFICANDS];
    uint32_t n_exps = (uint32_t)oracle_edge_exponents(sp->dtype, exps);
    uint32_t n_sigs = (uint32_t)oracle_edge_significands(sp->dtype, sigs);
    uint64_t *t = dvg_malloc((size_t)n_exps * n_sigs * 2 * sizeof *t);
    if (!t)
        return -1;
    uint64_t n = 0;
    for (uint32_t i = 0; i < n_exps; i++) {
        for (uint32_t s = 0; s < n_sigs; s++)
            for (uint64_t sign = 0; sign < 2; sign++)
                t[n++] = (sign << (f.exp_bits + F)) | (exps[i] << F) | sigs[s];
    }
    qsort(t, (size_t)n, sizeof *t, cmp_u64);
    uint64_t u = 0;
    for (uint64_t i = 0; i < n; i++)
        if (u == 0 || t[u - 1] != t[i])
            t[u++] = t[i];
    sp->table = t;
    sp->n = (uint32_t)u;
    sp->n_rows = u;
    sp->table_exps = n_exps;
    sp->table_sigs = n_sigs;
    return 0;
}

static uint32_t pow2_floor(uint64_t x)
{
    uint32_t p = 1;
    while ((uint64_t)p * 2 <= x && p < (1u << 30))
        p *= 2;
    return p;
}

/* Sizes the space of dtype: rows, chunks, batches. */
static int space_init(space *sp, uint32_t dtype, uint64_t random_pairs, uint64_t seed,
                      uint32_t batch_pairs, int layout, char *err, size_t errlen)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    memset(sp, 0, sizeof *sp);
    sp->dtype = dtype;
    sp->bits = d->bits;
    sp->mask = oracle_dtype_mask(dtype);
    sp->layout = layout;
    if (d->bits <= 16) {
        sp->n = 1u << d->bits;
        sp->n_rows = sp->n;
    } else if (d->kind == DVG_KIND_FLOAT) {
        sp->structured = 1;
        if (edge_table(sp)) {
            snprintf(err, errlen, "out of memory for the edge table");
            return -1;
        }
        if (random_pairs % RANDOM_ROW) {
            snprintf(err, errlen, "--random %" PRIu64 ": random pairs come in rows of %u; "
                     "give a multiple of %u", random_pairs, RANDOM_ROW, RANDOM_ROW);
            return -1;
        }
        sp->random_pairs = random_pairs;
        sp->seed = seed;
    } else {
        snprintf(err, errlen, "%s has 2^%u pairs and no edge table here: sweep takes f16, "
                 "bf16, i16, u16, i8, u8, i4, u4 (every pair) or f32, f64 (structured); "
                 "use certify or fuzz", d->tag, 2 * d->bits);
        return -1;
    }
    if (!batch_pairs)
        batch_pairs = DEFAULT_BATCH_PAIRS;
    uint64_t k = batch_pairs / sp->n;
    sp->k = pow2_floor(k ? k : 1);
    if (sp->k > sp->n_rows)
        sp->k = (uint32_t)sp->n_rows;
    /* About 2^24 pairs per chunk, a whole number of batches. */
    uint64_t rpc = ((UINT64_C(1) << 24) / sp->n) / sp->k * sp->k;
    sp->rows_per_chunk = rpc < sp->k ? sp->k : rpc;
    if (sp->rows_per_chunk > sp->n_rows)
        sp->rows_per_chunk = sp->n_rows;
    sp->product_chunks = (sp->n_rows + sp->rows_per_chunk - 1) / sp->rows_per_chunk;
    sp->random_rows = sp->random_pairs / RANDOM_ROW;
    sp->random_chunks = (sp->random_rows + RANDOM_CHUNK_ROWS - 1) / RANDOM_CHUNK_ROWS;
    uint64_t rk = batch_pairs / RANDOM_ROW;
    sp->random_k = pow2_floor(rk ? rk : 1);
    if (sp->random_k > RANDOM_CHUNK_ROWS)
        sp->random_k = RANDOM_CHUNK_ROWS;
    sp->n_chunks = sp->product_chunks + sp->random_chunks;
    sp->cols = dvg_malloc(oracle_nbytes(dtype, sp->n) + 8);
    if (!sp->cols) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t j = 0; j < sp->n; j++)
        oracle_store(dtype, sp->cols, j, sp->table ? sp->table[j] : j);
    return 0;
}

static void space_free(space *sp)
{
    dvg_free(sp->table);
    dvg_free(sp->cols);
    sp->table = NULL;
    sp->cols = NULL;
}

/* Rows and pairs of chunk c. */
static void chunk_rows(const space *sp, uint64_t c, int *random, uint64_t *first,
                       uint64_t *rows, uint32_t *n)
{
    if (c < sp->product_chunks) {
        *random = 0;
        *first = c * sp->rows_per_chunk;
        *rows = sp->n_rows - *first < sp->rows_per_chunk ? sp->n_rows - *first
                                                          : sp->rows_per_chunk;
        *n = sp->n;
    } else {
        *random = 1;
        *first = (c - sp->product_chunks) * RANDOM_CHUNK_ROWS;
        *rows = sp->random_rows - *first < RANDOM_CHUNK_ROWS ? sp->random_rows - *first
                                                              : RANDOM_CHUNK_ROWS;
        *n = RANDOM_ROW;
    }
}

static uint64_t chunk_pairs(const space *sp, uint64_t c)
{
    int random;
    uint64_t first, rows;
    uint32_t n;
    chunk_rows(sp, c, &random, &first, &rows, &n);
    return rows * n;
}

/* Value `i` of the product's other operand (and a product row's fixed
 * operand). */
static uint64_t product_value(const space *sp, uint64_t i)
{
    return sp->table ? sp->table[i] : i;
}

/* ========================================================================
 * The sweep
 * ====================================================================== */

/* Counts of one chunk (or of the whole sweep). */
typedef struct counts {
    verdict_tally t;
    uint64_t batches[ORACLE_CLASS_COUNT]; /* batches in which a class occurred */
    uint64_t failures, hangs, reruns, unjudged, listed;
} counts;

static void counts_add(counts *to, const counts *from)
{
    verdict_tally_add(&to->t, &from->t);
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++)
        to->batches[k] += from->batches[k];
    to->failures += from->failures;
    to->hangs += from->hangs;
    to->reruns += from->reruns;
    to->unjudged += from->unjudged;
    to->listed += from->listed;
}

/* The text a chunk's counts are kept as in sweep_chunks.tally. */
static void counts_format(const counts *c, char *buf, size_t len)
{
    const verdict_tally *t = &c->t;
    size_t used = (size_t)snprintf(
        buf, len,
        "elements=%" PRIu64 " cases=%" PRIu64 " unspecified=%" PRIu64
        " unspecified_not_preferred=%" PRIu64 " any_inf_positive=%" PRIu64
        " any_inf_negative=%" PRIu64 " subnormal_results=%" PRIu64 " declared_checked=%" PRIu64
        " max_ulps=%" PRIu64 " failures=%" PRIu64 " hangs=%" PRIu64 " reruns=%" PRIu64
        " unjudged=%" PRIu64 " listed=%" PRIu64,
        t->elements, t->cases, t->unspecified, t->unspecified_not_preferred, t->any_inf_positive,
        t->any_inf_negative, t->subnormal_results, t->declared_checked, t->max_ulps, c->failures,
        c->hangs, c->reruns, c->unjudged, c->listed);
    for (int k = 1; k < ORACLE_CLASS_COUNT && used < len; k++)
        if (t->counts[k] || t->accepted[k])
            used += (size_t)snprintf(buf + used, len - used, " %s=%" PRIu64 "/%" PRIu64 "/%" PRIu64,
                                     oracle_class_name((uint32_t)k), t->counts[k], t->accepted[k],
                                     c->batches[k]);
}

/* Parses counts_format's text; 0, or -1 when it is malformed. */
static int counts_parse(const char *text, counts *c)
{
    memset(c, 0, sizeof *c);
    verdict_tally *t = &c->t;
    struct {
        const char *key;
        uint64_t *v;
    } keys[] = {
        {"elements", &t->elements}, {"cases", &t->cases}, {"unspecified", &t->unspecified},
        {"unspecified_not_preferred", &t->unspecified_not_preferred},
        {"any_inf_positive", &t->any_inf_positive}, {"any_inf_negative", &t->any_inf_negative},
        {"subnormal_results", &t->subnormal_results}, {"declared_checked", &t->declared_checked},
        {"max_ulps", &t->max_ulps}, {"failures", &c->failures}, {"hangs", &c->hangs},
        {"reruns", &c->reruns}, {"unjudged", &c->unjudged}, {"listed", &c->listed},
    };
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *eq = strchr(p, '=');
        const char *end = strchr(p, ' ');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end || eq - p >= 64)
            return -1;
        char key[64];
        memcpy(key, p, (size_t)(eq - p));
        key[eq - p] = '\0';
        int found = 0;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !found; i++)
            if (!strcmp(keys[i].key, key)) {
                *keys[i].v = strtoull(eq + 1, NULL, 10);
                found = 1;
            }
        if (!found) {
            int k = oracle_class_by_name(key);
            unsigned long long x, y, z;
            if (k <= 0 || sscanf(eq + 1, "%llu/%llu/%llu", &x, &y, &z) != 3)
                return -1;
            t->counts[k] = x;
            t->accepted[k] = y;
            c->batches[k] = z;
        }
        p = end;
    }
    return 0;
}

typedef struct shared shared;

/* A finding that is not an element's: a batch that crashed, hung, ...,
 * with the (small) case kept for the store. */
typedef struct case_finding {
    verdict_example ex;
    divcase c;
} case_finding;

#define MAX_CASE_FINDINGS 8

typedef struct job {
    shared *sh;
    uint32_t index;
    worker *w;
    worker_batch bt;
    worker_result wr;
    int cpu;                     /* job and worker's CPU (--pin); -1 not pinned */
    sweep_judge *judge;
    uint8_t *a, *b;              /* operand buffers */
    uint64_t *fixed;             /* the batch's row values */
    uint64_t ab_cap;             /* bytes of a and of b */
    int content_a, content_b;    /* what the buffers hold: 0 nothing, 1 the product values */
    int restored;                /* 1: the last batch's output holds the poison again */
    uint32_t rows_a, rows_b;     /* rows of product values they hold */
    counts chunk;                /* of the chunk under way */
    case_finding cf[MAX_CASE_FINDINGS];
    uint32_t n_cf;
    uint64_t batch_seq;          /* batches of this chunk so far */
    uint64_t added;              /* pairs this chunk added to pairs_under_way */
    pthread_t thread;
} job;

struct shared {
    const sweep_options *o;
    FILE *out, *err;
    space sp;
    oracle_rules rules;
    dvg_attrs attrs;
    uint32_t variant;
    const worker_info *info;
    uint64_t declared;
    int repoison;               /* 1: the bulk check puts the poison back (sweep_view.repoison) */
    int64_t int_div_zero_value;
    store *db;
    int64_t run_id, sweep_id;
    char plan[1024];
    char attrs_text[256];
    char layout_text[256];
    uint8_t *done;               /* per chunk: 1 done (before or now) */
    uint64_t shard_chunks, shard_pairs;
    pthread_mutex_t store_lock;  /* the store, and new_signatures */
    pthread_mutex_t lock;
    /* guarded by lock */
    uint64_t next_chunk;
    counts total;                /* chunks done, resumed ones included */
    uint64_t pairs_done, pairs_resumed;
    uint64_t pairs_under_way;    /* of the chunks in progress, for progress */
    int failed;                  /* harness or store error */
    int stopped;                 /* too many failing batches */
    int narrowed;                /* a crash was narrowed already */
    const char *stop_reason;
    uint64_t new_signatures;     /* guarded by store_lock */
};

static int in_shard(const sweep_options *o, uint64_t c)
{
    return o->shard_count <= 1 || c % o->shard_count == o->shard_index;
}

/* ---- operands of a batch ---------------------------------------------------- */

/* Elements at..at+count-1 of a packed buffer set to `bits`: a few
 * stored one by one, the rest copied from them in doubling blocks. */
static void fill_elems(uint32_t dtype, uint8_t *p, uint64_t at, uint64_t count, uint64_t bits)
{
    uint32_t w = oracle_dtype(dtype)->bits;
    if (w < 8) {
        for (uint64_t i = 0; i < count; i++)
            oracle_store(dtype, p, at + i, bits);
        return;
    }
    if (w == 8) {
        memset(p + at, (int)(uint8_t)bits, (size_t)count);
        return;
    }
    size_t esize = w / 8, total = (size_t)count * esize, done = 0;
    uint8_t *dst = p + at * esize;
    for (; done < total && done < 64; done += esize)
        memcpy(dst + done, &bits, esize); /* little-endian: the low bytes */
    while (done < total) {
        size_t n = done < total - done ? done : total - done;
        memcpy(dst + done, dst, n);
        done += n;
    }
}

/* Elements at..at+n-1 of a packed buffer set to the product values
 * (`at` even for i4/u4). */
static void copy_cols(const space *sp, uint8_t *p, uint64_t at)
{
    if (sp->bits >= 8)
        memcpy(p + at * sp->bits / 8, sp->cols, (size_t)sp->n * sp->bits / 8);
    else
        for (uint32_t j = 0; j < sp->n; j++)
            oracle_store(sp->dtype, p, at + j, oracle_load(sp->dtype, sp->cols, j));
}

/* Builds batch `first`.. of chunk c (rows rows) into the job's buffers and
 * the case/view; sets bt.same_a / same_b. */
static void build_batch(job *jb, uint64_t c, int random, uint64_t first, uint32_t k, uint32_t n,
                        divcase *dc, sweep_view *v)
{
    shared *sh = jb->sh;
    const space *sp = &sh->sp;
    uint32_t dtype = sp->dtype;
    int layout = random ? L_FLAT : sp->layout;
    memset(dc, 0, sizeof *dc);
    snprintf(dc->id, sizeof dc->id, "sweep:%s:chunk%" PRIu64 ":row%" PRIu64, oracle_dtype_tag(dtype),
             c, first);
    dc->variant = sh->variant;
    dc->dtype = dtype;
    dc->attrs = sh->attrs;
    memset(v, 0, sizeof *v);
    v->rules = &sh->rules;
    v->k = k;
    v->n = n;
    v->fixed = jb->fixed;
    v->poison = jb->bt.poison[0];
    v->every_value = !random && !sp->table && sp->bits <= 16 && n == 1u << sp->bits;
    int want_a = 0, want_b = 0; /* content wanted: 1 the product values, 2 per batch */
    if (random) {
        for (uint32_t i = 0; i < k; i++) {
            gen_rng g;
            gen_seed(&g, sp->seed, first + i);
            uint64_t x = gen_next(&g) & sp->mask;
            jb->fixed[i] = x;
            fill_elems(dtype, jb->a, (uint64_t)i * n, n, x);
            for (uint32_t j = 0; j < n; j++)
                oracle_store(dtype, jb->b, (uint64_t)i * n + j, gen_next(&g) & sp->mask);
        }
        want_a = want_b = 2;
    } else {
        for (uint32_t i = 0; i < k; i++)
            jb->fixed[i] = product_value(sp, first + i);
    }
    switch (layout) {
    case L_NUMPY: /* A (k, 1) rows, B (n) values */
        dc->a_shape.rank = 2;
        dc->a_shape.dims[0] = k;
        dc->a_shape.dims[1] = 1;
        dc->b_shape.rank = 1;
        dc->b_shape.dims[0] = n;
        for (uint32_t i = 0; i < k; i++)
            oracle_store(dtype, jb->a, i, jb->fixed[i]);
        if (jb->content_b != 1)
            copy_cols(sp, jb->b, 0);
        want_a = 2;
        want_b = 1;
        v->row_is_a = 1;
        v->cols = jb->b;
        v->col_stride = 0;
        break;
    case L_AXIS0: /* A (k, n) values repeated, B (k) rows */
        dc->a_shape.rank = 2;
        dc->a_shape.dims[0] = k;
        dc->a_shape.dims[1] = n;
        dc->b_shape.rank = 1;
        dc->b_shape.dims[0] = k;
        if (jb->content_a != 1 || jb->rows_a < k)
            for (uint32_t i = 0; i < k; i++)
                copy_cols(sp, jb->a, (uint64_t)i * n);
        jb->rows_a = k;
        for (uint32_t i = 0; i < k; i++)
            oracle_store(dtype, jb->b, i, jb->fixed[i]);
        want_a = 1;
        want_b = 2;
        v->row_is_a = 0;
        v->cols = jb->a;
        v->col_stride = 0;
        break;
    default: /* L_FLAT: A (k n) rows repeated, B (k n) values */
        dc->a_shape.rank = dc->b_shape.rank = 1;
        dc->a_shape.dims[0] = dc->b_shape.dims[0] = (int64_t)k * n;
        if (!random) {
            for (uint32_t i = 0; i < k; i++)
                fill_elems(dtype, jb->a, (uint64_t)i * n, n, jb->fixed[i]);
            if (jb->content_b != 1 || jb->rows_b < k)
                for (uint32_t i = 0; i < k; i++)
                    copy_cols(sp, jb->b, (uint64_t)i * n);
            jb->rows_b = k;
            want_a = 2;
            want_b = 1;
        }
        v->row_is_a = 1;
        v->cols = jb->b;
        v->col_stride = random ? n : 0;
        break;
    }
    dc->a_bytes = oracle_nbytes(dtype, oracle_shape_count(&dc->a_shape));
    dc->b_bytes = oracle_nbytes(dtype, oracle_shape_count(&dc->b_shape));
    dc->a = jb->a;
    dc->b = jb->b;
    /* the same content as the previous batch, when it was the product's */
    jb->bt.same_a = want_a == 1 && jb->content_a == 1;
    jb->bt.same_b = want_b == 1 && jb->content_b == 1;
    jb->content_a = want_a == 1 ? 1 : 0;
    jb->content_b = want_b == 1 ? 1 : 0;
}

/* ---- findings ------------------------------------------------------------- */

/* A small case for a whole-batch finding: the batch itself when small,
 * else the first row's first SWEEP_WINDOW pairs in the same layout. */
static int small_case(const divcase *dc, const sweep_view *v, divcase *out)
{
    if (dc->a_bytes + dc->b_bytes <= FULL_CASE_BYTES)
        return divcase_copy(out, dc);
    divcase one;
    memset(&one, 0, sizeof one);
    snprintf(one.id, sizeof one.id, "%.80s[first %u]", dc->id, SWEEP_WINDOW);
    one.variant = dc->variant;
    one.dtype = dc->dtype;
    one.attrs = dc->attrs;
    uint32_t len = v->n < SWEEP_WINDOW ? v->n : SWEEP_WINDOW;
    /* the same ranks and broadcasting, one row of len values */
    one.a_shape = dc->a_shape;
    one.b_shape = dc->b_shape;
    if (dc->a_shape.rank == 2 && dc->a_shape.dims[1] == 1) { /* numpy */
        one.a_shape.dims[0] = 1;
        one.b_shape.dims[0] = len;
    } else if (dc->a_shape.rank == 2) { /* axis 0 */
        one.a_shape.dims[0] = 1;
        one.a_shape.dims[1] = len;
        one.b_shape.dims[0] = 1;
    } else {
        one.a_shape.dims[0] = one.b_shape.dims[0] = len;
    }
    if (divcase_alloc(&one, UINT64_C(1) << 20))
        return -1;
    uint64_t na = oracle_shape_count(&one.a_shape), nb = oracle_shape_count(&one.b_shape);
    for (uint64_t i = 0; i < na; i++)
        oracle_store(dc->dtype, one.a, i, oracle_load(dc->dtype, dc->a, i));
    for (uint64_t i = 0; i < nb; i++)
        oracle_store(dc->dtype, one.b, i, oracle_load(dc->dtype, dc->b, i));
    *out = one;
    return 0;
}

static void keep_case_finding(job *jb, const verdict_example *ex, const divcase *c,
                              const sweep_view *v)
{
    for (uint32_t i = 0; i < jb->n_cf; i++)
        if (jb->cf[i].ex.cls == ex->cls)
            return; /* one case per class and chunk */
    if (jb->n_cf == MAX_CASE_FINDINGS)
        return;
    case_finding *f = &jb->cf[jb->n_cf];
    f->ex = *ex;
    if ((v ? small_case(c, v, &f->c) : divcase_copy(&f->c, c)) == 0)
        jb->n_cf++;
}

typedef struct failure_ctx {
    job *jb;
    const divcase *c;
    const sweep_view *v;
} failure_ctx;

static int failure_sink(void *ctx, const divcase *c, const verdict_example *ex)
{
    failure_ctx *f = ctx;
    (void)c;
    add_signature(f->jb->judge, NULL, ex, UINT64_MAX);
    keep_case_finding(f->jb, ex, f->c, f->v);
    return 0;
}

/* ---- the jobs -------------------------------------------------------------- */

static void set_failed(shared *sh)
{
    pthread_mutex_lock(&sh->lock);
    sh->failed = 1;
    pthread_mutex_unlock(&sh->lock);
}

/* A batch that did not compute: judged as a whole case; the first crash
 * of the sweep narrowed to one pair. */
static int batch_failed(job *jb, const divcase *dc, const sweep_view *v, const oracle_shape *expect)
{
    shared *sh = jb->sh;
    verdict_tally before = jb->chunk.t;
    failure_ctx fx = {jb, dc, v};
    oracle_plan p;
    oracle_error why;
    if (oracle_plan_shapes(&sh->rules, &dc->a_shape, &dc->b_shape, &p, &why) != ORACLE_OK)
        return -1;
    (void)expect;
    verdict_outputs vo;
    trial_outputs_from_worker(&jb->wr, &vo);
    if (verdict_case(&sh->rules, dc, 1, &p, NULL, &vo, &sh->o->profile, sh->declared,
                     sh->int_div_zero_value, &jb->chunk.t, failure_sink, &fx) < 0)
        return -1;
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++)
        if (jb->chunk.t.counts[k] + jb->chunk.t.accepted[k] > before.counts[k] + before.accepted[k])
            jb->chunk.batches[k]++;
    jb->chunk.unjudged += (uint64_t)v->k * v->n;
    uint32_t out = jb->wr.outcome;
    if (out == WORKER_OUT_HANG)
        jb->chunk.hangs++;
    else
        jb->chunk.failures++;
    pthread_mutex_lock(&sh->lock);
    int narrow = (out == WORKER_OUT_CRASH || out == WORKER_OUT_EXIT) && !sh->narrowed;
    sh->narrowed |= narrow;
    pthread_mutex_unlock(&sh->lock);
    if (narrow) {
        narrow_result nr;
        memset(&nr, 0, sizeof nr);
        if (narrow_case(jb->w, dc, &jb->wr, NULL, &nr) == 0 && nr.found) {
            verdict_example ex;
            memset(&ex, 0, sizeof ex);
            ex.cls = ORACLE_CLASS_CRASH;
            ex.index = UINT64_MAX;
            ex.operand_a = ex.operand_b = ORACLE_OPERAND_COUNT;
            snprintf(ex.note, sizeof ex.note, "narrowed to output element %" PRIu64
                     " of batch %s: %s", nr.index, dc->id, nr.message);
            ex.elements = 1;
            /* kept beside the batch's own crash finding */
            if (jb->n_cf < MAX_CASE_FINDINGS && divcase_copy(&jb->cf[jb->n_cf].c, &nr.reduced) == 0) {
                jb->cf[jb->n_cf].ex = ex;
                jb->n_cf++;
            }
        }
        narrow_result_free(&nr);
        /* narrowing ran other cases on the worker: its batch state is gone */
        uint64_t p0 = jb->bt.poison[0], p1 = jb->bt.poison[1];
        int ci = jb->bt.check_inputs;
        memset(&jb->bt, 0, sizeof jb->bt);
        jb->bt.poison[0] = p0;
        jb->bt.poison[1] = p1;
        jb->bt.check_inputs = ci;
        jb->content_a = jb->content_b = 0;
    }
    return 0;
}

/* Runs and judges one batch. 0, or -1 on a harness error. */
static int run_batch(job *jb, const divcase *dc, const sweep_view *v)
{
    shared *sh = jb->sh;
    oracle_shape expect;
    expect.rank = dc->a_shape.rank == 2 ? 2 : 1;
    expect.dims[0] = expect.rank == 2 ? v->k : (int64_t)v->k * v->n;
    expect.dims[1] = v->n;
    uint8_t *out = NULL;
    jb->bt.out_restored = jb->restored;
    jb->restored = 0;
    /* A and B are mapped read-only in the worker, so a kernel writing
     * them faults; only a plugin writing the shared memory through its
     * descriptor on purpose changes them. Comparing them after every batch
     * would read both again (for the flat layout 2 MiB per batch, a third
     * of the sweep's time), so it is done on the sampled batches and on
     * every batch run again. */
    int sample = sh->o->nondet_every && jb->batch_seq % sh->o->nondet_every == 0;
    jb->batch_seq++;
    jb->bt.check_inputs = sample;
    if (worker_batch_run(jb->w, &jb->bt, dc, &expect, &jb->wr, &out)) {
        fprintf(sh->err, "divergence sweep: %s\n", worker_errmsg(jb->w));
        return -1;
    }
    if (!jb->wr.computed || jb->wr.outcome != WORKER_OUT_OK)
        return batch_failed(jb, dc, v, &expect);
    verdict_tally before = jb->chunk.t;
    uint64_t poison = 0;
    if (!sample) {
        /* the check puts the poison back as it reads, so the worker need
         * not fill the output before the next batch */
        sweep_view vr = *v;
        vr.repoison = sh->repoison ? out : NULL;
        if (sweep_judge_batch(jb->judge, &vr, out, NULL, NULL, &jb->wr, &sh->o->profile,
                              sh->declared, sh->int_div_zero_value, &jb->chunk.t, &poison)) {
            fprintf(sh->err, "divergence sweep: out of memory judging a batch\n");
            return -1;
        }
        jb->restored = vr.repoison && !poison;
    }
    if (sample || poison) {
        jb->chunk.reruns++;
        jb->bt.check_inputs = 1;
        if (poison && sh->repoison) { /* the check wrote over the first run: again */
            if (worker_batch_run(jb->w, &jb->bt, dc, &expect, &jb->wr, &out)) {
                fprintf(sh->err, "divergence sweep: %s\n", worker_errmsg(jb->w));
                return -1;
            }
            if (!jb->wr.computed || jb->wr.outcome != WORKER_OUT_OK)
                return batch_failed(jb, dc, v, &expect);
        }
        if (worker_batch_rerun(jb->w, &jb->bt, dc, &expect, &jb->wr)) {
            fprintf(sh->err, "divergence sweep: %s\n", worker_errmsg(jb->w));
            return -1;
        }
        if (!jb->wr.computed || jb->wr.outcome != WORKER_OUT_OK)
            return batch_failed(jb, dc, v, &expect);
        if (sweep_judge_batch(jb->judge, v, jb->wr.out1, jb->wr.flags, jb->wr.out2, &jb->wr,
                              &sh->o->profile, sh->declared, sh->int_div_zero_value,
                              &jb->chunk.t, &poison)) {
            fprintf(sh->err, "divergence sweep: out of memory judging a batch\n");
            return -1;
        }
    }
    jb->chunk.listed += sweep_judge_listed(jb->judge);
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++)
        if (jb->chunk.t.counts[k] + jb->chunk.t.accepted[k] > before.counts[k] + before.accepted[k])
            jb->chunk.batches[k]++;
    return 0;
}

/* The reproducer of an element signature: its window in the sweep's
 * layout (the random pairs: equal shapes). */
static int window_case(const shared *sh, const sweep_signature *s, int random, divcase *c)
{
    uint32_t dtype = sh->sp.dtype, n = s->window_n;
    int layout = random ? L_FLAT : sh->sp.layout;
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "sweep:%s:%s=%s", oracle_dtype_tag(dtype),
             s->row_is_a ? "a" : "b", "");
    char hex[24];
    size_t used = strlen(c->id);
    snprintf(c->id + used, sizeof c->id - used, "%s",
             oracle_bits_format(dtype, s->row_value, hex, sizeof hex));
    c->variant = sh->variant;
    c->dtype = dtype;
    c->attrs = sh->attrs;
    switch (layout) {
    case L_NUMPY:
        c->a_shape.rank = 2;
        c->a_shape.dims[0] = c->a_shape.dims[1] = 1;
        c->b_shape.rank = 1;
        c->b_shape.dims[0] = n;
        break;
    case L_AXIS0:
        c->a_shape.rank = 2;
        c->a_shape.dims[0] = 1;
        c->a_shape.dims[1] = n;
        c->b_shape.rank = 1;
        c->b_shape.dims[0] = 1;
        break;
    default:
        c->a_shape.rank = c->b_shape.rank = 1;
        c->a_shape.dims[0] = c->b_shape.dims[0] = n;
        break;
    }
    if (divcase_alloc(c, UINT64_C(1) << 20))
        return -1;
    for (uint32_t j = 0; j < n; j++) {
        if (layout == L_NUMPY) {
            oracle_store(dtype, c->b, j, s->window[j]);
        } else if (layout == L_AXIS0) {
            oracle_store(dtype, c->a, j, s->window[j]);
        } else {
            oracle_store(dtype, c->a, j, s->row_value);
            oracle_store(dtype, c->b, j, s->window[j]);
        }
    }
    if (layout == L_NUMPY)
        oracle_store(dtype, c->a, 0, s->row_value);
    else if (layout == L_AXIS0)
        oracle_store(dtype, c->b, 0, s->row_value);
    return 0;
}

/* Records a finished chunk: its counts, histogram, operand counts,
 * findings and place, in one transaction. Called with sh->store_lock held. */
static int commit_chunk(job *jb, uint64_t c, int random)
{
    shared *sh = jb->sh;
    store *db = sh->db;
    const char *impl = sh->info->name;
    const counts *k = &jb->chunk;
    uint64_t pairs = chunk_pairs(&sh->sp, c);
    if (store_begin(db))
        goto fail;
    for (int cls = 0; cls < ORACLE_CLASS_COUNT; cls++) {
        uint64_t n = cls == 0 ? k->t.elements : k->t.counts[cls] + k->t.accepted[cls];
        uint64_t cases = cls == 0 ? k->t.cases : k->batches[cls];
        if (n && store_record_counts(db, sh->run_id, impl, sh->variant, sh->sp.dtype, (uint32_t)cls,
                                     n, cases))
            goto fail;
    }
    if (store_record_ulp_histogram(db, sh->run_id, impl, sh->variant, sh->sp.dtype, k->t.ulp_hist,
                                   VERDICT_ULP_BUCKETS))
        goto fail;
    uint32_t n_sigs;
    const sweep_signature *sigs = sweep_judge_signatures(jb->judge, &n_sigs);
    for (uint32_t i = 0; i < n_sigs; i++) {
        const sweep_signature *s = &sigs[i];
        char operand[64] = "", expected[128] = "", actual[128] = "", note[WORKER_MESSAGE_MAX + 200];
        divcase repro;
        int have = 0;
        store_finding f;
        memset(&f, 0, sizeof f);
        f.implementation = impl;
        f.cls = s->cls;
        f.ulps = UINT64_MAX;
        if (s->operand_a != ORACLE_OPERAND_COUNT) {
            snprintf(operand, sizeof operand, "%s/%s", oracle_operand_name(s->operand_a),
                     oracle_operand_name(s->operand_b));
            if (store_record_operand_counts(db, sh->run_id, impl, sh->variant, sh->sp.dtype,
                                            s->cls, operand, s->elements))
                goto fail;
            if (window_case(sh, s, random, &repro))
                goto oom;
            have = 1;
            verdict_elem_text(sh->sp.dtype, &s->ex.expected, expected, sizeof expected);
            verdict_bits_text(sh->sp.dtype, s->ex.actual, actual, sizeof actual);
            snprintf(note, sizeof note, "sweep chunk %" PRIu64 ": %" PRIu64 " elements of this "
                     "signature in the chunk; row %u, column %u of its batch%s%.300s", c,
                     s->elements, s->row, s->col, s->ex.note[0] ? "; " : "", s->ex.note);
            f.c = &repro;
            f.element = s->window_at;
            f.expected = expected;
            f.actual = actual;
            if (s->cls == ORACLE_CLASS_WRONG_VALUE)
                f.ulps = s->ex.ulps;
        } else {
            const case_finding *cf = NULL;
            for (uint32_t q = 0; q < jb->n_cf && !cf; q++)
                if (jb->cf[q].ex.cls == s->cls)
                    cf = &jb->cf[q];
            if (!cf)
                continue; /* counted; its case could not be kept */
            snprintf(note, sizeof note, "sweep chunk %" PRIu64 ": %.400s", c, cf->ex.note);
            f.c = &cf->c;
            f.element = -1;
        }
        f.operand_class = operand;
        f.note = note;
        int is_new = 0;
        int rc = store_record_finding(db, sh->run_id, &f, NULL, &is_new);
        if (have)
            divcase_free(&repro);
        if (rc)
            goto fail;
        sh->new_signatures += (uint64_t)is_new;
    }
    /* narrowed crashes: a finding of their own, beside the batch's */
    for (uint32_t q = 0; q < jb->n_cf; q++) {
        const case_finding *cf = &jb->cf[q];
        if (strncmp(cf->ex.note, "narrowed", 8))
            continue;
        store_finding f;
        memset(&f, 0, sizeof f);
        f.implementation = impl;
        f.cls = cf->ex.cls;
        f.operand_class = "";
        f.c = &cf->c;
        f.element = -1;
        f.ulps = UINT64_MAX;
        f.note = cf->ex.note;
        int is_new = 0;
        if (store_record_finding(db, sh->run_id, &f, NULL, &is_new))
            goto fail;
        sh->new_signatures += (uint64_t)is_new;
    }
    char tally[2048];
    counts_format(k, tally, sizeof tally);
    if (store_sweep_chunk_done(db, sh->sweep_id, c, pairs, k->unjudged, tally) || store_commit(db))
        goto fail;
    return 0;
oom:
    store_rollback(db);
    fprintf(sh->err, "divergence sweep: out of memory recording findings\n");
    return -1;
fail:
    fprintf(sh->err, "divergence sweep: %s\n", store_errmsg(db));
    store_rollback(db);
    return -1;
}

static void chunk_reset(job *jb)
{
    memset(&jb->chunk, 0, sizeof jb->chunk);
    sweep_judge_clear(jb->judge);
    for (uint32_t i = 0; i < jb->n_cf; i++)
        divcase_free(&jb->cf[i].c);
    jb->n_cf = 0;
    jb->batch_seq = 0;
}

/* Runs chunk c. 0, 1 when the sweep stopped, -1 on a harness error. */
static int run_chunk(job *jb, uint64_t c)
{
    shared *sh = jb->sh;
    int random;
    uint64_t first, rows;
    uint32_t n;
    chunk_rows(&sh->sp, c, &random, &first, &rows, &n);
    uint32_t k = random ? sh->sp.random_k : sh->sp.k;
    chunk_reset(jb);
    for (uint64_t r = 0; r < rows; r += k) {
        uint32_t kk = rows - r < k ? (uint32_t)(rows - r) : k;
        divcase dc;
        sweep_view v;
        build_batch(jb, c, random, first + r, kk, n, &dc, &v);
        if (run_batch(jb, &dc, &v))
            return -1;
        pthread_mutex_lock(&sh->lock);
        sh->pairs_under_way += (uint64_t)kk * n;
        jb->added += (uint64_t)kk * n;
        uint64_t failures = sh->total.failures + jb->chunk.failures;
        uint64_t hangs = sh->total.hangs + jb->chunk.hangs;
        if (!sh->stopped && (failures >= sh->o->max_failures || hangs >= MAX_HANGS)) {
            sh->stopped = 1;
            sh->stop_reason = hangs >= MAX_HANGS ? "a batch hung" : "batches failed";
        }
        int stop = sh->failed || sh->stopped;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
    }
    pthread_mutex_lock(&sh->lock);
    int failed = sh->failed;
    pthread_mutex_unlock(&sh->lock);
    if (failed)
        return -1;
    /* A chunk cut short by a stop is recorded too: what it judged counts,
     * the rest of its pairs are unjudged. */
    uint64_t pairs = chunk_pairs(&sh->sp, c), done = jb->chunk.t.elements + jb->chunk.unjudged;
    if (done < pairs)
        jb->chunk.unjudged += pairs - done;
    /* the store has a lock of its own: the other jobs go on meanwhile */
    pthread_mutex_lock(&sh->store_lock);
    int rc = commit_chunk(jb, c, random);
    pthread_mutex_unlock(&sh->store_lock);
    pthread_mutex_lock(&sh->lock);
    sh->pairs_under_way -= jb->added;
    jb->added = 0;
    if (rc == 0) {
        counts_add(&sh->total, &jb->chunk);
        sh->pairs_done += pairs;
        sh->done[c] = 1;
    } else {
        sh->failed = 1;
    }
    if (rc == 0 && sh->stopped)
        rc = 1;
    pthread_mutex_unlock(&sh->lock);
    return rc;
}

static void *job_main(void *arg)
{
    job *jb = arg;
    shared *sh = jb->sh;
    affinity_pin_thread(jb->cpu);
    for (;;) {
        pthread_mutex_lock(&sh->lock);
        uint64_t c = sh->next_chunk;
        while (c < sh->sp.n_chunks && (sh->done[c] || !in_shard(sh->o, c)))
            c++;
        sh->next_chunk = c + 1;
        int stop = sh->failed || sh->stopped || c >= sh->sp.n_chunks;
        pthread_mutex_unlock(&sh->lock);
        if (stop)
            break;
        int rc = run_chunk(jb, c);
        if (rc < 0) {
            set_failed(sh);
            break;
        }
        if (rc > 0)
            break;
    }
    return NULL;
}

static int job_start(shared *sh, job *jb, uint32_t index, uint32_t n_jobs, uint64_t max_pairs,
                     FILE *err)
{
    memset(jb, 0, sizeof *jb);
    jb->sh = sh;
    jb->index = index;
    jb->cpu = sh->o->pin ? affinity_cpu_for_job(index, n_jobs) : -1;
    worker_options wo;
    worker_options_limited(&wo);
    wo.config = sh->o->config;
    wo.timeout_ms = sh->o->timeout_ms ? sh->o->timeout_ms : 10000;
    wo.quiet = 1;
    wo.cpu = jb->cpu;
    trial_sandbox_options(&wo, sh->o->sandbox, sh->o->env, sh->o->n_env);
    if (worker_new(sh->o->plugin_path, &wo, &jb->w)) {
        fprintf(err, "divergence sweep: cannot create a worker for %s\n", sh->o->plugin_path);
        return -1;
    }
    jb->judge = sweep_judge_new(max_pairs);
    uint32_t bits = oracle_dtype(sh->sp.dtype)->bits;
    jb->ab_cap = max_pairs * bits / 8 + 8;
    jb->a = dvg_malloc(jb->ab_cap);
    jb->b = dvg_malloc(jb->ab_cap);
    jb->fixed = dvg_malloc(max_pairs * sizeof *jb->fixed);
    if (!jb->judge || !jb->a || !jb->b || !jb->fixed) {
        fprintf(err, "divergence sweep: out of memory\n");
        return -1;
    }
    int rc = worker_start(jb->w, &jb->wr);
    if (rc) {
        char msg[WORKER_MESSAGE_MAX + 64];
        fprintf(err, "divergence sweep: cannot load plugin %s: %s\n", sh->o->plugin_path,
                rc < 0 ? worker_errmsg(jb->w) : worker_result_format(&jb->wr, msg, sizeof msg));
        return -1;
    }
    return 0;
}

static void job_free(job *jb)
{
    for (uint32_t i = 0; i < jb->n_cf; i++)
        divcase_free(&jb->cf[i].c);
    worker_result_free(&jb->wr);
    worker_free(jb->w);
    sweep_judge_free(jb->judge);
    dvg_free(jb->a);
    dvg_free(jb->b);
    dvg_free(jb->fixed);
    memset(jb, 0, sizeof *jb);
}

/* ---- set-up ---------------------------------------------------------------- */

/* Poison patterns: a signalling NaN no IEEE division returns for floats,
 * 0xA5.. / 0x5A.. bytes for integers. */
static void poisons(uint32_t dtype, uint64_t p[2])
{
    switch (dtype) {
    case DVG_DTYPE_F16: p[0] = 0x7DA5; p[1] = 0x7C5A; break;
    case DVG_DTYPE_BF16: p[0] = 0x7FA5; p[1] = 0x7F9A; break;
    case DVG_DTYPE_F32: p[0] = 0x7FA5A5A5u; p[1] = 0x7F9A5A5Au; break;
    case DVG_DTYPE_F64:
        p[0] = UINT64_C(0x7FF5A5A5A5A5A5A5);
        p[1] = UINT64_C(0x7FF25A5A5A5A5A5A);
        break;
    default: {
        uint64_t m = oracle_dtype(dtype)->bits == 4 ? 0xFF : oracle_dtype_mask(dtype);
        p[0] = UINT64_C(0xA5A5A5A5A5A5A5A5) & m;
        p[1] = UINT64_C(0x5A5A5A5A5A5A5A5A) & m;
        break;
    }
    }
}

/* The variant to sweep: the given one (claimed), or the plugin's first
 * claim of the dtype that the variant table allows. */
static int pick_variant(shared *sh, FILE *err)
{
    const sweep_options *o = sh->o;
    for (uint32_t i = 0; i < sh->info->n_claims; i++) {
        const dvg_claim *cl = &sh->info->claims[i];
        if (cl->dtype != o->dtype || (o->variant && cl->variant != o->variant))
            continue;
        if (!oracle_variant_has_dtype(oracle_variant_get(cl->variant), o->dtype))
            continue;
        sh->variant = cl->variant;
        return 0;
    }
    if (o->variant)
        fprintf(err, "divergence sweep: %s does not claim (%s, %s)\n", sh->info->name,
                oracle_variant_get(o->variant)->name, oracle_dtype_tag(o->dtype));
    else
        fprintf(err, "divergence sweep: %s claims no variant with %s\n", sh->info->name,
                oracle_dtype_tag(o->dtype));
    return -1;
}

/* Attributes and the layout of product batches. */
static int pick_layout(shared *sh, FILE *err)
{
    const sweep_options *o = sh->o;
    const oracle_variant *v = oracle_variant_get(sh->variant);
    oracle_error why;
    int axis_given = 0;
    oracle_attrs_default(v, &sh->attrs);
    for (uint32_t i = 0; i < o->n_attrs; i++) {
        if (oracle_attrs_set(v, &sh->attrs, o->attr_key[i], o->attr_value[i], &why)) {
            fprintf(err, "divergence sweep: --attr %s=%s: %s\n", o->attr_key[i], o->attr_value[i],
                    why.text);
            return -1;
        }
        axis_given |= !strcmp(o->attr_key[i], "axis");
    }
    if (oracle_rules_resolve(sh->variant, o->dtype, &sh->attrs, &sh->rules, &why)) {
        fprintf(err, "divergence sweep: %s\n", why.text);
        return -1;
    }
    int layout;
    switch (sh->rules.shape_rule) {
    case ORACLE_SHAPE_NUMPY: layout = L_NUMPY; break;
    case ORACLE_SHAPE_ONNX_LEGACY:
    case ORACLE_SHAPE_PDPD:
        if (axis_given && sh->attrs.axis != 0) {
            fprintf(err, "divergence sweep: the sweep lays B along axis 0 under this "
                         "broadcasting: give --attr axis=0 or leave it out\n");
            return -1;
        }
        sh->attrs.axis = 0;
        if (sh->rules.shape_rule == ORACLE_SHAPE_ONNX_LEGACY)
            sh->attrs.axis_set = 1;
        if (oracle_rules_resolve(sh->variant, o->dtype, &sh->attrs, &sh->rules, &why)) {
            fprintf(err, "divergence sweep: %s\n", why.text);
            return -1;
        }
        layout = L_AXIS0;
        break;
    default: layout = L_FLAT; break;
    }
    sh->sp.layout = layout;
    oracle_attrs_format(v, &sh->attrs, sh->attrs_text, sizeof sh->attrs_text);
    return 0;
}

static void describe_layout(shared *sh)
{
    const space *sp = &sh->sp;
    uint32_t k = sp->k, n = sp->n;
    switch (sp->layout) {
    case L_NUMPY:
        snprintf(sh->layout_text, sizeof sh->layout_text,
                 "A (%u, 1) dividends / B (%u) divisors, numpy broadcasting", k, n);
        break;
    case L_AXIS0:
        snprintf(sh->layout_text, sizeof sh->layout_text,
                 "A (%u, %u) dividends / B (%u) divisors along axis 0", k, n, k);
        break;
    default:
        snprintf(sh->layout_text, sizeof sh->layout_text,
                 "A (%llu) / B (%llu), equal shapes", (unsigned long long)k * n,
                 (unsigned long long)k * n);
        break;
    }
    if (sp->structured) {
        size_t used = strlen(sh->layout_text);
        snprintf(sh->layout_text + used, sizeof sh->layout_text - used,
                 "; random pairs: A (%u) / B (%u)", sp->random_k * RANDOM_ROW,
                 sp->random_k * RANDOM_ROW);
    }
}

/* The plugin file's SHA-256 (hex), or "unknown". */
static void plugin_hash(const char *path, char hex[SHA256_HEX_CHARS])
{
    char err[128];
    if (sha256_file(path, hex, err, sizeof err))
        snprintf(hex, SHA256_HEX_CHARS, "unknown");
}

typedef struct resume_ctx {
    shared *sh;
} resume_ctx;

static int resume_chunk(void *ctx, uint64_t chunk, uint64_t pairs, uint64_t unjudged,
                        const char *tally)
{
    shared *sh = ((resume_ctx *)ctx)->sh;
    counts c;
    if (chunk >= sh->sp.n_chunks || !in_shard(sh->o, chunk) || pairs != chunk_pairs(&sh->sp, chunk) ||
        counts_parse(tally, &c) || c.unjudged != unjudged)
        return -1;
    sh->done[chunk] = 1;
    counts_add(&sh->total, &c);
    sh->pairs_done += pairs;
    sh->pairs_resumed += pairs;
    return 0;
}

static void print_summary(shared *sh, double secs, uint32_t jobs, const char *verdict)
{
    const counts *c = &sh->total;
    const verdict_tally *t = &c->t;
    FILE *out = sh->out;
    uint64_t judged = t->elements;
    fprintf(out, "  %" PRIu64 " pairs judged", judged);
    if (sh->pairs_resumed)
        fprintf(out, " (%" PRIu64 " of them by the run before --resume)", sh->pairs_resumed);
    double fresh = (double)(sh->pairs_done - sh->pairs_resumed);
    fprintf(out, "; %.2f s, %.3g pairs/s, %u jobs; %" PRIu64 " batches, %" PRIu64
                 " run twice; %" PRIu64 " elements judged in full\n",
            secs, secs > 0 ? fresh / secs : 0, jobs, t->cases, c->reruns, c->listed);
    if (c->unjudged)
        fprintf(out, "  %" PRIu64 " pairs not judged (their batches crashed, hung or failed)\n",
                c->unjudged);
    fprintf(out, "  %s\n", verdict);
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++) {
        if (!t->counts[k] && !t->accepted[k])
            continue;
        fprintf(out, "    %-26s %12" PRIu64 " elements%s", oracle_class_name((uint32_t)k),
                t->counts[k] + t->accepted[k], t->accepted[k] ? " (accepted)" : "");
        if (k == ORACLE_CLASS_WRONG_VALUE && t->max_ulps)
            fprintf(out, ", max %" PRIu64 " ulp", t->max_ulps);
        fprintf(out, ", in %" PRIu64 " batches\n", c->batches[k]);
    }
    if (t->any_inf_positive + t->any_inf_negative)
        fprintf(out, "    note: x/0 'inf' without a sign: %" PRIu64 " times +inf, %" PRIu64
                     " times -inf\n", t->any_inf_positive, t->any_inf_negative);
    if (t->unspecified)
        fprintf(out, "    note: %" PRIu64 " results unspecified by the variant (%" PRIu64
                     " differ from the preferred value)\n",
                t->unspecified, t->unspecified_not_preferred);
    if ((sh->declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) && t->subnormal_results &&
        !t->accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT])
        fprintf(out, "    note: declares flush-to-zero but delivered all %" PRIu64
                     " subnormal results\n", t->subnormal_results);
    if (verdict_tally_failed(t) || c->unjudged)
        fprintf(out, "  per operand class: sqlite3 %s \"SELECT class, operand_class, elements "
                     "FROM operand_counts WHERE run_id = %" PRId64 "\"; reproducers: divergence "
                     "query history SIGNATURE, divergence replay --db %s ID\n",
                sh->o->db_path ? sh->o->db_path : STORE_DEFAULT_PATH, sh->run_id,
                sh->o->db_path ? sh->o->db_path : STORE_DEFAULT_PATH);
}

static uint32_t default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (uint32_t)n;
}

int sweep_run(const sweep_options *o, FILE *out, FILE *err)
{
    shared sh;
    job *jobs = NULL;
    worker_info *info = NULL;
    uint32_t n_jobs = o->jobs ? o->jobs : default_jobs(), started = 0, running = 0;
    int status = 2;
    char msg[512];
    memset(&sh, 0, sizeof sh);
    sh.o = o;
    sh.out = out;
    sh.err = err;
    pthread_mutex_init(&sh.lock, NULL);
    pthread_mutex_init(&sh.store_lock, NULL);
    if (n_jobs > MAX_JOBS)
        n_jobs = MAX_JOBS;
    sweep_options oo = *o;
    oo.jobs = n_jobs;
    sh.o = &oo;
    o = &oo;
    if (o->shard_count > 1 && o->shard_index >= o->shard_count) {
        fprintf(err, "divergence sweep: shard %u/%u: the index must be below the count\n",
                o->shard_index, o->shard_count);
        goto done;
    }
    if (!oracle_dtype(o->dtype)) {
        fprintf(err, "divergence sweep: --dtype is required\n");
        goto done;
    }
    oracle_fastpath_selfcheck();
    oracle_rowcheck_selfcheck(o->dtype);

    /* the plugin, its claim, the layout, the space */
    jobs = dvg_calloc(n_jobs, sizeof *jobs);
    if (!jobs) {
        fprintf(err, "divergence sweep: out of memory\n");
        goto done;
    }
    /* the first job's worker tells the claims; the space needs the layout */
    {
        worker *probe;
        worker_options wo;
        worker_options_default(&wo);
        wo.config = o->config;
        wo.quiet = 1;
        wo.confine = 1; /* as the jobs' workers: its layers are the run's */
        trial_sandbox_options(&wo, o->sandbox, o->env, o->n_env);
        wo.timeout_ms = o->timeout_ms ? o->timeout_ms : 10000;
        worker_result pr = WORKER_RESULT_INIT;
        if (worker_new(o->plugin_path, &wo, &probe)) {
            fprintf(err, "divergence sweep: cannot create a worker for %s\n", o->plugin_path);
            goto done;
        }
        int rc = worker_start(probe, &pr);
        if (rc) {
            char m[WORKER_MESSAGE_MAX + 64];
            fprintf(err, "divergence sweep: cannot load plugin %s: %s\n", o->plugin_path,
                    rc < 0 ? worker_errmsg(probe) : worker_result_format(&pr, m, sizeof m));
            worker_result_free(&pr);
            worker_free(probe);
            goto done;
        }
        info = dvg_malloc(sizeof *info);
        if (info)
            *info = *worker_get_info(probe);
        sh.info = info;
        worker_result_free(&pr);
        worker_free(probe);
        if (!info) {
            fprintf(err, "divergence sweep: out of memory\n");
            goto done;
        }
    }
    sh.declared = sh.info->deviations;
    sh.repoison = oracle_rowcheck_repoison_fused(o->dtype);
    sh.int_div_zero_value = sh.info->int_div_zero_value;
    if (pick_variant(&sh, err) || pick_layout(&sh, err))
        goto done;
    if (space_init(&sh.sp, o->dtype, o->random_pairs, o->seed, o->batch_pairs, sh.sp.layout, msg,
                   sizeof msg)) {
        fprintf(err, "divergence sweep: %s\n", msg);
        goto done;
    }
    describe_layout(&sh);
    for (uint64_t c = 0; c < sh.sp.n_chunks; c++)
        if (in_shard(o, c)) {
            sh.shard_chunks++;
            sh.shard_pairs += chunk_pairs(&sh.sp, c);
        }
    sh.done = dvg_calloc(sh.sp.n_chunks ? sh.sp.n_chunks : 1, 1);
    if (!sh.done) {
        fprintf(err, "divergence sweep: out of memory\n");
        goto done;
    }
    uint64_t max_pairs = (uint64_t)sh.sp.k * sh.sp.n;
    if ((uint64_t)sh.sp.random_k * RANDOM_ROW > max_pairs && sh.sp.random_chunks)
        max_pairs = (uint64_t)sh.sp.random_k * RANDOM_ROW;

    /* the store: a new run, or the one to resume */
    char hash[SHA256_HEX_CHARS];
    plugin_hash(o->plugin_path, hash);
    snprintf(sh.plan, sizeof sh.plan,
             "sweep/1 plugin=%s sha256=%s variant=%s dtype=%s attrs=[%s] layout=%s space=%s "
             "n=%u k=%u rows_per_chunk=%" PRIu64 " chunks=%" PRIu64 " random=%" PRIu64
             " seed=%" PRIu64 " shard=%u/%u profile=%s nondet_every=%u config=[%.200s]",
             sh.info->name, hash, oracle_variant_get(sh.variant)->name, oracle_dtype_tag(o->dtype),
             sh.attrs_text, layout_names[sh.sp.layout], sh.sp.structured ? "structured" : "exhaustive",
             sh.sp.n, sh.sp.k, sh.sp.rows_per_chunk, sh.sp.n_chunks, sh.sp.random_pairs,
             sh.sp.structured ? o->seed : 0, o->shard_count > 1 ? o->shard_index : 0,
             o->shard_count > 1 ? o->shard_count : 1, o->profile.name, o->nondet_every,
             o->config ? o->config : "");
    const char *db_path = o->db_path ? o->db_path : STORE_DEFAULT_PATH;
    if (store_open(db_path, STORE_CREATE, &sh.db, msg, sizeof msg)) {
        fprintf(err, "divergence sweep: %s\n", msg);
        goto done;
    }
    int resumed = 0;
    if (o->resume) {
        int64_t sid, rid;
        if (store_sweep_find(sh.db, sh.info->name, sh.plan, &sid, &rid)) {
            fprintf(err, "divergence sweep: %s\n", store_errmsg(sh.db));
            goto done;
        }
        if (sid) {
            if (store_resume_run(sh.db, rid)) {
                fprintf(err, "divergence sweep: cannot resume run %" PRId64 ": %s\n", rid,
                        store_errmsg(sh.db));
                goto done;
            }
            sh.run_id = rid;
            sh.sweep_id = sid;
            resume_ctx rc = {&sh};
            if (store_sweep_chunks(sh.db, sid, resume_chunk, &rc)) {
                fprintf(err, "divergence sweep: run %" PRId64 ": %s\n", rid, store_errmsg(sh.db));
                goto done;
            }
            resumed = 1;
        } else {
            fprintf(err, "divergence sweep: no unfinished sweep with these settings and this "
                         "plugin build in %s: starting one\n", db_path);
        }
    }
    char sandbox[160];
    worker_describe_layers(sh.info->layers, sandbox, sizeof sandbox);
    if (!resumed) {
        store_run_info ri = {.kind = "sweep", .profile = o->profile.name, .args = o->args,
                             .sandbox = sandbox,
                             .build_flags = "divergence " DVG_VERSION,
                             .seed = sh.sp.structured ? o->seed : 0,
                             .has_seed = sh.sp.structured,
                             .shard_index = o->shard_count > 1 ? o->shard_index : 0,
                             .shard_count = o->shard_count > 1 ? o->shard_count : 0};
        int64_t build;
        if (store_begin_run(sh.db, &ri, &sh.run_id) ||
            store_plugin_build(sh.db, sh.run_id, sh.info->name, sh.info->version, o->plugin_path,
                               &build)) {
            fprintf(err, "divergence sweep: %s\n", store_errmsg(sh.db));
            goto done;
        }
        store_sweep_info si = {.implementation = sh.info->name, .variant = sh.variant,
                               .dtype = o->dtype, .attrs = sh.attrs_text,
                               .space = sh.sp.structured ? "structured" : "exhaustive",
                               .layout = sh.layout_text, .plan = sh.plan, .pairs = sh.shard_pairs,
                               .random_pairs = 0, .chunks = sh.shard_chunks};
        for (uint64_t c = sh.sp.product_chunks; c < sh.sp.n_chunks; c++)
            if (in_shard(o, c))
                si.random_pairs += chunk_pairs(&sh.sp, c);
        if (store_sweep_begin(sh.db, sh.run_id, &si, &sh.sweep_id)) {
            fprintf(err, "divergence sweep: %s\n", store_errmsg(sh.db));
            goto done;
        }
    }

    /* what is swept */
    const oracle_dtype_info *d = oracle_dtype(o->dtype);
    char shard[48] = "";
    if (o->shard_count > 1)
        snprintf(shard, sizeof shard, ", shard %u/%u", o->shard_index, o->shard_count);
    fprintf(out, "Sweep: %s %s (%s), %s %s [%s]%s, run %" PRId64 " in %s%s\n", sh.info->name,
            sh.info->version, o->plugin_path, oracle_variant_get(sh.variant)->name, d->tag,
            sh.attrs_text, shard, sh.run_id, db_path, resumed ? " (resumed)" : "");
    trial_report_sandbox("sweep", sh.info->layers, out, err, sandbox, sizeof sandbox);
    if (!sh.sp.structured)
        fprintf(out, "  space: exhaustive, every %s pair: %" PRIu64 " pairs%s\n", d->tag,
                (uint64_t)sh.sp.n * sh.sp.n_rows, o->shard_count > 1 ? "" : "");
    else
        fprintf(out, "  space: structured, NOT exhaustive (2^%u pairs exist): every pair of the "
                     "%s edge table (%u values: boundary exponents x %u significand patterns, "
                     "both signs) = %" PRIu64 " pairs, plus %" PRIu64 " random pairs (seed %"
                     PRIu64 ") = %" PRIu64 " pairs\n",
                2 * d->bits, d->tag, sh.sp.n, sh.sp.table_sigs, (uint64_t)sh.sp.n * sh.sp.n_rows,
                sh.sp.random_pairs, o->seed, (uint64_t)sh.sp.n * sh.sp.n_rows + sh.sp.random_pairs);
    if (o->shard_count > 1)
        fprintf(out, "  this shard: %" PRIu64 " chunks, %" PRIu64 " pairs\n", sh.shard_chunks,
                sh.shard_pairs);
    int bulk = strcmp(oracle_rowcheck_method(o->dtype), "scalar") != 0;
    fprintf(out, "  batches: %s; check: %s, the listed elements by the full oracle\n",
            sh.layout_text, bulk ? "AVX2 bulk check (self-checked)"
                                 : "element by element (no bulk check for this dtype here)");
    fflush(out);

    /* the jobs */
    for (; started < n_jobs; started++)
        if (job_start(&sh, &jobs[started], started, n_jobs, max_pairs, err))
            goto done;
    for (uint32_t i = 0; i < n_jobs; i++) {
        uint64_t p[2];
        poisons(o->dtype, p);
        jobs[i].bt.poison[0] = p[0];
        jobs[i].bt.poison[1] = p[1];
        jobs[i].bt.check_inputs = 1;
    }
    double t0 = now_s();
    for (; running < n_jobs; running++)
        if (pthread_create(&jobs[running].thread, NULL, job_main, &jobs[running])) {
            set_failed(&sh);
            break;
        }
    double last = 0;
    for (;;) {
        pthread_mutex_lock(&sh.lock);
        int over = sh.failed || sh.stopped;
        uint64_t done_pairs = sh.pairs_done + sh.pairs_under_way;
        int all = 1;
        for (uint64_t c = 0; c < sh.sp.n_chunks && all; c++)
            all = sh.done[c] || !in_shard(o, c);
        uint64_t diffs = 0;
        for (int k = 1; k < ORACLE_CLASS_COUNT; k++)
            diffs += sh.total.t.counts[k];
        pthread_mutex_unlock(&sh.lock);
        double t = now_s() - t0;
        if (o->progress && t - last >= 0.25) {
            double fresh = (double)(done_pairs - sh.pairs_resumed);
            uint64_t capped = done_pairs < sh.shard_pairs ? done_pairs : sh.shard_pairs;
            double left = (double)(sh.shard_pairs - capped);
            fprintf(err, "\rsweep %s: %5.1f%% of %" PRIu64 " pairs, %.1f s, ETA %.1f s, %" PRIu64
                         " differences   ",
                    d->tag,
                    sh.shard_pairs ? 100.0 * (double)done_pairs / (double)sh.shard_pairs : 100.0,
                    sh.shard_pairs, t, fresh > 0 ? t * left / fresh : 0.0, diffs);
            last = t;
        }
        if (over || all)
            break;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    for (uint32_t i = 0; i < running; i++)
        pthread_join(jobs[i].thread, NULL);
    double secs = now_s() - t0;
    for (uint32_t i = 0; i < started; i++)
        worker_stop(jobs[i].w); /* reaped: their peak memory is known */
    if (o->progress)
        fprintf(err, "\r%78s\r", "");
    if (sh.failed)
        goto done;
    /* the verdict: every chunk of the shard done, or stopped */
    char vbuf[96];
    const char *verdict = verdict_certificate(&sh.total.t, &o->profile, sh.declared,
                                              sh.total.unjudged != 0, vbuf, sizeof vbuf);
    if (sh.stopped) {
        uint64_t left = sh.shard_pairs - sh.pairs_done;
        sh.total.unjudged += left;
        if (store_begin(sh.db) == 0) {
            int rc = 0;
            for (uint64_t c = 0; c < sh.sp.n_chunks && !rc; c++)
                if (in_shard(o, c) && !sh.done[c]) {
                    counts none;
                    char tally[2048];
                    memset(&none, 0, sizeof none);
                    none.unjudged = chunk_pairs(&sh.sp, c);
                    counts_format(&none, tally, sizeof tally);
                    rc = store_sweep_chunk_done(sh.db, sh.sweep_id, c, none.unjudged,
                                                none.unjudged, tally);
                }
            rc = rc ? (store_rollback(sh.db), -1) : store_commit(sh.db);
            if (rc) {
                fprintf(err, "divergence sweep: %s\n", store_errmsg(sh.db));
                goto done;
            }
        }
        verdict = verdict_certificate(&sh.total.t, &o->profile, sh.declared,
                                      sh.total.unjudged != 0, vbuf, sizeof vbuf);
        fprintf(out, "  stopped: %s (%" PRIu64 " failing batches, %" PRIu64 " hangs)\n",
                sh.stop_reason ? sh.stop_reason : "", sh.total.failures, sh.total.hangs);
    }
    if (store_sweep_finish(sh.db, sh.sweep_id, verdict) ||
        store_finish_run(sh.db, sh.run_id, STORE_RUN_COMPLETE)) {
        fprintf(err, "divergence sweep: %s\n", store_errmsg(sh.db));
        goto done;
    }
    print_summary(&sh, secs, n_jobs, verdict);
    struct rusage self, kids;
    if (getrusage(RUSAGE_SELF, &self) == 0 && getrusage(RUSAGE_CHILDREN, &kids) == 0)
        fprintf(out, "  memory: peak RSS %.1f MiB in this process, %.1f MiB in the largest "
                     "worker (%u workers)\n",
                (double)self.ru_maxrss / 1024, (double)kids.ru_maxrss / 1024, n_jobs);
    fprintf(out, "  %" PRIu64 " new finding signatures; run %" PRId64 ", sweep %" PRId64 "\n",
            sh.new_signatures, sh.run_id, sh.sweep_id);
    status = !strncmp(verdict, "CONFORMANT", 10) ? 0 : 1;
done:
    if (status == 2 && sh.db && sh.run_id)
        store_finish_run(sh.db, sh.run_id, STORE_RUN_INCOMPLETE);
    for (uint32_t i = 0; jobs && i < started; i++)
        job_free(&jobs[i]);
    dvg_free(jobs);
    dvg_free(info);
    dvg_free(sh.done);
    space_free(&sh.sp);
    store_close(sh.db);
    pthread_mutex_destroy(&sh.lock);
    pthread_mutex_destroy(&sh.store_lock);
    return status;
}
