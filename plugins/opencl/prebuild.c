/* SPDX-License-Identifier: MIT */
/*
 * plugins/opencl/prebuild.c: `opencl-prebuild [CONFIG]` builds the OpenCL
 * plugin's kernels under CONFIG (the syntax of opencl.c; empty: the
 * defaults) in this process, outside any worker, by calling the plugin's
 * own open() and close(). A runtime with a kernel cache keeps what it
 * built: PoCL in $POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl or
 * ~/.cache/pocl.
 *
 * Why: PoCL links each kernel by running /usr/bin/ld, and the worker's
 * seccomp filter refuses exec (with --sandbox off too). With the kernels of
 * a config in the cache, open() in the worker finds them there and runs
 * no linker. Until the worker grants the linker during open(), certify,
 * diff and the tests run this first, with the same cache.
 *
 * Exit status: 0 when open() succeeded, 2 when it failed (its reason on
 * stderr), 2 for a usage error.
 */
#include <stdio.h>

#include "divergence/iut.h"

const dvg_descriptor *dvg_iut_descriptor(void);

int main(int argc, char **argv)
{
    const dvg_descriptor *d = dvg_iut_descriptor();
    dvg_iut *iut = NULL;
    if (argc > 2) {
        fprintf(stderr, "usage: opencl-prebuild [CONFIG]\n");
        return 2;
    }
    if (d->open(argc == 2 ? argv[1] : "", &iut) != DVG_OK)
        return 2; /* open() said why on stderr */
    printf("opencl-prebuild: built the kernels of config '%s' (%s)\n", argc == 2 ? argv[1] : "",
           d->version);
    d->close(iut);
    return 0;
}
