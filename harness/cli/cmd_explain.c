/* SPDX-License-Identifier: MIT */
/*
 * divergence explain --variant V --dtype T [--attr k=v ...] A B
 *
 * Prints the expected result of one division, the rule that produced it
 * and the spec sentence it comes from.
 */
#include <stdio.h>
#include <string.h>

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

static int usage(FILE *to)
{
    fprintf(to, "usage: divergence explain --variant V --dtype T [--attr k=v ...] A B\n"
                "  A and B: hex bits (0x3c00) or values (1.5, -7, inf, nan)\n");
    return 2;
}

int cmd_explain(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
    char **rest = argv; /* the operands, compacted in place */
    int n_rest;
    target t;
    if (target_parse(argc, argv, &t, rest, &n_rest, stderr))
        return 2;
    if (n_rest != 2) {
        fprintf(stderr, "divergence explain: expected two operands A B, got %d\n", n_rest);
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
    if (t.rules.shape_requirement)
        print_requirement("shapes", t.rules.shape_requirement);
    if (t.variant->note)
        printf("%-10s %s\n", "note", t.variant->note);
    return 0;
}
