/* SPDX-License-Identifier: MIT */
/*
 * tests/cuda/emulate.cpp: cuda_kernels_launch (plugins/cuda/kernels.h) on
 * the host: the same per-element code as the GPU kernels
 * (plugins/cuda/elements.h), one element (or one byte of a 4-bit C) after
 * the other. With tests/cuda/hostcuda.c it makes plugins/cuda/cuda.c a
 * plugin the harness certifies on a CPU: the shapes, the index walk, the
 * integer rules, the 4-bit packing and the copies in and out. Only the
 * IEEE flavour: __fdividef and __hdiv have no host form that does what the
 * device does.
 */
#include "../../plugins/cuda/elements.h"

namespace {

struct HostLoop {
    const cuda_plan &p;
    const void *a, *b;
    void *c;

    template <typename T, class F> int typed(F f)
    {
        for (int64_t i = 0; i < p.count; i++)
            cuda_div_element(p, i, static_cast<const T *>(a), static_cast<const T *>(b),
                             static_cast<T *>(c), f);
        return 0;
    }
    template <bool Signed> int nibbles(int floor)
    {
        for (int64_t j = 0; j < (p.count + 1) / 2; j++)
            cuda_div_byte4<Signed>(p, j, static_cast<const uint8_t *>(a),
                                   static_cast<const uint8_t *>(b), static_cast<uint8_t *>(c),
                                   floor);
        return 0;
    }
};

} // namespace

extern "C" int cuda_kernels_launch(uint32_t flavour, uint32_t dtype, int floor,
                                   const cuda_plan *plan, const void *a, const void *b, void *c,
                                   void *stream)
{
    HostLoop run{*plan, a, b, c};
    (void)stream;
    if (flavour != CUDA_FLAVOUR_IEEE && cuda_is_float(dtype))
        return 1; /* cudaErrorInvalidValue */
    return cuda_dispatch<CudaPlain>(dtype, floor, run);
}
