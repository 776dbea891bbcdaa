/* SPDX-License-Identifier: MIT */
/*
 * This file contains the run session (harness/run/engine/session.h): the life of
 * one run in the store, from opening the store to closing it, that
 * certify, sweep, the fuzz campaign and import share. The plugin file is
 * hashed here once and the hash given to every step that records or
 * checks the build.
 */
#include "harness/run/engine/session.h"

#include <inttypes.h>
#include <string.h>

#include "harness/base/interrupt.h"
#include "harness/run/engine/resume.h"

int session_open(run_session *s, const char *command, const char *db_path,
                 const char *plugin_path, const char *name, const char *version, FILE *err)
{
    char msg[512];
    memset(s, 0, sizeof *s);
    s->command = command;
    s->db_path = db_path ? db_path : STORE_DEFAULT_PATH;
    s->plugin_path = plugin_path;
    s->name = name;
    s->version = version;
    s->err = err;
    if (sha256_file(plugin_path, s->sha256, msg, sizeof msg) ||
        store_open(s->db_path, STORE_CREATE, &s->db, msg, sizeof msg)) {
        fprintf(err, "divergence %s: %s\n", command, msg);
        return -1;
    }
    return 0;
}

int session_resume(run_session *s, const char *kind, const char *key)
{
    char msg[512];
    int found = resume_take(s->db, kind, key, s->name, s->version, s->plugin_path, s->sha256,
                            &s->run_id, msg, sizeof msg);
    if (found < 0) {
        fprintf(s->err, "divergence %s: --resume: %s\n", s->command, msg);
        return -1;
    }
    if (!found) {
        fprintf(s->err, "divergence %s: --resume: %s holds no incomplete %s run of this command "
                        "line; starting a new run\n", s->command, s->db_path, kind);
        return 0;
    }
    s->resumed = 1;
    return 1;
}

int session_adopt(run_session *s, int64_t run_id)
{
    if (store_resume_run(s->db, run_id)) {
        fprintf(s->err, "divergence %s: cannot resume run %" PRId64 ": %s\n", s->command, run_id,
                store_errmsg(s->db));
        return -1;
    }
    s->run_id = run_id;
    s->resumed = 1;
    return 0;
}

int session_begin(run_session *s, const store_run_info *ri)
{
    store_run_info r = *ri;
    int64_t build;
    if (!r.build_flags)
        r.build_flags = "divergence " DVG_VERSION;
    if (r.shard_count <= 1)
        r.shard_index = r.shard_count = 0;
    if (store_begin_run(s->db, &r, &s->run_id) ||
        store_record_plugin_build(s->db, s->run_id, s->name, s->version, s->plugin_path,
                                  s->sha256, &build)) {
        fprintf(s->err, "divergence %s: %s\n", s->command, store_errmsg(s->db));
        return -1;
    }
    return 0;
}

int session_link_plugin(run_session *s, const char *name, const char *version,
                        const char *path)
{
    int64_t build;
    if (store_plugin_build(s->db, s->run_id, name, version, path, &build)) {
        fprintf(s->err, "divergence %s: %s\n", s->command, store_errmsg(s->db));
        return -1;
    }
    return 0;
}

int session_finish(run_session *s, int status)
{
    return store_finish_run(s->db, s->run_id, status);
}

int session_say_interrupted(const run_session *s, int sig, const char *resume)
{
    fprintf(s->err, "divergence %s: interrupted by %s: run %" PRId64 " is stored as "
                    "'interrupted' with what it found so far; continue it with:\n  %s\n",
            s->command, interrupt_name(sig), s->run_id, resume ? resume : "--resume");
    return interrupt_exit_status(sig);
}

void session_close(run_session *s, int failed)
{
    if (failed && s->db && s->run_id)
        store_finish_run(s->db, s->run_id, STORE_RUN_INCOMPLETE);
    store_close(s->db);
    s->db = NULL;
}
