/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/child_limits.c: what the worker program takes from
 * itself before it loads a plugin: its descriptors and its resource
 * limits (no core dumps, and the limits of worker_options: address space,
 * file size, processes, CPU time per call, each a hard limit).
 */
#include "harness/worker_program/program.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

void child_fds(void)
{
    /* fd 7 is the stderr the plugin gets; fd 2, until now, carried what
     * bubblewrap or the launch had to say about the set-up. */
    if (fcntl(7, F_GETFD) >= 0) {
        if (dup2(7, 2) != 2)
            _exit(CHILD_EXIT_SETUP);
        close(7);
    }
    if (close_range(WORKER_FD_COUNT, ~0u, 0) != 0) {
        struct rlimit rl;
        long top = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                       ? (long)rl.rlim_cur
                       : 65536;
        for (long fd = WORKER_FD_COUNT; fd < top; fd++)
            close((int)fd);
    }
}

/* Bytes of address space the child has mapped now (0 when unknown). */
static uint64_t child_vm_bytes(size_t page)
{
    char buf[64];
    if (!sandbox_read_small("/proc/self/statm", buf, sizeof buf))
        return 0;
    return (uint64_t)strtoull(buf, NULL, 10) * page;
}

/* Moves the RLIMIT_CPU soft limit to `budget` seconds past what the child
 * has used so far: the limit of one call (limit_cpu_s). Re-armed at most
 * once a second of wall time (two syscalls less per call): a call gets its
 * budget less what the worker used in the second before it. Its two
 * function-local statics live in the child only: the parent never calls
 * it, so every child starts from them unarmed. */
void child_cpu_budget(uint32_t budget)
{
    static int64_t armed_at;
    static int armed;
    struct rusage ru;
    struct rlimit rl;
    if (!budget)
        return;
    int64_t now = worker_now_ms();
    if (armed && now - armed_at < 1000)
        return;
    armed = 1;
    armed_at = now;
    if (getrusage(RUSAGE_SELF, &ru) != 0 || getrlimit(RLIMIT_CPU, &rl) != 0)
        return;
    rlim_t used = (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec + 1;
    rl.rlim_cur = used + budget;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
        rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_CPU, &rl);
}

void child_limits(const worker_options *o, size_t page, uint32_t grant_flags)
{
    struct rlimit rl = {0, 0};
    setrlimit(RLIMIT_CORE, &rl);
    if (o->limit_as_bytes && !(grant_flags & GRANT_NO_AS_LIMIT)) {
        /* Relative to what the worker has: under ASan that is terabytes
         * of shadow, reserved before the plugin comes. */
        uint64_t have = child_vm_bytes(page);
        uint64_t lim = have > UINT64_MAX - o->limit_as_bytes ? UINT64_MAX
                                                               : have + o->limit_as_bytes;
        rl.rlim_cur = rl.rlim_max = (rlim_t)lim;
        setrlimit(RLIMIT_AS, &rl);
    }
    if (o->limit_fsize_bytes) {
        rl.rlim_cur = rl.rlim_max = (rlim_t)o->limit_fsize_bytes;
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    child_cpu_budget(o->limit_cpu_s); /* for loading and open() */
    if (o->limit_cpu_s && getrlimit(RLIMIT_CPU, &rl) == 0) {
        /* The hard limit: the worker's CPU time over its life. Only the
         * soft one moves per call, and the plugin (no CAP_SYS_RESOURCE)
         * can raise it to this at most, never raise this. */
        struct rusage ru;
        rlim_t life = WORKER_LIMIT_CPU_LIFE_S;
        if (getrusage(RUSAGE_SELF, &ru) == 0)
            life += (rlim_t)ru.ru_utime.tv_sec + (rlim_t)ru.ru_stime.tv_sec + 1;
        if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > life) {
            rl.rlim_max = life;
            if (rl.rlim_cur > life)
                rl.rlim_cur = life;
            setrlimit(RLIMIT_CPU, &rl);
        }
    }
    if (o->limit_nproc) {
        rl.rlim_cur = rl.rlim_max = o->limit_nproc;
        setrlimit(RLIMIT_NPROC, &rl);
    }
}
