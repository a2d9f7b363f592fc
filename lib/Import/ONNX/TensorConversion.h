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

/// TensorProto::DataType values newer than libonnx 1.12's enum (onnx.proto of
/// onnx 1.23).
enum NewerDataType : int32_t {
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUInt4 = 21,
  kInt4 = 22,
  kFloat4E2M1 = 23,
  kFloat8E8M0 = 24,
  kUInt2 = 25,
  kInt2 = 26,
};

/// Maps an ONNX TensorProto::DataType to an MLIR element type (integers
/// signless: uint4/int4 are i4, uint2/int2 i2; the 8- and 4-bit floats are
/// the builtin f8E4M3FN, f8E4M3FNUZ, f8E5M2, f8E5M2FNUZ, f8E8M0FNU and
/// f4E2M1FN); emits an error at `loc` for unsupported ones (string, complex,
/// the 6-bit floats).
mlir::FailureOr<mlir::Type> convertElementType(mlir::Location loc,
                                               int32_t dataType);

/// The TensorProto::DataType spelling of `dataType` (FLOAT, UINT8, ...,
/// FLOAT8E4M3FN and the other types newer than libonnx 1.12), or "invalid".
std::string getDataTypeName(int32_t dataType);

/// True for ONNX unsigned integer data types (uint2 to uint64).
bool isUnsignedDataType(int32_t dataType);

/// Maps the tensor TypeProto of value `name` to a ranked tensor type;
/// unknown or symbolic extents become dynamic. Unranked tensors and
/// sequence/optional/map/sparse values are "unsupported ..." errors.
mlir::FailureOr<mlir::RankedTensorType>
convertTensorType(mlir::Location loc, llvm::StringRef name,
                  const onnx::TypeProto &type);

/// How a graph input or output is passed to and from `@main`
/// (docs/importers/onnx.md, "Sequences and optionals"): a tensor as itself,
/// a sequence of tensors whose element shape is declared static as one
/// stacked tensor [n, element dims] (n dynamic), any other sequence as a
/// ragged one (its padded data [n, element dims], then its i64 shapes
/// table [n, rank]), an optional as its element.
struct BoundaryType {
  /// Null for a sequence output whose element rank the model does not
  /// declare: the imported value's type is used. For a ragged sequence, the
  /// type of its data.
  mlir::RankedTensorType type;
  /// The ONNX TensorProto::DataType of the (element) tensors.
  int32_t dataType = 0;
  bool sequence = false;
  bool optional = false;
  /// A sequence passed as data and shapes (its element shape is not
  /// declared, or not static).
  bool ragged = false;
};

/// The BoundaryType of graph input (or, when `isOutput`, output) `name` of
/// ONNX type `type`. Errors: the convertTensorType errors; "unsupported"
/// maps, sparse tensors, optionals of optionals, sequences of non-tensors,
/// and sequence inputs of unknown element rank.
mlir::FailureOr<BoundaryType> convertBoundaryType(mlir::Location loc,
                                                  llvm::StringRef name,
                                                  const onnx::TypeProto &type,
                                                  bool isOutput);

/// Converts a TensorProto (raw_data or typed repeated fields) to a dense
/// elements attribute. 4- and 2-bit elements, packed two or four to a byte
/// from the least significant bits up in raw_data and int32_data, come out
/// one per attribute element. External data and size mismatches are errors.
mlir::FailureOr<mlir::DenseElementsAttr>
convertTensor(mlir::Location loc, const onnx::TensorProto &tensor);

} // namespace mlprog::onnx_import

#endif // MLPROG_LIB_IMPORT_ONNX_TENSORCONVERSION_H
