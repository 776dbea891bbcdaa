/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/identity.h: an implementation's identity, a plugin
 * under one config (identity.c).
 */
#ifndef HARNESS_SANDBOX_IDENTITY_H
#define HARNESS_SANDBOX_IDENTITY_H

#include <stddef.h>

/* Bytes of a config shown in an implementation's name, NUL included (as
 * worker.h's WORKER_NAME_MAX, a name's bytes). */
#define IDENTITY_CONFIG_MAX 256

/* An implementation is a plugin under one config: its identity in the
 * store (builds, findings, certificates) and in every certificate is the
 * descriptor's name, then " [CONFIG]" when open()'s config is not empty
 * (sanitized; a config too long for IDENTITY_CONFIG_MAX, or one that is
 * not plain text, as " [config sha256:16 hex digits]"), so that two
 * configs of one plugin file are two implementations. worker_info.name
 * holds it (harness-computed from the descriptor and the worker's
 * options). Writes into out (cap bytes) and returns out.
 * worker_implementation_config finds the config back in such a name into
 * out (cap bytes): 0 ("" when it names none), -1 when it holds only the
 * config's hash or out is too small. */
const char *worker_implementation_name(const char *name, const char *config, char *out,
                                       size_t cap);
int worker_implementation_config(const char *implementation, char *out, size_t cap);

#endif /* HARNESS_SANDBOX_IDENTITY_H */
