/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/leak.h: the resource watch of a worker's life. Every
 * LEAK_EVERY calls (cases) the harness reads, from outside, what the
 * child serving the calls holds: its anonymous resident memory (the
 * plugin's heap: the operands live in shared memory and do not count),
 * its mapped address space, its open file descriptors and its threads
 * (/proc/PID/status and /proc/PID/fd). Steady growth over the last
 * LEAK_SAMPLES samples of one life (every step up, none far below the
 * mean step, at least LEAK_MIN_BYTES of memory or LEAK_MIN_COUNT fds or
 * threads in all) of fds or threads is a leak: the trial reports it as the
 * case-level finding resource-leak, with the rate per call and the calls
 * of the life, once per life.
 *
 * Memory that grows so is not a leak yet: a kernel library that compiles
 * one kernel per new shape and keeps it (oneDNN's primitive cache, a JIT's
 * code cache) grows with every new shape and stops when the shapes repeat.
 * The trial then runs the case it just ran LEAK_REPEATS times more (same
 * shapes, same data: nothing a cache would add), in two halves, reading
 * the memory from outside before, between and after. Growth in both
 * halves (LEAK_REPEAT_MIN_BYTES / 2 or more each, resident or mapped) is
 * a leak, reported as above with both figures: identical calls keep
 * adding. A single mapping made once during the repeats (an arena, a
 * scratchpad) shows in one half only. Otherwise the growth is a cache: its figure (bytes per new
 * shape, least and most of the steps seen; bytes in the life, over how
 * many calls) is a note of the certificate, and a failure (resource-leak)
 * only once it passes LEAK_CACHE_MAX_BYTES in one worker life, because a
 * cache without a bound is a leak for a long-running server. A cache is
 * tried again with every further window of steady growth, so a plugin that
 * starts leaking later is still caught. A failure status (an allocation
 * that failed) late in a life whose memory was seen growing is attributed
 * to the growth.
 */
#ifndef HARNESS_RUN_LEAK_H
#define HARNESS_RUN_LEAK_H

#include <stddef.h>
#include <stdint.h>
#include "harness/worker/worker.h"

#define LEAK_EVERY 32u
#define LEAK_SAMPLES 8u
#define LEAK_MIN_BYTES (UINT64_C(8) << 20)
#define LEAK_MIN_COUNT 16u
/* The identical calls that tell a leak from a cache, and what they may add
 * in all (resident or mapped: page and arena rounding) and still be a
 * cache: 2 KiB per call. */
#define LEAK_REPEATS 32u
#define LEAK_REPEAT_MIN_BYTES (UINT64_C(64) << 10)
/* A cache's growth in one worker life past which it is a failure: 1 GiB.
 * oneDNN's primitive cache (1024 primitives, 73-530 KiB each) stays under
 * it. */
#define LEAK_CACHE_MAX_BYTES (UINT64_C(1024) << 20)

/* What leak_note found. */
enum {
    LEAK_NONE,                  /* nothing (yet) */
    LEAK_FOUND,                 /* a leak: the finding's words are in note */
    LEAK_SUSPECT                /* memory grew steadily: repeat a case
                                   (leak_repeated tells) */
};

/* What one sample read. */
typedef struct leak_sample {
    uint64_t call;              /* calls of the life when it was read */
    uint64_t anon, mapped;      /* bytes */
    uint64_t fds, threads;
} leak_sample;

typedef struct leak_watch {
    uint64_t life;              /* worker_spawns of the life watched */
    uint64_t calls;             /* calls of that life */
    leak_sample s[LEAK_SAMPLES]; /* the last samples, oldest first */
    uint32_t n;
    int reported;               /* the life's leak was reported */
    int growing;                /* memory went up at every sample so far */
    leak_sample base;           /* the life's first sample */
    /* the growth of the last window (LEAK_SUSPECT): which memory, its
     * least and most bytes per call from one sample to the next */
    size_t grew;                /* offsetof(leak_sample, anon or mapped) */
    const char *grew_what;
    uint64_t step_lo, step_hi;
    int cache;                  /* repeated identical calls added nothing */
    uint64_t cache_bytes, cache_calls; /* the growth of the life and its
                                          calls when that was last seen */
} leak_watch;

/* A cache's figure (leak_cache_figure): 0 bytes when none was seen. */
typedef struct leak_cache {
    uint64_t bytes;             /* growth in the life so far */
    uint64_t calls;             /* calls of the life so far (new shapes) */
    uint64_t lo, hi;            /* bytes per new shape, least and most */
} leak_cache;

void leak_init(leak_watch *lw);

/* Notes a call just made on w; every LEAK_EVERY calls of a life reads a
 * sample. Returns LEAK_FOUND with the finding's words in note (len bytes)
 * when the samples now show a leak of fds or threads not yet reported in
 * this life, or a cache past LEAK_CACHE_MAX_BYTES; LEAK_SUSPECT when
 * memory grew steadily (the caller repeats a case and calls
 * leak_repeated); else LEAK_NONE. */
int leak_note(leak_watch *lw, const worker *w, char *note, size_t len);

/* Reads what w's serving child holds now into *s. 0, or -1 (no child). */
int leak_read(const worker *w, leak_sample *s);

/* After LEAK_SUSPECT: s[0], s[1], s[2] were read before, between and
 * after two halves of `repeats` identical calls of one case in the same
 * life (NULL: they could not be, the life ended or a read failed: the
 * growth stays a leak). Returns LEAK_FOUND with the finding's words
 * appended to note (len bytes; it holds leak_note's): a leak; or
 * LEAK_NONE: a cache, its figure kept for leak_cache_figure. */
int leak_repeated(leak_watch *lw, const leak_sample s[3], uint32_t repeats, char *note,
                  size_t len);

/* The figure of the cache seen in the watched life (bytes 0: none). */
void leak_cache_figure(const leak_watch *lw, leak_cache *out);

/* 1 when w's current life is one whose memory was seen growing at every
 * sample (at least three) or whose leak was reported: a failure now is
 * put down to it, with words in note (len bytes). */
int leak_explains_failure(const leak_watch *lw, const worker *w, char *note, size_t len);

#endif /* HARNESS_RUN_LEAK_H */
