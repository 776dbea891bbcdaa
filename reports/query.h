/* SPDX-License-Identifier: MIT */
/*
 * reports/query.h: the fixed questions `divergence query` asks the store,
 * printed as aligned tables or JSON. Each is read-only SQL with every
 * value a bound parameter (store_select).
 *
 *   runs                  every run: kind, status, plugins, shards, counts
 *   new --since RUN       the bugs with a signature first found by a run
 *                         after RUN, then those signatures, by bug
 *   bugs [--since RUN]    bugs (signatures grouped, docs/store.md) with a
 *                         signature first found after RUN (0: all)
 *   fixed --since RUN     signatures a run after RUN found fixed
 *   history SIGNATURE     one signature, every run that saw it or
 *                         certified its (implementation, variant, dtype),
 *                         and its regression and fixed ranges (`divergence
 *                         bisect`, schema 7)
 *   regressions --plugin NAME [--since RUN]
 *                         claims that held in one version of NAME and fail
 *                         in the next version certified (by a run after
 *                         RUN)
 *   diff RUN1 RUN2        certificates, signatures and counts that differ
 *
 * `plugin` (NULL: all) narrows runs, new, bugs and fixed to one implementation.
 */
#ifndef REPORTS_QUERY_H
#define REPORTS_QUERY_H

#include <stdint.h>
#include <stdio.h>
#include "harness/store/store.h"

typedef struct query_request {
    const char *name;    /* "runs", "new", "bugs", "fixed", "history", "regressions", "diff" */
    int64_t since;       /* new, fixed; bugs, regressions (0: all) */
    int64_t signature;   /* history */
    int64_t run1, run2;  /* diff */
    const char *plugin;  /* regressions (required); runs, new, fixed (filter) */
    int json;            /* 1: JSON, else tables */
} query_request;

/* 1 when `name` is a query, else 0. */
int query_known(const char *name);

/*
 * Runs the query and prints it to `out`: tables (a title line per
 * section when there are several; "(none)" for an empty one; every text
 * escaped for a terminal) or one JSON object with an array of row objects
 * per section. Returns 0, 1 when what was asked about does not exist (no
 * such signature or run; message in err), or -1 with the store's error in
 * err.
 */
int query_run(store *s, const query_request *q, FILE *out, char *err, size_t errlen);

#endif /* REPORTS_QUERY_H */
