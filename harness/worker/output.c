/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/output.c: what the plugin printed, as the harness shows it.
 *
 * This file contains worker_show_output, which writes the plugin's
 * captured stdout/stderr (drained by parent.c after each request) to the
 * harness's stderr line by line, each line prefixed with the plugin's name
 * ("plugin reference: ..."), and every byte that is not printable ASCII
 * escaped (ESC as \e, CR as \r, tab as \t, the rest as \xNN): a plugin can
 * neither move the cursor, retitle the terminal nor print a line that
 * passes for the harness's own ("CONFORMANT").
 */
#include "harness/worker/worker_internal.h"

#include <string.h>
#include <unistd.h>

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
    char out[4096], prefix[WORKER_NAME_MAX + 16], esc[8];
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
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (at_start) {
            put(out, &n, sizeof out, prefix, plen);
            at_start = 0;
        }
        if (c == '\n') {
            put(out, &n, sizeof out, "\n", 1);
            at_start = 1;
        } else if (c >= 0x20 && c <= 0x7e && c != '\\') {
            put(out, &n, sizeof out, (const char *)&c, 1);
        } else {
            static const char hex[] = "0123456789abcdef";
            size_t e = 0;
            esc[e++] = '\\';
            if (c == '\\')
                esc[e++] = '\\';
            else if (c == 0x1b)
                esc[e++] = 'e';
            else if (c == '\r')
                esc[e++] = 'r';
            else if (c == '\t')
                esc[e++] = 't';
            else {
                esc[e++] = 'x';
                esc[e++] = hex[c >> 4];
                esc[e++] = hex[c & 15];
            }
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
