//===- Passes.h - ml_program transformation passes --------------*- C++ -*-===//

#ifndef MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_H
#define MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlprog {

#define GEN_PASS_DECL
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h.inc"

} // namespace mlprog

#endif // MLPROG_DIALECT_MLPROGRAM_TRANSFORMS_PASSES_H
