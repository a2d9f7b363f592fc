//===- Contraction.h - Matmul and gemm builders -----------------*- C++ -*-===//
//
// Format-independent builders for matrix products on ranked tensors, emitted
// as upstream named linalg ops where one fits (linalg.matmul,
// linalg.batch_matmul) and as a broadcasting linalg.generic otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_CONTRACTION_H
#define MLPROG_IMPORT_COMMON_CONTRACTION_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

namespace mlprog {

/// numpy `matmul(a, b)`: a is [..., M, K], b is [..., K, N]; the batch
/// dimensions broadcast; a 1-D `a` is [K] -> [1, K] and a 1-D `b` is
/// [K] -> [K, 1], the added dimension being removed from the result.
/// Operands share one float or signless integer element type; accumulation
/// is in that type. Dynamic batch, M and N extents are supported.
///
/// Errors: rank-0 operands, mismatched element types or static K.
/// Spec: ONNX MatMul (numpy.matmul semantics).
mlir::FailureOr<mlir::Value> buildMatMul(mlir::OpBuilder &b, mlir::Location loc,
                                         mlir::Value a, mlir::Value bm);

/// General matrix multiply `Y = alpha * op(A) * op(B) + beta * C`, with
/// op(X) = X^T when the trans flag is set. A and B are 2-D; `c` may be null
/// (treated as 0) or any tensor unidirectionally broadcastable to [M, N].
/// Integer element types need alpha == beta == 1.
/// Spec: ONNX Gemm (opset 11+: C optional).
mlir::FailureOr<mlir::Value> buildGemm(mlir::OpBuilder &b, mlir::Location loc,
                                       mlir::Value a, mlir::Value bm,
                                       mlir::Value c, double alpha, double beta,
                                       bool transA, bool transB);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_CONTRACTION_H
