/* SPDX-License-Identifier: MIT */
/* This file contains the stop request of a run (interrupt.h): the
 * handler of SIGINT, SIGTERM and SIGHUP and the flag it sets. */
#include "harness/base/interrupt.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
    if (!caught)
        caught = sig;
}

void interrupt_install(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART | SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* SIGHUP ignored by whoever started us (nohup) stays ignored; a
         * shell without job control starts `cmd &` with SIGINT ignored,
         * but a `kill -INT` sent to it still means stop */
        if (sigs[i] == SIGHUP && sigaction(sigs[i], NULL, &old) == 0 &&
            old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

int interrupt_signal(void)
{
    return caught;
}

const char *interrupt_name(int sig)
{
    return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
                                                                                 : "a signal";
}

int interrupt_exit_status(int sig)
{
    return 128 + sig;
}
