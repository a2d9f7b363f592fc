//===- MLProgramStringsToLLVM.h - String tensors to runtime calls -*- C++
//-*-===//

#ifndef MLPROG_CONVERSION_MLPROGRAMSTRINGSTOLLVM_MLPROGRAMSTRINGSTOLLVM_H
#define MLPROG_CONVERSION_MLPROGRAMSTRINGSTOLLVM_MLPROGRAMSTRINGSTOLLVM_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlprog {

#define GEN_PASS_DECL_CONVERTMLPROGRAMSTRINGSTOLLVM
#include "mlprog/Conversion/Passes.h.inc"

} // namespace mlprog

#endif // MLPROG_CONVERSION_MLPROGRAMSTRINGSTOLLVM_MLPROGRAMSTRINGSTOLLVM_H
