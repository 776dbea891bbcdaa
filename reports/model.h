/* SPDX-License-Identifier: MIT */
/*
 * reports/model.h: what a report shows, read from the store once and
 * shared by every writer (HTML, JUnit XML, Markdown, JSON), with the
 * lookups the writers make over it. Private to reports/. The writers
 * stand on this header alone (and reports/escape.h); none of them calls
 * back into the dispatcher (reports/report.c).
 *
 * Every string is owned by the model (freed by report_model_free) and
 * never NULL unless its comment says so; every string came from the
 * database and is untrusted: writers escape it (reports/escape.h).
 */
#ifndef REPORTS_MODEL_H
#define REPORTS_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include "harness/store/store.h"

/* Reproducers shown per finding (the store keeps up to 8). */
#define REPORT_MAX_REPRODUCERS 3
/* Operand bytes shown per reproducer, as hex. */
#define REPORT_MAX_OPERAND_BYTES 32

typedef struct report_run {
    int64_t id;
    const char *kind, *status, *started_at, *finished_at, *profile, *host, *cpu_features,
        *build_flags, *divergence_version, *args;
    int has_seed;
    int64_t seed;
    int has_shard_index, has_shard_count;
    int64_t shard_index, shard_count;
    double seconds;                 /* finished - started; -1 when unknown */
    const char *sandbox;            /* the worker's sandbox layers (runs.sandbox);
                                       "not recorded" for older runs */
} report_run;

typedef struct report_shard {
    int64_t index, count;
    const char *status, *started_at, *finished_at, *host, *cpu_features, *args;
} report_shard;

typedef struct report_plugin {
    const char *name, *version, *sha256, *path;
} report_plugin;

/* Sorting keys: variant and dtype ids (DVG_VARIANT_COUNT / DVG_DTYPE_COUNT
 * for names this build does not know), class index. */
typedef struct report_key {
    const char *implementation, *variant, *dtype;
    uint32_t variant_id, dtype_id;
} report_key;

typedef struct report_cert {
    report_key k;
    const char *verdict, *profile;
    int64_t cases, elements;
    int held;                       /* verdict starts with CONFORMANT */
} report_cert;

typedef struct report_count {
    report_key k;
    const char *cls;
    uint32_t cls_id;                /* ORACLE_CLASS_*, ORACLE_CLASS_COUNT if unknown */
    int64_t elements, cases;
} report_count;

typedef struct report_hist {
    report_key k;
    int64_t buckets[STORE_ULP_BUCKETS];
    int64_t total;
} report_hist;

typedef struct report_repro {
    int64_t id, run_id;
    const char *case_id, *source, *attrs, *a_shape, *b_shape;
    const char *expected, *actual, *note; /* NULL when none */
    int has_element, has_ulps;
    int64_t element, ulps;
    int64_t a_bytes, b_bytes;
    const char *a_hex, *b_hex;      /* the first REPORT_MAX_OPERAND_BYTES */
} report_repro;

typedef struct report_finding {
    int64_t signature_id;
    report_key k;
    const char *cls, *operand_class, *status;
    uint32_t cls_id;
    int64_t occurrences_run;        /* sightings in this run */
    int64_t occurrences_total, first_run_id, reproducers_dropped;
    int is_new;                     /* first found by this run */
    int64_t reopened;               /* 1: this run saw it again after it
                                       was fixed (schema 10), else 0 */
    int64_t bug_id;                 /* its bug (docs/store.md, "bugs") */
    const char *ranges;             /* its regression and fixed ranges
                                       (`divergence bisect`, schema 7):
                                       "regression 1.4 .. 1.5; fixed 1.6 ..
                                       1.7"; NULL when never bisected */
    report_repro *repros;
    size_t n_repros;
    int emulation_only;             /* every reproducer of the run says
                                       "emulation-only, unconfirmed" (a class
                                       QEMU can fake, seen only under it):
                                       not a bug; shown apart */
} report_finding;

/* A bug: the run's findings that share a fingerprint (docs/store.md,
 * "bugs"), shown before them. members: indices into findings, in their
 * order. */
typedef struct report_bug {
    int64_t id;
    const char *implementation, *cls, *kind, *locus;
    size_t *members;
    size_t n_members;
    size_t n_new;                   /* members first found by this run */
    int emulation_only;             /* every member is */
} report_bug;

/* The words of the section of findings seen only under emulation: that
 * they are not bugs, and how to confirm one on hardware. */
extern const char report_emulation_only_text[];


/* What a claim's cases exercised (docs/store.md, "coverage"). */
typedef struct report_coverage {
    report_key k;
    int64_t cases;
    const char *ranks, *inner_sizes, *broadcast_classes, *size_tiers, *paths;
    const char *alignments; /* "" before schema 5 */
} report_coverage;

typedef struct report_model {
    const char *db_path;            /* as given to report_model_load */
    const char *implementation;     /* the filter, or NULL: all of the run */
    report_run run;
    report_shard *shards;
    size_t n_shards;
    report_plugin *plugins;
    size_t n_plugins;
    report_cert *certs;             /* by implementation, variant, dtype */
    size_t n_certs;
    report_count *counts;           /* by implementation, variant, dtype, class */
    size_t n_counts;
    report_hist *hists;             /* by implementation, variant, dtype */
    size_t n_hists;
    report_finding *findings;       /* by implementation, variant, dtype, class */
    size_t n_findings;
    report_bug *bugs;               /* by id (the order they were first found) */
    size_t n_bugs;
    report_coverage *coverage;      /* by implementation, variant, dtype */
    size_t n_coverage;
    char *pool;                     /* the strings (private) */
} report_model;

/* Bugs and findings that are not emulation-only (the ones shown as bugs). */
size_t report_bugs_confirmed(const report_model *m);
size_t report_findings_confirmed(const report_model *m);

/*
 * Reads run `run_id` from `s` (the data of `implementation` only, when not
 * NULL). db_path: the path to print in replay commands. Returns 0 with
 * *out (free with report_model_free), or -1 with the reason in err.
 */
int report_model_load(store *s, const char *db_path, int64_t run_id, const char *implementation,
                      report_model **out, char *err, size_t errlen);

/* Frees the model. Accepts NULL. */
void report_model_free(report_model *m);

/* Short CSS-ish class of a verdict: "conformant", "conformant-profile",
 * "nonconformant", "crashed", "unsupported" or "other". */
const char *report_verdict_kind(const char *verdict);

/* The replay command of reproducer `id`: "divergence replay --db 'PATH'
 * repro:ID" with the path shell-quoted. Writes buf (len bytes) and returns it. */
const char *report_replay_command(const report_model *m, int64_t id, char *buf, size_t len);

/* Label of a run's shards: "" when unsharded, "shard 1/4", "4 shards
 * merged (0-3 of 4)". Writes buf and returns it. */
const char *report_shard_label(const report_model *m, char *buf, size_t len);

/* ------------------------------------------------------------------------
 * Lookups over a loaded model, shared by the writers.
 * ---------------------------------------------------------------------- */

/* The class counts of claim k (implementation, variant, dtype): they are
 * m->counts[*first .. *first + *n) (counts are sorted by claim); *n is 0
 * when the claim has none. */
void report_claim_counts(const report_model *m, const report_key *k, size_t *first, size_t *n);

/* The ULP-error histogram of claim k, or NULL when it has none. The
 * pointer is into m and lives as long as m. */
const report_hist *report_claim_hist(const report_model *m, const report_key *k);

/* The coverage of claim k, or NULL when the run recorded none (a run
 * other than certify, or of an older schema). Points into m. */
const report_coverage *report_claim_coverage(const report_model *m, const report_key *k);

/* The lists of a claim's coverage, in the order every writer shows them:
 * ranks, inner sizes, broadcast classes, size tiers, paths, data offsets.
 * report_coverage_names[i] is list i's column name ("inner sizes"),
 * report_coverage_keys[i] its JSON key ("inner_sizes");
 * report_coverage_lists writes c's six lists (pointers into the model) to
 * v[]. */
#define REPORT_COVERAGE_LISTS 6
extern const char *const report_coverage_names[REPORT_COVERAGE_LISTS];
extern const char *const report_coverage_keys[REPORT_COVERAGE_LISTS];
void report_coverage_lists(const report_coverage *c, const char **v);

/* Bit i set when list i of some claim's coverage in m is not empty: the
 * columns the HTML and Markdown certificates show (an empty column, such
 * as the paths certify does not record, is left out). */
unsigned report_coverage_used(const report_model *m);

/* What every report of a run that is not complete says first (a JUnit
 * <error> test case, a banner in HTML and Markdown, JSON's
 * "not_complete"): NULL when the run's status is 'complete', else one
 * sentence (plain text, from the database: escape it) that names the
 * status, says that the claims and findings shown are only what the run
 * recorded before it stopped, and, for a run --resume can take up (certify,
 * fuzz), the command that continues it. Writes buf (len bytes). */
const char *report_not_complete(const report_model *m, char *buf, size_t len);

/* Hex digits to bytes: at most cap bytes. Returns how many, or -1 when
 * the text is not hex. */
int report_hex_bytes(const char *hex, uint8_t *out, size_t cap);

/* An operand of a reproducer as values (verdict_bits_text, the one
 * formatter of values): its first elements from `hex` (the stored prefix,
 * REPORT_MAX_OPERAND_BYTES at most) of the `bytes` it holds, "-2147483648
 * (0x80000000)" for one element, "1 (0x01), -2 (0xfe), ... (13 elements)"
 * for more. "" when `dtype` (a tag) is not one this build knows. Writes
 * buf and returns it. */
const char *report_operand_values(const char *dtype, const char *hex, int64_t bytes, char *buf,
                                  size_t len);

/* 1 when a and b name the same (implementation, variant, dtype). */
int report_same_claim(const report_key *a, const report_key *b);

/* *held: the certificates of the model whose claim holds; *total: all of
 * them. */
void report_claim_totals(const report_model *m, size_t *held, size_t *total);

/* The plugin version of an implementation in this run ("" if none). */
const char *report_version_of(const report_model *m, const char *implementation);

/* The distinct implementations of the run (plugins, certificates, counts,
 * findings, in that order of first appearance), at most max, written to
 * out[] as pointers into m. Returns how many. */
size_t report_implementations(const report_model *m, const char **out, size_t max);

/* The rows (variants, in variant order) and columns (dtypes, in dtype
 * order) of the certificate matrix of `impl`, at most max (and
 * REPORT_MAX_AXIS) each, written to rows[] / cols[] as pointers into m,
 * their numbers to *nr / *nc. */
#define REPORT_MAX_AXIS 64
void report_matrix_axes(const report_model *m, const char *impl, const char **rows, size_t *nr,
                        const char **cols, size_t *nc, size_t max);

/* The certificate of (impl, variant, dtype), or NULL. The pointer is into
 * m. */
const report_cert *report_find_cert(const report_model *m, const char *impl, const char *variant,
                                    const char *dtype);

#endif /* REPORTS_MODEL_H */
