/* SPDX-License-Identifier: MIT */
/*
 * harness/base/cpumodel.c: the table of CPU models, the host's level, the
 * emulator's place and version (cpumodel.h).
 */
#include "harness/base/cpumodel.h"

#include <ctype.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const cpum_model models[] = {
    {"native", "host", NULL, 0, "the host's own"},
    /* Less what QEMU's TCG cannot give (it would warn on every start). */
    {"x86-64-v3", "v3,haswell,avx2", "Haswell,-pcid,-x2apic,-tsc-deadline,-hle,-invpcid,-rtm",
     3, "AVX2/FMA/F16C, no AVX-512"},
    {"x86-64-v2", "v2,nehalem,sse4.2,sse42", "Nehalem", 2, "SSE4.2, no AVX"},
};

int cpum_count(void)
{
    return (int)(sizeof models / sizeof models[0]);
}

const cpum_model *cpum_get(int i)
{
    return i >= 0 && i < cpum_count() ? &models[i] : NULL;
}

int cpum_find(const char *name)
{
    size_t n = strlen(name);
    for (int i = 0; i < cpum_count(); i++) {
        if (!strcasecmp(name, models[i].name))
            return i;
        for (const char *a = models[i].aliases; *a;) {
            const char *end = strchr(a, ',');
            size_t len = end ? (size_t)(end - a) : strlen(a);
            if (len == n && !strncasecmp(a, name, n))
                return i;
            a += len + (end ? 1 : 0);
        }
    }
    return -1;
}

int cpum_host_level(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (!(__builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt") &&
          __builtin_cpu_supports("ssse3")))
        return 1;
    if (!(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
          __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("avx")))
        return 2;
    if (!(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
          __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512dq") &&
          __builtin_cpu_supports("avx512vl")))
        return 3;
    return 4;
#else
    return 0;
#endif
}

int cpum_below_host(void)
{
    int level = cpum_host_level();
    for (int i = 0; i < cpum_count(); i++)
        if (models[i].qemu && models[i].level == level - 1)
            return i;
    return -1;
}

#if defined(__x86_64__)
/* Bit `bit` of register `reg` (0 EAX .. 3 EDX) of CPUID leaf/subleaf:
 * for the features clang 14's __builtin_cpu_supports does not name
 * (avx512fp16: leaf 7.0 EDX 23; avx512bf16: leaf 7.1 EAX 5; f16c: leaf 1
 * ECX 29). */
static int cpuid_bit(unsigned leaf, unsigned sub, int reg, int bit)
{
    unsigned r[4];
    if (!__get_cpuid_count(leaf, sub, &r[0], &r[1], &r[2], &r[3]))
        return 0;
    return (r[reg] >> bit) & 1u;
}
#endif

void cpum_describe_host(char *buf, size_t cap)
{
    int level = cpum_host_level();
    if (!level) {
        snprintf(buf, cap, "not x86-64");
        return;
    }
    size_t at = (size_t)snprintf(buf, cap, "x86-64-v%d", level);
#if defined(__x86_64__)
    static const char *const shown[] = {"avx512f", "avx512bw", "avx512vl", "avx512fp16",
                                        "avx512bf16", "avx2", "fma", "f16c", "avx",
                                        "sse4.2"};
    const char *sep = ":";
    for (size_t i = 0; i < sizeof shown / sizeof shown[0] && at < cap; i++) {
        int has = 0;
        /* __builtin_cpu_supports takes string literals only. */
        switch (i) {
        case 0: has = __builtin_cpu_supports("avx512f"); break;
        case 1: has = __builtin_cpu_supports("avx512bw"); break;
        case 2: has = __builtin_cpu_supports("avx512vl"); break;
        case 3: has = __builtin_cpu_supports("avx512f") && cpuid_bit(7, 0, 3, 23); break;
        case 4: has = __builtin_cpu_supports("avx512f") && cpuid_bit(7, 1, 0, 5); break;
        case 5: has = __builtin_cpu_supports("avx2"); break;
        case 6: has = __builtin_cpu_supports("fma"); break;
        case 7: has = __builtin_cpu_supports("avx") && cpuid_bit(1, 0, 2, 29); break;
        case 8: has = __builtin_cpu_supports("avx"); break;
        default: has = __builtin_cpu_supports("sse4.2"); break;
        }
        if (has) {
            at += (size_t)snprintf(buf + at, cap - at, "%s%s", sep, shown[i]);
            sep = " ";
        }
    }
#endif
}

/* The emulator, found once. */
static pthread_once_t emu_once = PTHREAD_ONCE_INIT;
static char emu_path[4096], emu_version[64];
static int emu_found;

/* 1 when the file at path is a regular executable ELF file without a
 * PT_INTERP program header (static). */
static int static_executable(const char *path)
{
    unsigned char h[64];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    int ok = 0;
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111) ||
        pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h || memcmp(h, "\177ELF", 4) != 0 ||
        h[4] != 2)
        goto done;
    uint64_t phoff;
    uint16_t phentsize, phnum;
    memcpy(&phoff, h + 32, 8);
    memcpy(&phentsize, h + 54, 2);
    memcpy(&phnum, h + 56, 2);
    if (phentsize < 4 || phnum > 256)
        goto done;
    ok = 1;
    for (uint16_t i = 0; i < phnum; i++) {
        uint32_t type;
        if (pread(fd, &type, 4, (off_t)(phoff + (uint64_t)i * phentsize)) != 4) {
            ok = 0;
            break;
        }
        if (type == 3 /* PT_INTERP */)
            ok = 0;
    }
done:
    close(fd);
    return ok;
}

/* "qemu-x86_64 version 7.2.22 (Debian ...)": "7.2.22". */
static void read_version(const char *path)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[1], 1);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char prog[sizeof emu_path], flag[] = "--version";
    snprintf(prog, sizeof prog, "%s", path);
    char *argv[] = {prog, flag, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, prog, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(p[1]);
    char out[512];
    size_t n = 0;
    ssize_t k;
    while (rc == 0 && n < sizeof out - 1 && (k = read(p[0], out + n, sizeof out - 1 - n)) != 0) {
        if (k < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        n += (size_t)k;
    }
    out[n] = '\0';
    close(p[0]);
    if (rc == 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    const char *v = strstr(out, "version ");
    if (!v)
        return;
    v += 8;
    size_t len = 0;
    while (v[len] && (isdigit((unsigned char)v[len]) || v[len] == '.') &&
           len < sizeof emu_version - 1)
        len++;
    memcpy(emu_version, v, len);
    emu_version[len] = '\0';
}

/* A build under AddressSanitizer: its shadow memory (terabytes of address
 * space reserved at start) does not fit an emulated worker's limits, so
 * such a build has no emulator (cpum_no_emulator_why). */
#if defined(__SANITIZE_ADDRESS__)
#define CPUM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CPUM_SANITIZED 1
#endif
#endif

const char *cpum_no_emulator_why(void)
{
#ifdef CPUM_SANITIZED
    return "this is an AddressSanitizer build (its shadow memory does not fit under the emulator)";
#else
    return "qemu-user-static (qemu-x86_64-static) is not installed";
#endif
}

static void find_emulator(void)
{
#ifdef CPUM_SANITIZED
    return;
#endif
#if defined(__x86_64__)
    const char *env = getenv("DIVERGENCE_EMULATOR");
    const char *path = env ? env : "/usr/bin/qemu-x86_64-static";
    if (!path[0] || strlen(path) >= sizeof emu_path || !static_executable(path))
        return;
    snprintf(emu_path, sizeof emu_path, "%s", path);
    read_version(path);
    emu_found = 1;
#endif
}

int cpum_emulator(char *path, size_t cap, char *version, size_t vcap)
{
    pthread_once(&emu_once, find_emulator);
    if (!emu_found)
        return -1;
    if (path)
        snprintf(path, cap, "%s", emu_path);
    if (version)
        snprintf(version, vcap, "%s", emu_version);
    return 0;
}
