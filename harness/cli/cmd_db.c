/* SPDX-License-Identifier: MIT */
/*
 * divergence db merge OUT IN...
 * divergence db check [FILE...]
 * divergence db migrate FILE...
 *
 * This file contains the `db` command: merging databases (each input
 * checked as `db check` does before anything is written), checking them
 * without changing them, and migrating them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <errno.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/store/store.h"
#include "reports/escape.h"

static int usage(FILE *to)
{
    fprintf(to,
            "usage: divergence db merge OUT IN...   merge databases (shards, other machines)\n"
            "                                        into OUT, created when missing\n"
            "       divergence db check [FILE...]   integrity, foreign keys and schema version\n"
            "                                        (default %s)\n"
            "       divergence db migrate FILE...   bring files to schema version %d\n"
            "exit: 0 done, 1 a check failed, 2 usage or environment error\n",
            STORE_DEFAULT_PATH, store_schema_version());
    return 2;
}

static void name(FILE *f, const char *path)
{
    esc_term(f, path);
}

static int merge(int argc, char **argv)
{
    store *out = NULL;
    char err[1024];
    int status = 0;
    if (argc < 2) {
        fprintf(stderr, "divergence db merge: give OUT and at least one IN\n");
        return usage(stderr);
    }
    /* Every input first gets the check of `db check` (integrity_check,
     * foreign keys, schema version): one that fails is refused before
     * OUT is created or written. store_merge checks its copy again. */
    for (int i = 1; i < argc; i++)
        if (store_check(argv[i], NULL, err, sizeof err)) {
            fprintf(stderr, "divergence db merge: ");
            esc_term(stderr, err);
            fprintf(stderr, "; nothing was merged\n");
            status = 2;
        }
    if (status)
        return status;
    if (store_open(argv[0], STORE_CREATE, &out, err, sizeof err)) {
        fprintf(stderr, "divergence db merge: %s\n", err);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        store_merge_stats st;
        if (store_merge(out, argv[i], &st)) {
            fprintf(stderr, "divergence db merge: %s\n", store_errmsg(out));
            status = 2;
            continue;
        }
        name(stdout, argv[i]);
        printf(" (schema %d): %" PRId64 " runs added, %" PRId64 " shard runs folded into %" PRId64
               " merged runs, %" PRId64 " runs merged before; %" PRId64 " new signatures, %" PRId64
               " updated; %" PRId64 " reproducers copied, %" PRId64 " counted only\n",
               st.input_version, st.runs_added, st.runs_folded, st.runs_merged, st.runs_skipped,
               st.signatures_added, st.signatures_updated, st.reproducers_added,
               st.reproducers_dropped);
    }
    store_close(out);
    return status;
}

static int check(int argc, char **argv)
{
    char *def[] = {STORE_DEFAULT_PATH};
    char err[1024];
    int status = 0;
    if (!argc) {
        argc = 1;
        argv = def;
    }
    for (int i = 0; i < argc; i++) {
        int version = 0;
        struct stat st;
        if (stat(argv[i], &st) != 0) { /* nothing to check: a usage error */
            fprintf(stderr, "divergence db check: %s: %s\n", argv[i], strerror(errno));
            status = 2;
            continue;
        }
        name(stdout, argv[i]);
        if (store_check(argv[i], &version, err, sizeof err)) {
            printf(": FAILED: ");
            esc_term(stdout, err);
            printf("\n");
            status = status ? status : 1;
        } else if (version < store_schema_version()) {
            printf(": ok, schema version %d (older: 'divergence db migrate' or the next writable "
                   "open brings it to %d)\n",
                   version, store_schema_version());
        } else {
            printf(": ok, schema version %d\n", version);
        }
    }
    return status;
}

static int migrate(int argc, char **argv)
{
    char err[1024];
    int status = 0;
    if (!argc) {
        fprintf(stderr, "divergence db migrate: give the files\n");
        return usage(stderr);
    }
    for (int i = 0; i < argc; i++) {
        int before = 0, after = 0;
        store *s = NULL;
        /* A file without a schema yet (0 bytes, or a bare SQLite file)
         * fails store_check but is what a writer starts from: the
         * writable open gives it the schema (version 0 -> now). Any other
         * problem store_check found, store_open's check finds too. */
        if (store_check(argv[i], &before, err, sizeof err))
            before = 0;
        if (store_open(argv[i], 0, &s, err, sizeof err)) {
            fprintf(stderr, "divergence db migrate: %s\n", err);
            status = 2;
            continue;
        }
        store_close(s);
        if (store_check(argv[i], &after, err, sizeof err)) {
            fprintf(stderr, "divergence db migrate: %s\n", err);
            status = 2;
            continue;
        }
        name(stdout, argv[i]);
        printf(": schema version %d -> %d\n", before, after);
    }
    return status;
}

int cmd_db(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    /* No subcommand takes options: the words after it are its operands,
     * stored over themselves (argv + 2); --help anywhere. */
    uint32_t n_operands;
    const cli_command c = {.name = "db", .usage = usage, .operands = argv + 2,
                           .max_operands = (uint32_t)argc - 2, .n_operands = &n_operands,
                           .mode = CLI_HELP_ANYWHERE};
    int rc = cli_parse(&c, argc - 1, argv + 1);
    if (rc)
        return CLI_EXIT(rc);
    if (!strcmp(argv[1], "merge"))
        return merge(argc - 2, argv + 2);
    if (!strcmp(argv[1], "check"))
        return check(argc - 2, argv + 2);
    if (!strcmp(argv[1], "migrate"))
        return migrate(argc - 2, argv + 2);
    fprintf(stderr, "divergence db: unknown subcommand '%s'\n", argv[1]);
    return usage(stderr);
}
