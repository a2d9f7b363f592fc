//===- Random.h - Counter-based random numbers and Dropout ------*- C++ -*-===//
//
// Format-independent builders that draw pseudo-random numbers. The numbers
// are a pure function of a seed and each element's row-major index (a
// counter-based generator: SplitMix64's finalizer over seed and index), so
// the code is plain linalg on tensors, parallel, and the same on CPU and
// GPU. A program draws the same numbers on every call: generators that
// advance between calls would keep their counter in a global (DESIGN.md,
// "State is a global"), which no importer asks for yet. The numbers are not
// numpy's or any framework's stream.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_RANDOM_H
#define MLPROG_IMPORT_COMMON_RANDOM_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlprog {

/// The scalar uniform draw in [0, 1) of float type `elementType` for the
/// element of row-major index `linearIndex` (an i64 Value) under `seed`:
/// the top p bits (p = the type's precision, 24 for f32) of
/// SplitMix64(seed, index), scaled by 2^-p, so every value is exact and
/// below 1. For use inside the body of a `linalg.generic`.
/// Spec: ONNX RandomUniform's distribution (not its numbers).
mlir::Value buildUniformScalar(mlir::OpBuilder &b, mlir::Location loc,
                               mlir::Value linearIndex, mlir::Type elementType,
                               uint64_t seed);

/// The outputs of Dropout.
struct DropoutResult {
  mlir::Value output; ///< Same type as the input.
  mlir::Value mask;   ///< i1 tensor of the input's shape.
};

/// Dropout of the ranked float tensor `x` with the run-time 0-D float
/// `ratio` (any float type; null means 0.5) and 0-D i1 `trainingMode` (null
/// means false). In inference (training_mode false) the output is `x` and
/// the mask all true. In training each element is kept where its uniform
/// draw (buildUniformScalar under `seed`) is at least `ratio`, i.e. with
/// probability 1 - ratio; kept elements are scaled by 1 / (1 - ratio),
/// dropped ones are 0, and the mask says which were kept. Ratio 0 keeps
/// every element (the output equals `x` exactly); ratio 1 drops every one.
/// Errors: a non-float or unranked `x`, a non-float `ratio`.
/// Spec: ONNX Dropout-12/13 (outputs `output` and `mask`).
mlir::FailureOr<DropoutResult>
buildDropout(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
             mlir::Value ratio, mlir::Value trainingMode, uint64_t seed);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_RANDOM_H
