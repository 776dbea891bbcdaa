/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/wire.c: the few pieces of the parent-child protocol
 * (wire.h) that both sides run.
 *
 * This file contains the sending of a wakeup token, which both sides do
 * the same way, the list of signals a fault record may name, and the
 * bound-checked copy of a string out of memory the plugin could write (the
 * child's copies of last_error), and the check of a descriptor's claims
 * (known names, no pair twice) that both sides make; the parent makes every such string safe
 * to keep and to show with text_sanitize_inplace (harness/base/text.h).
 */
#include "harness/worker/wire.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "oracle/dtype.h"
#include "oracle/variant.h"

const int wire_fault_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                                  SIGTRAP, SIGSYS, SIGXCPU, SIGXFSZ};
_Static_assert(sizeof wire_fault_signals / sizeof wire_fault_signals[0] == WIRE_FAULT_SIGNALS,
               "WIRE_FAULT_SIGNALS counts wire_fault_signals");

int wire_is_fault_signal(int sig)
{
    for (size_t i = 0; i < WIRE_FAULT_SIGNALS; i++)
        if (wire_fault_signals[i] == sig)
            return 1;
    return 0;
}

int wire_send_token(int sock, uint32_t seq, uint32_t op)
{
    token t = {TOKEN_MAGIC, seq, op, 0};
    ssize_t n;
    do
        n = send(sock, &t, sizeof t, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)sizeof t ? 0 : -1;
}

void wire_copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

int wire_check_claims(const dvg_claim *claims, uint32_t n, char *msg, size_t cap)
{
    /* Where each (variant, dtype) pair was first claimed, + 1. */
    uint16_t first[DVG_VARIANT_COUNT][DVG_DTYPE_COUNT];
    int rc = -1;
    memset(first, 0, sizeof first);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = claims[i].variant, d = claims[i].dtype;
        if (v == DVG_VARIANT_NONE || v >= DVG_VARIANT_COUNT) {
            snprintf(msg, cap, "claim %u: unknown variant %u", i, v);
            goto done;
        }
        if (d == DVG_DTYPE_NONE || d >= DVG_DTYPE_COUNT) {
            snprintf(msg, cap, "claim %u: unknown dtype %u", i, d);
            goto done;
        }
        if (first[v][d]) {
            const oracle_variant *var = oracle_variant_get(v);
            snprintf(msg, cap, "claim %u repeats claim %u: %s %s (each pair may be claimed once)",
                     i, (unsigned)first[v][d] - 1, var ? var->name : "?", oracle_dtype_tag(d));
            goto done;
        }
        first[v][d] = (uint16_t)(i + 1);
    }
    rc = 0;
done:
    return rc;
}
