/* SPDX-License-Identifier: MIT */
/*
 * divergence explain --variant V --dtype T [--attr k=v ...] [--profile P] A B
 *
 * Prints the expected result of one division, the rule that produced it
 * and the spec sentence it comes from; with a profile whose modes accept
 * other values (ftz, daz, ftz+daz), those values and why.
 */
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/cli/target.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/requirements.h"
#include "oracle/value.h"

static void print_requirement(const char *label, const char *id)
{
    const oracle_requirement *req = oracle_requirement_find(id);
    if (!req)
        return;
    printf("%-10s %s (%s, %s)\n           \"%s\"\n", label, req->id, req->document, req->where,
           req->sentence);
}

static void print_value(const char *label, uint32_t dtype, uint64_t bits, const char *suffix)
{
    char hex[24], dec[48];
    printf("%-10s %s  %s%s\n", label, oracle_bits_format(dtype, bits, hex, sizeof hex),
           oracle_value_format(dtype, bits, dec, sizeof dec), suffix);
}

/* The values the profile's modes accept beyond the answer, one line each;
 * a line saying so when they accept none here. */
static void print_modes(const target *t, const verdict_profile *prof, uint64_t a, uint64_t b,
                        const oracle_elem *e)
{
    uint64_t zero;
    oracle_elem daz;
    char text[VERDICT_TEXT_MAX];
    int any = 0;
    if (!prof->modes)
        return;
    if ((prof->modes & ORACLE_MODE_FTZ) && oracle_ftz_zero(&t->rules, a, b, &zero) &&
        !oracle_elem_accepts(t->dtype, e, zero)) {
        print_value("ftz", t->dtype, zero,
                    "  also accepted: the exact quotient is tiny (below the smallest normal), "
                    "flush-to-zero gives a zero of its sign");
        any = 1;
    }
    if ((prof->modes & ORACLE_MODE_DAZ) && oracle_daz_expect(&t->rules, a, b, &daz) &&
        !(daz.kind == ORACLE_EXACT && oracle_elem_accepts(t->dtype, e, daz.bits))) {
        printf("%-10s %s  also accepted: denormals-are-zero reads the subnormal operand%s as "
               "zero (%s)\n",
               "daz", verdict_elem_text(t->dtype, &daz, text, sizeof text),
               oracle_operand_class(t->dtype, a) == ORACLE_OPERAND_SUBNORMAL &&
                       oracle_operand_class(t->dtype, b) == ORACLE_OPERAND_SUBNORMAL
                   ? "s"
                   : "",
               oracle_rule_info_get(daz.rule)->name);
        any = 1;
    }
    if (!any)
        printf("%-10s nothing else: profile %s accepts only the expected value here\n", "accepted",
               prof->name);
}

static int usage(FILE *to)
{
    fprintf(to, "usage: divergence explain --variant V --dtype T [--attr k=v ...] "
                "[--profile exact|ftz|daz|ftz+daz] A B\n"
                "  A and B: hex bits (0x3c00) or values (1.5, -7, inf, nan)\n"
                "  --profile: also the values its flush-to-zero / denormals-are-zero modes accept\n");
    return 2;
}

int cmd_explain(int argc, char **argv)
{
    target_flags tf = {0};
    target t;
    verdict_profile prof;
    char why[160];
    verdict_profile_parse("exact", &prof, why, sizeof why);
    const cli_shared shared = {.profile = &prof};
    const cli_flag flags[] = {TARGET_FLAGS(&tf), CLI_FLAG_END};
    /* The operands, stored over the words they come from (argv + 1): a
     * negative number is one, and so is every word after "--". */
    char **rest = argv + 1;
    uint32_t n_rest;
    const cli_command c = {.name = "explain", .usage = usage, .flags = flags, .shared = &shared,
                           .operands = rest, .max_operands = argc > 0 ? (uint32_t)argc - 1 : 0,
                           .n_operands = &n_rest, .mode = CLI_HELP_ANYWHERE | CLI_OPERANDS};
    int rc = cli_parse(&c, argc, argv);
    if (rc)
        return CLI_EXIT(rc);
    if (target_resolve("explain", &tf, &t, stderr))
        return 2;
    if (n_rest != 2) {
        fprintf(stderr, "divergence explain: expected two operands A B, got %u\n", n_rest);
        return usage(stderr);
    }
    uint64_t a, b;
    oracle_error err;
    if (oracle_value_parse(t.dtype, rest[0], &a, &err)) {
        fprintf(stderr, "divergence explain: operand A: %s\n", err.text);
        return 2;
    }
    if (oracle_value_parse(t.dtype, rest[1], &b, &err)) {
        fprintf(stderr, "divergence explain: operand B: %s\n", err.text);
        return 2;
    }

    oracle_elem e;
    oracle_expect(&t.rules, a, b, &e);
    const oracle_rule_info *rule = oracle_rule_info_get(e.rule);
    char attrs[160];
    oracle_attrs_format(t.variant, &t.attrs, attrs, sizeof attrs);

    printf("%-10s %s (%s)\n", "variant", t.variant->name, t.variant->document);
    printf("%-10s %s%s\n", "dtype", oracle_dtype_tag(t.dtype),
           (t.variant->contents_only_dtypes >> t.dtype) & 1
               ? "  (named only in the document's contents list)"
               : "");
    printf("%-10s %s\n", "attrs", attrs[0] ? attrs : "(none)");
    print_value("A", t.dtype, a, "");
    print_value("B", t.dtype, b, "");
    switch (e.kind) {
    case ORACLE_EXACT:
        print_value("expected", t.dtype, e.bits, "  (exact bits)");
        break;
    case ORACLE_ANY_NAN:
        printf("%-10s nan  (any NaN: payload and sign free)\n", "expected");
        break;
    case ORACLE_ANY_INF:
        print_value("expected", t.dtype, e.bits, "  or the other sign: +inf or -inf conforms");
        break;
    default:
        printf("%-10s unspecified  (any value conforms; a crash or hang does not)\n", "expected");
        break;
    }
    printf("%-10s %s: %s\n", "rule", rule->name, rule->text);
    print_requirement("spec", oracle_elem_requirement(&t.rules, &e));
    if (e.kind == ORACLE_UNSPECIFIED && e.has_alt)
        print_value("preferred", t.dtype, e.alt,
                    e.rule == ORACLE_RULE_INT_MIN_BY_MINUS_ONE ? "  (two's complement wrap)"
                                                              : "  (what IEEE 754 gives)");
    if (e.kind == ORACLE_EXACT && e.has_alt && e.alt != e.bits)
        print_value(t.rules.int_rounding == DVG_ROUND_FLOOR ? "trunc" : "floor", t.dtype, e.alt,
                    "  (the other rounding: reported as floor-vs-trunc)");
    print_modes(&t, &prof, a, b, &e);
    if (t.rules.shape_requirement)
        print_requirement("shapes", t.rules.shape_requirement);
    if (t.variant->note)
        printf("%-10s %s\n", "note", t.variant->note);
    return 0;
}
