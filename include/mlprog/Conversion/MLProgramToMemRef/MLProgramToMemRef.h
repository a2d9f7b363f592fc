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

} // namespace mlprog

#endif // MLPROG_CONVERSION_MLPROGRAMTOMEMREF_MLPROGRAMTOMEMREF_H
