/* SPDX-License-Identifier: MIT */
/*
 * This file contains the escaping of untrusted text for every output
 * format (HTML, XML, JSON, Markdown, plain text, terminal), one writer per
 * format on the decoder and the rule of harness/base/text.h (what is
 * unsafe is replaced with U+FFFD or escaped), and the quoting of a word
 * for a shell command line.
 */
#include "reports/escape.h"

#include <stdint.h>
#include <string.h>

#include "harness/base/text.h"

#define REPLACEMENT 0xFFFDu

/* Characters no format holds as themselves: what harness/base/text.h
 * calls unsafe, but tab, line feed and carriage return, which each writer
 * handles (escaped, kept or turned into a space). */
static int unprintable(int32_t c)
{
    return c != '\t' && c != '\n' && c != '\r' && text_unsafe(c);
}

static void put_utf8(FILE *f, uint32_t c)
{
    if (c < 0x80) {
        fputc((int)c, f);
    } else if (c < 0x800) {
        fputc((int)(0xC0 | (c >> 6)), f);
        fputc((int)(0x80 | (c & 0x3F)), f);
    } else if (c < 0x10000) {
        fputc((int)(0xE0 | (c >> 12)), f);
        fputc((int)(0x80 | ((c >> 6) & 0x3F)), f);
        fputc((int)(0x80 | (c & 0x3F)), f);
    } else {
        fputc((int)(0xF0 | (c >> 18)), f);
        fputc((int)(0x80 | ((c >> 12) & 0x3F)), f);
        fputc((int)(0x80 | ((c >> 6) & 0x3F)), f);
        fputc((int)(0x80 | (c & 0x3F)), f);
    }
}

void esc_html(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (p && *p) {
        int32_t c = text_next_cp(&p);
        if (unprintable(c) || c == '\r')
            c = c == '\r' ? ' ' : (int32_t)REPLACEMENT;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: put_utf8(f, (uint32_t)c); break;
        }
    }
}

void esc_xml(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (p && *p) {
        int32_t c = text_next_cp(&p);
        if (unprintable(c))
            c = (int32_t)REPLACEMENT;
        switch (c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\t': fputs("&#9;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\r': fputs("&#13;", f); break;
        default: put_utf8(f, (uint32_t)c); break;
        }
    }
}

void esc_json(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    if (!text) {
        fputs("null", f);
        return;
    }
    fputc('"', f);
    while (*p) {
        int32_t c = text_next_cp(&p);
        if (c < 0 || c == 0xFFFE || c == 0xFFFF)
            c = (int32_t)REPLACEMENT;
        switch (c) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (text_unsafe(c) || c == '<' || c == '>' || c == '&' || c == 0x2028 ||
                c == 0x2029)
                fprintf(f, "\\u%04x", (unsigned)c);
            else
                put_utf8(f, (uint32_t)c);
            break;
        }
    }
    fputc('"', f);
}

void esc_md(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (p && *p) {
        int32_t c = text_next_cp(&p);
        if (c == '\n' || c == '\r' || c == '\t')
            c = ' ';
        if (unprintable(c))
            c = (int32_t)REPLACEMENT;
        if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '&')
            fputs("&amp;", f);
        else if (c < 0x80 && strchr("\\`*_[]|#!~", (int)c))
            fprintf(f, "\\%c", (int)c);
        else
            put_utf8(f, (uint32_t)c);
    }
}

void esc_plain(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (p && *p) {
        int32_t c = text_next_cp(&p);
        put_utf8(f, unprintable(c) || c == '\r' ? REPLACEMENT : (uint32_t)c);
    }
}

void esc_term(FILE *f, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    while (p && *p) {
        const unsigned char *start = p;
        int32_t c = text_next_cp(&p);
        if (c == '\\')
            fputs("\\\\", f);
        else if (text_unsafe(c) && c < 0x80) /* C0, DEL, an invalid byte */
            fprintf(f, "\\x%02x", start[0]);
        else if (text_unsafe(c))
            fprintf(f, "\\u%04x", (unsigned)c);
        else
            put_utf8(f, (uint32_t)c);
    }
}

const char *esc_shell_word(const char *text, char *buf, size_t len, int *truncated)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_./:=@%+,-";
    size_t used = 0;
    int cut = 0;
    if (!len)
        return buf;
    if (!text)
        text = "";
    if (*text && strspn(text, safe) == strlen(text)) {
        size_t n = strlen(text);
        cut = n >= len;
        memcpy(buf, text, cut ? len - 1 : n);
        buf[cut ? len - 1 : n] = '\0';
    } else {
        /* 'it'\''s': each ' closes, escapes and reopens the quote. */
        buf[used++] = '\'';
        for (const char *p = text; *p && !cut; p++) {
            const char *piece = *p == '\'' ? "'\\''" : NULL;
            size_t n = piece ? 4 : 1;
            if (used + n + 2 > len) {
                cut = 1;
                break;
            }
            if (piece)
                memcpy(buf + used, piece, n);
            else
                buf[used] = *p;
            used += n;
        }
        if (used + 2 <= len)
            buf[used++] = '\'';
        else
            cut = 1;
        buf[used < len ? used : len - 1] = '\0';
    }
    if (truncated)
        *truncated = cut;
    return buf;
}
