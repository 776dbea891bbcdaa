/* SPDX-License-Identifier: MIT */
/*
 * oracle/rules.h: one (variant, dtype, attributes) triple resolved into the
 * concrete rules the oracle applies: which shape rule, which integer
 * rounding, what float x/0 means.
 */
#ifndef ORACLE_RULES_H
#define ORACLE_RULES_H

#include <stdint.h>
#include "divergence/iut.h"
#include "oracle/error.h"
#include "oracle/variant.h"

typedef struct oracle_rules {
    const oracle_variant *variant;
    uint32_t dtype;          /* DVG_DTYPE_* */
    uint32_t kind;           /* DVG_KIND_* of dtype */
    dvg_attrs attrs;         /* as given, defaults filled */
    uint32_t shape_rule;     /* ORACLE_SHAPE_EQUAL / NUMPY / PDPD / ONNX_LEGACY */
    uint32_t int_rounding;   /* DVG_ROUND_TRUNC or DVG_ROUND_FLOOR */
    uint32_t float_div_zero; /* ORACLE_FDZ_* */
    const char *shape_requirement;    /* requirement ID of the shape rule */
    const char *rounding_requirement; /* requirement ID of int rounding */
} oracle_rules;

/*
 * Resolves the rules for one Div node. `attrs` may be NULL for the
 * variant's defaults. ORACLE_EUSAGE when the dtype is not in the variant's
 * type list or an attribute value is out of range (message in *err).
 * On success writes *out.
 */
int oracle_rules_resolve(uint32_t variant, uint32_t dtype, const dvg_attrs *attrs,
                         oracle_rules *out, oracle_error *err);

#endif /* ORACLE_RULES_H */
