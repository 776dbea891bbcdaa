/* SPDX-License-Identifier: MIT */
/*
 * This file contains the runner of ONNX's own Div node tests: decoding each
 * test directory's model and TensorProtos (protobuf-c, code generated from
 * libonnx-dev's onnx.proto), checking ONNX's expected outputs against the
 * oracle, and, with a plugin, running the inputs through the trial and
 * judging what the plugin computed.
 */
#include "harness/run/onnx/onnx_tests.h"

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
#include "harness/run/engine/trial.h"
#include "harness/judge/verdict.h"
#include "harness/worker/worker.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/expect.h"
#include "oracle/fastpath.h"
#include "oracle/rules.h"
#include "oracle/variant.h"

#ifdef DVG_HAVE_ONNX_PROTO
#include "onnx/onnx.pb-c.h"
#endif

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(char *err, size_t len, const char *fmt, ...)
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
        return fail(err, len, "%s: %s", path, strerror(e));
    }
    if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
        fclose(f);
        return fail(err, len, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size > ONNXTESTS_MAX_FILE) {
        fclose(f);
        return fail(err, len, "%s: %lld bytes, more than the %" PRIu64 " this reads", path,
                    (long long)st.st_size, ONNXTESTS_MAX_FILE);
    }
    p = dvg_malloc(st.st_size ? (size_t)st.st_size : 1);
    if (!p || fread(p, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        fclose(f);
        dvg_free(p);
        return fail(err, len, "%s: %s", path, p ? "short read" : "out of memory");
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

static int decode(const Onnx__TensorProto *tp, const char *what, onnxtests_tensor *out,
                  char *err, size_t len)
{
    uint64_t count = 1;
    uint32_t dtype;
    const oracle_dtype_info *info;
    typed_field typed[5];
    int n_typed = 0;

    memset(out, 0, sizeof *out);
    if (!tp->has_data_type)
        return fail(err, len, "%s: TensorProto.data_type is missing", what);
    out->onnx_type = tp->data_type;
    dtype = dtype_of_onnx(tp->data_type);
    if (!dtype)
        return fail(err, len, "%s: TensorProto.data_type %d has no Divergence dtype (floats, "
                    "int4..int64, uint4..uint64 only)", what, tp->data_type);
    info = oracle_dtype(dtype);
    if (tp->segment)
        return fail(err, len, "%s: TensorProto.segment is not supported", what);
    if ((tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) ||
        tp->n_external_data)
        return fail(err, len, "%s: TensorProto.external_data is not supported", what);
    if (tp->n_dims > DVG_MAX_RANK)
        return fail(err, len, "%s: TensorProto.dims has rank %zu, more than %d", what, tp->n_dims,
                    DVG_MAX_RANK);
    out->shape.rank = (uint32_t)tp->n_dims;
    for (size_t k = 0; k < tp->n_dims; k++) {
        if (tp->dims[k] < 0)
            return fail(err, len, "%s: TensorProto.dims[%zu] is %" PRId64, what, k, tp->dims[k]);
        out->shape.dims[k] = tp->dims[k];
    }
    for (size_t k = 0; k < tp->n_dims; k++) {
        if (tp->dims[k] == 0) {
            count = 0;
            break;
        }
        if ((uint64_t)tp->dims[k] > ORACLE_MAX_ELEMENTS / count)
            return fail(err, len, "%s: TensorProto.dims hold more than %" PRIu64 " elements",
                        what, ORACLE_MAX_ELEMENTS);
        count *= (uint64_t)tp->dims[k];
    }
    out->dtype = dtype;
    out->nbytes = oracle_nbytes(dtype, count);
    if (tp->name)
        snprintf(out->name, sizeof out->name, "%s", tp->name);

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
        return fail(err, len, "%s: TensorProto.string_data in a numeric tensor", what);
    if (n_typed + (tp->has_raw_data ? 1 : 0) > 1)
        return fail(err, len, "%s: more than one of raw_data and the typed data fields", what);

    out->data = dvg_calloc(1, out->nbytes ? (size_t)out->nbytes : 1);
    if (!out->data)
        return fail(err, len, "%s: out of memory for %" PRIu64 " bytes", what, out->nbytes);

    if (tp->has_raw_data) {
        if (tp->raw_data.len != out->nbytes) {
            onnxtests_tensor_free(out);
            return fail(err, len, "%s: TensorProto.raw_data has %zu bytes; dims and data_type "
                        "(%s) need %" PRIu64, what, tp->raw_data.len, info->tag,
                        oracle_nbytes(dtype, count));
        }
        if (count)
            memcpy(out->data, tp->raw_data.data, tp->raw_data.len);
        return 0;
    }
    if (n_typed == 0) {
        if (count == 0)
            return 0;
        onnxtests_tensor_free(out);
        return fail(err, len, "%s: %" PRIu64 " elements but no raw_data and no typed data", what,
                    count);
    }

    /* The one typed field present must be the one for this type. */
    const char *want;
    switch (tp->data_type) {
    case 1: want = "float_data"; break;
    case 7: want = "int64_data"; break;
    case 11: want = "double_data"; break;
    case 12: case 13: want = "uint64_data"; break;
    default: want = "int32_data"; break; /* 8/16/32-bit ints, f16, bf16, 4-bit */
    }
    if (strcmp(typed[0].name, want)) {
        onnxtests_tensor_free(out);
        return fail(err, len, "%s: TensorProto.%s given for data_type %d (%s), which is carried "
                    "in %s", what, typed[0].name, tp->data_type, info->tag, want);
    }
    /* 4-bit types: each int32_data entry is one byte of two packed elements. */
    uint64_t entries = info->bits == 4 ? out->nbytes : count;
    if (typed[0].n != entries) {
        onnxtests_tensor_free(out);
        return fail(err, len, "%s: TensorProto.%s has %zu entries; dims need %" PRIu64, what,
                    typed[0].name, typed[0].n, entries);
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
        case 11:
            memcpy(&bits, &tp->double_data[i], 8);
            break;
        case 7:
            bits = (uint64_t)tp->int64_data[i];
            break;
        case 12: case 13:
            bits = tp->uint64_data[i];
            break;
        default:
            bits = (uint64_t)(int64_t)tp->int32_data[i];
            break;
        }
        if (info->bits == 4)
            out->data[i] = (uint8_t)bits;
        else
            oracle_store(dtype, out->data, i, bits & oracle_dtype_mask(dtype));
    }
    return 0;
}

int onnxtests_decode_tensor(const uint8_t *bytes, size_t n, const char *what,
                            onnxtests_tensor *out, char *err, size_t errlen)
{
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(&pb_allocator, n, bytes);
    if (!tp)
        return fail(err, errlen, "%s: not a valid TensorProto (protobuf decoding failed)", what);
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
    return fail(err, len, "%s: the Div node's input '%s' is neither a graph input nor an "
                "initializer", path, name);
}

int onnxtests_read_model(const char *path, onnxtests_model *out, char *err, size_t errlen)
{
    uint8_t *bytes = NULL;
    size_t n;
    Onnx__ModelProto *m = NULL;
    const Onnx__NodeProto *div = NULL;
    const oracle_variant *v;
    int rc = -1, have_opset = 0;

    memset(out, 0, sizeof *out);
    if (read_file(path, &bytes, &n, err, errlen))
        return -1;
    m = onnx__model_proto__unpack(&pb_allocator, n, bytes);
    if (!m) {
        fail(err, errlen, "%s: not a valid ModelProto (protobuf decoding failed)", path);
        goto done;
    }
    out->ir_version = m->has_ir_version ? m->ir_version : 0;
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (default_domain(m->opset_import[i]->domain) && m->opset_import[i]->has_version) {
            out->opset = m->opset_import[i]->version;
            have_opset = 1;
        }
    if (!have_opset) {
        fail(err, errlen, "%s: ModelProto.opset_import has no version for the default domain",
             path);
        goto done;
    }
    out->variant = onnxtests_variant_of_opset(out->opset);
    v = oracle_variant_get(out->variant);
    if (!v) {
        fail(err, errlen, "%s: opset %" PRId64 " has no Div", path, out->opset);
        goto done;
    }
    if (!m->graph) {
        fail(err, errlen, "%s: ModelProto.graph is missing", path);
        goto done;
    }
    for (size_t i = 0; i < m->graph->n_node; i++) {
        const Onnx__NodeProto *nd = m->graph->node[i];
        if (nd->op_type && !strcmp(nd->op_type, "Div") && default_domain(nd->domain)) {
            if (div) {
                fail(err, errlen, "%s: more than one Div node", path);
                goto done;
            }
            div = nd;
        }
    }
    if (!div) {
        fail(err, errlen, "%s: no Div node in the graph", path);
        goto done;
    }
    if (div->n_input != 2 || div->n_output != 1) {
        fail(err, errlen, "%s: the Div node has %zu inputs and %zu outputs, not 2 and 1", path,
             div->n_input, div->n_output);
        goto done;
    }
    oracle_attrs_default(v, &out->attrs);
    for (size_t i = 0; i < div->n_attribute; i++) {
        const Onnx__AttributeProto *at = div->attribute[i];
        const char *name = at->name ? at->name : "";
        char value[32];
        oracle_error why;
        size_t used = strlen(out->attr_text);
        if (!strcmp(name, "consumed_inputs")) { /* legacy, ignored */
            if (oracle_attrs_set(v, &out->attrs, "consumed_inputs", "0", &why)) {
                fail(err, errlen, "%s: Div attribute consumed_inputs: %s", path, why.text);
                goto done;
            }
            continue;
        }
        if (at->has_type && at->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT) {
            fail(err, errlen, "%s: Div attribute '%s' has type %d, not INT", path, name,
                 (int)at->type);
            goto done;
        }
        if (!at->has_i) {
            fail(err, errlen, "%s: Div attribute '%s' has no integer value", path, name);
            goto done;
        }
        snprintf(value, sizeof value, "%" PRId64, at->i);
        if (oracle_attrs_set(v, &out->attrs, name, value, &why)) {
            fail(err, errlen, "%s: Div attribute %s=%s under opset %" PRId64 ": %s", path, name,
                 value, out->opset, why.text);
            goto done;
        }
        snprintf(out->attr_text + used, sizeof out->attr_text - used, "%s%s=%s",
                 used ? " " : "", name, value);
    }
    if (find_operand(m->graph, div->input[0], path, &out->a, err, errlen) ||
        find_operand(m->graph, div->input[1], path, &out->b, err, errlen))
        goto done;
    for (size_t i = 0; i <= m->graph->n_output; i++) {
        if (i == m->graph->n_output) {
            fail(err, errlen, "%s: the Div node's output '%s' is not a graph output", path,
                 div->output[0]);
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
    return fail(err, errlen, "%s", ONNXTESTS_MISSING);
}

int onnxtests_read_tensor(const char *path, onnxtests_tensor *out, char *err, size_t errlen)
{
    (void)path;
    memset(out, 0, sizeof *out);
    return fail(err, errlen, "%s", ONNXTESTS_MISSING);
}

int onnxtests_read_model(const char *path, onnxtests_model *out, char *err, size_t errlen)
{
    (void)path;
    memset(out, 0, sizeof *out);
    return fail(err, errlen, "%s", ONNXTESTS_MISSING);
}

#endif

/* ------------------------------------------------------------------------
 * Running the tests.
 * ---------------------------------------------------------------------- */

typedef struct run_state {
    const onnxtests_options *o;
    FILE *out, *err;
    worker *w;
    int loaded;              /* 1: the worker has started once, -1: it failed to */
    verdict_profile profile;
    trial t;
    uint64_t shown;          /* plugin findings shown for this data set */
    /* totals */
    unsigned cases, conform, depart, skipped, data_disagree, data_agree;
} run_state;

typedef struct name_list {
    char **names;
    size_t n, cap;
} name_list;

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        dvg_free(l->names[i]);
    dvg_free(l->names);
    memset(l, 0, sizeof *l);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* path = a/b (or a/b/c when c is not NULL); -1 when it does not fit. */
static int join(char *path, size_t len, const char *a, const char *b, const char *c)
{
    int n = c ? snprintf(path, len, "%s/%s/%s", a, b, c) : snprintf(path, len, "%s/%s", a, b);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Entries of `dir` whose names start with `prefix` and that are
 * directories, sorted. -1 on an unreadable directory or memory. */
static int list_dirs(const char *dir, const char *prefix, name_list *out, char *err, size_t len)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    memset(out, 0, sizeof *out);
    if (!d)
        return fail(err, len, "%s: %s", dir, strerror(errno));
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        if (strncmp(e->d_name, prefix, strlen(prefix)))
            continue;
        if (join(path, sizeof path, dir, e->d_name, NULL) || stat(path, &st) ||
            !S_ISDIR(st.st_mode))
            continue;
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 16;
            char **p = dvg_realloc(out->names, cap * sizeof *p);
            if (!p)
                goto oom;
            out->names = p;
            out->cap = cap;
        }
        if (!(out->names[out->n] = dvg_strdup(e->d_name)))
            goto oom;
        out->n++;
    }
    closedir(d);
    if (out->n) /* qsort takes no NULL array, even empty (UBSan) */
        qsort(out->names, out->n, sizeof *out->names, cmp_names);
    return 0;
oom:
    closedir(d);
    names_free(out);
    return fail(err, len, "%s: out of memory", dir);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static int show_finding(void *ctx, const divcase *c, const verdict_example *ex)
{
    run_state *rs = ctx;
    char a[80], b[80], want[96], got[VERDICT_ACTUAL_MAX];
    if (ex->accepted)
        return 0;
    if (ex->index == UINT64_MAX) {
        fprintf(rs->out, "    plugin: %s: %s\n", oracle_class_name(ex->cls), ex->note);
        return 0;
    }
    if (rs->shown++ >= (rs->o->verbose ? 20u : 3u))
        return 0;
    verdict_bits_text(c->dtype, ex->a, a, sizeof a);
    verdict_bits_text(c->dtype, ex->b, b, sizeof b);
    verdict_elem_text(c->dtype, &ex->expected, want, sizeof want);
    verdict_actual_text(c->dtype, ex, got, sizeof got);
    fprintf(rs->out, "    plugin: %s, %" PRIu64 " element(s), e.g. element %" PRIu64
            ": %s / %s: expected %s, got %s\n", oracle_class_name(ex->cls), ex->elements,
            ex->index, a, b, want, got);
    return 0;
}

/* 1 when the plugin claims (variant, dtype). */
static int claims(const worker_info *in, uint32_t variant, uint32_t dtype)
{
    for (uint32_t i = 0; in && i < in->n_claims; i++)
        if (in->claims[i].variant == variant && in->claims[i].dtype == dtype)
            return 1;
    return 0;
}

/* Loads an operand of one data set: the initializer, or input_<n>.pb. */
static int load_operand(const char *set_dir, const onnxtests_operand *op, onnxtests_tensor *t,
                        char *err, size_t len)
{
    char path[4096], file[32];
    if (op->from == ONNXTESTS_FROM_INITIALIZER) {
        *t = op->init;
        t->data = dvg_malloc(op->init.nbytes ? (size_t)op->init.nbytes : 1);
        if (!t->data)
            return fail(err, len, "out of memory");
        memcpy(t->data, op->init.data, (size_t)op->init.nbytes);
        return 0;
    }
    snprintf(file, sizeof file, "input_%u.pb", op->index);
    if (join(path, sizeof path, set_dir, file, NULL))
        return fail(err, len, "%s: path too long", set_dir);
    return onnxtests_read_tensor(path, t, err, len);
}

/*
 * One data set: decode, judge the shipped output with the oracle, run the
 * plugin. Returns 0 (ran; counts updated) or -1 (error printed).
 */
static int run_set(run_state *rs, const char *test, const char *set, const char *set_dir,
                   const onnxtests_model *m)
{
    onnxtests_tensor ta, tb, tc;
    divcase c;
    oracle_rules rules;
    oracle_plan plan;
    oracle_error why;
    oracle_elem *expected = NULL;
    char err[1024], path[4096], file[32], sa[96], sb[96], sc[96];
    int rc = -1, valid;
    const oracle_variant *v = oracle_variant_get(m->variant);

    memset(&ta, 0, sizeof ta);
    memset(&tb, 0, sizeof tb);
    memset(&tc, 0, sizeof tc);
    memset(&c, 0, sizeof c);
    snprintf(file, sizeof file, "output_%u.pb", m->output);
    if (join(path, sizeof path, set_dir, file, NULL)) {
        fprintf(rs->err, "divergence onnx-tests: %s: path too long\n", set_dir);
        goto done;
    }
    if (load_operand(set_dir, &m->a, &ta, err, sizeof err) ||
        load_operand(set_dir, &m->b, &tb, err, sizeof err) ||
        onnxtests_read_tensor(path, &tc, err, sizeof err)) {
        fprintf(rs->err, "divergence onnx-tests: %s/%s: %s\n", test, set, err);
        goto done;
    }
    rs->cases++;
    fprintf(rs->out, "%s/%s: opset %" PRId64 " -> %s%s%s, %s, A %s, B %s\n", test, set, m->opset,
            v->name, m->attr_text[0] ? " " : "", m->attr_text, oracle_dtype_tag(ta.dtype),
            oracle_shape_format(&ta.shape, sa, sizeof sa),
            oracle_shape_format(&tb.shape, sb, sizeof sb));
    if (ta.dtype != tb.dtype || tc.dtype != ta.dtype) {
        fprintf(rs->out, "    test data: A, B and the output differ in type (%s, %s, %s); Div "
                "takes one type: skipped\n", oracle_dtype_tag(ta.dtype),
                oracle_dtype_tag(tb.dtype), oracle_dtype_tag(tc.dtype));
        rs->data_disagree++;
        rs->skipped++;
        rc = 0;
        goto done;
    }
    if (oracle_rules_resolve(m->variant, ta.dtype, &m->attrs, &rules, &why)) {
        fprintf(rs->out, "    test data: %s: skipped\n", why.text);
        rs->data_disagree++;
        rs->skipped++;
        rc = 0;
        goto done;
    }

    /* The case, as the rest of Divergence speaks it. */
    snprintf(c.id, sizeof c.id, "onnx:%.40s/%.40s", test, set);
    snprintf(c.source, sizeof c.source, "%.150s", set_dir);
    c.variant = m->variant;
    c.dtype = ta.dtype;
    c.attrs = m->attrs;
    c.a_shape = ta.shape;
    c.b_shape = tb.shape;
    c.a = ta.data;
    c.b = tb.data;
    c.a_bytes = ta.nbytes;
    c.b_bytes = tb.nbytes;
    ta.data = tb.data = NULL; /* the case owns them now */

    /* 1. The shipped output against the oracle. */
    valid = oracle_plan_shapes(&rules, &c.a_shape, &c.b_shape, &plan, &why);
    if (valid == ORACLE_EUSAGE) {
        fprintf(rs->err, "divergence onnx-tests: %s/%s: %s\n", test, set, why.text);
        goto done;
    }
    if (valid == ORACLE_INVALID) {
        fprintf(rs->out, "    test data: ships an output of shape %s, but the oracle says the "
                "input is invalid: %s [%s]\n", oracle_shape_format(&tc.shape, sc, sizeof sc),
                why.text, why.requirement ? why.requirement : "-");
        rs->data_disagree++;
    } else if (!oracle_shape_equal(&plan.out, &tc.shape)) {
        fprintf(rs->out, "    test data: output shape %s, the oracle's is %s\n",
                oracle_shape_format(&tc.shape, sc, sizeof sc),
                oracle_shape_format(&plan.out, sa, sizeof sa));
        rs->data_disagree++;
    } else {
        uint64_t bad = 0, shown = 0;
        expected = dvg_malloc((plan.count ? plan.count : 1) * sizeof *expected);
        if (!expected) {
            fprintf(rs->err, "divergence onnx-tests: %s/%s: out of memory\n", test, set);
            goto done;
        }
        oracle_expect_tensor(&rules, &plan, c.a, c.b, expected);
        for (uint64_t i = 0; i < plan.count; i++) {
            uint64_t got = oracle_load(c.dtype, tc.data, i);
            if (oracle_elem_accepts(c.dtype, &expected[i], got))
                continue;
            bad++;
            if (shown < (rs->o->verbose ? 20u : 3u)) {
                uint64_t ao, bo;
                char a[80], b[80], want[96], have[80];
                oracle_plan_offsets(&plan, i, &ao, &bo);
                verdict_bits_text(c.dtype, oracle_load(c.dtype, c.a, ao), a, sizeof a);
                verdict_bits_text(c.dtype, oracle_load(c.dtype, c.b, bo), b, sizeof b);
                verdict_elem_text(c.dtype, &expected[i], want, sizeof want);
                verdict_bits_text(c.dtype, got, have, sizeof have);
                fprintf(rs->out, "    test data: element %" PRIu64 ": %s / %s: the oracle says "
                        "%s, the test ships %s (%s", i, a, b, want, have,
                        oracle_class_name(oracle_classify(&rules, oracle_load(c.dtype, c.a, ao),
                                                          oracle_load(c.dtype, c.b, bo),
                                                          &expected[i], got, NULL)));
                if (expected[i].kind == ORACLE_EXACT && oracle_dtype(c.dtype)->kind == DVG_KIND_FLOAT)
                    fprintf(rs->out, ", %" PRIu64 " ulp",
                            oracle_ulp_distance(c.dtype, expected[i].bits, got));
                fprintf(rs->out, ")\n");
                shown++;
            }
        }
        if (bad) {
            fprintf(rs->out, "    test data: disagrees with the oracle on %" PRIu64 " of %" PRIu64
                    " elements (a disagreement with ONNX's test data, not a plugin failure)\n",
                    bad, plan.count);
            rs->data_disagree++;
        } else {
            fprintf(rs->out, "    test data: agrees with the oracle on all %" PRIu64
                    " elements\n", plan.count);
            rs->data_agree++;
        }
    }

    /* 2. The plugin, judged by the oracle and compared with the test data. */
    if (!rs->o->plugin_path) {
        rc = 0;
        goto done;
    }
    if (rs->loaded < 0)
        goto done; /* the plugin did not load; said once */
    if (!rs->loaded) {
        worker_result r = WORKER_RESULT_INIT;
        int started = worker_start(rs->w, &r);
        char msg[WORKER_MESSAGE_MAX + 64];
        if (started) {
            fprintf(rs->err, "divergence onnx-tests: cannot load %s: %s\n", rs->o->plugin_path,
                    started < 0 ? worker_errmsg(rs->w) : worker_result_format(&r, msg, sizeof msg));
            worker_result_free(&r);
            rs->loaded = -1;
            goto done;
        }
        worker_result_free(&r);
        rs->loaded = 1;
    }
    if (!claims(worker_get_info(rs->w), c.variant, c.dtype)) {
        fprintf(rs->out, "    plugin: does not claim (%s, %s): skipped\n", v->name,
                oracle_dtype_tag(c.dtype));
        rs->skipped++;
        rc = 0;
        goto done;
    }
    rs->shown = 0;
    int conforms = trial_run(&rs->t, &c, NULL, show_finding, rs);
    if (conforms < 0) {
        fprintf(rs->err, "divergence onnx-tests: %s/%s: %s\n", test, set, rs->t.error);
        goto done;
    }
    if (rs->t.wr.outcome == WORKER_OUT_LOAD_ERROR) {
        char msg[WORKER_MESSAGE_MAX + 64];
        fprintf(rs->err, "divergence onnx-tests: cannot load %s: %s\n", rs->o->plugin_path,
                worker_result_format(&rs->t.wr, msg, sizeof msg));
        goto done;
    }
    if (conforms) {
        rs->conform++;
        if (rs->t.valid && rs->t.wr.computed && valid == ORACLE_OK &&
            oracle_shape_equal(&plan.out, &tc.shape)) {
            uint64_t same = 0, nans = 0;
            for (uint64_t i = 0; i < plan.count; i++) {
                uint64_t x = oracle_load(c.dtype, rs->t.wr.out1, i);
                uint64_t y = oracle_load(c.dtype, tc.data, i);
                if (x == y)
                    same++;
                else if (oracle_operand_class(c.dtype, x) == ORACLE_OPERAND_NAN &&
                         oracle_operand_class(c.dtype, y) == ORACLE_OPERAND_NAN)
                    nans++; /* NaNs of another sign or payload */
            }
            fprintf(rs->out, "    plugin: conforms (%" PRIu64 " elements); the shipped output: "
                    "%" PRIu64 " bit-identical, %" PRIu64 " NaN for NaN, %" PRIu64 " different\n",
                    plan.count, same, nans, plan.count - same - nans);
        } else {
            fprintf(rs->out, "    plugin: conforms (%s)\n",
                    rs->t.valid ? "no elements" : "rejects the invalid input");
        }
    } else {
        rs->depart++;
        if (rs->t.wr.outcome == WORKER_OUT_OK)
            fprintf(rs->out, "    plugin: DEPARTS from the spec on this case\n");
        else
            fprintf(rs->out, "    plugin: DEPARTS from the spec on this case (%s)\n",
                    worker_outcome_name(rs->t.wr.outcome));
    }
    rc = 0;
done:
    dvg_free(expected);
    divcase_free(&c);
    onnxtests_tensor_free(&ta);
    onnxtests_tensor_free(&tb);
    onnxtests_tensor_free(&tc);
    return rc;
}

/* One test directory: its model and every data set. 0, or -1 on errors. */
static int run_test(run_state *rs, const char *dir, const char *test)
{
    char path[4096], err[1024];
    onnxtests_model m;
    name_list sets;
    int rc = 0;
    if (join(path, sizeof path, dir, "model.onnx", NULL)) {
        fprintf(rs->err, "divergence onnx-tests: %s: path too long\n", dir);
        return -1;
    }
    if (onnxtests_read_model(path, &m, err, sizeof err)) {
        fprintf(rs->err, "divergence onnx-tests: %s\n", err);
        return -1;
    }
    if (list_dirs(dir, "test_data_set_", &sets, err, sizeof err)) {
        fprintf(rs->err, "divergence onnx-tests: %s\n", err);
        onnxtests_model_free(&m);
        return -1;
    }
    if (!sets.n) {
        fprintf(rs->err, "divergence onnx-tests: %s: no test_data_set_* directory\n", dir);
        rc = -1;
    }
    for (size_t i = 0; i < sets.n; i++) {
        if (join(path, sizeof path, dir, sets.names[i], NULL) ||
            run_set(rs, test, sets.names[i], path, &m))
            rc = -1;
    }
    names_free(&sets);
    onnxtests_model_free(&m);
    return rc;
}

int onnxtests_run(const char *dir, const onnxtests_options *o, FILE *out, FILE *err)
{
    run_state rs;
    name_list tests;
    char path[4096], msg[1024];
    int errors = 0, status;
    const char *base;

    memset(&rs, 0, sizeof rs);
    memset(&tests, 0, sizeof tests);
    rs.o = o;
    rs.out = out;
    rs.err = err;
    if (!onnxtests_available()) {
        fprintf(err, "divergence onnx-tests: this divergence was built without protobuf-c "
                     "(libprotobuf-c-dev, protobuf-c-compiler) and libonnx-dev's onnx.proto: run "
                     "scripts/setup.sh\n");
        return 2;
    }
    oracle_fastpath_selfcheck();
    verdict_profile_parse("exact", &rs.profile, msg, sizeof msg);
    if (o->plugin_path) {
        worker_options wo;
        worker_options_limited(&wo);
        wo.config = o->config;
        if (o->timeout_ms)
            wo.timeout_ms = o->timeout_ms;
        if (worker_new(o->plugin_path, &wo, &rs.w)) {
            fprintf(err, "divergence onnx-tests: cannot create a worker for %s\n", o->plugin_path);
            return 2;
        }
        trial_init(&rs.t, rs.w, &rs.profile);
    }

    if (join(path, sizeof path, dir, "model.onnx", NULL)) {
        fprintf(err, "divergence onnx-tests: %s: path too long\n", dir);
        return 2;
    }
    if (exists(path)) { /* one test directory */
        base = strrchr(dir, '/');
        base = base && base[1] ? base + 1 : dir;
        errors += run_test(&rs, dir, base) != 0;
    } else {
        if (list_dirs(dir, "test_div", &tests, msg, sizeof msg)) {
            fprintf(err, "divergence onnx-tests: %s\n", msg);
            errors++;
        }
        size_t found = 0;
        for (size_t i = 0; i < tests.n; i++) {
            if (join(path, sizeof path, dir, tests.names[i], "model.onnx") || !exists(path))
                continue;
            found++;
            join(path, sizeof path, dir, tests.names[i], NULL);
            errors += run_test(&rs, path, tests.names[i]) != 0;
        }
        if (!found && !errors) {
            fprintf(err, "divergence onnx-tests: %s holds no model.onnx and no test_div* "
                         "directory with one\n", dir);
            errors++;
        }
    }
    fprintf(out, "%u case(s)", rs.cases);
    if (o->plugin_path)
        fprintf(out, "; plugin %s: %u conform, %u depart, %u skipped", o->plugin_path, rs.conform,
                rs.depart, rs.skipped);
    fprintf(out, "; test data: %u agree with the oracle, %u disagree%s\n", rs.data_agree,
            rs.data_disagree, errors ? "; errors above" : "");
    status = errors ? 2 : rs.depart ? 1 : 0;
    trial_free(&rs.t);
    worker_free(rs.w);
    names_free(&tests);
    return status;
}
