/* SPDX-License-Identifier: MIT */
/*
 * harness/base/host.h: what describes this machine and its processes.
 *
 * The store records with every run the host it ran on, the process that
 * ran it and the CPU's features, and later asks whether a run left
 * 'running' still has a process (harness/store/store.h:
 * store_mark_stale_runs). These functions answer from /proc (Linux); none
 * fails: where /proc cannot tell they give "unknown" or "" as each says.
 * Every buffer is NUL-terminated, truncated to its len bytes (len > 0).
 */
#ifndef HARNESS_BASE_HOST_H
#define HARNESS_BASE_HOST_H

#include <stddef.h>

/* This machine's host name (gethostname), or "unknown". */
void host_get_name(char *buf, size_t len);

/* The flags line of /proc/cpuinfo ("Features" on Arm), or "unknown". */
void host_get_cpu_features(char *buf, size_t len);

/* "boot-id pid-namespace start-ticks" of process `pid` on this machine:
 * a tag that tells the process from a later one with the same pid, or
 * from any after a reboot. "" when /proc cannot tell (no such process). */
void host_get_process_tag(long pid, char *tag, size_t len);

/* 1 when the process `pid` with `tag` (host_get_process_tag, taken when
 * it ran; both of this host) is certainly gone - it exists no more, is a
 * zombie, its pid was reused, or the machine rebooted since - else 0
 * (alive, or in another pid namespace, which cannot be told). my_tag:
 * this process's tag. */
int host_process_is_dead(long pid, const char *tag, const char *my_tag);

#endif /* HARNESS_BASE_HOST_H */
