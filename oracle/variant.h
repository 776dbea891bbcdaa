/* SPDX-License-Identifier: MIT */
/*
 * oracle/variant.h: the table of Div spec variants (sources in docs/specs.md
 * as data) and their attributes.
 *
 * What varies between variants - dtype sets, broadcasting, integer
 * rounding, what float x/0 means - is a field of oracle_variant, read at
 * run time; nothing in the oracle branches on a variant's identity.
 */
#ifndef ORACLE_VARIANT_H
#define ORACLE_VARIANT_H

#include <stdint.h>
#include "divergence/iut.h"
#include "oracle/error.h"

/* How the output shape is formed (oracle_variant.shape_rule and the rule a
 * variant resolves to once its attributes are known). */
#define ORACLE_SHAPE_EQUAL       1u /* A, B, C have the same shape */
#define ORACLE_SHAPE_NUMPY       2u /* numpy multidirectional */
#define ORACLE_SHAPE_PDPD        3u /* PaddlePaddle B->A with axis */
#define ORACLE_SHAPE_ONNX_LEGACY 4u /* ONNX Div-1/6 broadcast=1 with axis */
#define ORACLE_SHAPE_BY_ATTR     5u /* chosen by attributes (see resolve) */

/* What float x/0 (x non-zero, not NaN) means. */
#define ORACLE_FDZ_IEEE          1u /* ±inf, sign = sign(x) xor sign(0) */
#define ORACLE_FDZ_UNDEFINED     2u /* any value (OpenVINO); IEEE preferred */
#define ORACLE_FDZ_UNSIGNED_INF  3u /* "inf" without a sign (SONNX): ±inf */

/* Attribute keys (bits of oracle_variant.attr_keys). */
#define ORACLE_ATTR_BROADCAST       (1u << 0) /* ONNX legacy broadcast */
#define ORACLE_ATTR_AXIS            (1u << 1) /* ONNX legacy / pdpd axis */
#define ORACLE_ATTR_CONSUMED_INPUTS (1u << 2) /* ONNX Div-1, ignored */
#define ORACLE_ATTR_PYTHONDIV       (1u << 3) /* OpenVINO m_pythondiv */
#define ORACLE_ATTR_AUTO_BROADCAST  (1u << 4) /* OpenVINO auto_broadcast */
#define ORACLE_ATTR_INT_ROUNDING    (1u << 5) /* disputed rounding (SONNX) */

typedef struct oracle_variant {
    uint32_t id;                  /* DVG_VARIANT_* */
    const char *name;             /* "onnx-div-13" */
    const char *document;         /* spec file the variant comes from */
    uint32_t dtypes;              /* bit (1u << DVG_DTYPE_*) per dtype */
    uint32_t contents_only_dtypes;/* dtypes only a contents list names (in
                                     `dtypes` too, flagged in explain) */
    const char *types_requirement;/* requirement ID of the type list */
    uint32_t shape_rule;          /* ORACLE_SHAPE_* */
    uint32_t attr_keys;           /* ORACLE_ATTR_* accepted */
    uint32_t int_rounding;        /* DVG_ROUND_TRUNC / FLOOR by default */
    const char *int_rounding_requirement;
    uint32_t float_div_zero;      /* ORACLE_FDZ_* */
    const char *float_div_zero_requirement;
    const char *int_div_zero_requirement;
    const char *int_overflow_requirement;
    const char *note;             /* known disagreement to surface, or NULL */
} oracle_variant;

/* The variant with this DVG_VARIANT_* id, or NULL. */
const oracle_variant *oracle_variant_get(uint32_t id);

/* The variant named `name` ("onnx-div-7"), or NULL. */
const oracle_variant *oracle_variant_by_name(const char *name);

/* Iteration in table order: 0 <= i < oracle_variant_count(). */
uint32_t oracle_variant_count(void);
const oracle_variant *oracle_variant_at(uint32_t i);

/* 1 when `dtype` is in the variant's type list, else 0. */
int oracle_variant_has_dtype(const oracle_variant *v, uint32_t dtype);

/* Fills *attrs with the variant's defaults (size set, every field). */
void oracle_attrs_default(const oracle_variant *v, dvg_attrs *attrs);

/*
 * Sets one attribute from its textual form, as given on the command line
 * (`--attr key=value`) or in a case file. Keys: broadcast (0|1), axis
 * (integer), consumed_inputs (accepted and ignored, Div-1 only),
 * m_pythondiv (true|false|1|0), auto_broadcast (none|numpy|pdpd),
 * int_rounding (floor|trunc; sonnx-div only). A key the variant does not
 * define or a malformed value is ORACLE_EUSAGE with the reason in *err.
 */
int oracle_attrs_set(const oracle_variant *v, dvg_attrs *attrs, const char *key,
                     const char *value, oracle_error *err);

/* Writes the attributes that the variant defines as "k=v k=v" into buf
 * (always NUL-terminated). Returns buf. */
char *oracle_attrs_format(const oracle_variant *v, const dvg_attrs *attrs,
                          char *buf, size_t len);

#endif /* ORACLE_VARIANT_H */
