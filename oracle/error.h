/* SPDX-License-Identifier: MIT */
/*
 * oracle/error.h: the error record every fallible oracle function fills.
 *
 * Functions return an int status (ORACLE_OK on success) and, on failure,
 * write a human-readable sentence into the caller's oracle_error: what was
 * wrong, where (field, dimension, attribute), and the requirement ID of the
 * spec sentence that makes it wrong when there is one.
 */
#ifndef ORACLE_ERROR_H
#define ORACLE_ERROR_H

#include <stddef.h>

#define ORACLE_OK      0 /* success */
#define ORACLE_INVALID 1 /* the input is invalid under the variant's rules
                            (the spec says so); `text` says why */
#define ORACLE_EUSAGE  2 /* the request itself is malformed (unknown
                            attribute, dtype not in the variant, ...) */

typedef struct oracle_error {
    char text[320];          /* NUL-terminated sentence */
    const char *requirement; /* requirement ID (static string) or NULL */
} oracle_error;

/* Formats `fmt` into err->text and sets err->requirement. Accepts err NULL.
 * Returns `status` so callers can write `return oracle_fail(...)`. */
int oracle_fail(oracle_error *err, int status, const char *requirement,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* ORACLE_ERROR_H */
