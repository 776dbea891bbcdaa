/* SPDX-License-Identifier: MIT */
/*
 * Output shapes and broadcasting plans: every shape example of the spec
 * documents, the invalid ones rejected with the right requirement, and
 * the plans' strides checked element by element.
 */
#include <string.h>

#include "check.h"
#include "oracle/rules.h"
#include "oracle/shape.h"

static oracle_shape shp(const char *text)
{
    oracle_shape s;
    oracle_error err;
    if (oracle_shape_parse(text, &s, &err))
        memset(&s, 0xff, sizeof s);
    return s;
}

static oracle_rules rules_for(uint32_t variant, uint32_t dtype, const char *attrs)
{
    const oracle_variant *v = oracle_variant_get(variant);
    dvg_attrs at;
    oracle_attrs_default(v, &at);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", attrs ? attrs : "");
    for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
        char *eq = strchr(tok, '=');
        *eq = '\0';
        oracle_error err;
        CHECKF(oracle_attrs_set(v, &at, tok, eq + 1, &err) == ORACLE_OK, "%s", err.text);
    }
    oracle_rules r;
    oracle_error err;
    CHECKF(oracle_rules_resolve(variant, dtype, &at, &r, &err) == ORACLE_OK, "%s", err.text);
    return r;
}

/* Plans A / B; returns the status, and checks the output shape when valid. */
static int plan(uint32_t variant, const char *attrs, const char *a, const char *b,
                const char *want_out, const char *want_req)
{
    oracle_rules r = rules_for(variant, DVG_DTYPE_F32, attrs);
    oracle_shape sa = shp(a), sb = shp(b);
    oracle_plan p;
    oracle_error why = {{0}, NULL};
    int rc = oracle_plan_shapes(&r, &sa, &sb, &p, &why);
    if (want_out) {
        oracle_shape so = shp(want_out);
        char got[128], want[128];
        CHECKF(rc == ORACLE_OK && p.out.rank == so.rank &&
                   !memcmp(p.out.dims, so.dims, sizeof so.dims),
               "%s [%s] %s / %s: got rc %d shape %s (%s), want %s", oracle_variant_get(variant)->name,
               attrs ? attrs : "", a, b, rc, oracle_shape_format(&p.out, got, sizeof got), why.text,
               oracle_shape_format(&so, want, sizeof want));
    } else {
        CHECKF(rc == ORACLE_INVALID, "%s [%s] %s / %s: want invalid, got rc %d",
               oracle_variant_get(variant)->name, attrs ? attrs : "", a, b, rc);
        if (want_req)
            CHECKF(why.requirement && !strcmp(why.requirement, want_req),
                   "%s / %s: requirement %s, want %s (%s)", a, b,
                   why.requirement ? why.requirement : "NULL", want_req, why.text);
    }
    return rc;
}

/* Checks every output element's A and B offsets against a direct
 * computation given as index maps. */
static void check_offsets(uint32_t variant, const char *attrs, const char *a, const char *b,
                          uint64_t (*a_of)(const uint64_t *), uint64_t (*b_of)(const uint64_t *))
{
    oracle_rules r = rules_for(variant, DVG_DTYPE_F32, attrs);
    oracle_shape sa = shp(a), sb = shp(b);
    oracle_plan p;
    oracle_error why;
    CHECK(oracle_plan_shapes(&r, &sa, &sb, &p, &why) == ORACLE_OK);
    uint64_t idx[DVG_MAX_RANK] = {0};
    for (uint64_t i = 0; i < p.count; i++) {
        uint64_t rem = i;
        for (int k = (int)p.out.rank - 1; k >= 0; k--) {
            idx[k] = rem % (uint64_t)p.out.dims[k];
            rem /= (uint64_t)p.out.dims[k];
        }
        uint64_t ao, bo;
        oracle_plan_offsets(&p, i, &ao, &bo);
        CHECKF(ao == a_of(idx) && bo == b_of(idx), "%s / %s element %llu: offsets %llu %llu", a, b,
               (unsigned long long)i, (unsigned long long)ao, (unsigned long long)bo);
    }
}

/* A = (2, 3, 4, 5) dense. */
static uint64_t a2345(const uint64_t *i) { return ((i[0] * 3 + i[1]) * 4 + i[2]) * 5 + i[3]; }
static uint64_t b_axis1(const uint64_t *i) { return i[1] * 4 + i[2]; }   /* B (3, 4) at axis 1 */
static uint64_t b_axis0(const uint64_t *i) { return i[0]; }              /* B (2,) at axis 0 */
static uint64_t b_suffix45(const uint64_t *i) { return i[2] * 5 + i[3]; }/* B (4, 5) */
static uint64_t b_zero(const uint64_t *i) { (void)i; return 0; }
static uint64_t b_pdpd_1x5(const uint64_t *i) { return i[3]; }           /* B (1, 5) at axis 2 */
/* numpy (8,1,6,1) / (7,1,5) -> (8,7,6,5) */
static uint64_t ov2_a(const uint64_t *i) { return i[0] * 6 + i[2]; }
static uint64_t ov2_b(const uint64_t *i) { return i[1] * 5 + i[3]; }

int main(void)
{
    const uint32_t legacy[] = {DVG_VARIANT_ONNX_DIV_1, DVG_VARIANT_ONNX_DIV_6};
    for (int v = 0; v < 2; v++) {
        uint32_t var = legacy[v];
        /* ONNX-LEGACY-EXAMPLES: the six shapes supported with broadcast=1. */
        plan(var, "broadcast=1", "2x3x4x5", "()", "2x3x4x5", NULL);
        plan(var, "broadcast=1", "2x3x4x5", "1x1", "2x3x4x5", NULL);
        plan(var, "broadcast=1", "2x3x4x5", "5", "2x3x4x5", NULL);
        plan(var, "broadcast=1", "2x3x4x5", "4x5", "2x3x4x5", NULL);
        plan(var, "broadcast=1 axis=1", "2x3x4x5", "3x4", "2x3x4x5", NULL);
        plan(var, "broadcast=1 axis=0", "2x3x4x5", "2", "2x3x4x5", NULL);
        check_offsets(var, "broadcast=1 axis=1", "2x3x4x5", "3x4", a2345, b_axis1);
        check_offsets(var, "broadcast=1 axis=0", "2x3x4x5", "2", a2345, b_axis0);
        check_offsets(var, "broadcast=1", "2x3x4x5", "4x5", a2345, b_suffix45);
        check_offsets(var, "broadcast=1", "2x3x4x5", "1x1", a2345, b_zero);
        /* Invalid under the legacy rule. */
        plan(var, "broadcast=1", "2x3x4x5", "3x4", NULL, "ONNX-LEGACY-BCAST-SUBSET");
        plan(var, "broadcast=1", "2x3x4x5", "1x5", NULL, "ONNX-LEGACY-NO-1DIM");
        plan(var, "broadcast=1 axis=1", "2x3x4x5", "3x1", NULL, "ONNX-LEGACY-NO-1DIM");
        plan(var, "broadcast=1 axis=3", "2x3x4x5", "3x4", NULL, "ONNX-LEGACY-BCAST-SUBSET");
        plan(var, "broadcast=1 axis=-1", "2x3x4x5", "5", NULL, "ONNX-LEGACY-BCAST-SUBSET");
        plan(var, "broadcast=1", "4x5", "2x4x5", NULL, "ONNX-LEGACY-RHS-ONLY");
        plan(var, "broadcast=1", "5", "1x1", NULL, "ONNX-LEGACY-RHS-ONLY");
        plan(var, "broadcast=1", "1x5", "2x5", NULL, "ONNX-LEGACY-BCAST-SUBSET");
        /* broadcast=0: shapes must be equal. */
        plan(var, NULL, "2x3x4x5", "2x3x4x5", "2x3x4x5", NULL);
        plan(var, NULL, "2x3x4x5", "5", NULL, "ONNX-LEGACY-BCAST-OFF");
        plan(var, "broadcast=0", "2x3", "()", NULL, "ONNX-LEGACY-BCAST-OFF");
        /* B -> A only: output is A's shape even with a 0 dimension. */
        plan(var, "broadcast=1", "2x0x5", "0x5", "2x0x5", NULL);
    }

    /* OpenVINO Example 1 (none) and Example 2 (numpy). */
    plan(DVG_VARIANT_OPENVINO_DIVIDE_1, "auto_broadcast=none m_pythondiv=true", "256x56", "256x56",
         "256x56", NULL);
    plan(DVG_VARIANT_OPENVINO_DIVIDE_1, "auto_broadcast=numpy m_pythondiv=false", "8x1x6x1",
         "7x1x5", "8x7x6x5", NULL);
    check_offsets(DVG_VARIANT_OPENVINO_DIVIDE_1, "auto_broadcast=numpy", "8x1x6x1", "7x1x5", ov2_a,
                  ov2_b);
    plan(DVG_VARIANT_OPENVINO_DIVIDE_1, "auto_broadcast=none", "8x1x6x1", "7x1x5", NULL,
         "OV-BCAST-NONE");
    plan(DVG_VARIANT_OPENVINO_DIVIDE_1, NULL, "256x56", "56x256", NULL, "OV-BCAST-NUMPY");

    /* PDPD (SEM-PDPD-RULES). */
    const uint32_t ov = DVG_VARIANT_OPENVINO_DIVIDE_1;
    plan(ov, "auto_broadcast=pdpd axis=1", "2x3x4x5", "3x4", "2x3x4x5", NULL);
    check_offsets(ov, "auto_broadcast=pdpd axis=1", "2x3x4x5", "3x4", a2345, b_axis1);
    plan(ov, "auto_broadcast=pdpd", "2x3x4x5", "3x4x1", "2x3x4x5", NULL); /* axis 1, trimmed */
    check_offsets(ov, "auto_broadcast=pdpd", "2x3x4x5", "3x4x1", a2345, b_axis1);
    plan(ov, "auto_broadcast=pdpd", "2x3x4x5", "5", "2x3x4x5", NULL);
    plan(ov, "auto_broadcast=pdpd", "2x3x4x5", "()", "2x3x4x5", NULL);
    plan(ov, "auto_broadcast=pdpd", "2x3x4x5", "1x5", "2x3x4x5", NULL); /* 1 broadcasts */
    check_offsets(ov, "auto_broadcast=pdpd", "2x3x4x5", "1x5", a2345, b_pdpd_1x5);
    plan(ov, "auto_broadcast=pdpd", "2x3x4x5", "2x3x4x5", "2x3x4x5", NULL);
    plan(ov, "auto_broadcast=pdpd axis=0", "2x3x4x5", "2x1x1x1", "2x3x4x5", NULL);
    check_offsets(ov, "auto_broadcast=pdpd axis=0", "2x3x4x5", "2x1x1x1", a2345, b_axis0);
    plan(ov, "auto_broadcast=pdpd axis=-2", "2x3x4x5", "3x4", NULL, "SEM-PDPD-RULES");
    plan(ov, "auto_broadcast=pdpd axis=3", "2x3x4x5", "3x4", NULL, "SEM-PDPD-RULES");
    plan(ov, "auto_broadcast=pdpd axis=1", "2x3x4x5", "3x5", NULL, "SEM-PDPD-RULES");
    plan(ov, "auto_broadcast=pdpd", "3x4", "2x3x4", NULL, "SEM-PDPD-RULES");
    plan(ov, "auto_broadcast=pdpd", "2x1", "5", NULL, "SEM-PDPD-RULES"); /* B -> A only */
    /* axis=-1 is computed before trimming: (4,1) sits at axis 2, not 3. */
    plan(ov, "auto_broadcast=pdpd", "2x3x4x5", "4x1", "2x3x4x5", NULL);
    plan(ov, "auto_broadcast=pdpd", "2x3x5x4", "4x1", NULL, "SEM-PDPD-RULES");

    /* numpy: rank 0, zero dimensions, rank 8. */
    const uint32_t np = DVG_VARIANT_ONNX_DIV_13;
    plan(np, NULL, "()", "()", "()", NULL);
    plan(np, NULL, "()", "3x1", "3x1", NULL);
    plan(np, NULL, "0x3", "1x3", "0x3", NULL);
    plan(np, NULL, "0x3", "3", "0x3", NULL);
    plan(np, NULL, "0", "1", "0", NULL);
    plan(np, NULL, "0x3", "2x3", NULL, "ONNX-NUMPY-BCAST");
    plan(np, NULL, "2x1x2x1x2x1x2x1", "1x2x1x2x1x2x1x2", "2x2x2x2x2x2x2x2", NULL);
    plan(np, NULL, "5x4", "1", "5x4", NULL);
    plan(np, NULL, "5x4", "4", "5x4", NULL);
    plan(np, NULL, "5x4", "5", NULL, "ONNX-NUMPY-BCAST");
    plan(np, NULL, "15x3x5", "15x1x5", "15x3x5", NULL);
    {
        oracle_rules r = rules_for(np, DVG_DTYPE_F32, NULL);
        oracle_shape a = {9, {1, 2, 1, 1, 1, 1, 1, 1}}, b = shp("2");
        oracle_plan p;
        oracle_error why;
        CHECK(oracle_plan_shapes(&r, &a, &b, &p, &why) == ORACLE_EUSAGE);
        oracle_shape neg = {2, {3, -1}};
        CHECK(oracle_plan_shapes(&r, &neg, &b, &p, &why) == ORACLE_EUSAGE);
        oracle_shape big = shp("1048576x1048576x2");
        CHECK(oracle_plan_shapes(&r, &big, &b, &p, &why) == ORACLE_EUSAGE);
    }

    /* SONNX R1: A, B and C have the same shape. */
    plan(DVG_VARIANT_SONNX_DIV, NULL, "3", "3", "3", NULL);
    plan(DVG_VARIANT_SONNX_DIV, NULL, "3x2", "3x2", "3x2", NULL);
    plan(DVG_VARIANT_SONNX_DIV, NULL, "3x2", "2", NULL, "SONNX-R1");
    plan(DVG_VARIANT_SONNX_DIV, NULL, "3x2", "()", NULL, "SONNX-R1");

    /* Shape text. */
    {
        oracle_shape s;
        oracle_error err;
        CHECK(oracle_shape_parse("(2, 3, 4)", &s, &err) == ORACLE_OK && s.rank == 3 && s.dims[2] == 4);
        CHECK(oracle_shape_parse("[]", &s, &err) == ORACLE_OK && s.rank == 0);
        CHECK(oracle_shape_parse("2x-3", &s, &err) == ORACLE_EUSAGE);
        CHECK(oracle_shape_parse("2x3y", &s, &err) == ORACLE_EUSAGE);
        CHECK(oracle_shape_parse("1x1x1x1x1x1x1x1x1", &s, &err) == ORACLE_EUSAGE);
    }
    return check_done("test_shapes");
}
