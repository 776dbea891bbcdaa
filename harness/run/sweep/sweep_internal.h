/* SPDX-License-Identifier: MIT */
/*
 * harness/run/sweep/sweep_internal.h: what the files of `divergence sweep` share
 * (private to harness/run; the contract is harness/run/sweep/sweep.h):
 *   sweep/space.c   the space: rows, chunks, batches, the edge table
 *   sweep/tally.c   a chunk's counts, and their text in sweep_chunks.tally
 *   sweep/judge.c   the judging of one batch in bulk (sweep_judge_*)
 *   sweep/batch.c   building and running one batch, its failures
 *   sweep/record.c  recording a finished chunk in the store
 *   sweep/jobs.c    the jobs (a worker each) and their chunks: the run
 *                   engine's policy (a unit per chunk, committed as it
 *                   comes), the stop after too many failing batches
 *   sweep/paths.c   the shape paths, after the chunks
 *   sweep/sweep.c   sweep_run: set-up, the run session, progress, summary
 */
#ifndef HARNESS_SWEEP_INTERNAL_H
#define HARNESS_SWEEP_INTERNAL_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/cases/divcase.h"
#include "harness/run/engine/engine.h"
#include "harness/run/engine/recorder.h"
#include "harness/run/engine/session.h"
#include "harness/run/sweep/sweep.h"
#include "harness/store/store.h"
#include "harness/worker/batch.h"
#include "harness/worker/worker.h"

#define MAX_SIGNATURES 512      /* per chunk and job; more are counted, not itemised */
#define DEFAULT_BATCH_PAIRS (1u << 19)
#define RANDOM_ROW 256u         /* pairs per random row */
#define RANDOM_CHUNK_ROWS 4096u /* random rows per chunk (2^20 pairs) */
#define MAX_HANGS 1             /* hangs before the sweep stops (each costs a timeout) */

/* The layouts of a batch (sweep.h), and their names in the plan. */
enum { L_NUMPY, L_AXIS0, L_FLAT };
extern const char *const sweep_layout_names[];

/* ---- the space (sweep/space.c) ------------------------------------------ */

/* The pairs of a sweep: product rows (one fixed operand against every
 * value, or every table value), then random rows, grouped into chunks. */
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

/* Sizes the space of dtype: rows, chunks, batches; the edge table for
 * f32 and f64. 0, or -1 with the reason in err. sweep_space_free frees. */
int sweep_space_init(space *sp, uint32_t dtype, uint64_t random_pairs, uint64_t seed,
                     uint32_t batch_pairs, int layout, char *err, size_t errlen);
void sweep_space_free(space *sp);

/* Rows and pairs of chunk c. */
void sweep_chunk_rows(const space *sp, uint64_t c, int *random, uint64_t *first,
                      uint64_t *rows, uint32_t *n);
uint64_t sweep_chunk_pairs(const space *sp, uint64_t c);

/* Value `i` of the product's other operand (and a product row's fixed
 * operand). */
uint64_t sweep_product_value(const space *sp, uint64_t i);

/* 1 when chunk c belongs to the shard of o. */
int sweep_chunk_in_shard(const sweep_options *o, uint64_t c);

/* ---- counts (sweep/tally.c) ---------------------------------------------- */

/* Counts of one chunk (or of the whole sweep). */
typedef struct counts {
    verdict_tally t;
    uint64_t batches[ORACLE_CLASS_COUNT]; /* batches in which a class occurred */
    uint64_t failures, hangs, reruns, unjudged, listed;
} counts;

void sweep_counts_add(counts *to, const counts *from);

/* The text a chunk's counts are kept as in sweep_chunks.tally. */
void sweep_counts_format(const counts *c, char *buf, size_t len);

/* Parses sweep_counts_format's text; 0, or -1 when it is malformed. */
int sweep_counts_parse(const char *text, counts *c);

/* ---- judging (sweep/judge.c) ---------------------------------------------- */

/* Adds one finding of a batch (index: batch element, or UINT64_MAX) to
 * the judge's signature list. */
void sweep_judge_add_signature(sweep_judge *j, const sweep_view *v, const verdict_example *ex,
                               uint64_t index);

/* ---- the jobs and what they share ------------------------------------------ */

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
} job;

/* What a chunk gave, handed from its job to the commit. */
typedef struct chunk_result {
    uint64_t c;                  /* the chunk */
    int random;                  /* a chunk of the random pairs */
    counts chunk;
    sweep_signature *sigs;       /* the judge's signatures, copied */
    uint32_t n_sigs;
    case_finding cf[MAX_CASE_FINDINGS]; /* moved from the job */
    uint32_t n_cf;
    uint64_t added;              /* its pairs in pairs_under_way */
} chunk_result;

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
    uint64_t poison[2];         /* the batches' poison patterns (run 1, run 2) */
    int64_t int_div_zero_value;
    run_session session;         /* the run in the store */
    store *db;                   /* session.db */
    int64_t run_id, sweep_id;    /* session.run_id, and the sweep's row */
    char plan[1024];
    char attrs_text[256];
    char layout_text[256];
    uint8_t *done;               /* per chunk: 1 done (before or now) */
    uint64_t shard_chunks, shard_pairs;
    job *jobs;                   /* the jobs (the engine's states) */
    uint32_t n_jobs;
    uint64_t max_pairs;          /* a batch's, for the jobs' buffers */
    uint64_t *units;             /* the chunks this session runs, in order */
    uint64_t n_units;
    double t0, last_tick;        /* progress */
    pthread_mutex_t lock;
    /* guarded by lock */
    uint64_t next_chunk;
    counts total;                /* chunks done, resumed ones included */
    uint64_t pairs_done, pairs_resumed;
    uint64_t pairs_under_way;    /* of the chunks in progress, for progress */
    int failed;                  /* harness or store error */
    int stopped;                 /* too many failing batches */
    int interrupted;             /* the signal that stopped the jobs, or 0 */
    int narrowed;                /* a crash was narrowed already */
    const char *stop_reason;
    uint64_t new_signatures;     /* the commits' */
    /* the shape paths (sweep/paths.c), after the jobs */
    int paths_done;              /* recorded, now or by an earlier session */
    int paths_walked;            /* walked by this session */
    counts paths;                /* what this session's walk counted */
};


/* Builds batch `first`.. of chunk c (k rows of n pairs) into the job's
 * buffers and the case/view; sets bt.same_a / same_b (sweep/batch.c). */
void sweep_build_batch(job *jb, uint64_t c, int random, uint64_t first, uint32_t k, uint32_t n,
                       divcase *dc, sweep_view *v);

/* Runs and judges one batch. 0, or -1 on a harness error (sweep/batch.c). */
int sweep_run_batch(job *jb, const divcase *dc, const sweep_view *v);

/* Records a finished chunk: its counts, histogram, operand counts,
 * findings and place, in one transaction (the engine's commit, the store's
 * single writer). 0 or -1 (sweep/record.c). */
int sweep_commit_chunk(shared *sh, const chunk_result *r);

/* (sweep/record.c) A finding of the sweep into recorder rec (recorder_departure), its note
 * `said` preceded by the CPU it was seen under when that is not the
 * native one (isolation_cpu_note: replay runs it there). The recorder's
 * handle, or -1 (memory). */
long sweep_record(const shared *sh, recorder *rec, trial *t, const divcase *c,
                  const verdict_example *ex, const char *said);

/* A job: its worker started (the plugin loaded) and its buffers for
 * batches of up to sh->max_pairs pairs. 0, or -1 with the reason on
 * sh->err; sweep_job_free frees what was made either way. */
int sweep_job_start(shared *sh, job *jb, uint32_t index, int cpu);
void sweep_job_free(job *jb);

/* The run engine's policy: a unit per chunk of sh->units (sweep/jobs.c). */
int sweep_engine_job_start(void *ctx, engine_job *ej);
void sweep_engine_job_free(void *ctx, engine_job *ej);
int sweep_chunk_run(void *ctx, engine_job *ej, uint64_t u, void **result);
int sweep_chunk_commit(void *ctx, uint64_t u, void *result);
void sweep_chunk_discard(void *ctx, void *result);
int sweep_stop(void *ctx);

/* Judges the shape-path cases of the sweep's (variant, dtype) in worker w
 * and records them as chunk sp.n_chunks, unless an earlier session did or
 * that chunk is another shard's. *secs: the time it took. 0, or -1 with the
 * reason on sh->err (sweep/paths.c). */
int sweep_walk_paths(shared *sh, worker *w, double *secs);

#endif /* HARNESS_SWEEP_INTERNAL_H */
