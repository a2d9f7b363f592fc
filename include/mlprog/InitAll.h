//===- InitAll.h - Register what mlprog tools use ---------------*- C++ -*-===//
//
// The one list of dialects, extensions and passes our tools register. Never
// registerAllDialects: upstream's MLProgram dialect shares our dialect name.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_INITALL_H
#define MLPROG_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlprog {

/// Adds the ml_program dialect, the dialects of the import contract (func,
/// linalg, tensor, arith, math, scf, cf), those the CPU pipeline lowers
/// through (bufferization, memref, affine, vector, index, ub, llvm), and their
/// interface extensions (bufferization, convert-to-llvm, LLVM IR translation).
void registerMLProgDialects(mlir::DialectRegistry &registry);

/// Registers mlprog's passes, named pipelines, and the upstream passes that a
/// user of mlprog-opt needs to reproduce or adjust those pipelines.
void registerMLProgPasses();

} // namespace mlprog

#endif // MLPROG_INITALL_H
