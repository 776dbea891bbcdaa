/* SPDX-License-Identifier: MIT */
/*
 * This file contains the taking up of an interrupted run (--resume): the
 * resume key's comparison, finding the run and checking its plugin build,
 * and reading back what the run had committed (certificates, cases,
 * signatures). See harness/run/engine/resume.h.
 */
#include "harness/run/engine/resume.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "oracle/dtype.h"
#include "oracle/variant.h"

/* Next word of a command line (words are separated by single spaces, as
 * the commands join argv); *len its length. NULL at the end. */
static const char *next_word(const char *p, size_t *len)
{
    while (*p == ' ')
        p++;
    if (!*p)
        return NULL;
    const char *end = strchr(p, ' ');
    *len = end ? (size_t)(end - p) : strlen(p);
    return p;
}

static int word_is(const char *w, size_t n, const char *s)
{
    return strlen(s) == n && !memcmp(w, s, n);
}

int resume_flag_kind(const char *word, size_t len)
{
    static const char *const plain[] = {"--resume", "--no-progress", "--pin", "--no-pin"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (word_is(word, len, plain[i]))
            return RESUME_FLAG_SPEED;
    /* --seconds budgets one session of a fuzz run (--resume may give
     * another), it does not change what the run judges */
    return word_is(word, len, "--jobs") || word_is(word, len, "--seconds") ? RESUME_FLAG_SPEED_VALUE
                                                                           : RESUME_FLAG_JUDGED;
}

/* The next word of `p` that changes what is judged (resume_flag_kind);
 * *len its length. */
static const char *next_judged_word(const char *p, size_t *len)
{
    for (;;) {
        const char *w = next_word(p, len);
        if (!w)
            return NULL;
        int kind = resume_flag_kind(w, *len);
        if (kind == RESUME_FLAG_JUDGED)
            return w;
        p = w + *len;
        if (kind == RESUME_FLAG_SPEED_VALUE && next_word(p, len)) /* --jobs N */
            p = next_word(p, len) + *len;
    }
}

int resume_args_equal(const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    for (;;) {
        const char *wa = next_judged_word(a, &na), *wb = next_judged_word(b, &nb);
        if (!wa || !wb)
            return !wa && !wb;
        if (na != nb || memcmp(wa, wb, na))
            return 0;
        a = wa + na;
        b = wb + nb;
    }
}

typedef struct find_ctx {
    const char *args;
    int64_t found;
} find_ctx;

static int on_run(void *ctx, const store_row *r)
{
    find_ctx *f = ctx;
    const char *args = store_row_text(r, 1);
    if (!f->found && args && resume_args_equal(args, f->args))
        f->found = store_row_int(r, 0);
    return 0;
}

static int on_count(void *ctx, const store_row *r)
{
    *(int64_t *)ctx = store_row_int(r, 0);
    return 0;
}

int resume_take(store *db, const char *kind, const char *args, const char *name,
                const char *version, const char *plugin_path, const char *sha256,
                int64_t *run_id, char *err, size_t errlen)
{
    find_ctx f = {args ? args : "", 0};
    store_param p[2] = {STORE_PARAM_TEXT(kind), STORE_PARAM_INT(0)};
    if (store_select(db,
                     "SELECT id, args FROM read_runs WHERE kind = ?1"
                     " AND status IN ('incomplete', 'interrupted')"
                     " ORDER BY id DESC",
                     p, 1, on_run, &f))
        goto store_error;
    if (!f.found)
        return 0;
    int64_t build = 0, linked = 0;
    if (store_record_plugin_build(db, 0, name, version, plugin_path, sha256, &build))
        goto store_error;
    p[0] = STORE_PARAM_INT(f.found);
    p[1] = STORE_PARAM_INT(build);
    if (store_select(db,
                     "SELECT count(*) FROM read_run_plugins WHERE run_id = ?1 AND plugin_build_id = ?2",
                     p, 2, on_count, &linked))
        goto store_error;
    if (!linked) {
        /* Killed between recording the run and linking its plugin build:
         * the run holds nothing of any build yet, so it is this one's. */
        int64_t any = 0;
        if (store_select(db, "SELECT count(*) FROM read_run_plugins WHERE run_id = ?1", p, 1, on_count,
                         &any))
            goto store_error;
        if (any == 0) {
            if (store_record_plugin_build(db, f.found, name, version, plugin_path, sha256,
                                          &build))
                goto store_error;
            linked = 1;
        }
    }
    if (!linked) {
        snprintf(err, errlen,
                 "%s: run %" PRId64 " was made with another build of %s than %s (name, version "
                 "or SHA-256 differ); it cannot be resumed with this one",
                 store_path(db), f.found, name, plugin_path);
        return -1;
    }
    if (store_resume_run(db, f.found))
        goto store_error;
    *run_id = f.found;
    return 1;
store_error:
    snprintf(err, errlen, "%s", store_errmsg(db));
    return -1;
}

typedef struct cert_ctx {
    int (*fn)(void *ctx, const resume_certificate *c);
    void *ctx;
} cert_ctx;

static int on_certificate(void *ctx, const store_row *r)
{
    cert_ctx *c = ctx;
    resume_certificate rc;
    memset(&rc, 0, sizeof rc);
    const char *v = store_row_text(r, 0), *d = store_row_text(r, 1), *verdict = store_row_text(r, 2);
    const oracle_variant *var = v ? oracle_variant_by_name(v) : NULL;
    rc.dtype = d ? oracle_dtype_by_tag(d) : 0;
    if (!var || !rc.dtype)
        return 0; /* not a claim this build knows: judged again */
    rc.variant = var->id;
    snprintf(rc.verdict, sizeof rc.verdict, "%s", verdict ? verdict : "?");
    int64_t cases = store_row_int(r, 3), elements = store_row_int(r, 4);
    rc.cases = cases > 0 ? (uint64_t)cases : 0;
    rc.elements = elements > 0 ? (uint64_t)elements : 0;
    return c->fn(c->ctx, &rc);
}

int resume_certificates(store *db, int64_t run, const char *implementation,
                        int (*fn)(void *ctx, const resume_certificate *c), void *ctx)
{
    cert_ctx c = {fn, ctx};
    store_param p[2] = {STORE_PARAM_INT(run), STORE_PARAM_TEXT(implementation)};
    return store_select(db,
                        "SELECT variant, dtype, verdict, cases, elements FROM read_certificates"
                        " WHERE run_id = ?1 AND implementation = ?2",
                        p, 2, on_certificate, &c);
}

int resume_cases(store *db, int64_t run, uint64_t *cases)
{
    int64_t n = 0;
    store_param p = STORE_PARAM_INT(run);
    if (store_select(db,
                     "SELECT coalesce(sum(cases), 0) FROM read_counts WHERE run_id = ?1 AND"
                     " class = 'match'",
                     &p, 1, on_count, &n))
        return -1;
    *cases = n > 0 ? (uint64_t)n : 0;
    return 0;
}

typedef struct sig_ctx {
    int (*fn)(void *ctx, uint32_t variant, uint32_t dtype, const char *cls,
              const char *operand_class);
    void *ctx;
} sig_ctx;

static int on_signature(void *ctx, const store_row *r)
{
    sig_ctx *s = ctx;
    const char *v = store_row_text(r, 0), *d = store_row_text(r, 1);
    const char *cls = store_row_text(r, 2), *op = store_row_text(r, 3);
    const oracle_variant *var = v ? oracle_variant_by_name(v) : NULL;
    uint32_t dtype = d ? oracle_dtype_by_tag(d) : 0;
    if (!var || !dtype || !cls)
        return 0;
    return s->fn(s->ctx, var->id, dtype, cls, op ? op : "");
}

int resume_signatures(store *db, int64_t run,
                      int (*fn)(void *ctx, uint32_t variant, uint32_t dtype, const char *cls,
                                const char *operand_class),
                      void *ctx)
{
    sig_ctx s = {fn, ctx};
    store_param p = STORE_PARAM_INT(run);
    return store_select(db,
                        "SELECT s.variant, s.dtype, s.class, s.operand_class FROM read_signatures s"
                        " JOIN read_signature_runs g ON g.signature_id = s.id WHERE g.run_id = ?1"
                        " ORDER BY s.id",
                        &p, 1, on_signature, &s);
}
