/* SPDX-License-Identifier: MIT */
/*
 * harness/worker_program/main.c: the worker program, divergence-worker. The
 * harness execs it (harness/worker/life.c: through bubblewrap, or directly in reduced
 * mode) with its descriptors in place and its set-up in the control
 * block; it reads no environment of its own, and takes no arguments but
 * the two that an emulated worker gives itself when it execs the emulator
 * on the worker program (child.c, child_main).
 */
#include "harness/worker_program/program.h"

int main(int argc, char **argv)
{
    child_program(argc, argv);
}
