/* SPDX-License-Identifier: MIT */
/*
 * This file contains the resolving of `--variant V --dtype T [--attr k=v]`
 * shared by `divergence explain` and `divergence oracle` (the words read
 * by cli_parse through TARGET_FLAGS): it resolves the variant and dtype
 * through the oracle's tables, checks the attributes and builds the
 * rules.
 */
#include "harness/cli/target.h"

#include <string.h>

#include "oracle/dtype.h"

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

int target_resolve(const char *cmd, const target_flags *tf, target *t, FILE *errors)
{
    const char *variant = tf->variant, *dtype = tf->dtype;
    const char *const *attrs = tf->attrs;
    memset(t, 0, sizeof *t);
    if (!variant) {
        fprintf(errors, "divergence %s: --variant is required\n", cmd);
        list_variants(errors);
        return 2;
    }
    t->variant = oracle_variant_by_name(variant);
    if (!t->variant) {
        fprintf(errors, "divergence %s: unknown variant '%s'\n", cmd, variant);
        list_variants(errors);
        return 2;
    }
    if (!dtype) {
        fprintf(errors, "divergence %s: --dtype is required\n", cmd);
        list_dtypes(errors, t->variant);
        return 2;
    }
    t->dtype = oracle_dtype_by_tag(dtype);
    if (!t->dtype) {
        fprintf(errors, "divergence %s: unknown dtype '%s'\n", cmd, dtype);
        list_dtypes(errors, t->variant);
        return 2;
    }
    oracle_attrs_default(t->variant, &t->attrs);
    for (uint32_t i = 0; i < tf->n_attrs; i++) {
        char key[64];
        const char *eq = strchr(attrs[i], '=');
        if (!eq || eq == attrs[i] || (size_t)(eq - attrs[i]) >= sizeof key) {
            fprintf(errors, "divergence %s: --attr '%s': expected key=value\n", cmd, attrs[i]);
            return 2;
        }
        memcpy(key, attrs[i], (size_t)(eq - attrs[i]));
        key[eq - attrs[i]] = '\0';
        oracle_error err;
        if (oracle_attrs_set(t->variant, &t->attrs, key, eq + 1, &err)) {
            fprintf(errors, "divergence %s: --attr %s: %s\n", cmd, attrs[i], err.text);
            return 2;
        }
    }
    oracle_error err;
    if (oracle_rules_resolve(t->variant->id, t->dtype, &t->attrs, &t->rules, &err)) {
        fprintf(errors, "divergence %s: %s\n", cmd, err.text);
        if (!oracle_variant_has_dtype(t->variant, t->dtype))
            list_dtypes(errors, t->variant);
        return 2;
    }
    return 0;
}
