//===- HandlerUtils.h - Operand helpers shared by ONNX handlers -*- C++ -*-===//
//
// Private to MLProgImportONNX. Reading run-time arguments (axes, starts,
// pads, split sizes) and folding compile-time values, shared by the handler
// families (ShapeOps.cpp, SliceGatherOps.cpp, CreationOps.cpp, ...).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_ONNX_HANDLERUTILS_H
#define MLPROG_LIB_IMPORT_ONNX_HANDLERUTILS_H

#include "NodeContext.h"

#include <optional>

namespace mlprog::onnx_import {

/// All inputs of the node (each must be present).
mlir::FailureOr<llvm::SmallVector<mlir::Value>> allInputs(NodeContext &ctx);

/// Constants with more elements than this are not folded (shape
/// computations are tiny; this keeps weights out of the folder).
constexpr int64_t kFoldLimit = 1 << 16;

/// Entries of an integer constant, sign-extended.
llvm::SmallVector<int64_t> intValues(mlir::DenseElementsAttr a);

/// Records output `i` as the compile-time value `value`.
mlir::LogicalResult setFolded(NodeContext &ctx, unsigned i,
                              mlir::DenseElementsAttr value);

/// Whether the compile-time value `a` is present and small enough to fold
/// (a splat, or at most kFoldLimit elements).
bool foldable(mlir::DenseElementsAttr a);

/// Row-major strides (in elements) of a static `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

/// result[idx] = src.flat[srcFlat(idx)] for every multi-index of `outShape`.
mlir::DenseElementsAttr
foldMap(mlir::DenseElementsAttr src, llvm::ArrayRef<int64_t> outShape,
        llvm::function_ref<int64_t(llvm::ArrayRef<int64_t>)> srcFlat);

/// The entries of input `i` when it is a compile-time signless-integer
/// constant (a shape, axes, pads), else nullopt.
std::optional<llvm::SmallVector<int64_t>> constantInts(NodeContext &ctx,
                                                       unsigned i);

/// Input `i`, an argument read at run time (axes, starts, pads, split
/// sizes): a located error unless it is a 1-D signless-integer tensor of
/// static length.
mlir::FailureOr<mlir::Value> argumentTensor(NodeContext &ctx, unsigned i,
                                            llvm::StringRef what);

/// Static length of a 1-D tensor checked by argumentTensor.
int64_t lengthOf(mlir::Value v);

/// The one element of input `i` (a scalar or a one-element tensor of an
/// integer or, when `allowFloat`, a float type, read at run time and
/// truncated toward zero) as an index.
mlir::FailureOr<mlir::Value> scalarIndexInput(NodeContext &ctx, unsigned i,
                                              llvm::StringRef what,
                                              bool allowFloat);

/// The elements of input `i`, the 1-D integer tensor `shape` of static
/// length (a shape computed at run time), as index sizes: IndexAttrs where
/// GraphState::knownElements knows them (the static extents of a
/// Concat(batch, [C, H, W])), tensor.extract at run time elsewhere.
llvm::SmallVector<mlir::OpFoldResult>
shapeSizesInput(NodeContext &ctx, unsigned i, mlir::Value shape);

/// The shape ONNX gives output `i`, or empty (a hint for refineToShape).
llvm::SmallVector<int64_t> outputHint(NodeContext &ctx, unsigned i);

} // namespace mlprog::onnx_import

#endif // MLPROG_LIB_IMPORT_ONNX_HANDLERUTILS_H
