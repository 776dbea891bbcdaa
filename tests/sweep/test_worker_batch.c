/* SPDX-License-Identifier: MIT */
/*
 * tests/sweep/test_worker_batch.c: the worker's batch mode (harness/worker/batch.h,
 * worker_batch_run and worker_batch_rerun) on the reference kernel and the
 * mutants whose bugs it must show:
 *  - outputs read in place are right, also when A or B is reused (same_a,
 *    same_b) and when it changes, and after the worker restarted;
 *  - the output holds poison[0] where nothing was written (skip_last), and
 *    a rerun marks it unwritten, as worker_run would;
 *  - a rerun of a nondeterministic kernel marks the differing element;
 *  - a crash, a write into A, a write past C end the batch with the class
 *    worker_run gives, and the next batch runs in a fresh worker;
 *  - a poison pattern that is a genuine result is told apart by the rerun.
 *
 * Usage: test_worker_batch PATH/reference.so MUTANT_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "harness/worker/batch.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/variant.h"

static const char *mutant_dir;

/* An i16 case A (k, 1) / B (n) of onnx-div-14 with the given rows. */
static void make_case(divcase *c, int16_t *a, uint32_t k, int16_t *b, uint32_t n)
{
    memset(c, 0, sizeof *c);
    snprintf(c->id, sizeof c->id, "batch");
    c->variant = DVG_VARIANT_ONNX_DIV_14;
    c->dtype = DVG_DTYPE_I16;
    oracle_attrs_default(oracle_variant_get(c->variant), &c->attrs);
    c->a_shape.rank = 2;
    c->a_shape.dims[0] = k;
    c->a_shape.dims[1] = 1;
    c->b_shape.rank = 1;
    c->b_shape.dims[0] = n;
    c->a = (uint8_t *)a;
    c->b = (uint8_t *)b;
    c->a_bytes = 2 * k;
    c->b_bytes = 2 * n;
}

/* 1 when out holds trunc(a[i] / b[j]) (b != 0) for every element. */
static int right(const uint8_t *out, const int16_t *a, uint32_t k, const int16_t *b, uint32_t n)
{
    for (uint32_t i = 0; i < k; i++)
        for (uint32_t j = 0; j < n; j++) {
            int16_t q;
            memcpy(&q, out + 2 * ((uint64_t)i * n + j), 2);
            if (b[j] == 0 || (a[i] == INT16_MIN && b[j] == -1))
                continue;
            if (q != (int16_t)(a[i] / b[j]))
                return 0;
        }
    return 1;
}

static worker *start(const char *path)
{
    worker *w = NULL;
    worker_options o;
    worker_options_default(&o);
    o.quiet = 1;
    o.timeout_ms = 5000;
    CHECK(worker_new(path, &o, &w) == 0);
    return w;
}

static void init_batch(worker_batch *bt)
{
    memset(bt, 0, sizeof *bt);
    bt->poison[0] = 0xA5A5;
    bt->poison[1] = 0x5A5A;
    bt->check_inputs = 1;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_worker_batch REFERENCE.so MUTANT_DIR\n");
        return 2;
    }
    mutant_dir = argv[2];
    enum { K = 8, N = 4096 };
    static int16_t a[K], b[N];
    for (uint32_t j = 0; j < N; j++)
        b[j] = (int16_t)(j * 13 - 20000 + 1); /* no zero divisor in this pattern */
    for (uint32_t i = 0; i < K; i++)
        a[i] = (int16_t)(i * 3001 - 12000);
    oracle_shape expect = {2, {K, N}};
    divcase c;
    worker_result r = WORKER_RESULT_INIT;
    uint8_t *out;
    char path[1024];

    /* The reference: right in place, with reuse, after a restart. */
    worker *w = start(argv[1]);
    worker_batch bt;
    init_batch(&bt);
    make_case(&c, a, K, b, N);
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(r.outcome == WORKER_OUT_OK && r.computed && out && right(out, a, K, b, N));
    for (int round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < K; i++)
            a[i] = (int16_t)(a[i] + 77);
        bt.same_b = 1; /* B unchanged: not copied again */
        bt.same_a = 0;
        CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
        CHECKF(r.computed && right(out, a, K, b, N), "round %d", round);
    }
    int pid = worker_pid(w);
    worker_stop(w);
    bt.same_a = bt.same_b = 1; /* the memory survives the child: still right */
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(r.computed && right(out, a, K, b, N) && worker_pid(w) != pid);
    /* a rerun of a correct kernel: no flags, both runs equal */
    CHECK(worker_batch_rerun(w, &bt, &c, &expect, &r) == 0);
    CHECK(r.computed && r.n_unwritten == 0 && r.n_nondet == 0 && right(r.out1, a, K, b, N) &&
          !memcmp(r.out1, r.out2, r.nbytes));
    /* a poison that is a genuine result: -23131 / 1 */
    int16_t one[N];
    for (uint32_t j = 0; j < N; j++)
        one[j] = 1;
    a[0] = (int16_t)0xA5A5;
    make_case(&c, a, K, one, N);
    bt.same_a = bt.same_b = 0;
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(r.computed && out[0] == 0xA5 && out[1] == 0xA5);
    CHECK(worker_batch_rerun(w, &bt, &c, &expect, &r) == 0);
    CHECK(r.computed && r.n_unwritten == 0 && r.flags[0] == 0);
    worker_free(w);

    /* skip_last: poison survives where nothing was written */
    snprintf(path, sizeof path, "%s/mutant_skip_last.so", mutant_dir);
    w = start(path);
    init_batch(&bt);
    make_case(&c, a, K, b, N);
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(r.computed && out[2 * (K * N - 1)] == 0xA5 && out[2 * (K * N - 1) + 1] == 0xA5);
    CHECK(worker_batch_rerun(w, &bt, &c, &expect, &r) == 0);
    CHECK(r.computed && r.n_unwritten == 1 && r.first_unwritten == K * N - 1 && r.n_nondet == 0);
    /* out_restored: after a clean first run the worker trusts the caller's
     * poison and does not fill; after anything else it fills. The last
     * element, which skip_last never writes, shows which happened. */
    const size_t last = 2 * (K * N - 1);
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0); /* clean, after the rerun */
    out[last] = out[last + 1] = 0x77; /* not the poison: a caller that lied */
    bt.out_restored = 1;
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(r.computed && out[last] == 0x77 && bt.out_restored == 0); /* no fill: trusted */
    out[last] = out[last + 1] = 0x77;
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0); /* not restored: filled */
    CHECK(r.computed && out[last] == 0xA5);
    CHECK(worker_batch_rerun(w, &bt, &c, &expect, &r) == 0);
    out[last] = out[last + 1] = 0x77;
    bt.out_restored = 1; /* after a second run: filled all the same */
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(r.computed && out[last] == 0xA5);
    out[last] = out[last + 1] = 0x77;
    worker_stop(w);
    bt.out_restored = 1; /* after a restart: filled */
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(r.computed && out[last] == 0xA5);
    worker_free(w);

    /* nondeterministic: every second call flips a bit of C[0] */
    snprintf(path, sizeof path, "%s/mutant_nondeterministic.so", mutant_dir);
    w = start(path);
    init_batch(&bt);
    CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
    CHECK(worker_batch_rerun(w, &bt, &c, &expect, &r) == 0);
    CHECK(r.computed && r.n_nondet == 1 && r.first_nondet == 0 && r.flags[0] == WORKER_ELEM_NONDET);
    worker_free(w);

    /* abnormal ends, then a fresh worker */
    static const struct {
        const char *name;
        uint32_t outcome;
    } bad[] = {{"crash_int_min", WORKER_OUT_CRASH},
               {"writes_input", WORKER_OUT_INPUT_MUTATED},
               {"oob_write", WORKER_OUT_OOB_WRITE}};
    for (size_t m = 0; m < sizeof bad / sizeof bad[0]; m++) {
        snprintf(path, sizeof path, "%s/mutant_%s.so", mutant_dir, bad[m].name);
        w = start(path);
        init_batch(&bt);
        int16_t zb[N];
        memcpy(zb, b, sizeof zb);
        zb[5] = 0; /* x / 0: crash_int_min traps */
        make_case(&c, a, K, zb, N);
        CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
        CHECKF(r.outcome == bad[m].outcome, "%s: outcome %s", bad[m].name,
               worker_outcome_name(r.outcome));
        if (m == 0) { /* the next batch, without a zero divisor, runs in a new worker */
            make_case(&c, a, K, b, N);
            bt.same_a = bt.same_b = 1; /* ignored: the child held the memory writable */
            CHECK(worker_batch_run(w, &bt, &c, &expect, &r, &out) == 0);
            CHECK(r.outcome == WORKER_OUT_OK && r.computed && right(out, a, K, b, N) &&
                  worker_spawns(w) == 2);
        }
        worker_free(w);
    }
    worker_result_free(&r);
    return check_done("test_worker_batch");
}
