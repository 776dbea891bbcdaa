/* SPDX-License-Identifier: MIT */
/*
 * harness/run/inspect/inspect.c: inspect_plugin, the body of
 * `divergence plugins` (inspect.h).
 */
#include "harness/run/inspect/inspect.h"

#include <inttypes.h>
#include <string.h>

#include "harness/worker/worker.h"
#include "oracle/dtype.h"
#include "oracle/variant.h"

/* The descriptor `in` of the plugin at `path`, on out. */
static void show(FILE *out, const char *path, const worker_info *in)
{
    fprintf(out,
            "%s\n  name        %s\n  version     %s\n  abi         %u.%u (descriptor %u bytes)\n",
            path, in->name, in->version, in->abi_major, in->abi_minor, in->descriptor_size);
    fprintf(out, "  deviations ");
    if (!in->deviations)
        fprintf(out, " none");
    if (in->deviations & DVG_DEV_FLUSH_SUBNORMAL_OUTPUT)
        fprintf(out, " flush-subnormal-output");
    if (in->deviations & DVG_DEV_SUBNORMAL_INPUT_ZERO)
        fprintf(out, " subnormal-input-as-zero");
    if (in->deviations & DVG_DEV_NAN_CANONICAL)
        fprintf(out, " canonical-nan");
    if (in->deviations & DVG_DEV_INT_DIV_ZERO_VALUE)
        fprintf(out, " int-div-zero=%" PRId64, in->int_div_zero_value);
    char layers[WORKER_SANDBOX_TEXT];
    fprintf(out, "\n  isolation   %s; limits on memory, CPU time and file size\n",
            worker_describe_sandbox(in->layers, in->grants, layers, sizeof layers));
    if (in->fp_at_open) {
        char fp[128];
        fprintf(out, "  warning: loading and open() leave the FP environment changed (%s); every "
                "call starts from it\n",
                worker_fp_describe(in->fp_at_open, fp, sizeof fp));
    }
    char caps[160];
    fprintf(out, "  capabilities %s\n", worker_caps_describe(in->capabilities, caps, sizeof caps));
    fprintf(out, "  isa levels ");
    if (!in->n_isa_levels)
        fprintf(out, " none declared");
    for (uint32_t i = 0; i < in->n_isa_levels; i++)
        fprintf(out, "%s %s%s%s%s", i ? "," : "", in->isa_levels[i].name,
                in->isa_levels[i].x86_level[0] ? " (x86-64-" : "", in->isa_levels[i].x86_level,
                in->isa_levels[i].x86_level[0] ? ")" : "");
    fprintf(out, "\n");
    fprintf(out, "  claims      %u\n", in->n_claims);
    for (uint32_t v = 1; v < DVG_VARIANT_COUNT; v++) {
        char line[256] = "";
        for (uint32_t i = 0; i < in->n_claims; i++)
            if (in->claims[i].variant == v) {
                size_t used = strlen(line);
                snprintf(line + used, sizeof line - used, " %s",
                         oracle_dtype_tag(in->claims[i].dtype));
            }
        const oracle_variant *var = oracle_variant_get(v);
        if (line[0] && var)
            fprintf(out, "    %-18s%s\n", var->name, line);
    }
    for (uint32_t i = 0; i < in->n_claims; i++) {
        const oracle_variant *var = oracle_variant_get(in->claims[i].variant);
        if (var && !oracle_variant_has_dtype(var, in->claims[i].dtype))
            fprintf(out,
                    "  warning: claims %s for %s, which the variant's type list does not have\n",
                    oracle_dtype_tag(in->claims[i].dtype), var->name);
    }
}

int inspect_plugin(const char *path, uint32_t grants, uint32_t timeout_ms, FILE *out, FILE *err)
{
    worker *w = NULL;
    worker_result r = WORKER_RESULT_INIT;
    char msg[WORKER_MESSAGE_MAX + 64];
    worker_options wo;
    worker_options_limited(&wo);
    wo.grants = grants;
    if (timeout_ms)
        wo.timeout_ms = timeout_ms;
    if (worker_new(path, &wo, &w)) {
        fprintf(err, "divergence plugins: %s: cannot create a worker\n", path);
        return 2;
    }
    int status = 0;
    int rc = worker_start(w, &r);
    if (rc == 0)
        show(out, path, worker_get_info(w));
    else {
        /* open() failed (a missing device): the descriptor all the same. */
        if (rc > 0 && worker_get_descriptor(w))
            show(out, path, worker_get_descriptor(w));
        fprintf(err, "divergence plugins: %s: %s\n", path,
                rc < 0 ? worker_errmsg(w) : worker_result_format(&r, msg, sizeof msg));
        status = 2;
    }
    worker_result_free(&r);
    worker_free(w);
    return status;
}
