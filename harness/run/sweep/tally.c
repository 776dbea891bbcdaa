/* SPDX-License-Identifier: MIT */
/*
 * This file contains a sweep chunk's counts: adding them up, and the
 * text they are kept as in the store (sweep_chunks.tally), which
 * --resume reads back.
 */
#include "harness/run/sweep/sweep_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/value.h"

void sweep_counts_add(counts *to, const counts *from)
{
    verdict_tally_add(&to->t, &from->t);
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++)
        to->batches[k] += from->batches[k];
    to->failures += from->failures;
    to->hangs += from->hangs;
    to->reruns += from->reruns;
    to->unjudged += from->unjudged;
    to->listed += from->listed;
}

/* The text a chunk's counts are kept as in sweep_chunks.tally. */
void sweep_counts_format(const counts *c, char *buf, size_t len)
{
    const verdict_tally *t = &c->t;
    size_t used = (size_t)snprintf(
        buf, len,
        "elements=%" PRIu64 " cases=%" PRIu64 " unspecified=%" PRIu64
        " unspecified_not_preferred=%" PRIu64 " any_inf_positive=%" PRIu64
        " any_inf_negative=%" PRIu64 " subnormal_results=%" PRIu64 " declared_checked=%" PRIu64
        " max_ulps=%" PRIu64 " failures=%" PRIu64 " hangs=%" PRIu64 " reruns=%" PRIu64
        " unjudged=%" PRIu64 " listed=%" PRIu64,
        t->elements, t->cases, t->unspecified, t->unspecified_not_preferred, t->any_inf_positive,
        t->any_inf_negative, t->subnormal_results, t->declared_checked, t->max_ulps, c->failures,
        c->hangs, c->reruns, c->unjudged, c->listed);
    for (int k = 1; k < ORACLE_CLASS_COUNT && used < len; k++)
        if (t->counts[k] || t->accepted[k])
            used += (size_t)snprintf(buf + used, len - used, " %s=%" PRIu64 "/%" PRIu64 "/%" PRIu64,
                                     oracle_class_name((uint32_t)k), t->counts[k], t->accepted[k],
                                     c->batches[k]);
}

/* Parses sweep_counts_format's text; 0, or -1 when it is malformed. */
int sweep_counts_parse(const char *text, counts *c)
{
    memset(c, 0, sizeof *c);
    verdict_tally *t = &c->t;
    struct {
        const char *key;
        uint64_t *v;
    } keys[] = {
        {"elements", &t->elements}, {"cases", &t->cases}, {"unspecified", &t->unspecified},
        {"unspecified_not_preferred", &t->unspecified_not_preferred},
        {"any_inf_positive", &t->any_inf_positive}, {"any_inf_negative", &t->any_inf_negative},
        {"subnormal_results", &t->subnormal_results}, {"declared_checked", &t->declared_checked},
        {"max_ulps", &t->max_ulps}, {"failures", &c->failures}, {"hangs", &c->hangs},
        {"reruns", &c->reruns}, {"unjudged", &c->unjudged}, {"listed", &c->listed},
    };
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        const char *eq = strchr(p, '=');
        const char *end = strchr(p, ' ');
        if (!end)
            end = p + strlen(p);
        if (!eq || eq > end || eq - p >= 64)
            return -1;
        char key[64];
        memcpy(key, p, (size_t)(eq - p));
        key[eq - p] = '\0';
        int found = 0;
        for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !found; i++)
            if (!strcmp(keys[i].key, key)) {
                *keys[i].v = strtoull(eq + 1, NULL, 10);
                found = 1;
            }
        if (!found) {
            int k = oracle_class_by_name(key);
            unsigned long long x, y, z;
            if (k <= 0 || sscanf(eq + 1, "%llu/%llu/%llu", &x, &y, &z) != 3)
                return -1;
            t->counts[k] = x;
            t->accepted[k] = y;
            c->batches[k] = z;
        }
        p = end;
    }
    return 0;
}
