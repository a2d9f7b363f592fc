//===- NumericalIntegration.h - The trapezoidal rule ------------*- C++ -*-===//
//
// Format-independent builders for numerical integration of sampled
// functions along one dimension.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_NUMERICALINTEGRATION_H
#define MLPROG_IMPORT_COMMON_NUMERICALINTEGRATION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// The trapezoidal rule along `dim` (in [-rank, rank)) of the float `y`
/// (static extent n there): sum_i (x[i+1] - x[i]) (y[i] + y[i+1]) / 2. The
/// sample points are `x` (a 1-D tensor of n points, or a tensor that
/// broadcasts against y) or, when `x` is null, evenly spaced by `dx`. The
/// result drops `dim`; with `cumulative` it keeps it with the n - 1 partial
/// sums. n = 0 integrates to 0.
/// Errors: non-float y, a dim out of range, a dynamic extent along dim, x
/// of another element type or shape.
/// Spec: aten::trapezoid.x / .dx, aten::trapz, aten::cumulative_trapezoid;
/// numpy.trapezoid.
mlir::FailureOr<mlir::Value> buildTrapezoid(mlir::OpBuilder &b,
                                            mlir::Location loc, mlir::Value y,
                                            mlir::Value x, double dx,
                                            int64_t dim, bool cumulative);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_NUMERICALINTEGRATION_H
