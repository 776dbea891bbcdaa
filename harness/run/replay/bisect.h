/* SPDX-License-Identifier: MIT */
/*
 * harness/run/replay/bisect.h: regression ranges, as ClusterFuzz gives them
 * (`divergence bisect`). A signature's first reproducer is replayed
 * (harness/run/replay/replay.h, the code `divergence replay` runs) on builds of
 * its implementation chosen by bisection, each build in its own
 * sandboxed worker, and what it finds is stored (store_set_range): the
 * last build without the signature and the first with it (the regression
 * range) and, where a later build no longer shows it, the last build with
 * it and the first without it (the fixed range).
 *
 * The search (bisect_search) starts from the anchor, a build that shows
 * the signature: the build its reproducer was recorded with when the
 * series holds it, else the newest build that shows it (the newest first,
 * then the others in halving order). On each side of the anchor it halves
 * the interval between the nearest build known to lack the signature and
 * the nearest known to show it, so a range of n builds costs about
 * log2(n) + 1 replays, the anchor's included; a replay is never repeated.
 *
 * Histories that are not monotonic (a signature that comes, goes and
 * comes back): bisection assumes one change on each side of the anchor.
 * Each range it stores is still a real change - the build before it and
 * the build after it were both replayed and differ (or the range starts
 * before the first build) - but other changes may lie among the builds
 * it did not replay. Where the replays it made already contradict one
 * change per side (a build without the signature between the regression
 * range and the anchor, or one with it before the range or after the
 * fixed range), the ranges are marked non-monotonic with the replays that
 * say so. With `all` every build is replayed (n replays): the ranges are
 * then the edges of the anchor's own run of builds that show it, and any
 * other run of builds showing it marks them non-monotonic.
 */
#ifndef HARNESS_BISECT_H
#define HARNESS_BISECT_H

#include <stdint.h>
#include <stdio.h>
#include "harness/run/engine/isolation.h"
#include "harness/store/store.h"

/* The most builds in one series. */
#define BISECT_MAX_BUILDS 4096

/* ------------------------------------------------------------------------
 * The search, over any test of presence (tested without plugins).
 * ---------------------------------------------------------------------- */

/* Whether build `build` (0 .. n-1, in series order) shows the signature:
 * *present 1 or 0. Returns 0, or -1 on an error (the search stops). */
typedef int (*bisect_probe_fn)(void *ctx, uint32_t build, int *present);

/* Marks of bisect_search.seen. */
#define BISECT_UNSEEN  (-1)
#define BISECT_ABSENT  0
#define BISECT_PRESENT 1

typedef struct bisect_search {
    uint32_t n;             /* builds in the series */
    int32_t anchor;         /* a build that shows it; -1: none of them does */
    int32_t reg_before;     /* the regression range: the last build without
                               it (-1: the range starts before the first
                               build) ... */
    int32_t reg_after;      /* ... and the first build with it */
    int32_t fix_before;     /* the fixed range: the last build with it ... */
    int32_t fix_after;      /* ... and the first without it; -1: no build
                               after the anchor lacks it (not fixed) */
    uint32_t reg_replays;   /* replays the regression range took (those
                               that found the anchor included) */
    uint32_t fix_replays;   /* likewise, the fixed range */
    uint32_t replays;       /* replays in all (each build at most once) */
    int monotonic;          /* 0: the replays saw it come and go more than
                               once */
    int8_t *seen;           /* n marks, BISECT_*: what each build showed */
} bisect_search;

/*
 * Searches a series of n builds (1 .. BISECT_MAX_BUILDS): `hint` is the
 * build the signature was recorded with (-1: not in the series), `all`
 * 1 replays every build. Fills *b (free it with bisect_search_free);
 * b->anchor is -1 when no build shows the signature (no range then).
 * Returns 0, or -1 when a probe failed or memory ran out.
 */
int bisect_search_run(bisect_search *b, uint32_t n, int32_t hint, int all, bisect_probe_fn probe,
                      void *ctx);

/* Frees b->seen. Accepts a zeroed search. */
void bisect_search_free(bisect_search *b);

/* ------------------------------------------------------------------------
 * Bisecting signatures of a store.
 * ---------------------------------------------------------------------- */

/* A series of builds of one implementation, in order: paths (each
 * NUL-terminated, owned by the series). */
typedef struct bisect_series {
    char **paths;
    uint32_t n;
} bisect_series;

/* The *.so files of folder `dir` in version order of their names (as `ls
 * -v` sorts them: acme-1.9.so before acme-1.10.so), or, when `order` is
 * given, the files it lists one per line (names in dir, or paths; blank
 * lines and lines starting with '#' skipped), in its order. Returns 0, or
 * -1 with the reason in err. */
int bisect_series_from_dir(bisect_series *s, const char *dir, const char *order, char *err,
                           size_t errlen);

/* Frees the paths. Accepts a zeroed series. */
void bisect_series_free(bisect_series *s);

/* One bisection command: the store, the builds' workers (one per build,
 * started on its first replay, kept for the next signature). */
typedef struct bisect_session bisect_session;

/* Opens a session on `db` (writable, the caller's; it must outlive the
 * session). all: replay every build (see above). Messages go to out
 * (what was found) and err (problems). Returns 0, or -1 (out of memory). */
int bisect_open(bisect_session **out_session, store *db, int all, FILE *out, FILE *err);

/* How the session's builds are opened: open()'s `config` (NULL: the
 * config of each signature's implementation) and the isolation options
 * `iso` (NULL: the defaults), both borrowed (they must outlive the
 * session), for every build replayed from now on (replay_open). */
void bisect_plugin_options(bisect_session *bs, const char *config, const run_isolation *iso);

/*
 * Bisects signature `signature_id` over `series` (NULL: the builds of its
 * implementation that runs of the store loaded, in the order of the
 * first run that loaded each; a build no longer at its recorded path with
 * its recorded SHA-256 is left out, saying so) and stores its ranges
 * (removing a fixed range a newer bisection no longer finds). Prints the
 * replays and the ranges with their replay counts. Returns 0 when ranges
 * were stored, 1 when no build of the series shows the signature
 * (nothing stored), -1 on an error (a hazard of a plugin set, a build of
 * another implementation or one that does not load, the store; on err).
 */
int bisect_signature(bisect_session *bs, int64_t signature_id, const bisect_series *series);

/* The signatures first found by a run after `run`, then those fixed by
 * one, ids ascending, each once, into a dvg_malloc'ed array *ids of *n
 * (the caller dvg_frees it). Returns 0, or -1 with the store's message. */
int bisect_signatures_since(store *db, int64_t run, int64_t **ids, uint32_t *n);

/* Closes the workers and frees the session. Accepts NULL. */
void bisect_close(bisect_session *bs);

#endif /* HARNESS_BISECT_H */
