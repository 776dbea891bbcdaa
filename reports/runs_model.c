/* SPDX-License-Identifier: MIT */
/*
 * This file contains the model of the page of several runs
 * (reports/runs_model.h): the matrix's axes and the certificate of each
 * cell, the findings of the runs that compare plugins split into hazards
 * (grouped by hazard class, plugin set and dtype) and departures (grouped
 * by bug), and the words of their examples: the operands of a one-element
 * reproducer, and what each plugin of a set gave.
 */
#include "reports/runs_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/judge/verdict.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"

static int key_before(const report_key *a, const report_key *b)
{
    if (a->variant_id != b->variant_id)
        return a->variant_id < b->variant_id;
    if (strcmp(a->variant, b->variant))
        return strcmp(a->variant, b->variant) < 0;
    if (a->dtype_id != b->dtype_id)
        return a->dtype_id < b->dtype_id;
    return strcmp(a->dtype, b->dtype) < 0;
}

/* Appends name to out[*n] unless it is there or out is full. */
static void add_name(const char **out, size_t *n, const char *name)
{
    for (size_t j = 0; j < *n; j++)
        if (!strcmp(out[j], name))
            return;
    if (*n < RUNS_MAX_AXIS)
        out[(*n)++] = name;
}

static void axes_build(runs_page *p)
{
    p->nr = p->nc = 0;
    for (size_t r = 0; r < p->n; r++)
        for (size_t i = 0; i < p->m[r]->n_certs; i++) {
            const report_key *k = &p->m[r]->certs[i].k;
            add_name(p->rows, &p->nr, k->implementation);
            size_t j = 0;
            while (j < p->nc && !(!strcmp(p->cols[j]->variant, k->variant) &&
                                  !strcmp(p->cols[j]->dtype, k->dtype)))
                j++;
            if (j < p->nc || p->nc == RUNS_MAX_AXIS)
                continue;
            j = p->nc++; /* insertion in order */
            while (j > 0 && key_before(k, p->cols[j - 1])) {
                p->cols[j] = p->cols[j - 1];
                j--;
            }
            p->cols[j] = k;
        }
}

const report_cert *runs_cert_of(const runs_page *p, const char *impl, const report_key *col,
                                int64_t *run)
{
    const report_cert *best = NULL;
    for (size_t r = 0; r < p->n; r++)
        for (size_t i = 0; i < p->m[r]->n_certs; i++) {
            const report_cert *c = &p->m[r]->certs[i];
            if (!strcmp(c->k.implementation, impl) && !strcmp(c->k.variant, col->variant) &&
                !strcmp(c->k.dtype, col->dtype) && (!best || p->m[r]->run.id > *run)) {
                *run = p->m[r]->run.id;
                best = c;
            }
        }
    return best;
}

int runs_compares_plugins(const report_model *m)
{
    if (!strcmp(m->run.kind, "diff"))
        return 1;
    for (size_t i = 0; i < m->n_findings; i++)
        if (strchr(m->findings[i].k.implementation, '|'))
            return 1;
    return 0;
}

int runs_is_hazard(const report_finding *f)
{
    return f->cls_id == ORACLE_CLASS_COUNT;
}

const char *runs_given_text(const report_finding *f)
{
    return f->n_repros && f->repros[0].actual ? f->repros[0].actual : "";
}

const char *runs_expected_text(const report_finding *f)
{
    return f->n_repros && f->repros[0].expected ? f->repros[0].expected : "";
}

/* The length of the k-th name of set "a|b|c" at *at (advanced past it). */
static size_t next_name(const char **at)
{
    const char *s = *at, *bar = strchr(s, '|');
    size_t len = bar ? (size_t)(bar - s) : strlen(s);
    *at = bar ? bar + 1 : s + len;
    return len;
}

/* 1 when set "a|b|c" holds `name`. */
static int set_holds(const char *set, const char *name)
{
    size_t want = strlen(name);
    for (const char *s = set; *s;) {
        const char *nm = s;
        size_t n = next_name(&s);
        if (n == want && !strncmp(nm, name, n))
            return 1;
    }
    return 0;
}

const char *runs_given_cell(const report_finding *f, const char *name, char *buf, size_t len)
{
    /* The text is "n1: v1; n2: v2; ..." with the set's names in its order
     * (harness/run/engine/crosscheck.h, crosscheck_given_text): each value runs
     * to the "; " before the next name. */
    const char *at = runs_given_text(f);
    size_t want = strlen(name);
    for (const char *s = f->k.implementation; *s;) {
        const char *nm = s;
        size_t n = next_name(&s);
        if (strncmp(at, nm, n) || strncmp(at + n, ": ", 2))
            break; /* not the text of this set */
        const char *value = at + n + 2, *end = value + strlen(value);
        if (*s) {
            const char *nx = s;
            size_t nn = next_name(&nx);
            for (const char *q = strstr(value, "; "); q; q = strstr(q + 1, "; "))
                if (!strncmp(q + 2, s, nn) && !strncmp(q + 2 + nn, ": ", 2)) {
                    end = q;
                    break;
                }
        }
        if (n == want && !strncmp(nm, name, n)) {
            snprintf(buf, len, "%.*s", (int)(end - value), value);
            return buf;
        }
        at = *end ? end + 2 : end;
    }
    snprintf(buf, len, "%s", set_holds(f->k.implementation, name) ? "?" : "-");
    return buf;
}

const char *runs_operands_text(const report_finding *f, char *buf, size_t len)
{
    uint32_t dtype = oracle_dtype_by_tag(f->k.dtype);
    const report_repro *x = f->n_repros ? &f->repros[0] : NULL;
    uint8_t a[16], b[16];
    if (x && dtype && x->a_bytes == (int64_t)oracle_nbytes(dtype, 1) &&
        x->b_bytes == x->a_bytes && report_hex_bytes(x->a_hex, a, sizeof a) == (int)x->a_bytes &&
        report_hex_bytes(x->b_hex, b, sizeof b) == (int)x->b_bytes) {
        return verdict_operands_text(dtype, oracle_load(dtype, a, 0), oracle_load(dtype, b, 0), buf,
                                     len);
    }
    snprintf(buf, len, "%s", f->operand_class);
    return buf;
}

const char *runs_axis_text(const runs_finding *s, size_t n, char what, char *buf, size_t len)
{
    /* Distinct keys in order: a selection over the (small) member list. */
    size_t used = 0;
    const report_key *last = NULL;
    buf[0] = '\0';
    for (;;) {
        const report_key *next = NULL;
        for (size_t i = 0; i < n; i++) {
            const report_key *k = &s[i].f->k;
            uint32_t id = what == 'v' ? k->variant_id : k->dtype_id;
            const char *name = what == 'v' ? k->variant : k->dtype;
            if (last) {
                uint32_t lid = what == 'v' ? last->variant_id : last->dtype_id;
                const char *lname = what == 'v' ? last->variant : last->dtype;
                if (id < lid || (id == lid && strcmp(name, lname) <= 0))
                    continue;
            }
            if (!next) {
                next = k;
                continue;
            }
            uint32_t nid = what == 'v' ? next->variant_id : next->dtype_id;
            const char *nname = what == 'v' ? next->variant : next->dtype;
            if (id < nid || (id == nid && strcmp(name, nname) < 0))
                next = k;
        }
        if (!next)
            break;
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", last ? ", " : "",
                                     what == 'v' ? next->variant : next->dtype);
        last = next;
    }
    return buf;
}

const char *runs_replay_text(const report_model *m, const report_finding *f, char *buf,
                             size_t len)
{
    if (!f->n_repros) {
        buf[0] = '\0';
        return buf;
    }
    return report_replay_command(m, f->repros[0].id, buf, len);
}

/* ---- the rows of the tables ------------------------------------------------ */

size_t runs_hazard_header(const runs_page *p, const char **out)
{
    static const char *const fixed[] = {"hazard class", "variants", "dtypes",
                                        "signatures",   "example",  "expected"};
    size_t n = 0;
    while (n < sizeof fixed / sizeof fixed[0]) {
        out[n] = fixed[n];
        n++;
    }
    for (size_t k = 0; k < p->n_given; k++)
        out[n++] = p->given[k];
    out[n++] = "reproducer";
    return n;
}

void runs_hazard_row(const runs_page *p, size_t h, runs_row *r)
{
    const runs_hazard *row = &p->hazards[h];
    const runs_finding *ex = &p->hazard_sigs[row->first];
    char ops[2 * VERDICT_TEXT_MAX + 8];
    snprintf(r->signatures, sizeof r->signatures, "%zu", row->n);
    snprintf(r->operands, sizeof r->operands, "%.60s %.16s: %s", ex->f->k.variant, ex->f->k.dtype,
             runs_operands_text(ex->f, ops, sizeof ops));
    runs_axis_text(ex, row->n, 'v', r->variants, sizeof r->variants);
    runs_axis_text(ex, row->n, 'd', r->dtypes, sizeof r->dtypes);
    runs_replay_text(ex->m, ex->f, r->replay, sizeof r->replay);
    r->n = 0;
    r->cell[r->n++] = row->cls;
    r->cell[r->n++] = r->variants;
    r->cell[r->n++] = r->dtypes;
    r->cell[r->n++] = r->signatures;
    r->cell[r->n++] = r->operands;
    r->cell[r->n++] = runs_expected_text(ex->f);
    for (size_t k = 0; k < p->n_given; k++)
        r->cell[r->n++] = runs_given_cell(ex->f, p->given[k], r->given[k], sizeof r->given[k]);
    r->cell[r->n++] = r->replay;
}

const char *const runs_departure_header[RUNS_DEPARTURE_COLUMNS] = {
    "implementation", "bug", "class", "kind", "locus", "signatures", "variants", "dtypes",
    "example", "reproducer"};

void runs_departure_row(const runs_page *p, size_t d, runs_row *r)
{
    const runs_departure *row = &p->departures[d];
    const runs_finding *ex = &p->departure_sigs[row->first];
    if (row->bug)
        snprintf(r->bug, sizeof r->bug, "%" PRId64, row->bug->id);
    else
        snprintf(r->bug, sizeof r->bug, "-");
    snprintf(r->signatures, sizeof r->signatures, "%zu", row->n);
    runs_axis_text(ex, row->n, 'v', r->variants, sizeof r->variants);
    runs_axis_text(ex, row->n, 'd', r->dtypes, sizeof r->dtypes);
    const report_repro *x = ex->f->n_repros ? &ex->f->repros[0] : NULL;
    char ops[2 * VERDICT_TEXT_MAX + 8];
    if (x && x->expected && x->actual)
        snprintf(r->example, sizeof r->example, "%s %s: %s, expected %s, got %s",
                 ex->f->k.variant, ex->f->k.dtype, runs_operands_text(ex->f, ops, sizeof ops),
                 x->expected, x->actual);
    else
        snprintf(r->example, sizeof r->example, "%s %s: %s", ex->f->k.variant, ex->f->k.dtype,
                 x && x->note ? x->note : ex->f->cls);
    runs_replay_text(ex->m, ex->f, r->replay, sizeof r->replay);
    const char *cells[RUNS_DEPARTURE_COLUMNS] = {
        row->implementation, r->bug,        row->bug ? row->bug->cls : row->cls,
        row->bug ? row->bug->kind : "", row->bug ? row->bug->locus : "", r->signatures,
        r->variants,         r->dtypes,     r->example,
        r->replay};
    for (r->n = 0; r->n < RUNS_DEPARTURE_COLUMNS; r->n++)
        r->cell[r->n] = cells[r->n];
}

/* ---- grouping ------------------------------------------------------------ */

static int by_signature_then_latest(const void *pa, const void *pb)
{
    const runs_finding *a = pa, *b = pb;
    if (a->f->signature_id != b->f->signature_id)
        return a->f->signature_id < b->f->signature_id ? -1 : 1;
    if (a->m->run.id != b->m->run.id)
        return a->m->run.id > b->m->run.id ? -1 : 1;
    return 0;
}

const char *runs_variant_family(const char *name, char *buf, size_t len)
{
    size_t n = strlen(name), k = n;
    while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9')
        k--;
    if (k < n && k > 1 && name[k - 1] == '-')
        n = k - 1;
    snprintf(buf, len, "%.*s", (int)n, name);
    return buf;
}

static int family_cmp(const report_key *a, const report_key *b)
{
    char fa[64], fb[64];
    return strcmp(runs_variant_family(a->variant, fa, sizeof fa),
                  runs_variant_family(b->variant, fb, sizeof fb));
}

/* The hazard table's order: class, variant family, plugin set; inside a
 * row the signatures. */
static int hazard_order(const void *pa, const void *pb)
{
    const report_finding *a = ((const runs_finding *)pa)->f, *b = ((const runs_finding *)pb)->f;
    int c = strcmp(a->cls, b->cls);
    if (!c)
        c = family_cmp(&a->k, &b->k);
    if (!c)
        c = strcmp(a->k.implementation, b->k.implementation);
    if (!c)
        c = a->signature_id < b->signature_id ? -1 : a->signature_id > b->signature_id;
    return c;
}

static int same_hazard_row(const report_finding *a, const report_finding *b)
{
    return !strcmp(a->cls, b->cls) && !family_cmp(&a->k, &b->k) &&
           !strcmp(a->k.implementation, b->k.implementation);
}

/* The departures' order: implementation, bug (a finding in no bug after
 * the bugs, by class), then the signatures. */
static int departure_order(const void *pa, const void *pb)
{
    const report_finding *a = ((const runs_finding *)pa)->f, *b = ((const runs_finding *)pb)->f;
    int c = strcmp(a->k.implementation, b->k.implementation);
    if (!c && a->bug_id != b->bug_id)
        c = !a->bug_id ? 1 : !b->bug_id ? -1 : a->bug_id < b->bug_id ? -1 : 1;
    if (!c && !a->bug_id)
        c = strcmp(a->cls, b->cls);
    if (!c)
        c = a->signature_id < b->signature_id ? -1 : a->signature_id > b->signature_id;
    return c;
}

static int same_departure_row(const report_finding *a, const report_finding *b)
{
    return !strcmp(a->k.implementation, b->k.implementation) && a->bug_id == b->bug_id &&
           (a->bug_id || !strcmp(a->cls, b->cls));
}

static void sort(void *items, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(items, n, size, cmp);
}

static const report_bug *bug_of(const report_model *m, int64_t id)
{
    for (size_t i = 0; id && i < m->n_bugs; i++)
        if (m->bugs[i].id == id)
            return &m->bugs[i];
    return NULL;
}

void runs_page_free(runs_page *p)
{
    if (!p)
        return;
    dvg_free(p->hazard_sigs);
    dvg_free(p->hazards);
    dvg_free(p->departure_sigs);
    dvg_free(p->departures);
    memset(p, 0, sizeof *p);
}

int runs_page_build(const report_model *const *m, size_t n, runs_page *p)
{
    memset(p, 0, sizeof *p);
    p->m = m;
    p->n = n;
    axes_build(p);
    /* The findings of the runs that compare plugins, each signature once
     * (the latest run that saw it). */
    size_t total = 0;
    for (size_t r = 0; r < n; r++)
        if (runs_compares_plugins(m[r]))
            total += m[r]->n_findings;
    runs_finding *all = dvg_calloc(total ? total : 1, sizeof *all);
    p->hazard_sigs = dvg_calloc(total ? total : 1, sizeof *p->hazard_sigs);
    p->departure_sigs = dvg_calloc(total ? total : 1, sizeof *p->departure_sigs);
    p->hazards = dvg_calloc(total ? total : 1, sizeof *p->hazards);
    p->departures = dvg_calloc(total ? total : 1, sizeof *p->departures);
    if (!all || !p->hazard_sigs || !p->departure_sigs || !p->hazards || !p->departures) {
        dvg_free(all);
        runs_page_free(p);
        return -1;
    }
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        if (runs_compares_plugins(m[r]))
            for (size_t i = 0; i < m[r]->n_findings; i++)
                all[k++] = (runs_finding){m[r], &m[r]->findings[i]};
    sort(all, k, sizeof *all, by_signature_then_latest);
    for (size_t i = 0; i < k; i++) {
        if (i && all[i].f->signature_id == all[i - 1].f->signature_id)
            continue;
        if (all[i].f->emulation_only)
            p->n_emulation_only++; /* not a departure: counted apart */
        else if (runs_is_hazard(all[i].f))
            p->hazard_sigs[p->n_hazard_sigs++] = all[i];
        else
            p->departure_sigs[p->n_departure_sigs++] = all[i];
    }
    dvg_free(all);
    sort(p->hazard_sigs, p->n_hazard_sigs, sizeof *p->hazard_sigs, hazard_order);
    for (size_t i = 0; i < p->n_hazard_sigs; i++) {
        const report_finding *f = p->hazard_sigs[i].f;
        if (!p->n_hazards || !same_hazard_row(p->hazard_sigs[i - 1].f, f)) {
            runs_hazard *row = &p->hazards[p->n_hazards++];
            row->cls = f->cls;
            row->set = f->k.implementation;
            runs_variant_family(f->k.variant, row->family, sizeof row->family);
            row->first = i;
            row->n = 0;
        }
        p->hazards[p->n_hazards - 1].n++;
    }
    sort(p->departure_sigs, p->n_departure_sigs, sizeof *p->departure_sigs, departure_order);
    for (size_t i = 0; i < p->n_departure_sigs; i++) {
        const runs_finding *s = &p->departure_sigs[i];
        if (!p->n_departures || !same_departure_row(p->departure_sigs[i - 1].f, s->f))
            p->departures[p->n_departures++] = (runs_departure){
                bug_of(s->m, s->f->bug_id), s->f->k.implementation, s->f->cls, i, 0};
        p->departures[p->n_departures - 1].n++;
    }
    /* The columns of what each gives: the names of the plugin sets, the
     * matrix's implementations in its order, then the others as met. */
    size_t rank[RUNS_MAX_AXIS];
    for (size_t h = 0; h < p->n_hazards; h++)
        for (const char *s = p->hazards[h].set; *s;) {
            const char *nm = s;
            size_t len = next_name(&s), j = 0;
            while (j < p->n_given && !(strlen(p->given[j]) == len &&
                                       !strncmp(p->given[j], nm, len)))
                j++;
            if (j < p->n_given || p->n_given == RUNS_MAX_AXIS)
                continue;
            snprintf(p->given_names[j], sizeof p->given_names[j], "%.*s", (int)len, nm);
            p->given[j] = p->given_names[j];
            rank[j] = RUNS_MAX_AXIS + j;
            for (size_t r = 0; r < p->nr; r++)
                if (!strcmp(p->rows[r], p->given[j]))
                    rank[j] = r;
            for (; j > 0 && rank[j - 1] > rank[j]; j--) {
                size_t t = rank[j];
                rank[j] = rank[j - 1];
                rank[j - 1] = t;
                const char *q = p->given[j];
                p->given[j] = p->given[j - 1];
                p->given[j - 1] = q;
            }
            p->n_given++;
        }
    return 0;
}
