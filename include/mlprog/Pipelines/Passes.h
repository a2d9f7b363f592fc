//===- Passes.h - Passes of the CPU and GPU pipelines -----------*- C++ -*-===//

#ifndef MLPROG_PIPELINES_PASSES_H
#define MLPROG_PIPELINES_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlprog {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "mlprog/Pipelines/Passes.h.inc"

} // namespace mlprog

#endif // MLPROG_PIPELINES_PASSES_H
