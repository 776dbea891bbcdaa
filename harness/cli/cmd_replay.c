/* SPDX-License-Identifier: MIT */
/*
 * divergence replay --db FILE sig:N|repro:N [--plugin PATH ...] [--write-case FILE]
 *
 * This file contains the `replay` command: it re-runs one recorded
 * reproducer on its plugin (the build recorded with the run, or --plugin)
 * and shows expected vs actual. `repro:N` names reproducer N, `sig:N` the
 * reproducer of the latest run that kept one for signature N (the id
 * certificates print; --run R: run R's, --all: one per run, newest
 * first); a bare number is refused, since signatures and reproducers are
 * numbered apart (store_ref_parse). A disagreement among plugins (a hazard of
 * `diff` or a differential fuzz run, a finding of the set "a|b") is
 * re-run on every plugin of the set, each build as the run linked it (or
 * one --plugin per plugin, in the set's order), and the plugins' outputs
 * compared again (harness/run/engine/crosscheck.h). Exit 0 when the plugin (every
 * plugin of a set) now conforms on it, 1 when one still departs, 2 on
 * errors. --write-case FILE writes the reproducer's case as a case file
 * (cases/README.md; casefile_write) instead, to commit it as a test. A
 * reproducer found under another CPU (its note: isolation_cpu_note) is
 * replayed there - emulated, or natively with the plugin forced to its
 * level - unless --cpu MODEL names where (--cpu native: natively).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/base/alloc.h"
#include "harness/base/cpumodel.h"
#include "harness/cases/casefile.h"
#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/run/replay/replay.h"
#include "harness/run/replay/rerun.h"
#include "harness/store/store.h"
#include "oracle/dtype.h"

#define USAGE \
    "usage: divergence replay --db FILE sig:N|repro:N [--run R|--all] [--plugin PATH ...]\n" \
    "         [--write-case FILE] [--config TEXT] [--grant pocl|cuda ...] [--timeout MS]\n" \
    "         [--memory-limit MIB] [--cpu MODEL]\n"

/* --all replays the reproducers of this many runs at most, newest first. */
#define REPLAY_MAX_RUNS 256

/* The usage line; on stdout (--help) with what the ids mean. */
static int usage(FILE *to)
{
    fputs(USAGE, to);
    if (to == stdout)
        fputs("  sig:N    the reproducer of the latest run that saw signature N (certificates and fuzz\n"
              "           summaries print [sig:N] next to a class); --run R: run R's,\n"
              "           --all: each run's, newest first (at most 256 runs)\n"
              "  repro:N  reproducer N (reports print it in their replay commands)\n"
              "A bare number is refused: signatures and reproducers are numbered apart.\n"
              "A disagreement among plugins (a hazard of diff or of a differential fuzz\n"
              "run) is re-run on every plugin of its set (the builds its run linked, or\n"
              "one --plugin per plugin, in the set's order) and compared again.\n"
              "--write-case FILE writes the reproducer's case as a case file (with the\n"
              "oracle's expectation) instead of running it, to commit it under cases/.\n"
              "A reproducer found under another CPU (its note: \"under x86-64-v3\n"
              "(emulated)\") is replayed there; --cpu MODEL says where instead\n"
              "(--cpu native: natively).\n"
              "Exit 0 the plugin (every plugin of a set) now conforms on it (--all: on\n"
              "each), 1 one still departs, 2 errors.\n",
              to);
    return 2;
}

/* Writes the reproducer's case as a case file (--write-case FILE). The
 * exit status. */
static int write_case(const char *path, const divcase *c, long long id)
{
    char name[64];
    casefile_error err;
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "divergence replay: --write-case %s: cannot create it\n", path);
        return 2;
    }
    snprintf(name, sizeof name, "repro-%lld", id);
    int rc = casefile_write(out, name, c, &err);
    if (fclose(out) && !rc) {
        rc = -1;
        snprintf(err.text, sizeof err.text, "write error");
    }
    if (rc) {
        fprintf(stderr, "divergence replay: --write-case %s: %s\n", path, err.text);
        return 2;
    }
    printf("wrote " STORE_REF_REPRODUCER "%lld as the case file %s (case %s); "
           "'divergence cases --check --dir %s' checks it\n", id, path, name, path);
    return 0;
}

/* The reproducers id_text names (sig:N or repro:N; run: only run R's of
 * a signature, 0 any; cap 1: the latest run's) from the store at db_path
 * into ids[] and runs[] (*n of them); *by_signature 1 when named by a
 * signature. 0, or the exit status of an error (printed). */
static int resolve_reproducers(const char *db_path, const char *id_text, int64_t run, store **db,
                               int64_t *ids, int64_t *runs, size_t cap, size_t *n,
                               int *by_signature)
{
    int64_t ref;
    char msg[1024];
    if (store_ref_parse(id_text, by_signature, &ref, msg, sizeof msg)) {
        fprintf(stderr, "divergence replay: reproducer id %s\n" USAGE, msg);
        return 2;
    }
    if ((run || cap > 1) && !*by_signature) {
        fprintf(stderr, "divergence replay: --run and --all choose among a signature's "
                        "reproducers: name it sig:N\n");
        return 2;
    }
    if (store_open(db_path ? db_path : STORE_DEFAULT_PATH, STORE_READONLY, db, msg, sizeof msg)) {
        fprintf(stderr, "divergence replay: %s\n", msg);
        return 2;
    }
    ids[0] = ref;
    runs[0] = 0;
    *n = 1;
    if (*by_signature && store_signature_reproducers(*db, ref, run, ids, runs, cap, n)) {
        fprintf(stderr, "divergence replay: %s\n", store_errmsg(*db));
        return 2;
    }
    return 0;
}

/* What was recorded: the case, its attributes and offsets, the oracle's
 * word. *p (and *valid) the oracle's plan. 0, or 2 (printed). */
static int print_recorded(const divcase *c, const store_reproducer *info, long long id,
                          const char *which, oracle_plan *p, int *valid)
{
    oracle_rules r;
    oracle_error why;
    if (oracle_rules_resolve(c->variant, c->dtype, &c->attrs, &r, &why)) {
        fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld: %s\n", id, why.text);
        return 2;
    }
    *valid = oracle_plan_shapes(&r, &c->a_shape, &c->b_shape, p, &why) == ORACLE_OK;
    char attrs[160], sa[96], sb[96];
    printf(STORE_REF_REPRODUCER "%lld of " STORE_REF_SIGNATURE "%lld%s: %s, %s %s, class %s "
           "(recorded in run %lld)\n", id, (long long)info->signature_id, which,
           info->implementation, r.variant->name,
           oracle_dtype_tag(c->dtype), info->cls, (long long)info->run_id);
    printf("  case %s: A %s, B %s, attrs %s\n", c->id, oracle_shape_format(&c->a_shape, sa, sizeof sa),
           oracle_shape_format(&c->b_shape, sb, sizeof sb),
           oracle_attrs_format(r.variant, &c->attrs, attrs, sizeof attrs));
    if (c->offsets.set) {
        char offs[32];
        printf("  data offsets from a 64-byte line: %s\n",
               divcase_offsets_format(&c->offsets, offs, sizeof offs));
    }
    if (info->expected[0])
        printf("  recorded: expected %s, got %s\n", info->expected, info->actual);
    if (info->note[0])
        printf("  recorded note: %s\n", info->note);
    if (!*valid)
        printf("  the oracle: invalid input (%s)\n", why.text);
    return 0;
}

/* What every reproducer of one replay command shares. */
typedef struct replay_request {
    const char *const *plugins; /* --plugin, in order */
    uint32_t n_plugins;
    const char *config;
    const run_isolation *iso;
    const uint8_t *cpu; /* --cpu, or NULL: where it was found */
    const char *case_path; /* --write-case */
} replay_request;

/* Replays reproducer `id` (which: how sig:N chose it, "" for repro:N),
 * or writes its case (--write-case). The exit status. */
static int replay_reproducer(store *db, int64_t id, const char *which, const replay_request *rq)
{
    casefile_set *calls = NULL;
    divcase c;
    memset(&c, 0, sizeof c);
    store_reproducer info;
    oracle_plan p;
    int valid, status = 2;
    run_isolation iso = *rq->iso;
    const char *plugin = rq->n_plugins ? rq->plugins[rq->n_plugins - 1] : NULL;
    if (store_reproducer_load(db, id, &c, &info)) {
        fprintf(stderr, "divergence replay: %s\n", store_errmsg(db));
        goto done;
    }
    if (rq->case_path) {
        status = write_case(rq->case_path, &c, (long long)id);
        goto done;
    }
    int hazard = hazard_by_name(info.cls);
    if (hazard < 0 && rq->n_plugins > 1) {
        fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld is a finding of %s "
                        "alone: one --plugin\n", (long long)id, info.implementation);
        goto done;
    }
    if (!plugin)
        plugin = info.plugin_path;
    if (hazard < 0 && !plugin[0]) {
        fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld names no plugin build; "
                        "pass --plugin\n", (long long)id);
        goto done;
    }
    if (print_recorded(&c, &info, (long long)id, which, &p, &valid))
        goto done;
    /* Where it was found (its note), unless --cpu says where. */
    if (rq->cpu)
        iso.cpu_model = *rq->cpu;
    else if (isolation_cpu_from_note(info.note, &iso))
        printf("  under %s%s%s, as recorded (--cpu native: natively)\n",
               cpum_get(iso.cpu_model)->name, iso.isa[0] ? ", natively forced to " : " emulated",
               iso.isa);
    if (hazard < 0) {
        char *text = NULL, why[640];
        if (store_reproducer_calls(db, id, &text)) {
            fprintf(stderr, "divergence replay: %s\n", store_errmsg(db));
            goto done;
        }
        int bad = replay_parse_calls(text, &calls, why, sizeof why);
        dvg_free(text);
        if (bad) {
            fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld: %s\n",
                    (long long)id, why);
            goto done;
        }
    }
    if (hazard >= 0)
        status = rerun_set(db, &c, &info, hazard, rq->plugins, rq->n_plugins, rq->config, &iso,
                           stdout, stderr);
    else
        status = rerun_one(plugin, &c, &info, rq->config, &iso, calls, stdout, stderr);
done:
    casefile_set_free(calls);
    divcase_free(&c);
    return status;
}

int cmd_replay(int argc, char **argv)
{
    const char *db_path = NULL, *id_text = NULL, *case_path = NULL, *config = NULL;
    const char *plugins[RERUN_MAX_PLUGINS];
    uint32_t n_plugins = 0, n_ids;
    uint64_t run = 0;
    int all = 0;
    char *ids_text[1];
    run_isolation iso;
    isolation_default(&iso, 0);
    uint8_t cpus[CLI_MAX_CPUS];
    uint32_t n_cpus = 0;
    const cli_shared shared = {.grants = &iso.grants, .timeout_ms = &iso.timeout_ms,
                               .memory_limit = &iso.memory_limit, .cpus = cpus,
                               .n_cpus = &n_cpus};
    const cli_flag flags[] = {
        CLI_FLAG_TEXT("--db", &db_path),
        CLI_FLAG_TEXT("--config", &config),
        CLI_FLAG_TEXTS("--plugin", plugins, &n_plugins, RERUN_MAX_PLUGINS),
        CLI_FLAG_TEXT("--write-case", &case_path),
        CLI_FLAG_U64("--run", &run, 1, INT64_MAX),
        CLI_FLAG_SWITCH("--all", &all, 1),
        CLI_FLAG_END};
    const cli_command cc = {.name = "replay", .usage = usage, .flags = flags, .shared = &shared,
                            .operands = ids_text,
                            .max_operands = 1, .n_operands = &n_ids,
                            .unknown = "unexpected argument"};
    int prc = cli_parse(&cc, argc, argv);
    if (prc)
        return CLI_EXIT(prc);
    if (n_ids)
        id_text = ids_text[0];
    if (!id_text) {
        fprintf(stderr, USAGE);
        return 2;
    }
    if (n_cpus > 1) {
        fprintf(stderr, "divergence replay: --cpu: one CPU per replay\n");
        return 2;
    }
    if (all && (run || case_path)) {
        fprintf(stderr, "divergence replay: --all: not with %s\n",
                run ? "--run (one run's reproducer)" : "--write-case (one case file)");
        return 2;
    }
    store *db = NULL;
    int64_t ids[REPLAY_MAX_RUNS], runs[REPLAY_MAX_RUNS];
    size_t n = 0;
    int by_signature;
    int status = resolve_reproducers(db_path, id_text, (int64_t)run, &db, ids, runs,
                                     all ? REPLAY_MAX_RUNS : 1, &n, &by_signature);
    const replay_request rq = {plugins, n_plugins, config, &iso, n_cpus ? cpus : NULL, case_path};
    int worst = 0;
    for (size_t k = 0; !status && k < n; k++) {
        char which[128] = "";
        if (by_signature && all)
            snprintf(which, sizeof which, " (run %lld's reproducer, %zu of %zu runs, newest first)",
                     (long long)runs[k], k + 1, n);
        else if (by_signature && run)
            snprintf(which, sizeof which, " (the reproducer of run %lld)", (long long)run);
        else if (by_signature)
            snprintf(which, sizeof which, " (the reproducer of the latest run that saw it)");
        if (k)
            putchar('\n');
        fflush(stdout);
        int one = replay_reproducer(db, ids[k], which, &rq);
        worst = one > worst ? one : worst;
    }
    if (!status && all && n == REPLAY_MAX_RUNS)
        printf("\n(the newest %d runs' reproducers; older runs keep theirs: --run R)\n",
               REPLAY_MAX_RUNS);
    store_close(db);
    return status ? status : worst;
}
