/* SPDX-License-Identifier: MIT */
/*
 * harness/sandbox/elf.c: what the dynamic loader would read of a file,
 * read by the harness without loading it.
 *
 * This file contains the reading of an ELF file's loader-relevant parts
 * (its class, machine and type, PT_INTERP, and from PT_DYNAMIC the
 * DT_NEEDED names, DT_SONAME, DT_RUNPATH, DT_RPATH and DF_1_NODEFLIB) and
 * the lookup of a library name in the loader's cache (/etc/ld.so.cache,
 * glibc's "glibc-ld.so.cache1.1" format). The files may be a hostile
 * plugin's: every size and offset is checked against the file and a
 * maximum before it is used, and nothing is mapped or executed. Used by
 * view.c to resolve what a worker's view must hold.
 */
#include "harness/sandbox/sandbox_internal.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"

#if defined(__x86_64__)
#define ELF_HOST_MACHINE EM_X86_64
#define ELF_CACHE_FLAGS 0x0303 /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
#define ELF_HOST_MACHINE EM_AARCH64
#define ELF_CACHE_FLAGS 0x0a03 /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#else
#define ELF_HOST_MACHINE EM_NONE
#define ELF_CACHE_FLAGS 0
#endif

#define ELF_MAX_PHDRS 256
#define ELF_MAX_DYN 4096

/* Reads the NUL-terminated string at file offset off (at most cap - 1
 * bytes, and not past `end`) into dst. 0, or -1 when there is none. */
static int read_string(int fd, uint64_t off, uint64_t end, char *dst, size_t cap)
{
    if (off >= end)
        return -1;
    size_t want = end - off < cap - 1 ? (size_t)(end - off) : cap - 1;
    ssize_t got = pread(fd, dst, want, (off_t)off);
    if (got <= 0)
        return -1;
    dst[got] = '\0';
    return memchr(dst, '\0', (size_t)got) || (size_t)got == want ? 0 : -1;
}

/* The file offset of virtual address va (one of the PT_LOAD segments'
 * file bytes), or UINT64_MAX. */
static uint64_t file_offset(const Elf64_Phdr *ph, int n, uint64_t va)
{
    for (int i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
            va - ph[i].p_vaddr < ph[i].p_filesz)
            return va - ph[i].p_vaddr + ph[i].p_offset;
    return UINT64_MAX;
}

/* Appends string s to e's names; 0 or -1 (memory, too many). */
static int add_needed(elf_info *e, const char *s)
{
    if (e->n_needed >= ELF_MAX_NEEDED)
        return -1;
    char *copy = dvg_strdup(s);
    if (!copy)
        return -1;
    e->needed[e->n_needed++] = copy;
    return 0;
}

void elf_info_free(elf_info *e)
{
    if (!e)
        return;
    for (uint32_t i = 0; i < e->n_needed; i++)
        dvg_free(e->needed[i]);
    memset(e, 0, sizeof *e);
}

int elf_read(int fd, elf_info *e)
{
    Elf64_Ehdr eh;
    Elf64_Phdr *ph = NULL;
    Elf64_Dyn *dyn = NULL;
    struct stat st;
    int rc = -1;
    memset(e, 0, sizeof *e);
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto done;
    uint64_t size = (uint64_t)st.st_size;
    if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
        eh.e_machine != ELF_HOST_MACHINE || (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) ||
        eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > ELF_MAX_PHDRS ||
        eh.e_phoff > size || size - eh.e_phoff < (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))
        goto done;
    e->type = eh.e_type;
    ph = dvg_malloc(eh.e_phnum * sizeof *ph);
    if (!ph || pread(fd, ph, eh.e_phnum * sizeof *ph, (off_t)eh.e_phoff) !=
                   (ssize_t)(eh.e_phnum * sizeof *ph))
        goto done;
    int n = eh.e_phnum;
    for (int i = 0; i < n; i++) {
        if (ph[i].p_type == PT_INTERP &&
            read_string(fd, ph[i].p_offset, size, e->interp, sizeof e->interp) != 0)
            goto done;
        if (ph[i].p_type != PT_DYNAMIC || dyn)
            continue;
        uint64_t nd = ph[i].p_filesz / sizeof(Elf64_Dyn);
        if (nd > ELF_MAX_DYN)
            nd = ELF_MAX_DYN;
        if (!nd || ph[i].p_offset > size || size - ph[i].p_offset < nd * sizeof(Elf64_Dyn))
            goto done;
        dyn = dvg_malloc(nd * sizeof *dyn);
        if (!dyn || pread(fd, dyn, nd * sizeof *dyn, (off_t)ph[i].p_offset) !=
                        (ssize_t)(nd * sizeof *dyn))
            goto done;
        uint64_t strtab = 0, strsz = 0, runpath = UINT64_MAX, rpath = UINT64_MAX,
                 soname = UINT64_MAX;
        size_t k;
        for (k = 0; k < nd && dyn[k].d_tag != DT_NULL; k++) {
            switch (dyn[k].d_tag) {
            case DT_STRTAB: strtab = dyn[k].d_un.d_ptr; break;
            case DT_STRSZ: strsz = dyn[k].d_un.d_val; break;
            case DT_RUNPATH: runpath = dyn[k].d_un.d_val; break;
            case DT_RPATH: rpath = dyn[k].d_un.d_val; break;
            case DT_SONAME: soname = dyn[k].d_un.d_val; break;
            case DT_FLAGS_1: e->flags_1 = dyn[k].d_un.d_val; break;
            default: break;
            }
        }
        uint64_t stroff = file_offset(ph, n, strtab);
        if (stroff == UINT64_MAX || stroff > size)
            goto done;
        uint64_t strend = strsz && strsz <= size - stroff ? stroff + strsz : size;
        char buf[ELF_PATH_MAX];
        if (runpath != UINT64_MAX &&
            read_string(fd, stroff + runpath, strend, e->runpath, sizeof e->runpath) == 0)
            e->has_runpath = 1;
        if (rpath != UINT64_MAX &&
            read_string(fd, stroff + rpath, strend, e->rpath, sizeof e->rpath) == 0)
            e->has_rpath = 1;
        if (soname != UINT64_MAX)
            read_string(fd, stroff + soname, strend, e->soname, sizeof e->soname);
        for (size_t j = 0; j < k; j++)
            if (dyn[j].d_tag == DT_NEEDED &&
                read_string(fd, stroff + dyn[j].d_un.d_val, strend, buf, sizeof buf) == 0 &&
                buf[0] && add_needed(e, buf) != 0)
                goto done;
    }
    rc = 0;
done:
    if (rc)
        elf_info_free(e);
    dvg_free(ph);
    dvg_free(dyn);
    return rc;
}

/* ------------------------------------------------------------------------
 * /etc/ld.so.cache
 * ---------------------------------------------------------------------- */

/* The new format (glibc >= 2.32 writes only it). */
#define CACHE_MAGIC "glibc-ld.so.cache1.1"

typedef struct cache_header {
    char magic[20];
    uint32_t nlibs;
    uint32_t len_strings;
    uint8_t flags;
    uint8_t pad[3];
    uint32_t extension_offset;
    uint32_t unused[3];
} cache_header;

typedef struct cache_entry {
    int32_t flags;
    uint32_t key, value; /* offsets from the start of the file */
    uint32_t osversion;
    uint64_t hwcap;
} cache_entry;

int elf_cache_load(const char *path, elf_cache *c)
{
    int rc = -1;
    struct stat st;
    memset(c, 0, sizeof *c);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < (off_t)sizeof(cache_header) ||
        st.st_size > (64 << 20))
        goto done;
    size_t size = (size_t)st.st_size;
    c->data = dvg_malloc(size + 1);
    if (!c->data || pread(fd, c->data, size, 0) != (ssize_t)size)
        goto done;
    c->data[size] = '\0'; /* every string ends before it */
    cache_header h;
    memcpy(&h, c->data, sizeof h);
    if (memcmp(h.magic, CACHE_MAGIC, sizeof h.magic) != 0 ||
        h.nlibs > (size - sizeof h) / sizeof(cache_entry))
        goto done;
    c->size = size;
    c->nlibs = h.nlibs;
    rc = 0;
done:
    if (fd >= 0)
        close(fd);
    if (rc)
        elf_cache_free(c);
    return rc;
}

void elf_cache_free(elf_cache *c)
{
    dvg_free(c->data);
    memset(c, 0, sizeof *c);
}

int elf_cache_lookup(const elf_cache *c, const char *name, char *out, size_t cap)
{
    for (uint32_t i = 0; c->data && i < c->nlibs; i++) {
        cache_entry e;
        memcpy(&e, c->data + sizeof(cache_header) + i * sizeof e, sizeof e);
        /* This machine's libraries, and no glibc-hwcaps subfolder: the
         * loader falls back to the default folders when it cannot open
         * the path it picked. */
        if ((e.flags & 0xffff) != ELF_CACHE_FLAGS || e.hwcap != 0 || e.key >= c->size ||
            e.value >= c->size || strcmp((const char *)c->data + e.key, name) != 0)
            continue;
        const char *path = (const char *)c->data + e.value;
        if (strlen(path) >= cap)
            return -1;
        memcpy(out, path, strlen(path) + 1);
        return 0;
    }
    return -1;
}
