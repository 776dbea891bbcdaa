/* SPDX-License-Identifier: MIT */
/*
 * divergence plugins PATH...
 *
 * Loads each plugin in a worker, validates its descriptor and shows it:
 * name, version, ABI, claims, declared deviations. Exit 0 when every plugin
 * loads, 2 when one does not (with the reason).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "harness/cli/cli.h"
#include "harness/cli/commands.h"
#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

static void show(const char *path, const worker_info *in)
{
    printf("%s\n  name        %s\n  version     %s\n  abi         %u.%u (descriptor %u bytes)\n",
           path, in->name, in->version, in->abi_major, in->abi_minor, in->descriptor_size);
    printf("  deviations ");
    if (!in->deviations)
        printf(" none");
    if (in->deviations & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT) printf(" flush-subnormal-output");
    if (in->deviations & DVG_DEV_SUBNORMAL_INPUT_ZERO) printf(" subnormal-input-as-zero");
    if (in->deviations & DVG_DEV_NAN_CANONICAL) printf(" canonical-nan");
    if (in->deviations & DVG_DEV_INT_DIV_ZERO_VALUE)
        printf(" int-div-zero=%" PRId64, in->int_div_zero_value);
    char layers[160];
    printf("\n  isolation   %s; limits on memory, CPU time and file size\n",
           worker_describe_layers(in->layers, layers, sizeof layers));
    if (in->fp_at_open) {
        char fp[128];
        printf("  warning: loading and open() leave the FP environment changed (%s); every "
               "call starts from it\n",
               worker_fp_describe(in->fp_at_open, fp, sizeof fp));
    }
    char caps[160];
    printf("  capabilities %s\n", worker_caps_describe(in->capabilities, caps, sizeof caps));
    printf("  isa levels ");
    if (!in->n_isa_levels)
        printf(" none declared");
    for (uint32_t i = 0; i < in->n_isa_levels; i++)
        printf("%s %s%s%s%s", i ? "," : "", in->isa_levels[i].name,
               in->isa_levels[i].x86_level[0] ? " (x86-64-" : "", in->isa_levels[i].x86_level,
               in->isa_levels[i].x86_level[0] ? ")" : "");
    printf("\n");
    printf("  claims      %u\n", in->n_claims);
    for (uint32_t v = 1; v < DVG_VARIANT_COUNT; v++) {
        char line[256] = "";
        for (uint32_t i = 0; i < in->n_claims; i++)
            if (in->claims[i].variant == v) {
                size_t used = strlen(line);
                snprintf(line + used, sizeof line - used, " %s", oracle_dtype_tag(in->claims[i].dtype));
            }
        const oracle_variant *var = oracle_variant_get(v);
        if (line[0] && var)
            printf("    %-18s%s\n", var->name, line);
    }
    for (uint32_t i = 0; i < in->n_claims; i++) {
        const oracle_variant *var = oracle_variant_get(in->claims[i].variant);
        if (var && !oracle_variant_has_dtype(var, in->claims[i].dtype))
            printf("  warning: claims %s for %s, which the variant's type list does not have\n",
                   oracle_dtype_tag(in->claims[i].dtype), var->name);
    }
}

static int usage(FILE *to)
{
    fprintf(to, "usage: divergence plugins PATH...\n");
    return 2;
}

int cmd_plugins(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    /* Every word a PATH (even one starting with '-'), stored over itself. */
    uint32_t n_paths;
    const cli_command c = {.name = "plugins", .usage = usage, .operands = argv + 1,
                           .max_operands = (uint32_t)argc - 1, .n_operands = &n_paths,
                           .mode = CLI_OPERANDS};
    int prc = cli_parse(&c, argc, argv);
    if (prc)
        return CLI_EXIT(prc);
    int status = 0;
    for (int i = 1; i <= (int)n_paths; i++) {
        worker *w = NULL;
        worker_result r = WORKER_RESULT_INIT;
        char msg[WORKER_MESSAGE_MAX + 64];
        worker_options wo;
        worker_options_limited(&wo);
        if (worker_new(argv[i], &wo, &w)) {
            fprintf(stderr, "divergence plugins: %s: cannot create a worker\n", argv[i]);
            status = 2;
            continue;
        }
        int rc = worker_start(w, &r);
        if (rc == 0)
            show(argv[i], worker_get_info(w));
        else {
            fprintf(stderr, "divergence plugins: %s: %s\n", argv[i],
                    rc < 0 ? worker_errmsg(w) : worker_result_format(&r, msg, sizeof msg));
            status = 2;
        }
        worker_result_free(&r);
        worker_free(w);
    }
    return status;
}
