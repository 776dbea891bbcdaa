/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/mode.c: the one file that differs between the hostile
 * plugins: which mode this hp_<mode>.so is (HOSTILE_MODE, HOSTILE_NAME
 * from CMakeLists.txt), and its entry symbol (none for NO_ENTRY).
 */
#include "hostile.h"

const int hostile_mode = HOSTILE_MODE;
const char hostile_name[] = "hostile-" HOSTILE_NAME;

#ifdef HOSTILE_DEP
int hostile_dep_value(void);
__attribute__((constructor)) static void use_dep(void)
{
    (void)hostile_dep_value();
}
#endif

#ifndef HOSTILE_WITHOUT_ENTRY
__attribute__((visibility("default"))) const dvg_descriptor *dvg_iut_descriptor(void)
{
    return hostile_entry();
}
#endif
