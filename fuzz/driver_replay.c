/* SPDX-License-Identifier: MIT */
/*
 * fuzz/driver_replay.c: runs inputs through a fuzz target's
 * LLVMFuzzerTestOneInput without any fuzzing engine (plain gcc build).
 *
 *   replay_div FILE|DIR...     every file given, and every regular file
 *                              under each directory (names starting with
 *                              '.' skipped, in name order, 8 levels deep)
 *   replay_div < FILE          one input from stdin (no arguments)
 *
 * Arguments that begin with '-' are skipped, so libFuzzer-style command
 * lines work. Each input is copied into a buffer of exactly its size, so
 * a sanitizer build sees reads past its end. Prints how many inputs ran;
 * exits 0, 2 when a path cannot be read; a finding traps (the process dies
 * on SIGILL/SIGABRT: non-zero for any caller). The target's
 * LLVMFuzzerInitialize, when it has one, runs first, as libFuzzer runs it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional, as with libFuzzer: the target's one-time setup, called once
 * before the first input. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv);

#define REPLAY_MAX_DEPTH 8

static unsigned long ran;

static int run_stream(FILE *f, const char *name)
{
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -1;
    for (;;) {
        if (n == cap) {
            uint8_t *p = realloc(buf, cap * 2);
            if (!p) {
                free(buf);
                return -1;
            }
            buf = p;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        fprintf(stderr, "replay: cannot read %s: %s\n", name, strerror(errno));
        free(buf);
        return -1;
    }
    uint8_t *exact = malloc(n ? n : 1);
    if (!exact) {
        free(buf);
        return -1;
    }
    memcpy(exact, buf, n);
    free(buf);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    ran++;
    return 0;
}

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = run_stream(f, path);
    fclose(f);
    return rc;
}

static int skip_dot(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

static int run_path(const char *path, int depth)
{
    struct stat st;
    if (stat(path, &st)) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode))
        return run_file(path);
    if (!S_ISDIR(st.st_mode) || depth >= REPLAY_MAX_DEPTH)
        return 0;
    struct dirent **names;
    int n = scandir(path, &names, skip_dot, alphasort);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
        char *child = malloc(len);
        if (child) {
            snprintf(child, len, "%s/%s", path, names[i]->d_name);
            if (run_path(child, depth + 1))
                rc = -1;
            free(child);
        } else {
            rc = -1;
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    int paths = 0, rc = 0;
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        paths++;
        if (run_path(argv[i], 0))
            rc = 2;
    }
    if (!paths && run_stream(stdin, "stdin"))
        rc = 2;
    printf("replay: ran %lu input%s\n", ran, ran == 1 ? "" : "s");
    return rc;
}
