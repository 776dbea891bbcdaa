/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/sandbox_internal.h: what the files of harness/sandbox
 * share privately (nothing outside this folder includes it). The
 * contract is sandbox.h; this is how its files reach each other.
 */
#ifndef HARNESS_SANDBOX_INTERNAL_H
#define HARNESS_SANDBOX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "harness/sandbox/grant.h"
#include "harness/sandbox/sandbox.h"

/* ------------------------------------------------------------------------
 * elf.c
 * ---------------------------------------------------------------------- */

#define ELF_PATH_MAX 4096
#define ELF_MAX_NEEDED 256

/* What the loader reads of an ELF file (elf_read). */
typedef struct elf_info {
    uint16_t type;                   /* ET_DYN, ET_EXEC */
    char interp[ELF_PATH_MAX];       /* PT_INTERP, "" when none */
    char soname[256];                /* DT_SONAME, "" when none */
    char runpath[ELF_PATH_MAX];      /* DT_RUNPATH, with has_runpath */
    char rpath[ELF_PATH_MAX];        /* DT_RPATH, with has_rpath */
    int has_runpath, has_rpath;
    uint64_t flags_1;                /* DT_FLAGS_1 */
    char *needed[ELF_MAX_NEEDED];    /* DT_NEEDED, in order (owned) */
    uint32_t n_needed;
} elf_info;

/* Reads the ELF file open on fd (a regular file): 0 with *e filled when
 * it is a 64-bit little-endian ELF executable or shared object for this
 * machine whose headers hold together; -1 otherwise (*e then empty).
 * elf_info_free releases it (accepts an empty one). */
int elf_read(int fd, elf_info *e);
void elf_info_free(elf_info *e);

/* The loader's cache (/etc/ld.so.cache, read once by elf_cache_load: 0, or
 * -1 when it is missing or not glibc's "glibc-ld.so.cache1.1" format). */
typedef struct elf_cache {
    uint8_t *data;
    size_t size;
    uint32_t nlibs;
} elf_cache;
int elf_cache_load(const char *path, elf_cache *c);
void elf_cache_free(elf_cache *c);

/* The path the cache gives for library `name` on this machine (no
 * glibc-hwcaps entry) into out: 0, or -1 when none. */
int elf_cache_lookup(const elf_cache *c, const char *name, char *out, size_t cap);

/* ------------------------------------------------------------------------
 * view.c
 * ---------------------------------------------------------------------- */

/* Resolves the view of the worker program `program` (a host path) and the
 * plugin `plugin` (as the spec gives it) with the worker's
 * LD_LIBRARY_PATH (NULL: none). 0, or -1 with err. view_free releases. */
int view_build(view *v, const char *program, const char *plugin, const char *ld_library_path,
               char *err, size_t errlen);
void view_free(view *v);

/* A grant's additions (grant.h): the ELF objects at `paths` (n; shared
 * objects or programs; a bare name as dlopen finds it, skipped when it
 * finds none) with their DT_NEEDED closure and a program's loader,
 * resolved as view_build resolves the plugin's (not preloaded); 0, or -1
 * with err. view_add_file: the regular file at `path`, read-only at its
 * place (the symbolic links on its way recreated); 0, or -1 when it is no
 * regular file outside /proc, /sys and /dev. */
int view_add_objects(view *v, const char *const *paths, uint32_t n, const char *ld_library_path,
                     char *err, size_t errlen);
int view_add_file(view *v, const char *path);
/* Adds the static executable at host path `src` (its real path) bound at
 * `dst`. 0, or -1 with err. */
int view_add_static(view *v, const char *dst, const char *src, char *err, size_t errlen);

/* Opens entry e's file again by its real path, checked to be the inode
 * resolved: an O_PATH descriptor (BIND) or a readable one (COPY, or a BIND
 * marked copy); -1. */
int view_open(const view_entry *e);

/* Marks `copy` every BIND entry a process of uid/gid (and no other group)
 * cannot open for reading (a folder on its path it may not search: a
 * root caller's private build tree). One child process asks for all. 0, or
 * -1 when the child cannot be had. */
int view_reachable(view *v, unsigned uid, unsigned gid);

/* ------------------------------------------------------------------------
 * cgroup.c, seccomp.c, spec.c
 * ---------------------------------------------------------------------- */

/* Makes the worker's groups (worker.<pid>.<serial> under this process's
 * own) with pids.max = pids_max (0: no limit). 0, or -1 with why (none
 * can be made here; nothing is left behind). */
int cg_open(cgroup *c, uint64_t serial, uint32_t pids_max, char *why, size_t cap);
/* Kills what is left and removes the groups. Accepts an unused one. */
void cg_close(cgroup *c);

/* The outer filter (see seccomp.c) for a worker of `mode` (LAUNCH_*),
 * exported as a BPF program into fd. 0 or -1. */
int sandbox_outer_filter(int fd, int mode);

/* bubblewrap's path into out (PATH_MAX): the one found at configure time,
 * else the first on PATH. 0, or -1. */
int sandbox_find_bwrap(char *out);

/* A fresh read-only descriptor of the plugin's copy (its own offset). */
int sandbox_reopen_copy(const sandbox_plan *s);

#endif /* HARNESS_SANDBOX_INTERNAL_H */
