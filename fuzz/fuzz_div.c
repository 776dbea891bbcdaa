/* SPDX-License-Identifier: MIT */
/*
 * fuzz/fuzz_div.c: the kernel fuzz target. Decodes one case (harness/cases/decode.h)
 * restricted to the claims of the plugin named by the environment variable
 * DIVERGENCE_PLUGIN, runs the plugin IN-PROCESS (loaded once with dlopen;
 * this is for speed: isolation is the harness's business, and a crash here
 * is exactly what the fuzzing engine records), and hands what it produced
 * to the harness's judge (harness/judge/verdict.h, the exact profile and
 * the deviations the descriptor declares), as certify does:
 *
 *   - output_shape runs; input the oracle calls invalid stops there;
 *   - on valid input with the oracle's output shape, compute runs twice on
 *     a heap output pre-filled with two poison patterns, poisoned past its
 *     end too; a status other than ok, a byte written past the end or an
 *     input changed ends the case there (a case-level finding);
 *   - elements that kept the poison in both runs, or differ between the
 *     runs, are flagged for the judge; the expected elements come from
 *     oracle_expect_tensor (or the exact oracle_expect for small outputs).
 *
 * On any discrepancy it prints one line (the difference class and the
 * element) to stderr and calls __builtin_trap(), so libFuzzer and AFL++ keep
 * the input as a crash file; `divergence import` brings it into the store.
 *
 * Environment (read once): DIVERGENCE_PLUGIN (required: the .so),
 * DIVERGENCE_FUZZ_MAX_ELEMENTS (the element budget of a case: elements per
 * tensor of A, B and the output, the largest drawn shape path; default 256,
 * at most 2^24). A missing or unloadable plugin is reported once and aborts: a
 * configuration error must not pass for a clean run.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "divergence/iut.h"
#include "harness/cases/decode.h"
#include "harness/base/alloc.h"
#include "harness/judge/verdict.h"
#include "harness/worker/worker.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/fastpath.h"
#include "oracle/rules.h"
#include "oracle/shape.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_DIV_DEFAULT_MAX_ELEMENTS 256u
#define FUZZ_DIV_MAX_ELEMENTS_CAP (1u << 24)
#define FUZZ_DIV_TAIL 32u    /* bytes after the largest output */
#define FUZZ_DIV_POISON_AFTER 4096u /* poisoned bytes after an output, at least */
#define FUZZ_DIV_EXACT_ELEMENTS 64u /* up to this many: the exact path */
/* The output's poison patterns are the worker's own (run 1, run 2), so an
 * element left unwritten reads the same here as in a worker. */
#define POISON1 WORKER_POISON1
#define POISON2 WORKER_POISON2

typedef struct fuzz_div_state {
    const dvg_descriptor *d;
    dvg_iut *iut;
    decode_limits lim;
    oracle_elem *expected;  /* max_elements */
    uint8_t *a_copy, *b_copy; /* max_elements * 8 bytes */
    uint8_t *flags;         /* VERDICT_ELEM_* per element: max_elements */
    verdict_profile profile; /* exact */
    uint8_t *out[2];        /* the two outputs: max_elements * 8 + TAIL bytes */
    uint64_t out_cap;
    uint8_t poison1[16], poison2[16];
} fuzz_div_state;

static void setup_fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_div: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

static fuzz_div_state *fuzz_div_setup(void)
{
    static fuzz_div_state st;
    const char *path = getenv("DIVERGENCE_PLUGIN");
    if (!path || !*path)
        setup_fail("DIVERGENCE_PLUGIN is not set (the plugin .so to fuzz)", NULL);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        setup_fail("cannot load the plugin", dlerror());
    dvg_entry_fn entry;
    void *sym = dlsym(h, DVG_ENTRY_SYMBOL);
    if (!sym)
        setup_fail("the plugin exports no " DVG_ENTRY_SYMBOL, path);
    memcpy(&entry, &sym, sizeof entry);
    const dvg_descriptor *d = entry();
    if (!d || d->size < sizeof *d || d->abi_major != DVG_ABI_MAJOR || !d->open ||
        !d->output_shape || !d->compute || !d->close || (d->n_claims && !d->claims) ||
        d->n_claims > 4096)
        setup_fail("the plugin's descriptor is invalid (size, ABI major, functions or claims)",
                   path);
    uint32_t usable = 0;
    for (uint32_t i = 0; i < d->n_claims; i++)
        usable += oracle_variant_has_dtype(oracle_variant_get(d->claims[i].variant),
                                           d->claims[i].dtype);
    if (!usable)
        setup_fail("the plugin claims no (variant, dtype) pair of the variant table", path);
    if (d->open("", &st.iut) != DVG_OK || !st.iut)
        setup_fail("the plugin's open(\"\") failed", path);
    st.d = d;

    decode_limits_default(&st.lim);
    st.lim.max_elements = FUZZ_DIV_DEFAULT_MAX_ELEMENTS;
    const char *me = getenv("DIVERGENCE_FUZZ_MAX_ELEMENTS");
    if (me && *me) {
        char *end;
        unsigned long n = strtoul(me, &end, 10);
        if (*end || n < 1 || n > FUZZ_DIV_MAX_ELEMENTS_CAP)
            setup_fail("DIVERGENCE_FUZZ_MAX_ELEMENTS must be 1..16777216", me);
        st.lim.max_elements = n;
    }
    st.lim.claims = d->claims;
    st.lim.n_claims = d->n_claims;
    st.expected = dvg_malloc(st.lim.max_elements * sizeof *st.expected);
    st.a_copy = dvg_malloc(st.lim.max_elements * 8);
    st.b_copy = dvg_malloc(st.lim.max_elements * 8);
    st.flags = dvg_malloc(st.lim.max_elements);
    st.out_cap = st.lim.max_elements * 8 + FUZZ_DIV_TAIL;
    st.out[0] = dvg_malloc(st.out_cap);
    st.out[1] = dvg_malloc(st.out_cap);
    if (!st.expected || !st.a_copy || !st.b_copy || !st.flags || !st.out[0] || !st.out[1])
        setup_fail("out of memory", NULL);
    char err[160];
    if (verdict_profile_parse("exact", &st.profile, err, sizeof err))
        setup_fail("the exact profile", err);
    memset(st.poison1, POISON1, sizeof st.poison1);
    memset(st.poison2, POISON2, sizeof st.poison2);
    oracle_fastpath_selfcheck(); /* once: the fast path is used only after it */
    return &st;
}

/* One finding: one line saying what, then trap. */
__attribute__((noreturn, format(printf, 3, 4)))
static void finding(const divcase *c, const char *cls, const char *fmt, ...)
{
    char detail[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    const oracle_variant *v = oracle_variant_get(c->variant);
    char sa[160], sb[160];
    fprintf(stderr, "fuzz_div: FINDING %s: %s %s A %s B %s: %s\n", cls, v ? v->name : "?",
            oracle_dtype_tag(c->dtype), oracle_shape_format(&c->a_shape, sa, sizeof sa),
            oracle_shape_format(&c->b_shape, sb, sizeof sb), detail);
    fflush(stderr);
    __builtin_trap();
}

/* The judge's outcome of a plugin status other than DVG_OK. */
static uint32_t status_outcome(int32_t s)
{
    switch (s) {
    case DVG_INVALID_INPUT: return VERDICT_OUT_INVALID_INPUT;
    case DVG_UNSUPPORTED: return VERDICT_OUT_UNSUPPORTED;
    default: return VERDICT_OUT_FAILURE;
    }
}

static void tensor_of(const divcase *c, const oracle_shape *s, void *data, uint64_t nbytes,
                      dvg_tensor *t)
{
    memset(t, 0, sizeof *t);
    t->dtype = c->dtype;
    t->rank = s->rank;
    memcpy(t->shape, s->dims, sizeof t->shape);
    t->data = data;
    t->nbytes = nbytes;
}

/* A case-level end of the plugin's calls, with its note. */
__attribute__((format(printf, 3, 4)))
static void ended(verdict_outputs *o, uint32_t outcome, const char *fmt, ...)
{
    va_list ap;
    o->outcome = outcome;
    va_start(ap, fmt);
    vsnprintf(o->note, sizeof o->note, fmt, ap);
    va_end(ap);
}

/* Runs output_shape and, on valid input with the oracle's shape, compute
 * twice; fills *o with what the plugin produced. */
static void run_plugin(fuzz_div_state *st, const divcase *c, int valid, const oracle_plan *p,
                       verdict_outputs *o)
{
    const dvg_descriptor *d = st->d;
    dvg_tensor ta, tb, tc;
    tensor_of(c, &c->a_shape, c->a, c->a_bytes, &ta);
    tensor_of(c, &c->b_shape, c->b, c->b_bytes, &tb);
    uint32_t rank = UINT32_MAX;
    int64_t shape[DVG_MAX_RANK];
    for (int k = 0; k < DVG_MAX_RANK; k++)
        shape[k] = -1;
    int32_t s = d->output_shape(st->iut, c->variant, &c->attrs, &ta, &tb, &rank, shape);
    if (s != DVG_OK) {
        o->in_shape = 1;
        ended(o, status_outcome(s), "output_shape returned %d on %s input", (int)s,
              valid ? "valid" : "invalid");
        return;
    }
    if (!valid)
        return; /* accepted: the judge says so, whatever the shape */
    int shape_ok = rank <= DVG_MAX_RANK;
    if (shape_ok) {
        o->shape.rank = rank;
        for (uint32_t k = 0; k < rank; k++) {
            o->shape.dims[k] = shape[k];
            shape_ok &= shape[k] >= 0;
        }
    }
    if (!shape_ok) {
        o->in_shape = 1;
        ended(o, VERDICT_OUT_BAD_SHAPE, "output_shape gave rank %u (or a negative dimension)",
              (unsigned)rank);
        return;
    }
    o->has_shape = 1;
    if (!oracle_shape_equal(&o->shape, &p->out))
        return; /* the judge says what is wrong */

    /* The outputs are preallocated (an allocation per call costs more than
     * the rest under ASan): each is poisoned, and every poisoned byte after
     * the output's end must still hold the poison afterwards. */
    uint64_t nbytes = oracle_nbytes(c->dtype, p->count);
    uint8_t **out = st->out;
    /* Poisoned: the output and as many bytes again after it (4 KiB at
     * least), so a large budget does not cost a whole buffer per call. */
    uint64_t after = nbytes > FUZZ_DIV_POISON_AFTER ? nbytes : FUZZ_DIV_POISON_AFTER;
    uint64_t poisoned = st->out_cap - nbytes > after ? nbytes + after : st->out_cap;
    memcpy(st->a_copy, c->a, c->a_bytes);
    memcpy(st->b_copy, c->b, c->b_bytes);
    for (int run = 0; run < 2; run++) {
        uint8_t poison = run ? POISON2 : POISON1;
        memset(out[run], poison, poisoned);
        tensor_of(c, &p->out, out[run], nbytes, &tc);
        s = d->compute(st->iut, c->variant, &c->attrs, &ta, &tb, &tc);
        if (s != DVG_OK) {
            ended(o, status_outcome(s), "compute (run %d) returned %d on valid input", run + 1,
                  (int)s);
            return;
        }
        for (uint64_t k = nbytes; k < poisoned; k++)
            if (out[run][k] != poison) {
                ended(o, VERDICT_OUT_OOB_WRITE, "compute wrote byte %" PRIu64 " past the output",
                      k - nbytes);
                return;
            }
        if (memcmp(st->a_copy, c->a, c->a_bytes) || memcmp(st->b_copy, c->b, c->b_bytes)) {
            ended(o, VERDICT_OUT_INPUT_MUTATED, "an input's bytes changed during compute");
            return;
        }
    }
    uint32_t dt = c->dtype;
    for (uint64_t i = 0; i < p->count; i++) {
        uint64_t v1 = oracle_load(dt, out[0], i), v2 = oracle_load(dt, out[1], i);
        st->flags[i] = v1 == oracle_load(dt, st->poison1, i & 1) &&
                               v2 == oracle_load(dt, st->poison2, i & 1)
                           ? VERDICT_ELEM_UNWRITTEN
                       : v1 != v2 ? VERDICT_ELEM_NONDET
                                  : 0;
    }
    o->computed = 1;
    o->out1 = out[0];
    o->out2 = out[1];
    o->flags = st->flags;
}

static void check_case(fuzz_div_state *st, divcase *c)
{
    const dvg_descriptor *d = st->d;
    oracle_rules r;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, NULL) != ORACLE_OK)
        return; /* cannot happen: decoded pairs and attributes resolve */
    /* The decoder keeps to the claims (setup checked that one is usable). */
    oracle_plan p;
    oracle_error why;
    int prc = oracle_plan_shapes(&r, &c->a_shape, &c->b_shape, &p, &why);
    if (prc == ORACLE_EUSAGE)
        return;
    int valid = prc == ORACLE_OK;

    verdict_outputs o;
    memset(&o, 0, sizeof o);
    run_plugin(st, c, valid, &p, &o);
    if (o.computed) {
        /* Small outputs: the exact path element by element (what the fast
         * path is checked against) costs less than a padded fast-path block. */
        if (p.count <= FUZZ_DIV_EXACT_ELEMENTS) {
            for (uint64_t i = 0; i < p.count; i++) {
                uint64_t ao, bo;
                oracle_plan_offsets(&p, i, &ao, &bo);
                oracle_expect(&r, oracle_load(c->dtype, c->a, ao),
                              oracle_load(c->dtype, c->b, bo), &st->expected[i]);
            }
        } else {
            oracle_expect_tensor(&r, &p, c->a, c->b, st->expected);
        }
    }
    verdict_tally t;
    memset(&t, 0, sizeof t);
    verdict_first ff;
    ff.found = 0;
    int v = verdict_case(&r, c, valid, &p, st->expected, &o, &st->profile, d->deviations,
                         d->int_div_zero_value, &t, verdict_keep_first, &ff);
    if (v < 0)
        return; /* out of memory: not the plugin's fault */
    if (ff.found) {
        const verdict_example *ex = &ff.ex;
        const char *cls = oracle_class_name(ex->cls);
        if (ex->index == UINT64_MAX)
            finding(c, cls, "%s%s%s%s", ex->note, valid ? "" : " (", valid ? "" : why.text,
                    valid ? "" : ")");
        char sa[VERDICT_TEXT_MAX], sb[VERDICT_TEXT_MAX], want[VERDICT_TEXT_MAX],
            got[VERDICT_ACTUAL_MAX];
        finding(c, cls, "output element %" PRIu64 ": A %s / B %s: expected %s, got %s%s%.300s",
                ex->index, verdict_bits_text(c->dtype, ex->a, sa, sizeof sa),
                verdict_bits_text(c->dtype, ex->b, sb, sizeof sb),
                verdict_elem_text(c->dtype, &ex->expected, want, sizeof want),
                verdict_actual_text(c->dtype, ex, got, sizeof got), ex->note[0] ? "; " : "",
                ex->note);
    }
    if (v == 0) /* more signatures than the judge itemises: name the class */
        for (uint32_t k = 1; k < ORACLE_CLASS_COUNT; k++)
            if (t.counts[k])
                finding(c, oracle_class_name(k), "%" PRIu64 " elements of this class",
                        t.counts[k]);
}

/* The one-time setup, done on first use: LLVMFuzzerInitialize calls it
 * before the engine starts (libFuzzer, AFL++'s drivers, driver_replay.c),
 * so a missing plugin stops the run at once and AFL++'s fork server forks
 * a process that has already loaded the plugin. */
static fuzz_div_state *fuzz_div_state_get(void)
{
    static fuzz_div_state *st;
    if (!st)
        st = fuzz_div_setup();
    return st;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_div_state_get();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_div_state *st = fuzz_div_state_get();
    divcase c;
    if (decode_case(data, size, &st->lim, &c))
        return 0; /* out of memory: not the plugin's fault */
    check_case(st, &c);
    divcase_free(&c);
    return 0;
}
