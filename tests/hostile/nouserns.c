/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/nouserns.c: hostile_nouserns CMD [ARGS...] execs CMD under
 * a seccomp filter that refuses new user namespaces (unshare, clone with
 * CLONE_NEWUSER, clone3, setns), as a container's default seccomp profile
 * does: the host a harness meets in reduced mode, for real.
 */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: hostile_nouserns CMD [ARGS...]\n");
        return 2;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(setns), 0) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                         SCMP_A0_64(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) != 0 ||
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load(ctx) != 0) {
        fprintf(stderr, "hostile_nouserns: cannot install the filter\n");
        return 77;
    }
    seccomp_release(ctx);
    execvp(argv[1], argv + 1);
    fprintf(stderr, "hostile_nouserns: %s: %s\n", argv[1], strerror(errno));
    return 127;
}
