/* SPDX-License-Identifier: MIT */
/*
 * This file contains `divergence import`: the finding files of libFuzzer
 * and AFL++ (the raw inputs of fuzz/fuzz_div.c) - the files named, and the
 * regular files of the directories named, in name order - each decoded
 * with the plugins' claims, run through the campaign's job (judged,
 * compared, minimised) on the run engine, one unit per file, committed in
 * file order: its findings stored and its line printed.
 */
#include "harness/run/campaign/campaign_internal.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/alloc.h"
#include "harness/cases/decode.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

/* The files to import, in order (each owned). */
typedef struct file_list {
    char **path;
    size_t n, cap;
} file_list;

static int list_add(file_list *l, const char *path)
{
    if (dvg_grow((void **)&l->path, &l->cap, l->n + 1, sizeof *l->path))
        return -1;
    size_t len = strlen(path) + 1;
    if (!(l->path[l->n] = dvg_malloc(len)))
        return -1;
    memcpy(l->path[l->n++], path, len);
    return 0;
}

static void list_free(file_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        dvg_free(l->path[i]);
    dvg_free(l->path);
    memset(l, 0, sizeof *l);
}

/* A path: a file, or the finding files of a directory (libFuzzer names
 * them crash-*, AFL++ puts them in crashes/id:*; README.txt and dot files
 * are left out). One that cannot be read is listed as it is: its unit
 * says why. 0, or -1 out of memory. */
static int list_path(file_list *l, const char *path)
{
    struct stat st;
    struct dirent **names = NULL;
    int n = stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? scandir(path, &names, NULL, alphasort)
                                                        : -1;
    if (n < 0)
        return list_add(l, path);
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char sub[4096];
        snprintf(sub, sizeof sub, "%s/%s", path, names[i]->d_name);
        struct stat s2;
        if (rc == 0 && names[i]->d_name[0] != '.' && strcmp(names[i]->d_name, "README.txt") &&
            stat(sub, &s2) == 0 && S_ISREG(s2.st_mode))
            rc = list_add(l, sub);
        free(names[i]);
    }
    free(names);
    return rc;
}

/* The engine's run: one file, decoded and run. */
static int import_run(void *ctx, engine_job *ej, uint64_t u, void **result)
{
    shared *sh = ctx;
    job *j = ej->state;
    const char *path = sh->files[u];
    struct stat st;
    if (stat(path, &st)) {
        fprintf(sh->err, "divergence import: %s: no such file or directory\n", path);
        return -1;
    }
    uint8_t *data;
    size_t size;
    const char *why;
    if (campaign_read_file(path, MAX_CORPUS_BYTES, &data, &size, &why)) {
        fprintf(sh->err, "divergence import: %s: %s\n", path, why);
        return -1;
    }
    decode_limits lim;
    decode_limits_default(&lim);
    lim.max_elements = sh->o->max_elements;
    lim.claims = sh->claims;
    lim.n_claims = sh->n_claims;
    divcase c;
    int rc = decode_case(data, size, &lim, &c);
    dvg_free(data);
    case_result *res = rc ? NULL : campaign_result_new();
    if (!res) {
        if (!rc)
            divcase_free(&c);
        fprintf(sh->err, "divergence import: %s: out of memory decoding\n", path);
        return -1;
    }
    *result = res;
    const char *base = strrchr(path, '/');
    snprintf(c.id, sizeof c.id, "import:%.80s", base ? base + 1 : path);
    j->res = res;
    j->case_number = u;
    int v = campaign_run_case(j, &c);
    if (v >= 0)
        snprintf(res->line, sizeof res->line, "  %.500s: %s %s, %s\n", path,
                 oracle_variant_get(c.variant)->name, oracle_dtype_tag(c.dtype),
                 v ? "conforms (nothing to import)" : "departs from the spec");
    else
        fprintf(sh->err, "divergence import: %s: not imported\n", path);
    divcase_free(&c);
    return v < 0 ? -1 : 0;
}

static int import_commit(void *ctx, uint64_t u, void *result)
{
    shared *sh = ctx;
    case_result *res = result;
    (void)u;
    int rc = campaign_record(sh, res);
    if (rc == 0)
        fputs(res->line, sh->out);
    campaign_result_free(res);
    return rc;
}

int campaign_import(const campaign_options *o, char **paths, int n_paths, FILE *out, FILE *err)
{
    shared sh;
    job first;
    file_list files = {0};
    int status = 2, started = 0;
    memset(&first, 0, sizeof first);
    if (campaign_shared_init(&sh, o, "import", out, err))
        goto done;
    started = 1;
    if (campaign_job_start(&sh, &first, -1) || campaign_take_info(&sh, &first))
        goto done;
    for (int i = 0; i < n_paths; i++)
        if (list_path(&files, paths[i])) {
            fprintf(err, "divergence import: out of memory\n");
            goto done;
        }
    if (campaign_open_run(&sh))
        goto done;
    sh.files = (const char *const *)files.path;
    job *one = &first;
    sh.job_of = &one;
    engine_policy p = {.ctx = &sh, .jobs = 1, .units = files.n, .ordered = 1,
                       .job_start = campaign_engine_job_start,
                       .job_free = campaign_engine_job_free, .run = import_run,
                       .commit = import_commit, .discard = campaign_engine_discard};
    int failed = files.n && engine_run(&p, "import", err) != 0;
    campaign_sum_tallies(&sh);
    if (campaign_close_run(&sh, failed ? STORE_RUN_INCOMPLETE : STORE_RUN_COMPLETE) || failed)
        goto done;
    campaign_print_summary(&sh, 0);
    status = sh.n_signatures > sh.n_hazard_signatures ? 1 : 0;
done:
    if (started)
        campaign_job_free(&first);
    sh.job_of = NULL;
    list_free(&files);
    campaign_shared_free(&sh, status == 2);
    return status;
}
