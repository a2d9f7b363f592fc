//===- Reduction.h - Reductions and softmax builders ------------*- C++ -*-===//
//
// Format-independent builders for reductions on ranked float tensors,
// emitted as linalg.generic with reduction iterators.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_REDUCTION_H
#define MLPROG_IMPORT_COMMON_REDUCTION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// Softmax of float `x` taken jointly over `axes` (each in [-rank, rank),
/// distinct), same shape as `x`: exp(x - max) / sum(exp(x - max)), the max
/// and sum over `axes`; subtracting the max keeps exp from overflowing.
/// ONNX opset < 13 ("coerce to 2-D at axis") is axes = [axis, rank); opset
/// >= 13 is the single axis.
/// Spec: ONNX Softmax; aten::softmax.
mlir::FailureOr<mlir::Value> buildSoftmax(mlir::OpBuilder &b,
                                          mlir::Location loc, mlir::Value x,
                                          llvm::ArrayRef<int64_t> axes);

/// Reductions over a set of axes.
enum class ReduceKind { Sum, Mean, Max, Min, Prod };

/// Reduces `x` (float or signless integer; Mean float only) over `axes`
/// (each in [-rank, rank), duplicates rejected; empty means every axis).
/// With `keepDims` the reduced dims stay as extent 1, otherwise they are
/// dropped (a full reduction gives a rank-0 tensor). Max/Min of floats
/// propagate NaN; accumulation is in the element type.
/// Spec: MIL reduce_sum/mean/max/min/prod; ONNX ReduceSum/Mean/Max/Min/Prod
/// (axes given); aten::sum/mean/amax/amin/prod.
mlir::FailureOr<mlir::Value> buildReduce(mlir::OpBuilder &b, mlir::Location loc,
                                         ReduceKind kind, mlir::Value x,
                                         llvm::ArrayRef<int64_t> axes,
                                         bool keepDims);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_REDUCTION_H
