/* SPDX-License-Identifier: MIT */
/*
 * This file contains oracle_fail, which fills an oracle_error record (the
 * formatted sentence, truncated to the record's size, and the requirement
 * ID) and hands back the status to return.
 */
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
