/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/recorder.h: the finding recorder, the one way a
 * command turns what the judge found into the store's findings: example
 * -> finding -> reproducer -> store.
 *
 * A recorder buffers sightings in memory, in the order they are added,
 * and writes them (recorder_write) inside the caller's transaction, so a
 * unit of work is in the store entirely or not at all and the store keeps
 * a single writer. Each job adds to its own recorder (a recorder is driven
 * by one thread at a time); the engine's commit moves or writes them in
 * unit order, so the ids the store gives do not depend on the number of
 * jobs.
 *
 * A sighting is kept whole (with its case) while its signature (plugin or
 * set, class, operand classes) holds fewer than max_whole whole sightings
 * and the whole ones hold less than max_bytes of operands; past that it is
 * only counted: the store then counts it as an occurrence whose
 * reproducer was dropped, as it would have. The first sighting of a
 * signature is always kept whole, and once a sighting is counted for the
 * byte limit every later one is, but a signature's first: so a recorder
 * that takes another's sightings (recorder_take) in order keeps what it
 * would have kept had they been added to it directly.
 */
#ifndef HARNESS_RUN_RECORDER_H
#define HARNESS_RUN_RECORDER_H

#include <stddef.h>
#include <stdint.h>
#include "harness/cases/divcase.h"
#include "harness/judge/verdict.h"
#include "harness/run/engine/trial.h"
#include "harness/store/store.h"

typedef struct recorder_sighting recorder_sighting;
typedef struct recorder_signature recorder_signature;

typedef struct recorder {
    uint32_t max_whole;        /* whole sightings per signature */
    uint64_t max_bytes;        /* operand bytes of whole sightings
                                  (UINT64_MAX: no limit) */
    uint32_t tag;              /* tags the sightings added next (a case's
                                  number in its unit, ...) */
    /* private */
    recorder_sighting *s;
    size_t n, cap;
    recorder_signature *sig;
    size_t n_sig, cap_sig;
    uint64_t bytes;
    int full;
} recorder;

/* An empty recorder with these limits. */
void recorder_init(recorder *r, uint32_t max_whole, uint64_t max_bytes);

/* Empties r (its limits stay). */
void recorder_clear(recorder *r);

/* Frees what r holds. Accepts NULL. */
void recorder_free(recorder *r);

/*
 * A departure from the oracle: the judge's example ex of case c, found in
 * the plugin named `implementation`. With t (the trial that judged c), a
 * large valid case is kept as the single element of the example
 * (trial_reproducer_case); without, c is kept whole and ex->index is its
 * element (UINT64_MAX: the whole case). note NULL: ex->note when it is set.
 * Every string is copied. Returns the sighting's handle (>= 0), or -1 out
 * of memory.
 */
long recorder_departure(recorder *r, const char *implementation, const trial *t,
                        const divcase *c, const verdict_example *ex, const char *note);

/*
 * A portability hazard: every plugin of the set `implementation` ("a|b")
 * conforms at element ex->index of case c but they disagree, class
 * hazard_name(hazard); ex: the element (operand classes, the oracle's
 * answer: crosscheck's hazard example); given: what each plugin gave.
 * Returns the sighting's handle, or -1 out of memory.
 */
long recorder_hazard(recorder *r, const char *implementation, uint32_t hazard, const divcase *c,
                     const verdict_example *ex, const char *given, const char *note);

/* Gives sighting `handle` the earlier calls its departure needs (text,
 * allocated with dvg_malloc, owned by r from now on: the store's
 * reproducers.calls_before, history.h). */
void recorder_set_calls(recorder *r, long handle, char *text);

/* The sightings r holds, and sighting i's tag and example (the judge's,
 * for a departure; for a hazard, its element). */
size_t recorder_count(const recorder *r);
uint32_t recorder_tag(const recorder *r, size_t i);
const verdict_example *recorder_example(const recorder *r, size_t i);
/* 1 when sighting i is a departure (not a hazard). */
int recorder_is_departure(const recorder *r, size_t i);

/*
 * Moves sighting i of `from` into r (its case too), under r's limits.
 * Returns its handle in r, or -1 out of memory. `from` must not be used
 * but for more recorder_take calls and recorder_clear or recorder_free.
 */
long recorder_take(recorder *r, recorder *from, size_t i);

/*
 * Writes what r holds into the store's run `run_id`, inside the caller's
 * open transaction: the whole sightings in the order they were added, then
 * the counted ones (as occurrences without a reproducer). Adds the
 * signatures it created to *new_signatures (may be NULL). 0, or -1 with
 * the store's error (store_errmsg).
 */
int recorder_write(recorder *r, store *db, int64_t run_id, uint64_t *new_signatures);

/* After recorder_write: the signature id of the sighting with this
 * handle (0: none, or not written). */
int64_t recorder_signature_id(const recorder *r, long handle);

/* After recorder_write: the signature id of the first departure of class
 * cls that r wrote (0: none). */
int64_t recorder_first_of_class(const recorder *r, uint32_t cls);

#endif /* HARNESS_RUN_RECORDER_H */
