//===- MLProgramToMemRef.h - ml_program to func/memref ----------*- C++ -*-===//

#ifndef MLPROG_CONVERSION_MLPROGRAMTOMEMREF_MLPROGRAMTOMEMREF_H
#define MLPROG_CONVERSION_MLPROGRAMTOMEMREF_MLPROGRAMTOMEMREF_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlprog {

#define GEN_PASS_DECL_CONVERTMLPROGRAMTOMEMREF
#include "mlprog/Conversion/Passes.h.inc"

/// Name of the function `--convert-ml-program-to-memref` adds when a module
/// has mutable globals with dynamic bounding types: it frees their heap
/// buffers (and resets them to their initial values). A runner calls it, when
/// present, before it destroys the compiled code.
inline constexpr llvm::StringLiteral kReleaseGlobalsFunction =
    "__mlprog_release_globals";

} // namespace mlprog

#endif // MLPROG_CONVERSION_MLPROGRAMTOMEMREF_MLPROGRAMTOMEMREF_H
