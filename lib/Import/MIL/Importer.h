//===- Importer.h - MIL program importer internals --------------*- C++ -*-===//
//
// Private to MLProgImportMIL. ProgramImporter walks the program (functions,
// blocks, operations) and owns the lexical scopes of named values; each
// operation's handler (<Family>Ops.cpp, through OpTable.cpp) gets an OpContext
// with its named arguments, compile-time parameters and a place to put its
// outputs.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_MIL_IMPORTER_H
#define MLPROG_LIB_IMPORT_MIL_IMPORTER_H

#include "mil.pb.h"

#include "mlprog/Formats/BlobFile.h"
#include "mlprog/Import/Common/OpTable.h"
#include "mlprog/Import/Common/ProgramBuilder.h"
#include "mlprog/Import/MIL/ImportMIL.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include <map>
#include <optional>

namespace mlprog::mil_import {

//===--- Types and values (TypeConversion.cpp) ----------------------------===//

/// The MLIR element type of a MIL data type (unsigned types become
/// signless integers); an error for STRING and UNUSED_TYPE.
mlir::FailureOr<mlir::Type>
convertDataType(mlir::Location loc, mlir::MLIRContext *ctx, mil::DataType type);

/// Whether `type` is one of the MIL unsigned integer types.
bool isUnsignedDataType(mil::DataType type);

/// The ranked tensor type of a MIL tensor ValueType (unknown dims become
/// `?`); an error for non-tensor or unknown-rank types. `what` names the
/// value in the message.
mlir::FailureOr<mlir::RankedTensorType>
convertValueType(mlir::Location loc, mlir::MLIRContext *ctx,
                 const mil::ValueType &type, llvm::StringRef what);

/// The blob dtype storing elements of `type`, if any.
std::optional<mil::BlobDataType> getBlobDataType(mil::DataType type);

/// The elements of an immediate tensor value as an attribute of `type`
/// (static shape) holding `dataType` elements.
mlir::FailureOr<mlir::DenseElementsAttr>
convertTensorValue(mlir::Location loc, const mil::TensorValue &value,
                   mlir::RankedTensorType type, mil::DataType dataType);

/// Compile-time reads of immediate values (operation parameters).
mlir::FailureOr<llvm::SmallVector<int64_t>>
readInts(mlir::Location loc, const mil::Value &value, llvm::StringRef what);
mlir::FailureOr<llvm::SmallVector<double>>
readFloats(mlir::Location loc, const mil::Value &value, llvm::StringRef what);
mlir::FailureOr<std::string>
readString(mlir::Location loc, const mil::Value &value, llvm::StringRef what);

//===--- Importer ---------------------------------------------------------===//

/// A named value in scope: its SSA value and, for `const` outputs and
/// immediate bindings, the compile-time value it came from.
struct NamedValue {
  mlir::Value value;
  const mil::Value *constant = nullptr;
};

class ProgramImporter {
public:
  ProgramImporter(mlir::MLIRContext *ctx, llvm::StringRef file,
                  llvm::StringRef modelDir, const MILImportOptions &options);

  mlir::OwningOpRef<mlir::ModuleOp> run(const mil::Program &program);

  /// `NameLoc(name, file:0:0)`.
  mlir::Location locFor(llvm::StringRef name);

  /// The innermost binding of `name`, or null.
  const NamedValue *lookup(llvm::StringRef name) const;
  /// Binds `name` in the innermost scope; an error if it is already bound
  /// there.
  mlir::LogicalResult define(mlir::Location loc, llvm::StringRef name,
                             NamedValue value);

  /// Materializes a compile-time value as a tensor SSA value: a small
  /// immediate as arith.constant, a large one as a global with an inline
  /// value, a blob as an external global; globals are read with
  /// global_load_const at the builder's insertion point.
  mlir::FailureOr<mlir::Value> materialize(const mil::Value &value,
                                           mlir::Location loc,
                                           llvm::StringRef name);

  /// Imports the operations of `block` in a new scope whose block inputs
  /// are bound to `inputs`, and returns the values of its outputs.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  importBlock(const mil::Block &block, mlir::ValueRange inputs,
              mlir::Location loc);

  mlir::MLIRContext *ctx;
  mlir::OpBuilder builder;

private:
  mlir::LogicalResult importFunction(llvm::StringRef name,
                                     const mil::Function &function);
  /// Marks the inputs of `function` and the outputs of its `block` that the
  /// program declares unsigned (uint2 and wider) on `func`
  /// (ProgramBuilder::markUnsigned).
  void markUnsignedBoundary(FuncOp func, const mil::Function &function,
                            const mil::Block &block);
  mlir::LogicalResult importOperation(const mil::Operation &op, unsigned index);
  mlir::FailureOr<mlir::Value> materializeBlob(const mil::Value &value,
                                               mlir::RankedTensorType type,
                                               mlir::Location loc,
                                               llvm::StringRef name);
  /// Opens the weight blob file `fileName` (`@model_path/...` or relative
  /// to the model's folder) that holds value `valueName`, once per file;
  /// the path is confined to the model's folder (resolveModelPath).
  mlir::FailureOr<const mil::BlobFile *>
  openBlobFile(mlir::Location loc, llvm::StringRef fileName,
               llvm::StringRef valueName);
  mlir::Value loadGlobal(mlir::Location loc, llvm::StringRef name,
                         mlir::RankedTensorType type, mlir::Attribute value,
                         mlir::NamedAttribute *storage);

  llvm::StringRef file;
  std::string modelDir;
  const MILImportOptions &options;
  mlir::Location fileLoc;
  mlir::ModuleOp module;
  /// Where globals go: before the first function.
  mlir::OpBuilder globalBuilder;
  llvm::SmallVector<llvm::StringMap<NamedValue>> scopes;
  /// Symbols of the functions and globals.
  ProgramBuilder programBuilder;
  std::map<std::string, std::unique_ptr<mil::BlobFile>> blobFiles;
};

/// One operation under import.
class OpContext {
public:
  OpContext(ProgramImporter &importer, const mil::Operation &op,
            mlir::Location loc)
      : importer(importer), b(importer.builder), loc(loc), op(op) {}

  ProgramImporter &importer;
  mlir::OpBuilder &b;
  mlir::Location loc;
  const mil::Operation &op;

  /// Whether parameter `name` is bound.
  bool has(llvm::StringRef name) const { return op.inputs().count(name); }
  /// The single tensor bound to parameter `name`; an error if it is absent,
  /// variadic or undefined.
  mlir::FailureOr<mlir::Value> input(llvm::StringRef name);
  /// Parameter `name` if bound (null otherwise); errors as `input`.
  mlir::FailureOr<mlir::Value> optionalInput(llvm::StringRef name);
  /// All tensors bound to (variadic) parameter `name`.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> inputs(llvm::StringRef name);

  /// Compile-time values of parameter `name`; `dflt` when it is absent (an
  /// error when it is absent without a default, or not a compile-time
  /// value).
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  getInts(llvm::StringRef name,
          std::optional<llvm::SmallVector<int64_t>> dflt = std::nullopt);
  mlir::FailureOr<int64_t> getInt(llvm::StringRef name,
                                  std::optional<int64_t> dflt = std::nullopt);
  mlir::FailureOr<double> getFloat(llvm::StringRef name,
                                   std::optional<double> dflt = std::nullopt);
  mlir::FailureOr<bool> getBool(llvm::StringRef name,
                                std::optional<bool> dflt = std::nullopt);
  mlir::FailureOr<std::string>
  getString(llvm::StringRef name,
            std::optional<std::string> dflt = std::nullopt);
  /// The compile-time value bound to `name`, or null (with an error) if it
  /// is not one.
  const mil::Value *getConstant(llvm::StringRef name);

  /// Number of declared outputs.
  unsigned numOutputs() const { return op.outputs_size(); }
  /// Binds output `i` (must be declared) to `value`.
  mlir::LogicalResult setResult(unsigned i, mlir::FailureOr<mlir::Value> value);
  /// Binds output `i` to a compile-time value (const).
  mlir::LogicalResult setConstantResult(unsigned i, mlir::Value value,
                                        const mil::Value *constant);

private:
  /// Binds output `i`, cast to its declared type where compatible.
  mlir::LogicalResult bind(unsigned i, mlir::Value value,
                           const mil::Value *constant);
  const mil::Argument::Binding *single(llvm::StringRef name);
  mlir::FailureOr<mlir::Value> resolve(const mil::Argument::Binding &binding,
                                       llvm::StringRef param);
};

/// Imports one operation; emits diagnostics at `ctx.loc` and fails on error.
using OpHandler = mlir::LogicalResult (*)(OpContext &ctx);

/// The MIL op type -> handler table. Each op family lives in its own source
/// file, whose register function adds its handlers.
using OpTable = mlprog::OpTable<OpHandler>;

/// The table of every family, assembled once (OpTable.cpp).
const OpTable &getOpTable();

/// ElementwiseOps.cpp: arithmetic, unary math, activations, clip, cast.
void registerElementwiseOps(OpTable &table);
/// LogicOps.cpp: comparisons, logical ops, select.
void registerLogicOps(OpTable &table);
/// ReductionOps.cpp: reduce_*, softmax.
void registerReductionOps(OpTable &table);
/// NormalizationOps.cpp: batch_norm, instance_norm, layer_norm.
void registerNormalizationOps(OpTable &table);
/// ContractionOps.cpp: matmul, linear, scaled_dot_product_attention.
void registerContractionOps(OpTable &table);
/// ConvOps.cpp: conv, conv_transpose.
void registerConvOps(OpTable &table);
/// PoolOps.cpp: max_pool, avg_pool, l2_pool.
void registerPoolOps(OpTable &table);
/// ResampleOps.cpp: upsample_nearest_neighbor, upsample_bilinear,
/// resize_nearest_neighbor, resize_bilinear, resize, crop.
void registerResampleOps(OpTable &table);
/// ShapeOps.cpp: reshape, transpose, concat, expand_dims, squeeze, tile, pad,
/// shape, stack, reverse, reverse_sequence, flatten2d, reshape_like,
/// depth_to_space, space_to_depth, pixel_shuffle, pixel_unshuffle,
/// space_to_batch, batch_to_space, sliding_windows.
void registerShapeOps(OpTable &table);
/// SliceGatherOps.cpp: split, slice_by_index, slice_by_size, slice_update,
/// gather, gather_along_axis, gather_nd, scatter, scatter_along_axis,
/// scatter_nd, non_zero, topk, argsort, cumsum.
void registerSliceGatherOps(OpTable &table);
/// CreationOps.cpp: const, fill, fill_like, one_hot, range_1d, band_part.
void registerCreationOps(OpTable &table);
/// ControlFlowOps.cpp: cond, while_loop.
void registerControlFlowOps(OpTable &table);

} // namespace mlprog::mil_import

#endif // MLPROG_LIB_IMPORT_MIL_IMPORTER_H
