/* SPDX-License-Identifier: MIT */
/*
 * This file contains the parsing of `--variant V --dtype T [--attr k=v]`
 * shared by `divergence explain` and `divergence oracle`: it resolves the
 * variant and dtype through the oracle's tables, checks the attributes and
 * builds the rules, and leaves every other argument to the command.
 */
#include "harness/cli/target.h"

#include <string.h>

#include "oracle/dtype.h"

#define MAX_ATTRS 16

static void list_variants(FILE *to)
{
    fprintf(to, "  variants:");
    for (uint32_t i = 0; i < oracle_variant_count(); i++)
        fprintf(to, " %s", oracle_variant_at(i)->name);
    fprintf(to, "\n");
}

static void list_dtypes(FILE *to, const oracle_variant *v)
{
    fprintf(to, "  dtypes of %s:", v->name);
    for (uint32_t d = 1; d < DVG_DTYPE_COUNT; d++)
        if (oracle_variant_has_dtype(v, d))
            fprintf(to, " %s", oracle_dtype_tag(d));
    fprintf(to, "\n");
}

int target_parse(int argc, char **argv, target *t, char **rest, int *n_rest, FILE *errors)
{
    const char *variant = NULL, *dtype = NULL;
    const char *attrs[MAX_ATTRS];
    int n_attrs = 0;
    *n_rest = 0;
    memset(t, 0, sizeof *t);
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char **slot = NULL;
        if (!strcmp(arg, "--")) { /* the rest are operands, even "-7" */
            while (++i < argc)
                rest[(*n_rest)++] = argv[i];
            break;
        }
        if (!strcmp(arg, "--variant"))
            slot = &variant;
        else if (!strcmp(arg, "--dtype"))
            slot = &dtype;
        else if (!strcmp(arg, "--attr")) {
            if (n_attrs == MAX_ATTRS) {
                fprintf(errors, "divergence %s: more than %d --attr options\n", argv[0], MAX_ATTRS);
                return 2;
            }
            slot = &attrs[n_attrs++];
        }
        if (!slot) {
            rest[(*n_rest)++] = argv[i];
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(errors, "divergence %s: option %s needs a value\n", argv[0], arg);
            return 2;
        }
        *slot = argv[++i];
    }
    if (!variant) {
        fprintf(errors, "divergence %s: --variant is required\n", argv[0]);
        list_variants(errors);
        return 2;
    }
    t->variant = oracle_variant_by_name(variant);
    if (!t->variant) {
        fprintf(errors, "divergence %s: unknown variant '%s'\n", argv[0], variant);
        list_variants(errors);
        return 2;
    }
    if (!dtype) {
        fprintf(errors, "divergence %s: --dtype is required\n", argv[0]);
        list_dtypes(errors, t->variant);
        return 2;
    }
    t->dtype = oracle_dtype_by_tag(dtype);
    if (!t->dtype) {
        fprintf(errors, "divergence %s: unknown dtype '%s'\n", argv[0], dtype);
        list_dtypes(errors, t->variant);
        return 2;
    }
    oracle_attrs_default(t->variant, &t->attrs);
    for (int i = 0; i < n_attrs; i++) {
        char key[64];
        const char *eq = strchr(attrs[i], '=');
        if (!eq || eq == attrs[i] || (size_t)(eq - attrs[i]) >= sizeof key) {
            fprintf(errors, "divergence %s: --attr '%s': expected key=value\n", argv[0], attrs[i]);
            return 2;
        }
        memcpy(key, attrs[i], (size_t)(eq - attrs[i]));
        key[eq - attrs[i]] = '\0';
        oracle_error err;
        if (oracle_attrs_set(t->variant, &t->attrs, key, eq + 1, &err)) {
            fprintf(errors, "divergence %s: --attr %s: %s\n", argv[0], attrs[i], err.text);
            return 2;
        }
    }
    oracle_error err;
    if (oracle_rules_resolve(t->variant->id, t->dtype, &t->attrs, &t->rules, &err)) {
        fprintf(errors, "divergence %s: %s\n", argv[0], err.text);
        if (!oracle_variant_has_dtype(t->variant, t->dtype))
            list_dtypes(errors, t->variant);
        return 2;
    }
    return 0;
}
