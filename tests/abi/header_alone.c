/* SPDX-License-Identifier: MIT */
/*
 * tests/abi/header_alone.c: a translation unit that includes nothing but
 * the plugin ABI. CTest compiles it with -fsyntax-only as C99, C11 and
 * C++11 (as C++ with -x c++), each with -Wall -Wextra -pedantic -Werror:
 * the header must compile alone, cleanly, in all three.
 */
#include <divergence/iut.h>

#ifdef __cplusplus
extern "C" {
#endif
const dvg_descriptor *dvg_iut_descriptor(void);
#ifdef __cplusplus
}
#endif

static const dvg_claim header_alone_claims[] = {
    {DVG_VARIANT_ONNX_DIV_14, DVG_DTYPE_I8},
    {DVG_VARIANT_SONNX_DIV, DVG_DTYPE_BF16},
};

/* Every dtype and variant constant is usable as an integer constant. */
#define HEADER_ALONE_DTYPE_(ID, tag, value, bits, kind) (DVG_DTYPE_##ID == (value)) &&
#define HEADER_ALONE_VARIANT_(ID, name, value) (DVG_VARIANT_##ID == (value)) &&
typedef char header_alone_dtypes[(DVG_DTYPE_LIST(HEADER_ALONE_DTYPE_) 1) ? 1 : -1];
typedef char header_alone_variants[(DVG_VARIANT_LIST(HEADER_ALONE_VARIANT_) 1) ? 1 : -1];

static int32_t header_alone_open(const char *config, dvg_iut **out)
{
    (void)config;
    *out = 0;
    return DVG_FAILURE;
}

static int32_t header_alone_open_with(const char *config, const dvg_open_options *options,
                                      dvg_iut **out)
{
    (void)options;
    return header_alone_open(config, out);
}

static const dvg_isa_level header_alone_levels[] = {
    {sizeof(dvg_isa_level), 0, "avx2", "v3"},
    {sizeof(dvg_isa_level), 0, "scalar", ""},
};

static const dvg_descriptor header_alone_descriptor = {
    sizeof(dvg_descriptor), DVG_ABI_MAJOR, DVG_ABI_MINOR, "header-alone", "0",
    2, 0, header_alone_claims, DVG_DEV_FLUSH_SUBNORMAL_OUTPUT, 0,
    header_alone_open, 0, 0, 0, 0,
    DVG_CAP_INSTANCES_CONCURRENT | DVG_CAP_IN_PLACE_A | DVG_CAP_THREADS, 2, 0,
    header_alone_levels, header_alone_open_with};

const dvg_descriptor *dvg_iut_descriptor(void)
{
    dvg_entry_fn self = dvg_iut_descriptor;
    (void)self;
    return &header_alone_descriptor;
}
