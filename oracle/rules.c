/* SPDX-License-Identifier: MIT */
/*
 * This file contains the resolution of a (variant, dtype, attributes)
 * triple into the concrete rules the oracle applies (shape rule, integer
 * rounding, float x/0), with the shape attributes checked against the
 * variant's table.
 */
#include "oracle/rules.h"

#include <string.h>

#include "oracle/dtype.h"

/* The shape rule of a variant once its attributes are known. */
static int resolve_shape(const oracle_variant *v, const dvg_attrs *a, oracle_rules *out,
                         oracle_error *err)
{
    if (v->shape_rule != ORACLE_SHAPE_BY_ATTR) {
        out->shape_rule = v->shape_rule;
        out->shape_requirement =
            v->shape_rule == ORACLE_SHAPE_EQUAL ? "SONNX-R1" : "ONNX-NUMPY-BCAST";
        return ORACLE_OK;
    }
    if (v->attr_keys & ORACLE_ATTR_BROADCAST) {
        if (a->broadcast == 0) {
            out->shape_rule = ORACLE_SHAPE_EQUAL;
            out->shape_requirement = "ONNX-LEGACY-BCAST-OFF";
        } else if (a->broadcast == 1) {
            out->shape_rule = ORACLE_SHAPE_ONNX_LEGACY;
            out->shape_requirement = "ONNX-LEGACY-BCAST-SUBSET";
        } else {
            return oracle_fail(err, ORACLE_EUSAGE, "ONNX-LEGACY-BCAST-OFF",
                               "attribute broadcast=%d: expected 0 or 1", (int)a->broadcast);
        }
        return ORACLE_OK;
    }
    switch (a->auto_broadcast) {
    case DVG_BROADCAST_NONE:
        out->shape_rule = ORACLE_SHAPE_EQUAL;
        out->shape_requirement = "OV-BCAST-NONE";
        return ORACLE_OK;
    case DVG_BROADCAST_NUMPY:
        out->shape_rule = ORACLE_SHAPE_NUMPY;
        out->shape_requirement = "OV-BCAST-NUMPY";
        return ORACLE_OK;
    case DVG_BROADCAST_PDPD:
        out->shape_rule = ORACLE_SHAPE_PDPD;
        out->shape_requirement = "SEM-PDPD-RULES";
        return ORACLE_OK;
    default:
        return oracle_fail(err, ORACLE_EUSAGE, "OV-BCAST-NUMPY",
                           "attribute auto_broadcast=%u: expected none, numpy or pdpd",
                           (unsigned)a->auto_broadcast);
    }
}

int oracle_rules_resolve(uint32_t variant, uint32_t dtype, const dvg_attrs *attrs,
                         oracle_rules *out, oracle_error *err)
{
    const oracle_variant *v = oracle_variant_get(variant);
    if (!v)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "unknown variant %u", (unsigned)variant);
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return oracle_fail(err, ORACLE_EUSAGE, NULL, "unknown dtype %u", (unsigned)dtype);
    if (!oracle_variant_has_dtype(v, dtype))
        return oracle_fail(err, ORACLE_EUSAGE, v->types_requirement,
                           "dtype %s is not in the type list of %s", d->tag, v->name);

    oracle_rules r;
    memset(&r, 0, sizeof r);
    r.variant = v;
    r.dtype = dtype;
    r.kind = d->kind;
    if (attrs)
        r.attrs = *attrs;
    else
        oracle_attrs_default(v, &r.attrs);
    r.attrs.size = sizeof r.attrs;

    int rc = resolve_shape(v, &r.attrs, &r, err);
    if (rc)
        return rc;

    r.int_rounding = v->int_rounding;
    r.rounding_requirement = v->int_rounding_requirement;
    if (v->attr_keys & ORACLE_ATTR_PYTHONDIV) {
        r.int_rounding = r.attrs.pythondiv ? DVG_ROUND_FLOOR : DVG_ROUND_TRUNC;
    }
    if ((v->attr_keys & ORACLE_ATTR_INT_ROUNDING) && r.attrs.int_rounding == DVG_ROUND_TRUNC) {
        r.int_rounding = DVG_ROUND_TRUNC;
        r.rounding_requirement = "SEM-SONNX-ROUNDING-DISPUTE";
    }
    r.float_div_zero = v->float_div_zero;
    *out = r;
    return ORACLE_OK;
}
