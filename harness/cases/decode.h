/* SPDX-License-Identifier: MIT */
/*
 * harness/cases/decode.h: the one total decoder from fuzzer bytes to a division
 * case, shared by the libFuzzer and AFL++ targets, the replay binary and
 * the built-in campaign (`divergence fuzz`), and its inverse encoder.
 *
 * Total: every byte string decodes to a case. Reads past the end return
 * defaults (zeros), so a short input is a small, simple case; nothing in
 * the input can make the decoder fail, allocate more than the limits
 * allow, or loop. The same bytes give the same case on every machine.
 */
#ifndef HARNESS_DECODE_H
#define HARNESS_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include "divergence/iut.h"
#include "harness/cases/divcase.h"

typedef struct decode_limits {
    uint64_t max_elements;   /* per tensor (A, B and the output); >= 1 */
    /* When n_claims > 0 the case's (variant, dtype) is one of these pairs
     * (a plugin's claims); otherwise any pair the variant table allows. */
    const dvg_claim *claims;
    uint32_t n_claims;
} decode_limits;

/* Defaults: 64 elements per tensor, any (variant, dtype). */
void decode_limits_default(decode_limits *lim);

/*
 * Decodes `size` bytes into *out (overwritten, not freed; release with
 * divcase_free). The case may be valid or invalid input for its variant
 * (shapes and attributes are decoded, not repaired). Returns 0, or -1 only
 * when an allocation fails.
 */
int decode_case(const uint8_t *data, size_t size, const decode_limits *lim, divcase *out);

/*
 * Encodes a case into bytes that decode_case (with limits that admit it)
 * turns back into the same variant, dtype, attributes, shapes and
 * operands. *out is allocated with dvg_malloc; the caller frees it with
 * dvg_free. Returns 0, or -1 on allocation failure or a case the format
 * cannot hold (more elements than 2^24).
 */
int decode_encode(const divcase *c, uint8_t **out, size_t *size);

/*
 * 1 when decode_case with these limits turns decode_encode(c) back into c:
 * the (variant, dtype) is in the variant table (and among the claims, when
 * the limits list claims), the attributes are in the ranges the format
 * holds (broadcast, axis_set and m_pythondiv 0 or 1, axis in [-64, 64],
 * auto_broadcast and int_rounding DVG_* values), ranks are at most
 * DVG_MAX_RANK, and A, B and, under numpy broadcasting, the product of
 * the larger of each right-aligned pair of dimensions hold at most
 * lim->max_elements elements. 0 otherwise. lim NULL: the defaults.
 */
int decode_limits_admit(const decode_limits *lim, const divcase *c);

/*
 * The byte reader of the decoder, for callers that build inputs or read
 * fields the same way (every read succeeds: past the end it returns 0).
 */
typedef struct decode_reader {
    const uint8_t *data;
    size_t size, pos;
} decode_reader;

void decode_reader_init(decode_reader *r, const uint8_t *data, size_t size);
uint8_t decode_read_u8(decode_reader *r);
/* `nbytes` (<= 8) bytes, little-endian; missing bytes read as 0. */
uint64_t decode_read_le(decode_reader *r, unsigned nbytes);
/* 1 when every byte has been read. */
int decode_reader_done(const decode_reader *r);

/* The format version decode_encode writes in byte 0 (fuzz/README.md). */
#define DECODE_FORMAT_VERSION 1

#endif /* HARNESS_DECODE_H */
