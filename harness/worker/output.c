/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/output.c: what the plugin printed, as the harness shows it.
 *
 * This file contains worker_show_output, which writes the plugin's
 * captured stdout/stderr (drained by parent.c after each request) to the
 * harness's stderr line by line, each line prefixed with the plugin's name
 * ("plugin reference: ..."), and every code point harness/base/text.h
 * calls unsafe escaped (ESC as \e, CR as \r, tab as \t, other C0 controls
 * and invalid bytes as \xNN, C1 and bidirectional controls as \uNNNN): a
 * plugin can neither move the cursor, retitle the terminal, reorder a line
 * nor print one that passes for the harness's own ("CONFORMANT").
 */
#include "harness/worker/worker_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "harness/base/text.h"

/* Appends text to out (cap bytes); flushes to fd 2 when full. */
static void put(char *out, size_t *n, size_t cap, const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (*n == cap) {
            ssize_t w = write(2, out, *n);
            (void)w;
            *n = 0;
        }
        out[(*n)++] = text[i];
    }
}

void worker_show_output(const worker *w, const char *buf, size_t len)
{
    char out[4096], prefix[WORKER_NAME_MAX + 16], esc[16];
    size_t n = 0;
    const char *name = w->has_info ? w->info.name : NULL;
    if (!name) {
        const char *slash = strrchr(w->path, '/');
        name = slash ? slash + 1 : w->path;
    }
    size_t plen = 0;
    memcpy(prefix, "plugin ", 7);
    plen = 7;
    for (const char *p = name; *p && plen < sizeof prefix - 3; p++)
        prefix[plen++] = *p >= 0x21 && *p <= 0x7e ? *p : '?';
    prefix[plen++] = ':';
    prefix[plen++] = ' ';
    int at_start = 1;
    /* buf[len] is a NUL (drain_output), so no sequence is decoded past it. */
    const unsigned char *p = (const unsigned char *)buf, *end = p + len;
    while (p < end) {
        if (at_start) {
            put(out, &n, sizeof out, prefix, plen);
            at_start = 0;
        }
        const unsigned char *at = p;
        int32_t c = text_next_cp(&p);
        if (c == '\n') {
            put(out, &n, sizeof out, "\n", 1);
            at_start = 1;
        } else if (c == '\\') {
            put(out, &n, sizeof out, "\\\\", 2);
        } else if (!text_unsafe(c)) {
            put(out, &n, sizeof out, (const char *)at, (size_t)(p - at));
        } else {
            size_t e;
            if (c == 0x1b)
                e = (size_t)snprintf(esc, sizeof esc, "\\e");
            else if (c == '\r')
                e = (size_t)snprintf(esc, sizeof esc, "\\r");
            else if (c == '\t')
                e = (size_t)snprintf(esc, sizeof esc, "\\t");
            else if (c < 0x80) /* C0, DEL, an invalid byte */
                e = (size_t)snprintf(esc, sizeof esc, "\\x%02x", at[0]);
            else
                e = (size_t)snprintf(esc, sizeof esc, "\\u%04x", (unsigned)c);
            put(out, &n, sizeof out, esc, e);
        }
    }
    if (!at_start)
        put(out, &n, sizeof out, "\n", 1);
    if (n) {
        ssize_t w2 = write(2, out, n);
        (void)w2;
    }
}
