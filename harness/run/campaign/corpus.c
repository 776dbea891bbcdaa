/* SPDX-License-Identifier: MIT */
/*
 * This file contains the fuzz campaign's corpus: the seed inputs of a
 * directory, each a regular file of at most MAX_CORPUS_BYTES, read once
 * and sorted by name; and the reading of one such file, which import
 * shares.
 */
#include "harness/run/campaign/campaign_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/base/alloc.h"

void corpus_free(corpus *c)
{
    for (size_t i = 0; i < c->n; i++)
        dvg_free(c->data[i]);
    dvg_free(c->data);
    dvg_free(c->size);
    memset(c, 0, sizeof *c);
}

int campaign_read_file(const char *path, size_t max, uint8_t **out, size_t *size, const char **why)
{
    /* Not blocking: a FIFO or a device is refused, not waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    FILE *f = NULL;
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        *why = "not a regular file";
        return -1;
    }
    if (fd < 0 || !(f = fdopen(fd, "rb"))) {
        if (fd >= 0)
            close(fd);
        *why = "cannot open";
        return -1;
    }
    uint8_t *buf = dvg_malloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad || n > max) {
        dvg_free(buf);
        *why = !buf ? "out of memory" : bad ? "read error" : "larger than the limit";
        return -1;
    }
    *out = buf;
    *size = n;
    return 0;
}

int corpus_load(const char *dir, corpus *c, FILE *err)
{
    memset(c, 0, sizeof *c);
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        fprintf(err, "divergence fuzz: corpus %s: cannot read the directory\n", dir);
        return -1;
    }
    int rc = 0;
    c->data = dvg_calloc((size_t)n + 1, sizeof *c->data);
    c->size = dvg_calloc((size_t)n + 1, sizeof *c->size);
    if (!c->data || !c->size)
        rc = -1;
    for (int i = 0; i < n; i++) {
        if (rc == 0 && names[i]->d_name[0] != '.' && c->n < MAX_CORPUS_FILES) {
            char path[4096];
            struct stat st;
            int w = snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
            const char *why = NULL;
            if (w < (int)sizeof path && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (campaign_read_file(path, MAX_CORPUS_BYTES, &c->data[c->n], &c->size[c->n], &why) == 0)
                    c->n++;
                else
                    fprintf(err, "divergence fuzz: corpus file %s skipped: %s\n", path, why);
            }
        }
        free(names[i]);
    }
    free(names);
    if (rc)
        corpus_free(c);
    return rc;
}
