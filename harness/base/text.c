/* SPDX-License-Identifier: MIT */
/*
 * This file contains the one rule for untrusted text (harness/base/text.h):
 * a UTF-8 decoder that names invalid bytes, the test of which code points
 * are unsafe to show, and the sanitizer that escapes them.
 */
#include "harness/base/text.h"

#include <stdio.h>
#include <string.h>

int32_t text_next_cp(const unsigned char **p)
{
    const unsigned char *s = *p;
    uint32_t c = s[0];
    int n;
    uint32_t min;
    if (c < 0x80) {
        *p = s + 1;
        return (int32_t)c;
    }
    if ((c & 0xE0) == 0xC0) {
        n = 1, min = 0x80, c &= 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        n = 2, min = 0x800, c &= 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        n = 3, min = 0x10000, c &= 0x07;
    } else {
        *p = s + 1;
        return -1;
    }
    for (int i = 1; i <= n; i++) {
        if ((s[i] & 0xC0) != 0x80) { /* a NUL stops here too */
            *p = s + 1;
            return -1;
        }
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {
        *p = s + 1;
        return -1;
    }
    *p = s + 1 + n;
    return (int32_t)c;
}

int text_unsafe(int32_t c)
{
    return c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || c == 0x061C || c == 0x200E ||
           c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
           c == 0xFFFE || c == 0xFFFF;
}

size_t text_sanitize(char *dst, size_t cap, const char *src, size_t srclen)
{
    /* A bounded NUL-terminated copy first: the decoder reads up to a NUL. */
    char in[TEXT_INPLACE_MAX];
    size_t n = 0;
    if (!cap)
        return 0;
    size_t len = strnlen(src, srclen < sizeof in - 1 ? srclen : sizeof in - 1);
    memcpy(in, src, len);
    in[len] = '\0';
    const unsigned char *p = (const unsigned char *)in, *end = p + len;
    while (p < end) {
        const unsigned char *at = p;
        int32_t c = text_next_cp(&p);
        char esc[16];
        const char *piece = (const char *)at;
        size_t k = (size_t)(p - at);
        if (text_unsafe(c)) {
            if (c < 0x80) /* C0, DEL, or an invalid byte */
                snprintf(esc, sizeof esc, "\\x%02x", at[0]);
            else
                snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
            piece = esc;
            k = strlen(esc);
        }
        if (n + k + 1 > cap)
            break;
        memcpy(dst + n, piece, k);
        n += k;
    }
    dst[n] = '\0';
    return n;
}

void text_sanitize_inplace(char *s, size_t cap)
{
    char copy[TEXT_INPLACE_MAX];
    if (!cap)
        return;
    s[cap - 1] = '\0';
    size_t len = strnlen(s, sizeof copy - 1);
    memcpy(copy, s, len);
    copy[len] = '\0';
    text_sanitize(s, cap < sizeof copy ? cap : sizeof copy, copy, len);
}
