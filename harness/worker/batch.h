/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/batch.h: batch mode of a worker (sweeps; since issue 7).
 *
 * A sweep sends thousands of large cases of one layout. worker_batch_run
 * runs one of them with less work than worker_run and the same isolation
 * (guard pages, read-only inputs, poison, deadlines, fault classes):
 *  - operand bytes are copied into shared memory only when they changed:
 *    with same_a (same_b) set, A (B) keeps the bytes of the previous call
 *    with this batch state (same layout, same worker);
 *  - output_shape is asked once per child and case layout, not per call;
 *  - compute runs once, into the output filled with poison[0], and the
 *    output stays in shared memory: *out points at it until the next call
 *    on the worker, for the caller to read in place.
 * The caller, who compares every element anyway, looks for poison[0]
 * there. When some element holds it - unwritten, or a genuine result that
 * happens to equal the poison - or when it wants a nondeterminism sample,
 * worker_batch_rerun runs compute a second time into poison[1] and fills
 * r->out1 (run 1), r->out2 (run 2) and r->flags exactly as worker_run
 * does. Poison patterns that no correct kernel produces (a signalling NaN
 * for floats) keep reruns rare.
 *
 * A worker that runs batches runs nothing else between two calls that set
 * same_a or same_b (worker_run reuses the same shared memory).
 */
#ifndef HARNESS_WORKER_BATCH_H
#define HARNESS_WORKER_BATCH_H

#include <stdint.h>
#include "divergence/iut.h"
#include "harness/cases/divcase.h"
#include "harness/worker/worker.h"
#include "oracle/shape.h"

typedef struct worker_batch {
    /* Set before the first call; read by every call. */
    uint64_t poison[2];   /* element bits the output holds before run 1 and
                             run 2 (zero-extended; i4/u4: the pattern byte);
                             they must differ */
    int32_t check_inputs; /* 1: compare A and B with the case's bytes after
                             each run (writes that raised no signal) */
    /* Set before each call. */
    int32_t same_a, same_b; /* 1: A's (B's) bytes are those of the previous
                               call with this state */
    int32_t out_restored;   /* 1: since the last call the caller has put
                               poison[0] back into every element of its
                               output (sweep_view.repoison): when that call
                               was a first run of this layout that left the
                               bytes around the output untouched and nothing
                               else ran on w since, worker_batch_run does not
                               fill the output again. Every call resets it */
    /* private: what the worker keeps between calls */
    uint64_t spawn_;
    uint64_t fresh_spawn_;  /* (spawn, request) of the last clean first run */
    uint32_t fresh_seq_;    /* 0: none */
    int32_t shape_ok_, have_operands_;
    uint32_t variant_, dtype_;
    dvg_attrs attrs_;
    oracle_shape a_shape_, b_shape_, out_shape_;
    uint64_t region_[18];
} worker_batch;

/*
 * Runs case `c` (valid: the oracle planned it, `expect` its output shape)
 * once, as above. Returns 0 with *r filled as worker_run fills it -
 * r->computed is 1 when compute returned DVG_OK, and then *out points at
 * the r->nbytes output bytes in shared memory, valid until the next call on
 * w (the caller may write them: out_restored); r->out1, r->out2 and
 * r->flags are not filled - or -1 on a harness
 * error (worker_errmsg). Starts the child when needed, as worker_run does.
 */
int worker_batch_run(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                     worker_result *r, uint8_t **out);

/*
 * After worker_batch_run of the same (w, bt, c, expect) left r->computed
 * at 1: copies run 1's output to r->out1, runs compute again into
 * poison[1], and fills r->out2, r->flags, n_unwritten and n_nondet as
 * worker_run does (r->computed stays 1 when run 2 returned DVG_OK; any
 * other end of run 2 is reported in r as worker_run reports it). Returns 0,
 * or -1 on a harness error.
 */
int worker_batch_rerun(worker *w, worker_batch *bt, const divcase *c, const oracle_shape *expect,
                       worker_result *r);

#endif /* HARNESS_WORKER_BATCH_H */
