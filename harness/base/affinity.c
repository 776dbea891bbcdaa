/* SPDX-License-Identifier: MIT */
/* harness/base/affinity.c: see affinity.h. */
#include "harness/base/affinity.h"

#include <pthread.h>
#include <sched.h>

uint32_t affinity_cpu_count(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    return sched_getaffinity(0, sizeof set, &set) == 0 ? (uint32_t)CPU_COUNT(&set) : 0;
}

int affinity_cpu_for_job(uint32_t index, uint32_t jobs)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0 || (uint32_t)CPU_COUNT(&set) < jobs ||
        index >= jobs)
        return -1;
    uint32_t seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set) && seen++ == index)
            return cpu;
    return -1;
}

static void one_cpu(int cpu, cpu_set_t *set)
{
    CPU_ZERO(set);
    CPU_SET(cpu, set);
}

int affinity_pin_thread(int cpu)
{
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    one_cpu(cpu, &set);
    return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0 ? 0 : -1;
}

int affinity_pin_process(int cpu)
{
    if (cpu < 0)
        return 0;
    cpu_set_t set;
    one_cpu(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}
