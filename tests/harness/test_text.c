/* SPDX-License-Identifier: MIT */
/*
 * tests/harness/test_text.c: the one rule for untrusted text
 * (harness/base/text.h): which code points are unsafe, how text_sanitize
 * escapes them, and that it never cuts an escape or a UTF-8 sequence.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "harness/base/text.h"

static void sanitized(const char *in, const char *want)
{
    char out[256];
    text_sanitize(out, sizeof out, in, strlen(in));
    CHECKF(!strcmp(out, want), "'%s' became '%s', want '%s'", in, out, want);
}

int main(void)
{
    /* What stays. */
    sanitized("divergence-reference 0.1.0", "divergence-reference 0.1.0");
    sanitized("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    sanitized("a\\b", "a\\b");
    /* C0 and DEL. */
    sanitized("a\x1b[31mred\n", "a\\x1b[31mred\\x0a");
    sanitized("\t\r\x7f", "\\x09\\x0d\\x7f");
    /* C1 as UTF-8: CSI, OSC, NEL. */
    sanitized("x\xc2\x9b" "31mX\xc2\x9d" "0;title\xc2\x9c\xc2\x85" "CONFORMANT",
              "x\\u009b31mX\\u009d0;title\\u009c\\u0085CONFORMANT");
    /* Bidirectional controls: RLO ... PDF, the isolates, the marks. */
    sanitized("ok \xe2\x80\xae" "TNAMROFNOC\xe2\x80\xac",
              "ok \\u202eTNAMROFNOC\\u202c");
    sanitized("\xe2\x81\xa6\xe2\x81\xa9\xe2\x80\x8f\xd8\x9c", "\\u2066\\u2069\\u200f\\u061c");
    /* Invalid UTF-8: a lone continuation byte, an overlong NUL, a surrogate,
     * a truncated sequence; U+FFFF. */
    sanitized("\x80\xc0\x80\xed\xa0\x80\xe2\x82", "\\x80\\xc0\\x80\\xed\\xa0\\x80\\xe2\\x82");
    sanitized("\xef\xbf\xbf", "\\uffff");
    for (int32_t c = 0; c < 0x20; c++)
        CHECK(text_unsafe(c));
    CHECK(text_unsafe(-1) && text_unsafe(0x7f) && text_unsafe(0x80) && text_unsafe(0x9f));
    CHECK(!text_unsafe(' ') && !text_unsafe(0xa0) && !text_unsafe(0x202f) && !text_unsafe(0x2065));
    CHECK(text_unsafe(0x202a) && text_unsafe(0x202e) && text_unsafe(0x2066) && text_unsafe(0x2069));

    /* Cut at a boundary, never inside an escape or a sequence. */
    char small[6];
    text_sanitize(small, sizeof small, "ab\xc2\x9b", 4);
    CHECKF(!strcmp(small, "ab"), "cut '%s'", small);
    text_sanitize(small, sizeof small, "abcd\xc3\xa9", 6);
    CHECKF(!strcmp(small, "abcd"), "cut '%s'", small);
    /* srclen bounds the read; a NUL ends it earlier. */
    char out[32];
    text_sanitize(out, sizeof out, "abc\x1b", 3);
    CHECK(!strcmp(out, "abc"));
    text_sanitize(out, sizeof out, "ab\0cd", 5);
    CHECK(!strcmp(out, "ab"));
    /* In place, the last byte of the buffer made a NUL first. */
    char buf[8] = {'n', '\x1b', 'x', 'y', 'z', 'w', 'v', 'u'};
    text_sanitize_inplace(buf, sizeof buf);
    CHECKF(!strcmp(buf, "n\\x1bxy"), "in place '%s'", buf);
    return check_done("test_text");
}
