/* SPDX-License-Identifier: MIT */
/*
 * tests/oom/test_certify_oom.c: allocation failure at every step of a
 * certification. A small certify run (one claim, a case file, a few random
 * cases, a database that already holds runs) is repeated with allocation
 * number N failing (harness/base/alloc.h; SQLite's allocations included), for
 * N = 1, 2, ... until a run makes fewer than N allocations. Every run must
 * end cleanly: exit status 2 with a message saying what failed, or 0 when
 * the failure could be absorbed; never a crash, and (under ASan, which the
 * sanitizer pass of scripts/test.sh gives it) never a leak. Every eighth N
 * also fails every allocation after it (sticky). Afterwards the database
 * is sound and a run without injection certifies as before.
 *
 * Usage: test_certify_oom PLUGIN CASES_DIR [STRIDE]
 *
 * STRIDE (default 1) fails only N = 1, 1 + STRIDE, 1 + 2 STRIDE, ...: the
 * suite of every submission samples the allocations (a run makes about
 * 6,400, each a certify run of its own: ten minutes under ASan at
 * STRIDE 1), the long suite (label long, the nightly) fails every one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "harness/base/alloc.h"
#include "harness/run/certify/certify.h"
#include "harness/store/store.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static char db_path[256], template_path[300];

/* Copies file `from` to `to` (libc's heap only). 0 or -1. */
static int copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    char buf[65536];
    size_t n;
    int rc = in && out ? 0 : -1;
    while (!rc && (n = fread(buf, 1, sizeof buf, in)) > 0)
        rc = fwrite(buf, 1, n, out) == n ? 0 : -1;
    if (in)
        fclose(in);
    if (out && fclose(out))
        rc = -1;
    return rc;
}

/* Each injected run starts from the same small database (one run in it):
 * the runs stay equally fast, and each one's damage, if any, is its own. */
static void fresh_db(void)
{
    char side[320];
    snprintf(side, sizeof side, "%s-wal", db_path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db_path);
    unlink(side);
    if (copy_file(template_path, db_path)) {
        fprintf(stderr, "cannot copy %s\n", template_path);
        exit(2);
    }
}

static int certify_once(const char *plugin, const char *cases, char **err_text)
{
    certify_options o;
    certify_options_default(&o);
    o.plugin_path = plugin;
    o.cases_dir = cases;
    o.db_path = db_path;
    o.args = "test_certify_oom";
    o.progress = 0;
    o.random_cases = 3;
    o.shape_paths = 0; /* ~1,000 cases: too many allocations to fail each one */
    o.only.variants[o.only.n_variants++] = DVG_VARIANT_ONNX_DIV_13;
    o.only.dtypes[o.only.n_dtypes++] = DVG_DTYPE_I32;
    char *out_buf = NULL, *err_buf = NULL;
    size_t out_len = 0, err_len = 0;
    FILE *out = open_memstream(&out_buf, &out_len); /* libc's heap, not the hook's */
    FILE *err = open_memstream(&err_buf, &err_len);
    int status = certify_run(&o, out, err);
    fclose(out);
    fclose(err);
    free(out_buf);
    *err_text = err_buf;
    return status;
}

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: test_certify_oom PLUGIN CASES_DIR [STRIDE]\n");
        return 2;
    }
    const char *plugin = argv[1], *cases = argv[2];
    uint64_t stride = argc == 4 ? strtoull(argv[3], NULL, 10) : 1;
    if (stride < 1 || stride > 1000) {
        fprintf(stderr, "test_certify_oom: STRIDE %s: want 1 to 1000\n", argv[3]);
        return 2;
    }
    char dir[] = "/tmp/dvg-oom-XXXXXX";
    if (!mkdtemp(dir))
        return 2;
    snprintf(db_path, sizeof db_path, "%s/oom.db", dir);
    snprintf(template_path, sizeof template_path, "%s/template.db", dir);

    char *text = NULL;
    int base = certify_once(plugin, cases, &text);
    CHECKF(base == 0, "the run without injection: status %d: %s", base, text);
    free(text);
    dvg_alloc_fail_at(0, 0);
    base = certify_once(plugin, cases, &text);
    printf("a run makes %" PRIu64 " allocations\n", dvg_alloc_fail_at(0, 0));
    free(text);
    if (getenv("OOM_COUNT_ONLY"))
        return 0;
    if (copy_file(db_path, template_path))
        return 2;
    char err[512];

    uint64_t n, failed = 0, absorbed = 0, silent = 0, injected = 0;
    int completed = 0;
    for (n = 1; !completed && n < 200000; n += stride) {
        int sticky = n % 8 == 0;
        fresh_db();
        dvg_alloc_fail_at(n, sticky);
        int status = certify_once(plugin, cases, &text);
        uint64_t made = dvg_alloc_fail_at(0, 0);
        if (made < n) {
            completed = 1; /* the run needed fewer than n allocations */
            CHECKF(status == 0, "n=%" PRIu64 ": status %d without a failure: %s", n, status, text);
        } else if (status == 2) {
            injected = n;
            failed++;
            if (!text || !text[0]) {
                silent++;
                fprintf(stderr, "n=%" PRIu64 "%s: status 2 without a message\n", n,
                        sticky ? " (sticky)" : "");
            }
        } else {
            /* The failure was absorbed (a retry, a cache): the run must
             * still be right. */
            injected = n;
            absorbed++;
            CHECKF(status == 0, "n=%" PRIu64 "%s: status %d: %s", n, sticky ? " (sticky)" : "",
                   status, text);
        }
        free(text);
        /* Whatever failed, the file is sound. */
        CHECKF(store_check(db_path, NULL, err, sizeof err) == 0, "n=%" PRIu64 ": %s", n, err);
    }
    CHECKF(completed, "no run completed below n = %" PRIu64, n);
    CHECK(silent == 0);
    int after = certify_once(plugin, cases, &text);
    CHECKF(after == 0, "the run after the injections: status %d: %s", after, text);
    free(text);
    printf("allocation failures injected at N = 1..%" PRIu64 " in steps of %" PRIu64
           " (every N divisible by 8 sticky): %" PRIu64
           " runs ended with a clean error, %" PRIu64 " absorbed the failure\n",
           injected, stride, failed, absorbed);
    int rc = check_done("certify_oom");
    if (rc == 0) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", dir);
    }
    return rc;
}
