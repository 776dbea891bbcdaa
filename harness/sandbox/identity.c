/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/identity.c: an implementation's identity, a plugin under
 * one config (identity.h, worker_implementation_name): what the store keys
 * builds, findings and certificates by, and how replay finds the config
 * back.
 */
#include <stdio.h>
#include <string.h>

#include "harness/base/sha256.h"
#include "harness/base/text.h"
#include "harness/sandbox/identity.h"

const char *worker_implementation_name(const char *name, const char *config, char *out,
                                       size_t cap)
{
    char cfg[IDENTITY_CONFIG_MAX];
    if (!config || !config[0]) {
        snprintf(out, cap, "%s", name);
        return out;
    }
    text_sanitize(cfg, sizeof cfg, config, strlen(config));
    int n = snprintf(out, cap, "%s [%s]", name, cfg);
    if (n >= 0 && (size_t)n < cap && strlen(cfg) == strlen(config))
        return out;
    /* Too long, or not plain text: named by its hash (replay then needs
     * --config). */
    sha256_ctx h;
    uint8_t d[SHA256_DIGEST_BYTES];
    sha256_init(&h);
    sha256_update(&h, config, strlen(config));
    sha256_final(&h, d);
    snprintf(out, cap, "%.*s [config sha256:%02x%02x%02x%02x%02x%02x%02x%02x]",
             (int)(cap > 48 ? cap - 48 : 0), name, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
    return out;
}

int worker_implementation_config(const char *implementation, char *out, size_t cap)
{
    const char *open = strstr(implementation, " [");
    size_t n = strlen(implementation);
    out[0] = '\0';
    if (!open || !n || implementation[n - 1] != ']')
        return 0; /* no config: "" */
    if (!strncmp(open + 2, "config sha256:", 14))
        return -1;
    size_t len = (size_t)(implementation + n - 1 - (open + 2));
    if (len >= cap)
        return -1;
    memcpy(out, open + 2, len);
    out[len] = '\0';
    return 0;
}
