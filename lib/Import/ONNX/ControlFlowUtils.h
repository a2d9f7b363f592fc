//===- ControlFlowUtils.h - ONNX control-flow helpers -----------*- C++ -*-===//
//
// Private to MLProgImportONNX: what the If and Loop handlers
// (ControlFlowOps.cpp) and the Scan handler (ScanOps.cpp) share. The types
// an ONNX subgraph produces are only known once it is imported, so each
// handler builds its op, joins what the subgraph produced into the region's
// types (joinInto) and rebuilds it, at most kMaxAttempts times.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_ONNX_CONTROLFLOWUTILS_H
#define MLPROG_LIB_IMPORT_ONNX_CONTROLFLOWUTILS_H

#include "NodeContext.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlprog::onnx_import::controlflow {

/// How often a loop is rebuilt with relaxed types before giving up.
constexpr int kMaxAttempts = 4;

/// The least static tensor type both `a` and `b` cast to: same rank and
/// element type, extents that differ dynamic; null if there is none. Two
/// one-element tensors of different ranks (a scalar and a [1], as branches
/// of exported function bodies produce) join to the higher rank.
mlir::Type joinTypes(mlir::Type a, mlir::Type b);

/// Joins `observed` into `types` elementwise; whether any changed. A
/// located error "unsupported <what> <i>: ..." (and failure) when some
/// pair has no join.
mlir::FailureOr<bool> joinInto(NodeContext &ctx,
                               llvm::SmallVectorImpl<mlir::Type> &types,
                               mlir::TypeRange observed, llvm::StringRef what);

/// The types of `values`.
llvm::SmallVector<mlir::Type> typesOf(mlir::ValueRange values);

/// Casts `v` to `type` if it is not of that type already (a one-element
/// tensor of another rank is reshaped; see joinTypes).
mlir::Value castTo(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                   mlir::Type type);

/// An empty sequence of elements of type `element` (extents it leaves
/// dynamic are 0), typed with a dynamic length: the start of a sequence
/// that grows by one element per iteration.
mlir::FailureOr<mlir::Value> emptyGrowable(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::RankedTensorType element);

/// The single element of a one-element tensor (ONNX scalars such as If's
/// condition and Loop's trip count are 0-d or 1-element tensors); a located
/// error naming `what` otherwise.
mlir::FailureOr<mlir::Value> extractScalar(NodeContext &ctx, mlir::Value tensor,
                                           llvm::StringRef what);

/// A 0-d tensor holding scalar `v`.
mlir::Value makeScalarTensor(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Value v);

/// Imports `graph` at the builder's insertion point with its inputs bound
/// to `inputs` (NodeContext::importSubgraph); its output values.
mlir::FailureOr<llvm::SmallVector<mlir::Value>>
importSubgraph(NodeContext &ctx, const onnx::GraphProto &graph,
               mlir::ValueRange inputs);

/// Reads the GRAPH attribute `name`; a located error if it is absent.
mlir::FailureOr<const onnx::GraphProto *> getGraph(NodeContext &ctx,
                                                   llvm::StringRef name);

/// The sizes of `v` with a unit extent inserted at `axis`.
llvm::SmallVector<mlir::OpFoldResult> sizesWithUnit(mlir::OpBuilder &b,
                                                    mlir::Location loc,
                                                    mlir::Value v,
                                                    int64_t axis);

/// Writes `element` into `acc` as slice `position` along `axis`.
mlir::Value insertSlice(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value element, mlir::Value acc,
                        mlir::Value position, int64_t axis);

/// An empty accumulator of `elementType` for `count` scan output elements
/// of `elementSizes` (each static where known) along `axis`.
mlir::Value emptyAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::Type elementType,
                             llvm::ArrayRef<mlir::OpFoldResult> elementSizes,
                             mlir::OpFoldResult count, int64_t axis);

/// An empty accumulator for `count` elements of the statically shaped
/// `elementType` along `axis`.
mlir::Value emptyAccumulator(mlir::OpBuilder &b, mlir::Location loc,
                             mlir::RankedTensorType elementType,
                             mlir::OpFoldResult count, int64_t axis);

/// Scan outputs must be ranked tensors; Scan's, statically shaped ones
/// (`needStatic`). A located "unsupported scan output" error otherwise.
mlir::LogicalResult checkScanElements(NodeContext &ctx, mlir::TypeRange types,
                                      bool needStatic = true);

/// Scan-8 and Scan-9+ (ScanOps.cpp).
mlir::LogicalResult importScan(NodeContext &ctx);

} // namespace mlprog::onnx_import::controlflow

#endif // MLPROG_LIB_IMPORT_ONNX_CONTROLFLOWUTILS_H
