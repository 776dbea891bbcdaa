/* SPDX-License-Identifier: MIT */
/*
 * The normative sentences Divergence checks, quoted from the documents in
 * docs/specs.md, IEEE 754-2019, and the project's own decisions
 * where the documents are silent. Append only: IDs are stable, case files
 * and tests cite them.
 */
#include "oracle/requirements.h"

#include <string.h>

#define ONNX "001_65b480a6843cbc73.txt"
#define ONNX6 "003_14a2e82e46dcfc09.txt"
#define OV "002_05f7f78707074479.txt"
#define OVPAGE "000_ed22e64474c0e7db.txt"
#define SONNX "004_bc051ae5ff3cce46.txt"
#define IEEE "IEEE 754-2019"
#define SEM "docs/semantics.md"

static const oracle_requirement requirements[] = {
    /* ---- ONNX ---------------------------------------------------------- */
    {"ONNX-DIV1-TYPES", ONNX, "Div - 1, Type Constraints",
     "T in ( tensor(double), tensor(float), tensor(float16) ): Constrain input and output types to float tensors."},
    {"ONNX-DIV6-TYPES", ONNX6, "Div - version 6, Type Constraints",
     "Allowed types: tensor(double), tensor(float), tensor(float16), tensor(int32), tensor(int64), tensor(uint32), tensor(uint64)."},
    {"ONNX-DIV7-TYPES", ONNX, "Div - 7, Type Constraints",
     "T in ( tensor(double), tensor(float), tensor(float16), tensor(int32), tensor(int64), tensor(uint32), tensor(uint64) )"},
    {"ONNX-DIV13-TYPES", ONNX, "Div - 13, Type Constraints",
     "T in ( tensor(bfloat16), tensor(double), tensor(float), tensor(float16), tensor(int32), tensor(int64), tensor(uint32), tensor(uint64) )"},
    {"ONNX-DIV14-TYPES", ONNX, "Div - 14, Summary and Type Constraints",
     "(Opset 14 change): Extend supported types to include uint8, int8, uint16, and int16."},
    {"ONNX-SAME-TYPE", ONNX, "Div - 14, Outputs",
     "C (heterogeneous) - T: Result, has same element type as two inputs"},
    {"ONNX-LEGACY-BCAST-OFF", ONNX, "Div - 6 and Div - 1, Summary and Inputs",
     "Attribute broadcast=1 needs to be passed to enable broadcasting. ... If broadcasting is disabled it should be of the same size."},
    {"ONNX-LEGACY-BCAST-SCALAR", ONNX, "Div - 6 and Div - 1, Summary",
     "When broadcasting is specified, the second tensor can either be of element size 1 (including a scalar tensor and any tensor with rank equal to or smaller than the first tensor)"},
    {"ONNX-LEGACY-BCAST-SUBSET", ONNX, "Div - 6 and Div - 1, Summary",
     "or having its shape as a contiguous subset of the first tensor's shape. The starting of the mutually equal shape is specified by the argument \"axis\", and if it is not set, suffix matching is assumed."},
    {"ONNX-LEGACY-NO-1DIM", ONNX, "Div - 6 and Div - 1, Summary",
     "1-dim expansion doesn't work yet."},
    {"ONNX-LEGACY-RHS-ONLY", ONNX, "Div - 6 and Div - 1, Summary",
     "If necessary the right-hand-side argument will be broadcasted to match the shape of left-hand-side argument."},
    {"ONNX-LEGACY-OUTSHAPE", ONNX6, "Div - version 6, Outputs",
     "C (T): Result, has same dimensions and type as A"},
    {"ONNX-LEGACY-EXAMPLES", ONNX, "Div - 6 and Div - 1, Summary",
     "For example, the following tensor shapes are supported (with broadcast=1): shape(A) = (2, 3, 4, 5), shape(B) = (,) ... (1, 1) ... (5,) ... (4, 5) ... (3, 4), with axis=1 ... (2), with axis=0"},
    {"ONNX-LEGACY-CONSUMED-INPUTS", ONNX, "Div - 1, Attributes",
     "consumed_inputs - INTS : legacy optimization attribute."},
    {"ONNX-NUMPY-BCAST", ONNX, "Div - 7, 13, 14, Summary",
     "Performs element-wise binary division (with Numpy-style broadcasting support)."},
    {"ONNX-DIV6-INT-TRUNC", ONNX6, "Div - version 6, Differences with previous version",
     "For integer inputs, the result is computed using truncating division (rounding toward zero)."},
    /* ---- OpenVINO ------------------------------------------------------ */
    {"OV-DIVIDE-FORMULA", OV, "Detailed description",
     "After broadcasting *Divide* performs division operation for the input tensors *a* and *b* using the formula below: o_{i} = a_{i} / b_{i}"},
    {"OV-DIV-ZERO-UNDEF", OV, "Detailed description",
     "The result of division by zero is undefined."},
    {"OV-PYTHONDIV", OV, "Attributes, m_pythondiv",
     "specifies if floor division should be calculate. This attribute is supported only for integer data types. false - regular division; true - floor division. Default value: true"},
    {"OV-BCAST-NONE", OV, "Attributes, auto_broadcast",
     "*none* - no auto-broadcasting is allowed, all input shapes must match"},
    {"OV-BCAST-NUMPY", OV, "Attributes, auto_broadcast",
     "*numpy* - numpy broadcasting rules ... Default value: \"numpy\""},
    {"OV-BCAST-PDPD", OV, "Attributes, auto_broadcast",
     "*pdpd* - PaddlePaddle-style implicit broadcasting"},
    {"OV-OUTSHAPE", OV, "Outputs",
     "The result of element-wise division operation. A tensor of type *T* with shape equal to broadcasted shape of the two inputs."},
    {"OV-TYPES", OV, "Types", "*T*: any numeric type."},
    {"OV-EXAMPLE-1", OVPAGE, "Example 1",
     "auto_broadcast=\"none\" m_pythondiv=\"true\": inputs (256, 56) and (256, 56), output (256, 56)"},
    {"OV-EXAMPLE-2", OVPAGE, "Example 2: broadcast",
     "auto_broadcast=\"numpy\" m_pythondiv=\"false\": inputs (8, 1, 6, 1) and (7, 1, 5), output (8, 7, 6, 5)"},
    /* ---- SONNX --------------------------------------------------------- */
    {"SONNX-R1", SONNX, "Restrictions",
     "Tensors `A`, `B` and `C` must have the same shape. [R1]"},
    {"SONNX-R2", SONNX, "Restrictions (FP16, FP32, FP64, BFLOAT16 and INT sections)",
     "Tensors `A`, `B` and `C` shall have the same numerical type. [R2]"},
    {"SONNX-TYPES-FLOAT", SONNX, "Div operator (FP16, FP32, FP64, BFLOAT16)",
     "`Div` operator (FP16, FP32, FP64, BFLOAT16)"},
    {"SONNX-TYPES-INT", SONNX, "Div operator (INT8, INT16, INT32)",
     "`Div` operator (INT8, INT16, INT32)"},
    {"SONNX-TYPES-CONTENTS", SONNX, "Contents",
     "`Div` operator (INT4, INT8, INT16, INT32, INT64, UINT4, UINT8, UINT16, UINT32, UINT64, )"},
    {"SONNX-FLOAT-QUOTIENT", SONNX, "Div (float), Informal specification",
     "C[i] = A[i]/B[i] if A[i] and B[i] are different from 0"},
    {"SONNX-FLOAT-INF", SONNX, "Div (float), Informal specification",
     "C[i] = inf if A[i] != 0 and B[i] = 0"},
    {"SONNX-FLOAT-NAN", SONNX, "Div (float), Informal specification",
     "C[i] = nan if A[i] = 0 and B[i] = 0"},
    {"SONNX-FLOAT-EXAMPLES", SONNX, "Div (float), examples",
     "A = [[3, 4], [16, 1], [25, 24]], B = [[3, 2], [4, 0], [5, 4]], C = [[1, 2], [4, inf], [5, 6]]; with A[1][1] = 0: C = [[1, 2], [4, nan], [5, 6]]"},
    {"SONNX-INT-FLOOR", SONNX, "Div (int), Informal specification",
     "C[i] = floor(A[i] / B[i]) if B[i] is different from 0"},
    {"SONNX-INT-UNDEF", SONNX, "Div (int), Informal specification",
     "C[i] = undefined otherwise. Note: \"undefined\" is implementation-dependent."},
    {"SONNX-INT-OVERFLOW", SONNX, "Div (int), Restrictions",
     "Overflow behavior is implementation-defined."},
    {"SONNX-INT-EXAMPLES", SONNX, "Div (int), examples",
     "A = [6, 9, 35], B = [3, 3, 5], C = [2, 3, 7]; A = [[10, 10], [21, 1], [30, 9]], B = [[3, 2], [4, 1], [5, 4]], C = [[3, 5], [5, 1], [6, 2]]"},
    {"SONNX-REAL-EXAMPLES", SONNX, "Div (real), examples",
     "A = [6, 9, 35], B = [3, 3, 5], C = [2, 3, 7]; A = [[3, 4], [16, 0], [25, 24]], B = [[3, 2], [4, 1], [5, 4]], C = [[1, 2], [4, 0], [5, 6]]"},
    /* ---- IEEE 754-2019 ------------------------------------------------- */
    {"IEEE-DIV-RNE", IEEE, "5.4.1 and 4.3.1",
     "division(x, y) computes x/y ... every operation shall be performed as if it first produced an intermediate result correct to infinite precision and with unbounded range, and then rounded that result (roundTiesToEven by default)"},
    {"IEEE-DIV-ZERO", IEEE, "7.3",
     "divisionByZero: the default result shall be an infinity correctly signed according to the operation (for division, the exclusive OR of the operands' signs)"},
    {"IEEE-INVALID-NAN", IEEE, "7.2",
     "invalid operation: division(0, 0) or division(inf, inf) ... the default result shall be a quiet NaN"},
    {"IEEE-NAN-PROPAGATE", IEEE, "6.2",
     "For an operation with quiet NaN inputs ... the result shall be a quiet NaN; signaling NaN operands signal invalid and deliver a quiet NaN"},
    {"IEEE-SUBNORMAL", IEEE, "3.4 and 7.5",
     "subnormal results are delivered, not flushed: the rounded result may be subnormal or zero (underflow is signalled, the value stands)"},
    /* ---- SEMANTICS.md, where the documents are silent ----------------- */
    {"SEM-INT-DIV-ZERO", SEM, "Element results",
     "Integer x / 0: unspecified in every variant (OpenVINO: \"undefined\"). Any value conforms; a crash, hang or memory error is a robustness finding."},
    {"SEM-INT-MIN-NEG1", SEM, "Element results",
     "INT_MIN / -1: unspecified (the true quotient is not representable); SONNX: \"implementation-defined\"."},
    {"SEM-PDPD-RULES", SEM, "PDPD broadcasting (OpenVINO)",
     "rank(B) <= rank(A); axis = -1 means rank(A) - rank(B), computed before B's trailing 1-dims are trimmed; trailing dims of size 1 in B are ignored; B's remaining dims must match A's dims starting at axis (a 1 inside the window broadcasts); only B->A. Any other negative axis, or a window that runs past A, is invalid input."},
    {"SEM-SUBBYTE-PACKING", SEM, "Edge values",
     "4-bit packing (two per byte, low nibble first)."},
    {"SEM-SONNX-ROUNDING-DISPUTE", SEM, "Known disagreements",
     "SONNX's seed text says floor for integers; its Why3 module and later text point to truncation."},
    {"SEM-SONNX-INF-SIGN", SEM, "Element results",
     "SONNX's formal text writes plain `infinity`: record which sign an IUT gives."},
    {"SEM-RANK-LIMITS", SEM, "Shapes (issue 2)",
     "Rank 0 to 8, dimensions of size 0."},
};

const oracle_requirement *oracle_requirement_find(const char *id)
{
    if (!id)
        return NULL;
    for (size_t i = 0; i < sizeof requirements / sizeof requirements[0]; i++)
        if (!strcmp(requirements[i].id, id))
            return &requirements[i];
    return NULL;
}

size_t oracle_requirement_count(void)
{
    return sizeof requirements / sizeof requirements[0];
}

const oracle_requirement *oracle_requirement_at(size_t i)
{
    return i < oracle_requirement_count() ? &requirements[i] : NULL;
}
