/* SPDX-License-Identifier: MIT */
/*
 * This file contains the replay of a recorded input on one plugin build
 * (see replay.h), shared by `divergence replay` and `divergence bisect`.
 */
#include "harness/run/replay/replay.h"

#include <stdio.h>
#include <string.h>

int replay_open(replay *r, const char *path, const char *config, const run_isolation *iso)
{
    char msg[256];
    memset(r, 0, sizeof *r);
    r->path = path;
    verdict_profile_parse("exact", &r->profile, msg, sizeof msg);
    worker_options wo;
    run_isolation def;
    if (!iso) {
        isolation_default(&def, 0);
        iso = &def;
    }
    /* As certify runs it. */
    isolation_worker_options(iso, WORKER_DEFAULT_TIMEOUT_MS, config, (isolation_place){-1, 1}, 0,
                             &wo);
    if (worker_new(path, &wo, &r->w)) {
        snprintf(r->error, sizeof r->error, "cannot create a worker for %s", path);
        r->w = NULL;
        return -1;
    }
    trial_init(&r->t, r->w, &r->profile);
    return 0;
}

int replay_run(replay *r, const replay_input *in, verdict_sink sink, void *ctx)
{
    char msg[640];
    if (!r->w) {
        snprintf(r->error, sizeof r->error, "no worker for %s", r->path ? r->path : "?");
        return -1;
    }
    int v = trial_run(&r->t, in->c, NULL, sink, ctx);
    if (v < 0) {
        snprintf(r->error, sizeof r->error, "%s", r->t.error);
        return -1;
    }
    if (r->t.wr.outcome == WORKER_OUT_LOAD_ERROR) {
        snprintf(r->error, sizeof r->error, "cannot load %s: %s", r->path,
                 worker_result_format(&r->t.wr, msg, sizeof msg));
        return -1;
    }
    return v;
}

const worker_info *replay_plugin(const replay *r)
{
    return r->w ? worker_get_info(r->w) : NULL;
}

void replay_close(replay *r)
{
    if (!r)
        return;
    trial_free(&r->t);
    worker_free(r->w);
    r->w = NULL;
}
