/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/grant.c: the table of grants (grant.h) and what each
 * resolves to on this host (the harness's side; the worker program gets
 * only the plan's flags and paths through its control block).
 */

#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"
#include "harness/sandbox/sandbox_internal.h"

#if defined(__x86_64__)
#define GRANT_TRIPLE "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define GRANT_TRIPLE "aarch64-linux-gnu"
#else
#define GRANT_TRIPLE "unknown-linux-gnu"
#endif
#define GRANT_LIB "/usr/lib/" GRANT_TRIPLE

/* One grant: each list NULL-terminated; a path may be a glob pattern. */
typedef struct grant_def {
    const char *name;
    uint32_t bit;
    uint32_t flags;                 /* GRANT_* of its process */
    const char *const *env;         /* "K=V" */
    const char *const *objects;     /* ELF objects: a bare name (as dlopen finds it) or a path */
    const char *const *programs;    /* exec'd during open() */
    const char *const *files;       /* files and folders, read-only */
    const char *const *devices;     /* device nodes, read-write (under the test root) */
    const char *says;               /* what the sandbox line says it added */
} grant_def;

static const char *const pocl_env[] = {
    "OCL_ICD_VENDORS=libpocl.so.2", /* the ICD loader loads it by name: no /etc/OpenCL */
    "POCL_CACHE_DIR=/tmp/pocl-cache", /* in the scratch: private, gone with the worker */
    NULL};
static const char *const pocl_objects[] = {
    "libpocl.so.2", GRANT_LIB "/pocl/libpocl-devices-*.so", NULL};
static const char *const pocl_programs[] = {"/usr/bin/ld", NULL};
static const char *const pocl_files[] = {
    "/usr/share/pocl",             /* kernel library bitcode, OpenCL C headers */
    "/usr/lib/llvm-*/lib/clang",   /* clang's resource folder */
    /* What ld reads to link a kernel: -lm -lc -lgcc -lgcc_s */
    "/usr/lib/gcc/" GRANT_TRIPLE, GRANT_LIB "/libc.so", GRANT_LIB "/libm.so",
    GRANT_LIB "/libc_nonshared.a", GRANT_LIB "/libmvec.so.1", GRANT_LIB "/libm.so.6",
    GRANT_LIB "/libgcc_s.so.1", NULL};

static const char *const cuda_objects[] = {"libcuda.so.1", "libnvidia-ptxjitcompiler.so.1",
                                           NULL};
static const char *const cuda_devices[] = {"/dev/nvidiactl", "/dev/nvidia[0-9]*",
                                           "/dev/nvidia-uvm", NULL};

static const grant_def grants[] = {
    {"pocl", WORKER_GRANT_POCL, GRANT_EXEC_IN_OPEN | GRANT_NEEDS_VIEW, pocl_env, pocl_objects,
     pocl_programs, pocl_files, NULL,
     "exec /usr/bin/ld during open() only (Landlock execute on it and its loader), "
     "OCL_ICD_VENDORS=libpocl.so.2 (no /etc/OpenCL), libpocl, its drivers, LLVM and clang, "
     "/usr/share/pocl and what ld reads read-only, POCL_CACHE_DIR=/tmp/pocl-cache in the scratch"},
    {"cuda", WORKER_GRANT_CUDA, GRANT_ONE_PROCESS | GRANT_NO_AS_LIMIT | GRANT_NEEDS_VIEW, NULL,
     cuda_objects, NULL, NULL, cuda_devices,
     "/dev/nvidiactl, /dev/nvidia[0-9]*, /dev/nvidia-uvm read-write (those present), "
     "/proc/driver/nvidia, libcuda.so.1 and libnvidia-ptxjitcompiler.so.1 read-only, "
     "no address-space limit (the memory cgroup stays), one process (no zygote)"},
};
#define N_GRANTS (sizeof grants / sizeof grants[0])

int worker_grant_by_name(const char *name, uint32_t *bit)
{
    for (size_t i = 0; i < N_GRANTS; i++)
        if (!strcmp(name, grants[i].name)) {
            *bit = grants[i].bit;
            return 0;
        }
    return -1;
}

const char *worker_grant_names(void)
{
    return "pocl, cuda";
}

const char *worker_describe_grants(uint32_t which, char *buf, size_t cap)
{
    size_t n = strnlen(buf, cap);
    for (size_t i = 0; i < N_GRANTS && n + 1 < cap; i++)
        if (which & grants[i].bit) {
            int k = snprintf(buf + n, cap - n, " + grant %s: %s", grants[i].name, grants[i].says);
            n = k < 0 || (size_t)k >= cap - n ? cap - 1 : n + (size_t)k;
        }
    return buf;
}

uint32_t grant_flags(uint32_t which)
{
    uint32_t f = 0;
    for (size_t i = 0; i < N_GRANTS; i++)
        if (which & grants[i].bit)
            f |= grants[i].flags;
    return f;
}

/* Appends {kind, src, dst}. 0 or -1. */
static int plan_add(grant_plan *p, int kind, const char *src, const char *dst)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (p->b[i].kind == kind && !strcmp(p->b[i].dst, dst))
            return 0;
    if (p->n == p->cap) {
        uint32_t cap = p->cap ? 2 * p->cap : 32;
        grant_bind *b = dvg_realloc(p->b, cap * sizeof *b);
        if (!b)
            return -1;
        p->b = b;
        p->cap = cap;
    }
    grant_bind *b = &p->b[p->n];
    b->kind = kind;
    b->src = dvg_strdup(src);
    b->dst = dvg_strdup(dst);
    if (!b->src || !b->dst) {
        dvg_free(b->src);
        dvg_free(b->dst);
        return -1;
    }
    p->n++;
    return 0;
}

/* Adds each path that `pattern` (under root) matches. 0 or -1. */
static int plan_glob(grant_plan *p, int kind, const char *root, const char *pattern)
{
    char full[PATH_MAX];
    glob_t g;
    int rc = 0;
    if (snprintf(full, sizeof full, "%s%s", root, pattern) >= (int)sizeof full)
        return 0;
    if (glob(full, 0, NULL, &g) != 0)
        return 0; /* nothing there: not on this host */
    for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
        const char *src = g.gl_pathv[i];
        struct stat st;
        char real[PATH_MAX];
        if (stat(src, &st) != 0)
            continue;
        if (kind == GRANT_DEV) {
            /* Bound at its place without the root; a device node, or
             * under the test root any file standing in for one. */
            if (!root[0] && !S_ISCHR(st.st_mode))
                continue;
            rc = plan_add(p, kind, src, src + strlen(root));
        } else if (kind == GRANT_RO && S_ISDIR(st.st_mode)) {
            /* A folder: bound whole at its link-free place. */
            if (!realpath(src, real))
                continue;
            rc = plan_add(p, kind, real, real);
        } else {
            rc = plan_add(p, kind, src, src);
        }
    }
    globfree(&g);
    return rc;
}

int grant_plan_build(grant_plan *p, uint32_t which, const char *root, char *err, size_t cap)
{
    int rc = -1;
    memset(p, 0, sizeof *p);
    p->grants = which;
    p->flags = grant_flags(which);
    for (size_t i = 0; i < N_GRANTS; i++) {
        const grant_def *d = &grants[i];
        if (!(which & d->bit))
            continue;
        for (const char *const *e = d->env; e && *e; e++)
            if (p->n_env < sizeof p->env / sizeof p->env[0])
                p->env[p->n_env++] = *e;
        for (const char *const *o = d->objects; o && *o; o++) {
            if (strchr(*o, '/')) {
                if (plan_glob(p, GRANT_OBJECT, "", *o))
                    goto oom;
                continue;
            }
            /* A bare name: found as the loader finds it (view.c), if at all. */
            if (plan_add(p, GRANT_OBJECT, *o, *o))
                goto oom;
        }
        for (const char *const *x = d->programs; x && *x; x++)
            if (plan_glob(p, GRANT_PROGRAM, "", *x))
                goto oom;
        /* Each program's loader: the kernel opens it for execution too. */
        for (uint32_t k = 0, n = p->n; k < n; k++) {
            elf_info e;
            if (p->b[k].kind != GRANT_PROGRAM)
                continue;
            int fd = open(p->b[k].src, O_RDONLY | O_CLOEXEC);
            int ok = fd >= 0 && elf_read(fd, &e) == 0;
            if (fd >= 0)
                close(fd);
            if (!ok)
                continue;
            int bad = e.interp[0] && plan_add(p, GRANT_LOADER, e.interp, e.interp);
            elf_info_free(&e);
            if (bad)
                goto oom;
        }
        for (const char *const *f = d->files; f && *f; f++)
            if (plan_glob(p, GRANT_RO, "", *f))
                goto oom;
        for (const char *const *v = d->devices; v && *v; v++)
            if (plan_glob(p, GRANT_DEV, root ? root : "", *v))
                goto oom;
    }
    rc = 0;
    goto done;
oom:
    snprintf(err, cap, "out of memory resolving the grants");
    grant_plan_free(p);
done:
    return rc;
}

void grant_plan_free(grant_plan *p)
{
    for (uint32_t i = 0; i < p->n; i++) {
        dvg_free(p->b[i].src);
        dvg_free(p->b[i].dst);
    }
    dvg_free(p->b);
    memset(p, 0, sizeof *p);
}
