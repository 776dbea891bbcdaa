/* SPDX-License-Identifier: MIT */
/*
 * divergence/iut.h: the plugin ABI of Divergence, version 1.1.
 *
 * This is the only header a kernel vendor needs. An "implementation under
 * test" (IUT) is a shared object that exports one C function,
 *
 *     const dvg_descriptor *dvg_iut_descriptor(void);
 *
 * returning a pointer to a constant descriptor that lives as long as the
 * shared object is loaded. The harness loads the object in a worker process,
 * never in its own, calls `open` (or, since 1.1, `open_with`) once, then
 * `output_shape` and `compute` any number of times, then `close`. Calls
 * come from one thread at a time unless the plugin declares otherwise
 * (DVG_CAP_*, since 1.1); the harness also probes what it does not declare
 * (two instances at once, C aliasing A or B) and reports what it saw
 * without holding it against the plugin.
 *
 * Rules of the ABI
 *  - Fixed-width integer types only; no enums, no bool, no long, no size_t
 *    in structs. Enumerated values travel as uint32_t with DVG_ constants.
 *  - Every struct begins with (or is reached through a struct that begins
 *    with) its own size in bytes, so later minor versions can append fields.
 *    Minor versions only append; a major version change breaks the ABI.
 *  - Memory is freed only by the side that allocated it: the host owns every
 *    tensor and the attribute block; the plugin owns its descriptor, its
 *    strings and its instance.
 *  - Tensors are dense and row-major (the last dimension varies fastest).
 *    Sub-byte types (i4, u4) are packed two per byte, low nibble first:
 *    element 2k is bits 0..3 of byte k, element 2k+1 bits 4..7. With an
 *    odd count the last byte's bits 4..7 are padding, owned by the host.
 *
 * Since: 1.0 for every declaration unless marked otherwise.
 *
 * This header compiles alone as C99, C11 and C++.
 */
#ifndef DIVERGENCE_IUT_H
#define DIVERGENCE_IUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DVG_ABI_MAJOR 1
#define DVG_ABI_MINOR 1

/* Name of the one symbol a plugin exports. */
#define DVG_ENTRY_SYMBOL "dvg_iut_descriptor"

/* Largest tensor rank any variant accepts. */
#define DVG_MAX_RANK 8

/* ------------------------------------------------------------------------
 * Element types.
 *
 * X(ID, tag, value, bits, kind): ID names the DVG_DTYPE_<ID> constant, tag is
 * the lower-case name used on the command line and in case files, value is
 * the stable ABI number, bits the storage width of one element, kind one of
 * DVG_KIND_*. Every list of types in Divergence is generated from this one.
 * ---------------------------------------------------------------------- */
#define DVG_KIND_FLOAT    1u
#define DVG_KIND_SIGNED   2u
#define DVG_KIND_UNSIGNED 3u

#define DVG_DTYPE_LIST(X)                          \
    X(F16,  f16,   1, 16, DVG_KIND_FLOAT)          \
    X(BF16, bf16,  2, 16, DVG_KIND_FLOAT)          \
    X(F32,  f32,   3, 32, DVG_KIND_FLOAT)          \
    X(F64,  f64,   4, 64, DVG_KIND_FLOAT)          \
    X(I4,   i4,    5,  4, DVG_KIND_SIGNED)         \
    X(I8,   i8,    6,  8, DVG_KIND_SIGNED)         \
    X(I16,  i16,   7, 16, DVG_KIND_SIGNED)         \
    X(I32,  i32,   8, 32, DVG_KIND_SIGNED)         \
    X(I64,  i64,   9, 64, DVG_KIND_SIGNED)         \
    X(U4,   u4,   10,  4, DVG_KIND_UNSIGNED)       \
    X(U8,   u8,   11,  8, DVG_KIND_UNSIGNED)       \
    X(U16,  u16,  12, 16, DVG_KIND_UNSIGNED)       \
    X(U32,  u32,  13, 32, DVG_KIND_UNSIGNED)       \
    X(U64,  u64,  14, 64, DVG_KIND_UNSIGNED)

#define DVG_DTYPE_ENUM_(ID, tag, value, bits, kind) DVG_DTYPE_##ID = value,
enum { DVG_DTYPE_NONE = 0, DVG_DTYPE_LIST(DVG_DTYPE_ENUM_) DVG_DTYPE_END_ };
#undef DVG_DTYPE_ENUM_
#define DVG_DTYPE_COUNT 15 /* one past the largest dtype value */

/* ------------------------------------------------------------------------
 * Spec variants. X(ID, name, value): DVG_VARIANT_<ID>, the command-line
 * name, the stable ABI number. What each one means is docs/specs.md
 * (and `divergence explain`).
 * ---------------------------------------------------------------------- */
#define DVG_VARIANT_LIST(X)                             \
    X(ONNX_DIV_1,        "onnx-div-1",        1)        \
    X(ONNX_DIV_6,        "onnx-div-6",        2)        \
    X(ONNX_DIV_7,        "onnx-div-7",        3)        \
    X(ONNX_DIV_13,       "onnx-div-13",       4)        \
    X(ONNX_DIV_14,       "onnx-div-14",       5)        \
    X(OPENVINO_DIVIDE_1, "openvino-divide-1", 6)        \
    X(SONNX_DIV,         "sonnx-div",         7)

#define DVG_VARIANT_ENUM_(ID, name, value) DVG_VARIANT_##ID = value,
enum { DVG_VARIANT_NONE = 0, DVG_VARIANT_LIST(DVG_VARIANT_ENUM_) DVG_VARIANT_END_ };
#undef DVG_VARIANT_ENUM_
#define DVG_VARIANT_COUNT 8 /* one past the largest variant value */

/* Values of dvg_attrs.auto_broadcast (OpenVINO Divide-1). */
#define DVG_BROADCAST_NONE  0u
#define DVG_BROADCAST_NUMPY 1u /* OpenVINO's default */
#define DVG_BROADCAST_PDPD  2u

/* Values of dvg_attrs.int_rounding. */
#define DVG_ROUND_VARIANT_DEFAULT 0u /* what the variant's text says */
#define DVG_ROUND_TRUNC           1u /* toward zero */
#define DVG_ROUND_FLOOR           2u /* toward negative infinity */

/*
 * The attributes of one Div node. The host fills every field, defaults
 * included, before each call; a plugin reads only the fields its variant
 * defines and ignores the rest.
 *
 * Owner: the host. Lifetime: the duration of one output_shape or compute
 * call; a plugin must not keep the pointer.
 */
typedef struct dvg_attrs {
    uint32_t size;           /* sizeof(dvg_attrs) as the host compiled it */
    /* ONNX Div-1 and Div-6: legacy broadcasting. */
    int32_t  broadcast;      /* 0 (default): shapes equal; 1: B broadcasts to A */
    int32_t  axis_set;       /* 1 when `axis` was given, 0 when it was not */
    int32_t  reserved0;      /* zero */
    int64_t  axis;           /* ONNX legacy axis (when axis_set) or OpenVINO
                                pdpd axis (default -1) */
    /* OpenVINO Divide-1. */
    int32_t  pythondiv;      /* m_pythondiv: 1 (default) floor, 0 truncate;
                                integer types only */
    uint32_t auto_broadcast; /* DVG_BROADCAST_*; default NUMPY */
    /* Integer rounding for variants whose documents disagree (sonnx-div:
     * the seed text floors, the later text truncates). DVG_ROUND_*. */
    uint32_t int_rounding;
    uint32_t reserved1;      /* zero */
} dvg_attrs;

/*
 * One tensor. Dense, row-major, `rank` dimensions in `shape[0..rank-1]`
 * (rank 0 is a scalar holding one element). A dimension may be 0.
 *
 * `data` owner: the host. Inputs are mapped read-only: writing to them is a
 * finding. The output buffer holds exactly `nbytes` bytes and ends flush
 * against an inaccessible page, or fewer than 64 bytes before one: writing
 * past it is a finding. `data` has no alignment promise (the host places
 * it at any byte offset). Lifetime: the duration of one call.
 */
typedef struct dvg_tensor {
    uint32_t dtype;                 /* DVG_DTYPE_* */
    uint32_t rank;                  /* 0..DVG_MAX_RANK */
    int64_t  shape[DVG_MAX_RANK];   /* entries past rank are zero */
    void    *data;                  /* element bytes; may be NULL when nbytes is 0 */
    uint64_t nbytes;                /* elements * bits / 8, rounded up */
} dvg_tensor;

/* One (variant, dtype) pair an implementation claims to conform to. */
typedef struct dvg_claim {
    uint32_t variant; /* DVG_VARIANT_* */
    uint32_t dtype;   /* DVG_DTYPE_* */
} dvg_claim;

/* Status codes returned by every plugin function that can fail. */
#define DVG_OK            0 /* success */
#define DVG_INVALID_INPUT 1 /* the input violates the variant's rules (shapes,
                               attributes); the plugin wrote nothing */
#define DVG_UNSUPPORTED   2 /* valid input this implementation does not handle */
#define DVG_FAILURE       3 /* anything else; last_error says what */

/*
 * Declared deviations: bits of dvg_descriptor.deviations. An implementation
 * that declares one is certified under the matching profile ("conformant
 * under profile ftz (declared)"), which accepts what the processor mode
 * does and nothing else, and the harness reports a declaration a claim
 * never exercises.
 *   FLUSH_SUBNORMAL_OUTPUT  flush-to-zero (x86 MXCSR.FZ, Arm FPCR.FZ): a
 *                           result whose exact quotient is tiny (non-zero,
 *                           below the smallest normal), before or after
 *                           rounding, may be the zero of the quotient's sign
 *                           (x86 flushes 0x00ffffff / 2, which rounds to the
 *                           smallest normal). Profile ftz.
 *   SUBNORMAL_INPUT_ZERO    denormals-are-zero (x86 MXCSR.DAZ): a result may
 *                           be the one for every subnormal operand read as a
 *                           zero of its sign (0 / subnormal is NaN, x /
 *                           subnormal is inf; IEEE's answer where the variant
 *                           leaves x / 0 unspecified). Profile daz.
 * (Earlier Divergence builds accepted a flushed result only where the
 * rounded result was subnormal, and no x86 kernel with FTZ on held.)
 */
#define DVG_DEV_FLUSH_SUBNORMAL_OUTPUT (1u << 0) /* tiny results become ±0 */
#define DVG_DEV_SUBNORMAL_INPUT_ZERO   (1u << 1) /* subnormal operands read as ±0 */
#define DVG_DEV_NAN_CANONICAL          (1u << 2) /* every NaN result is one fixed
                                                    pattern (informational) */
#define DVG_DEV_INT_DIV_ZERO_VALUE     (1u << 3) /* integer x/0 gives
                                                    int_div_zero_value */

/* Opaque instance of an implementation; the plugin allocates and frees it. */
typedef struct dvg_iut dvg_iut;

/*
 * Capabilities: bits of dvg_descriptor.capabilities (since 1.1). What a
 * plugin declares is a promise the harness holds it to: a declared
 * capability that fails is a finding of its own class (NONCONFORMANT).
 * What it does not declare the harness still probes, and reports as a
 * capability of the build ("re-entrant: no"), not as a departure.
 */
#define DVG_CAP_INSTANCES_CONCURRENT (1ull << 0) /* two instances, each from its own thread, at once */
#define DVG_CAP_INSTANCE_CONCURRENT  (1ull << 1) /* one instance from several threads at once */
#define DVG_CAP_IN_PLACE_A           (1ull << 2) /* c->data may equal a->data (same shape and dtype) */
#define DVG_CAP_IN_PLACE_B           (1ull << 3) /* c->data may equal b->data */
#define DVG_CAP_THREADS              (1ull << 4) /* honours dvg_open_options.threads */

/*
 * One ISA level a plugin can be forced to (since 1.1): the host passes its
 * name in dvg_open_options.isa. Owner: plugin; lifetime: while loaded.
 */
typedef struct dvg_isa_level {
    uint32_t size;      /* sizeof(dvg_isa_level) */
    uint32_t reserved0; /* zero */
    const char *name;   /* "avx512", "avx2", "sse4.1", "scalar", ... as the plugin names it */
    const char *x86_level; /* the x86-64 psABI level it needs: "v4", "v3", "v2", "v1", or "" */
} dvg_isa_level;

/*
 * What the host asks of an instance (since 1.1), given to open_with.
 * Owner: host; valid during the call only. A plugin reads only the fields
 * that `size` covers.
 */
typedef struct dvg_open_options {
    uint32_t size;      /* sizeof(dvg_open_options) as the host compiled it */
    uint32_t threads;   /* 0: the plugin's default; N: use at most N threads */
    const char *isa;    /* NULL: the plugin's own choice; else one of its isa_levels' names */
} dvg_open_options;

typedef struct dvg_descriptor {
    uint32_t size;         /* sizeof(dvg_descriptor) as the plugin compiled it */
    uint16_t abi_major;    /* DVG_ABI_MAJOR; a different major is refused */
    uint16_t abi_minor;    /* DVG_ABI_MINOR the plugin was built against */

    /* NUL-terminated UTF-8; owner: plugin; lifetime: while loaded. */
    const char *name;      /* e.g. "acme-div" */
    const char *version;   /* e.g. "2.3.1" */

    /* The pairs claimed; owner: plugin; lifetime: while loaded. */
    uint32_t n_claims;
    uint32_t reserved0;    /* zero */
    const dvg_claim *claims;

    uint64_t deviations;          /* DVG_DEV_* bits */
    int64_t  int_div_zero_value;  /* with DVG_DEV_INT_DIV_ZERO_VALUE: the value
                                     integer x/0 gives, as a signed number */

    /*
     * Creates an instance. `config` is a NUL-terminated string from the user
     * (never NULL, may be empty); owner: host; valid during the call only.
     * On DVG_OK, *out holds an instance the plugin owns until close.
     */
    int32_t (*open)(const char *config, dvg_iut **out);

    /*
     * Computes the output shape of C = A / B under `variant` and `attrs`
     * without touching tensor data (a->data and b->data may be NULL).
     * On DVG_OK writes *rank and shape[0..*rank-1]; shape has room for
     * DVG_MAX_RANK entries. DVG_INVALID_INPUT when the shapes or attributes
     * are invalid for the variant.
     */
    int32_t (*output_shape)(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                            const dvg_tensor *a, const dvg_tensor *b,
                            uint32_t *rank, int64_t *shape);

    /*
     * Computes C = A / B element-wise under `variant` and `attrs`. The host
     * has set c->dtype, c->rank, c->shape to the expected output and
     * c->data/c->nbytes to a buffer of exactly that many bytes. The plugin
     * writes every element of C and nothing else. For i4/u4 with an odd
     * number of elements "nothing else" includes the high nibble of C's
     * last byte, which holds no element: the plugin leaves it as it found
     * it (read the byte, replace the low nibble); changing it is the
     * finding padding-written (a departure, in every profile).
     * Where the variant leaves an element's result undefined (integer
     * x / 0, INT_MIN / -1, OpenVINO's float x / 0) the plugin may give any
     * value, or refuse the call: DVG_FAILURE with last_error saying why.
     * Such a refusal is accepted when the host finds that only those
     * elements are refused (it runs the rest alone); a crash there never
     * is (docs/semantics.md, "Refusing undefined input").
     */
    int32_t (*compute)(dvg_iut *iut, uint32_t variant, const dvg_attrs *attrs,
                       const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c);

    /*
     * Text of the last error on this instance (NUL-terminated, never NULL).
     * Owner: plugin; valid until the next call on the instance.
     */
    const char *(*last_error)(dvg_iut *iut);

    /* Frees the instance. Accepts NULL. */
    void (*close)(dvg_iut *iut);

    /* Since 1.1. */
    uint64_t capabilities;          /* DVG_CAP_* bits the plugin declares */
    uint32_t n_isa_levels;          /* entries of isa_levels */
    uint32_t reserved1;             /* zero */
    const dvg_isa_level *isa_levels; /* the ISA levels it can be forced to, best first */
    /* Like open, with host options (may be NULL: as open). When present the host calls it
       instead of open. */
    int32_t (*open_with)(const char *config, const dvg_open_options *options, dvg_iut **out);
} dvg_descriptor;

/* The entry point a plugin defines and exports. */
typedef const dvg_descriptor *(*dvg_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* DIVERGENCE_IUT_H */
