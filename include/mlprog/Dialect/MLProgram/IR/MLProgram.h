//===- MLProgram.h - ml_program dialect -------------------------*- C++ -*-===//
//
// The ml_program dialect (C++ namespace `mlprog`): callables, globals, global
// accessors and tokens. See MLProgramOps.td for each op's contract.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAM_H
#define MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAM_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mlprog/Dialect/MLProgram/IR/MLProgramDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "mlprog/Dialect/MLProgram/IR/MLProgramTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mlprog/Dialect/MLProgram/IR/MLProgramAttrs.h.inc"

#define GET_OP_CLASSES
#include "mlprog/Dialect/MLProgram/IR/MLProgramOps.h.inc"

namespace mlprog {

/// Unit attribute on an argument or result of a public callable: the model
/// declared that value unsigned (ONNX `uint8`, Core ML `uint16`, ...). The
/// program body stays signless; only the host boundary (runners, the AOT C
/// ABI, Python) reads the marker, through `getHostSignature`. Verified by the
/// dialect: the value is a signless integer wider than one bit, or a shaped
/// type of them.
inline constexpr llvm::StringLiteral kUnsignedAttrName = "ml_program.unsigned";

/// The signature a host caller sees: the function type of `func` with each
/// argument and result marked `kUnsignedAttrName` spelled with the unsigned
/// integer type of the same width (`tensor<4xi8>` becomes `tensor<4xui8>`,
/// `i16` becomes `ui16`); everything else unchanged. Null when `func` does
/// not have a builtin FunctionType (an llvm.func).
mlir::FunctionType getHostSignature(mlir::FunctionOpInterface func);

/// Returns true when a value of type `actual` may be held by a global whose
/// bounding type is `bound`: equal types, or shaped types with the same
/// element type and rank whose extents agree wherever `bound` is static
/// (RFC v2, "bounding type").
bool isCompatibleWithBoundingType(mlir::Type actual, mlir::Type bound);

/// Whether an op may read and/or write a global.
struct GlobalAccess {
  bool reads = false;
  bool writes = false;
  static GlobalAccess all() { return {true, true}; }
};

/// How `op` (with everything nested in it, for ops with recursive memory
/// effects) may access the global `global`. Only the global accessors and
/// calls reach a global, so other memory effects do not count; an op of
/// unknown effects may do anything. Calls are answered by `callAccess`, or
/// as reading and writing every global when it is null. Used by
/// canonicalization (RFC v2 memory semantics: non-atomic, non-volatile) and
/// --mlprog-pipeline-globals.
GlobalAccess getGlobalAccess(
    mlir::Operation *op, mlir::SymbolRefAttr global,
    llvm::function_ref<GlobalAccess(mlir::CallOpInterface)> callAccess =
        nullptr);

} // namespace mlprog

#endif // MLPROG_DIALECT_MLPROGRAM_IR_MLPROGRAM_H
