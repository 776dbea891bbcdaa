/* SPDX-License-Identifier: MIT */
/*
 * harness/run/engine/session.h: one run in the store, the same for every command
 * that records one (certify, sweep, fuzz, import). A session
 *   1. hashes the plugin file, once for the whole command (SHA-256,
 *      harness/base/sha256.h), and opens (or creates) the store;
 *   2. takes up an incomplete run (--resume: by its resume key,
 *      harness/run/engine/resume.h, or, for sweep, by the run the caller found)
 *      or begins a new one and records the plugin build with it;
 *   3. finishes the run, complete or incomplete;
 *   4. closes the store, leaving a run that failed 'incomplete'.
 * Messages go to the session's err stream as "divergence COMMAND: ...".
 */
#ifndef HARNESS_SESSION_H
#define HARNESS_SESSION_H

#include <stdint.h>
#include <stdio.h>
#include "harness/base/sha256.h"
#include "harness/store/store.h"

typedef struct run_session {
    store *db;                     /* the open store; NULL before session_open */
    const char *db_path;           /* the path it was opened with */
    const char *command;           /* "certify", "sweep", "fuzz", "import" */
    const char *plugin_path;       /* the plugin file */
    const char *name, *version;    /* its descriptor's name and version */
    char sha256[SHA256_HEX_CHARS]; /* its SHA-256, 64 lower-case hex digits */
    int64_t run_id;                /* the run; 0 before it begins */
    int resumed;                   /* 1: taken up again, not begun */
    FILE *err;
} run_session;

/*
 * Hashes the plugin file at plugin_path and opens the store at db_path
 * (NULL: STORE_DEFAULT_PATH; created when missing). name, version: the
 * plugin descriptor's. Every string is the caller's and must outlive the
 * session. Returns 0, or -1 with the reason on err (the file cannot be
 * read, the store cannot be opened); session_close must follow either way.
 */
int session_open(run_session *s, const char *command, const char *db_path,
                 const char *plugin_path, const char *name, const char *version, FILE *err);

/*
 * --resume: takes up the latest incomplete run of `kind` whose resume key
 * (runs.args) equals `key` (resume_args_equal) and whose plugin build is
 * this one (resume_take). Returns 1 when taken up (s->run_id, s->resumed),
 * 0 when there is none (a note saying a new run starts on err), -1 on an
 * error (on err).
 */
int session_resume(run_session *s, const char *kind, const char *key);

/*
 * Takes up run `run_id`, found by the caller (sweep finds its run by its
 * plan, which names the plugin build's hash), again: store_resume_run.
 * Returns 0, or -1 with the reason on err.
 */
int session_adopt(run_session *s, int64_t run_id);

/*
 * Begins a new run (store_begin_run) and records the plugin build linked
 * to it. In *ri, build_flags NULL means this divergence's version and a
 * shard_count of 1 or less means not sharded. Returns 0 with s->run_id,
 * or -1 with the reason on err.
 */
int session_begin(run_session *s, const store_run_info *ri);

/*
 * Links one more plugin build to the run (store_plugin_build: the file at
 * `path` hashed there): a run of several plugins (diff, a differential
 * fuzz campaign) records the set as its own implementation, and each
 * plugin's build too, so that `divergence replay` finds the file of a
 * finding of one of them. Returns 0, or -1 with the reason on err.
 */
int session_link_plugin(run_session *s, const char *name, const char *version,
                        const char *path);

/*
 * Ends the run: STORE_RUN_COMPLETE, STORE_RUN_INCOMPLETE or
 * STORE_RUN_INTERRUPTED (store_finish_run). Returns 0, or -1 with the store's reason in
 * store_errmsg(s->db), not printed.
 */
int session_finish(run_session *s, int status);

/*
 * Says on err that SIGINT, SIGTERM or SIGHUP (`sig`, from
 * interrupt_signal) stopped the run, which the caller ended as
 * STORE_RUN_INTERRUPTED after storing what it held: "divergence COMMAND:
 * interrupted by SIGINT: run R is stored as 'interrupted' ...", then
 * `resume`, the command that continues it (cli_run_key), on a line of its
 * own. Returns the command's exit status, interrupt_exit_status(sig).
 */
int session_say_interrupted(const run_session *s, int sig, const char *resume);

/*
 * Closes the store. When `failed` and the session holds a run, the run is
 * marked 'incomplete' first (--resume can take it up). Accepts a session
 * that was zeroed and never opened, or whose open failed.
 */
void session_close(run_session *s, int failed);

#endif /* HARNESS_SESSION_H */
