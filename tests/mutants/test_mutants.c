/* SPDX-License-Identifier: MIT */
/*
 * tests/mutants/test_mutants.c: each mutant is wrong in its one way.
 *
 * For every mutant of the zoo this runs the input that triggers its bug and
 * checks that the bug shows (a different value than the reference, the
 * signal, the hang, the write past C or into A, ...), and runs a neutral
 * input on which it must still agree with the reference. Whatever can kill
 * or stall the process (crash_int_min, hang, oob_write) runs in a child.
 * This checks the zoo, not the harness: that the harness reports each
 * mutant with the right class is the harness's own test.
 *
 * Usage: test_mutants PATH/reference.so DIR_OF_MUTANTS
 */
#include <dlfcn.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "divergence/iut.h"

typedef struct plugin {
    void *so;
    const dvg_descriptor *d;
    dvg_iut *iut;
} plugin;

static plugin ref;
static const char *mutant_dir;

static int load(const char *path, plugin *p)
{
    dvg_entry_fn entry;
    memset(p, 0, sizeof *p);
    p->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->so) {
        fprintf(stderr, "%s\n", dlerror());
        return -1;
    }
    *(void **)&entry = dlsym(p->so, DVG_ENTRY_SYMBOL);
    if (!entry)
        return -1;
    p->d = entry();
    if (p->d->open("", &p->iut) != DVG_OK)
        return -1;
    return 0;
}

static void unload(plugin *p)
{
    if (p->d && p->iut)
        p->d->close(p->iut);
    if (p->so)
        dlclose(p->so);
    memset(p, 0, sizeof *p);
}

static int load_mutant(const char *name, plugin *p)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/mutant_%s.so", mutant_dir, name);
    if (load(path, p) < 0) {
        CHECKF(0, "mutant %s does not load", name);
        unload(p);
        return -1;
    }
    {
        char want[128];
        snprintf(want, sizeof want, "divergence-mutant-%s", name);
        CHECKF(!strcmp(p->d->name, want), "mutant %s calls itself %s", name, p->d->name);
    }
    return 0;
}

static dvg_attrs defaults(void)
{
    dvg_attrs at;
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    at.axis = -1;
    at.pythondiv = 1;
    at.auto_broadcast = DVG_BROADCAST_NUMPY;
    return at;
}

/* One case: A and B (rank <= 2) and room for C. */
typedef struct kase {
    uint32_t variant, dtype;
    dvg_attrs at;
    uint32_t ra, rb;
    int64_t da[2], db[2];
    const void *a, *b;
    uint64_t na, nb; /* bytes */
    uint64_t elem;   /* bytes of one element */
} kase;

static dvg_tensor tensor(uint32_t dtype, uint32_t rank, const int64_t *dims, const void *data,
                         uint64_t nbytes)
{
    dvg_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.rank = rank;
    for (uint32_t k = 0; k < rank; k++)
        t.shape[k] = dims[k];
    t.data = (void *)(uintptr_t)data; /* the ABI's tensor is not const */
    t.nbytes = nbytes;
    return t;
}

/* Computes the case with p into out (cap bytes, prefilled with `fill`);
 * *nbytes gets C's size. Returns compute's status. A is copied first, so a
 * mutant that writes its input cannot spoil the case. */
static int32_t run(const plugin *p, const kase *k, void *out, uint64_t cap, uint8_t fill,
                   uint64_t *nbytes, uint8_t *a_after)
{
    uint8_t a[64];
    uint32_t rank;
    int64_t shape[DVG_MAX_RANK];
    dvg_tensor ta, tb, tc;
    int32_t s;
    memcpy(a, k->a, k->na);
    ta = tensor(k->dtype, k->ra, k->da, a, k->na);
    tb = tensor(k->dtype, k->rb, k->db, k->b, k->nb);
    s = p->d->output_shape(p->iut, k->variant, &k->at, &ta, &tb, &rank, shape);
    if (s != DVG_OK)
        return s;
    tc = tensor(k->dtype, rank, shape, out, k->elem);
    for (uint32_t i = 0; i < rank; i++)
        tc.nbytes *= (uint64_t)shape[i];
    if (tc.nbytes > cap)
        return -1;
    memset(out, fill, cap);
    *nbytes = tc.nbytes;
    s = p->d->compute(p->iut, k->variant, &k->at, &ta, &tb, &tc);
    if (a_after)
        memcpy(a_after, a, k->na);
    return s;
}

/* 1 when the mutant and the reference give the same C on the case. */
static int agrees(const plugin *m, const kase *k)
{
    uint8_t cr[64], cm[64];
    uint64_t nr = 0, nm = 0;
    if (run(&ref, k, cr, sizeof cr, 0xAB, &nr, NULL) != DVG_OK)
        return 0;
    if (run(m, k, cm, sizeof cm, 0xAB, &nm, NULL) != DVG_OK)
        return 0;
    return nr == nm && !memcmp(cr, cm, nr);
}

/* Cases. */
static const float f_3_7[2][1] = {{3}, {7}};
static const float f_neutral[2][4] = {{1, 2, -6, 1.5f}, {4, 8, -3, -0.5f}}; /* no 3: see hang */
static const float f_min_normal[2][1] = {{0x1p-126f}, {2}};
static const float f_neg_zero[2][1] = {{-1}, {0}};
static const float f_zero_zero[2][1] = {{0}, {0}};
static const int32_t i_neutral[2][4] = {{7, 8, 100, 9}, {2, 4, 7, 1}};
static const int32_t i_minus7_2[2][1] = {{-7}, {2}};
static const int32_t i_min_m1[2][1] = {{INT32_MIN}, {-1}};
static const int32_t i_x_0[2][1] = {{5}, {0}};
static const int32_t i_three[2][1] = {{9}, {3}};
static const int64_t l_big[2][1] = {{INT64_C(9007199254740993)}, {1}};
static const float f_a21[2] = {6, 12}, f_b13[3] = {1, 2, 3}, f_a23[6] = {1, 2, 3, 4, 5, 6};

static kase flat(uint32_t variant, uint32_t dtype, const void *pair, uint64_t elem_bytes,
                 int64_t n)
{
    kase k;
    memset(&k, 0, sizeof k);
    k.variant = variant;
    k.dtype = dtype;
    k.at = defaults();
    k.ra = k.rb = 1;
    k.da[0] = k.db[0] = n;
    k.a = pair;
    k.b = (const uint8_t *)pair + elem_bytes * (uint64_t)n;
    k.na = k.nb = elem_bytes * (uint64_t)n;
    k.elem = elem_bytes;
    return k;
}

#define F32(pair) flat(DVG_VARIANT_ONNX_DIV_7, DVG_DTYPE_F32, pair, 4, sizeof pair[0] / 4)
#define I32(pair) flat(DVG_VARIANT_ONNX_DIV_7, DVG_DTYPE_I32, pair, 4, sizeof pair[0] / 4)

/* The neutral cases every value mutant must still get right. */
static void check_neutral(const plugin *m, const char *name)
{
    kase f = F32(f_neutral), i = I32(i_neutral);
    CHECKF(agrees(m, &f), "%s: wrong on the neutral f32 case", name);
    CHECKF(agrees(m, &i), "%s: wrong on the neutral i32 case", name);
}

/* The first element of C for a one-element case. */
static int first(const plugin *p, const kase *k, void *c, uint64_t size)
{
    uint8_t buf[64];
    uint64_t n;
    if (run(p, k, buf, sizeof buf, 0xAB, &n, NULL) != DVG_OK)
        return -1;
    memcpy(c, buf, size);
    return 0;
}

static void value_mutants(void)
{
    plugin m;
    float fr, fm;
    int32_t ir, im;
    int64_t lr, lm;

    if (load_mutant("recip_mul", &m) == 0) {
        kase k = F32(f_3_7);
        first(&ref, &k, &fr, 4);
        first(&m, &k, &fm, 4);
        CHECKF(fr != fm, "recip_mul: 3/7 = %.9g both", fr);
        check_neutral(&m, "recip_mul");
        unload(&m);
    }
    if (load_mutant("flush_subnormals", &m) == 0) {
        kase k = F32(f_min_normal);
        first(&ref, &k, &fr, 4);
        first(&m, &k, &fm, 4);
        CHECK(fr == 0x1p-127f && fm == 0 && !signbit(fm));
        check_neutral(&m, "flush_subnormals");
        unload(&m);
    }
    if (load_mutant("floor_not_trunc", &m) == 0) {
        kase k = I32(i_minus7_2);
        first(&ref, &k, &ir, 4);
        first(&m, &k, &im, 4);
        CHECK(ir == -3 && im == -4);
        check_neutral(&m, "floor_not_trunc");
        unload(&m);
    }
    if (load_mutant("trunc_not_floor", &m) == 0) {
        kase k = I32(i_minus7_2);
        k.variant = DVG_VARIANT_OPENVINO_DIVIDE_1; /* pythondiv=1: floor */
        first(&ref, &k, &ir, 4);
        first(&m, &k, &im, 4);
        CHECK(ir == -4 && im == -3);
        check_neutral(&m, "trunc_not_floor");
        unload(&m);
    }
    if (load_mutant("int_via_double", &m) == 0) {
        kase k = flat(DVG_VARIANT_ONNX_DIV_7, DVG_DTYPE_I64, l_big, 8, 1);
        first(&ref, &k, &lr, 8);
        first(&m, &k, &lm, 8);
        CHECK(lr == INT64_C(9007199254740993) && lm == INT64_C(9007199254740992));
        check_neutral(&m, "int_via_double");
        unload(&m);
    }
    if (load_mutant("wrong_inf_sign", &m) == 0) {
        kase k = F32(f_neg_zero);
        first(&ref, &k, &fr, 4);
        first(&m, &k, &fm, 4);
        CHECK(isinf(fr) && fr < 0 && isinf(fm) && fm > 0);
        check_neutral(&m, "wrong_inf_sign");
        unload(&m);
    }
    if (load_mutant("nan_to_num", &m) == 0) {
        kase k = F32(f_zero_zero);
        first(&ref, &k, &fr, 4);
        first(&m, &k, &fm, 4);
        CHECK(isnan(fr) && fm == 0);
        check_neutral(&m, "nan_to_num");
        unload(&m);
    }
    if (load_mutant("bcast_ignores_a1", &m) == 0) {
        /* A (2,1) stretched along dim 1: C = 6 3 2 12 6 4, mutant 6 3 2 6 3 2 */
        kase k;
        float c[6];
        uint64_t n;
        memset(&k, 0, sizeof k);
        k.variant = DVG_VARIANT_ONNX_DIV_7;
        k.dtype = DVG_DTYPE_F32;
        k.at = defaults();
        k.ra = k.rb = 2;
        k.da[0] = 2;
        k.da[1] = 1;
        k.db[0] = 1;
        k.db[1] = 3;
        k.a = f_a21;
        k.b = f_b13;
        k.na = 8;
        k.nb = 12;
        k.elem = 4;
        CHECK(run(&m, &k, c, sizeof c, 0, &n, NULL) == DVG_OK && n == 24);
        CHECKF(c[3] == 6 && c[5] == 2, "bcast_ignores_a1: %g %g", c[3], c[5]);
        CHECK(!agrees(&m, &k));
        /* B stretched, A not: right */
        k.da[1] = 3;
        k.a = f_a23;
        k.na = 24;
        k.rb = 1;
        k.db[0] = 3;
        CHECK(agrees(&m, &k));
        check_neutral(&m, "bcast_ignores_a1");
        unload(&m);
    }
}

/* Runs the case in a child with C flush against a PROT_NONE page; returns
 * the signal that ended the child, 0 on a clean exit, EXITED + status for
 * any other exit. A child still running after `seconds` gets SIGALRM. */
#define EXITED 1000

/* Under AddressSanitizer (DVG_SANITIZE) its runtime catches SIGSEGV and
 * SIGFPE, reports them and exits with status 1 instead. */
#if defined(__SANITIZE_ADDRESS__)
#define DVG_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DVG_TEST_ASAN 1
#endif
#endif
#ifdef DVG_TEST_ASAN
#define DIED_OF(r, sig) ((r) == (sig) || (r) == EXITED + 1)
#else
#define DIED_OF(r, sig) ((r) == (sig))
#endif

static int in_child(const char *name, const kase *k, unsigned seconds)
{
    int status;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        plugin m;
        long page = sysconf(_SC_PAGESIZE);
        uint8_t *map, *c;
        uint64_t n;
        alarm(seconds);
        if (load_mutant(name, &m) < 0)
            _exit(3);
        map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
        if (map == MAP_FAILED || mprotect(map + page, (size_t)page, PROT_NONE) != 0)
            _exit(4);
        c = map + page - 4; /* one 4-byte element, ending at the guard page */
        run(&m, k, c, 4, 0, &n, NULL);
        _exit(0);
    }
    if (waitpid(pid, &status, 0) != pid)
        return -1;
    if (WIFSIGNALED(status))
        return WTERMSIG(status);
    return WEXITSTATUS(status) == 0 ? 0 : EXITED + WEXITSTATUS(status);
}

static void process_mutants(void)
{
    plugin m;
    kase k;

    k = I32(i_min_m1);
    CHECKF(DIED_OF(in_child("crash_int_min", &k, 5), SIGFPE), "crash_int_min: INT_MIN / -1");
    k = I32(i_x_0);
    CHECKF(DIED_OF(in_child("crash_int_min", &k, 5), SIGFPE), "crash_int_min: 5 / 0");
    k = I32(i_minus7_2);
    CHECK(in_child("crash_int_min", &k, 5) == 0);

    k = I32(i_three);
    CHECKF(in_child("hang", &k, 1) == SIGALRM, "hang: B = 3 returned");
    k = I32(i_minus7_2);
    CHECK(in_child("hang", &k, 5) == 0);
    if (load_mutant("hang", &m) == 0) {
        check_neutral(&m, "hang");
        unload(&m);
    }

    k = I32(i_minus7_2);
    CHECKF(DIED_OF(in_child("oob_write", &k, 5), SIGSEGV), "oob_write: no fault past C");
    if (load_mutant("oob_write", &m) == 0) {
        uint8_t c[8];
        uint64_t n;
        CHECK(run(&m, &k, c, sizeof c, 0, &n, NULL) == DVG_OK && n == 4);
        CHECKF(c[4] != 0, "oob_write: byte past C untouched");
        unload(&m);
    }
}

static void contract_mutants(void)
{
    plugin m;

    if (load_mutant("writes_input", &m) == 0) {
        kase k = F32(f_neutral);
        uint8_t c[16], a_after[16];
        uint64_t n;
        CHECK(run(&m, &k, c, sizeof c, 0, &n, a_after) == DVG_OK);
        CHECK(memcmp(a_after, f_neutral[0], sizeof f_neutral[0]) != 0);
        CHECK(agrees(&m, &k)); /* C itself is right */
        unload(&m);
    }
    if (load_mutant("skip_last", &m) == 0) {
        kase k = F32(f_neutral);
        uint8_t cr[16], cm[16];
        uint64_t n;
        CHECK(run(&ref, &k, cr, sizeof cr, 0xAB, &n, NULL) == DVG_OK);
        CHECK(run(&m, &k, cm, sizeof cm, 0xAB, &n, NULL) == DVG_OK);
        CHECK(!memcmp(cr, cm, 12));
        CHECK(cm[12] == 0xAB && cm[13] == 0xAB && cm[14] == 0xAB && cm[15] == 0xAB);
        unload(&m);
    }
    if (load_mutant("nondeterministic", &m) == 0) {
        kase k = F32(f_neutral);
        uint8_t c1[16], c2[16], c3[16];
        uint64_t n;
        CHECK(run(&m, &k, c1, sizeof c1, 0, &n, NULL) == DVG_OK);
        CHECK(run(&m, &k, c2, sizeof c2, 0, &n, NULL) == DVG_OK);
        CHECK(run(&m, &k, c3, sizeof c3, 0, &n, NULL) == DVG_OK);
        CHECK(memcmp(c1, c2, sizeof c1) != 0 && memcmp(c1, c3, sizeof c1) == 0);
        unload(&m);
    }
    if (load_mutant("late_writer", &m) == 0) {
        /* C's first element changed after compute returned (a static
         * buffer: the helper thread outlives the call); the rest right. */
        static uint8_t c[16];
        uint8_t cr[16];
        kase k = F32(f_neutral);
        uint64_t n;
        CHECK(run(&ref, &k, cr, sizeof cr, 0, &n, NULL) == DVG_OK);
        CHECK(run(&m, &k, c, sizeof c, 0, &n, NULL) == DVG_OK);
        usleep(50000);
        CHECKF(c[0] != cr[0] && !memcmp(c + 1, cr + 1, sizeof c - 1),
               "late_writer: C's first element not rewritten after return");
        unload(&m);
    }
    if (load_mutant("claims_unsupported", &m) == 0) {
        kase k = I32(i_neutral), f = F32(f_neutral);
        uint8_t c[16];
        uint64_t n;
        int claimed = 0;
        for (uint32_t i = 0; i < m.d->n_claims; i++)
            claimed |= m.d->claims[i].variant == DVG_VARIANT_ONNX_DIV_7 &&
                       m.d->claims[i].dtype == DVG_DTYPE_I32;
        CHECK(claimed);
        CHECK(run(&m, &k, c, sizeof c, 0, &n, NULL) == DVG_UNSUPPORTED);
        CHECK(agrees(&m, &f));
        k.variant = DVG_VARIANT_ONNX_DIV_13;
        CHECK(agrees(&m, &k));
        unload(&m);
    }
}

/* Runs i32 A (ra, da) / B (rb, db) under onnx-div-14 with the reference
 * and with m: 1 when C differs, 0 when it agrees, -1 when a call fails. */
static int shape_differs(const plugin *m, uint32_t ra, const int64_t *da, uint32_t rb,
                         const int64_t *db)
{
    dvg_attrs at = defaults();
    uint64_t na = 1, nb = 1, nc = 1;
    uint32_t rank;
    int64_t shape[DVG_MAX_RANK];
    int rc = -1;
    for (uint32_t k = 0; k < ra; k++)
        na *= (uint64_t)da[k];
    for (uint32_t k = 0; k < rb; k++)
        nb *= (uint64_t)db[k];
    int32_t *a = malloc(na * 4), *b = malloc(nb * 4), *c1 = NULL, *c2 = NULL;
    if (!a || !b)
        goto done;
    for (uint64_t i = 0; i < na; i++)
        a[i] = 1000 + (int32_t)(i % 9973) * 7;
    for (uint64_t i = 0; i < nb; i++)
        b[i] = 1 + (int32_t)(i % 5);
    dvg_tensor ta = tensor(DVG_DTYPE_I32, ra, da, a, na * 4);
    dvg_tensor tb = tensor(DVG_DTYPE_I32, rb, db, b, nb * 4);
    if (ref.d->output_shape(ref.iut, DVG_VARIANT_ONNX_DIV_14, &at, &ta, &tb, &rank, shape) != DVG_OK)
        goto done;
    for (uint32_t k = 0; k < rank; k++)
        nc *= (uint64_t)shape[k];
    c1 = calloc(nc, 4);
    c2 = calloc(nc, 4);
    if (!c1 || !c2)
        goto done;
    dvg_tensor t1 = tensor(DVG_DTYPE_I32, rank, shape, c1, nc * 4);
    dvg_tensor t2 = tensor(DVG_DTYPE_I32, rank, shape, c2, nc * 4);
    if (ref.d->compute(ref.iut, DVG_VARIANT_ONNX_DIV_14, &at, &ta, &tb, &t1) != DVG_OK ||
        m->d->compute(m->iut, DVG_VARIANT_ONNX_DIV_14, &at, &ta, &tb, &t2) != DVG_OK)
        goto done;
    rc = memcmp(c1, c2, nc * 4) != 0;
done:
    free(a);
    free(b);
    free(c1);
    free(c2);
    return rc;
}

/* Runs f32 A / B of 40 elements under onnx-div-14 with A, B and C at
 * byte offsets oa, ob, oc from a 64-byte line, with the reference and with
 * m: 1 when C differs, 0 when it agrees, -1 when a call fails. */
static int placed_differs(const plugin *m, uint32_t oa, uint32_t ob, uint32_t oc)
{
    enum { N = 40 };
    static _Alignas(64) uint8_t buf[4][N * 4 + 128];
    float *a = (float *)(void *)(buf[0] + oa), *b = (float *)(void *)(buf[1] + ob);
    float *c1 = (float *)(void *)(buf[2] + oc), *c2 = (float *)(void *)(buf[3] + oc);
    const int64_t d[] = {N};
    dvg_attrs at = defaults();
    for (int i = 0; i < N; i++) {
        a[i] = (float)(i * 3 + 1);
        b[i] = (float)(i % 7 + 2);
    }
    memset(c1, 0, N * 4);
    memset(c2, 0, N * 4);
    dvg_tensor ta = tensor(DVG_DTYPE_F32, 1, d, a, N * 4), tb = tensor(DVG_DTYPE_F32, 1, d, b, N * 4);
    dvg_tensor t1 = tensor(DVG_DTYPE_F32, 1, d, c1, N * 4), t2 = tensor(DVG_DTYPE_F32, 1, d, c2, N * 4);
    if (ref.d->compute(ref.iut, DVG_VARIANT_ONNX_DIV_14, &at, &ta, &tb, &t1) != DVG_OK ||
        m->d->compute(m->iut, DVG_VARIANT_ONNX_DIV_14, &at, &ta, &tb, &t2) != DVG_OK)
        return -1;
    return memcmp(c1, c2, N * 4) != 0;
}

/* The shape-path mutants: wrong on their one path, right next to it. */
static void shape_mutants(void)
{
    plugin m;
    if (load_mutant("remainder_17", &m) == 0) {
        const int64_t r3[] = {2, 2, 17}, r2[] = {2, 17}, r16[] = {2, 2, 16};
        CHECK(shape_differs(&m, 3, r3, 3, r3) == 1);
        CHECK(shape_differs(&m, 2, r2, 2, r2) == 0);
        CHECK(shape_differs(&m, 3, r16, 3, r16) == 0);
        unload(&m);
    }
    if (load_mutant("row_bcast_32k1", &m) == 0) {
        const int64_t a33[] = {3, 33}, b33[] = {33}, a32[] = {3, 32}, b32[] = {32};
        CHECK(shape_differs(&m, 2, a33, 1, b33) == 1);
        CHECK(shape_differs(&m, 2, a32, 1, b32) == 0);
        CHECK(shape_differs(&m, 2, a33, 2, a33) == 0);
        unload(&m);
    }
    if (load_mutant("threshold_4mi", &m) == 0) {
        const int64_t big[] = {(INT64_C(1) << 22) + 1}, edge[] = {INT64_C(1) << 22};
        CHECK(shape_differs(&m, 1, big, 1, big) == 1);
        CHECK(shape_differs(&m, 1, edge, 1, edge) == 0);
        unload(&m);
    }
    if (load_mutant("outer_product", &m) == 0) {
        const int64_t a[] = {5, 1}, b17[] = {1, 17}, m17[] = {17}, b16[] = {1, 16};
        CHECK(shape_differs(&m, 2, a, 2, b17) == 1);
        CHECK(shape_differs(&m, 2, a, 1, m17) == 1);
        CHECK(shape_differs(&m, 2, a, 2, b16) == 0);
        unload(&m);
    }
    if (load_mutant("rank8_stride", &m) == 0) {
        const int64_t a[] = {2, 2, 2, 2, 2, 2, 2, 3}, b[] = {2, 2, 2, 1, 2, 2, 2, 3};
        const int64_t a7[] = {2, 2, 2, 2, 2, 2, 3}, b7[] = {2, 2, 1, 2, 2, 2, 3};
        CHECK(shape_differs(&m, 8, a, 8, b) == 1);
        CHECK(shape_differs(&m, 8, a, 8, a) == 0);
        CHECK(shape_differs(&m, 7, a7, 7, b7) == 0);
        unload(&m);
    }
    if (load_mutant("align_a_vs_c", &m) == 0) {
        CHECK(placed_differs(&m, 4, 0, 0) == 1);
        CHECK(placed_differs(&m, 8, 8, 44) == 1);
        CHECK(placed_differs(&m, 0, 4, 0) == 0);  /* B is not its path */
        CHECK(placed_differs(&m, 4, 0, 20) == 0); /* A and C alike mod 16 */
        CHECK(placed_differs(&m, 12, 12, 12) == 0);
        unload(&m);
    }
}

static void load_mutants(void)
{
    char path[4096];
    void *so;
    dvg_entry_fn entry;

    snprintf(path, sizeof path, "%s/mutant_wrong_abi_major.so", mutant_dir);
    so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(so != NULL);
    if (so) {
        *(void **)&entry = dlsym(so, DVG_ENTRY_SYMBOL);
        CHECK(entry && entry()->abi_major == 2 && entry()->size == sizeof(dvg_descriptor));
        dlclose(so);
    }
    snprintf(path, sizeof path, "%s/mutant_no_entry.so", mutant_dir);
    so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    CHECK(so != NULL);
    if (so) {
        CHECK(dlsym(so, DVG_ENTRY_SYMBOL) == NULL);
        CHECK(dlsym(so, "dvg_iut_descriptor_v0") != NULL);
        dlclose(so);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s PATH/reference.so DIR_OF_MUTANTS\n", argv[0]);
        return 2;
    }
    mutant_dir = argv[2];
    if (load(argv[1], &ref) < 0) {
        fprintf(stderr, "cannot load the reference %s\n", argv[1]);
        return 1;
    }
    value_mutants();
    process_mutants();
    contract_mutants();
    shape_mutants();
    load_mutants();
    unload(&ref);
    return check_done("test_mutants");
}
