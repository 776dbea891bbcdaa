/* SPDX-License-Identifier: MIT */
/*
 * harness/base/affinity.h: one CPU per job, shared by a job's thread and its
 * worker.
 *
 * A job hands each case to its worker and waits for the answer, so the two
 * take turns. On different CPUs every turn wakes an idle CPU, which on a
 * virtual machine costs tens of microseconds: a campaign with one job ran
 * 5,900 cases/s unpinned and 20,800 pinned on this project's machine. So
 * a job and its worker can share a CPU: job i of N on the i-th CPU the
 * process may use (worker_options.cpu pins the worker). Its price: a
 * plugin's own threads share that CPU too. `divergence fuzz` pins when its
 * jobs are as many as those CPUs (the campaign owns them; the nightly's
 * one-job shards, run side by side, are not pinned), `--pin` and
 * `--no-pin` decide otherwise; `divergence sweep` pins with `--pin` (its
 * batches are large, so it gains nothing measurable).
 */
#ifndef DIVERGENCE_HARNESS_AFFINITY_H
#define DIVERGENCE_HARNESS_AFFINITY_H

#include <stdint.h>

/* How many CPUs this process may run on (its affinity mask); 0 when the
 * mask cannot be read. */
uint32_t affinity_cpu_count(void);

/* The CPU for job `index` of `jobs`: the index-th CPU in this process's
 * affinity mask; -1 (do not pin) when the mask holds fewer than `jobs`
 * CPUs or cannot be read. */
int affinity_cpu_for_job(uint32_t index, uint32_t jobs);

/* Pins the calling thread to `cpu`; nothing when cpu < 0. 0, or -1 when the
 * system refused (the thread then runs where it ran). */
int affinity_pin_thread(int cpu);

/* Pins the calling process (all of its threads to come) to `cpu`, as the
 * worker's child does before it loads the plugin; nothing when cpu < 0. */
int affinity_pin_process(int cpu);

#endif
