/* SPDX-License-Identifier: MIT */
/*
 * This file contains the data-directory lookup (harness/base/datadir.h):
 * the one place that decides where the cases and the fuzz corpus are
 * read from when no flag names them (the environment, then the folder of
 * the running executable, then the install prefix chosen at configure
 * time), and where the helper programs are (the executable's folder, an
 * installed libexec, the configured one). It keeps no state, so any
 * thread may call it.
 */
#include "harness/base/datadir.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef DVG_INSTALL_DATADIR
#define DVG_INSTALL_DATADIR "/usr/local/share"
#endif
#ifndef DVG_INSTALL_LIBEXECDIR
#define DVG_INSTALL_LIBEXECDIR "/usr/local/libexec"
#endif

/* The environment, or the executable's two places and the install one. */
#define MAX_PLACES 3

/* Writes "<base><mid>/<what>" to place; 0, or -1 when it does not fit. */
static int place_of(char *place, const char *base, const char *mid, const char *what)
{
    int n = snprintf(place, DATADIR_PATH_MAX, "%s%s/%s", base, mid, what);
    return n < 0 || n >= DATADIR_PATH_MAX ? -1 : 0;
}

/* The folder of the running executable into dir (len bytes); 0, or -1
 * when it is unknown. */
static int exe_dir(char *dir, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", dir, len - 1);
    if (n <= 0)
        return -1;
    dir[n] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return -1;
    *slash = '\0';
    return 0;
}

int datadir_find(const char *what, char *out, size_t len, char *err, size_t errlen)
{
    char places[MAX_PLACES][DATADIR_PATH_MAX], exe[DATADIR_PATH_MAX], real[PATH_MAX];
    size_t n = 0;
    int rc = -1;

    const char *env = getenv("DIVERGENCE_DATA_DIR");
    if (env && env[0]) {
        n += place_of(places[n], env, "", what) == 0;
    } else {
        if (exe_dir(exe, sizeof exe) == 0) {
            n += place_of(places[n], exe, "/../share/divergence", what) == 0;
            n += place_of(places[n], exe, "/share/divergence", what) == 0;
        }
        n += place_of(places[n], DVG_INSTALL_DATADIR, "/divergence", what) == 0;
    }

    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(places[i], &st) || !S_ISDIR(st.st_mode))
            continue;
        const char *found = realpath(places[i], real) ? real : places[i];
        if (strlen(found) >= len) {
            snprintf(err, errlen, "data folder %s: the path is too long", found);
            goto done;
        }
        memcpy(out, found, strlen(found) + 1);
        rc = 0;
        goto done;
    }

    int used = env && env[0]
                   ? snprintf(err, errlen, "no data folder '%s' in DIVERGENCE_DATA_DIR (looked in ",
                              what)
                   : snprintf(err, errlen, "no data folder '%s' (DIVERGENCE_DATA_DIR is not set; "
                                           "looked in ", what);
    for (size_t i = 0; i < n && used >= 0 && (size_t)used < errlen; i++)
        used += snprintf(err + used, errlen - (size_t)used, "%s%s", i ? ", " : "", places[i]);
    if (used >= 0 && (size_t)used < errlen)
        snprintf(err + used, errlen - (size_t)used, ")");
done:
    return rc;
}

int datadir_find_program(const char *name, char *out, size_t len, char *err, size_t errlen)
{
    char places[MAX_PLACES][DATADIR_PATH_MAX], exe[DATADIR_PATH_MAX], real[PATH_MAX];
    size_t n = 0;
    if (exe_dir(exe, sizeof exe) == 0) {
        n += place_of(places[n], exe, "", name) == 0;
        n += place_of(places[n], exe, "/../libexec/divergence", name) == 0;
    }
    n += place_of(places[n], DVG_INSTALL_LIBEXECDIR, "/divergence", name) == 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        if (stat(places[i], &st) || !S_ISREG(st.st_mode) || access(places[i], X_OK) != 0 ||
            !realpath(places[i], real) || strlen(real) >= len)
            continue;
        memcpy(out, real, strlen(real) + 1);
        return 0;
    }
    int used = snprintf(err, errlen, "no program '%s' (looked in ", name);
    for (size_t i = 0; i < n && used >= 0 && (size_t)used < errlen; i++)
        used += snprintf(err + used, errlen - (size_t)used, "%s%s", i ? ", " : "", places[i]);
    if (used >= 0 && (size_t)used < errlen)
        snprintf(err + used, errlen - (size_t)used, ")");
    return -1;
}
