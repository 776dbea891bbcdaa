/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/main.c: the worker program, divergence-worker. The
 * harness execs it (launch.c: through bubblewrap, or directly in reduced
 * mode) with its descriptors in place and its set-up in the control
 * block; it takes no arguments and reads no environment of its own.
 */
#include "harness/worker/worker_internal.h"

int main(void)
{
    child_program();
}
