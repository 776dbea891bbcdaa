/* SPDX-License-Identifier: MIT */
/*
 * bisect_search_run (harness/run/replay/bisect.h) over every history of up to 10
 * builds (every subset of builds that show a signature) and every hint:
 *  - a monotonic history (one run of builds that show it): the ranges are
 *    exactly its edges, the history is called monotonic, and each range
 *    takes at most floor(log2(n)) + 2 replays when the hint shows it;
 *  - any history: no build is replayed twice; each range found is a real
 *    change (the builds at its ends were replayed and differ, the
 *    regression range's first end may lie before the first build, the
 *    fixed range's last end after the newest); "non-monotonic" is said
 *    only of histories that are not;
 *  - with `all`: every build replayed once, the ranges are the edges of
 *    the anchor's own run, and non-monotonic is said exactly of the
 *    histories with more than one run;
 *  - no build shows it: no anchor.
 */
#include <string.h>

#include "check.h"
#include "harness/run/replay/bisect.h"

typedef struct truth {
    uint32_t mask;      /* bit i: build i shows it */
    uint32_t calls[16]; /* probes per build */
    int fail_at;        /* a probe of this build fails (-1: none) */
} truth;

static int probe(void *ctx, uint32_t build, int *present)
{
    truth *t = ctx;
    t->calls[build]++;
    if ((int)build == t->fail_at)
        return -1;
    *present = (t->mask >> build) & 1u;
    return 0;
}

static int runs_of(uint32_t mask, uint32_t n)
{
    int runs = 0;
    for (uint32_t i = 0; i < n; i++)
        runs += ((mask >> i) & 1u) && (i == 0 || !((mask >> (i - 1)) & 1u));
    return runs;
}

static uint32_t floor_log2(uint32_t n)
{
    uint32_t k = 0;
    while ((n >> (k + 1)) != 0)
        k++;
    return k;
}

static int shows(uint32_t mask, int32_t i)
{
    return (mask >> i) & 1u;
}

static void one(uint32_t n, uint32_t mask, int32_t hint, int all)
{
    truth t;
    bisect_search b;
    memset(&t, 0, sizeof t);
    t.mask = mask;
    t.fail_at = -1;
    int rc = bisect_search_run(&b, n, hint, all, probe, &t);
    CHECKF(rc == 0, "n %u mask %#x hint %d", n, mask, hint);
    if (rc) {
        bisect_search_free(&b);
        return;
    }
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        CHECKF(t.calls[i] <= 1, "n %u mask %#x hint %d all %d: build %u replayed %u times", n,
               mask, hint, all, i, t.calls[i]);
        total += t.calls[i];
        if (t.calls[i])
            CHECK(b.seen[i] == (int8_t)shows(mask, (int32_t)i));
    }
    CHECK(total == b.replays);
    if (!mask) {
        CHECKF(b.anchor == -1, "n %u: nothing shows it, anchor %d", n, b.anchor);
        bisect_search_free(&b);
        return;
    }
    CHECKF(b.anchor >= 0 && shows(mask, b.anchor), "n %u mask %#x hint %d: anchor %d", n, mask,
           hint, b.anchor);
    if (hint >= 0 && shows(mask, hint))
        CHECK(b.anchor == hint);
    /* Each range a real change. */
    CHECKF(b.reg_after == b.reg_before + 1 && shows(mask, b.reg_after) &&
               (b.reg_before < 0 || !shows(mask, b.reg_before)) && b.reg_after <= b.anchor,
           "n %u mask %#x hint %d all %d: regression %d..%d", n, mask, hint, all, b.reg_before,
           b.reg_after);
    CHECKF(b.fix_before >= b.anchor && shows(mask, b.fix_before) &&
               (b.fix_after < 0 ? b.fix_before == (int32_t)n - 1
                                : b.fix_after == b.fix_before + 1 && !shows(mask, b.fix_after)),
           "n %u mask %#x hint %d all %d: fixed %d..%d", n, mask, hint, all, b.fix_before,
           b.fix_after);
    int runs = runs_of(mask, n);
    if (all) {
        CHECK(b.replays == n && b.reg_replays == n && b.fix_replays == n);
        CHECKF(b.monotonic == (runs == 1), "n %u mask %#x: monotonic %d, %d runs", n, mask,
               b.monotonic, runs);
        for (int32_t i = b.reg_after; i <= b.fix_before; i++)
            CHECK(shows(mask, i));
    } else {
        if (!b.monotonic)
            CHECKF(runs > 1, "n %u mask %#x hint %d: called non-monotonic", n, mask, hint);
        if (runs == 1) {
            int32_t a = __builtin_ctz(mask), z = 32 - __builtin_clz(mask);
            CHECKF(b.monotonic && b.reg_before == a - 1 && b.reg_after == a &&
                       b.fix_before == z - 1 && b.fix_after == (z < (int32_t)n ? z : -1),
                   "n %u mask %#x hint %d: regression %d..%d fixed %d..%d", n, mask, hint,
                   b.reg_before, b.reg_after, b.fix_before, b.fix_after);
            if (hint >= 0 && shows(mask, hint))
                CHECKF(b.reg_replays <= floor_log2(n) + 2 && b.fix_replays <= floor_log2(n) + 2,
                       "n %u mask %#x hint %d: %u and %u replays", n, mask, hint, b.reg_replays,
                       b.fix_replays);
        }
    }
    bisect_search_free(&b);
}

int main(void)
{
    for (uint32_t n = 1; n <= 10; n++)
        for (uint32_t mask = 0; mask < (1u << n); mask++)
            for (int32_t hint = -1; hint < (int32_t)n; hint++)
                for (int all = 0; all <= 1; all++)
                    one(n, mask, hint, all);

    /* The example of the issue: 8 builds, the bug enters at the fifth and
     * leaves at the seventh, recorded with the sixth. */
    truth t;
    bisect_search b;
    memset(&t, 0, sizeof t);
    t.mask = 0x30;
    t.fail_at = -1;
    CHECK(bisect_search_run(&b, 8, 5, 0, probe, &t) == 0);
    CHECK(b.reg_before == 3 && b.reg_after == 4 && b.fix_before == 5 && b.fix_after == 6);
    CHECKF(b.reg_replays <= 5 && b.fix_replays <= 5, "%u, %u", b.reg_replays, b.fix_replays);
    printf("8 builds, bug in 5-6, recorded with 6: regression %d..%d in %u replays, fixed "
           "%d..%d in %u, %u in all\n",
           b.reg_before + 1, b.reg_after + 1, b.reg_replays, b.fix_before + 1, b.fix_after + 1,
           b.fix_replays, b.replays);
    bisect_search_free(&b);

    /* A probe that fails stops the search. */
    memset(&t, 0, sizeof t);
    t.mask = 0x30;
    t.fail_at = 5;
    CHECK(bisect_search_run(&b, 8, 5, 0, probe, &t) == -1);
    bisect_search_free(&b);
    CHECK(bisect_search_run(&b, 0, -1, 0, probe, &t) == -1);
    bisect_search_free(&b);
    CHECK(bisect_search_run(&b, BISECT_MAX_BUILDS + 1, -1, 0, probe, &t) == -1);
    bisect_search_free(&b);
    return check_done("bisect_search");
}
