/* SPDX-License-Identifier: MIT */
/*
 * This file contains `divergence bisect`'s logic (see bisect.h): the
 * search over a series of builds, the series of a folder, and the
 * bisection of a stored signature - its reproducer replayed on each
 * build chosen (replay.h), its ranges stored (store_set_range).
 */
/* strverscmp: _GNU_SOURCE, defined for the whole build (CMakeLists.txt) */
#include "harness/run/replay/bisect.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness/base/alloc.h"
#include "harness/base/sha256.h"
#include "harness/run/replay/replay.h"
#include "oracle/compare.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

/* ------------------------------------------------------------------------
 * The search.
 * ---------------------------------------------------------------------- */
typedef struct searcher {
    bisect_search *b;
    bisect_probe_fn probe;
    void *ctx;
} searcher;

/* What build i shows, replaying it the first time only. */
static int look(searcher *s, uint32_t i, int *present)
{
    bisect_search *b = s->b;
    if (b->seen[i] == BISECT_UNSEEN) {
        int p = 0;
        if (s->probe(s->ctx, i, &p))
            return -1;
        b->seen[i] = p ? BISECT_PRESENT : BISECT_ABSENT;
        b->replays++;
    }
    *present = b->seen[i] == BISECT_PRESENT;
    return 0;
}

/* A build that shows it: the hint, else the newest, else the others in
 * halving order (n/2, n/4, 3n/4, ...), else the rest, newest first. */
static int find_anchor(searcher *s, int32_t hint)
{
    bisect_search *b = s->b;
    int p;
    if (hint >= 0 && (uint32_t)hint < b->n) {
        if (look(s, (uint32_t)hint, &p))
            return -1;
        if (p)
            return b->anchor = hint, 0;
    }
    if (look(s, b->n - 1, &p))
        return -1;
    if (p)
        return b->anchor = (int32_t)(b->n - 1), 0;
    for (uint64_t parts = 2; parts <= 2 * (uint64_t)b->n; parts *= 2)
        for (uint64_t j = 1; j < parts; j += 2) {
            uint32_t i = (uint32_t)(j * b->n / parts);
            if (b->seen[i] != BISECT_UNSEEN)
                continue;
            if (look(s, i, &p))
                return -1;
            if (p)
                return b->anchor = (int32_t)i, 0;
        }
    for (uint32_t i = b->n; i-- > 0;) {
        if (look(s, i, &p))
            return -1;
        if (p)
            return b->anchor = (int32_t)i, 0;
    }
    return 0;
}

/* Halves (lo, hi) - lo without it (or -1), hi with it for the regression
 * side; lo with it, hi without it (or n) for the fixed side - until they
 * are neighbours. */
static int halve(searcher *s, int32_t *lo, int32_t *hi, int present_high)
{
    while (*hi - *lo > 1) {
        int32_t mid = *lo + (*hi - *lo) / 2;
        int p;
        if (look(s, (uint32_t)mid, &p))
            return -1;
        if (p == present_high)
            *hi = mid;
        else
            *lo = mid;
    }
    return 0;
}

/* 0 when a build's mark contradicts one change on each side of the
 * anchor (absent up to the regression range, present from it to the
 * fixed range, absent after). */
static int consistent(const bisect_search *b)
{
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->seen[i] == BISECT_UNSEEN)
            continue;
        int32_t k = (int32_t)i;
        int want = k >= b->reg_after && (b->fix_after < 0 || k < b->fix_after);
        if ((b->seen[i] == BISECT_PRESENT) != want)
            return 0;
    }
    return 1;
}

int bisect_search_run(bisect_search *b, uint32_t n, int32_t hint, int all, bisect_probe_fn probe,
                      void *ctx)
{
    memset(b, 0, sizeof *b);
    b->anchor = b->reg_before = b->reg_after = b->fix_before = b->fix_after = -1;
    b->monotonic = 1;
    if (n == 0 || n > BISECT_MAX_BUILDS)
        return -1;
    if (!(b->seen = dvg_malloc(n)))
        return -1;
    memset(b->seen, BISECT_UNSEEN, n);
    b->n = n;
    searcher s = {b, probe, ctx};
    int p;
    if (all) {
        for (uint32_t i = 0; i < n; i++)
            if (look(&s, i, &p))
                return -1;
        if (hint >= 0 && (uint32_t)hint < n && b->seen[hint] == BISECT_PRESENT)
            b->anchor = hint;
        else
            for (uint32_t i = n; i-- > 0 && b->anchor < 0;)
                if (b->seen[i] == BISECT_PRESENT)
                    b->anchor = (int32_t)i;
        if (b->anchor < 0)
            return 0;
        int32_t lo = b->anchor, hi = b->anchor;
        while (lo > 0 && b->seen[lo - 1] == BISECT_PRESENT)
            lo--;
        while (hi + 1 < (int32_t)n && b->seen[hi + 1] == BISECT_PRESENT)
            hi++;
        b->reg_before = lo - 1;
        b->reg_after = lo;
        b->fix_before = hi;
        b->fix_after = hi + 1 < (int32_t)n ? hi + 1 : -1;
        b->reg_replays = b->fix_replays = n;
        b->monotonic = consistent(b);
        return 0;
    }
    if (find_anchor(&s, hint))
        return -1;
    if (b->anchor < 0)
        return 0;
    uint32_t found_after = b->replays;

    /* Regression side: the nearest build known to lack it below the
     * anchor, and the nearest known to show it above that one. */
    int32_t lo = -1, hi = b->anchor;
    for (int32_t i = b->anchor - 1; i >= 0; i--)
        if (b->seen[i] == BISECT_ABSENT) {
            lo = i;
            break;
        }
    for (int32_t i = lo + 1; i < b->anchor; i++)
        if (b->seen[i] == BISECT_PRESENT) {
            hi = i;
            break;
        }
    uint32_t before = b->replays;
    if (halve(&s, &lo, &hi, 1))
        return -1;
    b->reg_before = lo;
    b->reg_after = hi;
    b->reg_replays = found_after + (b->replays - before);

    /* Fixed side: the nearest build known to lack it above the anchor
     * (or none: n), and the nearest known to show it below that one. */
    lo = b->anchor;
    hi = (int32_t)n;
    for (int32_t i = b->anchor + 1; i < (int32_t)n; i++)
        if (b->seen[i] == BISECT_ABSENT) {
            hi = i;
            break;
        }
    for (int32_t i = hi - 1; i > b->anchor; i--)
        if (b->seen[i] == BISECT_PRESENT) {
            lo = i;
            break;
        }
    before = b->replays;
    if (halve(&s, &lo, &hi, 0))
        return -1;
    b->fix_before = lo;
    b->fix_after = hi < (int32_t)n ? hi : -1;
    b->fix_replays = found_after + (b->replays - before);
    b->monotonic = consistent(b);
    return 0;
}

void bisect_search_free(bisect_search *b)
{
    if (!b)
        return;
    dvg_free(b->seen);
    b->seen = NULL;
}

/* ------------------------------------------------------------------------
 * Series.
 * ---------------------------------------------------------------------- */
void bisect_series_free(bisect_series *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; i < s->n; i++)
        dvg_free(s->paths[i]);
    dvg_free(s->paths);
    s->paths = NULL;
    s->n = 0;
}

/* Appends a copy of `path`. */
static int series_add(bisect_series *s, const char *path)
{
    if (s->n >= BISECT_MAX_BUILDS)
        return -1;
    char **grown = dvg_realloc(s->paths, (s->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    s->paths = grown;
    if (!(s->paths[s->n] = dvg_strdup(path)))
        return -1;
    s->n++;
    return 0;
}

static int by_version(const void *a, const void *b)
{
    return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* "dir/name" into buf. */
static int join(char *buf, size_t len, const char *dir, const char *name)
{
    int n = snprintf(buf, len, "%s/%s", dir, name);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

int bisect_series_from_dir(bisect_series *s, const char *dir, const char *order, char *err,
                           size_t errlen)
{
    char path[4096];
    struct stat st;
    memset(s, 0, sizeof *s);
    if (order) {
        FILE *f = fopen(order, "r");
        char line[4096];
        unsigned lineno = 0;
        if (!f) {
            snprintf(err, errlen, "%s: %s", order, strerror(errno));
            return -1;
        }
        while (fgets(line, sizeof line, f)) {
            lineno++;
            line[strcspn(line, "\r\n")] = 0;
            char *w = line + strspn(line, " \t");
            if (!*w || *w == '#')
                continue;
            if (join(path, sizeof path, dir, w) || stat(path, &st) != 0) {
                if (strlen(w) >= sizeof path || stat(w, &st) != 0) {
                    snprintf(err, errlen, "%s:%u: no build '%s' in %s", order, lineno, w, dir);
                    goto fail_file;
                }
                snprintf(path, sizeof path, "%s", w);
            }
            if (series_add(s, path)) {
                snprintf(err, errlen, "%s:%u: more than %d builds, or out of memory", order,
                         lineno, BISECT_MAX_BUILDS);
                goto fail_file;
            }
        }
        fclose(f);
        if (!s->n) {
            snprintf(err, errlen, "%s lists no build", order);
            return -1;
        }
        return 0;
    fail_file:
        fclose(f);
        bisect_series_free(s);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, errlen, "%s: %s", dir, strerror(errno));
        return -1;
    }
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so"))
            continue;
        if (join(path, sizeof path, dir, e->d_name) || stat(path, &st) || !S_ISREG(st.st_mode))
            continue;
        if (series_add(s, e->d_name)) {
            snprintf(err, errlen, "%s: more than %d builds, or out of memory", dir,
                     BISECT_MAX_BUILDS);
            closedir(d);
            bisect_series_free(s);
            return -1;
        }
    }
    closedir(d);
    if (!s->n) {
        snprintf(err, errlen, "%s holds no build (*.so)", dir);
        return -1;
    }
    qsort(s->paths, s->n, sizeof *s->paths, by_version);
    for (uint32_t i = 0; i < s->n; i++) {
        char *full = NULL;
        if (join(path, sizeof path, dir, s->paths[i]) || !(full = dvg_strdup(path))) {
            snprintf(err, errlen, "%s: path too long, or out of memory", dir);
            bisect_series_free(s);
            return -1;
        }
        dvg_free(s->paths[i]);
        s->paths[i] = full;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Sessions: one worker per build, kept for the next signature.
 * ---------------------------------------------------------------------- */
typedef struct build_slot {
    char *path;
    char sha256[SHA256_HEX_CHARS]; /* "" until hashed */
    replay r;
    int opened;
    char config[WORKER_NAME_MAX]; /* what r was opened with */
} build_slot;

struct bisect_session {
    store *db;
    int all;
    FILE *out, *err;
    build_slot *slots;
    uint32_t n_slots, cap;
    const char *config; /* bisect_plugin_options */
    const run_isolation *iso;
};

void bisect_plugin_options(bisect_session *bs, const char *config, const run_isolation *iso)
{
    bs->config = config;
    bs->iso = iso;
}

int bisect_open(bisect_session **out_session, store *db, int all, FILE *out, FILE *err)
{
    bisect_session *bs = dvg_calloc(1, sizeof *bs);
    if (!bs)
        return -1;
    bs->db = db;
    bs->all = all;
    bs->out = out;
    bs->err = err;
    *out_session = bs;
    return 0;
}

void bisect_close(bisect_session *bs)
{
    if (!bs)
        return;
    for (uint32_t i = 0; i < bs->n_slots; i++) {
        replay_close(&bs->slots[i].r);
        dvg_free(bs->slots[i].path);
    }
    dvg_free(bs->slots);
    dvg_free(bs);
}

/* The slot of `path`, made on first use. */
static build_slot *slot_of(bisect_session *bs, const char *path)
{
    for (uint32_t i = 0; i < bs->n_slots; i++)
        if (!strcmp(bs->slots[i].path, path))
            return &bs->slots[i];
    if (bs->n_slots == bs->cap) {
        uint32_t cap = bs->cap ? 2 * bs->cap : 16;
        build_slot *grown = dvg_realloc(bs->slots, cap * sizeof *grown);
        if (!grown)
            return NULL;
        bs->slots = grown;
        bs->cap = cap;
    }
    build_slot *b = &bs->slots[bs->n_slots];
    memset(b, 0, sizeof *b);
    if (!(b->path = dvg_strdup(path)))
        return NULL;
    bs->n_slots++;
    return b;
}

/* The build's SHA-256 (hashed once). */
static const char *slot_sha(build_slot *b, char *err, size_t errlen)
{
    if (!b->sha256[0] && sha256_file(b->path, b->sha256, err, errlen))
        return NULL;
    return b->sha256;
}

/* ------------------------------------------------------------------------
 * One signature.
 * ---------------------------------------------------------------------- */
typedef struct sig_info {
    int64_t id;
    char implementation[256], cls[64], operand[64], status[16];
    int found;
} sig_info;

static int on_sig(void *ctx, const store_row *r)
{
    sig_info *s = ctx;
    const char *t;
    snprintf(s->implementation, sizeof s->implementation, "%s",
             (t = store_row_text(r, 0)) ? t : "");
    snprintf(s->cls, sizeof s->cls, "%s", (t = store_row_text(r, 1)) ? t : "");
    snprintf(s->operand, sizeof s->operand, "%s", (t = store_row_text(r, 2)) ? t : "");
    snprintf(s->status, sizeof s->status, "%s", (t = store_row_text(r, 3)) ? t : "");
    s->found = 1;
    return 0;
}

/* What the probe of one signature needs. */
typedef struct probe_ctx {
    bisect_session *bs;
    const sig_info *sig;
    const bisect_series *series;
    const divcase *c;
    int present;       /* set by the sink */
    uint32_t order;    /* replays so far, for the printout */
    const casefile_set *calls; /* the calls its departure needs first, or NULL */
    const char *note;  /* its reproducer's (a context's finding: the context) */
} probe_ctx;

/* The sink: the signature shows when a finding has its class and operand
 * classes (and the profile does not accept it). */
static int on_finding(void *ctx, const divcase *c, const verdict_example *ex)
{
    probe_ctx *p = ctx;
    verdict_words w;
    /* a depends-on-earlier-calls finding shows, after its calls, as the
     * class it was seen as */
    int any = !strcmp(p->sig->cls, oracle_class_name(ORACLE_CLASS_EARLIER_CALLS));
    if (ex->accepted || (!any && strcmp(oracle_class_name(ex->cls), p->sig->cls)))
        return 0;
    verdict_example_words(c->dtype, ex, &w);
    if (!strcmp(w.operand, p->sig->operand))
        p->present = 1;
    return 0;
}

static int probe_build(void *ctx, uint32_t i, int *present)
{
    probe_ctx *p = ctx;
    bisect_session *bs = p->bs;
    build_slot *b = slot_of(bs, p->series->paths[i]);
    if (!b) {
        fprintf(bs->err, "divergence bisect: out of memory\n");
        return -1;
    }
    /* The config of the signature's implementation, unless the session
     * names one; a build opened under another is opened again. */
    char cfg[WORKER_NAME_MAX];
    if (!bs->config && worker_implementation_config(p->sig->implementation, cfg, sizeof cfg)) {
        fprintf(bs->err, "divergence bisect: the config of %s is recorded only as its hash: "
                         "pass --config\n", p->sig->implementation);
        return -1;
    }
    const char *config = bs->config ? bs->config : cfg;
    if (b->opened && strcmp(b->config, config)) {
        replay_close(&b->r);
        b->opened = 0;
    }
    if (!b->opened) {
        snprintf(b->config, sizeof b->config, "%s", config);
        if (replay_open(&b->r, b->path, config, bs->iso)) {
            fprintf(bs->err, "divergence bisect: %s\n", b->r.error);
            return -1;
        }
        b->opened = 1;
    }
    replay_input in;
    replay_input_for(&in, p->c, p->calls, p->sig->cls, p->note);
    p->present = 0;
    if (replay_run(&b->r, &in, on_finding, p) < 0) {
        fprintf(bs->err, "divergence bisect: %s\n", b->r.error);
        return -1;
    }
    const worker_info *wi = replay_plugin(&b->r);
    if (!wi || strcmp(wi->name, p->sig->implementation)) {
        fprintf(bs->err, "divergence bisect: %s is a build of '%s', not of '%s' (sig:%" PRId64
                         ")\n", b->path, wi ? wi->name : "?", p->sig->implementation, p->sig->id);
        return -1;
    }
    *present = p->present;
    fprintf(bs->out, "  replay %u: build %u of %u, %s %s (%s): %s\n", ++p->order, i + 1,
            p->series->n, wi->name, wi->version, b->path, p->present ? "shows it" : "does not");
    return 0;
}

/* The builds of `implementation` that runs of the store loaded, in the
 * order of the first run that loaded each, still at their paths. */
typedef struct seen_ctx {
    bisect_session *bs;
    bisect_series *s;
    int failed;
} seen_ctx;

static int on_seen(void *ctx, const store_row *r)
{
    seen_ctx *x = ctx;
    const char *path = store_row_text(r, 0), *sha = store_row_text(r, 1);
    const char *version = store_row_text(r, 2);
    char hex[SHA256_HEX_CHARS] = "", why[512] = "";
    if (!path || !sha)
        return 0;
    int unreadable = sha256_file(path, hex, why, sizeof why);
    if (unreadable || strcmp(hex, sha)) {
        fprintf(x->bs->err, "divergence bisect: build %s (%.12s) left out: %s\n",
                version ? version : "?", sha,
                unreadable ? why : "its file at that path changed since");
        return 0;
    }
    if (series_add(x->s, path))
        return x->failed = 1;
    return 0;
}

static int seen_series(bisect_session *bs, const char *implementation, bisect_series *s)
{
    static const char *const sql =
        "SELECT b.path, b.sha256, b.version FROM read_plugin_builds b WHERE b.name = ?1"
        " AND EXISTS (SELECT 1 FROM read_run_plugins p WHERE p.plugin_build_id = b.id)"
        " ORDER BY (SELECT min(p.run_id) FROM read_run_plugins p WHERE p.plugin_build_id = b.id),"
        " b.id";
    store_param p = STORE_PARAM_TEXT(implementation);
    seen_ctx x = {bs, s, 0};
    memset(s, 0, sizeof *s);
    if (store_select(bs->db, sql, &p, 1, on_seen, &x)) {
        fprintf(bs->err, "divergence bisect: %s\n",
                x.failed ? "out of memory" : store_errmsg(bs->db));
        bisect_series_free(s);
        return -1;
    }
    return 0;
}

/* "1, 3-4, 7" : the 1-based builds with mark `mark`. */
static void marks_text(const bisect_search *b, int mark, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < b->n; i++) {
        if (b->seen[i] != mark)
            continue;
        uint32_t j = i;
        while (j + 1 < b->n && b->seen[j + 1] == mark)
            j++;
        int n = j > i ? snprintf(buf + used, len - used, "%s%u-%u", used ? ", " : "", i + 1, j + 1)
                      : snprintf(buf + used, len - used, "%s%u", used ? ", " : "", i + 1);
        if (n < 0 || (size_t)n >= len - used)
            return;
        used += (size_t)n;
        i = j;
    }
    if (!used)
        snprintf(buf, len, "none");
}

/* The build id of series build i (probed: its worker knows its name). */
static int build_id(bisect_session *bs, const bisect_series *series, int32_t i, int64_t *id)
{
    build_slot *b = slot_of(bs, series->paths[i]);
    const worker_info *wi = b ? replay_plugin(&b->r) : NULL;
    if (!wi)
        return -1;
    return store_plugin_build(bs->db, 0, wi->name, wi->version, b->path, id);
}

/* "1.5 (build 5 of 8)" for series build i. */
static const char *label(bisect_session *bs, const bisect_series *series, int32_t i, char *buf,
                         size_t len)
{
    if (i < 0) {
        snprintf(buf, len, "(before the first build)");
        return buf;
    }
    build_slot *b = slot_of(bs, series->paths[i]);
    const worker_info *wi = b ? replay_plugin(&b->r) : NULL;
    snprintf(buf, len, "%s (build %d of %u)", wi ? wi->version : series->paths[i], i + 1,
             series->n);
    return buf;
}

/* The series' build the reproducer was recorded with (its sha256), or -1
 * where the series does not have it, into *hint. 0, or -1 (printed). */
static int recorded_build(bisect_session *bs, const bisect_series *series,
                          const store_reproducer *info, int32_t *hint)
{
    char why[512];
    *hint = -1;
    for (uint32_t i = 0; i < series->n && info->plugin_sha256[0] && *hint < 0; i++) {
        build_slot *s = slot_of(bs, series->paths[i]);
        const char *sha = s ? slot_sha(s, why, sizeof why) : NULL;
        if (!sha) {
            fprintf(bs->err, "divergence bisect: %s\n", s ? why : "out of memory");
            return -1;
        }
        if (!strcmp(sha, info->plugin_sha256))
            *hint = (int32_t)i;
    }
    return 0;
}

/* Stores the regression range of search b (and its fixed range, or none)
 * for the signature and prints them. 0, or -1 (printed). */
static int keep_ranges(bisect_session *bs, int64_t signature_id, const bisect_series *series,
                       const bisect_search *b)
{
    char note[640], l1[320], l2[320];
    note[0] = 0;
    if (!b->monotonic) {
        char shows[256], lacks[256];
        marks_text(b, BISECT_PRESENT, shows, sizeof shows);
        marks_text(b, BISECT_ABSENT, lacks, sizeof lacks);
        snprintf(note, sizeof note, "non-monotonic: the replays show it in builds %s and not "
                                    "in %s (of %u)", shows, lacks, b->n);
    }
    store_range reg = {0, 0, series->n, b->reg_replays, b->monotonic, note};
    store_range fix = {0, 0, series->n, b->fix_replays, b->monotonic, note};
    if ((b->reg_before >= 0 && build_id(bs, series, b->reg_before, &reg.before_build_id)) ||
        build_id(bs, series, b->reg_after, &reg.after_build_id) ||
        (b->fix_after >= 0 && (build_id(bs, series, b->fix_before, &fix.before_build_id) ||
                               build_id(bs, series, b->fix_after, &fix.after_build_id))) ||
        store_set_range(bs->db, signature_id, STORE_RANGE_REGRESSION, &reg) ||
        store_set_range(bs->db, signature_id, STORE_RANGE_FIXED, b->fix_after >= 0 ? &fix : NULL)) {
        fprintf(bs->err, "divergence bisect: %s\n", store_errmsg(bs->db));
        return -1;
    }
    fprintf(bs->out, "  regression range: %s .. %s (%u replays)\n",
            label(bs, series, b->reg_before, l1, sizeof l1),
            label(bs, series, b->reg_after, l2, sizeof l2), b->reg_replays);
    if (b->fix_after >= 0)
        fprintf(bs->out, "  fixed range: %s .. %s (%u replays)\n",
                label(bs, series, b->fix_before, l1, sizeof l1),
                label(bs, series, b->fix_after, l2, sizeof l2), b->fix_replays);
    else
        fprintf(bs->out, "  not fixed: the newest build, %s, shows it (%u replays)\n",
                label(bs, series, (int32_t)series->n - 1, l1, sizeof l1), b->fix_replays);
    if (note[0])
        fprintf(bs->out, "  %s\n", note);
    fprintf(bs->out, "  %u replays in all\n", b->replays);
    return 0;
}

int bisect_signature(bisect_session *bs, int64_t signature_id, const bisect_series *series)
{
    static const char *const sql_sig =
        "SELECT implementation, class, operand_class, status FROM read_signatures WHERE id = ?1";
    sig_info sig;
    bisect_series seen;
    bisect_search b;
    casefile_set *calls = NULL;
    divcase c;
    store_reproducer info;
    int64_t repro;
    int rc = -1;
    char why[512];

    memset(&sig, 0, sizeof sig);
    memset(&seen, 0, sizeof seen);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    sig.id = signature_id;
    store_param p = STORE_PARAM_INT(signature_id);
    if (store_select(bs->db, sql_sig, &p, 1, on_sig, &sig)) {
        fprintf(bs->err, "divergence bisect: %s\n", store_errmsg(bs->db));
        return -1;
    }
    if (!sig.found) {
        fprintf(bs->err, "divergence bisect: %s: no signature %" PRId64 "\n", store_path(bs->db),
                signature_id);
        return -1;
    }
    if (strchr(sig.implementation, '|')) {
        fprintf(bs->err, "divergence bisect: sig:%" PRId64 " is a disagreement among the plugins "
                         "%s, not a finding of one implementation: nothing to bisect\n",
                signature_id, sig.implementation);
        return -1;
    }
    if (store_signature_reproducer(bs->db, signature_id, &repro) ||
        store_reproducer_load(bs->db, repro, &c, &info)) {
        fprintf(bs->err, "divergence bisect: %s\n", store_errmsg(bs->db));
        return -1;
    }
    if (!series) {
        if (seen_series(bs, sig.implementation, &seen))
            goto done;
        series = &seen;
    }
    fprintf(bs->out, "sig:%" PRId64 " %s: %s %s %s%s%s, recorded with %s %.12s; %u build%s\n",
            signature_id, sig.implementation,
            oracle_variant_get(c.variant) ? oracle_variant_get(c.variant)->name : "?",
            oracle_dtype_tag(c.dtype), sig.cls, sig.operand[0] ? " " : "", sig.operand,
            info.plugin_version[0] ? info.plugin_version : "an unknown build",
            info.plugin_sha256, series->n, series->n == 1 ? "" : "s");
    if (!series->n) {
        fprintf(bs->err, "divergence bisect: sig:%" PRId64 ": no build of %s to replay\n",
                signature_id, sig.implementation);
        goto done;
    }
    /* The build the reproducer was recorded with, where the series has it. */
    int32_t hint;
    if (recorded_build(bs, series, &info, &hint))
        goto done;
    char *calls_text = NULL;
    if (store_reproducer_calls(bs->db, repro, &calls_text)) {
        fprintf(bs->err, "divergence bisect: %s\n", store_errmsg(bs->db));
        goto done;
    }
    int bad_calls = replay_parse_calls(calls_text, &calls, why, sizeof why);
    dvg_free(calls_text);
    if (bad_calls) {
        fprintf(bs->err, "divergence bisect: repro:%" PRId64 ": %s\n", repro, why);
        goto done;
    }
    probe_ctx pc = {bs, &sig, series, &c, 0, 0, calls, info.note};
    if (bisect_search_run(&b, series->n, hint, bs->all, probe_build, &pc))
        goto done;
    if (hint >= 0 && b.anchor != hint)
        fprintf(bs->out, "  the build it was recorded with (build %d) does not show it again\n",
                hint + 1);
    if (b.anchor < 0) {
        fprintf(bs->out, "  no build of the %u shows it (%u replays): nothing stored\n", series->n,
                b.replays);
        rc = 1;
        goto done;
    }
    if (keep_ranges(bs, signature_id, series, &b))
        goto done;
    rc = 0;
done:
    casefile_set_free(calls);
    bisect_search_free(&b);
    bisect_series_free(&seen);
    divcase_free(&c);
    return rc;
}

/* ------------------------------------------------------------------------
 * The signatures of a night.
 * ---------------------------------------------------------------------- */
typedef struct id_list {
    int64_t *ids;
    uint32_t n, cap;
    int failed;
} id_list;

static int on_id(void *ctx, const store_row *r)
{
    id_list *l = ctx;
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? 2 * l->cap : 64;
        int64_t *grown = dvg_realloc(l->ids, cap * sizeof *grown);
        if (!grown)
            return l->failed = 1;
        l->ids = grown;
        l->cap = cap;
    }
    l->ids[l->n++] = store_row_int(r, 0);
    return 0;
}

int bisect_signatures_since(store *db, int64_t run, int64_t **ids, uint32_t *n)
{
    static const char *const sql =
        "SELECT id FROM read_signatures WHERE (first_run_id > ?1"
        " OR (status = 'fixed' AND fixed_run_id > ?1)) AND implementation NOT LIKE '%|%'"
        " ORDER BY id";
    store_param p = STORE_PARAM_INT(run);
    id_list l = {NULL, 0, 0, 0};
    if (store_select(db, sql, &p, 1, on_id, &l)) {
        dvg_free(l.ids);
        return -1;
    }
    *ids = l.ids;
    *n = l.n;
    return 0;
}
