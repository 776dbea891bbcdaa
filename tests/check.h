/* SPDX-License-Identifier: MIT */
/*
 * tests/check.h: the assertions of Divergence's C tests. A failed CHECK
 * prints file, line and the expression (and a formatted message with
 * CHECKF), counts the failure and goes on; check_done() prints the totals
 * and returns the exit status for main.
 */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H

#include <stdio.h>

static unsigned long check_failures_;
static unsigned long check_total_;

#define CHECK(expr)                                                         \
    do {                                                                    \
        check_total_++;                                                     \
        if (!(expr)) {                                                      \
            check_failures_++;                                              \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, \
                    #expr);                                                 \
        }                                                                   \
    } while (0)

#define CHECKF(expr, ...)                                                   \
    do {                                                                    \
        check_total_++;                                                     \
        if (!(expr)) {                                                      \
            check_failures_++;                                              \
            if (check_failures_ <= 50) {                                    \
                fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__,      \
                        __LINE__, #expr);                                   \
                fprintf(stderr, __VA_ARGS__);                               \
                fputc('\n', stderr);                                        \
            }                                                               \
        }                                                                   \
    } while (0)

static inline int check_done(const char *name)
{
    printf("%s: %lu checks, %lu failed\n", name, check_total_, check_failures_);
    return check_failures_ ? 1 : 0;
}

#endif /* TESTS_CHECK_H */
