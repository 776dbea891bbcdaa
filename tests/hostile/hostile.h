/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/hostile.h: the hostile and the malformed plugins.
 *
 * Each hp_<mode>.so is the reference kernel (plugins/reference/reference.c,
 * compiled once with this header force-included ahead of it, so that its
 * mutation hooks call into hostile.c) plus mode.c, which names the mode.
 * The kernel divides correctly; a hostile mode misbehaves in compute
 * whenever some element of B is 3 (so a certification meets it now and
 * then, and the cases between are ordinary), a load mode misbehaves while
 * the plugin loads or opens, a malformed mode hands the harness a broken
 * descriptor. README.md lists every mode with what the harness must make
 * of it.
 */
#ifndef TESTS_HOSTILE_H
#define TESTS_HOSTILE_H

#include <stdint.h>
#include "divergence/iut.h"

/* X(ID): HOSTILE_<ID>. */
#define HOSTILE_MODE_LIST(X)                                                     \
    /* compute, when B holds a 3 */                                              \
    X(EXIT) X(ABORT) X(STACK) X(ALLOC) X(FORKBOMB) X(SPEW) X(CLOSEFD)           \
    X(WRITEFD) X(TRUNCARENA) X(SIGHANDLER) X(ALARM) X(SIGMASK) X(THREAD_SPIN)   \
    X(THREAD_CRASH) X(ROUND) X(FTZ) X(TRAPS) X(ATTACKPARENT) X(EXEC) X(CPU)     \
    X(SLEEP) X(SLOW)                                                             \
    /* the sandbox (docs/sandbox.md; test_sandbox.sh) */       \
    X(PROCMEM) X(TIOCSTI) X(DBATTACK) X(PGKILL) X(ESCAPE)                        \
    /* the sandbox, second round (intruder.c; test_confinement.sh) */            \
    X(INTRUDER) X(NEEDPASSWD) X(FORGELINE) X(MEMFD) X(THREADS) X(C1)            \
    X(DIESELGATE)                                                                \
    /* the sandbox, third round (test_third.sh) */                               \
    X(NETIPC) X(OPENTHREAD) X(SECRETLIB)                                         \
    /* loading, open, output_shape */                                            \
    X(CTOR_EXIT) X(CTOR_ABORT) X(CTOR_HANG) X(SLEEPOPEN) X(CRASHOPEN)           \
    X(OPENFAIL) X(RANK1000)                                                      \
    /* the descriptor */                                                         \
    X(NULL_OPEN) X(NULL_SHAPE) X(NULL_COMPUTE) X(NULL_LAST_ERROR) X(NULL_CLOSE) \
    X(NULL_NAME) X(NULL_VERSION) X(EMPTY_NAME) X(LONG_NAME) X(NULL_CLAIMS)      \
    X(BAD_VARIANT) X(BAD_DTYPE) X(NO_CLAIMS) X(MANY_CLAIMS) X(SMALL_SIZE)       \
    X(ABI2) X(ABI0) X(BAD_DEVIATIONS) X(NULL_DESC) X(WILD_DESC) X(NO_ENTRY)     \
    X(MISSING_DEP) X(DUP_CLAIMS)                                                 \
    /* none: the reference itself, for comparisons */                            \
    X(NONE)

#define HOSTILE_ENUM_(ID) HOSTILE_##ID,
enum { HOSTILE_MODE_LIST(HOSTILE_ENUM_) HOSTILE_COUNT_ };
#undef HOSTILE_ENUM_

/* Defined by mode.c, one per plugin. */
extern const int hostile_mode;
extern const char hostile_name[];

/* The hooks (hostile.c). */
int32_t hostile_before(const dvg_tensor *a, const dvg_tensor *b, dvg_tensor *c);
void hostile_after(const dvg_tensor *b, dvg_tensor *c);
const dvg_descriptor *hostile_entry(void);
const dvg_descriptor *hostile_inner_entry(void);

/* The second round's attacks (intruder.c): at load (the constructor),
 * in open(), in compute (c: the output as given; trigger: B holds a 3),
 * and whether the kernel should be wrong (dieselgate, no certification
 * seen). */
int intruder_at_load(void);
void intruder_at_open(void);
int32_t intruder_compute(const dvg_tensor *c, int trigger);
int intruder_cuts_corners(void);
const char *intruder_version(void);

#ifdef HOSTILE_REFERENCE_HOOKS
#define MUTANT_BEFORE(variant, a, b, c, count) hostile_before((a), (b), (c))
#define MUTANT_AFTER(variant, a, b, c, count) hostile_after((b), (c))
#define MUTANT_ENTRY hostile_inner_entry
#define MUTANT_IUT_NAME "divergence-hostile"
#endif

#endif /* TESTS_HOSTILE_H */
