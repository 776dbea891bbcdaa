/* SPDX-License-Identifier: MIT */
/*
 * tests/abi/test_abi_layout.c: pins the binary layout of the plugin ABI
 * (include/divergence/iut.h, version 1.1).
 *
 * Every struct's size and alignment and every field's offset and size is a
 * _Static_assert: reordering, resizing or inserting a field stops the build
 * of this test. The pointer-bearing layouts are pinned for LP64 (x86-64,
 * aarch64). The DVG_* constants are ABI too (they travel as numbers): each
 * is checked at run time against the value written here by hand, not
 * against the header's own lists.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "divergence/iut.h"

#define FIELD(T, f, off, sz)                                                   \
    _Static_assert(offsetof(T, f) == (off), #T "." #f " moved");               \
    _Static_assert(sizeof(((T *)0)->f) == (sz), #T "." #f " changed size")

/* dvg_attrs: fixed-width fields only, same on every ABI. */
_Static_assert(sizeof(dvg_attrs) == 40, "dvg_attrs changed size");
_Static_assert(_Alignof(dvg_attrs) == 8, "dvg_attrs changed alignment");
FIELD(dvg_attrs, size, 0, 4);
FIELD(dvg_attrs, broadcast, 4, 4);
FIELD(dvg_attrs, axis_set, 8, 4);
FIELD(dvg_attrs, reserved0, 12, 4);
FIELD(dvg_attrs, axis, 16, 8);
FIELD(dvg_attrs, pythondiv, 24, 4);
FIELD(dvg_attrs, auto_broadcast, 28, 4);
FIELD(dvg_attrs, int_rounding, 32, 4);
FIELD(dvg_attrs, reserved1, 36, 4);

/* dvg_claim */
_Static_assert(sizeof(dvg_claim) == 8, "dvg_claim changed size");
_Static_assert(_Alignof(dvg_claim) == 4, "dvg_claim changed alignment");
FIELD(dvg_claim, variant, 0, 4);
FIELD(dvg_claim, dtype, 4, 4);

/* dvg_tensor: the fields before `data` are fixed on every ABI. */
FIELD(dvg_tensor, dtype, 0, 4);
FIELD(dvg_tensor, rank, 4, 4);
FIELD(dvg_tensor, shape, 8, 8 * DVG_MAX_RANK);
_Static_assert(DVG_MAX_RANK == 8, "DVG_MAX_RANK is ABI: dvg_tensor.shape has 8 entries");

/* dvg_descriptor: the fields before `name` are fixed on every ABI. */
FIELD(dvg_descriptor, size, 0, 4);
FIELD(dvg_descriptor, abi_major, 4, 2);
FIELD(dvg_descriptor, abi_minor, 6, 2);

#if defined(__LP64__) || defined(_LP64)
_Static_assert(sizeof(void *) == 8, "LP64");
_Static_assert(sizeof(dvg_tensor) == 88, "dvg_tensor changed size");
_Static_assert(_Alignof(dvg_tensor) == 8, "dvg_tensor changed alignment");
FIELD(dvg_tensor, data, 72, 8);
FIELD(dvg_tensor, nbytes, 80, 8);

_Static_assert(sizeof(dvg_descriptor) == 128, "dvg_descriptor changed size");
_Static_assert(_Alignof(dvg_descriptor) == 8, "dvg_descriptor changed alignment");
FIELD(dvg_descriptor, name, 8, 8);
FIELD(dvg_descriptor, version, 16, 8);
FIELD(dvg_descriptor, n_claims, 24, 4);
FIELD(dvg_descriptor, reserved0, 28, 4);
FIELD(dvg_descriptor, claims, 32, 8);
FIELD(dvg_descriptor, deviations, 40, 8);
FIELD(dvg_descriptor, int_div_zero_value, 48, 8);
FIELD(dvg_descriptor, open, 56, 8);
FIELD(dvg_descriptor, output_shape, 64, 8);
FIELD(dvg_descriptor, compute, 72, 8);
FIELD(dvg_descriptor, last_error, 80, 8);
FIELD(dvg_descriptor, close, 88, 8);
/* Since 1.1: appended after close; a 1.0 plugin's size is 96. */
FIELD(dvg_descriptor, capabilities, 96, 8);
FIELD(dvg_descriptor, n_isa_levels, 104, 4);
FIELD(dvg_descriptor, reserved1, 108, 4);
FIELD(dvg_descriptor, isa_levels, 112, 8);
FIELD(dvg_descriptor, open_with, 120, 8);
_Static_assert(sizeof(dvg_isa_level) == 24, "dvg_isa_level changed size");
FIELD(dvg_isa_level, size, 0, 4);
FIELD(dvg_isa_level, reserved0, 4, 4);
FIELD(dvg_isa_level, name, 8, 8);
FIELD(dvg_isa_level, x86_level, 16, 8);
_Static_assert(sizeof(dvg_open_options) == 16, "dvg_open_options changed size");
FIELD(dvg_open_options, size, 0, 4);
FIELD(dvg_open_options, threads, 4, 4);
FIELD(dvg_open_options, isa, 8, 8);
#define LAYOUT_PINNED "LP64"
#else
#define LAYOUT_PINNED "fixed-width fields only (not an LP64 target)"
#endif

/* The field types, not only their sizes: a signed field must stay signed. */
static void field_types(void)
{
    dvg_attrs at;
    dvg_tensor t;
    dvg_descriptor d;
    memset(&at, 0, sizeof at);
    memset(&t, 0, sizeof t);
    memset(&d, 0, sizeof d);
    at.broadcast = at.axis_set = at.pythondiv = -1;
    at.axis = -1;
    t.shape[0] = -1;
    d.int_div_zero_value = -1;
    CHECK(at.broadcast < 0 && at.axis_set < 0 && at.pythondiv < 0 && at.axis < 0);
    CHECK(t.shape[0] < 0 && d.int_div_zero_value < 0);
    at.size = at.auto_broadcast = at.int_rounding = 0;
    at.size--;
    at.auto_broadcast--;
    at.int_rounding--;
    t.nbytes = 0;
    t.nbytes--;
    d.deviations = 0;
    d.deviations--;
    CHECK(at.size > 0 && at.auto_broadcast > 0 && at.int_rounding > 0);
    CHECK(t.nbytes > 0 && d.deviations > 0);
}

typedef struct expected_dtype {
    const char *tag;
    uint32_t value, bits, kind;
} expected_dtype;

/* The stable numbers, written out by hand. */
static const expected_dtype dtypes[] = {
    {"f16", 1, 16, 1}, {"bf16", 2, 16, 1}, {"f32", 3, 32, 1}, {"f64", 4, 64, 1},
    {"i4", 5, 4, 2},   {"i8", 6, 8, 2},    {"i16", 7, 16, 2}, {"i32", 8, 32, 2},
    {"i64", 9, 64, 2}, {"u4", 10, 4, 3},   {"u8", 11, 8, 3},  {"u16", 12, 16, 3},
    {"u32", 13, 32, 3}, {"u64", 14, 64, 3},
};

static const struct {
    const char *name;
    uint32_t value;
} variants[] = {
    {"onnx-div-1", 1}, {"onnx-div-6", 2}, {"onnx-div-7", 3}, {"onnx-div-13", 4},
    {"onnx-div-14", 5}, {"openvino-divide-1", 6}, {"sonnx-div", 7},
};

static void constants(void)
{
    size_t i = 0;

    CHECK(DVG_ABI_MAJOR == 1);
    CHECK(DVG_ABI_MINOR == 1);
    CHECK(DVG_CAP_INSTANCES_CONCURRENT == 1 && DVG_CAP_INSTANCE_CONCURRENT == 2 &&
          DVG_CAP_IN_PLACE_A == 4 && DVG_CAP_IN_PLACE_B == 8 && DVG_CAP_THREADS == 16);
    CHECK(strcmp(DVG_ENTRY_SYMBOL, "dvg_iut_descriptor") == 0);
    CHECK(DVG_MAX_RANK == 8);

    CHECK(DVG_KIND_FLOAT == 1 && DVG_KIND_SIGNED == 2 && DVG_KIND_UNSIGNED == 3);

    /* The dtype list, in order, with every column. */
#define CHECK_DTYPE(ID_, tag_, value_, bits_, kind_)                           \
    CHECKF(i < sizeof dtypes / sizeof dtypes[0] && !strcmp(#tag_, dtypes[i].tag) && \
               (value_) == dtypes[i].value && (bits_) == dtypes[i].bits &&     \
               (kind_) == dtypes[i].kind && DVG_DTYPE_##ID_ == dtypes[i].value, \
           "dtype row %zu (%s)", i, #tag_);                                    \
    i++;
    DVG_DTYPE_LIST(CHECK_DTYPE)
#undef CHECK_DTYPE
    CHECK(i == sizeof dtypes / sizeof dtypes[0]);
    CHECK(DVG_DTYPE_NONE == 0);
    CHECK(DVG_DTYPE_F16 == 1 && DVG_DTYPE_BF16 == 2 && DVG_DTYPE_F32 == 3 &&
          DVG_DTYPE_F64 == 4 && DVG_DTYPE_I4 == 5 && DVG_DTYPE_I8 == 6 &&
          DVG_DTYPE_I16 == 7 && DVG_DTYPE_I32 == 8 && DVG_DTYPE_I64 == 9 &&
          DVG_DTYPE_U4 == 10 && DVG_DTYPE_U8 == 11 && DVG_DTYPE_U16 == 12 &&
          DVG_DTYPE_U32 == 13 && DVG_DTYPE_U64 == 14);
    CHECK(DVG_DTYPE_COUNT == 15 && DVG_DTYPE_END_ == 15);

    i = 0;
#define CHECK_VARIANT(ID_, name_, value_)                                      \
    CHECKF(i < sizeof variants / sizeof variants[0] &&                         \
               !strcmp(name_, variants[i].name) && (value_) == variants[i].value && \
               DVG_VARIANT_##ID_ == variants[i].value,                         \
           "variant row %zu (%s)", i, name_);                                  \
    i++;
    DVG_VARIANT_LIST(CHECK_VARIANT)
#undef CHECK_VARIANT
    CHECK(i == sizeof variants / sizeof variants[0]);
    CHECK(DVG_VARIANT_NONE == 0);
    CHECK(DVG_VARIANT_ONNX_DIV_1 == 1 && DVG_VARIANT_ONNX_DIV_6 == 2 &&
          DVG_VARIANT_ONNX_DIV_7 == 3 && DVG_VARIANT_ONNX_DIV_13 == 4 &&
          DVG_VARIANT_ONNX_DIV_14 == 5 && DVG_VARIANT_OPENVINO_DIVIDE_1 == 6 &&
          DVG_VARIANT_SONNX_DIV == 7);
    CHECK(DVG_VARIANT_COUNT == 8 && DVG_VARIANT_END_ == 8);

    CHECK(DVG_BROADCAST_NONE == 0 && DVG_BROADCAST_NUMPY == 1 && DVG_BROADCAST_PDPD == 2);
    CHECK(DVG_ROUND_VARIANT_DEFAULT == 0 && DVG_ROUND_TRUNC == 1 && DVG_ROUND_FLOOR == 2);
    CHECK(DVG_OK == 0 && DVG_INVALID_INPUT == 1 && DVG_UNSUPPORTED == 2 && DVG_FAILURE == 3);
    CHECK(DVG_DEV_FLUSH_SUBNORMAL_OUTPUT == 1u && DVG_DEV_SUBNORMAL_INPUT_ZERO == 2u &&
          DVG_DEV_NAN_CANONICAL == 4u && DVG_DEV_INT_DIV_ZERO_VALUE == 8u);
}

/* The function-pointer types, as a plugin writes them. */
static int32_t open_fn(const char *config, dvg_iut **out) { return DVG_FAILURE; }
static int32_t shape_fn(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                        const dvg_tensor *a, const dvg_tensor *b, uint32_t *rank,
                        int64_t *shape) { return DVG_FAILURE; }
static int32_t compute_fn(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                          const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c)
{
    return DVG_FAILURE;
}
static const char *error_fn(dvg_iut *iut) { return ""; }
static void close_fn(dvg_iut *iut) {}
static int32_t open_with_fn(const char *config, const dvg_open_options *options, dvg_iut **out)
{
    return DVG_FAILURE;
}
static const dvg_claim one_claim[] = {{DVG_VARIANT_ONNX_DIV_7, DVG_DTYPE_F32}};
static const dvg_isa_level one_level[] = {{sizeof(dvg_isa_level), 0, "scalar", "v1"}};
static const dvg_descriptor desc = {
    sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR, "layout", "1", 1, 0, one_claim,
    0, 0, open_fn, shape_fn, compute_fn, error_fn, close_fn,
    DVG_CAP_THREADS, 1, 0, one_level, open_with_fn,
};
static const dvg_descriptor *entry(void) { return &desc; }

static void signatures(void)
{
    dvg_entry_fn fn = entry;
    const dvg_descriptor *d = fn();
    /* Positional initialisation above lands in the named fields. */
    CHECK(d->size == 128 || sizeof(void *) != 8);
    CHECK(d->abi_major == 1 && d->abi_minor == 1);
    CHECK(!strcmp(d->name, "layout") && !strcmp(d->version, "1"));
    CHECK(d->n_claims == 1 && d->claims == one_claim);
    CHECK(d->open == open_fn && d->output_shape == shape_fn && d->compute == compute_fn &&
          d->last_error == error_fn && d->close == close_fn);
}

int main(void)
{
    printf("layout pinned for %s\n", LAYOUT_PINNED);
    field_types();
    constants();
    signatures();
    return check_done("test_abi_layout");
}
