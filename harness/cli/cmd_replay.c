/* SPDX-License-Identifier: MIT */
/*
 * divergence replay --db FILE sig:N|repro:N [--plugin PATH ...] [--write-case FILE]
 *
 * This file contains the `replay` command: it re-runs one recorded
 * reproducer on its plugin (the build recorded with the run, or --plugin)
 * and shows expected vs actual. `repro:N` names reproducer N, `sig:N` the
 * first reproducer kept for signature N (the id certificates print); a
 * bare number is refused, since signatures and reproducers are numbered
 * apart (store_ref_parse). A disagreement among plugins (a hazard of
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
    "usage: divergence replay --db FILE sig:N|repro:N [--plugin PATH ...] [--write-case FILE]\n" \
    "         [--config TEXT] [--grant pocl|cuda ...] [--timeout MS] [--memory-limit MIB]\n" \
    "         [--cpu MODEL]\n"

/* The usage line; on stdout (--help) with what the ids mean. */
static int usage(FILE *to)
{
    fputs(USAGE, to);
    if (to == stdout)
        fputs("  sig:N    the reproducer of the latest run that saw signature N (certificates and fuzz\n"
              "           summaries print [sig:N] next to a class)\n"
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
              "Exit 0 the plugin (every plugin of a set) now conforms on it, 1 one still\n"
              "departs, 2 errors.\n",
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

/* The reproducer named by id_text (sig:N or repro:N) from the store at
 * db_path into *c and *info; *id its reproducer id, *by_signature 1 when
 * named by its signature. 0, or the exit status of an error (printed). */
static int load_reproducer(const char *db_path, const char *id_text, store **db, divcase *c,
                           store_reproducer *info, long long *id, int *by_signature)
{
    int64_t ref;
    char msg[1024];
    if (store_ref_parse(id_text, by_signature, &ref, msg, sizeof msg)) {
        fprintf(stderr, "divergence replay: reproducer id %s\n" USAGE, msg);
        return 2;
    }
    *id = ref;
    if (store_open(db_path ? db_path : STORE_DEFAULT_PATH, STORE_READONLY, db, msg, sizeof msg)) {
        fprintf(stderr, "divergence replay: %s\n", msg);
        return 2;
    }
    if (*by_signature) {
        int64_t first;
        if (store_signature_reproducer(*db, ref, &first)) {
            fprintf(stderr, "divergence replay: %s\n", store_errmsg(*db));
            return 2;
        }
        *id = first;
    }
    if (store_reproducer_load(*db, *id, c, info)) {
        fprintf(stderr, "divergence replay: %s\n", store_errmsg(*db));
        return 2;
    }
    return 0;
}

/* What was recorded: the case, its attributes and offsets, the oracle's
 * word. *p (and *valid) the oracle's plan. 0, or 2 (printed). */
static int print_recorded(const divcase *c, const store_reproducer *info, long long id,
                          int by_signature, oracle_plan *p, int *valid)
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
           "(recorded in run %lld)\n", id, (long long)info->signature_id,
           by_signature ? " (the reproducer of the latest run that saw it)" : "", info->implementation, r.variant->name,
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

int cmd_replay(int argc, char **argv)
{
    const char *db_path = NULL, *plugin = NULL, *id_text = NULL, *case_path = NULL;
    const char *config = NULL;
    const char *plugins[RERUN_MAX_PLUGINS];
    uint32_t n_plugins = 0, n_ids;
    char *ids[1];
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
        CLI_FLAG_END};
    const cli_command cc = {.name = "replay", .usage = usage, .flags = flags, .shared = &shared,
                            .operands = ids,
                            .max_operands = 1, .n_operands = &n_ids,
                            .unknown = "unexpected argument"};
    int prc = cli_parse(&cc, argc, argv);
    if (prc)
        return CLI_EXIT(prc);
    if (n_ids)
        id_text = ids[0];
    if (n_plugins)
        plugin = plugins[n_plugins - 1];
    if (!id_text) {
        fprintf(stderr, USAGE);
        return 2;
    }
    if (n_cpus > 1) {
        fprintf(stderr, "divergence replay: --cpu: one CPU per replay\n");
        return 2;
    }
    store *db = NULL;
    casefile_set *calls = NULL;
    divcase c;
    memset(&c, 0, sizeof c);
    store_reproducer info;
    long long id;
    int by_signature, valid;
    oracle_plan p;
    int status = load_reproducer(db_path, id_text, &db, &c, &info, &id, &by_signature);
    if (status)
        goto done;
    if (case_path) {
        status = write_case(case_path, &c, id);
        goto done;
    }
    status = 2;
    int hazard = hazard_by_name(info.cls);
    if (hazard < 0 && n_plugins > 1) {
        fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld is a finding of %s "
                        "alone: one --plugin\n", id, info.implementation);
        goto done;
    }
    if (!plugin)
        plugin = info.plugin_path;
    if (hazard < 0 && !plugin[0]) {
        fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld names no plugin build; "
                        "pass --plugin\n", id);
        goto done;
    }
    if (print_recorded(&c, &info, id, by_signature, &p, &valid))
        goto done;
    /* Where it was found (its note), unless --cpu says where. */
    if (n_cpus)
        iso.cpu_model = cpus[0];
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
            fprintf(stderr, "divergence replay: " STORE_REF_REPRODUCER "%lld: %s\n", id, why);
            goto done;
        }
    }
    if (hazard >= 0)
        status = rerun_set(db, &c, &info, hazard, plugins, n_plugins, config, &iso, stdout, stderr);
    else
        status = rerun_one(plugin, &c, &info, config, &iso, calls, stdout, stderr);
done:
    casefile_set_free(calls);
    divcase_free(&c);
    store_close(db);
    return status;
}
