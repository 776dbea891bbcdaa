/* SPDX-License-Identifier: MIT */
/* The dependency of wp_missingdep.so; never on the loader's search path. */
__attribute__((visibility("default"))) int wp_dep_value(void)
{
    return 7;
}
