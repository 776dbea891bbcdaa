/* SPDX-License-Identifier: MIT */
/* A library hp_missing_dep.so needs, built where no loader looks for it. */
__attribute__((visibility("default"))) int hostile_dep_value(void)
{
    return 7;
}
