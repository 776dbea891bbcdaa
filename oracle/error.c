/* SPDX-License-Identifier: MIT */
#include "oracle/error.h"

#include <stdarg.h>
#include <stdio.h>

int oracle_fail(oracle_error *err, int status, const char *requirement, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->text, sizeof err->text, fmt, ap);
        va_end(ap);
        err->requirement = requirement;
    }
    return status;
}
