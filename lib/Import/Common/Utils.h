//===- Utils.h - Helpers shared by the tensor op builders -------*- C++ -*-===//
//
// Private to MLProgImportCommon.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_COMMON_UTILS_H
#define MLPROG_LIB_IMPORT_COMMON_UTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

namespace mlprog {
struct WindowParams;
enum class BinaryOpKind;
enum class UnaryOpKind;
enum class ReduceKind;
} // namespace mlprog

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
  /// Per operand, per operand dim: true if a dynamic extent may be 1 where
  /// the result's is not (the result extent is a static N > 1, or another
  /// operand's extent in that dim is dynamic too), so whether it stretches
  /// is known only at run time.
  llvm::SmallVector<llvm::SmallVector<bool>> maybeStretched;
};

/// Broadcasts `shapes` numpy-style (aligned at the trailing dim).
mlir::FailureOr<BroadcastPlan>
planBroadcast(mlir::Location loc,
              llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// Clears the maybe-stretched flags of `plan` whose extents the IR shows
/// equal: traced back through destination-style ops, tensor.empty sizes and
/// tensor.dim to one origin (e.g. `x` and a mask computed from `x` share
/// tensor.dim %x), so that no run-time broadcast is built for them. A
/// structural walk, not MLIR's value-bounds analysis, whose Presburger
/// checks took 70% of a 2-layer BERT's import. `operands` are those the plan
/// was made from (they may have more dims after the plan's).
void proveBroadcastExtents(BroadcastPlan &plan, mlir::ValueRange operands);

/// Indexing map of an operand of rank `operandRank` in a loop nest of
/// `numLoops` whose dims [firstDim, firstDim + resultRank) are the broadcast
/// result dims; stretched dims read index 0. `trailing` exprs are appended.
mlir::AffineMap broadcastMap(mlir::MLIRContext *ctx, unsigned numLoops,
                             unsigned firstDim, unsigned resultRank,
                             llvm::ArrayRef<bool> stretched,
                             llvm::ArrayRef<mlir::AffineExpr> trailing = {});

/// Sizes of a broadcast result, reading dynamic extents with tensor.dim.
/// Where several operands have a dynamic extent in a dim, the result's is
/// computed at run time (the extent that is not 1, else 1). Operands may
/// have more dims after the plan's (a matmul's [M, K] after its batch dims);
/// only the plan's dims are read.
llvm::SmallVector<mlir::OpFoldResult> broadcastSizes(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     const BroadcastPlan &plan,
                                                     mlir::ValueRange operands);

/// Makes run-time broadcasting explicit: each operand with maybe-stretched
/// dims (BroadcastPlan::maybeStretched) is replaced by
/// `scf.if (its extents equal the result's) { operand } else { a copy
/// stretched to the result's extents }`, so the ops built on the returned
/// operands may treat dynamic extents as equal to the result's. `sizes` are
/// the result sizes of broadcastSizes; operands have `trailing` dims after
/// the plan's (a matmul's [M, K]), never stretched. Operand types are
/// unchanged.
llvm::SmallVector<mlir::Value> materializeRuntimeBroadcasts(
    mlir::OpBuilder &b, mlir::Location loc, const BroadcastPlan &plan,
    mlir::ValueRange operands, llvm::ArrayRef<mlir::OpFoldResult> sizes,
    unsigned trailing = 0);

/// Runs the contraction `build` on f32 copies of `operands` when they are
/// f16 or bf16, and converts its result back: products of 16-bit floats
/// accumulate in f32 (as Core ML, PyTorch and onnxruntime do on CPUs, where
/// 16-bit arithmetic is emulated through f32 anyway) and round once. Null
/// operands stay null; other element types call `build` on `operands` as
/// they are.
mlir::FailureOr<mlir::Value>
accumulateInF32(mlir::OpBuilder &b, mlir::Location loc,
                llvm::ArrayRef<mlir::Value> operands,
                llvm::function_ref<
                    mlir::FailureOr<mlir::Value>(llvm::ArrayRef<mlir::Value>)>
                    build);

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

/// The element type of the ranked tensor `v`, or null.
mlir::Type elementTypeOf(mlir::Value v);

/// buildElementwiseBinary / buildElementwiseUnary, or null on failure (the
/// error is emitted), for formulas whose operands are already checked.
mlir::Value binaryOrNull(mlir::OpBuilder &b, mlir::Location loc,
                         BinaryOpKind kind, mlir::Value l, mlir::Value r);
mlir::Value unaryOrNull(mlir::OpBuilder &b, mlir::Location loc,
                        UnaryOpKind kind, mlir::Value x);

/// All-parallel iterator list.
llvm::SmallVector<mlir::utils::IteratorType> parallelIterators(unsigned n);

/// Inserts a static unit dim at `pos` (tensor.expand_shape).
mlir::Value insertUnitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          unsigned pos);

/// Drops the static unit dim `pos` (tensor.collapse_shape).
mlir::Value dropUnitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                        unsigned pos);

/// Splits dim `pos` of `x` into [outer, extent / outer] (tensor.expand_shape;
/// `outer` > 0 must divide the extent, which may be dynamic).
mlir::Value splitDim(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     unsigned pos, int64_t outer);

/// Merges dims `pos` and `pos + 1` of `x` into one (tensor.collapse_shape).
mlir::Value mergeDims(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      unsigned pos);

/// Pads `x` with `value`: `low`/`high` per dim (static).
mlir::Value padStatic(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                      llvm::ArrayRef<int64_t> low, llvm::ArrayRef<int64_t> high,
                      mlir::TypedAttr value);

/// The start value of a `kind` reduction of element type `et` (i1 max/min:
/// false/true).
mlir::TypedAttr reductionInit(mlir::OpBuilder &b, ReduceKind kind,
                              mlir::Type et);
/// One step `acc <kind> v` of a reduction (i1 max/min: or/and; Mean sums).
mlir::Value reductionCombine(mlir::OpBuilder &b, mlir::Location loc,
                             ReduceKind kind, mlir::Value v, mlir::Value acc);

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

/// Window geometry resolved for one op: every vector has one entry per
/// spatial dim, and the output extents are known.
struct Window {
  llvm::SmallVector<int64_t> strides, dilations, padsBegin, padsEnd;
  /// Padding added at the end so that ceil-mode windows fit.
  llvm::SmallVector<int64_t> ceilExtra;
  /// Output extents; ShapedType::kDynamic where the input extent is dynamic
  /// (outputSizes computes those at run time).
  llvm::SmallVector<int64_t> outputSpatial;
  llvm::SmallVector<int64_t> kernel;
};

/// Checks the window parameters against the spatial dims of an input and
/// computes the output extents (shared by convolution and pooling). Dynamic
/// input extents are an "unsupported" error unless `allowDynamic` (floor
/// mode only: the output extent of a dynamic dim is then dynamic and no
/// ceil-mode padding is needed).
mlir::FailureOr<Window> resolveWindow(mlir::Location loc, llvm::StringRef what,
                                      llvm::ArrayRef<int64_t> inputSpatial,
                                      llvm::ArrayRef<int64_t> kernel,
                                      const WindowParams &params, bool ceilMode,
                                      bool allowDynamic = false);

/// Pads the spatial dims of `x` [N, C, D...] by the window's pads (and
/// ceil-mode extra) with `padValue`.
mlir::Value padSpatial(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                       const Window &w, mlir::TypedAttr padValue);

/// Result sizes [N, channels, outputSpatial...] of a window op on `input`;
/// a dynamic output extent is max(D + padsBegin + padsEnd - dilation * (K -
/// 1) - 1 + stride, 0) floordiv stride, with D read by tensor.dim (0 when
/// the window does not fit).
llvm::SmallVector<mlir::OpFoldResult>
outputSizes(mlir::OpBuilder &b, mlir::Location loc, mlir::Value input,
            mlir::OpFoldResult channels, const Window &w);

/// The input index expressions o * stride + k * dilation of a window loop
/// nest whose output dims start at `outDim` and window dims at `kernelDim`.
llvm::SmallVector<mlir::AffineExpr> windowExprs(mlir::MLIRContext *ctx,
                                                const Window &w,
                                                unsigned outDim,
                                                unsigned kernelDim);

/// An integer or index scalar as an `index` (sign-extending).
mlir::Value toIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Index arithmetic on `index` values, kept short at the call sites.
struct IndexMath {
  mlir::OpBuilder &b;
  mlir::Location loc;

  mlir::Value c(int64_t v) {
    return mlir::arith::ConstantIndexOp::create(b, loc, v);
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value sub(mlir::Value x, mlir::Value y) {
    return mlir::arith::SubIOp::create(b, loc, x, y);
  }
  mlir::Value mul(mlir::Value x, mlir::Value y) {
    return mlir::arith::MulIOp::create(b, loc, x, y);
  }
  mlir::Value min(mlir::Value x, mlir::Value y) {
    return mlir::arith::MinSIOp::create(b, loc, x, y);
  }
  mlir::Value max(mlir::Value x, mlir::Value y) {
    return mlir::arith::MaxSIOp::create(b, loc, x, y);
  }
  mlir::Value cmp(mlir::arith::CmpIPredicate p, mlir::Value x, mlir::Value y) {
    return mlir::arith::CmpIOp::create(b, loc, p, x, y);
  }
  mlir::Value lt(mlir::Value x, mlir::Value y) {
    return cmp(mlir::arith::CmpIPredicate::slt, x, y);
  }
  mlir::Value eq(mlir::Value x, mlir::Value y) {
    return cmp(mlir::arith::CmpIPredicate::eq, x, y);
  }
  mlir::Value select(mlir::Value cond, mlir::Value x, mlir::Value y) {
    return mlir::arith::SelectOp::create(b, loc, cond, x, y);
  }
  mlir::Value clamp(mlir::Value x, mlir::Value lo, mlir::Value hi) {
    return min(max(x, lo), hi);
  }
  /// An integer or index scalar as an index (sign-extending).
  mlir::Value index(mlir::Value v) {
    if (v.getType().isIndex())
      return v;
    return mlir::arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  /// `v` + `n` where `v` is negative (a position counted from the end).
  mlir::Value wrap(mlir::Value v, mlir::Value n) {
    return select(lt(v, c(0)), add(v, n), v);
  }
};

/// The entries of the 1-D integer tensor `t` (static length) as indices.
llvm::SmallVector<mlir::Value> readIndices(IndexMath &m, mlir::Value t);

/// Checks that `axes` is a 1-D signless-integer tensor of static length, or
/// emits "<what>: axes must be ..." and fails.
mlir::LogicalResult checkAxesTensor(mlir::Location loc, mlir::Value axes,
                                    llvm::StringRef what);

/// `x` reshaped to the run-time `extents` (index values, same element
/// count), typed with `hint` where it has static extents.
mlir::Value reshapeToExtents(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value x, llvm::ArrayRef<mlir::Value> extents,
                             llvm::ArrayRef<int64_t> hint);

} // namespace mlprog::detail

#endif // MLPROG_LIB_IMPORT_COMMON_UTILS_H
