/* SPDX-License-Identifier: MIT */
/*
 * harness/base/datadir.h: where Divergence finds its data (the
 * conformance cases, the fuzz corpus) and its helper programs (the
 * worker) without a source path baked into the binary.
 *
 * The data directory holds cases/ and corpus/ (corpus/div, ...). A
 * command's explicit flag (--cases, --corpus, --dir) always wins and is
 * the caller's business; without one, datadir_find looks, in this order:
 *
 *   1. $DIVERGENCE_DATA_DIR, when set and not empty. It is then the only
 *      place looked: a variable that names the wrong folder is an error,
 *      not a reason to take another one.
 *   2. <exe dir>/../share/divergence, exe dir being the folder of the
 *      running executable (/proc/self/exe): an installed prefix, bin/
 *      next to share/.
 *   3. <exe dir>/share/divergence: the build tree (CMake makes
 *      build/share/divergence/{cases,corpus} links to the source folders).
 *   4. The data directory of the install prefix chosen at configure time
 *      (GNUInstallDirs: ${CMAKE_INSTALL_FULL_DATADIR}/divergence).
 */
#ifndef HARNESS_DATADIR_H
#define HARNESS_DATADIR_H

#include <stddef.h>

/* Room for any path datadir_find writes to out. */
#define DATADIR_PATH_MAX 4096

/*
 * Finds the folder `what` (a relative path: "cases", "corpus/div") in the
 * data directory. Returns 0 with the folder's path, resolved (no link, no
 * ".."), in out (len bytes, DATADIR_PATH_MAX is enough). Returns -1 when
 * no place holds a folder `what` (or its path does not fit in out), with
 * a message in err (errlen bytes) that names every place looked; out is
 * then unspecified.
 */
int datadir_find(const char *what, char *out, size_t len, char *err, size_t errlen);

/*
 * Finds Divergence's helper program `name` ("divergence-worker"), in this
 * order: <exe dir>/name (the build tree, where every executable lands in
 * one folder), <exe dir>/../libexec/divergence/name (an installed prefix),
 * then the libexec directory of the install prefix chosen at configure
 * time. No environment variable is read. Returns 0 with the program's
 * resolved path in out (len bytes), or -1 with a message in err naming
 * every place looked.
 */
int datadir_find_program(const char *name, char *out, size_t len, char *err, size_t errlen);

#endif /* HARNESS_DATADIR_H */
