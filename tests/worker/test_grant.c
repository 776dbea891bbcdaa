/* SPDX-License-Identifier: MIT */
/*
 * tests/worker/test_grant.c: the grants of the worker's sandbox
 * (harness/sandbox/grant.h) without the hardware they are for. The cuda
 * grant's plan on a fake /dev (DIVERGENCE_TEST_GRANT_ROOT): exactly the
 * NVIDIA nodes the table names, bound read-write where the worker sees
 * /dev, none of the others; its process flags (one process, no RLIMIT_AS);
 * a worker started with it under bubblewrap (the fake nodes bound) that
 * computes in the process that opened (no zygote). The pocl grant's plan:
 * /usr/bin/ld and its loader executable, its environment, exec during
 * open() only. The names and the sandbox line. Reduced mode refuses a
 * grant.
 * Usage: test_grant PLUGIN_DIR
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "harness/sandbox/grant.h"
#include "harness/worker/worker.h"

static char root[64];

/* Creates root/REL (a regular file standing in for a device node). */
static void touch(const char *rel)
{
    char path[256];
    snprintf(path, sizeof path, "%s%s", root, rel);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);
    CHECKF(fd >= 0, "%s", path);
    if (fd >= 0)
        close(fd);
}

/* The plan's entry of `kind` at dst, or NULL. */
static const grant_bind *find(const grant_plan *p, int kind, const char *dst)
{
    for (uint32_t i = 0; i < p->n; i++)
        if (p->b[i].kind == kind && !strcmp(p->b[i].dst, dst))
            return &p->b[i];
    return NULL;
}

static uint32_t count(const grant_plan *p, int kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n; i++)
        n += p->b[i].kind == kind;
    return n;
}

static void test_names(void)
{
    uint32_t bit = 0;
    CHECK(worker_grant_by_name("pocl", &bit) == 0 && bit == WORKER_GRANT_POCL);
    CHECK(worker_grant_by_name("cuda", &bit) == 0 && bit == WORKER_GRANT_CUDA);
    CHECK(worker_grant_by_name("root", &bit) != 0);
    CHECK(worker_grant_by_name("", &bit) != 0);
    char line[WORKER_SANDBOX_TEXT];
    worker_describe_sandbox(WORKER_LAYER_ALL, 0, line, sizeof line);
    CHECKF(!strstr(line, "grant"), "%s", line);
    worker_describe_sandbox(WORKER_LAYER_ALL, WORKER_GRANT_CUDA, line, sizeof line);
    CHECKF(strstr(line, " + grant cuda: /dev/nvidiactl") && !strstr(line, "grant pocl"), "%s",
           line);
    worker_describe_sandbox(WORKER_LAYER_ALL, WORKER_GRANT_ALL, line, sizeof line);
    CHECKF(strstr(line, " + grant pocl: exec /usr/bin/ld during open() only") &&
               strstr(line, " + grant cuda: "),
           "%s", line);
}

static void test_cuda_plan(void)
{
    char dir[256], err[256];
    snprintf(dir, sizeof dir, "%s/dev", root);
    CHECK(mkdir(dir, 0755) == 0);
    touch("/dev/nvidiactl");
    touch("/dev/nvidia0");
    touch("/dev/nvidia3");
    touch("/dev/nvidia-uvm");
    touch("/dev/nvidia-modeset"); /* not named by the grant */
    touch("/dev/nvme0");          /* nor this */
    grant_plan p;
    CHECK(grant_plan_build(&p, WORKER_GRANT_CUDA, root, err, sizeof err) == 0);
    CHECKF(count(&p, GRANT_DEV) == 4, "%u devices", count(&p, GRANT_DEV));
    static const char *const want[] = {"/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia3",
                                       "/dev/nvidia-uvm"};
    for (size_t i = 0; i < 4; i++) {
        const grant_bind *b = find(&p, GRANT_DEV, want[i]);
        char src[256];
        snprintf(src, sizeof src, "%s%s", root, want[i]);
        CHECKF(b && !strcmp(b->src, src), "%s", want[i]);
    }
    CHECK(!find(&p, GRANT_DEV, "/dev/nvidia-modeset") && !find(&p, GRANT_DEV, "/dev/nvme0"));
    CHECK(count(&p, GRANT_PROGRAM) == 0 && p.n_env == 0);
    CHECK((p.flags & GRANT_ONE_PROCESS) && (p.flags & GRANT_NO_AS_LIMIT) &&
          !(p.flags & GRANT_EXEC_IN_OPEN));
    grant_plan_free(&p);
    /* On this host's /dev: only character devices count (none without a
     * GPU; whatever a GPU machine has, each one a node). */
    CHECK(grant_plan_build(&p, WORKER_GRANT_CUDA, "", err, sizeof err) == 0);
    for (uint32_t i = 0; i < p.n; i++) {
        struct stat st;
        if (p.b[i].kind == GRANT_DEV)
            CHECKF(stat(p.b[i].src, &st) == 0 && S_ISCHR(st.st_mode), "%s", p.b[i].src);
    }
    grant_plan_free(&p);
    /* No grant: nothing at all. */
    CHECK(grant_plan_build(&p, 0, root, err, sizeof err) == 0 && p.n == 0 && p.flags == 0);
    grant_plan_free(&p);
}

static void test_pocl_plan(void)
{
    char err[256];
    grant_plan p;
    CHECK(grant_plan_build(&p, WORKER_GRANT_POCL, root, err, sizeof err) == 0);
    CHECK(count(&p, GRANT_DEV) == 0);
    CHECK(p.flags == (GRANT_EXEC_IN_OPEN | GRANT_NEEDS_VIEW));
    int vendors = 0;
    for (uint32_t i = 0; i < p.n_env; i++)
        vendors += !strcmp(p.env[i], "OCL_ICD_VENDORS=libpocl.so.2");
    CHECK(vendors == 1);
    if (access("/usr/bin/ld", X_OK) == 0) {
        /* The linker, and its loader, the only executables. */
        CHECK(find(&p, GRANT_PROGRAM, "/usr/bin/ld") != NULL);
        CHECK(count(&p, GRANT_PROGRAM) == 1 && count(&p, GRANT_LOADER) == 1);
    }
    grant_plan_free(&p);
}

/* A worker with the cuda grant on the fake /dev: it starts in the full
 * sandbox with the nodes bound, and computes where it opened. */
static void test_cuda_worker(const char *plugin_dir)
{
    char plugin[512];
    snprintf(plugin, sizeof plugin, "%s/wp_good.so", plugin_dir);
    setenv("DIVERGENCE_TEST_GRANT_ROOT", root, 1);
    worker_options o;
    worker_options_limited(&o);
    o.grants = WORKER_GRANT_CUDA;
    worker *w = NULL;
    worker_result r = WORKER_RESULT_INIT;
    CHECK(worker_new(plugin, &o, &w) == 0);
    int rc = w ? worker_start(w, &r) : -1;
    char msg[WORKER_MESSAGE_MAX + 64];
    CHECKF(rc == 0, "%s", rc < 0 && w ? worker_errmsg(w) : worker_result_format(&r, msg, sizeof msg));
    const worker_info *in = w ? worker_get_info(w) : NULL;
    CHECK(in && in->grants == WORKER_GRANT_CUDA && in->zygote == 0);
    worker_result_free(&r);
    worker_free(w);
    unsetenv("DIVERGENCE_TEST_GRANT_ROOT");
}

/* Reduced mode (no view): a grant is refused at the start, naming why. */
static void test_reduced(const char *plugin_dir)
{
    char plugin[512], msg[WORKER_MESSAGE_MAX + 64];
    snprintf(plugin, sizeof plugin, "%s/wp_good.so", plugin_dir);
    setenv("DIVERGENCE_TEST_SANDBOX", "reduced", 1);
    worker_options o;
    worker_options_limited(&o);
    o.grants = WORKER_GRANT_POCL;
    worker *w = NULL;
    worker_result r = WORKER_RESULT_INIT;
    CHECK(worker_new(plugin, &o, &w) == 0);
    int rc = w ? worker_start(w, &r) : -1;
    CHECKF(rc == 1 && r.outcome == WORKER_OUT_LOAD_ERROR &&
               strstr(r.message, "a grant needs the full sandbox") &&
               strstr(r.message, "grant pocl"),
           "%d %s", rc, worker_result_format(&r, msg, sizeof msg));
    worker_result_free(&r);
    worker_free(w);
    unsetenv("DIVERGENCE_TEST_SANDBOX");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_grant PLUGIN_DIR\n");
        return 2;
    }
    snprintf(root, sizeof root, "/tmp/test_grant.XXXXXX");
    if (!mkdtemp(root) || chmod(root, 0755) != 0) /* bubblewrap binds it as uid 65534 */
        return 2;
    test_names();
    test_cuda_plan();
    test_pocl_plan();
    test_cuda_worker(argv[1]);
    test_reduced(argv[1]);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "test_grant: cannot remove %s\n", root);
    return check_done("test_grant");
}
