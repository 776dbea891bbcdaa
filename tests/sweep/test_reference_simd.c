/* SPDX-License-Identifier: MIT */
/*
 * tests/sweep/test_reference_simd.c: the reference kernel's vector runs
 * (plugins/reference/reference.c, "Vector runs") give the same bits as
 * its scalar code, built a second time with -DREFERENCE_SIMD=0.
 *
 * Both builds are loaded in this process and run on the same tensors in
 * the three stride patterns the vector code has (A and B contiguous, A a
 * scalar, B a scalar), at unaligned addresses and with lengths that leave
 * a scalar tail: every i8 and u8 pair, and for f16, bf16, i16 and u16 the
 * dividends (and divisors) 0..65535 in steps of STEP plus the edge values,
 * each against all 65536 values, under truncation and floor. With
 * --all, every 16-bit pair (2^32 per dtype and rounding; the long test).
 *
 * Usage: test_reference_simd PATH/reference.so PATH/reference_scalar.so [--all]
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "divergence/iut.h"

#define N16 65536
#define STEP 97

typedef struct plugin {
    void *so;
    const dvg_descriptor *d;
    dvg_iut *iut;
} plugin;

static int load(const char *path, plugin *p)
{
    dvg_entry_fn entry;
    memset(p, 0, sizeof *p);
    p->so = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!p->so) {
        fprintf(stderr, "%s\n", dlerror());
        return -1;
    }
    *(void **)&entry = dlsym(p->so, DVG_ENTRY_SYMBOL);
    if (!entry)
        return -1;
    p->d = entry();
    return p->d->open("", &p->iut) == DVG_OK ? 0 : -1;
}

static dvg_attrs attrs_for(int floor)
{
    dvg_attrs at;
    memset(&at, 0, sizeof at);
    at.size = sizeof at;
    at.axis = -1;
    at.pythondiv = floor; /* openvino-divide-1: 1 floors, 0 truncates */
    at.auto_broadcast = DVG_BROADCAST_NUMPY;
    return at;
}

static dvg_tensor tensor(uint32_t dtype, int64_t n, void *data, uint64_t nbytes)
{
    dvg_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.rank = 1;
    t.shape[0] = n;
    t.data = data;
    t.nbytes = nbytes;
    return t;
}

static int32_t run(plugin *p, uint32_t dtype, int floor, void *a, int64_t na, void *b,
                   int64_t nb, void *c, int64_t nc, uint32_t esize)
{
    dvg_attrs at = attrs_for(floor);
    dvg_tensor ta = tensor(dtype, na, a, (uint64_t)na * esize);
    dvg_tensor tb = tensor(dtype, nb, b, (uint64_t)nb * esize);
    dvg_tensor tc = tensor(dtype, nc, c, (uint64_t)nc * esize);
    return p->d->compute(p->iut, DVG_VARIANT_OPENVINO_DIVIDE_1, &at, &ta, &tb, &tc);
}

static plugin vec, sca;
static uint8_t *bufa, *bufb, *c1, *c2;

/* One pattern: 0 both contiguous (A = row repeated), 1 A scalar, 2 B
 * scalar (B = row, A the pattern). `row` the fixed operand, `pattern`
 * every value of the dtype; n elements. */
static void compare(uint32_t dtype, const char *tag, int floor, uint32_t esize, uint64_t row,
                    const uint8_t *pattern, int64_t n, int shape)
{
    uint8_t *a = bufa + 1, *b = bufb + 1; /* unaligned on purpose */
    uint8_t *o1 = c1 + 1, *o2 = c2 + 1;
    int64_t na = n, nb = n;
    if (shape == 0) {
        for (int64_t i = 0; i < n; i++)
            memcpy(a + i * esize, &row, esize);
        memcpy(b, pattern, (size_t)n * esize);
    } else if (shape == 1) {
        memcpy(a, &row, esize);
        na = 1;
        memcpy(b, pattern, (size_t)n * esize);
    } else {
        memcpy(a, pattern, (size_t)n * esize);
        memcpy(b, &row, esize);
        nb = 1;
    }
    memset(o1, 0x11, (size_t)n * esize);
    memset(o2, 0x22, (size_t)n * esize);
    int32_t s1 = run(&vec, dtype, floor, a, na, b, nb, o1, n, esize);
    int32_t s2 = run(&sca, dtype, floor, a, na, b, nb, o2, n, esize);
    CHECKF(s1 == DVG_OK && s2 == DVG_OK, "%s: status %d / %d", tag, s1, s2);
    if (memcmp(o1, o2, (size_t)n * esize) != 0) {
        for (int64_t i = 0; i < n; i++)
            if (memcmp(o1 + i * esize, o2 + i * esize, esize)) {
                uint64_t x = 0, y = 0, p = 0;
                memcpy(&x, o1 + i * esize, esize);
                memcpy(&y, o2 + i * esize, esize);
                memcpy(&p, pattern + i * esize, esize);
                CHECKF(0, "%s %s shape %d row 0x%llx pattern 0x%llx: vector 0x%llx, scalar 0x%llx",
                       tag, floor ? "floor" : "trunc", shape, (unsigned long long)row,
                       (unsigned long long)p, (unsigned long long)x, (unsigned long long)y);
                break;
            }
    } else {
        CHECK(1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: test_reference_simd REF.so REF_SCALAR.so [--all]\n");
        return 2;
    }
    int all = argc > 3 && !strcmp(argv[3], "--all");
    if (load(argv[1], &vec) || load(argv[2], &sca)) {
        fprintf(stderr, "cannot load the plugins\n");
        return 2;
    }
    bufa = malloc(2 * N16 + 16);
    bufb = malloc(2 * N16 + 16);
    c1 = malloc(2 * N16 + 16);
    c2 = malloc(2 * N16 + 16);
    uint16_t *p16 = malloc(2 * N16);
    uint8_t p8[256];
    if (!bufa || !bufb || !c1 || !c2 || !p16)
        return 2;
    for (int i = 0; i < N16; i++)
        p16[i] = (uint16_t)i;
    for (int i = 0; i < 256; i++)
        p8[i] = (uint8_t)i;

    static const struct {
        uint32_t dtype;
        const char *tag;
        uint32_t size;
        int has_floor;
    } types[] = {
        {DVG_DTYPE_I8, "i8", 1, 1},     {DVG_DTYPE_U8, "u8", 1, 0},
        {DVG_DTYPE_F16, "f16", 2, 0},   {DVG_DTYPE_BF16, "bf16", 2, 0},
        {DVG_DTYPE_I16, "i16", 2, 1},   {DVG_DTYPE_U16, "u16", 2, 0},
    };
    static const uint16_t edges16[] = {
        0x0000, 0x0001, 0x0002, 0x0003, 0x0007, 0x00FF, 0x0100, 0x03FF, 0x0400, 0x0401,
        0x3BFF, 0x3C00, 0x3C01, 0x4000, 0x4200, 0x7BFF, 0x7C00, 0x7C01, 0x7DFF, 0x7E00,
        0x7F7F, 0x7F80, 0x7F81, 0x7FC0, 0x7FFF, 0x8000, 0x8001, 0x83FF, 0x8400, 0xBC00,
        0xFBFF, 0xFC00, 0xFE00, 0xFF80, 0xFFC0, 0xFFFE, 0xFFFF, 0x3F80, 0xBF80, 0x0080,
    };
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (int floor = 0; floor <= types[t].has_floor; floor++) {
            if (types[t].size == 1) {
                for (int row = 0; row < 256; row++)
                    for (int shape = 0; shape < 3; shape++)
                        for (int64_t n = 256; n >= 249; n -= 7) /* a tail of 1 */
                            compare(types[t].dtype, types[t].tag, floor, 1, (uint64_t)row, p8,
                                    n, shape);
                continue;
            }
            for (uint32_t row = 0; row < N16; row += all ? 1 : STEP)
                for (int shape = 0; shape < 3; shape++)
                    compare(types[t].dtype, types[t].tag, floor, 2, row, (const uint8_t *)p16,
                            N16 - (shape == 0 ? 3 : 0), shape);
            for (size_t e = 0; !all && e < sizeof edges16 / sizeof edges16[0]; e++)
                for (int shape = 0; shape < 3; shape++)
                    compare(types[t].dtype, types[t].tag, floor, 2, edges16[e],
                            (const uint8_t *)p16, N16 - 5, shape);
        }
    }
    free(p16);
    free(bufa);
    free(bufb);
    free(c1);
    free(c2);
    return check_done("test_reference_simd");
}
