/* SPDX-License-Identifier: MIT */
/*
 * harness/base/alloc.h: the one allocation hook. All heap memory of the harness
 * goes through these functions, so tests can fail the Nth allocation.
 *
 * Every function may be called from any thread: the count of allocations
 * is atomic, each allocation takes its own number. When several threads
 * allocate at once, which of them makes the Nth allocation depends on
 * scheduling.
 */
#ifndef HARNESS_ALLOC_H
#define HARNESS_ALLOC_H

#include <stddef.h>
#include <stdint.h>

void *dvg_malloc(size_t n);
void *dvg_calloc(size_t count, size_t n);
void *dvg_realloc(void *p, size_t n);
char *dvg_strdup(const char *s);
void dvg_free(void *p); /* accepts NULL */

/* Grows the array *arr of *cap elements of `size` bytes (dvg_realloc) to
 * room for at least `need`, doubling from 16; a no-op when it has that
 * room. 0, or -1 out of memory or on overflow (*arr and *cap unchanged). */
int dvg_grow(void **arr, size_t *cap, size_t need, size_t size);

/* Fail allocation number `nth` (1-based, counted from this call) and every
 * one after it while `sticky` is 1, or just that one when 0. nth == 0
 * turns injection off. Returns the number of allocations made so far. */
uint64_t dvg_alloc_fail_at(uint64_t nth, int sticky);

/* Number of allocations made since start (or the last fail_at call). */
uint64_t dvg_alloc_count(void);

#endif /* HARNESS_ALLOC_H */
