/* SPDX-License-Identifier: MIT */
/*
 * harness/run/onnx/onnx_tests.h: ONNX's own backend tests for Div as a peer suite.
 *
 * ONNX ships node tests as directories (Debian: libonnx-testdata,
 * /usr/share/libonnx-testdata/data/node/test_div*):
 *
 *     test_div_bcast/model.onnx                    a ModelProto with one Div node
 *     test_div_bcast/test_data_set_0/input_0.pb    TensorProto of graph input 0
 *     test_div_bcast/test_data_set_0/input_1.pb    ... input 1
 *     test_div_bcast/test_data_set_0/output_0.pb   TensorProto of graph output 0
 *
 * This module decodes them with protobuf-c and the onnx.proto of
 * libonnx-dev (code generated at build time), maps the model's opset to a
 * Divergence variant (opset < 6: onnx-div-1, 6: onnx-div-6, 7-12:
 * onnx-div-7, 13: onnx-div-13, 14 and later: onnx-div-14) and the Div node's
 * attributes (broadcast, axis; consumed_inputs is ignored) to dvg_attrs,
 * and runs every data set: the oracle judges the shipped output (a
 * disagreement is reported as one of the test data, never as the plugin's),
 * and, with a plugin, the plugin runs in a worker and is judged by the
 * oracle, and compared with the shipped output element by element.
 *
 * Any directory of that layout is accepted: the Div node may sit anywhere
 * in the graph as long as its inputs are graph inputs or initializers and
 * its output a graph output; A and B may have any ONNX element type
 * Divergence has (float, float16, bfloat16, double, int8..int64,
 * uint8..uint64, int4, uint4), given as raw_data or as the typed fields
 * (float_data, int32_data, int64_data, double_data, uint64_data).
 *
 * Errors name the file and the field. Everything allocated goes through
 * harness/base/alloc.h. Since: Divergence 0.1.
 */
#ifndef HARNESS_ONNX_TESTS_H
#define HARNESS_ONNX_TESTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "divergence/iut.h"
#include "oracle/shape.h"

/* Largest .pb or .onnx file read (bytes); larger ones are refused. */
#define ONNXTESTS_MAX_FILE (UINT64_C(1) << 30)

/* 1 when this build can decode protobuf (protobuf-c and onnx.proto were
 * found at build time); 0 when every decoding function fails saying so. */
int onnxtests_available(void);

/* One decoded TensorProto. */
typedef struct onnxtests_tensor {
    int32_t onnx_type;     /* TensorProto.data_type as written */
    uint32_t dtype;        /* the DVG_DTYPE_* of it */
    oracle_shape shape;    /* dims; rank 0 for a scalar */
    uint8_t *data;         /* dense little-endian elements (i4/u4 packed two
                              per byte, low nibble first); owned, dvg_free */
    uint64_t nbytes;       /* oracle_nbytes(dtype, elements) */
    char name[128];        /* TensorProto.name (truncated), may be empty */
} onnxtests_tensor;

/*
 * Decodes the TensorProto in bytes[0..n-1] into *out. Accepts raw_data
 * (which must hold exactly the elements' bytes) and the typed fields
 * (float_data: FLOAT; int32_data: INT8, INT16, INT32, UINT8, UINT16,
 * FLOAT16 and BFLOAT16 as bits, INT4 and UINT4 as one packed byte per
 * entry; int64_data: INT64; double_data: DOUBLE; uint64_data: UINT32,
 * UINT64), whose count must match the dims. Refuses external data,
 * segments, a rank above DVG_MAX_RANK, negative dims, more than
 * ORACLE_MAX_ELEMENTS elements and element types Divergence does not have.
 * `what` names the source in messages (a file name). 0 on success (out
 * owns its data; free with onnxtests_tensor_free), -1 with the reason in
 * err.
 */
int onnxtests_decode_tensor(const uint8_t *bytes, size_t n, const char *what,
                            onnxtests_tensor *out, char *err, size_t errlen);

/* Reads and decodes a .pb file (at most ONNXTESTS_MAX_FILE bytes). */
int onnxtests_read_tensor(const char *path, onnxtests_tensor *out, char *err, size_t errlen);

/* Frees what the tensor owns and zeroes it. Accepts NULL. */
void onnxtests_tensor_free(onnxtests_tensor *t);

/* Where an operand of the Div node comes from. */
#define ONNXTESTS_FROM_INPUT       1u /* graph input number `index` (input_<index>.pb) */
#define ONNXTESTS_FROM_INITIALIZER 2u /* graph initializer: `init` holds it */

typedef struct onnxtests_operand {
    uint32_t from;          /* ONNXTESTS_FROM_* */
    uint32_t index;         /* graph input number, initializers not counted */
    onnxtests_tensor init;  /* the initializer (FROM_INITIALIZER) */
    char name[128];
} onnxtests_operand;

/* One model.onnx decoded. */
typedef struct onnxtests_model {
    int64_t opset;          /* version of the default ("" or "ai.onnx") domain */
    uint32_t variant;       /* DVG_VARIANT_* of that opset */
    dvg_attrs attrs;        /* the variant's defaults with the node's
                               broadcast and axis */
    char attr_text[128];    /* the attributes as written, "broadcast=1 axis=1" */
    onnxtests_operand a, b; /* the Div node's inputs */
    uint32_t output;        /* graph output number of its output (output_<n>.pb) */
    int64_t ir_version;
} onnxtests_model;

/* The variant of an opset of the default domain: < 6 onnx-div-1, 6
 * onnx-div-6, 7-12 onnx-div-7, 13 onnx-div-13, >= 14 onnx-div-14;
 * DVG_VARIANT_NONE for opset < 1. */
uint32_t onnxtests_variant_of_opset(int64_t opset);

/*
 * Decodes a ModelProto file and finds its Div node. -1 with the reason in
 * err when the file is not a ModelProto, has no default-domain opset, no
 * Div node or more than one, an attribute of the wrong type or one the
 * opset's Div does not define, or operands that are neither graph inputs
 * nor initializers. Free with onnxtests_model_free.
 */
int onnxtests_read_model(const char *path, onnxtests_model *out, char *err, size_t errlen);

/* Frees the model's initializers and zeroes it. Accepts NULL. */
void onnxtests_model_free(onnxtests_model *m);

typedef struct onnxtests_options {
    const char *plugin_path; /* NULL: judge the shipped outputs only */
    const char *config;      /* the plugin's open() config; NULL: "" */
    uint32_t timeout_ms;     /* per plugin call; 0: 10000 */
    int verbose;             /* 1: every differing element (up to 20 per data set) */
} onnxtests_options;

/*
 * Runs the tests under `dir`: `dir` itself when it holds model.onnx, else
 * every subdirectory named test_div* that holds one (in name order). Each
 * test_data_set_* of each test is one case. Prints a line per data set and
 * a summary to `out`, errors to `err`. Returns 0 when every case ran and
 * the plugin conformed on each one it claims (disagreements between the
 * test data and the oracle are reported, not failures), 1 when the plugin
 * departed on a case, 2 on errors (no tests found, unreadable or malformed
 * files, the plugin does not load).
 */
int onnxtests_run(const char *dir, const onnxtests_options *o, FILE *out, FILE *err);

#endif /* HARNESS_ONNX_TESTS_H */
