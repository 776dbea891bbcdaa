/* SPDX-License-Identifier: MIT */
/*
 * The variant table: the spec variants (sources named in docs/specs.md) as data.
 */
#include "oracle/variant.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T(x) (1u << DVG_DTYPE_##x)
#define ONNX_FLOATS (T(F16) | T(F32) | T(F64))
#define ONNX6_TYPES (ONNX_FLOATS | T(I32) | T(I64) | T(U32) | T(U64))
#define ALL_TYPES                                                                     \
    (T(F16) | T(BF16) | T(F32) | T(F64) | T(I4) | T(I8) | T(I16) | T(I32) | T(I64) |   \
     T(U4) | T(U8) | T(U16) | T(U32) | T(U64))
#define SONNX_CONTENTS_ONLY (T(I4) | T(I64) | T(U4) | T(U8) | T(U16) | T(U32) | T(U64))

#define ONNX_DOC "001_65b480a6843cbc73.txt"
#define ONNX_LEGACY_NOTE                                                                  \
    "ONNX integer truncation was only written into the Div-6/7/13/14 text in 2026; older " \
    "ONNX reference code floored or divided through float64."

static const oracle_variant variants[] = {
    {DVG_VARIANT_ONNX_DIV_1, "onnx-div-1", ONNX_DOC, ONNX_FLOATS, 0, "ONNX-DIV1-TYPES",
     ORACLE_SHAPE_BY_ATTR, ORACLE_ATTR_BROADCAST | ORACLE_ATTR_AXIS | ORACLE_ATTR_CONSUMED_INPUTS,
     DVG_ROUND_TRUNC, NULL, ORACLE_FDZ_IEEE, "IEEE-DIV-ZERO", "SEM-INT-DIV-ZERO",
     "SEM-INT-MIN-NEG1", NULL},
    {DVG_VARIANT_ONNX_DIV_6, "onnx-div-6", "003_14a2e82e46dcfc09.txt", ONNX6_TYPES, 0,
     "ONNX-DIV6-TYPES", ORACLE_SHAPE_BY_ATTR, ORACLE_ATTR_BROADCAST | ORACLE_ATTR_AXIS,
     DVG_ROUND_TRUNC, "ONNX-DIV6-INT-TRUNC", ORACLE_FDZ_IEEE, "IEEE-DIV-ZERO",
     "SEM-INT-DIV-ZERO", "SEM-INT-MIN-NEG1", ONNX_LEGACY_NOTE},
    {DVG_VARIANT_ONNX_DIV_7, "onnx-div-7", ONNX_DOC, ONNX6_TYPES, 0, "ONNX-DIV7-TYPES",
     ORACLE_SHAPE_NUMPY, 0, DVG_ROUND_TRUNC, "ONNX-DIV6-INT-TRUNC", ORACLE_FDZ_IEEE,
     "IEEE-DIV-ZERO", "SEM-INT-DIV-ZERO", "SEM-INT-MIN-NEG1", ONNX_LEGACY_NOTE},
    {DVG_VARIANT_ONNX_DIV_13, "onnx-div-13", ONNX_DOC, ONNX6_TYPES | T(BF16), 0,
     "ONNX-DIV13-TYPES", ORACLE_SHAPE_NUMPY, 0, DVG_ROUND_TRUNC, "ONNX-DIV6-INT-TRUNC",
     ORACLE_FDZ_IEEE, "IEEE-DIV-ZERO", "SEM-INT-DIV-ZERO", "SEM-INT-MIN-NEG1",
     ONNX_LEGACY_NOTE},
    {DVG_VARIANT_ONNX_DIV_14, "onnx-div-14", ONNX_DOC,
     ONNX6_TYPES | T(BF16) | T(I8) | T(I16) | T(U8) | T(U16), 0, "ONNX-DIV14-TYPES",
     ORACLE_SHAPE_NUMPY, 0, DVG_ROUND_TRUNC, "ONNX-DIV6-INT-TRUNC", ORACLE_FDZ_IEEE,
     "IEEE-DIV-ZERO", "SEM-INT-DIV-ZERO", "SEM-INT-MIN-NEG1", ONNX_LEGACY_NOTE},
    {DVG_VARIANT_OPENVINO_DIVIDE_1, "openvino-divide-1", "002_05f7f78707074479.txt", ALL_TYPES,
     0, "OV-TYPES", ORACLE_SHAPE_BY_ATTR,
     ORACLE_ATTR_PYTHONDIV | ORACLE_ATTR_AUTO_BROADCAST | ORACLE_ATTR_AXIS, DVG_ROUND_FLOOR,
     "OV-PYTHONDIV", ORACLE_FDZ_UNDEFINED, "OV-DIV-ZERO-UNDEF", "OV-DIV-ZERO-UNDEF",
     "SEM-INT-MIN-NEG1",
     "m_pythondiv defaults to true (floor) while OpenVINO's CPU/GPU plugins truncate."},
    {DVG_VARIANT_SONNX_DIV, "sonnx-div", "004_bc051ae5ff3cce46.txt",
     T(F16) | T(F32) | T(F64) | T(BF16) | T(I8) | T(I16) | T(I32) | SONNX_CONTENTS_ONLY,
     SONNX_CONTENTS_ONLY, "SONNX-TYPES-INT", ORACLE_SHAPE_EQUAL, ORACLE_ATTR_INT_ROUNDING,
     DVG_ROUND_FLOOR, "SONNX-INT-FLOOR", ORACLE_FDZ_UNSIGNED_INF, "SONNX-FLOAT-INF",
     "SONNX-INT-UNDEF", "SONNX-INT-OVERFLOW",
     "SONNX's seed text floors integer quotients; its Why3 module and later text point to "
     "truncation (attr int_rounding=trunc). It writes 'inf' for x/0 without a sign."},
};

#define N_VARIANTS (sizeof variants / sizeof variants[0])

const oracle_variant *oracle_variant_get(uint32_t id)
{
    for (size_t i = 0; i < N_VARIANTS; i++)
        if (variants[i].id == id)
            return &variants[i];
    return NULL;
}

const oracle_variant *oracle_variant_by_name(const char *name)
{
    for (size_t i = 0; name && i < N_VARIANTS; i++)
        if (!strcmp(variants[i].name, name))
            return &variants[i];
    return NULL;
}

uint32_t oracle_variant_count(void)
{
    return (uint32_t)N_VARIANTS;
}

const oracle_variant *oracle_variant_at(uint32_t i)
{
    return i < N_VARIANTS ? &variants[i] : NULL;
}

int oracle_variant_has_dtype(const oracle_variant *v, uint32_t dtype)
{
    return v && dtype > 0 && dtype < 32 && (v->dtypes >> dtype) & 1u;
}

void oracle_attrs_default(const oracle_variant *v, dvg_attrs *attrs)
{
    memset(attrs, 0, sizeof *attrs);
    attrs->size = sizeof *attrs;
    attrs->broadcast = 0;
    attrs->axis_set = 0;
    attrs->axis = (v && (v->attr_keys & ORACLE_ATTR_AUTO_BROADCAST)) ? -1 : 0;
    attrs->pythondiv = 1;
    attrs->auto_broadcast = DVG_BROADCAST_NUMPY;
    attrs->int_rounding = DVG_ROUND_VARIANT_DEFAULT;
}

static int parse_int64(const char *text, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || end == text || *end)
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *text, int32_t *out)
{
    if (!strcmp(text, "true") || !strcmp(text, "1"))
        *out = 1;
    else if (!strcmp(text, "false") || !strcmp(text, "0"))
        *out = 0;
    else
        return -1;
    return 0;
}

/* consumed_inputs is a list of integers, "0,1" or "[0, 1]"; only checked. */
static int valid_int_list(const char *text)
{
    const char *p = text;
    int digits = 0;
    for (; *p; p++) {
        if ((*p >= '0' && *p <= '9') || *p == '-')
            digits = 1;
        else if (!strchr("[], ", *p))
            return 0;
    }
    return digits || strchr(text, '[');
}

typedef struct attr_key {
    const char *name;
    uint32_t bit;
} attr_key;

static const attr_key attr_keys[] = {
    {"broadcast", ORACLE_ATTR_BROADCAST},
    {"axis", ORACLE_ATTR_AXIS},
    {"consumed_inputs", ORACLE_ATTR_CONSUMED_INPUTS},
    {"m_pythondiv", ORACLE_ATTR_PYTHONDIV},
    {"auto_broadcast", ORACLE_ATTR_AUTO_BROADCAST},
    {"int_rounding", ORACLE_ATTR_INT_ROUNDING},
};

int oracle_attrs_set(const oracle_variant *v, dvg_attrs *attrs, const char *key,
                     const char *value, oracle_error *err)
{
    uint32_t bit = 0;
    for (size_t i = 0; i < sizeof attr_keys / sizeof attr_keys[0]; i++)
        if (!strcmp(attr_keys[i].name, key))
            bit = attr_keys[i].bit;
    if (!bit || !(v->attr_keys & bit)) {
        char names[160] = "";
        for (size_t i = 0; i < sizeof attr_keys / sizeof attr_keys[0]; i++)
            if (v->attr_keys & attr_keys[i].bit) {
                if (names[0])
                    strncat(names, ", ", sizeof names - strlen(names) - 1);
                strncat(names, attr_keys[i].name, sizeof names - strlen(names) - 1);
            }
        return oracle_fail(err, ORACLE_EUSAGE, NULL,
                           "attribute '%s' is not defined by %s (it has: %s)", key, v->name,
                           names[0] ? names : "no attributes");
    }
    int64_t n;
    switch (bit) {
    case ORACLE_ATTR_BROADCAST:
        if (parse_int64(value, &n) || (n != 0 && n != 1))
            return oracle_fail(err, ORACLE_EUSAGE, "ONNX-LEGACY-BCAST-OFF",
                               "attribute broadcast='%s': expected 0 or 1", value);
        attrs->broadcast = (int32_t)n;
        return ORACLE_OK;
    case ORACLE_ATTR_AXIS:
        if (parse_int64(value, &n) || n < -64 || n > 64)
            return oracle_fail(err, ORACLE_EUSAGE, NULL,
                               "attribute axis='%s': expected an integer in [-64, 64]", value);
        attrs->axis = n;
        attrs->axis_set = 1;
        return ORACLE_OK;
    case ORACLE_ATTR_CONSUMED_INPUTS:
        if (!valid_int_list(value))
            return oracle_fail(err, ORACLE_EUSAGE, "ONNX-LEGACY-CONSUMED-INPUTS",
                               "attribute consumed_inputs='%s': expected a list of integers",
                               value);
        return ORACLE_OK; /* legacy optimisation hint: no effect on results */
    case ORACLE_ATTR_PYTHONDIV:
        if (parse_bool(value, &attrs->pythondiv))
            return oracle_fail(err, ORACLE_EUSAGE, "OV-PYTHONDIV",
                               "attribute m_pythondiv='%s': expected true or false", value);
        return ORACLE_OK;
    case ORACLE_ATTR_AUTO_BROADCAST:
        if (!strcmp(value, "none"))
            attrs->auto_broadcast = DVG_BROADCAST_NONE;
        else if (!strcmp(value, "numpy"))
            attrs->auto_broadcast = DVG_BROADCAST_NUMPY;
        else if (!strcmp(value, "pdpd"))
            attrs->auto_broadcast = DVG_BROADCAST_PDPD;
        else
            return oracle_fail(err, ORACLE_EUSAGE, "OV-BCAST-NUMPY",
                               "attribute auto_broadcast='%s': expected none, numpy or pdpd",
                               value);
        return ORACLE_OK;
    case ORACLE_ATTR_INT_ROUNDING:
        if (!strcmp(value, "floor"))
            attrs->int_rounding = DVG_ROUND_FLOOR;
        else if (!strcmp(value, "trunc"))
            attrs->int_rounding = DVG_ROUND_TRUNC;
        else
            return oracle_fail(err, ORACLE_EUSAGE, "SEM-SONNX-ROUNDING-DISPUTE",
                               "attribute int_rounding='%s': expected floor or trunc", value);
        return ORACLE_OK;
    }
    return ORACLE_EUSAGE;
}

char *oracle_attrs_format(const oracle_variant *v, const dvg_attrs *attrs, char *buf, size_t len)
{
    static const char *const bcast[] = {"none", "numpy", "pdpd"};
    size_t used = 0;
    buf[0] = '\0';
#define APPEND(...)                                                                    \
    do {                                                                               \
        if (used < len) {                                                              \
            int n_ = snprintf(buf + used, len - used, "%s", used ? " " : "");          \
            used += n_ > 0 ? (size_t)n_ : 0;                                           \
        }                                                                              \
        if (used < len) {                                                              \
            int n_ = snprintf(buf + used, len - used, __VA_ARGS__);                    \
            used += n_ > 0 ? (size_t)n_ : 0;                                           \
        }                                                                              \
    } while (0)
    if (v->attr_keys & ORACLE_ATTR_BROADCAST)
        APPEND("broadcast=%d", (int)attrs->broadcast);
    if (v->attr_keys & ORACLE_ATTR_PYTHONDIV)
        APPEND("m_pythondiv=%s", attrs->pythondiv ? "true" : "false");
    if (v->attr_keys & ORACLE_ATTR_AUTO_BROADCAST)
        APPEND("auto_broadcast=%s", attrs->auto_broadcast < 3 ? bcast[attrs->auto_broadcast] : "?");
    if ((v->attr_keys & ORACLE_ATTR_AXIS) &&
        (attrs->axis_set || (v->attr_keys & ORACLE_ATTR_AUTO_BROADCAST)))
        APPEND("axis=%" PRId64, attrs->axis);
    if ((v->attr_keys & ORACLE_ATTR_INT_ROUNDING) && attrs->int_rounding)
        APPEND("int_rounding=%s", attrs->int_rounding == DVG_ROUND_TRUNC ? "trunc" : "floor");
#undef APPEND
    return buf;
}
