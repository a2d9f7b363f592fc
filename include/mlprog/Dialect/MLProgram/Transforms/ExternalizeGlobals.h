//===- ExternalizeGlobals.h - Weights out of the IR -------------*- C++ -*-===//
//
// The function behind --mlprog-externalize-globals, for the tools that write
// weights beside the IR they produce (mlprog-translate, Python's
// Module.save): DESIGN.md rule 3, weights live in a bundle, not in IR text.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_EXTERNALIZEGLOBALS_H
#define MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_EXTERNALIZEGLOBALS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace mlprog {

/// Moves the inline initial value (a dense or dense_resource elements
/// attribute) of every `ml_program.global` of `module` that holds at least
/// `threshold` bytes into the safetensors bundle `bundlePath`, keyed by the
/// global's symbol name, and makes it `#ml_program.extern : T` with
/// `ml_program.external_storage = #ml_program.external_storage<file =
/// storagePath, key = "name">` (`storagePath` empty: the bundle's file name,
/// which the runners resolve against the IR file's directory).
///
/// Mutable globals (state: a KV cache, a counter) stay inline; their
/// initial values are usually zeros, which the IR keeps as one splat.
///
/// The bundle is written atomically (a temporary file renamed into place)
/// and only when at least one global moves. Element types a bundle cannot
/// hold (index, complex, i4 and other widths that are not 1, 8, 16, 32 or
/// 64 bits) stay inline, with a remark when the value is large enough to
/// have moved. Returns the
/// number of globals moved, or failure with an error on `module` (nothing
/// changed) when the bundle cannot be written.
mlir::FailureOr<unsigned> externalizeGlobals(mlir::ModuleOp module,
                                             llvm::StringRef bundlePath,
                                             uint64_t threshold,
                                             llvm::StringRef storagePath = "");

} // namespace mlprog

#endif // MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_EXTERNALIZEGLOBALS_H
