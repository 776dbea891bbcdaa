/* SPDX-License-Identifier: MIT */
/*
 * This file contains the judge (see verdict.h): tolerance profiles, the
 * comparison of one case's plain outputs with the oracle's elements, the
 * tallies of a claim and their sum, the verdict text of a certificate, and
 * the words for expected and actual elements.
 */
#include "harness/judge/verdict.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "oracle/dtype.h"
#include "oracle/value.h"

/* The suffix of a profile that makes refusals departures. */
#define NO_REFUSALS "+no-refusals"
#define BITWISE "+bitwise"

/* Cuts option `opt` ("+name") off the end of base (or base "name" alone:
 * "exact" then) into *flag. 1 when it was there, -1 when it was there
 * twice, 0 when not. */
static int cut_option(char *base, const char *opt, int32_t *flag)
{
    size_t n = strlen(base), sl = strlen(opt);
    if (!strcmp(base, opt + 1))
        snprintf(base, 6, "exact");
    else if (n > sl && !strcmp(base + n - sl, opt))
        base[n - sl] = '\0';
    else
        return 0;
    if (*flag)
        return -1;
    *flag = 1;
    return 1;
}

int verdict_profile_parse(const char *text, verdict_profile *p, char *err, size_t errlen)
{
    static const uint32_t modes[] = {0, ORACLE_MODE_FTZ, ORACLE_MODE_DAZ,
                                     ORACLE_MODE_FTZ | ORACLE_MODE_DAZ};
    char base[48];
    int32_t no_refusals = 0, bitwise = 0;
    int cut;
    memset(p, 0, sizeof p[0]);
    if (strlen(text) >= sizeof base)
        goto bad;
    snprintf(base, sizeof base, "%s", text);
    do {
        cut = cut_option(base, NO_REFUSALS, &no_refusals);
        if (!cut)
            cut = cut_option(base, BITWISE, &bitwise);
        if (cut < 0)
            goto bad;
    } while (cut);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (!strcmp(base, verdict_modes_name(modes[i]))) {
            p->modes = modes[i];
            goto good;
        }
    if (!strncmp(base, "ulp:", 4)) {
        char *end;
        unsigned long long u = strtoull(base + 4, &end, 10);
        if (end != base + 4 && !*end && u >= 1 && u <= (UINT64_C(1) << 32)) {
            snprintf(base, sizeof base, "ulp:%llu", u);
            p->ulp_tolerance = u;
            goto good;
        }
    }
bad:
    memset(p, 0, sizeof p[0]);
    snprintf(err, errlen,
             "profile '%s': expected exact, ftz, daz, ftz+daz or ulp:N (1 <= N <= 2^32), "
             "optionally followed by " NO_REFUSALS " and " BITWISE, text);
    return -1;
good:
    p->no_refusals = no_refusals;
    p->bitwise = bitwise;
    snprintf(p->name, sizeof p->name, "%.24s%s%s", base, no_refusals ? NO_REFUSALS : "",
             bitwise ? BITWISE : "");
    return 0;
}

int verdict_keep_first(void *ctx, const divcase *c, const verdict_example *ex)
{
    verdict_first *f = ctx;
    (void)c;
    if (!ex->accepted && !f->found) {
        f->found = 1;
        f->ex = *ex;
    }
    return 0;
}

int verdict_may_refuse(const verdict_profile *p, const oracle_elem *e)
{
    return !p->no_refusals && e->kind == ORACLE_UNSPECIFIED;
}

int verdict_refusal_narrowable(const verdict_outputs *out, int valid, const verdict_profile *p)
{
    return valid && !p->no_refusals && out->outcome == VERDICT_OUT_FAILURE && !out->in_shape;
}

uint32_t verdict_declared_modes(uint64_t declared)
{
    return ((declared & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) ? ORACLE_MODE_FTZ : 0) |
           ((declared & DVG_DEV_SUBNORMAL_INPUT_ZERO) ? ORACLE_MODE_DAZ : 0);
}

const char *verdict_modes_name(uint32_t modes)
{
    switch (modes & (ORACLE_MODE_FTZ | ORACLE_MODE_DAZ)) {
    case ORACLE_MODE_FTZ: return "ftz";
    case ORACLE_MODE_DAZ: return "daz";
    case ORACLE_MODE_FTZ | ORACLE_MODE_DAZ: return "ftz+daz";
    default: return "exact";
    }
}

char *verdict_elem_text(uint32_t dtype, const oracle_elem *e, char *buf, size_t len)
{
    switch (e->kind) {
    case ORACLE_EXACT: return verdict_bits_text(dtype, e->bits, buf, len);
    case ORACLE_ANY_NAN: snprintf(buf, len, "nan (any)"); break;
    case ORACLE_ANY_INF: snprintf(buf, len, "+inf or -inf"); break;
    default: snprintf(buf, len, "unspecified"); break;
    }
    return buf;
}

char *verdict_bits_text(uint32_t dtype, uint64_t bits, char *buf, size_t len)
{
    char v[64], hex[24];
    snprintf(buf, len, "%s (%s)", oracle_value_format(dtype, bits, v, sizeof v),
             oracle_bits_format(dtype, bits, hex, sizeof hex));
    return buf;
}

char *verdict_operands_text(uint32_t dtype, uint64_t a, uint64_t b, char *buf, size_t len)
{
    char ta[VERDICT_TEXT_MAX], tb[VERDICT_TEXT_MAX];
    snprintf(buf, len, "%s / %s", verdict_bits_text(dtype, a, ta, sizeof ta),
             verdict_bits_text(dtype, b, tb, sizeof tb));
    return buf;
}

char *verdict_actual_text(uint32_t dtype, const verdict_example *ex, char *buf, size_t len)
{
    char one[VERDICT_TEXT_MAX], two[VERDICT_TEXT_MAX];
    if (ex->cls == ORACLE_CLASS_REFUSED_UNDEFINED ||
        (ex->cls == ORACLE_CLASS_FAILURE && ex->index != UINT64_MAX)) {
        snprintf(buf, len, "%s", VERDICT_REFUSED_TEXT);
        return buf;
    }
    if (ex->actual2 == ex->actual)
        return verdict_bits_text(dtype, ex->actual, buf, len);
    snprintf(buf, len, "%s in run 1, %s in run 2", verdict_bits_text(dtype, ex->actual, one, sizeof one),
             verdict_bits_text(dtype, ex->actual2, two, sizeof two));
    return buf;
}

void verdict_example_words(uint32_t dtype, const verdict_example *ex, verdict_words *w)
{
    w->operand[0] = w->expected[0] = w->actual[0] = 0;
    if (ex->index == UINT64_MAX)
        return;
    snprintf(w->operand, sizeof w->operand, "%s/%s", oracle_operand_name(ex->operand_a),
             oracle_operand_name(ex->operand_b));
    verdict_elem_text(dtype, &ex->expected, w->expected, sizeof w->expected);
    verdict_actual_text(dtype, ex, w->actual, sizeof w->actual);
}

uint32_t verdict_ulp_bucket(uint64_t ulps)
{
    if (ulps == UINT64_MAX)
        return VERDICT_ULP_BUCKETS - 1;
    if (ulps <= 1)
        return 0;
    uint32_t k = 64u - (uint32_t)__builtin_clzll(ulps - 1); /* ceil(log2(ulps)) */
    return k > 20 ? 21 : k;
}

const char *verdict_ulp_bucket_label(uint32_t b, char *buf, size_t len)
{
    if (b == 0 || b == 1)
        snprintf(buf, len, "%u", b + 1);
    else if (b <= 20)
        snprintf(buf, len, "%llu-%llu", (1ULL << (b - 1)) + 1, 1ULL << b);
    else if (b == 21)
        snprintf(buf, len, ">%llu", 1ULL << 20);
    else if (b == 22)
        snprintf(buf, len, "inf");
    else
        snprintf(buf, len, "?");
    return buf;
}

/* The distinct signatures of one case. */
#define MAX_SIGNATURES 64

typedef struct case_findings {
    verdict_example ex[MAX_SIGNATURES];
    int n;
} case_findings;

static void add_finding(case_findings *f, verdict_tally *t, const verdict_example *ex)
{
    if (ex->accepted)
        t->accepted[ex->cls]++;
    else
        t->counts[ex->cls]++;
    for (int i = 0; i < f->n; i++) {
        verdict_example *e = &f->ex[i];
        if (e->cls == ex->cls && e->operand_a == ex->operand_a && e->operand_b == ex->operand_b) {
            e->elements++;
            return;
        }
    }
    if (f->n < MAX_SIGNATURES) {
        f->ex[f->n] = *ex;
        f->ex[f->n].elements = 1;
        f->n++;
    }
}

/* A finding about the whole case (crash, shape, status), with its note. */
static void case_level(case_findings *f, verdict_tally *t, uint32_t cls, const char *note)
{
    verdict_example ex;
    memset(&ex, 0, sizeof ex);
    ex.cls = cls;
    ex.index = UINT64_MAX;
    ex.operand_a = ex.operand_b = ORACLE_OPERAND_COUNT;
    snprintf(ex.note, sizeof ex.note, "%s", note);
    add_finding(f, t, &ex);
}

static int accepted_by(uint32_t cls, uint64_t ulps, uint32_t kind, const verdict_profile *prof,
                       uint64_t declared)
{
    uint32_t modes = prof->modes | verdict_declared_modes(declared);
    if (cls == ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT)
        return (modes & ORACLE_MODE_FTZ) != 0;
    if (cls == ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO)
        return (modes & ORACLE_MODE_DAZ) != 0;
    if (cls == ORACLE_CLASS_WRONG_VALUE && kind == DVG_KIND_FLOAT)
        return prof->ulp_tolerance && ulps <= prof->ulp_tolerance;
    return cls == ORACLE_CLASS_REFUSED_UNDEFINED; /* chosen by verdict_may_refuse */
}

int verdict_element(const oracle_rules *r, uint64_t a, uint64_t b, const oracle_elem *e,
                    uint64_t actual, const verdict_profile *prof, uint64_t declared,
                    uint32_t *cls)
{
    uint64_t ulps = 0;
    uint32_t k = ORACLE_CLASS_MATCH;
    if (!oracle_elem_accepts(r->dtype, e, actual))
        k = oracle_classify_preferring(r, prof->modes | verdict_declared_modes(declared), a, b, e,
                                       actual, &ulps);
    if (cls)
        *cls = k;
    return k == ORACLE_CLASS_MATCH || accepted_by(k, ulps, r->kind, prof, declared);
}

/* Outcomes that end a case before any element is compared. */
static uint32_t outcome_class(uint32_t outcome)
{
    switch (outcome) {
    case VERDICT_OUT_HANG: return ORACLE_CLASS_HANG;
    case VERDICT_OUT_LATE_WRITE: return ORACLE_CLASS_LATE_WRITE;
    case VERDICT_OUT_OOB_WRITE: return ORACLE_CLASS_OOB_WRITE;
    case VERDICT_OUT_OOB_READ: return ORACLE_CLASS_OOB_READ;
    case VERDICT_OUT_INPUT_MUTATED: return ORACLE_CLASS_INPUT_MUTATED;
    case VERDICT_OUT_UNSUPPORTED: return ORACLE_CLASS_UNSUPPORTED_CLAIM;
    case VERDICT_OUT_FAILURE: return ORACLE_CLASS_FAILURE;
    case VERDICT_OUT_BAD_SHAPE: return ORACLE_CLASS_WRONG_SHAPE;
    default: return ORACLE_CLASS_CRASH; /* CRASH and anything unknown */
    }
}

/* An element finding at output index i. */
static void element_example(verdict_example *ex, const divcase *c, const oracle_plan *p,
                            uint64_t i, uint32_t cls, const oracle_elem *e, uint64_t actual)
{
    uint64_t ao, bo;
    memset(ex, 0, sizeof *ex);
    oracle_plan_offsets(p, i, &ao, &bo);
    ex->cls = cls;
    ex->index = i;
    ex->a = oracle_load(c->dtype, c->a, ao);
    ex->b = oracle_load(c->dtype, c->b, bo);
    ex->operand_a = oracle_operand_class(c->dtype, ex->a);
    ex->operand_b = oracle_operand_class(c->dtype, ex->b);
    ex->expected = *e;
    ex->actual = actual;
    ex->actual2 = actual;
}

/* Judges output elements [first, end); expected[i - first] is element i's
 * expectation. */
static void compare_elements(const oracle_rules *r, const divcase *c, const oracle_plan *p,
                             const oracle_elem *expected, const verdict_outputs *out,
                             const verdict_profile *prof, uint64_t declared,
                             int64_t int_div_zero_value, verdict_tally *t, case_findings *f,
                             uint64_t first, uint64_t end)
{
    uint32_t dtype = r->dtype;
    uint64_t mask = oracle_dtype_mask(dtype);
    uint64_t declared_zero = (uint64_t)int_div_zero_value & mask;
    int float_kind = r->kind == DVG_KIND_FLOAT;
    for (uint64_t i = first; i < end; i++) {
        const oracle_elem *e = &expected[i - first];
        uint64_t actual = oracle_load(dtype, out->out1, i);
        uint8_t flags = out->flags ? out->flags[i] : 0;
        if (float_kind && e->kind == ORACLE_EXACT && flags == 0 &&
            oracle_operand_class(dtype, e->bits) == ORACLE_OPERAND_SUBNORMAL)
            t->subnormal_results++;
        uint32_t cls;
        uint64_t ulps = 0;
        if (flags & VERDICT_ELEM_REFUSED)
            cls = verdict_may_refuse(prof, e) ? ORACLE_CLASS_REFUSED_UNDEFINED : ORACLE_CLASS_FAILURE;
        else if (flags & VERDICT_ELEM_UNWRITTEN)
            cls = ORACLE_CLASS_NOT_WRITTEN;
        else if (flags & VERDICT_ELEM_NONDET)
            cls = ORACLE_CLASS_NONDETERMINISTIC;
        else if (oracle_elem_accepts(dtype, e, actual)) {
            if (e->kind == ORACLE_UNSPECIFIED) {
                t->unspecified++;
                /* Differs from the preferred value; any NaN stands for a NaN. */
                if (e->has_alt && actual != e->alt &&
                    !(oracle_operand_class(dtype, e->alt) == ORACLE_OPERAND_NAN &&
                      oracle_operand_class(dtype, actual) == ORACLE_OPERAND_NAN))
                    t->unspecified_not_preferred++;
                if (e->rule == ORACLE_RULE_INT_DIV_ZERO &&
                    (declared & DVG_DEV_INT_DIV_ZERO_VALUE)) {
                    t->declared_checked++;
                    if (actual != declared_zero)
                        goto declared_lie;
                }
            } else if (e->kind == ORACLE_ANY_INF) {
                if ((actual >> (oracle_dtype(dtype)->bits - 1)) & 1)
                    t->any_inf_negative++;
                else
                    t->any_inf_positive++;
            }
            continue;
        } else {
            uint64_t ao, bo;
            oracle_plan_offsets(p, i, &ao, &bo); /* only for differing elements */
            cls = oracle_classify_preferring(r, prof->modes | verdict_declared_modes(declared),
                                             oracle_load(dtype, c->a, ao),
                                             oracle_load(dtype, c->b, bo), e, actual, &ulps);
            if (cls == ORACLE_CLASS_MATCH)
                continue;
        }
        {
            verdict_example ex;
            element_example(&ex, c, p, i, cls, e, actual);
            ex.ulps = ulps;
            ex.accepted = accepted_by(cls, ulps, r->kind, prof, declared);
            if (float_kind && cls == ORACLE_CLASS_WRONG_VALUE && ulps > t->max_ulps && ulps != UINT64_MAX)
                t->max_ulps = ulps;
            if (cls == ORACLE_CLASS_WRONG_VALUE)
                t->ulp_hist[verdict_ulp_bucket(ulps)]++;
            if (flags & VERDICT_ELEM_REFUSED) /* what the refusal said */
                snprintf(ex.note, sizeof ex.note, "%s", out->note);
            if (cls == ORACLE_CLASS_NONDETERMINISTIC) {
                ex.actual2 = oracle_load(dtype, out->out2 ? out->out2 : out->out1, i);
                snprintf(ex.note, sizeof ex.note, "run 1 gave 0x%" PRIx64 ", run 2 gave 0x%" PRIx64,
                         actual, ex.actual2);
            }
            add_finding(f, t, &ex);
        }
        continue;
    declared_lie: {
            verdict_example ex;
            element_example(&ex, c, p, i, ORACLE_CLASS_WRONG_VALUE, e, actual);
            ex.expected.kind = ORACLE_EXACT;
            ex.expected.bits = declared_zero;
            snprintf(ex.note, sizeof ex.note,
                     "the descriptor declares integer x/0 = %" PRId64 ", the kernel gave another value",
                     int_div_zero_value);
            add_finding(f, t, &ex);
        }
    }
}

/* Judges a case whose output element i depends only on i mod
 * out->period (verdict_outputs.period): the first period by the oracle,
 * each later one that repeats it byte for byte (flags too) by adding the
 * first period's counts again, any other one element by element. */
static void compare_periods(const oracle_rules *r, const divcase *c, const oracle_plan *p,
                            const oracle_elem *expected, const verdict_outputs *out,
                            const verdict_profile *prof, uint64_t declared,
                            int64_t int_div_zero_value, verdict_tally *t, case_findings *f)
{
    uint64_t period = out->period, n = p->count;
    verdict_tally first;
    memset(&first, 0, sizeof first);
    compare_elements(r, c, p, expected, out, prof, declared, int_div_zero_value, &first, f, 0,
                     period);
    verdict_tally_add(t, &first);
    int n_first = f->n;
    uint64_t first_elements[MAX_SIGNATURES];
    for (int j = 0; j < n_first; j++)
        first_elements[j] = f->ex[j].elements;
    size_t bytes = (size_t)oracle_nbytes(r->dtype, period);
    for (uint64_t at = period; at < n; at += period) {
        uint64_t end = n - at < period ? n : at + period;
        if (end - at == period &&
            memcmp(out->out1 + oracle_nbytes(r->dtype, at), out->out1, bytes) == 0 &&
            (!out->flags || memcmp(out->flags + at, out->flags, (size_t)period) == 0)) {
            verdict_tally_add(t, &first);
            for (int j = 0; j < n_first; j++)
                f->ex[j].elements += first_elements[j];
        } else {
            compare_elements(r, c, p, expected, out, prof, declared, int_div_zero_value, t, f, at,
                             end);
        }
    }
}

int verdict_case(const oracle_rules *r, const divcase *c, int valid, const oracle_plan *p,
                 const oracle_elem *expected, const verdict_outputs *out,
                 const verdict_profile *prof, uint64_t declared, int64_t int_div_zero_value,
                 verdict_tally *t, verdict_sink sink, void *ctx)
{
    case_findings *f = dvg_calloc(1, sizeof *f);
    if (!f)
        return -1;
    uint64_t before[ORACLE_CLASS_COUNT];
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++)
        before[k] = t->counts[k] + t->accepted[k];
    t->cases++;
    switch (out->outcome) {
    case VERDICT_OUT_OK:
        if (!valid) {
            case_level(f, t, ORACLE_CLASS_INVALID_ACCEPTED,
                       "output_shape accepted shapes the spec makes invalid");
        } else if (!out->has_shape || !oracle_shape_equal(&out->shape, &p->out)) {
            char got[160], want[160], note[400];
            if (out->has_shape)
                oracle_shape_format(&out->shape, got, sizeof got);
            else
                snprintf(got, sizeof got, "no shape");
            snprintf(note, sizeof note, "output_shape gave %s, the spec gives %s", got,
                     oracle_shape_format(&p->out, want, sizeof want));
            case_level(f, t, ORACLE_CLASS_WRONG_SHAPE, note);
        } else if (out->computed) {
            t->elements += p->count;
            if (out->period && out->period < p->count)
                compare_periods(r, c, p, expected, out, prof, declared, int_div_zero_value, t, f);
            else
                compare_elements(r, c, p, expected, out, prof, declared, int_div_zero_value, t,
                                 f, 0, p->count);
            if (out->side & VERDICT_SIDE_INPUT)
                case_level(f, t, ORACLE_CLASS_INPUT_MUTATED, "an input's bytes changed during compute");
            if (out->side & VERDICT_SIDE_SLACK)
                case_level(f, t, ORACLE_CLASS_OOB_WRITE, "a byte before the output changed");
            if (out->side & VERDICT_SIDE_PADDING)
                case_level(f, t, ORACLE_CLASS_PADDING_WRITTEN,
                           "the unused high nibble of C's last byte changed (an odd number of "
                           "4-bit elements: the byte's low nibble is the last element)");
        }
        break;
    case VERDICT_OUT_INVALID_INPUT:
        if (valid)
            case_level(f, t, ORACLE_CLASS_VALID_REJECTED, out->note);
        break;
    default:
        if (!valid && out->in_shape && out->outcome == VERDICT_OUT_UNSUPPORTED)
            break; /* an invalid input answered 'unsupported': not a claim failure */
        case_level(f, t, outcome_class(out->outcome), out->note);
        break;
    }
    /* Process state a call left changed (whoever ran it put it back, so the
     * results of this and later cases are judged as computed from the
     * state open() left). */
    if (out->side & VERDICT_SIDE_FP_STATE)
        case_level(f, t, ORACLE_CLASS_FP_STATE_LEAKED, out->leak);
    if (out->side & VERDICT_SIDE_SIGNAL_STATE)
        case_level(f, t, ORACLE_CLASS_SIGNAL_STATE_LEAKED, out->leak);
    for (int k = 1; k < ORACLE_CLASS_COUNT; k++)
        if (t->counts[k] + t->accepted[k] != before[k])
            t->class_cases[k]++;
    int conforms = 1;
    for (int i = 0; i < f->n; i++) {
        if (!f->ex[i].accepted)
            conforms = 0;
        if (sink && sink(ctx, c, &f->ex[i])) {
            dvg_free(f);
            return -1;
        }
    }
    dvg_free(f);
    return conforms;
}

void verdict_tally_add(verdict_tally *to, const verdict_tally *from)
{
    to->cases += from->cases;
    to->elements += from->elements;
    for (int k = 0; k < ORACLE_CLASS_COUNT; k++) {
        to->counts[k] += from->counts[k];
        to->accepted[k] += from->accepted[k];
        to->class_cases[k] += from->class_cases[k];
    }
    if (from->max_ulps > to->max_ulps)
        to->max_ulps = from->max_ulps;
    for (int b = 0; b < VERDICT_ULP_BUCKETS; b++)
        to->ulp_hist[b] += from->ulp_hist[b];
    to->unspecified += from->unspecified;
    to->unspecified_not_preferred += from->unspecified_not_preferred;
    to->any_inf_positive += from->any_inf_positive;
    to->any_inf_negative += from->any_inf_negative;
    to->subnormal_results += from->subnormal_results;
    to->declared_checked += from->declared_checked;
    if (from->cache_bytes > to->cache_bytes) {
        to->cache_bytes = from->cache_bytes;
        to->cache_calls = from->cache_calls;
    }
    if (from->cache_lo && (!to->cache_lo || from->cache_lo < to->cache_lo))
        to->cache_lo = from->cache_lo;
    if (from->cache_hi > to->cache_hi)
        to->cache_hi = from->cache_hi;
}

int verdict_tally_failed(const verdict_tally *t)
{
    for (int i = 1; i < ORACLE_CLASS_COUNT; i++)
        if (t->counts[i])
            return 1;
    return 0;
}

int verdict_emulation_fakeable(uint32_t cls)
{
    return cls == ORACLE_CLASS_OOB_READ;
}

int verdict_take_emulation_fakes(verdict_tally *t, verdict_tally *fake)
{
    memset(fake, 0, sizeof *fake);
    int any = 0;
    for (uint32_t i = 1; i < ORACLE_CLASS_COUNT; i++) {
        if (!verdict_emulation_fakeable(i) || !(t->counts[i] || t->class_cases[i]))
            continue;
        fake->counts[i] = t->counts[i];
        fake->class_cases[i] = t->class_cases[i];
        t->counts[i] = t->class_cases[i] = 0;
        any = 1;
    }
    fake->cases = (uint64_t)any;
    return any;
}

int verdict_tally_accepted(const verdict_tally *t)
{
    for (int i = 1; i < ORACLE_CLASS_COUNT; i++)
        if (t->accepted[i] && !verdict_capability((uint32_t)i))
            return 1;
    return 0;
}

/* The capability classes: the bit each stands for and its row's words. */
static const struct {
    uint32_t cls;
    uint64_t cap;
    const char *what, *bad;
} capability_rows[] = {
    {ORACLE_CLASS_INSTANCES_NOT_CONCURRENT, DVG_CAP_INSTANCES_CONCURRENT, "re-entrant", "no"},
    {ORACLE_CLASS_INSTANCE_NOT_CONCURRENT, DVG_CAP_INSTANCE_CONCURRENT,
     "one instance from two threads", "unsafe"},
    {ORACLE_CLASS_IN_PLACE_A_WRONG, DVG_CAP_IN_PLACE_A, "in place on A", "unsafe"},
    {ORACLE_CLASS_IN_PLACE_B_WRONG, DVG_CAP_IN_PLACE_B, "in place on B", "unsafe"},
    {ORACLE_CLASS_THREAD_COUNT_DIFFERS, DVG_CAP_THREADS, "thread counts", "differ"},
};

uint64_t verdict_capability(uint32_t cls)
{
    for (size_t i = 0; i < sizeof capability_rows / sizeof capability_rows[0]; i++)
        if (capability_rows[i].cls == cls)
            return capability_rows[i].cap;
    return 0;
}

void verdict_capability_row(uint32_t cls, int seen, const char **what, const char **answer)
{
    *what = "?";
    *answer = "?";
    for (size_t i = 0; i < sizeof capability_rows / sizeof capability_rows[0]; i++)
        if (capability_rows[i].cls == cls) {
            *what = capability_rows[i].what;
            *answer = seen ? capability_rows[i].bad : "yes";
        }
}

/* 1 when refusals of undefined input are all the tally accepted. */
static int only_refusals(const verdict_tally *t)
{
    for (int i = 1; i < ORACLE_CLASS_COUNT; i++)
        if (t->accepted[i] && i != ORACLE_CLASS_REFUSED_UNDEFINED &&
            !verdict_capability((uint32_t)i))
            return 0;
    return 1;
}

const char *verdict_certificate(const verdict_tally *t, const verdict_profile *prof,
                                uint64_t declared, int incomplete, char *buf, size_t len)
{
    const uint64_t *n = t->counts;
    if (n[ORACLE_CLASS_UNSUPPORTED_CLAIM] && n[ORACLE_CLASS_UNSUPPORTED_CLAIM] >= t->cases / 2)
        return "UNSUPPORTED";
    if (n[ORACLE_CLASS_CRASH] || n[ORACLE_CLASS_HANG] || n[ORACLE_CLASS_OOB_WRITE] ||
        n[ORACLE_CLASS_OOB_READ] || n[ORACLE_CLASS_INPUT_MUTATED])
        return "CRASHED";
    if (verdict_tally_failed(t))
        return "NONCONFORMANT";
    if (incomplete)
        return "INCOMPLETE";
    if (verdict_tally_accepted(t) &&
        !(t->accepted[ORACLE_CLASS_REFUSED_UNDEFINED] && only_refusals(t))) {
        uint32_t used = (t->accepted[ORACLE_CLASS_FLUSHED_SUBNORMAL_OUTPUT] ? ORACLE_MODE_FTZ : 0) |
                        (t->accepted[ORACLE_CLASS_SUBNORMAL_INPUT_AS_ZERO] ? ORACLE_MODE_DAZ : 0);
        if ((used & ~prof->modes) && (used & verdict_declared_modes(declared)) && !prof->ulp_tolerance)
            snprintf(buf, len, "CONFORMANT under profile %s (declared)",
                     verdict_modes_name(used | prof->modes));
        else
            snprintf(buf, len, "CONFORMANT under profile %s", prof->name);
        return buf;
    }
    return "CONFORMANT";
}
