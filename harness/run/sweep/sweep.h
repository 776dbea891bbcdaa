/* SPDX-License-Identifier: MIT */
/*
 * harness/run/sweep/sweep.h: `divergence sweep`. Every operand pair of a small dtype
 * (f16, bf16, i16, u16: 2^32 pairs; i8, u8: 2^16; i4, u4: 256) goes
 * through a plugin in large batches, in isolated workers on every core, and
 * is judged against the oracle. For f32 and f64, where that is impossible,
 * the structured space instead: every pair of the edge table (boundary
 * exponents x significand patterns, TestFloat's construction) plus a
 * stated number of seeded random pairs.
 *
 * The space is a product of rows: a row is one fixed operand against every
 * value of the other (exhaustive), against every table value (structured),
 * or against its own random values (the random pairs). Rows are grouped
 * into chunks, chunks into batches. A batch is one case in the worker's
 * batch mode (harness/worker/batch.h), shaped for the variant:
 *   numpy broadcasting     A (k, 1) rows, B (n) the values: n + k operands;
 *   ONNX legacy broadcast=1, OpenVINO pdpd (axis 0)
 *                          A (k, n) the values, B (k) rows;
 *   equal shapes           A (k * n) rows repeated, B (k * n) the values;
 * the random pairs always as equal shapes. The operand that holds the
 * values is copied into the worker once, not per batch.
 *
 * Judging: each row of the output is checked in bulk against the exact
 * answers (oracle/rowcheck.h); only the elements it lists - differences,
 * and the elements whose rules are not IEEE's - go through the full oracle
 * and the verdict (verdict_case on a 1-D case of just those pairs), so the
 * counts are those of judging every element in full (tests/sweep checks
 * that). Output elements equal to the poison pattern, and batch 0,
 * nondet_every, 2 * nondet_every, ... of every chunk (so at least one per
 * chunk), make the worker run the batch again to tell unwritten elements
 * and nondeterminism. Those batches, and only those, also compare A and B
 * with what was sent: the worker maps them read-only, so a kernel that
 * writes them faults; the comparison is for a plugin that writes the
 * shared memory through its descriptor, and reading both operands after
 * every batch would cost a third of an equal-shapes sweep. Where the bulk
 * check's vector kernel can (oracle_rowcheck_repoison_fused), it writes
 * the poison back over each element as it reads it, and the listed ones
 * get it back once judged in full, so the worker runs the next batch into
 * an output that needs no fill (worker_batch.out_restored); a batch that
 * held the poison runs its first run again before the second.
 *
 * Store: one run of kind 'sweep', one row in `sweeps`. Each chunk is
 * committed in one transaction with its counts, ULP histogram, counts per
 * class and operand class, one finding per signature with a small
 * reproducer (a 64-pair window around the first element, same layout), and
 * its place in `sweep_chunks`. (Counts per class are always complete; per
 * operand class, at most 64 signatures per batch are itemised - the
 * verdict's limit per case - which only a kernel wrong in more ways than
 * that reaches.) A sweep killed at any point continues with
 * --resume (same settings, same plugin build): the chunks done are skipped,
 * a chunk that was under way is done again, and the final counts are those
 * of an uninterrupted sweep.
 *
 * Crashes, hangs and other abnormal ends of a batch are findings of the
 * batch (the first crash narrowed to one pair); its pairs are counted as
 * not judged; after `max_failures` such batches the sweep stops.
 */
#ifndef HARNESS_SWEEP_H
#define HARNESS_SWEEP_H

#include <stdint.h>
#include <stdio.h>
#include "harness/judge/verdict.h"
#include "harness/run/engine/isolation.h"
#include "harness/worker/worker.h"

#define SWEEP_MAX_ATTRS 8

/* The default largest size tier of a sweep's shape paths: 2^12 + 1
 * elements (the sweep's own batches are the large cases). */
#define SWEEP_PATHS_TIER 12u

typedef struct sweep_options {
    const char *plugin_path;    /* required */
    const char *config;         /* open() config; NULL: "" */
    const char *db_path;        /* NULL: STORE_DEFAULT_PATH */
    const char *args;           /* the resume key (cli_run_key), runs.args */
    const char *resume_command; /* what continues the run when a signal
                                   stops it (cli_resume_command) */
    uint32_t dtype;             /* DVG_DTYPE_*: f16 bf16 i16 u16 i8 u8 i4 u4 f32 f64 */
    uint32_t variant;           /* DVG_VARIANT_*; 0: the plugin's first claim with dtype */
    const char *attr_key[SWEEP_MAX_ATTRS], *attr_value[SWEEP_MAX_ATTRS];
    uint32_t n_attrs;           /* --attr k=v, applied over the variant's defaults */
    uint32_t jobs;              /* jobs, a worker each (the run engine's);
                                   0: one per CPU the process may use */
    uint32_t shard_index, shard_count; /* chunks c with c % count == index */
    int resume;                 /* 1: continue the newest unfinished sweep of these settings */
    uint64_t random_pairs;      /* f32/f64: random pairs besides the table (multiple of 256) */
    uint64_t seed;              /* of the random pairs */
    verdict_profile profile;
    int progress;               /* 1: progress and ETA on stderr */
    uint32_t max_failures;      /* batches that crash, hang, ... before the sweep stops */
    uint32_t batch_pairs;       /* target pairs per batch; 0: 2^19 */
    uint32_t nondet_every;      /* batches 0, N, 2N, ... of a chunk run twice; 0: never */
    uint32_t shape_tier;        /* the shape paths after the pairs, up to 2^K + 1
                                   elements (sweep/paths.c); 0: none */
    int pin;                    /* 1: each job and its worker on one CPU (jobs <= CPUs);
                                   measured slower here, so off by default */
    uint32_t stop_after_chunks; /* tests: stop (as if killed) after this many chunks; 0: no */
    run_isolation iso;          /* the workers' timeout, limits, sandbox,
                                   environment */
} sweep_options;

/* Defaults: one job per core, seed 1, 2^24 random pairs, 10 s timeout,
 * profile exact, 8 failing batches, 2^19 pairs per batch, a nondeterminism
 * sample every 64 batches of a chunk (a chunk has 32 of 2^19 pairs), no
 * pinning, progress when stderr is a terminal. */
void sweep_options_default(sweep_options *o);

/* Runs the sweep and prints its summary on `out`. Returns 0 when every
 * pair conforms, 1 when not (or the sweep stopped on failures), 2 on usage
 * or environment errors. */
int sweep_run(const sweep_options *o, FILE *out, FILE *err);

/* ------------------------------------------------------------------------
 * The judging of one batch, without a worker (for tests and benchmarks).
 * ---------------------------------------------------------------------- */

/* One batch as the sweep sees it: k rows of n pairs. Row i pairs fixed[i]
 * (A when row_is_a, else B) with cols[i * col_stride + j], j < n; output
 * element i * n + j. Elements are packed as in tensors. */
typedef struct sweep_view {
    const oracle_rules *rules;
    uint32_t k, n;
    const uint64_t *fixed;      /* k fixed operands */
    int row_is_a;
    const uint8_t *cols;        /* the other operand's values */
    uint64_t col_stride;        /* elements between rows of cols: 0 (shared) or n */
    uint64_t poison;            /* the poison pattern of run 1 */
    int every_value;            /* 1: each row of cols holds every value of
                                   the dtype in ascending bit order (an
                                   exhaustive sweep; oracle_row.every_value) */
    uint8_t *repoison;          /* NULL, or the output itself, writable:
                                   judged without flags, every element is
                                   set back to `poison` once read, so the
                                   worker need not fill the output before
                                   the next batch (oracle_row.repoison);
                                   not when the batch holds the poison
                                   (*poison set) */
} sweep_view;

typedef struct sweep_judge sweep_judge;

/* What the judging of a batch adds up, per signature (class, operand
 * classes): elements, and the first example. */
#define SWEEP_WINDOW 64

typedef struct sweep_signature {
    uint32_t cls, operand_a, operand_b; /* ORACLE_OPERAND_COUNT: case-level */
    int accepted;
    uint64_t elements;
    verdict_example ex;         /* the first example; ex.index: output
                                   element of its batch (UINT64_MAX: the
                                   whole batch) */
    /* Element findings: the first example's row and the window of at most
     * SWEEP_WINDOW aligned values around its column, for a small
     * reproducer in the same layout. */
    uint64_t row_value;
    int row_is_a;
    uint64_t window[SWEEP_WINDOW];
    uint32_t window_n, window_at;
    uint32_t row;               /* row of the batch, column: window start + at */
    uint32_t col;
} sweep_signature;

/* A judge with room for batches of up to `max_pairs` pairs. NULL on
 * allocation failure. */
sweep_judge *sweep_judge_new(uint64_t max_pairs);
void sweep_judge_free(sweep_judge *j);

/*
 * Judges one batch: `out` the output (run 1), `flags` NULL or per-element
 * WORKER_ELEM_* bits with `out2` (run 2) from a second run; `wr` (may be
 * NULL) the worker's result, whose leaked process state (fp, signals) is
 * judged as verdict_case judges it. A row with a flagged element is
 * judged in full. Adds the batch's elements and findings to *t (t->cases
 * + 1) and its signatures to the judge's list (sweep_judge_signatures).
 * t->subnormal_results (read only for the note on a plugin that declares
 * flush-to-zero but delivers subnormals) is counted when `declared` has
 * DVG_DEV_FLUSH_SUBNORMAL_OUTPUT and left as it was otherwise.
 * *poison receives the number of output elements equal to v->poison;
 * when flags is NULL and that is not 0, nothing is added: the batch must
 * run again (worker_batch_rerun) and be judged with flags. Returns 0, or
 * -1 on allocation failure.
 */
int sweep_judge_batch(sweep_judge *j, const sweep_view *v, const uint8_t *out,
                      const uint8_t *flags, const uint8_t *out2, const worker_result *wr,
                      const verdict_profile *prof, uint64_t declared, int64_t int_div_zero_value,
                      verdict_tally *t, uint64_t *poison);

/* The signatures added since the last sweep_judge_clear: *n receives their
 * count. Owned by the judge. */
const sweep_signature *sweep_judge_signatures(const sweep_judge *j, uint32_t *n);
void sweep_judge_clear(sweep_judge *j);

/* Elements the last sweep_judge_batch sent to the full oracle. */
uint64_t sweep_judge_listed(const sweep_judge *j);

#endif /* HARNESS_SWEEP_H */
