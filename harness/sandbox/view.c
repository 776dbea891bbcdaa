/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/view.c: what a worker's file system view holds, resolved
 * as the dynamic loader would, without running the plugin.
 *
 * This file contains view_build, which walks the worker program's and then
 * the plugin's DT_NEEDED closure the way glibc's loader searches for each
 * name (the DT_RPATH of the object and of the objects that loaded it when
 * it has no DT_RUNPATH, LD_LIBRARY_PATH, its DT_RUNPATH, /etc/ld.so.cache,
 * the default folders; $ORIGIN expanded), and records, for each file the
 * loader will open, the symbolic links on its path (so that the same path
 * leads to it inside the view: the merged-/usr links, /etc/alternatives,
 * a plugin folder reached through a link) and the file itself at its
 * link-free path. A candidate is taken only when it is a regular ELF
 * shared object for this machine: a folder the plugin names is never
 * bound, nor a socket, a device, a text file that happens to carry a
 * needed name (a DT_RUNPATH of /etc with a DT_NEEDED of "passwd"), nor
 * anything beside the plugin. The plugin itself is a private copy at its
 * own path (so that $ORIGIN means what it means outside), and so is any
 * file the worker's uid could not reach (view_reachable). The files are
 * opened again, by their real paths and checked to be the same inodes,
 * when a worker starts (view_open). bwrap.c turns the view into
 * bubblewrap's arguments; in reduced mode (no mount namespace) the worker
 * loads the plugin's closure by these paths before the plugin (preload)
 * and Landlock lets it read only them.
 */
#include "harness/sandbox/sandbox_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/alloc.h"

#if defined(__x86_64__)
#define VIEW_TRIPLE "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define VIEW_TRIPLE "aarch64-linux-gnu"
#else
#define VIEW_TRIPLE "unknown-linux-gnu"
#endif

#define VIEW_MAX_OBJECTS 1024
#define VIEW_MAX_LINKS 40 /* symbolic links followed on one path, as the kernel */
/* Files the search for a closure may try: a plugin whose libraries name
 * hundreds of RPATH folders and names that resolve nowhere kept the
 * resolver busy 51 s before any worker or deadline existed (20 libraries,
 * 600 folders, 200 names). Real closures try far fewer: libtorch's
 * adapter, the largest, opens under 900 files in all (strace, O_PATH). */
#define VIEW_MAX_PROBES 20000
#define VIEW_CACHE "/etc/ld.so.cache"

/* One object of the closure. */
typedef struct vobj {
    char *path;   /* the path the loader opens it by */
    int loader;   /* the object whose DT_NEEDED named it; -1: none */
    int plugin;   /* 1: the plugin or one of its dependencies */
    elf_info elf;
    int deps[ELF_MAX_NEEDED]; /* resolved DT_NEEDED, -1 unresolved */
    int state;    /* preload ordering: 0 new, 1 visiting, 2 done */
} vobj;

typedef struct resolver {
    view *v;
    vobj *o;       /* grows: code that may add an object keeps indices */
    uint32_t n, cap;
    const char *ld_library_path;
    elf_cache cache;
    int failed;    /* memory, or the probes' bound (`probes` past it) */
    uint32_t probes; /* files tried (try_library) */
} resolver;

/* ------------------------------------------------------------------------
 * Entries
 * ---------------------------------------------------------------------- */

/* Adds an entry unless one has `dst` already (the first wins). 0 or -1. */
static int add_entry(view *v, int kind, const char *dst, const char *src, const struct stat *st)
{
    for (uint32_t i = 0; i < v->n; i++)
        if (!strcmp(v->e[i].dst, dst))
            return 0;
    if (v->n == v->cap) {
        uint32_t cap = v->cap ? 2 * v->cap : 64;
        view_entry *e = dvg_realloc(v->e, cap * sizeof *e);
        if (!e)
            return -1;
        v->e = e;
        v->cap = cap;
    }
    view_entry *e = &v->e[v->n];
    memset(e, 0, sizeof *e);
    e->kind = kind;
    e->dst = dvg_strdup(dst);
    e->src = dvg_strdup(src);
    if (st) {
        e->dev = st->st_dev;
        e->ino = st->st_ino;
    }
    if (!e->dst || !e->src) {
        dvg_free(e->dst);
        dvg_free(e->src);
        return -1;
    }
    v->n++;
    return 0;
}

/*
 * Walks the folders of the absolute path `path` as the kernel would,
 * recording each symbolic link met (at its link-free place, with its
 * target as written); the last component is not followed. Writes the
 * link-free path of the last component's folder + "/" + its name into
 * canon (PATH_MAX). 0, or -1 (a missing folder, a loop, too long, memory).
 */
static int mirror(view *v, const char *path, char *canon)
{
    char rest[PATH_MAX], cur[PATH_MAX], next[PATH_MAX];
    size_t links = 0;
    if (path[0] != '/' || strlen(path) >= sizeof rest)
        return -1;
    snprintf(rest, sizeof rest, "%s", path);
    cur[0] = '\0';
    char *p = rest;
    for (;;) {
        while (*p == '/')
            p++;
        char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        int last = !slash || !slash[strspn(slash, "/")];
        if (len == 0) {
            /* A path ending in '/': no file named. */
            return -1;
        }
        if (len == 1 && p[0] == '.') {
            if (last)
                return -1;
            p += len;
            continue;
        }
        if (len == 2 && p[0] == '.' && p[1] == '.') {
            char *up = strrchr(cur, '/');
            if (up)
                *up = '\0';
            if (last)
                return -1;
            p += len;
            continue;
        }
        size_t cl = strlen(cur);
        if (cl + 1 + len >= sizeof next)
            return -1;
        memcpy(next, cur, cl);
        next[cl] = '/';
        memcpy(next + cl + 1, p, len);
        next[cl + 1 + len] = '\0';
        if (last) {
            memcpy(canon, next, strlen(next) + 1);
            return 0;
        }
        struct stat st;
        if (lstat(next, &st) != 0)
            return -1;
        if (S_ISDIR(st.st_mode)) {
            memcpy(cur, next, strlen(next) + 1);
            p += len;
            continue;
        }
        if (!S_ISLNK(st.st_mode) || ++links > VIEW_MAX_LINKS)
            return -1;
        char target[PATH_MAX];
        ssize_t t = readlink(next, target, sizeof target - 1);
        if (t <= 0)
            return -1;
        target[t] = '\0';
        if (add_entry(v, VIEW_LINK, next, target, NULL) != 0)
            return -1;
        /* Go on from the target, then what followed the link. */
        char after[PATH_MAX];
        size_t tail = strlen(p + len);
        if ((size_t)t + tail >= sizeof after)
            return -1;
        memcpy(after, target, (size_t)t);
        memcpy(after + t, p + len, tail + 1);
        memcpy(rest, after, (size_t)t + tail + 1);
        p = rest;
        if (target[0] == '/')
            cur[0] = '\0';
    }
}

/* Opens `path` as a regular file without side effects (O_PATH first, so a
 * FIFO or a device is never opened for reading): a read-only descriptor,
 * or -1. *st describes it. */
static int open_regular(const char *path, struct stat *st)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char self[64];
    int rd = -1;
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    if (fstat(fd, st) == 0 && S_ISREG(st->st_mode))
        rd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    close(fd);
    return rd;
}

/* ------------------------------------------------------------------------
 * The loader's search
 * ---------------------------------------------------------------------- */

/* The folder of `path` into dir (PATH_MAX). */
static void folder_of(const char *path, char *dir)
{
    snprintf(dir, PATH_MAX, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir)
        *slash = '\0';
    else if (slash)
        slash[1] = '\0';
}

/* The index of the object that already satisfies `name` (its path or its
 * soname, as the loader matches), or -1. */
static int loaded(const resolver *rs, const char *name)
{
    for (uint32_t i = 0; i < rs->n; i++) {
        const vobj *o = &rs->o[i];
        const char *base = strrchr(o->path, '/');
        if (!strcmp(o->path, name) || (o->elf.soname[0] && !strcmp(o->elf.soname, name)) ||
            (!strchr(name, '/') && base && !strcmp(base + 1, name)))
            return (int)i;
    }
    return -1;
}

/* Adds the object at `path` (opened as fd, described by st and e, which it
 * takes over) to the closure and its file to the view. Its index, or -1. */
static int add_object(resolver *rs, const char *path, int loader, int plugin, int kind,
                      const struct stat *st, elf_info *e)
{
    char canon[PATH_MAX], real[PATH_MAX];
    if (rs->n >= VIEW_MAX_OBJECTS || mirror(rs->v, path, canon) != 0 || !realpath(path, real))
        return -1;
    if (rs->n == rs->cap) {
        uint32_t cap = rs->cap ? 2 * rs->cap : 32;
        vobj *grown = dvg_realloc(rs->o, cap * sizeof *grown);
        if (!grown) {
            rs->failed = 1;
            return -1;
        }
        rs->o = grown;
        rs->cap = cap;
    }
    vobj *o = &rs->o[rs->n];
    memset(o, 0, sizeof *o);
    o->path = dvg_strdup(path);
    if (!o->path || add_entry(rs->v, kind, canon, real, st) != 0) {
        dvg_free(o->path);
        o->path = NULL;
        rs->failed = 1;
        return -1;
    }
    o->loader = loader;
    o->plugin = plugin;
    o->elf = *e;
    memset(e, 0, sizeof *e);
    for (int i = 0; i < ELF_MAX_NEEDED; i++)
        o->deps[i] = -1;
    return (int)rs->n++;
}

/* 1 when path, or what it resolves to, is in a kernel file system
 * (/proc, /sys, /dev): never a library (a DT_RUNPATH of /proc/self with a
 * DT_NEEDED of "exe" would name the harness). */
static int virtual_path(const char *path)
{
    static const char *const roots[] = {"/proc", "/sys", "/dev"};
    char real[PATH_MAX];
    const char *both[2] = {path, realpath(path, real) ? real : path};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
            size_t n = strlen(roots[i]);
            if (!strncmp(both[k], roots[i], n) && (both[k][n] == '/' || !both[k][n]))
                return 1;
        }
    return 0;
}

/* Tries `path` for a library: a regular ELF shared object of this
 * machine, outside /proc, /sys and /dev. Its object index, or -1. */
static int try_library(resolver *rs, const char *path, int loader, int plugin)
{
    struct stat st;
    elf_info e;
    if (++rs->probes > VIEW_MAX_PROBES) {
        rs->failed = 1;
        return -1;
    }
    if (virtual_path(path))
        return -1;
    int fd = open_regular(path, &st);
    if (fd < 0)
        return -1;
    int ok = elf_read(fd, &e) == 0;
    close(fd);
    if (!ok)
        return -1;
    if (e.type != ET_DYN) {
        elf_info_free(&e);
        return -1;
    }
    int i = add_object(rs, path, loader, plugin, VIEW_BIND, &st, &e);
    elf_info_free(&e);
    return i;
}

/* Searches each folder of the colon-separated `list` (with $ORIGIN the
 * folder of `origin_of`) for `name`. Its object index, or -1. */
static int search_list(resolver *rs, const char *list_in, const char *origin_of,
                       const char *name, int loader, int plugin)
{
    /* Copies first: both may point into rs->o, which a find may move. */
    char origin[PATH_MAX], dir[PATH_MAX], path[PATH_MAX], copy[ELF_PATH_MAX];
    folder_of(origin_of, origin);
    snprintf(copy, sizeof copy, "%s", list_in);
    const char *list = copy;
    while (list && *list) {
        const char *end = strchr(list, ':');
        size_t n = end ? (size_t)(end - list) : strlen(list);
        size_t k = 0;
        int skip = n == 0; /* an empty entry is the working folder: not in the view */
        for (size_t i = 0; i < n && !skip;) {
            if (!strncmp(list + i, "$ORIGIN", 7) || !strncmp(list + i, "${ORIGIN}", 9)) {
                size_t len = strlen(origin);
                if (k + len >= sizeof dir)
                    skip = 1;
                else
                    memcpy(dir + k, origin, len);
                k += len;
                i += list[i + 1] == '{' ? 9 : 7;
            } else if (list[i] == '$') {
                skip = 1; /* $LIB, $PLATFORM: not resolved here */
            } else if (k + 1 >= sizeof dir) {
                skip = 1;
            } else {
                dir[k++] = list[i++];
            }
        }
        if (!skip && k < sizeof dir) {
            dir[k] = '\0';
            if (dir[0] == '/' && snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path) {
                int i = try_library(rs, path, loader, plugin);
                if (i >= 0)
                    return i;
            }
        }
        list = end ? end + 1 : NULL;
    }
    return -1;
}

/* Resolves `name`, a DT_NEEDED of object `loader` (-1: the program's own
 * dlopen), as the loader would. Its object index, or -1. */
static int resolve(resolver *rs, const char *name, int loader, int plugin)
{
    int have = loaded(rs, name);
    if (have >= 0)
        return have;
    if (strchr(name, '/'))
        return name[0] == '/' ? try_library(rs, name, loader, plugin) : -1;
    /* What the search needs of the loader, read now: a find moves rs->o. */
    int has_runpath = loader >= 0 && rs->o[loader].elf.has_runpath;
    int nodeflib = loader >= 0 && (rs->o[loader].elf.flags_1 & DF_1_NODEFLIB);
    int i = -1;
    if (!has_runpath)
        for (int k = loader; k >= 0 && i < 0; k = rs->o[k].loader)
            if (rs->o[k].elf.has_rpath)
                i = search_list(rs, rs->o[k].elf.rpath, rs->o[k].path, name, loader, plugin);
    if (i < 0 && rs->ld_library_path)
        i = search_list(rs, rs->ld_library_path, "/", name, loader, plugin);
    if (i < 0 && has_runpath)
        i = search_list(rs, rs->o[loader].elf.runpath, rs->o[loader].path, name, loader, plugin);
    char cached[PATH_MAX];
    if (i < 0 && !nodeflib && elf_cache_lookup(&rs->cache, name, cached, sizeof cached) == 0)
        i = try_library(rs, cached, loader, plugin);
    if (i < 0 && !nodeflib)
        i = search_list(rs, "/lib/" VIEW_TRIPLE ":/usr/lib/" VIEW_TRIPLE ":/lib:/usr/lib", "/",
                        name, loader, plugin);
    return i;
}

/* Resolves the DT_NEEDED of every object from `from` on, breadth first,
 * as the loader loads them. */
static void resolve_all(resolver *rs, uint32_t from)
{
    for (uint32_t k = from; k < rs->n && !rs->failed; k++)
        for (uint32_t j = 0; j < rs->o[k].elf.n_needed; j++) {
            /* resolve() may grow rs->o: index, never keep a pointer. */
            int d = resolve(rs, rs->o[k].elf.needed[j], (int)k, rs->o[k].plugin);
            rs->o[k].deps[j] = d;
        }
}

/* Appends the plugin's objects below k, dependencies first, to v->preload. */
static int order_preload(resolver *rs, int k)
{
    vobj *o = &rs->o[k];
    if (o->state)
        return 0; /* done, or a cycle (the loader breaks it the same way) */
    o->state = 1;
    for (uint32_t j = 0; j < o->elf.n_needed; j++)
        if (o->deps[j] >= 0 && rs->o[o->deps[j]].plugin && order_preload(rs, o->deps[j]) != 0)
            return -1;
    o->state = 2;
    if (k == (int)rs->v->plugin_index)
        return 0; /* the plugin itself: loaded by the worker, not preloaded */
    char *copy = dvg_strdup(o->path);
    if (!copy)
        return -1;
    rs->v->preload[rs->v->n_preload++] = copy;
    return 0;
}

/* ------------------------------------------------------------------------
 * The view
 * ---------------------------------------------------------------------- */

/* The plugin in the view: a private copy at its own path, or, named
 * without a folder, whatever the loader finds by that name; *pi its
 * object's index (-1: nothing placed, and the loader says it cannot open
 * it). 0, -1 out of memory (or too many probes: rs->probes), -2 the path
 * is too long. */
static int place_plugin(resolver *rs, view *v, const char *plugin, int *pi)
{
    char abs[PATH_MAX];
    struct stat st;
    elf_info e;
    *pi = -1;
    if (!strchr(plugin, '/')) {
        v->plugin = dvg_strdup(plugin);
        if (!v->plugin)
            return -1;
        *pi = resolve(rs, plugin, 0, 1);
        return 0;
    }
    if (plugin[0] == '/') {
        if (strlen(plugin) >= sizeof abs)
            return -2;
        memcpy(abs, plugin, strlen(plugin) + 1);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd) ||
            snprintf(abs, sizeof abs, "%s/%s", cwd, plugin) >= (int)sizeof abs)
            return -2;
    }
    v->plugin = dvg_strdup(abs);
    if (!v->plugin)
        return -1;
    int fd = open_regular(abs, &st);
    if (fd >= 0) {
        /* Not an ELF object of this machine (a text file, a truncated
         * one): copied all the same, for the loader's own error. */
        memset(&e, 0, sizeof e);
        if (elf_read(fd, &e) != 0)
            memset(&e, 0, sizeof e);
        close(fd);
        *pi = add_object(rs, abs, 0, 1, VIEW_COPY, &st, &e);
        elf_info_free(&e);
        if (*pi < 0 && rs->failed)
            return -1;
    }
    /* No regular file there (missing, a folder, a device): nothing is
     * placed, and the loader says it cannot open it. */
    return 0;
}

int view_build(view *v, const char *program, const char *plugin, const char *ld_library_path,
               char *err, size_t errlen)
{
    resolver rs;
    struct stat st;
    elf_info e;
    int rc = -1, fd = -1;
    memset(v, 0, sizeof *v);
    memset(&rs, 0, sizeof rs);
    memset(&e, 0, sizeof e);
    rs.v = v;
    rs.ld_library_path = ld_library_path;
    elf_cache_load(VIEW_CACHE, &rs.cache); /* none: the default folders alone */
    rs.cap = 32;
    rs.o = dvg_calloc(rs.cap, sizeof *rs.o);
    if (!rs.o) {
        snprintf(err, errlen, "out of memory");
        goto done;
    }
    /* The worker program (bound at VIEW_PROGRAM), its loader, its closure. */
    fd = open_regular(program, &st);
    if (fd < 0 || elf_read(fd, &e) != 0 || !e.interp[0]) {
        snprintf(err, errlen, "the worker program %s is not a dynamic executable for this machine",
                 program);
        goto done;
    }
    close(fd);
    fd = -1;
    char canon[PATH_MAX], real[PATH_MAX];
    if (add_entry(v, VIEW_BIND, VIEW_PROGRAM, program, &st) != 0)
        goto oom;
    if (mirror(v, e.interp, canon) != 0 || !realpath(e.interp, real) || stat(real, &st) != 0 ||
        add_entry(v, VIEW_BIND, canon, real, &st) != 0) {
        snprintf(err, errlen, "the worker program's loader %s cannot be found", e.interp);
        goto done;
    }
    rs.o[0].path = dvg_strdup(VIEW_PROGRAM);
    if (!rs.o[0].path)
        goto oom;
    rs.o[0].loader = -1;
    rs.o[0].elf = e;
    memset(&e, 0, sizeof e);
    for (int i = 0; i < ELF_MAX_NEEDED; i++)
        rs.o[0].deps[i] = -1;
    rs.n = 1;
    resolve_all(&rs, 0);
    if (stat(VIEW_CACHE, &st) == 0 && S_ISREG(st.st_mode) &&
        (mirror(v, VIEW_CACHE, canon) != 0 || add_entry(v, VIEW_BIND, canon, VIEW_CACHE, &st) != 0))
        goto oom;
    uint32_t first = rs.n;

    int pi, placed = place_plugin(&rs, v, plugin, &pi);
    if (placed == -2)
        goto toolong;
    if (placed)
        goto oom;
    v->plugin_index = pi >= 0 ? (uint32_t)pi : UINT32_MAX;
    if (pi >= 0)
        resolve_all(&rs, first);
    if (rs.failed)
        goto oom;
    /* Reduced mode's preload order: the plugin's closure, each object
     * after its dependencies. */
    v->preload = dvg_calloc(rs.n + 1, sizeof *v->preload);
    if (!v->preload)
        goto oom;
    if (pi >= 0 && order_preload(&rs, pi) != 0)
        goto oom;
    rc = 0;
    goto done;
toolong:
    snprintf(err, errlen, "the plugin's path is too long");
    goto done;
oom:
    if (rs.probes > VIEW_MAX_PROBES)
        snprintf(err, errlen, "the plugin's libraries ask the loader to try more than %d files "
                              "(DT_RPATH and DT_RUNPATH folders times the names they need)",
                 VIEW_MAX_PROBES);
    else
        snprintf(err, errlen, "out of memory resolving the plugin's libraries");
done:
    if (fd >= 0)
        close(fd);
    elf_info_free(&e);
    for (uint32_t i = 0; rs.o && i < rs.n; i++) {
        dvg_free(rs.o[i].path);
        elf_info_free(&rs.o[i].elf);
    }
    dvg_free(rs.o);
    elf_cache_free(&rs.cache);
    if (rc)
        view_free(v);
    return rc;
}

int view_add_objects(view *v, const char *const *paths, uint32_t n, const char *ld_library_path,
                     char *err, size_t errlen)
{
    resolver rs;
    int rc = -1;
    memset(&rs, 0, sizeof rs);
    rs.v = v;
    rs.ld_library_path = ld_library_path;
    elf_cache_load(VIEW_CACHE, &rs.cache);
    for (uint32_t k = 0; k < n && !rs.failed; k++) {
        /* A bare name as the program's dlopen finds it; none: not added. */
        int bare = !strchr(paths[k], '/');
        int i = bare ? resolve(&rs, paths[k], -1, 0) : try_library(&rs, paths[k], -1, 0);
        if (i < 0 && bare)
            continue;
        if (i < 0 && !rs.failed) {
            snprintf(err, errlen, "%s is not an ELF shared object or program for this machine",
                     paths[k]);
            goto done;
        }
        /* A program's loader, at its place (the worker program's, as a rule). */
        const char *interp = i >= 0 ? rs.o[i].elf.interp : "";
        char canon[PATH_MAX], real[PATH_MAX];
        struct stat st;
        if (interp[0] && (mirror(v, interp, canon) != 0 || !realpath(interp, real) ||
                          stat(real, &st) != 0 || add_entry(v, VIEW_BIND, canon, real, &st) != 0)) {
            snprintf(err, errlen, "the loader %s of %s cannot be found", interp, paths[k]);
            goto done;
        }
    }
    resolve_all(&rs, 0);
    if (rs.failed) {
        if (rs.probes > VIEW_MAX_PROBES)
            snprintf(err, errlen, "the grant's libraries ask the loader to try more than %d files",
                     VIEW_MAX_PROBES);
        else
            snprintf(err, errlen, "out of memory resolving the grant's libraries");
        goto done;
    }
    rc = 0;
done:
    for (uint32_t i = 0; rs.o && i < rs.n; i++) {
        dvg_free(rs.o[i].path);
        elf_info_free(&rs.o[i].elf);
    }
    dvg_free(rs.o);
    elf_cache_free(&rs.cache);
    return rc;
}

int view_add_file(view *v, const char *path)
{
    char canon[PATH_MAX], real[PATH_MAX];
    struct stat st;
    if (virtual_path(path) || mirror(v, path, canon) != 0 || !realpath(path, real) ||
        stat(real, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    return add_entry(v, VIEW_BIND, canon, real, &st);
}

int view_add_static(view *v, const char *dst, const char *src, char *err, size_t errlen)
{
    char real[PATH_MAX];
    struct stat st;
    if (!realpath(src, real) || stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s cannot be found: %s", src, strerror(errno));
        return -1;
    }
    if (add_entry(v, VIEW_BIND, dst, real, &st) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

void view_free(view *v)
{
    if (!v)
        return;
    for (uint32_t i = 0; i < v->n; i++) {
        dvg_free(v->e[i].dst);
        dvg_free(v->e[i].src);
    }
    for (uint32_t i = 0; v->preload && i < v->n_preload; i++)
        dvg_free(v->preload[i]);
    dvg_free(v->preload);
    dvg_free(v->e);
    dvg_free(v->plugin);
    memset(v, 0, sizeof *v);
}

int view_open(const view_entry *e)
{
    /* By its real path, no link followed at the end, and only the inode
     * that was resolved: a file swapped since is refused. */
    int fd = open(e->src, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != e->dev || st.st_ino != e->ino) {
        close(fd);
        errno = ESTALE;
        return -1;
    }
    if (e->kind == VIEW_COPY || e->copy) {
        /* Its bytes, for bubblewrap to copy (the O_PATH descriptor cannot
         * be read). */
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
        int rd = open(self, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
        close(fd);
        return rd;
    }
    return fd;
}

int view_reachable(view *v, unsigned uid, unsigned gid)
{
    int p[2];
    if (!v->n)
        return 0;
    uint8_t *ok = dvg_calloc(v->n, 1);
    if (!ok || pipe2(p, O_CLOEXEC) != 0) {
        dvg_free(ok);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        /* The worker's ids, no supplementary group: what it can open. */
        close(p[0]);
        if (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
            setresuid(uid, uid, uid) != 0)
            _exit(1);
        for (uint32_t i = 0; i < v->n; i++) {
            uint8_t yes = 1;
            if (v->e[i].kind == VIEW_BIND) {
                int fd = open(v->e[i].src, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
                yes = fd >= 0;
                if (fd >= 0)
                    close(fd);
            }
            if (write(p[1], &yes, 1) != 1)
                _exit(1);
        }
        _exit(0);
    }
    close(p[1]);
    size_t got = 0;
    while (pid > 0 && got < v->n) {
        ssize_t n = read(p[0], ok + got, v->n - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(p[0]);
    int st = 0;
    if (pid > 0)
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    int rc = pid > 0 && got == v->n ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < v->n; i++)
        v->e[i].copy = v->e[i].kind == VIEW_BIND && !ok[i];
    dvg_free(ok);
    return rc;
}
