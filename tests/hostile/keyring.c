/* SPDX-License-Identifier: MIT */
/*
 * tests/hostile/keyring.c: hostile_keyring SECRET CMD [ARGS...] joins a
 * new session keyring, adds a "user" key "hostile-key" holding SECRET to
 * it, and execs CMD: what a caller with a secret in its session keyring
 * (an SSH or Kerberos agent's, a token) looks like to a plugin.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: hostile_keyring SECRET CMD [ARGS...]\n");
        return 2;
    }
    if (syscall(SYS_keyctl, 1 /* KEYCTL_JOIN_SESSION_KEYRING */, "hostile-session") < 0 ||
        syscall(SYS_add_key, "user", "hostile-key", argv[1], strlen(argv[1]),
                -3 /* KEY_SPEC_SESSION_KEYRING */) < 0) {
        fprintf(stderr, "hostile_keyring: %s\n", strerror(errno));
        return 77;
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "hostile_keyring: %s: %s\n", argv[2], strerror(errno));
    return 127;
}
