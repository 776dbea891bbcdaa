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
 * threads in all) is a leak: the trial reports it as the case-level
 * finding resource-leak, with the rate per call and the calls of the life,
 * once per life. A failure status (an allocation that failed) late in a
 * life whose memory was seen growing is attributed to the leak.
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
} leak_watch;

void leak_init(leak_watch *lw);

/* Notes a call just made on w; every LEAK_EVERY calls of a life reads a
 * sample. Returns 1 with the finding's words in note (len bytes) when the
 * samples now show a leak not yet reported in this life, else 0. */
int leak_note(leak_watch *lw, const worker *w, char *note, size_t len);

/* 1 when w's current life is one whose memory was seen growing at every
 * sample (at least three) or whose leak was reported: a failure now is
 * put down to it, with words in note (len bytes). */
int leak_explains_failure(const leak_watch *lw, const worker *w, char *note, size_t len);

#endif /* HARNESS_RUN_LEAK_H */
