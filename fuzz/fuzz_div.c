/* SPDX-License-Identifier: MIT */
/*
 * fuzz/fuzz_div.c: the kernel fuzz target. Decodes one case (harness/cases/decode.h)
 * restricted to the claims of the plugin named by the environment variable
 * DIVERGENCE_PLUGIN, runs the plugin IN-PROCESS (loaded once with dlopen;
 * this is for speed: isolation is the harness's business, and a crash here
 * is exactly what the fuzzing engine records), and checks it against the
 * oracle the way the harness's verdict does:
 *
 *   - input the oracle calls invalid must not be accepted by output_shape;
 *   - valid input must be accepted, with the oracle's output shape;
 *   - compute runs twice on a heap output pre-filled with two poison
 *     patterns, poisoned past its end too: each element must be
 *     written, equal in both runs and accepted by the oracle
 *     (oracle_expect_tensor, or the exact oracle_expect for small outputs;
 *     oracle_elem_accepts; classes from oracle_classify; the deviations the
 *     descriptor declares are accepted as the harness accepts them); the
 *     tail and the inputs must be left as they were.
 *
 * On any discrepancy it prints one line (the difference class and the
 * element) to stderr and calls __builtin_trap(), so libFuzzer and AFL++ keep
 * the input as a crash file; `divergence import` brings it into the store.
 *
 * Environment (read once): DIVERGENCE_PLUGIN (required: the .so),
 * DIVERGENCE_FUZZ_MAX_ELEMENTS (elements per tensor, default 16, at most
 * 4096). A missing or unloadable plugin is reported once and aborts: a
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
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/fastpath.h"
#include "oracle/rules.h"
#include "oracle/shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_DIV_DEFAULT_MAX_ELEMENTS 16u
#define FUZZ_DIV_MAX_ELEMENTS_CAP 4096u
#define FUZZ_DIV_TAIL 32u    /* poisoned bytes after the output */
#define FUZZ_DIV_EXACT_ELEMENTS 64u /* up to this many: the exact path */
#define POISON1 0xA5u        /* the worker's patterns (harness/worker/worker.h) */
#define POISON2 0x5Au

typedef struct fuzz_div_state {
    const dvg_descriptor *d;
    dvg_iut *iut;
    fuzz_limits lim;
    oracle_elem *expected;  /* max_elements */
    uint8_t *a_copy, *b_copy; /* max_elements * 8 bytes */
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

    fuzz_limits_default(&st.lim);
    st.lim.max_elements = FUZZ_DIV_DEFAULT_MAX_ELEMENTS;
    const char *me = getenv("DIVERGENCE_FUZZ_MAX_ELEMENTS");
    if (me && *me) {
        unsigned long n = strtoul(me, NULL, 10);
        if (n < 1 || n > FUZZ_DIV_MAX_ELEMENTS_CAP)
            setup_fail("DIVERGENCE_FUZZ_MAX_ELEMENTS must be 1..4096", me);
        st.lim.max_elements = n;
    }
    st.lim.claims = d->claims;
    st.lim.n_claims = d->n_claims;
    st.expected = dvg_malloc(st.lim.max_elements * sizeof *st.expected);
    st.a_copy = dvg_malloc(st.lim.max_elements * 8);
    st.b_copy = dvg_malloc(st.lim.max_elements * 8);
    st.out_cap = st.lim.max_elements * 8 + FUZZ_DIV_TAIL;
    st.out[0] = dvg_malloc(st.out_cap);
    st.out[1] = dvg_malloc(st.out_cap);
    if (!st.expected || !st.a_copy || !st.b_copy || !st.out[0] || !st.out[1])
        setup_fail("out of memory", NULL);
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

static const char *status_class(int32_t s)
{
    switch (s) {
    case DVG_INVALID_INPUT: return "valid-input-rejected";
    case DVG_UNSUPPORTED: return "unsupported-claim";
    default: return "failure";
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

/* The declared deviations the harness accepts under the exact profile. */
static int declared_accepts(uint64_t declared, uint32_t cls)
{
    return (cls == ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT &&
            (declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT)) ||
           (cls == ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO &&
            (declared & DVG_DEV_SUBNORMAL_INPUT_ZERO));
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

    dvg_tensor ta, tb, tc;
    tensor_of(c, &c->a_shape, c->a, c->a_bytes, &ta);
    tensor_of(c, &c->b_shape, c->b, c->b_bytes, &tb);
    uint32_t rank = UINT32_MAX;
    int64_t shape[DVG_MAX_RANK];
    for (int k = 0; k < DVG_MAX_RANK; k++)
        shape[k] = -1;
    int32_t s = d->output_shape(st->iut, c->variant, &c->attrs, &ta, &tb, &rank, shape);
    if (!valid) {
        if (s == DVG_OK)
            finding(c, "invalid-input-accepted", "output_shape accepted shapes the spec makes "
                    "invalid (%s)", why.text);
        if (s != DVG_INVALID_INPUT && s != DVG_UNSUPPORTED)
            finding(c, "failure", "output_shape returned %d on invalid input", (int)s);
        return;
    }
    if (s != DVG_OK)
        finding(c, status_class(s), "output_shape returned %d on valid input", (int)s);
    oracle_shape got;
    memset(&got, 0, sizeof got);
    int shape_ok = rank <= DVG_MAX_RANK;
    if (shape_ok) {
        got.rank = rank;
        for (uint32_t k = 0; k < rank; k++) {
            got.dims[k] = shape[k];
            shape_ok &= shape[k] >= 0;
        }
    }
    if (!shape_ok || !oracle_shape_equal(&got, &p.out)) {
        char want[160];
        finding(c, "wrong-output-shape", "output_shape gave rank %u, the spec gives %s",
                (unsigned)rank, oracle_shape_format(&p.out, want, sizeof want));
    }

    /* The outputs are preallocated (an allocation per call costs more than
     * the rest under ASan): each is poisoned whole, and every byte after the
     * output's end must still hold the poison afterwards. */
    uint64_t nbytes = oracle_nbytes(c->dtype, p.count);
    uint8_t **out = st->out;
    memcpy(st->a_copy, c->a, c->a_bytes);
    memcpy(st->b_copy, c->b, c->b_bytes);
    for (int run = 0; run < 2; run++) {
        uint8_t poison = run ? POISON2 : POISON1;
        memset(out[run], poison, st->out_cap);
        tensor_of(c, &p.out, out[run], nbytes, &tc);
        s = d->compute(st->iut, c->variant, &c->attrs, &ta, &tb, &tc);
        if (s != DVG_OK)
            finding(c, status_class(s), "compute (run %d) returned %d on valid input", run + 1,
                    (int)s);
        for (uint64_t k = nbytes; k < st->out_cap; k++)
            if (out[run][k] != poison)
                finding(c, "out-of-bounds-write", "compute wrote byte %" PRIu64
                        " past the output", k - nbytes);
        if (memcmp(st->a_copy, c->a, c->a_bytes) || memcmp(st->b_copy, c->b, c->b_bytes))
            finding(c, "input-mutated", "an input's bytes changed during compute");
    }

    /* Small outputs: the exact path element by element (what the fast path
     * is checked against) costs less than a padded fast-path block. */
    if (p.count <= FUZZ_DIV_EXACT_ELEMENTS) {
        for (uint64_t i = 0; i < p.count; i++) {
            uint64_t ao, bo;
            oracle_plan_offsets(&p, i, &ao, &bo);
            oracle_expect(&r, oracle_load(c->dtype, c->a, ao), oracle_load(c->dtype, c->b, bo),
                          &st->expected[i]);
        }
    } else {
        oracle_expect_tensor(&r, &p, c->a, c->b, st->expected);
    }
    uint32_t dt = c->dtype;
    uint64_t declared = d->deviations;
    uint64_t declared_zero = (uint64_t)d->int_div_zero_value & oracle_dtype_mask(dt);
    for (uint64_t i = 0; i < p.count; i++) {
        const oracle_elem *e = &st->expected[i];
        uint64_t v1 = oracle_load(dt, out[0], i), v2 = oracle_load(dt, out[1], i);
        uint64_t ao, bo;
        if (v1 == oracle_load(dt, st->poison1, i & 1) && v2 == oracle_load(dt, st->poison2, i & 1))
            finding(c, "element-not-written", "output element %" PRIu64 " kept the poison", i);
        if (v1 != v2)
            finding(c, "nondeterministic", "output element %" PRIu64 ": run 1 gave 0x%" PRIx64
                    ", run 2 gave 0x%" PRIx64, i, v1, v2);
        if (oracle_elem_accepts(dt, e, v1)) {
            if (e->kind == ORACLE_UNSPECIFIED && e->rule == ORACLE_RULE_INT_DIV_ZERO &&
                (declared & DVG_DEV_INT_DIV_ZERO_VALUE) && v1 != declared_zero)
                finding(c, "wrong-value", "output element %" PRIu64 ": x/0 gave 0x%" PRIx64
                        ", the descriptor declares 0x%" PRIx64, i, v1, declared_zero);
            continue;
        }
        oracle_plan_offsets(&p, i, &ao, &bo);
        uint64_t a = oracle_load(dt, c->a, ao), b = oracle_load(dt, c->b, bo), ulps = 0;
        uint32_t cls = oracle_classify(&r, a, b, e, v1, &ulps);
        if (cls == ORACLE_CLASS_MATCH || declared_accepts(declared, cls))
            continue;
        finding(c, oracle_class_name(cls), "output element %" PRIu64 ": A 0x%" PRIx64
                " / B 0x%" PRIx64 " expected 0x%" PRIx64 " (kind %u), got 0x%" PRIx64, i, a, b,
                e->bits, (unsigned)e->kind, v1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static fuzz_div_state *st;
    if (!st)
        st = fuzz_div_setup();
    divcase c;
    if (fuzz_decode(data, size, &st->lim, &c))
        return 0; /* out of memory: not the plugin's fault */
    check_case(st, &c);
    divcase_free(&c);
    return 0;
}
