/* SPDX-License-Identifier: MIT */
/* The JUnit XML report: the Ant / Jenkins / Surefire format CI systems
 * read (tests/reports/junit.xsd is the schema it is checked against). */
#include <inttypes.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "reports/escape.h"
#include "reports/model.h"
#include "reports/report_format.h"

static void attr(FILE *f, const char *name, const char *value)
{
    fprintf(f, " %s=\"", name);
    esc_xml(f, value);
    fputc('"', f);
}

/* "2025-01-31T22:04:11" from the store's time, or NULL when it is not one
 * (xs:dateTime without a zone, as the JUnit schema wants). */
static const char *timestamp(const char *t, char *buf)
{
    static const char pattern[] = "dddd-dd-ddTdd:dd:dd";
    for (int i = 0; i < 19; i++) {
        char p = pattern[i], c = t[i];
        if (!c || (p == 'd' ? (c < '0' || c > '9') : c != p))
            return NULL;
    }
    memcpy(buf, t, 19);
    buf[19] = '\0';
    return buf;
}

/* One line per class count and per finding with its first reproducer. */
static void failure_text(const report_model *m, const report_key *k, FILE *f)
{
    char line[1024];
    size_t first, n;
    report_claim_counts(m, k, &first, &n);
    for (size_t i = first; i < first + n; i++) {
        const report_count *c = &m->counts[i];
        if (!strcmp(c->cls, "match"))
            continue;
        snprintf(line, sizeof line, "%s: %" PRId64 " elements, %" PRId64 " cases\n", c->cls,
                 c->elements, c->cases);
        esc_xml(f, line);
    }
    for (size_t i = 0; i < m->n_findings; i++) {
        const report_finding *x = &m->findings[i];
        if (!report_same_claim(&x->k, k) || x->emulation_only)
            continue; /* seen only under emulation: not a failure's cause */
        snprintf(line, sizeof line, "finding: signature " STORE_REF_SIGNATURE "%" PRId64 " %s %s, %" PRId64
                                    " times in this run%s\n",
                 x->signature_id, x->cls, x->operand_class, x->occurrences_run,
                 x->is_new ? " (new)" : x->reopened ? " (reopened: it was fixed)" : "");
        esc_xml(f, line);
        if (!x->n_repros)
            continue;
        const report_repro *r = &x->repros[0];
        snprintf(line, sizeof line, "  reproducer " STORE_REF_REPRODUCER "%" PRId64
                                    ": case %s, A %s / B %s", r->id, r->case_id, r->a_shape,
                 r->b_shape);
        esc_xml(f, line);
        if (r->has_element) {
            snprintf(line, sizeof line, ", element %" PRId64, r->element);
            esc_xml(f, line);
        }
        if (r->expected || r->actual) {
            snprintf(line, sizeof line, ": expected %s, actual %s",
                     r->expected ? r->expected : "-", r->actual ? r->actual : "-");
            esc_xml(f, line);
        }
        if (r->note) {
            fputs(": ", f);
            esc_xml(f, r->note);
        }
        fputs("&#10;  ", f);
        esc_xml(f, report_replay_command(m, r->id, line, sizeof line));
        fputs("&#10;", f);
    }
}

/* The failure message: the verdict and the classes, one line. */
static void failure_message(const report_model *m, const report_key *k, const char *verdict,
                            char *buf, size_t len)
{
    size_t first, n, used = (size_t)snprintf(buf, len, "%s", verdict);
    report_claim_counts(m, k, &first, &n);
    for (size_t i = first; i < first + n && used < len; i++) {
        const report_count *c = &m->counts[i];
        if (strcmp(c->cls, "match"))
            used += (size_t)snprintf(buf + used, len - used, "%s %s %" PRId64,
                                     used > strlen(verdict) ? "," : ":", c->cls, c->elements);
    }
}

static int differs(const report_model *m, const report_key *k)
{
    size_t first, n;
    report_claim_counts(m, k, &first, &n);
    for (size_t i = first; i < first + n; i++)
        if (strcmp(m->counts[i].cls, "match") && m->counts[i].elements + m->counts[i].cases)
            return 1;
    return 0;
}

/* A claim of the suite: a certificate, or (runs without certificates,
 * fuzz) a (variant, dtype) with counts. */
typedef struct claim {
    const report_key *k;
    const report_cert *cert;
    int failed;
} claim;

static size_t claims_of(const report_model *m, const char *impl, claim *out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < m->n_certs && n < max; i++)
        if (!strcmp(m->certs[i].k.implementation, impl))
            out[n++] = (claim){&m->certs[i].k, &m->certs[i], !m->certs[i].held};
    for (size_t i = 0; i < m->n_counts && n < max; i++) {
        const report_key *k = &m->counts[i].k;
        if (strcmp(k->implementation, impl))
            continue;
        size_t j = 0;
        while (j < n && !report_same_claim(out[j].k, k))
            j++;
        if (j == n)
            out[n++] = (claim){k, NULL, differs(m, k)};
    }
    return n;
}

/* The <properties> of implementation impl's suite: the run's record. */
static void properties(const report_model *m, FILE *f, const char *impl)
{
    const report_run *r = &m->run;
    struct {
        const char *name, *value;
    } props[13];
    size_t np = 0;
    char run_id[32], seed[32], shards[256];
    snprintf(run_id, sizeof run_id, "%" PRId64, r->id);
    snprintf(seed, sizeof seed, "%" PRIu64, (uint64_t)r->seed);
    report_shard_label(m, shards, sizeof shards);
    props[np].name = "run", props[np++].value = run_id;
    props[np].name = "kind", props[np++].value = r->kind;
    props[np].name = "status", props[np++].value = r->status;
    props[np].name = "profile", props[np++].value = r->profile;
    if (r->has_seed)
        props[np].name = "seed", props[np++].value = seed;
    props[np].name = "shards", props[np++].value = shards[0] ? shards : "not sharded";
    props[np].name = "divergence", props[np++].value = r->divergence_version;
    props[np].name = "database", props[np++].value = m->db_path;
    props[np].name = "cpu_features", props[np++].value = r->cpu_features;
    props[np].name = "sandbox", props[np++].value = r->sandbox;
    for (size_t p = 0; p < m->n_plugins; p++)
        if (!strcmp(m->plugins[p].name, impl)) {
            props[np].name = "plugin_sha256", props[np++].value = m->plugins[p].sha256;
            break;
        }
    fputs("    <properties>\n", f);
    for (size_t p = 0; p < np; p++) {
        fputs("      <property", f);
        attr(f, "name", props[p].name);
        attr(f, "value", props[p].value);
        fputs("/>\n", f);
    }
    fputs("    </properties>\n", f);
}

/* The <testcase> of claim c of implementation impl. */
static void testcase(const report_model *m, FILE *f, const char *impl, const claim *c)
{
    char buf[2048];
    snprintf(buf, sizeof buf, "divergence.%s", impl);
    fputs("    <testcase", f);
    attr(f, "classname", buf);
    snprintf(buf, sizeof buf, "%s %s%s", c->k->variant, c->k->dtype,
             c->cert ? "" : " (no certificate)");
    attr(f, "name", buf);
    fputs(" time=\"0\"", f);
    if (!c->failed) {
        fputs("/>\n", f);
        return;
    }
    const char *verdict = c->cert ? c->cert->verdict : "differences found";
    fputs(">\n      <failure", f);
    failure_message(m, c->k, verdict, buf, sizeof buf);
    attr(f, "message", buf);
    attr(f, "type", verdict);
    fputs(">", f);
    if (c->cert) {
        snprintf(buf, sizeof buf, "%s under profile %s (%" PRId64 " cases, %" PRId64
                                  " elements)\n",
                 c->cert->verdict, c->cert->profile, c->cert->cases, c->cert->elements);
        esc_xml(f, buf);
    }
    failure_text(m, c->k, f);
    fputs("</failure>\n    </testcase>\n", f);
}

/* Suite i, implementation impl, with its n claims. */
static void testsuite(const report_model *m, FILE *f, size_t i, const char *impl,
                      const claim *claims, size_t n)
{
    const report_run *r = &m->run;
    double secs = r->seconds > 0 ? r->seconds : 0;
    char buf[2048], ts[24];
    size_t failed = 0;
    for (size_t j = 0; j < n; j++)
        failed += (size_t)claims[j].failed;
    snprintf(buf, sizeof buf, "%s %s", impl, report_version_of(m, impl));
    fputs("  <testsuite", f);
    attr(f, "name", buf);
    fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"%.3f\"", n,
            failed, secs);
    if (timestamp(r->started_at, ts))
        attr(f, "timestamp", ts);
    attr(f, "hostname", r->host[0] ? r->host : "unknown");
    fprintf(f, " id=\"%zu\" package=\"divergence\">\n", i);
    properties(m, f, impl);
    for (size_t j = 0; j < n; j++)
        testcase(m, f, impl, &claims[j]);
    fputs("    <system-out>", f);
    snprintf(buf, sizeof buf, "divergence %s run %" PRId64 " (%s), profile %s, host %s, "
                              "command: %s\n",
             r->kind, r->id, r->status, r->profile, r->host, r->args);
    esc_xml(f, buf);
    fputs("</system-out>\n    <system-err></system-err>\n  </testsuite>\n", f);
}

/* A run that is not complete (report_not_complete): a suite of its own,
 * first, with one test case in <error>, so that a CI gate reading the
 * file fails whatever the claims it holds say. */
static void not_complete_suite(const report_model *m, FILE *f, const char *why)
{
    const report_run *r = &m->run;
    char buf[64];
    fputs("  <testsuite name=\"run\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\""
          " time=\"0\" package=\"divergence\">\n    <testcase classname=\"divergence.run\"", f);
    snprintf(buf, sizeof buf, "run %" PRId64 " complete", r->id);
    attr(f, "name", buf);
    fputs(" time=\"0\">\n      <error", f);
    attr(f, "message", why);
    attr(f, "type", r->status);
    fputs(">", f);
    esc_xml(f, why);
    fputs("</error>\n    </testcase>\n  </testsuite>\n", f);
}

int report_junit(const report_model *m, FILE *f)
{
    const report_run *r = &m->run;
    const char *impls[64];
    size_t max_claims = m->n_certs + m->n_counts + 1;
    claim *claims = dvg_calloc(max_claims, sizeof *claims);
    size_t tests = 0, failures = 0;
    size_t n_impls = report_implementations(m, impls, 64);
    if (!claims)
        return -1;
    /* Totals first: the root element carries them. */
    for (size_t i = 0; i < n_impls; i++) {
        size_t n = claims_of(m, impls[i], claims, max_claims);
        tests += n;
        for (size_t j = 0; j < n; j++)
            failures += (size_t)claims[j].failed;
    }
    char why[2048];
    int errors = report_not_complete(m, why, sizeof why) != NULL;
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"divergence\"", f);
    fprintf(f, " tests=\"%zu\" failures=\"%zu\" errors=\"%d\" skipped=\"0\" time=\"%.3f\">\n",
            tests + (size_t)errors, failures, errors, r->seconds > 0 ? r->seconds : 0);
    if (errors)
        not_complete_suite(m, f, why);
    for (size_t i = 0; i < n_impls; i++)
        testsuite(m, f, i, impls[i], claims, claims_of(m, impls[i], claims, max_claims));
    fputs("</testsuites>\n", f);
    dvg_free(claims);
    return 0;
}
