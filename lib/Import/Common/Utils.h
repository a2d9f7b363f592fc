//===- Utils.h - Helpers shared by the tensor op builders -------*- C++ -*-===//
//
// Private to MLProgImportCommon.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_COMMON_UTILS_H
#define MLPROG_LIB_IMPORT_COMMON_UTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

namespace mlprog::detail {

/// Returns the ranked tensor type of `v`, or emits "<what>: expected a ranked
/// tensor" and fails.
mlir::FailureOr<mlir::RankedTensorType>
getRankedType(mlir::Location loc, mlir::Value v, llvm::StringRef what);

/// The result of numpy-broadcasting a list of shapes.
struct BroadcastPlan {
  /// Result shape (ShapedType::kDynamic where unknown).
  llvm::SmallVector<int64_t> shape;
  /// For each dynamic result dim: (operand, operand dim) to read it from.
  llvm::SmallVector<std::pair<unsigned, unsigned>> dynamicSource;
  /// Per operand, per operand dim: true if a static 1 stretches.
  llvm::SmallVector<llvm::SmallVector<bool>> stretched;
};

/// Broadcasts `shapes` numpy-style (aligned at the trailing dim).
mlir::FailureOr<BroadcastPlan>
planBroadcast(mlir::Location loc,
              llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// Indexing map of an operand of rank `operandRank` in a loop nest of
/// `numLoops` whose dims [firstDim, firstDim + resultRank) are the broadcast
/// result dims; stretched dims read index 0. `trailing` exprs are appended.
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, unsigned numLoops,
                             unsigned firstDim, unsigned resultRank,
                             llvm::ArrayRef<bool> stretched,
                             llvm::ArrayRef<mlir::AffineExpr> trailing = {});

/// Sizes of a broadcast result, reading dynamic extents with tensor.dim.
llvm::SmallVector<mlir::OpFoldResult> broadcastSizes(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     const BroadcastPlan &plan,
                                                     mlir::ValueRange operands);

/// tensor.empty of `sizes`.
mlir::Value createEmpty(mlir::OpBuilder &b, mlir::Location loc,
                        llvm::ArrayRef<mlir::OpFoldResult> sizes,
                        mlir::Type elementType);

/// tensor.empty of `sizes` filled with `value` (linalg.fill).
mlir::Value createFilled(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::ArrayRef<mlir::OpFoldResult> sizes,
                         mlir::TypedAttr value);

/// -inf for floats, the signed minimum for integers.
mlir::TypedAttr getLowestAttr(mlir::Type elementType);

/// A float (or integer) scalar constant of `type`.
mlir::Value createScalar(mlir::OpBuilder &b, mlir::Location loc,
                         mlir::Type type, double value);

/// All-parallel iterator list.
llvm::SmallVector<mlir::utils::IteratorType> parallelIterators(unsigned n);

/// Inserts a static unit dim at `pos` (tensor.expand_shape).
mlir::Value insertUnitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          unsigned pos);

/// Drops the static unit dim `pos` (tensor.collapse_shape).
mlir::Value dropUnitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        unsigned pos);

/// Pads `x` with `value`: `low`/`high` per dim (static).
mlir::Value padStatic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                      mlir::TypedAttr value);

/// An index constant.
mlir::Value cIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t v);

/// Body of one scf.for step: (builder, loc, induction variable, iter_args)
/// -> the values it yields.
using ForBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::ValueRange)>;
/// Body of one scf.if branch: the values it yields.
using BranchBody = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location)>;

/// One scf.for over [lb, ub) with step 1 carrying `init`; returns its
/// results.
llvm::SmallVector<mlir::Value> loop(mlir::OpBuilder &b, mlir::Location loc,
                                    mlir::Value lb, mlir::Value ub,
                                    mlir::ValueRange init, ForBody body);

/// scf.if on `cond` yielding the values of `thenFn` or `elseFn` (same
/// types); returns its results.
llvm::SmallVector<mlir::Value> ifElse(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value cond, BranchBody thenFn,
                                      BranchBody elseFn);

} // namespace mlprog::detail

#endif // MLPROG_LIB_IMPORT_COMMON_UTILS_H
