/* SPDX-License-Identifier: MIT */
/*
 * tests/reports/test_plugins.h: the reference kernel under other names and
 * versions, for the report and query tests. CMakeLists.txt compiles
 * plugins/reference/reference.c once per plugin with
 * `-include test_plugins.h -DTEST_PLUGIN_<NAME>`; this header sets the
 * reference kernel's descriptor name and version (MUTANT_IUT_NAME,
 * REFERENCE_VERSION) and, for the buggy ones, two of its mutation hooks
 * (see tests/mutants/README.md):
 *
 *   hostile   named <script>alert(1)</script>, a version full of markup,
 *             quotes, a terminal escape (the worker turns it into '?') and
 *             a byte that is not UTF-8; floats a * (1 / b), integers
 *             floor: findings in every report section
 *   fix_v1    "fixcheck-div" 1.0: integers floor (floor-vs-trunc)
 *   fix_v2    "fixcheck-div" 2.0: the bug fixed
 *   fix_v3    "fixcheck-div" 3.0: the bug back (a regression)
 */
#ifndef TESTS_REPORTS_TEST_PLUGINS_H
#define TESTS_REPORTS_TEST_PLUGINS_H

#if defined(TEST_PLUGIN_HOSTILE)
#define MUTANT_IUT_NAME "<script>alert(1)</script>"
#define REFERENCE_VERSION "1.0 \"quoted\" & 'single' <b>bold</b> | `tick` \x1b[31mred \xff" " end"
#define MUTANT_FDIV(x, y) ((x) * (1 / (y)))
#define MUTANT_ROUNDING(r) ((void)(r), DVG_ROUND_FLOOR)
#elif defined(TEST_PLUGIN_FIX_V1)
#define MUTANT_IUT_NAME "fixcheck-div"
#define REFERENCE_VERSION "1.0"
#define MUTANT_ROUNDING(r) ((void)(r), DVG_ROUND_FLOOR)
#elif defined(TEST_PLUGIN_FIX_V2)
#define MUTANT_IUT_NAME "fixcheck-div"
#define REFERENCE_VERSION "2.0"
#elif defined(TEST_PLUGIN_FIX_V3)
#define MUTANT_IUT_NAME "fixcheck-div"
#define REFERENCE_VERSION "3.0"
#define MUTANT_ROUNDING(r) ((void)(r), DVG_ROUND_FLOOR)
#else
#error "define TEST_PLUGIN_HOSTILE, TEST_PLUGIN_FIX_V1, _V2 or _V3"
#endif

#endif /* TESTS_REPORTS_TEST_PLUGINS_H */
