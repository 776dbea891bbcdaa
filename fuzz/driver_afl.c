/* SPDX-License-Identifier: MIT */
/*
 * fuzz/driver_afl.c: the AFL++ persistent-mode driver of a fuzz target
 * (shared memory test cases, __AFL_LOOP). Built with afl-clang-fast (or
 * afl-clang-lto) only: scripts/fuzz-build.sh, fuzz/README.md.
 */
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional, as with libFuzzer: the target's one-time setup. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

#ifdef __AFL_COMPILER
#include <unistd.h>

__AFL_FUZZ_INIT();

int main(int argc, char **argv)
{
    /* The target's one-time setup (loading the plugin, the oracle's
     * self-check) runs before the fork server starts, not once per forked
     * child. */
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    __AFL_INIT();
    unsigned char *buf = __AFL_FUZZ_TESTCASE_BUF;
    while (__AFL_LOOP(100000)) {
        int len = __AFL_FUZZ_TESTCASE_LEN;
        LLVMFuzzerTestOneInput(buf, (size_t)len);
    }
    return 0;
}
#else
#error "fuzz/driver_afl.c needs afl-clang-fast (AFL++); use fuzz/driver_replay.c without it"
#endif
