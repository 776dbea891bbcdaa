/* SPDX-License-Identifier: MIT */
/*
 * harness/run/onnx/onnx_internal.h: what the two files of onnx-tests
 * share (private; the contract is onnx_tests.h):
 *   model.c   the model reader: model.onnx and the TensorProtos decoded
 *   runner.c  the runner: every data set a unit of the run engine, the
 *             shipped output judged by the oracle, the plugin by the trial
 */
#ifndef HARNESS_ONNX_INTERNAL_H
#define HARNESS_ONNX_INTERNAL_H

#include <stddef.h>
#include "harness/run/onnx/onnx_tests.h"

/* Writes the message into err (len bytes) and returns -1. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int onnxtests_fail(char *err, size_t len, const char *fmt, ...);

#endif /* HARNESS_ONNX_INTERNAL_H */
