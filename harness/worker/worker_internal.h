/* SPDX-License-Identifier: MIT */
/*
 * harness/worker/worker_internal.h: what the files of harness/worker share
 * privately (nothing outside this folder includes it).
 *
 * The harness's client of a worker (dvg_worker), split by concern; the
 * worker program it starts is harness/worker_program/, the sandbox it
 * starts it in harness/sandbox/:
 *   wire.c          the protocol both sides speak (wire.h), with
 *   options.c       worker_options' defaults (both link them: dvg_wire)
 *   probe.c         worker_probe, the harness's side
 *   life.c          a life of the worker program: its start (the
 *                   sandbox's spec, harness/sandbox/sandbox.h; the fork
 *                   and exec), its zygote's runners, its end (reap,
 *                   release)
 *   parent.c        worker_new/free, starting, stopping, one call
 *   output.c        the plugin's output shown escaped and prefixed
 *   fault.c         how the end of a child becomes a worker_result
 *   request.c       what worker_run and the batch runs share: the operand
 *                   arena, requests, reading replies into results
 *   run.c           worker_run: one case, two computes, element flags
 *   batch.c         the batch API (batch.h)
 *   result.c        worker_result: names, reset, free, descriptions
 *
 * The order of a worker's layers, the one place an emulator goes and
 * what a grant changes in the worker program: its private header,
 * harness/worker_program/program.h. The harness's side of a launch
 * (life.c) does everything that allocates before it forks; between fork
 * and exec it only calls what is safe in a child of a threaded process.
 */
#ifndef HARNESS_WORKER_INTERNAL_H
#define HARNESS_WORKER_INTERNAL_H

#include <fenv.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "harness/cases/divcase.h"
#include "harness/sandbox/sandbox.h"
#include "harness/worker/wire.h"
#include "harness/worker/worker.h"
#include "oracle/shape.h"

/* How long a new worker may take to set up its sandbox, before the plugin
 * is loaded (the harness's own work; slow only on a loaded machine). */
#define WORKER_SETUP_MS 60000

struct worker {
    char *path;
    char *config;
    worker_options opt;
    size_t page;

    int memfd;              /* the operand arena, kept across children;
                               sealed against shrinking (a plugin that
                               truncated it would fault the parent) */
    int rofd;               /* a read-only descriptor of it */
    int outfd;              /* capture of the plugin's stdout/stderr, -1 */
    uint64_t out_shown;     /* bytes of it copied to stderr so far */
    uint8_t *arena;         /* parent's mapping of it */
    uint64_t arena_size;
    uint64_t slot_pages[3]; /* the slots of A, B and the output in it
                               (worker_layout_case): the most pages each
                               tensor needed so far; they only grow, so
                               the pages of the arena and the child's
                               mappings of them serve every later case */

    pid_t pid;              /* 0: no child; the process this one forked
                               (bubblewrap, the keeper or the worker
                               program); with a zygote: its runner, which
                               is the zygote's child, not ours */
    pid_t wpid;             /* the worker program's process (the one that
                               serves calls when there is no zygote) */
    int ready;              /* child loaded and open */
    int sock;               /* parent end, -1 */
    int pidfd;              /* -1 when the kernel has none */
    ctl_block *ctl;         /* shared with the current child (and with
                               the zygote and its runners) */
    size_t ctl_size;
    uint32_t seq;
    uint32_t run_seq;       /* the first request of the current worker_run
                               (a late write of an earlier one is another
                               case's: worker_result.late_earlier) */
    char late_case[64];     /* the case of the last compute that returned */
    uint64_t spawns;        /* processes that served calls */
    uint64_t loads;         /* children that loaded the plugin */

    pid_t zpid;             /* the zygote's process this one forked
                               (zygote.c), 0: none */
    int zsock;              /* parent end of its channel, -1 */
    int zpidfd;             /* its pidfd, -1 */
    uint32_t zseq;
    ctl_map zshape;         /* what the zygote wrote of its shape buffer and
                               stack before any runner could change it */
    uint64_t zstack_top, zstack_limit;

    /* life.c */
    sandbox_plan sb;             /* how it is confined (harness/sandbox), set
                               by launch_prepare, kept for every start */
    int hook;               /* SANDBOX_HOOK_*: DIVERGENCE_TEST_SANDBOX */
    int emu_model;          /* cpumodel.h's index; CPUM_NATIVE: none */
    int setupfd;            /* what bubblewrap or the launch says, -1 */
    int infofd;             /* bubblewrap's --info-fd, read end, -1 */
    uint32_t layers;        /* attested for the current life (attest.c) */

    int has_info;
    worker_info info;
    char err[256];
};

/* ------------------------------------------------------------------------
 * life.c: a life's start (launch_*), its zygote's runners, its end
 * ---------------------------------------------------------------------- */

/* The text worker_errmsg returns, from a printf format. */
void worker_set_err(worker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Before a worker's first start: the mode, the programs, the view, the
 * environment, the cgroup, the seccomp program. 0; 1 with r (LOAD_ERROR,
 * SETUP: --sandbox strict and a layer this host cannot give); -1 with
 * worker_errmsg. */
int launch_prepare(worker *w, worker_result *r);

/* Starts the worker program with `chan` (the child's end of the channel)
 * and the control block's memfd ctlfd: sets w->pid (the process forked),
 * w->pidfd. 0 or -1 with worker_errmsg. */
int launch_spawn(worker *w, int chan, int ctlfd);

/* After the worker's READY: its process id as this process sees it (the
 * process bubblewrap or the keeper started), 0 when unknown. */
pid_t launch_worker_pid(worker *w);

/* What bubblewrap or the launch said before the worker ran, sanitized,
 * into buf (cap bytes; "" when nothing). Empties it. */
void launch_setup_text(worker *w, char *buf, size_t cap);

/* After a life of the worker: kills what is left of it (its cgroup) and
 * closes the descriptors of that life. */
void launch_end_life(worker *w);

/* Releases what launch_prepare made (the view, the environment, the
 * copy, the cgroup after killing what is in it). Accepts a worker never
 * prepared. */
void launch_free(worker *w);

/* 1 when the child has exited (not yet reaped, or reaped by someone
 * else); worker_wait_exit waits until it has or `deadline`
 * (worker_now_ms) passes: 1 exited. */
int worker_child_exited(worker *w);
int worker_wait_exit(worker *w, int64_t deadline);

/* Kills what is left of the child's process group, reaps the child and
 * returns its wait status (-1 when it cannot be had). The control block
 * stays mapped for the caller to read; worker_release_child drops it. */
int worker_reap_child(worker *w);

/* Closes the parent's end of the channel and the pidfd and unmaps the
 * control block (kept while a zygote holds it). */
void worker_release_child(worker *w);

/* Asks the zygote (w->zpid) for a runner and makes it the worker's child
 * (pid, sock, pidfd; ready), after clearing the fault, exit and mapping
 * records of the control block. 0; -1 when the zygote made none (it is
 * gone, or cannot fork): drop it and load afresh; -2 when the runner does
 * not show its zygote's layers from outside (worker_errmsg): a harness
 * error, the run ends. */
int worker_fork_runner(worker *w);

/* Kills the runner (w->pid, its pidfd and its process group) and has the
 * zygote reap it: its wait status, or -1 when the zygote did not answer
 * (then the zygote is dropped too). */
int worker_reap_runner(worker *w);

/* Quits the zygote, waits a while, kills its group and reaps it; closes
 * its channel and pidfd. The control block stays mapped. No-op without. */
void worker_drop_zygote(worker *w);

/* ------------------------------------------------------------------------
 * result.c
 * ---------------------------------------------------------------------- */

/* The reply to compute run `run` of case c, in ctl->rep, into r: its
 * leaks, status and the case a late write would name. 1 it computed;
 * 0 it returned an error status (r says which); -1 the worker broke the
 * protocol and was lost (r says how). */
int worker_take_compute_reply(worker *w, const divcase *c, uint32_t stage, int run,
                              worker_result *r);

/* The output_shape call of case c (run.c): r's shape (and has_shape)
 * when the plugin gave a valid one. 1 when it equals `expect` and a
 * compute may follow, 0 when r says why the case ends there (a shape
 * only, with expect NULL: 0). */
int worker_shape_stage(worker *w, const divcase *c, const oracle_shape *expect, worker_result *r);

/* Before a request: starts the child when none runs (worker_start), r
 * reset again after a start that went well. 0 ready, 1 the plugin did not
 * load again (r says how), -1 a harness error (worker_errmsg). */
int worker_ready(worker *w, worker_result *r);

/* Zeroes r for a new request, keeping its buffers, with the "did not
 * happen" values: statuses -1, first_* UINT64_MAX, fault_write,
 * wait_status and exit_code -1. */
void worker_reset_result(worker_result *r);

/* r->message from a printf format (truncated to WORKER_MESSAGE_MAX - 1). */
void worker_set_msg(worker_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------------
 * parent.c
 * ---------------------------------------------------------------------- */

/* Sends the request in ctl->req (op and stage set here, a new seq) and
 * waits up to timeout_ms for its reply. Returns 0 with the reply in
 * ctl->rep, or 1 after filling r with the child's end (worker_lose_child).
 * Drains the captured output into r either way. */
int worker_call_child(worker *w, uint32_t op, uint32_t stage, worker_result *r);

/* ------------------------------------------------------------------------
 * output.c
 * ---------------------------------------------------------------------- */

/* Writes len bytes the plugin printed (buf[len] must be a NUL) to stderr,
 * each line prefixed "plugin NAME: ", every unsafe code point
 * (harness/base/text.h) escaped. */
void worker_show_output(const worker *w, const char *buf, size_t len);

/* ------------------------------------------------------------------------
 * fault.c
 * ---------------------------------------------------------------------- */

/*
 * The child is gone (or must go): reaps it, releases it and fills r (may
 * be NULL) with how it ended. `why` is 0 the child died on its own, 1 the
 * deadline passed (hang), 2 it broke the protocol (`detail` says how).
 * `stage` is the stage of the call in flight.
 */
void worker_lose_child(worker *w, int why, uint32_t stage, const char *detail,
                       worker_result *r);

/* ------------------------------------------------------------------------
 * request.c: what worker_run and the batch runs share
 * ---------------------------------------------------------------------- */

/* Makes the arena at least `need` bytes (mapped at w->arena). 0, or -1
 * with worker_errmsg. */
int worker_fit_arena(worker *w, uint64_t need);

/* A region of nbytes data bytes at arena offset off (page-aligned): with
 * at < 0 its data ends flush with its last page; with at 0..63 it starts
 * `at` bytes past a 64-byte line and ends fewer than 64 bytes before the
 * end of its last page (the tail slack). */
void worker_layout_region(ctl_region *g, uint64_t off, uint64_t nbytes, int at, size_t page);

/* The regions A, B and output of case c, whose output has c_bytes bytes,
 * placed by c->offsets, each at the end of its slot: the slots of A, B and
 * the output lie one after the other from arena offset 0, each as large as
 * the most pages its tensor needed in this worker's life (grown here when
 * c needs more). Mapping a slot costs page faults once; a case that fits
 * the slots reuses the pages and the child's mappings as they are. */
void worker_layout_case(worker *w, const divcase *c, uint64_t c_bytes, ctl_region g[3]);

/* 1 when a byte of the slack of output region g (before its data, and
 * after it up to the end of its pages), mapped at o (the region's first
 * page), differs from the pattern pat[i % n] it was filled with (i: the
 * byte's offset from o), with *at its offset from the data start
 * (negative before it); 0 when the slack is intact. */
int worker_slack_changed(const uint8_t *o, const ctl_region *g, size_t page,
                         const uint8_t *pat, uint32_t n, int64_t *at);

/* Grows r->out1 and r->out2 to nbytes and r->flags to count (at least 1
 * each). 0, or -1 with worker_errmsg. */
int worker_fit_buffers(worker *w, worker_result *r, uint64_t nbytes, uint64_t count);

/* A non-OK plugin status st of the call at `stage` into r, with the
 * plugin's last_error text. */
void worker_take_status(worker_result *r, uint32_t stage, int32_t st, const char *text);

/* 1 when s has a rank of at most DVG_MAX_RANK and no negative dimension. */
int worker_shape_ok(const oracle_shape *s);

/* Elements of s, or UINT64_MAX when the product passes ORACLE_MAX_ELEMENTS. */
uint64_t worker_shape_count(const oracle_shape *s);

/* The FP and signal state a call left changed (the child put it back),
 * from its reply into r. */
void worker_take_leaks(worker_result *r, const ctl_reply *rep);

/* Zeroes *q and fills it with c's variant, dtype, attributes, A and B. */
void worker_fill_request(ctl_request *q, const divcase *c);

/* The outcome of side effects found after a run that returned DVG_OK
 * (slack_at: the offset of the first changed slack byte from the output's
 * start, negative before it). */
void worker_side_outcome(worker_result *r, int64_t slack_at);

/* r->flags from the two runs in r->out1 and r->out2, made into outputs
 * whose elements i held q1[i % period] and q2[i % period] before (period a
 * power of two: 2 for a pattern of one element and an i4/u4 byte):
 * unwritten where each run left its poison, nondeterministic where the
 * runs differ otherwise. */
void worker_flag_elements(worker_result *r, const uint64_t *q1, const uint64_t *q2,
                          uint32_t period);

#endif /* HARNESS_WORKER_INTERNAL_H */
