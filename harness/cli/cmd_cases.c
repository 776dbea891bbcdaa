/* SPDX-License-Identifier: MIT */
/*
 * divergence cases [--dir PATH] [--matrix] [--check] [--max-elements N]
 *
 * Reads the conformance cases (cases/README.md) and
 *   lists them (name, variant, dtype, shapes, requirements), or
 *   --matrix: prints every requirement of the table with the number of
 *             cases that cite it, and the requirements no case cites, or
 *   --check:  checks that the oracle agrees with every expectation the
 *             files write down (output shape, invalid input, elements);
 *             each disagreement is reported as FILE:LINE and the exit
 *             status is 1.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/base/datadir.h"
#include "harness/cases/casefile.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/judge/verdict.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/requirements.h"
#include "oracle/rules.h"
#include "oracle/shape.h"
#include "oracle/value.h"
#include "oracle/variant.h"

/* Disagreements printed per case before the rest are only counted. */
#define MAX_REPORTS_PER_CASE 10

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence cases [--dir PATH] [--matrix | --check] [--max-elements N]\n"
            "  --dir PATH        a .case file or a directory of them (default: the data\n"
            "                    directory's cases/, see DIVERGENCE_DATA_DIR)\n"
            "  --matrix          requirements of the spec table and how many cases cite each\n"
            "  --check           check that the oracle agrees with every expectation written\n"
            "                    in the files; exit 1 on any disagreement\n"
            "  --max-elements N  largest tensor of a case (default %" PRIu64 ")\n"
            "without --matrix or --check: list the cases\n",
            CASEFILE_DEFAULT_MAX_ELEMENTS);
    return 2;
}

static const char *requirement_list(const divcase *c, char *buf, size_t len)
{
    buf[0] = '\0';
    for (uint32_t i = 0; i < c->n_requirements; i++) {
        if (i)
            strncat(buf, ",", len - strlen(buf) - 1);
        strncat(buf, c->requirements[i], len - strlen(buf) - 1);
    }
    return buf;
}

static void list_cases(const casefile_set *s)
{
    char sa[96], sb[96], se[96], attrs[160], reqs[400];
    for (size_t i = 0; i < s->count; i++) {
        const divcase *c = &s->cases[i];
        const oracle_variant *v = oracle_variant_get(c->variant);
        oracle_attrs_format(v, &c->attrs, attrs, sizeof attrs);
        if (c->expect_invalid)
            snprintf(se, sizeof se, "invalid");
        else
            oracle_shape_format(&c->expect_shape, se, sizeof se);
        printf("%-44s %-17s %-4s %s / %s -> %s%s%s%s  [%s]\n", c->id, v->name,
               oracle_dtype_tag(c->dtype), oracle_shape_format(&c->a_shape, sa, sizeof sa),
               oracle_shape_format(&c->b_shape, sb, sizeof sb), se,
               c->expect ? " (values)" : "", attrs[0] ? "  " : "", attrs,
               requirement_list(c, reqs, sizeof reqs));
    }
    printf("%zu cases from %" PRIu32 " case blocks in %zu files\n", s->count, s->n_blocks,
           s->n_paths);
}

static void print_matrix(const casefile_set *s)
{
    size_t n = oracle_requirement_count(), uncited = 0;
    uint64_t *counts = dvg_calloc(n ? n : 1, sizeof *counts);
    if (!counts) {
        fprintf(stderr, "divergence cases: out of memory\n");
        return;
    }
    for (size_t i = 0; i < s->count; i++)
        for (uint32_t j = 0; j < s->cases[i].n_requirements; j++)
            for (size_t k = 0; k < n; k++)
                if (!strcmp(oracle_requirement_at(k)->id, s->cases[i].requirements[j]))
                    counts[k]++;
    printf("%-28s %-25s %6s  %s\n", "REQUIREMENT", "DOCUMENT", "CASES", "SENTENCE");
    for (size_t k = 0; k < n; k++) {
        const oracle_requirement *r = oracle_requirement_at(k);
        char sentence[64];
        size_t len = strlen(r->sentence);
        if (len < sizeof sentence)
            memcpy(sentence, r->sentence, len + 1);
        else
            snprintf(sentence, sizeof sentence, "%.*s...", (int)sizeof sentence - 4,
                     r->sentence);
        printf("%-28s %-25s %6" PRIu64 "  %s\n", r->id, r->document, counts[k], sentence);
        uncited += counts[k] == 0;
    }
    printf("\n%zu of %zu requirements are cited by at least one of %zu cases.\n", n - uncited,
           n, s->count);
    if (uncited) {
        printf("Cited by no case:");
        for (size_t k = 0; k < n; k++)
            if (!counts[k])
                printf(" %s", oracle_requirement_at(k)->id);
        printf("\n");
    }
    dvg_free(counts);
}

/* The file's expected element and the oracle's answer agree when they are
 * the same kind of answer and, for exact ones, the same bits. */
static int elems_agree(const oracle_elem *file, const oracle_elem *oracle)
{
    if (file->kind != oracle->kind)
        return 0;
    return file->kind != ORACLE_EXACT || file->bits == oracle->bits;
}

/* Checks one case; returns the number of disagreements, *elements the
 * number of elements compared. */
static uint64_t check_case(const divcase *c, const casefile_meta *m, uint64_t max_elements,
                           uint64_t *elements)
{
    oracle_rules r;
    oracle_plan plan;
    oracle_error why;
    char s1[96], s2[96];
    uint32_t shape_line = m->expect_shape_line ? m->expect_shape_line : m->expect_line;
    *elements = 0;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, &why)) {
        printf("%s:%u: case %s: the oracle refuses the case: %s\n", m->path, (unsigned)m->line,
               c->id, why.text);
        return 1;
    }
    int rc = oracle_plan_shapes(&r, &c->a_shape, &c->b_shape, &plan, &why);
    if (rc == ORACLE_EUSAGE) {
        printf("%s:%u: case %s: the oracle refuses the shapes: %s\n", m->path,
               (unsigned)m->line, c->id, why.text);
        return 1;
    }
    if (rc == ORACLE_INVALID) {
        if (c->expect_invalid)
            return 0;
        printf("%s:%u: case %s: the file expects output shape %s, the oracle says the input "
               "is invalid: %s [%s]\n", m->path, (unsigned)shape_line, c->id,
               oracle_shape_format(&c->expect_shape, s1, sizeof s1), why.text,
               why.requirement ? why.requirement : "-");
        return 1;
    }
    if (c->expect_invalid) {
        printf("%s:%u: case %s: the file expects invalid input, the oracle gives output shape "
               "%s\n", m->path, (unsigned)m->expect_line, c->id,
               oracle_shape_format(&plan.out, s1, sizeof s1));
        return 1;
    }
    if (c->has_expect_shape && !oracle_shape_equal(&c->expect_shape, &plan.out)) {
        printf("%s:%u: case %s: the file expects output shape %s, the oracle gives %s\n",
               m->path, (unsigned)shape_line, c->id,
               oracle_shape_format(&c->expect_shape, s1, sizeof s1),
               oracle_shape_format(&plan.out, s2, sizeof s2));
        return 1;
    }
    if (!c->expect)
        return 0;
    if (plan.count != c->expect_count || plan.count > max_elements) {
        printf("%s:%u: case %s: %" PRIu64 " expected values for %" PRIu64 " output elements\n",
               m->path, (unsigned)m->expect_line, c->id, c->expect_count, plan.count);
        return 1;
    }
    oracle_elem *got = dvg_malloc((size_t)(plan.count ? plan.count : 1) * sizeof *got);
    if (!got) {
        printf("%s:%u: case %s: out of memory for %" PRIu64 " elements\n", m->path,
               (unsigned)m->line, c->id, plan.count);
        return 1;
    }
    oracle_expect_tensor(&r, &plan, c->a, c->b, got);
    uint64_t bad = 0;
    for (uint64_t i = 0; i < plan.count; i++) {
        if (elems_agree(&c->expect[i], &got[i]))
            continue;
        if (++bad <= MAX_REPORTS_PER_CASE) {
            uint64_t ao, bo;
            char av[48], bv[48], fe[80], oe[80];
            oracle_plan_offsets(&plan, i, &ao, &bo);
            const oracle_rule_info *info = oracle_rule_info_get(got[i].rule);
            printf("%s:%u: case %s: element %" PRIu64 " (%s / %s): the file expects %s, the "
                   "oracle says %s [%s, %s]\n", m->path, (unsigned)casefile_elem_line(m, i),
                   c->id, i, oracle_value_format(c->dtype, oracle_load(c->dtype, c->a, ao), av,
                                                 sizeof av),
                   oracle_value_format(c->dtype, oracle_load(c->dtype, c->b, bo), bv, sizeof bv),
                   verdict_elem_text(c->dtype, &c->expect[i], fe, sizeof fe),
                   verdict_elem_text(c->dtype, &got[i], oe, sizeof oe), info ? info->name : "?",
                   oracle_elem_requirement(&r, &got[i]));
        }
    }
    if (bad > MAX_REPORTS_PER_CASE)
        printf("%s:%u: case %s: ... and %" PRIu64 " more disagreeing elements\n", m->path,
               (unsigned)m->expect_line, c->id, bad - MAX_REPORTS_PER_CASE);
    *elements = plan.count;
    dvg_free(got);
    return bad;
}

static int check_cases(const casefile_set *s, uint64_t max_elements)
{
    uint64_t cases_bad = 0, disagreements = 0, elements = 0, invalid = 0;
    for (size_t i = 0; i < s->count; i++) {
        uint64_t n;
        uint64_t bad = check_case(&s->cases[i], &s->meta[i], max_elements, &n);
        elements += n;
        invalid += s->cases[i].expect_invalid != 0;
        disagreements += bad;
        cases_bad += bad != 0;
    }
    printf("checked %zu cases (%" PRIu64 " invalid inputs, %" PRIu64 " expected elements) from "
           "%zu files: %" PRIu64 " disagreements in %" PRIu64 " cases\n",
           s->count, invalid, elements, s->n_paths, disagreements, cases_bad);
    return disagreements ? 1 : 0;
}

/* --max-elements N (dest: a uint64_t): N a positive decimal integer. 0, or
 * -1 with a message. */
static int flag_max_elements(const char *cmd, const char *flag, const char *val, void *dest)
{
    char *end;
    unsigned long long v = strtoull(val, &end, 10);
    if (*end || !v || val[0] == '-') {
        fprintf(stderr, "divergence %s: %s '%s': expected a positive integer\n", cmd, flag, val);
        return -1;
    }
    *(uint64_t *)dest = v;
    return 0;
}

int cmd_cases(int argc, char **argv)
{
    const char *dir = NULL;
    char found[DATADIR_PATH_MAX], where[2 * DATADIR_PATH_MAX];
    int matrix = 0, check = 0;
    uint64_t max_elements = CASEFILE_DEFAULT_MAX_ELEMENTS;
    const cli_flag flags[] = {
        CLI_FLAG_SWITCH("--matrix", &matrix, 1),
        CLI_FLAG_SWITCH("--check", &check, 1),
        CLI_FLAG_TEXT("--dir", &dir),
        CLI_FLAG_CALL("--max-elements", flag_max_elements, &max_elements),
        CLI_FLAG_END};
    const cli_command c = {.name = "cases", .usage = usage, .flags = flags,
                           .unknown = "unknown or incomplete option"};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    if (matrix && check) {
        fprintf(stderr, "divergence cases: --matrix and --check are separate runs\n");
        return usage(stderr);
    }
    if (!dir && datadir_find("cases", found, sizeof found, where, sizeof where)) {
        fprintf(stderr, "divergence cases: %s; --dir PATH names the cases\n", where);
        return 2;
    }
    if (!dir)
        dir = found;
    casefile_set *set = NULL;
    casefile_error err;
    if (casefile_load(dir, max_elements, &set, &err)) {
        fprintf(stderr, "%s\n", err.text);
        return 2;
    }
    rc = 0;
    if (matrix)
        print_matrix(set);
    else if (check)
        rc = check_cases(set, max_elements);
    else
        list_cases(set);
    casefile_set_free(set);
    return rc;
}
