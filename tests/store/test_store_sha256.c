/* SPDX-License-Identifier: MIT */
/*
 * SHA-256 against the FIPS 180-4 / NIST example vectors, split updates
 * against one-shot hashing, and sha256_file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "harness/base/sha256.h"

static void hex_of(const void *data, size_t n, char hex[SHA256_HEX_CHARS])
{
    sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_BYTES];
    sha256_init(&ctx);
    sha256_update(&ctx, data, n);
    sha256_final(&ctx, d);
    sha256_hex(d, hex);
}

int main(void)
{
    static const struct {
        const char *msg;
        const char *hex;
    } vectors[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqkl"
         "mnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
        {"The quick brown fox jumps over the lazy dog",
         "d7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592"},
    };
    char hex[SHA256_HEX_CHARS];

    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        hex_of(vectors[i].msg, strlen(vectors[i].msg), hex);
        CHECKF(!strcmp(hex, vectors[i].hex), "vector %zu: %s", i, hex);
    }

    /* One million 'a', fed in uneven pieces. */
    {
        static char a[1000000];
        memset(a, 'a', sizeof a);
        sha256_ctx ctx;
        uint8_t d[SHA256_DIGEST_BYTES];
        sha256_init(&ctx);
        size_t off = 0, step = 1;
        while (off < sizeof a) {
            size_t n = step < sizeof a - off ? step : sizeof a - off;
            sha256_update(&ctx, a + off, n);
            off += n;
            step = step * 3 % 997 + 1;
        }
        sha256_final(&ctx, d);
        sha256_hex(d, hex);
        CHECKF(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
               "million a: %s", hex);
    }

    /* Every split of messages of 0..200 bytes equals the one-shot hash
     * (covers the padding boundaries 55, 56, 63, 64). */
    {
        uint8_t msg[200];
        for (size_t i = 0; i < sizeof msg; i++)
            msg[i] = (uint8_t)(i * 37 + 11);
        int bad = 0;
        for (size_t n = 0; n <= sizeof msg; n++) {
            char whole[SHA256_HEX_CHARS], parts[SHA256_HEX_CHARS];
            hex_of(msg, n, whole);
            for (size_t cut = 0; cut <= n; cut++) {
                sha256_ctx ctx;
                uint8_t d[SHA256_DIGEST_BYTES];
                sha256_init(&ctx);
                sha256_update(&ctx, msg, cut);
                sha256_update(&ctx, msg + cut, n - cut);
                sha256_final(&ctx, d);
                sha256_hex(d, parts);
                bad += strcmp(whole, parts) != 0;
            }
        }
        CHECKF(bad == 0, "%d split hashes differ", bad);
    }

    /* sha256_file: a file's hash, and a clear error for a missing one. */
    {
        char path[] = "/tmp/dvg-sha256-XXXXXX";
        int fd = mkstemp(path);
        CHECK(fd >= 0);
        if (fd >= 0) {
            CHECK(write(fd, "abc", 3) == 3);
            close(fd);
            char err[256] = "";
            CHECK(sha256_file(path, hex, err, sizeof err) == 0);
            CHECKF(!strcmp(hex, vectors[1].hex), "file: %s", hex);
            unlink(path);
            memcpy(hex, "unchanged", 10);
            CHECK(sha256_file(path, hex, err, sizeof err) == -1);
            CHECKF(strstr(err, path) && strstr(err, "No such file"), "message: %s", err);
            CHECK(!strcmp(hex, "unchanged"));
        }
    }
    return check_done("store_sha256");
}
