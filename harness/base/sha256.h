/* SPDX-License-Identifier: MIT */
/*
 * harness/base/sha256.h: SHA-256 (FIPS 180-4), small and dependency-free. The
 * store names every plugin build by the hash of its shared object.
 *
 * Usage: sha256_init, any number of sha256_update, sha256_final; or
 * sha256_file for a whole file as 64 lower-case hex digits.
 */
#ifndef HARNESS_SHA256_H
#define HARNESS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_BYTES 32
#define SHA256_HEX_CHARS    65 /* 64 hex digits and the NUL */

typedef struct sha256_ctx {
    uint32_t h[8];      /* chaining state */
    uint64_t length;    /* bytes hashed so far */
    uint8_t block[64];  /* pending input */
    uint32_t fill;      /* bytes in block, 0..63 */
} sha256_ctx;

/* Starts a hash. */
void sha256_init(sha256_ctx *ctx);

/* Hashes n more bytes of `data` (may be NULL when n is 0). */
void sha256_update(sha256_ctx *ctx, const void *data, size_t n);

/* Finishes the hash into out[0..31]; ctx must be initialised again before
 * it is reused. */
void sha256_final(sha256_ctx *ctx, uint8_t out[SHA256_DIGEST_BYTES]);

/* Writes the digest as 64 lower-case hex digits and a NUL into hex. */
void sha256_hex(const uint8_t digest[SHA256_DIGEST_BYTES], char hex[SHA256_HEX_CHARS]);

/*
 * Hashes the whole file at `path` into hex (64 lower-case hex digits).
 * Returns 0, or -1 when the file cannot be opened or read, with a message
 * naming the file and the reason in err (errlen bytes, always terminated;
 * err may be NULL). hex is written only on success.
 */
int sha256_file(const char *path, char hex[SHA256_HEX_CHARS], char *err, size_t errlen);

#endif /* HARNESS_SHA256_H */
