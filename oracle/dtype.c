/* SPDX-License-Identifier: MIT */
/*
 * This file contains the facts about element types the rest of the oracle
 * reads (see dtype.h): the table of dtypes made from the one X-macro of
 * include/divergence, loading and storing elements of every width (4-bit
 * ones two to a byte, low nibble first), and the field layout of the float
 * formats.
 */
#include "oracle/dtype.h"

#include <string.h>

#define DTYPE_INFO_(ID, tag, value, bits, kind) [value] = {value, #tag, bits, kind},
static const oracle_dtype_info dtypes[DVG_DTYPE_COUNT] = {DVG_DTYPE_LIST(DTYPE_INFO_)};
#undef DTYPE_INFO_

const oracle_dtype_info *oracle_dtype(uint32_t dtype)
{
    if (dtype == DVG_DTYPE_NONE || dtype >= DVG_DTYPE_COUNT || !dtypes[dtype].tag)
        return NULL;
    return &dtypes[dtype];
}

uint32_t oracle_dtype_by_tag(const char *tag)
{
    for (uint32_t i = 1; i < DVG_DTYPE_COUNT; i++)
        if (dtypes[i].tag && !strcmp(dtypes[i].tag, tag))
            return i;
    return DVG_DTYPE_NONE;
}

const char *oracle_dtype_tag(uint32_t dtype)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    return d ? d->tag : "?";
}

uint64_t oracle_dtype_mask(uint32_t dtype)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return 0;
    return d->bits >= 64 ? UINT64_MAX : (UINT64_C(1) << d->bits) - 1;
}

uint64_t oracle_nbytes(uint32_t dtype, uint64_t count)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return 0;
    return d->bits == 4 ? (count + 1) / 2 : count * (d->bits / 8);
}

uint64_t oracle_load(uint32_t dtype, const void *data, uint64_t index)
{
    const uint8_t *p = data;
    switch (oracle_dtype(dtype) ? oracle_dtype(dtype)->bits : 0) {
    case 4:
        return (p[index / 2] >> ((index & 1) * 4)) & 0xf;
    case 8:
        return p[index];
    case 16: {
        uint16_t v;
        memcpy(&v, p + index * 2, 2);
        return v;
    }
    case 32: {
        uint32_t v;
        memcpy(&v, p + index * 4, 4);
        return v;
    }
    case 64: {
        uint64_t v;
        memcpy(&v, p + index * 8, 8);
        return v;
    }
    default:
        return 0;
    }
}

void oracle_store(uint32_t dtype, void *data, uint64_t index, uint64_t bits)
{
    uint8_t *p = data;
    switch (oracle_dtype(dtype) ? oracle_dtype(dtype)->bits : 0) {
    case 4: {
        unsigned shift = (unsigned)(index & 1) * 4;
        p[index / 2] = (uint8_t)((p[index / 2] & ~(0xfu << shift)) | ((bits & 0xf) << shift));
        break;
    }
    case 8:
        p[index] = (uint8_t)bits;
        break;
    case 16: {
        uint16_t v = (uint16_t)bits;
        memcpy(p + index * 2, &v, 2);
        break;
    }
    case 32: {
        uint32_t v = (uint32_t)bits;
        memcpy(p + index * 4, &v, 4);
        break;
    }
    case 64:
        memcpy(p + index * 8, &bits, 8);
        break;
    default:
        break;
    }
}

int64_t oracle_int_value(uint32_t dtype, uint64_t bits)
{
    const oracle_dtype_info *d = oracle_dtype(dtype);
    if (!d)
        return 0;
    if (d->kind != DVG_KIND_SIGNED || d->bits >= 64)
        return (int64_t)bits;
    uint64_t sign = UINT64_C(1) << (d->bits - 1);
    uint64_t v = bits & ((sign << 1) - 1);
    return (int64_t)(v ^ sign) - (int64_t)sign;
}

int oracle_float_format_of(uint32_t dtype, oracle_float_format *f)
{
    switch (dtype) {
    case DVG_DTYPE_F16: *f = (oracle_float_format){5, 10}; return 1;
    case DVG_DTYPE_BF16: *f = (oracle_float_format){8, 7}; return 1;
    case DVG_DTYPE_F32: *f = (oracle_float_format){8, 23}; return 1;
    case DVG_DTYPE_F64: *f = (oracle_float_format){11, 52}; return 1;
    default: return 0;
    }
}

uint64_t oracle_float_pack(oracle_float_format f, uint64_t sign, uint64_t exp, uint64_t frac)
{
    return (sign << (f.exp_bits + f.frac_bits)) | (exp << f.frac_bits) |
           (frac & ((UINT64_C(1) << f.frac_bits) - 1));
}
