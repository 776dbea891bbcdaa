/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/resume.h: taking up an interrupted run again, for
 * `divergence certify --resume` and `divergence fuzz --resume`.
 *
 * A run killed or failed half way stays in the store as 'incomplete'
 * (store_finish_run, or store_mark_stale_runs at the next writable open).
 * --resume continues the latest incomplete run of the same kind whose
 * recorded command line equals this one (but for --resume, --no-progress,
 * --pin, --no-pin and fuzz's --jobs N, which change nothing in what is
 * judged) and whose
 * plugin build (name, version, SHA-256) is this one. What was committed is
 * kept: certify skips the claims whose certificate the run holds, fuzz
 * starts at the number of cases its counts hold and knows the signatures
 * it has seen.
 */
#ifndef HARNESS_RESUME_H
#define HARNESS_RESUME_H

#include <stddef.h>
#include <stdint.h>
#include "harness/store/store.h"

/* How a word of a run's command line counts for --resume. */
#define RESUME_FLAG_JUDGED      0 /* part of what is judged: in the key */
#define RESUME_FLAG_SPEED       1 /* speed or display only: --resume,
                                     --no-progress, --pin, --no-pin */
#define RESUME_FLAG_SPEED_VALUE 2 /* the same, with a value: --jobs N,
                                     --seconds N (a session's budget) */

/* The kind of the len bytes at word (not NUL-terminated). */
int resume_flag_kind(const char *word, size_t len);

/* 1 when two recorded command lines (runs.args) ask for the same run: their
 * words, separated by spaces, are equal but for the RESUME_FLAG_SPEED ones
 * (and the values of RESUME_FLAG_SPEED_VALUE ones). The keys written since
 * the command line became the resume key (harness/cli/cli.h, cli_run_key)
 * hold no such word; older ones, the whole command line, do: both compare
 * as the same run. */
int resume_args_equal(const char *a, const char *b);

/*
 * Finds the latest incomplete run of `kind` with command line `args` and
 * makes it this process's again (store_resume_run). The plugin build at
 * plugin_path (name, version: its descriptor's; sha256: the file's, 64
 * lower-case hex digits, hashed by the caller) must be the one the run
 * recorded; a run killed before it recorded any is linked to this one.
 * Returns 1 with *run_id, 0 when there is no such run, -1 on an
 * error (the run found used another build; the store failed) with the
 * reason in err (errlen bytes, NUL-terminated).
 */
int resume_take(store *db, const char *kind, const char *args, const char *name,
                const char *version, const char *plugin_path, const char *sha256,
                int64_t *run_id, char *err, size_t errlen);

/* One certificate a run holds. */
typedef struct resume_certificate {
    uint32_t variant, dtype; /* DVG_VARIANT_*, DVG_DTYPE_* */
    char verdict[96];
    uint64_t cases, elements;
} resume_certificate;

/* Calls fn for each certificate of (run, implementation). 0 or -1 (the
 * store's error, or fn's non-zero return). */
int resume_certificates(store *db, int64_t run, const char *implementation,
                        int (*fn)(void *ctx, const resume_certificate *c), void *ctx);

/* Cases a run's counts hold (the sum of its 'match' rows' cases). */
int resume_cases(store *db, int64_t run, uint64_t *cases);

/* Calls fn for each signature the run saw: variant, dtype, class name and
 * operand class ("" for a whole-case finding). 0 or -1. */
int resume_signatures(store *db, int64_t run,
                      int (*fn)(void *ctx, uint32_t variant, uint32_t dtype, const char *cls,
                                const char *operand_class),
                      void *ctx);

#endif /* HARNESS_RESUME_H */
