/* SPDX-License-Identifier: MIT */
/*
 * tests/onnx/test_onnx_tests.c: harness/run/onnx/ against TensorProtos
 * and test_div* directories built here with protobuf-c (so layouts Debian
 * does not ship are covered: opset 6 legacy broadcasting with an axis, an
 * initializer operand, typed data fields, several data sets, a shipped
 * output that disagrees with the oracle, malformed files).
 *
 * Usage: test_onnx_tests REFERENCE_SO MUTANT_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "harness/base/alloc.h"
#include "harness/run/onnx/onnx_tests.h"
#include "oracle/dtype.h"
#include "onnx/onnx.pb-c.h"

/* ------------------------------------------------------------------------
 * Builders.
 * ---------------------------------------------------------------------- */

/* Packs a TensorProto into a malloc'ed buffer. */
static uint8_t *pack_tensor(const Onnx__TensorProto *t, size_t *n)
{
    *n = onnx__tensor_proto__get_packed_size(t);
    uint8_t *b = malloc(*n ? *n : 1);
    onnx__tensor_proto__pack(t, b);
    return b;
}

static void write_bytes(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECKF(f != NULL, "%s", path);
    if (f) {
        fwrite(b, 1, n, f);
        fclose(f);
    }
}

static void write_tensor(const char *path, const Onnx__TensorProto *t)
{
    size_t n;
    uint8_t *b = pack_tensor(t, &n);
    write_bytes(path, b, n);
    free(b);
}

/* A float tensor given in float_data (typed) or raw_data. */
static void float_tensor(Onnx__TensorProto *t, int64_t *dims, size_t rank, float *v, size_t n,
                         int raw)
{
    onnx__tensor_proto__init(t);
    t->n_dims = rank;
    t->dims = dims;
    t->has_data_type = 1;
    t->data_type = 1;
    if (raw) {
        t->has_raw_data = 1;
        t->raw_data.len = n * sizeof(float);
        t->raw_data.data = (uint8_t *)v;
    } else {
        t->n_float_data = n;
        t->float_data = v;
    }
}

static void int32_tensor(Onnx__TensorProto *t, int32_t type, int64_t *dims, size_t rank,
                         int32_t *v, size_t n)
{
    onnx__tensor_proto__init(t);
    t->n_dims = rank;
    t->dims = dims;
    t->has_data_type = 1;
    t->data_type = type;
    t->n_int32_data = n;
    t->int32_data = v;
}

static Onnx__ValueInfoProto *value_info(const char *name)
{
    Onnx__ValueInfoProto *vi = calloc(1, sizeof *vi);
    onnx__value_info_proto__init(vi);
    vi->name = (char *)(uintptr_t)name; /* protobuf-c's fields are not const */
    return vi;
}

/* Writes DIR/model.onnx: one Div(a, b) -> c under `opset`, with optional
 * INT attributes (broadcast, axis: pass -1 to leave one out), the graph
 * inputs listed in `inputs` and B as an initializer when init is given. */
static void write_model(const char *dir, int64_t opset, int64_t broadcast, int64_t axis,
                        const char *op_type, Onnx__TensorProto *init)
{
    Onnx__ModelProto m;
    Onnx__GraphProto g;
    Onnx__NodeProto node, *nodes[1] = {&node};
    Onnx__OperatorSetIdProto os, *oss[1] = {&os};
    Onnx__AttributeProto at[2], *ats[2] = {&at[0], &at[1]};
    Onnx__ValueInfoProto *in[2], *out[1];
    Onnx__TensorProto *inits[1] = {init};
    char *node_in[2] = {"a", "b"}, *node_out[1] = {"c"};
    char path[512];
    size_t n_at = 0;

    onnx__model_proto__init(&m);
    onnx__graph_proto__init(&g);
    onnx__node_proto__init(&node);
    onnx__operator_set_id_proto__init(&os);
    os.domain = "";
    os.has_version = 1;
    os.version = opset;
    node.n_input = 2;
    node.input = node_in;
    node.n_output = 1;
    node.output = node_out;
    node.op_type = (char *)(uintptr_t)op_type;
    if (broadcast >= 0) {
        onnx__attribute_proto__init(&at[n_at]);
        at[n_at].name = "broadcast";
        at[n_at].has_type = 1;
        at[n_at].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        at[n_at].has_i = 1;
        at[n_at++].i = broadcast;
    }
    if (axis >= 0) {
        onnx__attribute_proto__init(&at[n_at]);
        at[n_at].name = "axis";
        at[n_at].has_type = 1;
        at[n_at].type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        at[n_at].has_i = 1;
        at[n_at++].i = axis;
    }
    node.n_attribute = n_at;
    node.attribute = ats;
    in[0] = value_info("a");
    in[1] = value_info("b"); /* with an initializer: listed too, as IR < 4 does */
    out[0] = value_info("c");
    g.n_node = 1;
    g.node = nodes;
    g.name = "g";
    g.n_input = 2;
    g.input = in;
    g.n_output = 1;
    g.output = out;
    if (init) {
        init->name = "b";
        g.n_initializer = 1;
        g.initializer = inits;
    }
    m.has_ir_version = 1;
    m.ir_version = 3;
    m.n_opset_import = 1;
    m.opset_import = oss;
    m.graph = &g;
    size_t n = onnx__model_proto__get_packed_size(&m);
    uint8_t *b = malloc(n);
    onnx__model_proto__pack(&m, b);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    write_bytes(path, b, n);
    free(b);
    free(in[0]);
    free(in[1]);
    free(out[0]);
}

static char *set_dir(const char *dir, int k, char *buf, size_t len)
{
    snprintf(buf, len, "%s/test_data_set_%d", dir, k);
    mkdir(buf, 0755);
    return buf;
}

static void write_set_file(const char *sdir, const char *name, const Onnx__TensorProto *t)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", sdir, name);
    write_tensor(path, t);
}

/* Runs onnxtests_run and captures its output. */
static int run(const char *dir, const char *plugin, char **text)
{
    char *buf = NULL, *ebuf = NULL;
    size_t n = 0, en = 0;
    FILE *out = open_memstream(&buf, &n), *err = open_memstream(&ebuf, &en);
    onnxtests_options o = {plugin, NULL, 5000, 0};
    int rc = onnxtests_run(dir, &o, out, err);
    fclose(out);
    fclose(err);
    *text = malloc(n + en + 2);
    snprintf(*text, n + en + 2, "%s%s", buf, ebuf);
    free(buf);
    free(ebuf);
    return rc;
}

/* ------------------------------------------------------------------------
 * Decoding.
 * ---------------------------------------------------------------------- */
static void check_decode(void)
{
    Onnx__TensorProto t;
    onnxtests_tensor d;
    char err[512];
    uint8_t *b;
    size_t n;

    /* f32, raw_data and float_data give the same bytes */
    float v[6] = {1, -2, 0.5f, 3, 1e-40f, -0.0f};
    int64_t dims23[2] = {2, 3};
    for (int raw = 0; raw < 2; raw++) {
        float_tensor(&t, dims23, 2, v, 6, raw);
        t.name = "x";
        b = pack_tensor(&t, &n);
        CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
        CHECK(d.dtype == DVG_DTYPE_F32 && d.shape.rank == 2 && d.shape.dims[0] == 2 &&
              d.shape.dims[1] == 3 && d.nbytes == 24 && !memcmp(d.data, v, 24) &&
              !strcmp(d.name, "x"));
        onnxtests_tensor_free(&d);
        free(b);
    }

    /* f16 bits in int32_data; bf16 too */
    int32_t h[3] = {0x3c00, 0xfc00, 0x0001};
    int64_t dims3[1] = {3};
    int32_tensor(&t, 10, dims3, 1, h, 3);
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.dtype == DVG_DTYPE_F16 && oracle_load(DVG_DTYPE_F16, d.data, 1) == 0xfc00 &&
          oracle_load(DVG_DTYPE_F16, d.data, 2) == 1);
    onnxtests_tensor_free(&d);
    free(b);
    int32_tensor(&t, 16, dims3, 1, h, 3);
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.dtype == DVG_DTYPE_BF16 && oracle_load(DVG_DTYPE_BF16, d.data, 0) == 0x3c00);
    onnxtests_tensor_free(&d);
    free(b);

    /* i8 negative values in int32_data */
    int32_t i8v[3] = {-128, -1, 127};
    int32_tensor(&t, 3, dims3, 1, i8v, 3);
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.dtype == DVG_DTYPE_I8 && d.nbytes == 3 && d.data[0] == 0x80 && d.data[1] == 0xff &&
          d.data[2] == 0x7f);
    onnxtests_tensor_free(&d);
    free(b);

    /* i4: int32_data holds one packed byte per entry; 3 elements, 2 bytes */
    int32_t i4v[2] = {0x9f, 0x07}; /* -1, -7, 7 */
    int32_tensor(&t, 22, dims3, 1, i4v, 2);
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.dtype == DVG_DTYPE_I4 && d.nbytes == 2 && oracle_load(DVG_DTYPE_I4, d.data, 0) == 0xf &&
          oracle_load(DVG_DTYPE_I4, d.data, 1) == 0x9 && oracle_load(DVG_DTYPE_I4, d.data, 2) == 7);
    onnxtests_tensor_free(&d);
    free(b);

    /* int64_data, double_data, uint64_data (u32), rank 0 */
    int64_t i64v[1] = {INT64_MIN};
    onnx__tensor_proto__init(&t);
    t.has_data_type = 1;
    t.data_type = 7;
    t.n_int64_data = 1;
    t.int64_data = i64v;
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.dtype == DVG_DTYPE_I64 && d.shape.rank == 0 && d.nbytes == 8 &&
          oracle_load(DVG_DTYPE_I64, d.data, 0) == (uint64_t)INT64_MIN);
    onnxtests_tensor_free(&d);
    free(b);
    double dv[1] = {-0.1};
    onnx__tensor_proto__init(&t);
    t.has_data_type = 1;
    t.data_type = 11;
    t.n_double_data = 1;
    t.double_data = dv;
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.dtype == DVG_DTYPE_F64 && !memcmp(d.data, dv, 8));
    onnxtests_tensor_free(&d);
    free(b);
    uint64_t uv[3] = {0, 1, 0xffffffffu};
    onnx__tensor_proto__init(&t);
    t.n_dims = 1;
    t.dims = dims3;
    t.has_data_type = 1;
    t.data_type = 12;
    t.n_uint64_data = 3;
    t.uint64_data = uv;
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.dtype == DVG_DTYPE_U32 && oracle_load(DVG_DTYPE_U32, d.data, 2) == 0xffffffffu);
    onnxtests_tensor_free(&d);
    free(b);

    /* a dimension of 0: no data needed */
    int64_t dims0[2] = {2, 0};
    float_tensor(&t, dims0, 2, v, 0, 0);
    b = pack_tensor(&t, &n);
    CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == 0, "%s", err);
    CHECK(d.nbytes == 0 && d.shape.dims[1] == 0);
    onnxtests_tensor_free(&d);
    free(b);

    /* errors, each with a reason */
    struct {
        const char *what, *needle;
    } bad[] = {
        {"raw size", "raw_data has 20 bytes"},
        {"count", "float_data has 5 entries"},
        {"field", "int64_data given for data_type 1"},
        {"type", "data_type 8"},
        {"rank", "rank 9"},
        {"negative", "dims[0] is -2"},
        {"both", "more than one"},
        {"external", "external_data"},
        {"no data", "no raw_data"},
        {"no type", "data_type is missing"},
    };
    int64_t dims9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, dimsneg[1] = {-2};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        float_tensor(&t, dims23, 2, v, 6, 0);
        switch (k) {
        case 0: float_tensor(&t, dims23, 2, v, 5, 1); break;
        case 1: t.n_float_data = 5; break;
        case 2: t.n_float_data = 0; t.n_int64_data = 1; t.int64_data = i64v; break;
        case 3: t.data_type = 8; break;
        case 4: t.n_dims = 9; t.dims = dims9; break;
        case 5: t.n_dims = 1; t.dims = dimsneg; break;
        case 6: t.has_raw_data = 1; t.raw_data.len = 24; t.raw_data.data = (uint8_t *)v; break;
        case 7: t.has_data_location = 1; t.data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL; break;
        case 8: t.n_float_data = 0; break;
        case 9: t.has_data_type = 0; break;
        }
        b = pack_tensor(&t, &n);
        err[0] = 0;
        CHECKF(onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err) == -1 &&
                   strstr(err, bad[k].needle),
               "%s: '%s'", bad[k].what, err);
        CHECK(d.data == NULL);
        free(b);
    }
    /* not protobuf at all */
    uint8_t junk[4] = {0xff, 0xff, 0xff, 0xff};
    CHECK(onnxtests_decode_tensor(junk, 4, "junk", &d, err, sizeof err) == -1 &&
          strstr(err, "not a valid TensorProto"));

    /* allocation failure on the way is an error, not a crash or a leak */
    float_tensor(&t, dims23, 2, v, 6, 0);
    b = pack_tensor(&t, &n);
    for (uint64_t k = 1; k < 12; k++) {
        dvg_alloc_fail_at(k, 1);
        int rc = onnxtests_decode_tensor(b, n, "t", &d, err, sizeof err);
        dvg_alloc_fail_at(0, 0);
        CHECK(rc == 0 || d.data == NULL);
        onnxtests_tensor_free(&d);
    }
    free(b);

    CHECK(onnxtests_variant_of_opset(1) == DVG_VARIANT_ONNX_DIV_1 &&
          onnxtests_variant_of_opset(5) == DVG_VARIANT_ONNX_DIV_1 &&
          onnxtests_variant_of_opset(6) == DVG_VARIANT_ONNX_DIV_6 &&
          onnxtests_variant_of_opset(7) == DVG_VARIANT_ONNX_DIV_7 &&
          onnxtests_variant_of_opset(12) == DVG_VARIANT_ONNX_DIV_7 &&
          onnxtests_variant_of_opset(13) == DVG_VARIANT_ONNX_DIV_13 &&
          onnxtests_variant_of_opset(14) == DVG_VARIANT_ONNX_DIV_14 &&
          onnxtests_variant_of_opset(21) == DVG_VARIANT_ONNX_DIV_14 &&
          onnxtests_variant_of_opset(0) == DVG_VARIANT_NONE);
}

/* ------------------------------------------------------------------------
 * Whole directories.
 * ---------------------------------------------------------------------- */
static void check_dirs(const char *root, const char *reference, const char *mutants)
{
    char dir[512], sdir[600], *text;
    Onnx__TensorProto ta, tb, tc;
    int rc;

    /* 1. opset 6, broadcast=1 axis=1: A (2, 3, 2) / B (3,), B an initializer;
     *    typed float_data; two data sets. */
    snprintf(dir, sizeof dir, "%s/test_div_legacy_axis", root);
    float bv[3] = {1, 2, 4};
    int64_t db[1] = {3}, da[3] = {2, 3, 2};
    float_tensor(&tb, db, 1, bv, 3, 1);
    write_model(dir, 6, 1, 1, "Div", &tb);
    for (int s = 0; s < 2; s++) {
        float av[12], cv[12];
        for (int i = 0; i < 12; i++) {
            av[i] = (float)(i + s);
            cv[i] = av[i] / bv[(i / 2) % 3];
        }
        float_tensor(&ta, da, 3, av, 12, 0);
        float_tensor(&tc, da, 3, cv, 12, s);
        set_dir(dir, s, sdir, sizeof sdir);
        write_set_file(sdir, "input_0.pb", &ta);
        write_set_file(sdir, "output_0.pb", &tc);
    }
    rc = run(dir, reference, &text);
    CHECKF(rc == 0 && strstr(text, "opset 6 -> onnx-div-6 broadcast=1 axis=1, f32") &&
               strstr(text, "test_div_legacy_axis/test_data_set_1") &&
               strstr(text, "2 case(s); plugin") && strstr(text, "2 conform, 0 depart") &&
               strstr(text, "2 agree with the oracle, 0 disagree"),
           "rc %d:\n%s", rc, text);
    free(text);

    /* 2. opset 13 int32, numpy broadcasting; the shipped output floors -7/2
     *    where ONNX truncates: a disagreement of the test data, the
     *    reference still conforms; a flooring mutant departs. */
    snprintf(dir, sizeof dir, "%s/test_div_int32_floor_data", root);
    write_model(dir, 13, -1, -1, "Div", NULL);
    int32_t a32[4] = {-7, 7, -8, 9}, b32[1] = {2}, c32[4] = {-4, 3, -4, 4};
    int64_t d4[2] = {2, 2}, d1[1] = {1};
    int32_tensor(&ta, 6, d4, 2, a32, 4);
    int32_tensor(&tb, 6, d1, 1, b32, 1);
    int32_tensor(&tc, 6, d4, 2, c32, 4);
    set_dir(dir, 0, sdir, sizeof sdir);
    write_set_file(sdir, "input_0.pb", &ta);
    write_set_file(sdir, "input_1.pb", &tb);
    write_set_file(sdir, "output_0.pb", &tc);
    rc = run(dir, reference, &text);
    CHECKF(rc == 0 && strstr(text, "disagrees with the oracle on 1 of 4 elements") &&
               strstr(text, "the test ships -4 (0xfffffffc)") && strstr(text, "floor-vs-trunc") &&
               strstr(text, "plugin: conforms (4 elements)") && strstr(text, "3 bit-identical"),
           "rc %d:\n%s", rc, text);
    free(text);
    char mutant[512];
    snprintf(mutant, sizeof mutant, "%s/mutant_floor_not_trunc.so", mutants);
    rc = run(dir, mutant, &text);
    CHECKF(rc == 1 && strstr(text, "plugin: floor-vs-trunc") && strstr(text, "DEPARTS"),
           "rc %d:\n%s", rc, text);
    free(text);
    /* without a plugin: the test data alone */
    rc = run(dir, NULL, &text);
    CHECKF(rc == 0 && strstr(text, "1 case(s); test data: 0 agree"), "rc %d:\n%s", rc, text);
    free(text);

    /* 3. a folder of tests: both of the above, in name order */
    rc = run(root, reference, &text);
    CHECKF(rc == 0 && strstr(text, "test_div_int32_floor_data") &&
               strstr(text, "test_div_legacy_axis") &&
               strstr(text, "test_div_int32_floor_data") < strstr(text, "test_div_legacy_axis") &&
               strstr(text, "3 case(s)"),
           "rc %d:\n%s", rc, text);
    free(text);

    /* 4. malformed: no Div node; an attribute the opset does not define; a
     *    missing output file */
    snprintf(dir, sizeof dir, "%s/bad_nodiv", root);
    write_model(dir, 14, -1, -1, "Mul", NULL);
    rc = run(dir, reference, &text);
    CHECKF(rc == 2 && strstr(text, "no Div node"), "rc %d:\n%s", rc, text);
    free(text);
    snprintf(dir, sizeof dir, "%s/bad_attr", root);
    write_model(dir, 14, 1, -1, "Div", NULL);
    rc = run(dir, reference, &text);
    CHECKF(rc == 2 && strstr(text, "broadcast"), "rc %d:\n%s", rc, text);
    free(text);
    snprintf(dir, sizeof dir, "%s/bad_missing", root);
    write_model(dir, 14, -1, -1, "Div", NULL);
    set_dir(dir, 0, sdir, sizeof sdir);
    write_set_file(sdir, "input_0.pb", &ta);
    write_set_file(sdir, "input_1.pb", &tb);
    rc = run(dir, reference, &text);
    CHECKF(rc == 2 && strstr(text, "output_0.pb"), "rc %d:\n%s", rc, text);
    free(text);
}

int main(int argc, char **argv)
{
    char root[] = "/tmp/dvg_onnx_XXXXXX";
    if (argc != 3) {
        fprintf(stderr, "usage: test_onnx_tests REFERENCE_SO MUTANT_DIR\n");
        return 2;
    }
    check_decode();
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 2;
    }
    check_dirs(root, argv[1], argv[2]);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", root);
    return check_done("onnx_tests");
}
