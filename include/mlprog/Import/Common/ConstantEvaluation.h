//===- ConstantEvaluation.h - Import-time values of constant code -*- C++
//-*-===//
//
// Exporters compute sizes from constants with ordinary ops: torchvision's
// detection transform takes a ReduceMax over constant image sizes, divides,
// rounds up with Ceil and casts, then pads to that size. An importer that
// only folds shape ops (Shape, Gather, Concat) leaves such extents dynamic.
// This evaluator computes, at import time, the value of IR built from
// constants only, so the importers can record it as a constant.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_CONSTANTEVALUATION_H
#define MLPROG_IMPORT_COMMON_CONSTANTEVALUATION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"

#include <cstdint>

namespace mlprog {

/// The value of the statically shaped tensor `v` when everything it is
/// computed from is constant: `arith.constant`s, `ml_program.global_load_const`
/// of a global with an inline value, ops that fold to a constant given
/// constant operands (arith, math, tensor casts, reshapes, extracts,
/// from_elements), `tensor.extract_slice` and `tensor.concat` of constants,
/// and linalg ops (generic, reduce, fill, transpose...) run element by
/// element with their body's folders (`tensor.empty` reads as zeros). Null
/// when an op on the way does not fold, a tensor has a dynamic shape, or a
/// tensor or a linalg op's iteration space has more than `maxElements`
/// elements. Builds nothing; the IR is left as it is.
mlir::DenseElementsAttr evaluateConstantTensor(mlir::Value v,
                                               int64_t maxElements);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_CONSTANTEVALUATION_H
