/* SPDX-License-Identifier: MIT */
/*
 * harness/base/interrupt.h: a run stopped from outside (Ctrl-C, a CI
 * timeout's SIGTERM, a closed terminal's SIGHUP) ends cleanly instead of
 * dying with its run 'running' and its output cut.
 *
 * interrupt_install catches SIGINT, SIGTERM and SIGHUP: the first one is
 * only remembered (the run engine takes no further unit, the command
 * stores what it holds and marks its run 'interrupted'); a second one of
 * the same signal kills the process as the default would (SA_RESETHAND),
 * for a run that does not stop soon enough. Workers run in a session of
 * their own (harness/worker), so a terminal's Ctrl-C reaches only this
 * process.
 */
#ifndef HARNESS_BASE_INTERRUPT_H
#define HARNESS_BASE_INTERRUPT_H

/* Catches SIGINT, SIGTERM and SIGHUP for this process (SA_RESTART: a
 * system call in progress goes on), SIGINT even when it was ignored (a
 * shell without job control starts `cmd &` so), SIGHUP not when it was
 * (nohup). Called once by main. */
void interrupt_install(void);

/* The signal that asked the process to stop (SIGINT, SIGTERM, SIGHUP),
 * or 0 while none did. Safe from any thread. */
int interrupt_signal(void);

/* "SIGINT", "SIGTERM", "SIGHUP" for one of them, else "a signal". */
const char *interrupt_name(int sig);

/* The exit status of a command stopped by `sig`: 128 + sig, as a shell
 * reports a process killed by it (130 for SIGINT, 143 for SIGTERM). */
int interrupt_exit_status(int sig);

#endif /* HARNESS_BASE_INTERRUPT_H */
