/* SPDX-License-Identifier: MIT */
/*
 * tests/nightly/builds.h: builds of one implementation over time, for the
 * bisection and nightly tests. CMakeLists.txt compiles
 * plugins/reference/reference.c once per build with `-include builds.h`
 * and one number; this header turns the number into the descriptor's
 * name and version and, for the builds that have a bug, into a mutant of
 * tests/mutants/mutant.h:
 *
 *   -DDVG_BUILD_NUMBER=K  (1..8) "bisect-div" 1.K: integers floor where
 *                         truncation is due (floor-vs-trunc) in builds 5
 *                         and 6 only: the bug enters at the fifth build
 *                         and leaves at the seventh
 *   -DDVG_NIGHT=N         (1, 2) "nightly-div" N.0: night 1's build
 *                         floors; night 2's fixes that and flushes
 *                         subnormal float results instead
 *                         (flushed-subnormal-output)
 */
#ifndef TESTS_NIGHTLY_BUILDS_H
#define TESTS_NIGHTLY_BUILDS_H

#define BUILDS_TEXT_(x) #x
#define BUILDS_TEXT(x) BUILDS_TEXT_(x)

#if defined(DVG_BUILD_NUMBER)
#define MUTANT_IUT_NAME "bisect-div"
#define REFERENCE_VERSION "1." BUILDS_TEXT(DVG_BUILD_NUMBER)
#if DVG_BUILD_NUMBER >= 5 && DVG_BUILD_NUMBER <= 6
#define DVG_MUTANT MUTANT_FLOOR_NOT_TRUNC
#define DVG_MUTANT_NAME "floor_not_trunc"
#endif
#elif defined(DVG_NIGHT)
#define MUTANT_IUT_NAME "nightly-div"
#define REFERENCE_VERSION BUILDS_TEXT(DVG_NIGHT) ".0"
#if DVG_NIGHT == 1
#define DVG_MUTANT MUTANT_FLOOR_NOT_TRUNC
#define DVG_MUTANT_NAME "floor_not_trunc"
#else
#define DVG_MUTANT MUTANT_FLUSH_SUBNORMALS
#define DVG_MUTANT_NAME "flush_subnormals"
#endif
#else
#error "define DVG_BUILD_NUMBER (1..8) or DVG_NIGHT (1, 2)"
#endif

#endif /* TESTS_NIGHTLY_BUILDS_H */
