/* SPDX-License-Identifier: MIT */
/*
 * oracle/dtype.h: facts about element types, generated from DVG_DTYPE_LIST,
 * and the loads and stores every tensor walk uses.
 *
 * Element values travel through Divergence as raw bit patterns in a
 * uint64_t, zero-extended from the type's width: an i8 of -1 is 0xff, an i4
 * of -1 is 0xf, an f16 of 1.0 is 0x3c00.
 */
#ifndef ORACLE_DTYPE_H
#define ORACLE_DTYPE_H

#include <stdint.h>
#include "divergence/iut.h"

typedef struct oracle_dtype_info {
    uint32_t id;     /* DVG_DTYPE_* */
    const char *tag; /* "f16", "i4", ... */
    uint32_t bits;   /* storage width of one element: 4, 8, 16, 32, 64 */
    uint32_t kind;   /* DVG_KIND_* */
} oracle_dtype_info;

/* The info of `dtype`, or NULL when it is not a DVG_DTYPE_* value. */
const oracle_dtype_info *oracle_dtype(uint32_t dtype);

/* The DVG_DTYPE_* value whose tag is `tag`, or DVG_DTYPE_NONE. */
uint32_t oracle_dtype_by_tag(const char *tag);

/* Tag of `dtype`, "?" when unknown (never NULL). */
const char *oracle_dtype_tag(uint32_t dtype);

/* All-ones mask of the dtype's width (0xf for i4, ~0 for 64-bit types). */
uint64_t oracle_dtype_mask(uint32_t dtype);

/* Bytes needed for `count` elements (i4/u4: two per byte, rounded up). */
uint64_t oracle_nbytes(uint32_t dtype, uint64_t count);

/* Reads element `index` of a dense buffer as zero-extended bits. */
uint64_t oracle_load(uint32_t dtype, const void *data, uint64_t index);

/* Writes the low bits of `bits` as element `index` (i4/u4: only its nibble
 * changes). */
void oracle_store(uint32_t dtype, void *data, uint64_t index, uint64_t bits);

/* Field widths of a float dtype: exponent and fraction bits (binary16:
 * 5 and 10, bfloat16: 8 and 7, binary32: 8 and 23, binary64: 11 and 52). */
typedef struct oracle_float_format {
    int exp_bits, frac_bits;
} oracle_float_format;

/* 1 with *f filled for a float dtype, 0 for any other. */
int oracle_float_format_of(uint32_t dtype, oracle_float_format *f);

/* The bits of the float of format f with sign (0 or 1), biased exponent
 * `exp` (0 .. 2^exp_bits - 1) and fraction `frac` (only its low frac_bits
 * bits are used). */
uint64_t oracle_float_pack(oracle_float_format f, uint64_t sign, uint64_t exp, uint64_t frac);

/* Sign-extends integer bits of a signed dtype to int64 (unsigned: as is). */
int64_t oracle_int_value(uint32_t dtype, uint64_t bits);

#endif /* ORACLE_DTYPE_H */
