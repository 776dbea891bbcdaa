/* SPDX-License-Identifier: MIT */
/*
 * harness/base/host.c: see host.h.
 *
 * This file contains what the harness asks about the machine it runs on
 * and the processes on it: the host name, the CPU features, a tag that
 * names one process across pid reuse and reboots, and whether the process
 * that owned a tag is gone. Everything is read from /proc (Linux) and
 * answers "unknown" or "" where /proc cannot tell.
 */
#include "harness/base/host.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (!fgets(buf, (int)len, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
}

/* State letter and start time (clock ticks after boot) of process `pid`
 * from /proc. 0: found; 1: no such process; -1: /proc cannot tell. */
static int proc_stat(long pid, char *state, unsigned long long *start)
{
    char path[64], buf[2048];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 1 : -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p)
        return -1;
    p++;
    /* Fields after the name: state (3), ppid (4), ..., starttime (22). */
    char *save = NULL;
    char *tok = strtok_r(p, " ", &save);
    for (int field = 3; tok; field++, tok = strtok_r(NULL, " ", &save)) {
        if (field == 3)
            *state = tok[0];
        if (field == 22) {
            *start = strtoull(tok, NULL, 10);
            return 0;
        }
    }
    return -1;
}

/* "boot-id pid-namespace start-ticks" of process `pid`, or "" when /proc
 * cannot tell. */
void host_get_process_tag(long pid, char *tag, size_t len)
{
    char boot[64], ns[64] = "", path[64];
    char state;
    unsigned long long start;
    tag[0] = '\0';
    read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot);
    snprintf(path, sizeof path, "/proc/%ld/ns/pid", pid);
    ssize_t n = readlink(path, ns, sizeof ns - 1);
    ns[n > 0 ? n : 0] = '\0';
    if (!boot[0] || proc_stat(pid, &state, &start) != 0)
        return;
    snprintf(tag, len, "%s %s %llu", boot, ns[0] ? ns : "-", start);
}

void host_get_name(char *buf, size_t len)
{
    if (gethostname(buf, len - 1) != 0)
        snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
}

/* The flags line of /proc/cpuinfo ("Features" on Arm), or "unknown". */
void host_get_cpu_features(char *buf, size_t len)
{
    char line[8192];
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) && strncmp(line, "Features", 8))
            continue;
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        colon++;
        while (*colon == ' ' || *colon == '\t')
            colon++;
        colon[strcspn(colon, "\r\n")] = '\0';
        if (*colon)
            snprintf(buf, len, "%s", colon);
        break;
    }
    fclose(f);
}

/* 1 when the run of process `pid` with `tag` (both of this host) is
 * certainly dead, else 0. my_tag: this process's tag. */
int host_process_is_dead(long pid, const char *tag, const char *my_tag)
{
    char boot[64], ns[64], my_boot[64], my_ns[64];
    unsigned long long start = 0, my_start;
    if (sscanf(tag, "%63s %63s %llu", boot, ns, &start) == 3 &&
        sscanf(my_tag, "%63s %63s %llu", my_boot, my_ns, &my_start) == 3) {
        if (strcmp(boot, my_boot) != 0)
            return 1; /* rebooted since */
        if (strcmp(ns, my_ns) != 0)
            return 0; /* another pid namespace (container): cannot tell */
    } else {
        start = 0;
    }
    if (pid <= 0)
        return 0;
    char state;
    unsigned long long now_start;
    int found = proc_stat(pid, &state, &now_start);
    if (found == 1)
        return 1;
    if (found == 0)
        return state == 'Z' || state == 'X' || (start && now_start != start);
    return kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}
