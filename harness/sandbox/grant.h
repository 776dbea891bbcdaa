/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/grant.h: grants, the named and explicit additions to a
 * worker's sandbox that a plugin needing more than a division kernel asks
 * for on the command line (--grant NAME; worker_options.grants).
 *
 * A grant is one row of a table (grant.c), data and never code of the
 * plugin's: variables added to the plugin's environment; files, folders
 * and ELF objects (each with its DT_NEEDED closure, resolved by view.c as
 * the loader would) bound read-only into the view; programs the plugin may
 * exec during open() only, bound with their closure, with Landlock's
 * execute right on each and on its loader; device nodes bound read-write
 * (--dev-bind), only those present; and flags for the worker's process
 * (exec allowed until open() returns, one process that loads and computes,
 * no address-space limit). Every other plugin's view, Landlock rules and
 * filters stay as they are: a grant adds only when named.
 *
 *   pocl  PoCL's OpenCL through the ICD loader: OCL_ICD_VENDORS names
 *         libpocl.so.2 (no /etc/OpenCL in the view), libpocl and its
 *         device drivers with LLVM and clang, /usr/share/pocl, clang's
 *         resource folder, /usr/bin/ld with what ld reads to link a kernel
 *         (the C library's link scripts and archives, libgcc), a private
 *         POCL_CACHE_DIR in the scratch; exec of /usr/bin/ld during open()
 *         only (the runners' filter refuses exec again before any compute).
 *   cuda  NVIDIA's driver: /dev/nvidiactl, /dev/nvidia[0-9]*,
 *         /dev/nvidia-uvm (those present, read-write), /proc/driver/nvidia
 *         (in the view's own /proc), libcuda.so.1 and
 *         libnvidia-ptxjitcompiler.so.1 from the loader's cache with their
 *         closure; no RLIMIT_AS (the driver reserves address space far
 *         beyond any limit; the memory cgroup still bounds what is used);
 *         one process (a CUDA context does not survive fork: the worker
 *         that opened computes, as DIVERGENCE_NO_ZYGOTE).
 *
 * The certificate's sandbox: line names every grant in force and what it
 * added (worker_describe_sandbox), from this table: computed by the
 * harness, never reported by the worker. A grant needs the full sandbox
 * (bubblewrap's view); in reduced mode worker_start refuses it (a load
 * error naming why); with --sandbox off only its environment and process
 * flags apply.
 *
 * The test hook DIVERGENCE_TEST_GRANT_ROOT=DIR (read by grant_plan_build's
 * caller in spec.c) looks for the devices under DIR (DIR/dev/nvidia0
 * bound at /dev/nvidia0): a test without a GPU sees the plan a GPU machine
 * would get.
 */
#ifndef HARNESS_SANDBOX_GRANT_H
#define HARNESS_SANDBOX_GRANT_H

#include <stddef.h>
#include <stdint.h>

/* Bits of worker_options.grants. */
#define WORKER_GRANT_POCL 1u
#define WORKER_GRANT_CUDA 2u
#define WORKER_GRANT_ALL  3u

/* The bit of the grant named `name` into *bit: 0, or -1 (unknown). */
int worker_grant_by_name(const char *name, uint32_t *bit);

/* The grants' names, comma-separated ("pocl, cuda"): for messages. */
const char *worker_grant_names(void);

/* Appends to buf (cap bytes, NUL-terminated, truncated) one
 * " + grant NAME: WHAT IT ADDED" per grant in `grants`. Returns buf. */
const char *worker_describe_grants(uint32_t grants, char *buf, size_t cap);

/* ------------------------------------------------------------------------
 * The sandbox's side (the spec, the worker and its program)
 * ---------------------------------------------------------------------- */

/* Flags of a grant's process (ctl_setup.grant_flags). */
#define GRANT_EXEC_IN_OPEN 1u /* exec allowed until open() returns */
#define GRANT_ONE_PROCESS  2u /* no zygote: the process that opened computes */
#define GRANT_NO_AS_LIMIT  4u /* no RLIMIT_AS */
#define GRANT_NEEDS_VIEW   8u /* refused in reduced mode */

/* The union of the flags of `grants`. */
uint32_t grant_flags(uint32_t grants);

/* What grants add to a worker, resolved on this host. */
enum { GRANT_RO = 1,  /* a file or folder: src bound read-only at dst */
       GRANT_DEV,     /* a device node: src bound read-write at dst */
       GRANT_OBJECT,  /* an ELF object: src (a path, or a bare name found as
                         dlopen finds it, LD_LIBRARY_PATH first) with its
                         closure (view.c) */
       GRANT_PROGRAM, /* a program exec'd during open(): as an object, and
                         Landlock's execute right on src */
       GRANT_LOADER   /* a program's loader (PT_INTERP): Landlock's execute
                         right on it (it is in the view already) */
};

typedef struct grant_bind {
    int kind;
    char *src; /* the host's path (GRANT_RO, GRANT_DEV: link-free) */
    char *dst; /* where the worker sees it */
} grant_bind;

typedef struct grant_plan {
    uint32_t grants, flags;
    grant_bind *b;
    uint32_t n, cap;
    const char *env[16]; /* "K=V" (the table's, static) */
    uint32_t n_env;
} grant_plan;

/* Resolves `grants` on this host: every path of their rows that exists,
 * globs expanded (the devices under `root`, "" for the host's /dev).
 * 0, or -1 with err (memory). grant_plan_free releases (accepts a zeroed
 * plan). */
int grant_plan_build(grant_plan *p, uint32_t grants, const char *root, char *err, size_t cap);
void grant_plan_free(grant_plan *p);

#endif /* HARNESS_SANDBOX_GRANT_H */
