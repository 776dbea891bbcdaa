/* SPDX-License-Identifier: MIT */
/*
 * harness/base/text.h: the one rule for text that did not come from
 * Divergence (a plugin's name, version, error messages and output, file
 * names, anything read back from a store) before it reaches a terminal,
 * the store or a report.
 *
 * A code point is unsafe when a terminal or a text viewer could act on it
 * instead of showing it: the C0 controls (U+0000..U+001F) and DEL, the C1
 * controls (U+0080..U+009F, which a UTF-8 terminal takes as CSI, OSC,
 * NEL...), the bidirectional controls (U+061C, U+200E, U+200F,
 * U+202A..U+202E, U+2066..U+2069: they reorder what is shown), the
 * non-characters U+FFFE and U+FFFF, and every byte that does not start a
 * valid UTF-8 sequence. text_unsafe says which; text_sanitize writes text
 * with each unsafe one escaped; the report writers (reports/escape.h)
 * call text_next_cp and text_unsafe for their own formats. No other code
 * decides what is safe.
 *
 * Nothing here allocates or fails; any thread may call it.
 */
#ifndef HARNESS_BASE_TEXT_H
#define HARNESS_BASE_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Decodes the UTF-8 code point at *p and advances *p past it. Returns -1
 * (and advances one byte) for a byte that does not start a valid sequence
 * (overlong, surrogate, above U+10FFFF, truncated). *p must point into a
 * NUL-terminated string (a NUL ends every sequence). */
int32_t text_next_cp(const unsigned char **p);

/* 1 when code point c (-1: an invalid byte) is unsafe (see above). Tab,
 * line feed and carriage return are unsafe too: callers that keep line
 * structure (reports) test for them first. */
int text_unsafe(int32_t c);

/*
 * Writes src (at most srclen bytes of it, fewer when it holds a NUL, and
 * never more than TEXT_INPLACE_MAX - 1) into
 * dst (cap bytes, cap >= 1, always NUL-terminated) with every unsafe code
 * point escaped: a byte below 0x20, DEL or an invalid byte as \xNN, a C1,
 * bidirectional or non-character code point as \uNNNN; everything else as
 * it is. What does not fit is cut at a code point or escape boundary.
 * Returns the bytes written (the NUL excluded). dst and src must not
 * overlap.
 */
size_t text_sanitize(char *dst, size_t cap, const char *src, size_t srclen);

/* text_sanitize of the string in s (cap bytes, its last byte made a NUL
 * first) into itself; at most TEXT_INPLACE_MAX - 1 bytes are kept. */
#define TEXT_INPLACE_MAX 1024
void text_sanitize_inplace(char *s, size_t cap);

#endif /* HARNESS_BASE_TEXT_H */
