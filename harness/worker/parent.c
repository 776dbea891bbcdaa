/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/parent.c: the parent's side of a worker.
 *
 * This file contains the life of a worker as the harness sees it:
 * worker_new and worker_free, the options, the accessors, spawning a
 * child (worker_start: the control block, the socket pair, fork, the
 * pidfd, the hello and its validation; or, when a zygote holds the plugin,
 * a runner forked from it, zygote.c), stopping it (worker_stop), waiting
 * for a child with a deadline, reaping it, and one request-reply round
 * (worker_call_child) that every run goes through. What a child's end
 * means is fault.c's; what a request holds is request.c's.
 */
#include "harness/worker/worker_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/base/text.h"

#include "harness/base/alloc.h"
#include "harness/base/cpumodel.h"

/* Copies what the plugin wrote to its captured stdout/stderr since the
 * last look to the harness's stderr (WORKER_OUTPUT_SHOW bytes per request,
 * about worker_options.output_total per worker), counts it in r (may be NULL) and
 * empties the capture file. */
static void drain_output(worker *w, worker_result *r)
{
    struct stat st;
    if (w->outfd < 0 || fstat(w->outfd, &st) != 0 || st.st_size <= 0)
        return;
    uint64_t size = (uint64_t)st.st_size;
    if (r)
        r->output_bytes += size;
    char buf[WORKER_OUTPUT_SHOW + 256];
    size_t n = 0;
    uint64_t total = w->opt.output_total ? w->opt.output_total : WORKER_OUTPUT_TOTAL;
    if (w->out_shown < total) {
        size_t show = size < WORKER_OUTPUT_SHOW ? (size_t)size : WORKER_OUTPUT_SHOW;
        ssize_t got = pread(w->outfd, buf, show, 0);
        n = got > 0 ? (size_t)got : 0;
        if (n < size) {
            n += (size_t)snprintf(buf + n, sizeof buf - n,
                                  "%s[divergence: the plugin wrote %llu bytes to stdout/stderr "
                                  "in one request; the first %zu are shown]\n",
                                  n && buf[n - 1] != '\n' ? "\n" : "",
                                  (unsigned long long)size, n);
        }
        w->out_shown += n;
        if (w->out_shown >= total && n < sizeof buf)
            n += (size_t)snprintf(buf + n, sizeof buf - n,
                                  "[divergence: %llu bytes of plugin output shown; the rest of "
                                  "this worker's is not]\n",
                                  (unsigned long long)w->out_shown);
    }
    if (n) {
        n = n < sizeof buf ? n : sizeof buf - 1;
        buf[n] = '\0'; /* worker_show_output decodes UTF-8 up to it */
        worker_show_output(w, buf, n);
    }
    if (ftruncate(w->outfd, 0) != 0) {
        /* nothing to do: the next look counts the bytes again */
    }
}

enum { WAIT_REPLY, WAIT_DIED, WAIT_HANG, WAIT_BAD };

/* Waits up to timeout_ms for the child's token `seq`/`op` (its arg into
 * *arg when arg is not NULL). */
static int await_token(worker *w, uint32_t seq, uint32_t op, int64_t timeout_ms,
                       const char **detail, uint32_t *arg)
{
    int64_t deadline = worker_now_ms() + timeout_ms;
    *detail = "";
    for (;;) {
        int64_t left = deadline - worker_now_ms();
        if (left <= 0)
            return WAIT_HANG;
        int slice = (int)(left > 1000 ? 1000 : left);
        if (w->pidfd < 0 && slice > 20)
            slice = 20; /* no pidfd: look at the child between slices */
        struct pollfd p[2] = {{w->sock, POLLIN, 0}, {w->pidfd, POLLIN, 0}};
        int np = w->pidfd >= 0 ? 2 : 1;
        int n = poll(p, (nfds_t)np, slice);
        if (n < 0 && errno != EINTR) {
            *detail = "poll failed";
            return WAIT_BAD;
        }
        if (n > 0 && (p[0].revents & POLLIN)) {
            token t;
            ssize_t got = recv(w->sock, &t, sizeof t, MSG_DONTWAIT | MSG_TRUNC);
            if (got == 0)
                goto dying;
            if (got < 0) {
                if (errno == EAGAIN || errno == EINTR)
                    continue;
                goto dying;
            }
            if (got != (ssize_t)sizeof t || t.magic != TOKEN_MAGIC || t.seq != seq ||
                t.op != op) {
                *detail = "the worker sent a malformed or out-of-order message";
                return WAIT_BAD;
            }
            if (arg)
                *arg = t.arg;
            return WAIT_REPLY;
        }
        if (n > 0 && (p[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
            goto dying;
        if (n > 0 && np == 2 && p[1].revents)
            goto dying;
        if (np == 1 && worker_child_exited(w))
            goto dying;
    }
dying:
    /* The channel closed: the child should be exiting. */
    if (worker_wait_exit(w, deadline))
        return WAIT_DIED;
    *detail = "the worker closed its channel but kept running";
    return WAIT_BAD;
}

/* Sends the request in ctl->req and waits for its reply. Returns 0 with
 * the reply in ctl->rep, or 1 after filling r with the child's end. */
int worker_call_child(worker *w, uint32_t op, uint32_t stage, worker_result *r)
{
    uint32_t seq = ++w->seq;
    w->ctl->req.op = op;
    w->ctl->req.seq = seq;
    w->ctl->req.stage = stage;
    int sent = wire_send_token(w->sock, seq, op);
    const char *detail = "";
    int got;
    if (sent != 0) {
        /* Dead already (a thread of the plugin, between calls). */
        got = worker_wait_exit(w, worker_now_ms() + w->opt.timeout_ms) ? WAIT_DIED : WAIT_BAD;
        detail = "the worker stopped reading requests";
        stage = WORKER_STAGE_IDLE;
    } else {
        got = await_token(w, seq, op, w->opt.timeout_ms, &detail, NULL);
    }
    drain_output(w, r);
    if (got == WAIT_REPLY)
        return 0;
    worker_lose_child(w, got == WAIT_HANG ? 1 : got == WAIT_BAD ? 2 : 0, stage, detail, r);
    return 1;
}

/* Receives the hello that follows its token and validates it; fills
 * w->info. 0, -1 with r, or -2 (memory: worker_errmsg). */
/* The field of the worker's description h that is malformed, or NULL. */
static const char *hello_bad_field(const ctl_hello *h)
{
    const char *bad = NULL;
    if (memchr(h->name, 0, sizeof h->name) == NULL || !h->name[0])
        bad = "name";
    else if (memchr(h->version, 0, sizeof h->version) == NULL)
        bad = "version";
    else if (h->n_claims > WORKER_MAX_CLAIMS)
        bad = "n_claims";
    else if (h->abi_major != DVG_ABI_MAJOR)
        bad = "abi_major";
    else if (h->n_isa_levels > WORKER_MAX_ISA_LEVELS)
        bad = "n_isa_levels";
    for (uint32_t i = 0; !bad && i < h->n_isa_levels; i++)
        if (!memchr(h->isa_name[i], 0, sizeof h->isa_name[i]) || !h->isa_name[i][0] ||
            !memchr(h->isa_x86[i], 0, sizeof h->isa_x86[i]))
            bad = "ISA level";
    return bad;
}

/* w->info from the checked description h: its strings sanitized, the
 * layers and grants from what the harness saw and set up, never from h. */
static void hello_take_info(worker *w, const ctl_hello *h)
{
    worker_info *info = &w->info;
    memset(info, 0, sizeof *info);
    memcpy(info->version, h->version, sizeof info->version);
    {
        char name[WORKER_NAME_MAX];
        memcpy(name, h->name, sizeof name);
        text_sanitize_inplace(name, sizeof name);
        worker_implementation_name(name, w->config, info->name, sizeof info->name);
    }
    text_sanitize_inplace(info->version, sizeof info->version);
    info->descriptor_size = h->descriptor_size;
    info->abi_major = h->abi_major;
    info->abi_minor = h->abi_minor;
    info->deviations = h->deviations;
    info->int_div_zero_value = h->int_div_zero_value;
    info->n_claims = h->n_claims;
    /* What the plugin shares memory with cannot say how it was confined:
     * both from what the harness saw from outside. */
    info->confined = w->opt.confine && (w->layers & WORKER_LAYER_SECCOMP);
    info->layers = w->layers;
    info->grants = w->opt.grants;
    info->fp_at_open = h->fp_at_open & (WORKER_FP_OTHER * 2 - 1);
    info->zygote = h->zygote == 1;
    snprintf(info->cpu_model, sizeof info->cpu_model, "%s", cpum_get(w->emu_model)->name);
    memcpy(info->claims, h->claims, h->n_claims * sizeof h->claims[0]);
    info->capabilities = h->capabilities;
    info->open_with = h->open_with == 1;
    info->n_isa_levels = h->n_isa_levels;
    for (uint32_t i = 0; i < h->n_isa_levels; i++) {
        memcpy(info->isa_levels[i].name, h->isa_name[i], sizeof info->isa_levels[i].name);
        memcpy(info->isa_levels[i].x86_level, h->isa_x86[i], sizeof info->isa_levels[i].x86_level);
        text_sanitize_inplace(info->isa_levels[i].name, sizeof info->isa_levels[i].name);
        text_sanitize_inplace(info->isa_levels[i].x86_level, sizeof info->isa_levels[i].x86_level);
    }
}

static int take_hello(worker *w, worker_result *r)
{
    ctl_hello *h = dvg_malloc(sizeof *h);
    int rc = -1;
    if (!h) {
        worker_set_err(w, "out of memory");
        return -2;
    }
    struct pollfd p = {w->sock, POLLIN, 0};
    ssize_t n = -1;
    if (poll(&p, 1, (int)(w->opt.timeout_ms > 5000 ? 5000 : w->opt.timeout_ms)) == 1)
        do
            n = recv(w->sock, h, sizeof *h, MSG_DONTWAIT | MSG_TRUNC);
        while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof *h) {
        r->outcome = WORKER_OUT_PROTOCOL;
        r->stage = WORKER_STAGE_LOAD;
        worker_set_msg(r, "the worker sent no whole description after its hello");
        goto done;
    }
    text_sanitize_inplace(h->message, sizeof h->message);
    int open_failed = 0;
    if (h->load_error != WORKER_LOAD_NONE) {
        r->outcome = WORKER_OUT_LOAD_ERROR;
        r->load_error = h->load_error < WORKER_LOAD_COUNT_ ? h->load_error : WORKER_LOAD_SETUP;
        r->stage = h->load_stage == WORKER_STAGE_OPEN ? WORKER_STAGE_OPEN : WORKER_STAGE_LOAD;
        wire_copy_text(r->message, sizeof r->message, h->message);
        /* open() failed after the descriptor passed its checks: what it
         * said is kept (worker_get_descriptor). */
        if (h->load_error != WORKER_LOAD_OPEN)
            goto done;
        open_failed = 1;
    }
    const char *bad = hello_bad_field(h);
    if (bad && open_failed)
        goto done;
    if (bad) {
        r->outcome = WORKER_OUT_PROTOCOL;
        r->stage = WORKER_STAGE_LOAD;
        worker_set_msg(r, "the worker's description has a bad %s", bad);
        goto done;
    }
    /* Checked again here: the plugin shares the memory the hello was in. */
    char why[WORKER_MESSAGE_MAX - 32];
    if (wire_check_claims(h->claims, h->n_claims, why, sizeof why) != 0) {
        if (open_failed)
            goto done;
        r->outcome = WORKER_OUT_LOAD_ERROR;
        r->load_error = WORKER_LOAD_DESCRIPTOR;
        r->stage = WORKER_STAGE_LOAD;
        worker_set_msg(r, "descriptor %s", why);
        goto done;
    }
    hello_take_info(w, h);
    w->has_info = open_failed ? 2 : 1;
    rc = open_failed ? -1 : 0;
done:
    dvg_free(h);
    return rc;
}

static void stop_runner(worker *w);

/* Appends text to the set-up's strings at *at; returns where it went. */
static uint32_t put_string(char *strings, size_t *at, const char *text)
{
    uint32_t here = (uint32_t)*at;
    memcpy(strings + *at, text, strlen(text) + 1);
    *at += strlen(text) + 1;
    return here;
}

/* The control block of a new worker: a memfd (its descriptor into
 * *ctlfd) sealed at its size, mapped at w->ctl, with the set-up the
 * worker program reads. 0, or -1 with worker_errmsg. */
static int make_ctl(worker *w, int *ctlfd)
{
    const char *plugin = w->sb.mode == LAUNCH_OFF ? w->path : w->sb.view.plugin;
    int reduced = w->sb.mode == LAUNCH_REDUCED;
    uint32_t n_preload = reduced ? w->sb.view.n_preload : 0;
    size_t strings = strlen(plugin) + 1 + strlen(w->config) + 1;
    for (uint32_t i = 0; i < n_preload; i++)
        strings += 2 * (strlen(w->sb.view.preload[i]) + 1); /* loaded first, and read */
    strings += strlen(plugin) + 1;
    for (uint32_t i = 0; i < w->sb.grant.n; i++)
        strings += strlen(w->sb.grant.b[i].dst) + 1;
    /* Emulated: the emulator, the program, the model; in reduced mode
     * Landlock's reads gain the program's closure (the emulator opens it
     * as a file after Landlock is in force). */
    int emulated = w->emu_model != CPUM_NATIVE;
    const char *emulator = emulated ? (w->sb.mode == LAUNCH_FULL ? VIEW_EMULATOR : w->sb.emulator) : "";
    const char *program = w->sb.mode == LAUNCH_FULL ? VIEW_PROGRAM : w->sb.program;
    const char *emu_cpu = emulated ? cpum_get(w->emu_model)->qemu : "";
    uint32_t n_closure = 0;
    strings += strlen(emulator) + strlen(program) + strlen(emu_cpu) + 3;
    for (uint32_t i = 0; reduced && emulated && i < w->sb.view.n; i++)
        if (w->sb.view.e[i].kind == VIEW_BIND) {
            strings += strlen(w->sb.view.e[i].src) + 1;
            n_closure++;
        }
    size_t off = (sizeof(ctl_block) + 63) / 64 * 64;
    w->ctl_size = (off + strings + w->page - 1) / w->page * w->page;
    int fd = memfd_create("", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    void *ctl = MAP_FAILED;
    if (fd < 0 || ftruncate(fd, (off_t)w->ctl_size) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0 ||
        (ctl = mmap(NULL, w->ctl_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
        worker_set_err(w, "cannot make the control block: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    w->ctl = ctl;
    ctl_setup *su = &w->ctl->setup;
    char *str = (char *)ctl + off;
    size_t at = 0;
    su->magic = SETUP_MAGIC;
    su->mode = (uint32_t)w->sb.mode;
    su->page = (uint32_t)w->page;
    su->timeout_ms = w->opt.timeout_ms;
    su->quiet = w->opt.quiet;
    su->capture_output = w->opt.capture_output;
    su->confine = w->opt.confine;
    su->no_zygote = w->opt.no_zygote;
    su->keeper = w->sb.keeper;
    su->limit_cpu_s = w->opt.limit_cpu_s;
    su->limit_nproc = w->opt.limit_nproc;
    su->limit_as_bytes = w->opt.limit_as_bytes;
    su->limit_fsize_bytes = w->opt.limit_fsize_bytes;
    su->threads = w->opt.threads;
    memcpy(su->isa, w->opt.isa, sizeof su->isa);
    su->isa[sizeof su->isa - 1] = '\0';
    su->plugin_at = put_string(str, &at, plugin);
    su->config_at = put_string(str, &at, w->config);
    su->n_preload = n_preload;
    su->preload_at = (uint32_t)at;
    for (uint32_t i = 0; i < n_preload; i++)
        put_string(str, &at, w->sb.view.preload[i]);
    /* Landlock's reads in reduced mode: the copy and the libraries. */
    su->n_read = reduced ? n_preload + 1 + n_closure : 0;
    su->read_at = (uint32_t)at;
    if (reduced) {
        put_string(str, &at, plugin);
        for (uint32_t i = 0; i < n_preload; i++)
            put_string(str, &at, w->sb.view.preload[i]);
        for (uint32_t i = 0; emulated && i < w->sb.view.n; i++)
            if (w->sb.view.e[i].kind == VIEW_BIND)
                put_string(str, &at, w->sb.view.e[i].src);
    }
    /* A grant's: Landlock's execute right, its devices. */
    su->grant_flags = grant_flags(w->opt.grants);
    su->exec_at = (uint32_t)at;
    for (uint32_t i = 0; i < w->sb.grant.n; i++)
        if (w->sb.grant.b[i].kind == GRANT_PROGRAM || w->sb.grant.b[i].kind == GRANT_LOADER) {
            put_string(str, &at, w->sb.grant.b[i].dst);
            su->n_exec++;
        }
    su->dev_at = (uint32_t)at;
    for (uint32_t i = 0; i < w->sb.grant.n; i++)
        if (w->sb.grant.b[i].kind == GRANT_DEV) {
            put_string(str, &at, w->sb.grant.b[i].dst);
            su->n_dev++;
        }
    su->emulator_at = put_string(str, &at, emulator);
    su->program_at = put_string(str, &at, program);
    su->emu_cpu_at = put_string(str, &at, emu_cpu);
    su->strings_off = off;
    su->strings_size = at;
    *ctlfd = fd;
    return 0;
}

/* Checks a worker that said READY from outside (attest.c): its layers,
 * --sandbox strict, the run's floor; sets its memory limit. 0; 1 with r (a
 * load error: strict); -1 with worker_errmsg (the run must end). */
static int vet_worker(worker *w, uint32_t inner, worker_result *r)
{
    char why[512], have[WORKER_LAYERS_TEXT];
    w->wpid = launch_worker_pid(w);
    w->layers = w->wpid > 0 ? attest_worker(&w->sb, w->wpid, inner, why, sizeof why) : 0;
    if (w->wpid <= 0 || why[0]) {
        worker_set_err(w, "cannot check the worker's sandbox from outside: %s",
                       w->wpid <= 0 ? "its process id is unknown" : why);
        return -1;
    }
    if (w->opt.sandbox == WORKER_SANDBOX_STRICT &&
        (w->layers & WORKER_LAYER_ALL) != WORKER_LAYER_ALL) {
        r->outcome = WORKER_OUT_LOAD_ERROR;
        r->load_error = WORKER_LOAD_SETUP;
        r->stage = WORKER_STAGE_LOAD;
        worker_set_msg(r, "--sandbox strict: the kernel allows only %s",
                       worker_describe_layers(w->layers, have, sizeof have));
        return 1;
    }
    if (w->sb.mode != LAUNCH_OFF && attest_floor(w->layers, why, sizeof why) != 0) {
        worker_set_err(w, "%s", why);
        return -1;
    }
    if (w->sb.cg.have && w->opt.limit_as_bytes &&
        cg_set_memory(&w->sb.cg, cg_memory_usage(&w->sb.cg) + w->opt.limit_as_bytes) != 0) {
        worker_set_err(w, "cannot set the worker's memory limit: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Makes the control block and the channel and launches the worker
 * program. 0, or -1 with worker_errmsg. */
static int spawn_program(worker *w)
{
    int sv[2] = {-1, -1}, ctlfd = -1;
    if (make_ctl(w, &ctlfd) != 0)
        return -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        worker_set_err(w, "socketpair: %s", strerror(errno));
        close(ctlfd);
        worker_release_child(w);
        return -1;
    }
    if (launch_spawn(w, sv[1], ctlfd) != 0) {
        close(sv[0]);
        close(sv[1]);
        close(ctlfd);
        worker_release_child(w);
        return -1;
    }
    close(sv[1]);
    close(ctlfd);
    w->sock = sv[0];
    w->spawns++;
    w->loads++;
    w->seq = 0;
    return 0;
}

/* The launched program's handshake: READY once its sandbox is set up
 * (then the check from outside and GO), HELLO once the plugin loaded and
 * opened. 0 with the HELLO in the control block; otherwise the value
 * worker_start returns (1 with r: the plugin's doing; -1 with
 * worker_errmsg: the host's or the harness's). */
static int await_load(worker *w, worker_result *r)
{
    const char *detail = "";
    /* The sandbox's set-up is the harness's own work and may be slow on a
     * loaded machine (namespaces, mounts; under a sanitizer); only the load
     * that follows it runs against the plugin's timeout. */
    uint32_t inner = 0;
    int got = await_token(w, 0, OP_READY, WORKER_SETUP_MS, &detail, &inner);
    if (got == WAIT_REPLY) {
        int v = vet_worker(w, inner, r);
        if (v != 0) {
            worker_reap_child(w);
            worker_release_child(w);
            return v;
        }
        got = wire_send_token(w->sock, 0, OP_GO) == 0
                  ? await_token(w, 0, OP_HELLO,
                                w->opt.load_timeout_ms ? w->opt.load_timeout_ms
                                                       : w->opt.timeout_ms,
                                &detail, NULL)
                  : WAIT_DIED;
    } else {
        /* No READY: what bubblewrap or the launch said is the reason, and
         * the host's doing, not the plugin's (no plugin code ran): the
         * run ends rather than go on with less (worker.h, the floor). */
        char text[WORKER_MESSAGE_MAX - 64];
        launch_setup_text(w, text, sizeof text);
        if (text[0]) {
            worker_reap_child(w);
            worker_release_child(w);
            worker_set_err(w, "the worker's sandbox could not be set up: %s", text);
            return -1;
        }
    }
    drain_output(w, r);
    if (got != WAIT_REPLY) {
        uint32_t stage = __atomic_load_n(&w->ctl->cur_stage, __ATOMIC_SEQ_CST);
        if (stage != WORKER_STAGE_OPEN)
            stage = WORKER_STAGE_LOAD;
        worker_lose_child(w, got == WAIT_HANG ? 1 : got == WAIT_BAD ? 2 : 0, stage, detail, r);
        return 1;
    }
    return 0;
}

/* The child that said HELLO is a zygote: it keeps the loaded plugin and
 * forks a runner per life; the first runner serves the calls. What
 * worker_start returns (r_or_null: its caller's r). */
static int become_zygote(worker *w, worker_result *r_or_null)
{
    w->zpid = w->pid;
    w->zsock = w->sock;
    w->zpidfd = w->pidfd;
    w->zseq = 0;
    w->zshape = w->ctl->map[R_SHAPE];
    w->zstack_top = w->ctl->stack_top;
    w->zstack_limit = w->ctl->stack_limit;
    w->pid = w->wpid = 0;
    w->sock = w->pidfd = -1;
    int f = w->zpidfd < 0 ? -1 : worker_fork_runner(w);
    if (f == -2) {
        worker_stop(w);
        return -1;
    }
    if (f != 0) {
        /* It cannot fork (its atfork handlers, a process limit): load
         * again without a zygote, from now on (worker_info.zygote 0). */
        worker_stop(w);
        w->opt.no_zygote = 1;
        return worker_start(w, r_or_null);
    }
    return 0;
}

int worker_start(worker *w, worker_result *r)
{
    worker_result scratch;
    int rc = -1;
    worker_result *r_or_null = r;
    if (!r) {
        memset(&scratch, 0, sizeof scratch);
        r = &scratch;
    }
    worker_reset_result(r);
    if (w->zpid) {
        /* A fork, not a reload. */
        stop_runner(w);
        int f = worker_fork_runner(w);
        if (f == 0) {
            w->spawns++;
            rc = 0;
            goto done;
        }
        if (f == -2) {
            worker_stop(w);
            goto done;
        }
    }
    worker_stop(w);
    w->has_info = 0;
    if (!w->sb.mode) {
        int prep = launch_prepare(w, r);
        if (prep != 0) {
            rc = prep;
            goto done;
        }
    }
    if (spawn_program(w) != 0)
        goto done;
    rc = await_load(w, r);
    if (rc != 0)
        goto done;
    int t = take_hello(w, r);
    if (t != 0) {
        /* After a load error the child is exiting anyway. */
        worker_reap_child(w);
        worker_release_child(w);
        rc = t == -2 ? -1 : 1;
        goto done;
    }
    if (w->info.zygote) {
        rc = become_zygote(w, r_or_null);
        goto done;
    }
    w->ready = 1;
    rc = 0;
done:
    if (r == &scratch)
        worker_result_free(&scratch);
    return rc;
}

int worker_restart(worker *w, worker_result *r)
{
    return worker_start(w, r);
}

/* Asks the child (with a zygote: the runner) to close its instance and
 * exit, waits up to timeout_ms, then kills and reaps it. */
static void stop_runner(worker *w)
{
    if (!w->pid) {
        worker_release_child(w);
        return;
    }
    if (w->ready && w->sock >= 0) {
        w->ctl->req.op = OP_QUIT;
        w->ctl->req.seq = ++w->seq;
        if (wire_send_token(w->sock, w->seq, OP_QUIT) == 0)
            worker_wait_exit(w, worker_now_ms() + w->opt.timeout_ms);
    }
    worker_reap_child(w);
    worker_release_child(w);
    drain_output(w, NULL);
}

void worker_renew(worker *w)
{
    if (w)
        stop_runner(w);
}

void worker_stop(worker *w)
{
    if (!w)
        return;
    stop_runner(w);
    if (w->zpid) {
        worker_drop_zygote(w);
        worker_release_child(w); /* the control block, no longer held */
        drain_output(w, NULL);
    }
}

/* ------------------------------------------------------------------------
 * The parent: lifetime and requests
 * ---------------------------------------------------------------------- */

/* DIVERGENCE_TEST_SANDBOX's SANDBOX_HOOK_* bits. */
static int test_hook(void)
{
    const char *v = getenv("DIVERGENCE_TEST_SANDBOX");
    int hook = 0;
    while (v && *v) {
        size_t n = strcspn(v, ",");
        if (n == 7 && !strncmp(v, "reduced", 7))
            hook |= SANDBOX_HOOK_REDUCED;
        else if (n == 8 && !strncmp(v, "nocgroup", 8))
            hook |= SANDBOX_HOOK_NOCGROUP;
        v += n + (v[n] == ',');
    }
    return hook;
}

/* plugin_path as an absolute path (a relative one prefixed with the
 * working directory; symbolic links kept, so $ORIGIN means what it means
 * to the caller): the worker runs in its own working directory, and
 * dlopen takes a name without a slash for a library to search for. */
static char *absolute_path(const char *plugin_path)
{
    char cwd[4096];
    if (plugin_path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return dvg_strdup(plugin_path);
    size_t n = strlen(cwd) + strlen(plugin_path) + 2;
    char *abs = dvg_malloc(n);
    if (abs)
        snprintf(abs, n, "%s/%s", cwd, plugin_path);
    return abs;
}

int worker_new(const char *plugin_path, const worker_options *o, worker **out)
{
    worker_options def;
    if (!o) {
        worker_options_default(&def);
        o = &def;
    }
    const char *config = o->config ? o->config : "";
    if (!plugin_path || o->timeout_ms == 0 || strlen(config) > WORKER_CONFIG_MAX ||
        !memchr(o->isa, 0, sizeof o->isa))
        return -1;
    /* No process of the same user (a plugin's, in reduced mode) may read
     * or write the harness's memory through /proc or ptrace. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    worker *w = dvg_calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->memfd = w->rofd = w->sock = w->pidfd = w->outfd = w->zsock = w->zpidfd = -1;
    w->setupfd = w->infofd = w->sb.plugin_copy = -1;
    w->opt = *o;
    w->opt.cpu_model[sizeof w->opt.cpu_model - 1] = '\0';
    w->emu_model = w->opt.cpu_model[0] ? cpum_find(w->opt.cpu_model) : CPUM_NATIVE;
    /* A grant that execs during open() needs the worker's first filter
     * without exec; an emulated worker's is whole before the emulator
     * starts: the two do not go together (worker.h). */
    if (w->emu_model < 0 ||
        (w->emu_model != CPUM_NATIVE && (grant_flags(w->opt.grants) & GRANT_EXEC_IN_OPEN))) {
        dvg_free(w);
        return -1;
    }
    if (w->emu_model != CPUM_NATIVE) {
        /* Under the emulator: no zygote, and deadlines for its pace. */
        w->opt.no_zygote = 1;
        w->opt.timeout_ms = w->opt.timeout_ms > UINT32_MAX / WORKER_EMULATION_SLOWDOWN
                                ? UINT32_MAX
                                : w->opt.timeout_ms * WORKER_EMULATION_SLOWDOWN;
        w->opt.limit_cpu_s = w->opt.limit_cpu_s > UINT32_MAX / WORKER_EMULATION_SLOWDOWN
                                 ? UINT32_MAX
                                 : w->opt.limit_cpu_s * WORKER_EMULATION_SLOWDOWN;
    }
    w->hook = test_hook();
    const char *nz = getenv("DIVERGENCE_NO_ZYGOTE");
    if (nz && nz[0] && strcmp(nz, "0") != 0)
        w->opt.no_zygote = 1;
    /* A grant whose state does not survive fork (a CUDA context). */
    if (grant_flags(w->opt.grants) & GRANT_ONE_PROCESS)
        w->opt.no_zygote = 1;
    if (!w->opt.max_bytes)
        w->opt.max_bytes = WORKER_DEFAULT_MAX_BYTES;
    w->path = absolute_path(plugin_path);
    w->config = dvg_strdup(config);
    w->opt.config = w->config;
    long page = sysconf(_SC_PAGESIZE);
    w->page = page > 0 ? (size_t)page : 4096;
    /* Sealed against shrinking at once (size 0): it only ever grows, and a
     * plugin that truncated it (fd 4) cannot make the parent's mapping
     * fault. F_SEAL_SEAL: nor can it add seals that stop the growth. */
    /* Memfds are named "" : nothing in the worker's /proc names the harness. */
    w->memfd = memfd_create("", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (w->memfd >= 0 && fcntl(w->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0) {
        close(w->memfd);
        w->memfd = -1;
    }
    /* Inputs come from a read-only descriptor: PROT_WRITE cannot be added
     * to a shared mapping of it, so even mprotect cannot unlock them. */
    if (w->memfd >= 0) {
        char self[64];
        snprintf(self, sizeof self, "/proc/self/fd/%d", w->memfd);
        w->rofd = open(self, O_RDONLY | O_CLOEXEC);
    }
    if (w->opt.capture_output && !w->opt.quiet) {
        /* Appended to by the plugin, read and emptied by drain_output. */
        w->outfd = memfd_create("", MFD_CLOEXEC);
        if (w->outfd >= 0)
            fcntl(w->outfd, F_SETFL, O_APPEND);
    }
    if (!w->path || !w->config || w->memfd < 0 || w->rofd < 0 ||
        (w->opt.capture_output && !w->opt.quiet && w->outfd < 0)) {
        worker_free(w);
        return -1;
    }
    *out = w;
    return 0;
}

void worker_free(worker *w)
{
    if (!w)
        return;
    worker_stop(w);
    if (w->arena)
        munmap(w->arena, (size_t)w->arena_size);
    if (w->memfd >= 0)
        close(w->memfd);
    if (w->rofd >= 0)
        close(w->rofd);
    if (w->outfd >= 0)
        close(w->outfd);
    launch_free(w);
    dvg_free(w->path);
    dvg_free(w->config);
    dvg_free(w);
}

const worker_info *worker_get_info(const worker *w)
{
    return w->has_info == 1 ? &w->info : NULL;
}

int worker_info_claims(const worker_info *in, uint32_t variant, uint32_t dtype)
{
    for (uint32_t i = 0; in && i < in->n_claims; i++)
        if (in->claims[i].variant == variant && in->claims[i].dtype == dtype)
            return 1;
    return 0;
}

const worker_info *worker_get_descriptor(const worker *w)
{
    return w->has_info ? &w->info : NULL;
}

int worker_alive(const worker *w)
{
    return w->pid != 0 && w->ready;
}

int worker_ready(worker *w, worker_result *r)
{
    if (worker_alive(w))
        return 0;
    int s = worker_start(w, r);
    if (s == 0)
        worker_reset_result(r);
    return s;
}

int worker_pid(const worker *w)
{
    /* With a zygote, its runner; else the worker program's process (not
     * bubblewrap's or the keeper's, which this process forked). */
    return (int)(w->zpid || !w->wpid ? w->pid : w->wpid);
}

uint64_t worker_spawns(const worker *w)
{
    return w->spawns;
}

uint64_t worker_loads(const worker *w)
{
    return w->loads;
}

const char *worker_errmsg(const worker *w)
{
    return w->err;
}

