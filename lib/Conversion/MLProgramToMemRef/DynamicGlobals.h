//===- DynamicGlobals.h - Mutable globals with dynamic extents --*- C++ -*-===//
//
// Private to --convert-ml-program-to-memref: how a mutable global whose
// bounding type has dynamic extents is kept (a heap buffer reached through a
// box global), shared by MLProgramToMemRef.cpp (loads and stores) and
// AppendInPlace.cpp (stores that append to the value along one dimension).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_CONVERSION_MLPROGRAMTOMEMREF_DYNAMICGLOBALS_H
#define MLPROG_LIB_CONVERSION_MLPROGRAMTOMEMREF_DYNAMICGLOBALS_H

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlprog::ml_program_to_memref {

/// The state behind a mutable global whose bounding type has dynamic
/// extents. Its current value lives in a heap buffer; `box` (a rank-0 memref
/// holding that buffer's memref) points at it once `stored` (a rank-0 i1
/// memref, initially false) is set. Until the first store, reads see the
/// initial-value buffer, the `memref.global` named like the
/// `ml_program.global`. Buffers are marked
/// `bufferization.manual_deallocation` so that buffer deallocation leaves
/// them alone.
///
/// A global that a function appends to (AppendInPlace.cpp) has an
/// `appendDim`: its buffer has room for `capacity` (a rank-0 i64 memref)
/// entries along that dimension, of which the value uses the first
/// `memref.dim` ones, so `valueType` has a strided layout (dynamic strides
/// outside the rows of `appendDim`, offset 0). Other globals' buffers have
/// exactly the value's shape and `valueType` the identity layout.
struct DynamicGlobalState {
  /// The value's memref type: the bounding type's shape.
  mlir::MemRefType valueType;
  mlir::FlatSymbolRefAttr box;
  mlir::FlatSymbolRefAttr stored;
  /// Set for a global some function appends to.
  std::optional<int64_t> appendDim;
  mlir::FlatSymbolRefAttr capacity;
};

/// Loads the `stored` flag of a dynamic global.
mlir::Value loadStoredFlag(mlir::RewriterBase &rewriter, mlir::Location loc,
                           const DynamicGlobalState &state);

/// Loads the buffer that holds the current value of a dynamic global.
mlir::Value loadBoxedBuffer(mlir::RewriterBase &rewriter, mlir::Location loc,
                            const DynamicGlobalState &state);

/// The buffer holding the current value of a dynamic global: the boxed
/// buffer once stored to, `initial` (the initial-value buffer) before.
mlir::Value getCurrentBuffer(mlir::RewriterBase &rewriter, mlir::Location loc,
                             const DynamicGlobalState &state,
                             mlir::Value initial);

/// Points the box of a dynamic global at `buffer` (of `valueType`) and sets
/// its `stored` flag.
void setBoxedBuffer(mlir::RewriterBase &rewriter, mlir::Location loc,
                    const DynamicGlobalState &state, mlir::Value buffer);

/// A store `global_store @g = concat(global_load @g, x)` along one dynamic
/// dimension of @g's bounding type, where the load is read in place and the
/// store is the last access to @g in its call. The concatenation is a
/// `tensor.concat` of the two, or what the ONNX importer builds for a KV
/// cache's `present = Concat(past, new)`:
///   insert_slice(x into insert_slice(load into tensor.empty) at len)
/// where the empty has the load's extents plus x's along the dimension and
/// the load may come through full copies of itself (insert_slices into an
/// empty of its own extents).
struct AppendMatch {
  GlobalStoreOp store;
  GlobalLoadOp load;
  /// The op whose result is the concatenation.
  mlir::Operation *concat;
  /// x.
  mlir::Value appended;
  int64_t dim;
};

/// Matches `store` as an append (AppendMatch) whose load `isInPlaceRead`
/// says is read in place; nothing otherwise.
std::optional<AppendMatch>
matchAppend(GlobalStoreOp store,
            llvm::function_ref<bool(GlobalLoadOp)> isInPlaceRead);

/// What lowerAppend leaves for the store that ends the append.
struct PendingAppend {
  /// The buffer now holding the value (a view of `valueType`).
  mlir::Value buffer;
  /// The buffer that held the old value, and whether it must be freed at
  /// the store (it was boxed and the append moved to a bigger one).
  mlir::Value previous;
  mlir::Value freePrevious;
};

/// Rewrites the concatenation of `match` into an append in place, at the
/// final insert_slice: the new rows of `x` are written at the current
/// length of the global's buffer when its capacity allows (no copy of the
/// old value), else into a new buffer of twice the capacity (at least the
/// new length) after a copy of the old value. The concatenation's users
/// read the buffer. `initial` is the initial-value buffer. Returns what the
/// store must finish (finishAppend).
PendingAppend lowerAppend(mlir::RewriterBase &rewriter,
                          const AppendMatch &match,
                          const DynamicGlobalState &state, mlir::Value initial);

/// Finishes an append at its store: frees the old buffer if the append
/// moved, and boxes the new one.
void finishAppend(mlir::RewriterBase &rewriter, mlir::Location loc,
                  const DynamicGlobalState &state,
                  const PendingAppend &pending);

/// The strided layout `valueType` takes for a global appended to along
/// `dim` of `shape` (see DynamicGlobalState).
mlir::MemRefType getAppendableType(mlir::MemRefType identity, int64_t dim);

} // namespace mlprog::ml_program_to_memref

#endif // MLPROG_LIB_CONVERSION_MLPROGRAMTOMEMREF_DYNAMICGLOBALS_H
