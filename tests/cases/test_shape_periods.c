/* SPDX-License-Identifier: MIT */
/*
 * Every shape the walker lists is valid under the rule its attributes
 * select (a case the spec rejects would test the refusal, not the path).
 * The shape walker's large code-path cases are judged by periods, and
 * nothing else is by mistake: trial_period gives GEN_FILL_PERIOD for every
 * large case of every variant (equal shapes, a row of 4096, one element;
 * each rule the variant can be asked for), and 0 for broadcasts whose
 * output element i does not depend on i mod the period alone (a column,
 * a pdpd window at axis 0, an operand that does not repeat). A signed
 * dtype's INT_MIN / -1 pair lies in every period of a periodic case.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "harness/cases/gen.h"
#include "harness/cases/shapes.h"
#include "harness/run/engine/trial.h"
#include "oracle/dtype.h"
#include "oracle/rules.h"
#include "oracle/shape.h"
#include "oracle/variant.h"

/* trial_period of spec s of (variant, dtype), or UINT64_MAX when the case
 * cannot be built or planned. */
static uint64_t period_of(uint32_t variant, uint32_t dtype, const shapes_spec *s)
{
    gen_rng g;
    gen_seed(&g, 3, 0);
    divcase c;
    if (shapes_case(&g, variant, dtype, s, "period", &c))
        return UINT64_MAX;
    oracle_rules r;
    oracle_plan p;
    oracle_error why;
    uint64_t per = UINT64_MAX;
    if (oracle_rules_resolve(variant, dtype, &c.attrs, &r, &why) == 0 &&
        oracle_plan_shapes(&r, &c.a_shape, &c.b_shape, &p, &why) == 0)
        per = trial_period(&c, &p);
    divcase_free(&c);
    return per;
}

/* Every spec of every (variant, dtype) plans without error. */
static void all_valid(void)
{
    size_t n = 0;
    for (uint32_t vi = 0; vi < oracle_variant_count(); vi++) {
        const oracle_variant *v = oracle_variant_at(vi);
        for (uint32_t d = 1; d < DVG_DTYPE_COUNT; d++) {
            if (!oracle_variant_has_dtype(v, d))
                continue;
            shapes_list l;
            CHECK(shapes_build(v->id, d, SHAPES_MAX_TIER, &l) == 0);
            for (size_t i = 0; i < l.n; i++, n++) {
                dvg_attrs at;
                oracle_attrs_default(v, &at);
                shapes_spec_attrs(&l.spec[i], &at);
                oracle_rules r;
                oracle_plan p;
                oracle_error why;
                memset(&why, 0, sizeof why);
                int rc = oracle_rules_resolve(v->id, d, &at, &r, &why);
                if (rc == 0)
                    rc = oracle_plan_shapes(&r, &l.spec[i].a, &l.spec[i].b, &p, &why);
                CHECKF(rc == 0, "%s %s: %s: %s", v->name, oracle_dtype_tag(d), l.spec[i].what,
                       why.text);
            }
            shapes_list_free(&l);
        }
    }
    printf("%zu shape paths valid\n", n);
}

int main(void)
{
    all_valid();
    /* Every large case of every variant, in one dtype of each kind. */
    size_t n_large = 0;
    static const uint32_t dtypes[] = {DVG_DTYPE_F32, DVG_DTYPE_I32};
    for (uint32_t vi = 0; vi < oracle_variant_count(); vi++) {
        const oracle_variant *v = oracle_variant_at(vi);
        for (size_t k = 0; k < 2; k++) {
            uint32_t d = dtypes[k];
            if (!oracle_variant_has_dtype(v, d))
                continue;
            shapes_list l;
            CHECK(shapes_build(v->id, d, SHAPES_MAX_TIER, &l) == 0);
            size_t here = 0;
            for (size_t i = 0; i < l.n; i++) {
                if (!l.spec[i].periodic)
                    continue;
                uint64_t per = period_of(v->id, d, &l.spec[i]);
                CHECKF(per == GEN_FILL_PERIOD, "%s %s: %s: period %llu", v->name,
                       oracle_dtype_tag(d), l.spec[i].what, (unsigned long long)per);
                here++;
            }
            CHECKF(here >= 1, "%s %s: no large case", v->name, oracle_dtype_tag(d));
            n_large += here;
            shapes_list_free(&l);
        }
    }
    /* Not periodic: B a column (numpy (n,1)), a pdpd window at axis 0, B
     * the whole output drawn by gen_fill_operands (a run of 4091). */
    shapes_spec s;
    memset(&s, 0, sizeof s);
    s.periodic = 1;
    s.a.rank = 2, s.a.dims[0] = 1025, s.a.dims[1] = 4096;
    s.b.rank = 2, s.b.dims[0] = 1025, s.b.dims[1] = 1;
    CHECK(period_of(DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, &s) == 0);
    s.b.rank = 1, s.b.dims[0] = 1025, s.b.dims[1] = 0;
    s.set_attrs = 1, s.auto_broadcast = DVG_BROADCAST_PDPD, s.axis = 0;
    CHECK(period_of(DVG_VARIANT_OPENVINO_DIVIDE_1, DVG_DTYPE_F32, &s) == 0);
    s.b.dims[0] = 4096, s.axis = 1; /* the same B as the suffix window: periodic */
    CHECK(period_of(DVG_VARIANT_OPENVINO_DIVIDE_1, DVG_DTYPE_F32, &s) == GEN_FILL_PERIOD);
    memset(&s, 0, sizeof s); /* B the whole output, drawn with a run of 4091 */
    s.a.rank = 1, s.a.dims[0] = 4096;
    s.b.rank = 2, s.b.dims[0] = 1025, s.b.dims[1] = 4096;
    CHECK(period_of(DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, &s) == 0);
    s.periodic = 1; /* the same with B's run of 4096: periodic */
    CHECK(period_of(DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_F32, &s) == GEN_FILL_PERIOD);
    printf("%zu large cases judged by periods\n", n_large);
    return check_done("shape_periods");
}
