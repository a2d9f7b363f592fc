//===- MemRefCalls.h - Host tensors in and out of compiled code -*- C++ -*-===//
//
// Private to lib/Runtime: the JIT runner's side of the calling convention
// JitRunner.h describes. Inputs become the expanded memref descriptors (or
// scalars) of the packed wrapper's arguments; results are read out of the
// returned LLVM struct of descriptors, handed over or copied, and the
// buffers the compiled code allocated are freed once.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_RUNTIME_MEMREFCALLS_H
#define MLPROG_LIB_RUNTIME_MEMREFCALLS_H

#include "mlprog/Formats/Npy.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlprog::memref_calls {

/// `type` as MLIR prints it ("tensor<?x4xf32>").
std::string typeToString(mlir::Type type);

/// The element type of a tensor, or the scalar type itself.
mlir::Type getElementType(mlir::Type type);

/// Rank of a tensor type; 0 for scalars.
int64_t getRank(mlir::Type type);

/// Appends the expanded LLVM arguments of `tensor` passed as a value of
/// `type` to `slots`: a memref descriptor (allocated, aligned, offset,
/// sizes, strides; contiguous row-major) pointing at the tensor's bytes,
/// which are not copied, or one scalar in the low bytes of a slot (the
/// packed wrapper loads it with its own type; little-endian).
void appendArgument(std::vector<uint64_t> &slots, mlir::Type type,
                    const HostTensor &tensor);

/// Where one result lives in the returned LLVM struct.
struct ResultField {
  mlir::Type type;
  DType dtype;
  size_t offset;
};

/// Lays out the result struct of `types` with natural alignment:
/// descriptors are 3 + 2 * rank 64-bit words, scalars their dtype size.
/// Returns the fields and sets `size` to the struct's size in bytes.
llvm::SmallVector<ResultField> layoutResults(llvm::ArrayRef<mlir::Type> types,
                                             size_t &size);

/// Frees the buffers one call returned in `results` and allocated: each
/// distinct allocated pointer once, never null, one of `inputs`' buffers or
/// memref.get_global's sentinel.
void freeResults(llvm::ArrayRef<ResultField> fields, const uint8_t *results,
                 llvm::ArrayRef<HostTensor> inputs);

/// Reads every result of one call out of `results` and releases the buffers
/// it allocated (as freeResults picks them): the tensors take over the dense
/// ones (freed with the last tensor over them), the others are copied and
/// freed. Errors: a result whose runtime shape contradicts its static type.
llvm::Expected<std::vector<HostTensor>>
takeResults(llvm::ArrayRef<ResultField> fields, const uint8_t *results,
            llvm::ArrayRef<HostTensor> inputs);

} // namespace mlprog::memref_calls

#endif // MLPROG_LIB_RUNTIME_MEMREFCALLS_H
