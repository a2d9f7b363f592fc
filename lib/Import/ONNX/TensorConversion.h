//===- TensorConversion.h - ONNX types and tensors to MLIR ------*- C++ -*-===//
//
// Private to MLProgImportONNX.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_ONNX_TENSORCONVERSION_H
#define MLPROG_LIB_IMPORT_ONNX_TENSORCONVERSION_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"

#include "onnx/onnx_pb.h"

#include <string>

namespace mlprog::onnx_import {

/// Maps an ONNX TensorProto::DataType to an MLIR element type (integers
/// signless); emits an error at `loc` for unsupported ones (string, complex).
mlir::FailureOr<mlir::Type> convertElementType(mlir::Location loc,
                                               int32_t dataType);

/// The TensorProto::DataType spelling of `dataType` (FLOAT, UINT8, ...,
/// FLOAT8E4M3FN and the other types newer than libonnx 1.12), or "invalid".
std::string getDataTypeName(int32_t dataType);

/// True for ONNX unsigned integer data types.
bool isUnsignedDataType(int32_t dataType);

/// Maps the tensor TypeProto of value `name` to a ranked tensor type;
/// unknown or symbolic extents become dynamic. Unranked tensors and
/// sequence/optional/map/sparse values are "unsupported ..." errors.
mlir::FailureOr<mlir::RankedTensorType>
convertTensorType(mlir::Location loc, llvm::StringRef name,
                  const onnx::TypeProto &type);

/// Converts a TensorProto (raw_data or typed repeated fields) to a dense
/// elements attribute. External data and size mismatches are errors.
mlir::FailureOr<mlir::DenseElementsAttr>
convertTensor(mlir::Location loc, const onnx::TensorProto &tensor);

} // namespace mlprog::onnx_import

#endif // MLPROG_LIB_IMPORT_ONNX_TENSORCONVERSION_H
