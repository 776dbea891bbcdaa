/* SPDX-License-Identifier: MIT */
/*
 * This file contains the model reader of onnx-tests: each test
 * directory's model.onnx and TensorProtos decoded (protobuf-c, code
 * generated from libonnx-dev's onnx.proto), the Div node found, its opset
 * mapped to a variant and its attributes to the variant's, the operands'
 * tensors into dense Divergence buffers. runner.c runs what it reads.
 */
#include "harness/run/onnx/onnx_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/cases/divcase.h"
#include "harness/judge/verdict.h"
#include "harness/worker/worker.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/rules.h"
#include "oracle/variant.h"

#ifdef DVG_HAVE_ONNX_PROTO
#include "onnx/onnx.pb-c.h"
#endif

int onnxtests_fail(char *err, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
    return -1;
}

uint32_t onnxtests_variant_of_opset(int64_t opset)
{
    if (opset < 1)
        return DVG_VARIANT_NONE;
    if (opset < 6)
        return DVG_VARIANT_ONNX_DIV_1;
    if (opset == 6)
        return DVG_VARIANT_ONNX_DIV_6;
    if (opset <= 12)
        return DVG_VARIANT_ONNX_DIV_7;
    if (opset == 13)
        return DVG_VARIANT_ONNX_DIV_13;
    return DVG_VARIANT_ONNX_DIV_14;
}

void onnxtests_tensor_free(onnxtests_tensor *t)
{
    if (!t)
        return;
    dvg_free(t->data);
    memset(t, 0, sizeof *t);
}

void onnxtests_model_free(onnxtests_model *m)
{
    if (!m)
        return;
    onnxtests_tensor_free(&m->a.init);
    onnxtests_tensor_free(&m->b.init);
    memset(m, 0, sizeof *m);
}

/* Reads a whole file of at most ONNXTESTS_MAX_FILE bytes. */
static int read_file(const char *path, uint8_t **out, size_t *n, char *err, size_t len)
{
    /* Not blocking: a FIFO or a device is refused, not waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
    struct stat st;
    uint8_t *p = NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return onnxtests_fail(err, len, "%s: %s", path, strerror(e));
    }
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return onnxtests_fail(err, len, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > ONNXTESTS_MAX_FILE) {
        fclose(f);
        return onnxtests_fail(err, len, "%s: %lld bytes, more than the %" PRIu64 " this reads", path,
                    (long long)st.st_size, ONNXTESTS_MAX_FILE);
    }
    p = dvg_malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!p || fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        fclose(f);
        dvg_free(p);
        return onnxtests_fail(err, len, "%s: %s", path, p ? "short read" : "out of memory");
    }
    fclose(f);
    *out = p;
    *n = (size_t)st.st_size;
    return 0;
}

#ifdef DVG_HAVE_ONNX_PROTO

int onnxtests_available(void)
{
    return 1;
}

/* protobuf-c allocates through the harness's hook. */
static void *pb_alloc(void *ctx, size_t n)
{
    (void)ctx;
    return dvg_malloc(n ? n : 1);
}

static void pb_free(void *ctx, void *p)
{
    (void)ctx;
    dvg_free(p);
}

static ProtobufCAllocator pb_allocator = {pb_alloc, pb_free, NULL};

/* ONNX TensorProto.DataType -> DVG_DTYPE_*; 0 for types Divergence lacks. */
static uint32_t dtype_of_onnx(int32_t t)
{
    switch (t) {
    case 1: return DVG_DTYPE_F32;   /* FLOAT */
    case 2: return DVG_DTYPE_U8;    /* UINT8 */
    case 3: return DVG_DTYPE_I8;    /* INT8 */
    case 4: return DVG_DTYPE_U16;   /* UINT16 */
    case 5: return DVG_DTYPE_I16;   /* INT16 */
    case 6: return DVG_DTYPE_I32;   /* INT32 */
    case 7: return DVG_DTYPE_I64;   /* INT64 */
    case 10: return DVG_DTYPE_F16;  /* FLOAT16 */
    case 11: return DVG_DTYPE_F64;  /* DOUBLE */
    case 12: return DVG_DTYPE_U32;  /* UINT32 */
    case 13: return DVG_DTYPE_U64;  /* UINT64 */
    case 16: return DVG_DTYPE_BF16; /* BFLOAT16 */
    case 21: return DVG_DTYPE_U4;   /* UINT4 */
    case 22: return DVG_DTYPE_I4;   /* INT4 */
    }
    return DVG_DTYPE_NONE;
}

/* The typed field that may hold elements of ONNX type t, as (count,
 * pointer, element bytes); 0 when none does. */
typedef struct typed_field {
    const char *name;
    size_t n;
    const void *p;
} typed_field;

/* The header of TensorProto tp into *out: its dtype, shape, byte size
 * and name; *count its elements. 0 or -1. */
static int decode_header(const Onnx__TensorProto *tp, const char *what, onnxtests_tensor *out,
                         uint64_t *count, char *err, size_t len)
{
    memset(out, 0, sizeof *out);
    *count = 1;
    if (!tp->has_data_type)
        return onnxtests_fail(err, len, "%s: TensorProto.data_type is missing", what);
    out->onnx_type = tp->data_type;
    uint32_t dtype = dtype_of_onnx(tp->data_type);
    if (!dtype)
        return onnxtests_fail(err, len, "%s: TensorProto.data_type %d has no Divergence dtype "
                              "(floats, int4..int64, uint4..uint64 only)", what, tp->data_type);
    if (tp->segment)
        return onnxtests_fail(err, len, "%s: TensorProto.segment is not supported", what);
    if ((tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
        tp->n_external_data)
        return onnxtests_fail(err, len, "%s: TensorProto.external_data is not supported", what);
    if (tp->n_dims > DVG_MAX_RANK)
        return onnxtests_fail(err, len, "%s: TensorProto.dims has rank %zu, more than %d", what,
                              tp->n_dims, DVG_MAX_RANK);
    out->shape.rank = (uint32_t)tp->n_dims;
    for (size_t k = 0; k < tp->n_dims; k++) {
        if (tp->dims[k] < 0)
            return onnxtests_fail(err, len, "%s: TensorProto.dims[%zu] is %" PRId64, what, k,
                                  tp->dims[k]);
        out->shape.dims[k] = tp->dims[k];
    }
    for (size_t k = 0; k < tp->n_dims; k++) {
        if (tp->dims[k] == 0) {
            *count = 0;
            break;
        }
        if ((uint64_t)tp->dims[k] > ORACLE_MAX_ELEMENTS / *count)
            return onnxtests_fail(err, len, "%s: TensorProto.dims hold more than %" PRIu64
                                  " elements", what, ORACLE_MAX_ELEMENTS);
        *count *= (uint64_t)tp->dims[k];
    }
    out->dtype = dtype;
    out->nbytes = oracle_nbytes(dtype, *count);
    if (tp->name)
        snprintf(out->name, sizeof out->name, "%s", tp->name);
    return 0;
}

/* The one typed data field present (`typed`) into out->data: it must be
 * the field that carries data_type. 0 or -1 (out freed). */
static int decode_typed(const Onnx__TensorProto *tp, const char *what, const typed_field *typed,
                        uint64_t count, onnxtests_tensor *out, char *err, size_t len)
{
    const oracle_dtype_info *info = oracle_dtype(out->dtype);
    const char *want;
    switch (tp->data_type) {
    case 1: want = "float_data"; break;
    case 7: want = "int64_data"; break;
    case 11: want = "double_data"; break;
    case 12: case 13: want = "uint64_data"; break;
    default: want = "int32_data"; break; /* 8/16/32-bit ints, f16, bf16, 4-bit */
    }
    if (strcmp(typed->name, want)) {
        onnxtests_tensor_free(out);
        return onnxtests_fail(err, len, "%s: TensorProto.%s given for data_type %d (%s), which "
                              "is carried in %s", what, typed->name, tp->data_type, info->tag,
                              want);
    }
    /* 4-bit types: each int32_data entry is one byte of two packed elements. */
    uint64_t entries = info->bits == 4 ? out->nbytes : count;
    if (typed->n != entries) {
        onnxtests_tensor_free(out);
        return onnxtests_fail(err, len, "%s: TensorProto.%s has %zu entries; dims need %" PRIu64,
                              what, typed->name, typed->n, entries);
    }
    for (uint64_t i = 0; i < entries; i++) {
        uint64_t bits;
        switch (tp->data_type) {
        case 1: {
            uint32_t u;
            memcpy(&u, &tp->float_data[i], 4);
            bits = u;
            break;
        }
        case 11: memcpy(&bits, &tp->double_data[i], 8); break;
        case 7: bits = (uint64_t)tp->int64_data[i]; break;
        case 12: case 13: bits = tp->uint64_data[i]; break;
        default: bits = (uint64_t)(int64_t)tp->int32_data[i]; break;
        }
        if (info->bits == 4)
            out->data[i] = (uint8_t)bits;
        else
            oracle_store(out->dtype, out->data, i, bits & oracle_dtype_mask(out->dtype));
    }
    return 0;
}

static int decode(const Onnx__TensorProto *tp, const char *what, onnxtests_tensor *out,
                  char *err, size_t len)
{
    uint64_t count;
    typed_field typed[5];
    int n_typed = 0;
    if (decode_header(tp, what, out, &count, err, len))
        return -1;
    if (tp->n_float_data)
        typed[n_typed++] = (typed_field){"float_data", tp->n_float_data, tp->float_data};
    if (tp->n_int32_data)
        typed[n_typed++] = (typed_field){"int32_data", tp->n_int32_data, tp->int32_data};
    if (tp->n_int64_data)
        typed[n_typed++] = (typed_field){"int64_data", tp->n_int64_data, tp->int64_data};
    if (tp->n_double_data)
        typed[n_typed++] = (typed_field){"double_data", tp->n_double_data, tp->double_data};
    if (tp->n_uint64_data)
        typed[n_typed++] = (typed_field){"uint64_data", tp->n_uint64_data, tp->uint64_data};
    if (tp->n_string_data)
        return onnxtests_fail(err, len, "%s: TensorProto.string_data in a numeric tensor", what);
    if (n_typed + (tp->has_raw_data ? 1 : 0) > 1)
        return onnxtests_fail(err, len, "%s: more than one of raw_data and the typed data fields",
                              what);
    out->data = dvg_calloc(1, out->nbytes ? (size_t)out->nbytes : 1);
    if (!out->data)
        return onnxtests_fail(err, len, "%s: out of memory for %" PRIu64 " bytes", what,
                              out->nbytes);
    if (tp->has_raw_data) {
        if (tp->raw_data.len != out->nbytes) {
            uint64_t need = out->nbytes;
            onnxtests_tensor_free(out);
            return onnxtests_fail(err, len, "%s: TensorProto.raw_data has %zu bytes; dims and "
                                  "data_type (%s) need %" PRIu64, what, tp->raw_data.len,
                                  oracle_dtype_tag(dtype_of_onnx(tp->data_type)), need);
        }
        if (count)
            memcpy(out->data, tp->raw_data.data, tp->raw_data.len);
        return 0;
    }
    if (n_typed == 0) {
        if (count == 0)
            return 0;
        onnxtests_tensor_free(out);
        return onnxtests_fail(err, len, "%s: %" PRIu64 " elements but no raw_data and no typed "
                              "data", what, count);
    }
    return decode_typed(tp, what, &typed[0], count, out, err, len);
}

int onnxtests_decode_tensor(const uint8_t *bytes, size_t n, const char *what,
                            onnxtests_tensor *out, char *err, size_t errlen)
{
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(&pb_allocator, n, bytes);
    if (!tp)
        return onnxtests_fail(err, errlen, "%s: not a valid TensorProto (protobuf decoding failed)", what);
    int rc = decode(tp, what, out, err, errlen);
    onnx__tensor_proto__free_unpacked(tp, &pb_allocator);
    return rc;
}

int onnxtests_read_tensor(const char *path, onnxtests_tensor *out, char *err, size_t errlen)
{
    uint8_t *bytes;
    size_t n;
    memset(out, 0, sizeof *out);
    if (read_file(path, &bytes, &n, err, errlen))
        return -1;
    int rc = onnxtests_decode_tensor(bytes, n, path, out, err, errlen);
    dvg_free(bytes);
    return rc;
}

static int default_domain(const char *d)
{
    return !d || !d[0] || !strcmp(d, "ai.onnx");
}

/* Finds a node input among the graph's initializers and inputs. */
static int find_operand(const Onnx__GraphProto *g, const char *name, const char *path,
                        onnxtests_operand *op, char *err, size_t len)
{
    uint32_t index = 0;
    snprintf(op->name, sizeof op->name, "%s", name);
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, name)) {
            char what[512];
            snprintf(what, sizeof what, "%s: initializer '%s'", path, name);
            op->from = ONNXTESTS_FROM_INITIALIZER;
            return decode(g->initializer[i], what, &op->init, err, len);
        }
    for (size_t i = 0; i < g->n_input; i++) {
        const char *in = g->input[i]->name;
        int is_init = 0;
        for (size_t k = 0; in && k < g->n_initializer; k++)
            is_init = is_init || (g->initializer[k]->name && !strcmp(g->initializer[k]->name, in));
        if (is_init)
            continue; /* IR < 4 lists initializers among the inputs */
        if (in && !strcmp(in, name)) {
            op->from = ONNXTESTS_FROM_INPUT;
            op->index = index;
            return 0;
        }
        index++;
    }
    return onnxtests_fail(err, len, "%s: the Div node's input '%s' is neither a graph input nor an "
                "initializer", path, name);
}

/* The Div node of the graph: the one node of op_type Div in the default
 * domain, with 2 inputs and 1 output. NULL with the reason in err. */
static const Onnx__NodeProto *find_div(const Onnx__GraphProto *g, const char *path, char *err,
                                       size_t errlen)
{
    const Onnx__NodeProto *div = NULL;
    for (size_t i = 0; i < g->n_node; i++) {
        const Onnx__NodeProto *nd = g->node[i];
        if (nd->op_type && !strcmp(nd->op_type, "Div") && default_domain(nd->domain)) {
            if (div) {
                onnxtests_fail(err, errlen, "%s: more than one Div node", path);
                return NULL;
            }
            div = nd;
        }
    }
    if (!div)
        onnxtests_fail(err, errlen, "%s: no Div node in the graph", path);
    else if (div->n_input != 2 || div->n_output != 1)
        onnxtests_fail(err, errlen, "%s: the Div node has %zu inputs and %zu outputs, not 2 and 1",
                       path, div->n_input, div->n_output);
    else
        return div;
    return NULL;
}

/* The Div node's attributes under variant v into out->attrs and
 * out->attr_text. 0 or -1. */
static int read_attrs(const Onnx__NodeProto *div, const oracle_variant *v, const char *path,
                      onnxtests_model *out, char *err, size_t errlen)
{
    oracle_attrs_default(v, &out->attrs);
    for (size_t i = 0; i < div->n_attribute; i++) {
        const Onnx__AttributeProto *at = div->attribute[i];
        const char *name = at->name ? at->name : "";
        char value[32];
        oracle_error why;
        size_t used = strlen(out->attr_text);
        if (!strcmp(name, "consumed_inputs")) { /* legacy, ignored */
            if (oracle_attrs_set(v, &out->attrs, "consumed_inputs", "0", &why))
                return onnxtests_fail(err, errlen, "%s: Div attribute consumed_inputs: %s", path,
                                      why.text);
            continue;
        }
        if (at->has_type && at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT)
            return onnxtests_fail(err, errlen, "%s: Div attribute '%s' has type %d, not INT", path,
                                  name, (int)at->type);
        if (!at->has_i)
            return onnxtests_fail(err, errlen, "%s: Div attribute '%s' has no integer value",
                                  path, name);
        snprintf(value, sizeof value, "%" PRId64, at->i);
        if (oracle_attrs_set(v, &out->attrs, name, value, &why))
            return onnxtests_fail(err, errlen, "%s: Div attribute %s=%s under opset %" PRId64 ": %s",
                                  path, name, value, out->opset, why.text);
        snprintf(out->attr_text + used, sizeof out->attr_text - used, "%s%s=%s",
                 used ? " " : "", name, value);
    }
    return 0;
}

/* The opset of the default domain into out->opset and its variant. NULL
 * with the reason in err. */
static const oracle_variant *read_opset(const Onnx__ModelProto *m, const char *path,
                                        onnxtests_model *out, char *err, size_t errlen)
{
    int have_opset = 0;
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (default_domain(m->opset_import[i]->domain) && m->opset_import[i]->has_version) {
            out->opset = m->opset_import[i]->version;
            have_opset = 1;
        }
    if (!have_opset) {
        onnxtests_fail(err, errlen, "%s: ModelProto.opset_import has no version for the default "
                       "domain", path);
        return NULL;
    }
    out->variant = onnxtests_variant_of_opset(out->opset);
    const oracle_variant *v = oracle_variant_get(out->variant);
    if (!v)
        onnxtests_fail(err, errlen, "%s: opset %" PRId64 " has no Div", path, out->opset);
    else if (!m->graph)
        onnxtests_fail(err, errlen, "%s: ModelProto.graph is missing", path);
    else
        return v;
    return NULL;
}

int onnxtests_read_model(const char *path, onnxtests_model *out, char *err, size_t errlen)
{
    uint8_t *bytes = NULL;
    size_t n;
    Onnx__ModelProto *m = NULL;
    const Onnx__NodeProto *div;
    const oracle_variant *v;
    int rc = -1;

    memset(out, 0, sizeof *out);
    if (read_file(path, &bytes, &n, err, errlen))
        return -1;
    m = onnx__model_proto__unpack(&pb_allocator, n, bytes);
    if (!m) {
        onnxtests_fail(err, errlen, "%s: not a valid ModelProto (protobuf decoding failed)", path);
        goto done;
    }
    out->ir_version = m->has_ir_version ? m->ir_version : 0;
    if (!(v = read_opset(m, path, out, err, errlen)) ||
        !(div = find_div(m->graph, path, err, errlen)) ||
        read_attrs(div, v, path, out, err, errlen) ||
        find_operand(m->graph, div->input[0], path, &out->a, err, errlen) ||
        find_operand(m->graph, div->input[1], path, &out->b, err, errlen))
        goto done;
    for (size_t i = 0; i <= m->graph->n_output; i++) {
        if (i == m->graph->n_output) {
            onnxtests_fail(err, errlen, "%s: the Div node's output '%s' is not a graph output",
                           path, div->output[0]);
            goto done;
        }
        if (m->graph->output[i]->name && !strcmp(m->graph->output[i]->name, div->output[0])) {
            out->output = (uint32_t)i;
            break;
        }
    }
    rc = 0;
done:
    if (m)
        onnx__model_proto__free_unpacked(m, &pb_allocator);
    dvg_free(bytes);
    if (rc)
        onnxtests_model_free(out);
    return rc;
}

#else /* no protobuf-c at build time */

#define ONNXTESTS_MISSING "this divergence was built without protobuf-c (libprotobuf-c-dev, " \
                          "protobuf-c-compiler) and libonnx-dev's onnx.proto: run scripts/setup.sh"

int onnxtests_available(void)
{
    return 0;
}

int onnxtests_decode_tensor(const uint8_t *bytes, size_t n, const char *what,
                            onnxtests_tensor *out, char *err, size_t errlen)
{
    (void)bytes, (void)n, (void)what;
    memset(out, 0, sizeof *out);
    return onnxtests_fail(err, errlen, "%s", ONNXTESTS_MISSING);
}

int onnxtests_read_tensor(const char *path, onnxtests_tensor *out, char *err, size_t errlen)
{
    (void)path;
    memset(out, 0, sizeof *out);
    return onnxtests_fail(err, errlen, "%s", ONNXTESTS_MISSING);
}

int onnxtests_read_model(const char *path, onnxtests_model *out, char *err, size_t errlen)
{
    (void)path;
    memset(out, 0, sizeof *out);
    return onnxtests_fail(err, errlen, "%s", ONNXTESTS_MISSING);
}

#endif
