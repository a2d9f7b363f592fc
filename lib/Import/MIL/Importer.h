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

/// What the importer knows of a MIL list (make_list and the list ops,
/// ListOps.cpp). A list is held as one tensor [length, element dims...]
/// (mlprog/Import/Common/Sequence.h), a NamedValue's `value`, once its
/// element shape is known.
struct ListInfo {
  /// make_list's dynamic_length: whether a write past the end grows the
  /// list (the tensor's extent 0 is then dynamic once it may have grown).
  bool dynamicLength = true;
  /// Set while the element shape is unknown (make_list with a symbolic
  /// elem_shape, before the first list_write/list_scatter fixes it; the
  /// NamedValue's `value` is null meanwhile): the length (index) and the
  /// element type.
  mlir::Value pendingLength;
  mlir::Type elementType;
};

/// A named value in scope: its SSA value and, for `const` outputs and
/// immediate bindings, the compile-time value it came from; for MIL lists,
/// what ListInfo says.
struct NamedValue {
  mlir::Value value;
  const mil::Value *constant = nullptr;
  std::optional<ListInfo> list;
  /// The value's declared MIL type is an unsigned integer (uint8...), which
  /// its signless MLIR type cannot tell: cast and dequantize read it.
  bool isUnsigned = false;
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

  /// The raw little-endian bytes of a compile-time value held as immediate
  /// bytes or in a weight blob (the blob record is validated); a failure
  /// without a diagnostic for other encodings (ints, floats, ...).
  mlir::FailureOr<llvm::ArrayRef<char>>
  getConstantBytes(const mil::Value &value, mlir::Location loc,
                   llvm::StringRef name);

  /// Imports the operations of `block` in a new scope whose block inputs
  /// are bound to `inputs` (tensors or lists), and returns its outputs.
  mlir::FailureOr<llvm::SmallVector<NamedValue>>
  importBlock(const mil::Block &block, llvm::ArrayRef<NamedValue> inputs,
              mlir::Location loc);

  /// Core ML states (iOS18, StateOps.cpp): binds the function input
  /// `input` of StateType (a wrapped tensor of static shape) to a private
  /// mutable global of that tensor type, initially zeros, which read_state
  /// loads and coreml_update_state stores. Functions of one program share
  /// the global of a state name. Errors: a non-tensor or dynamically shaped
  /// state, or one name with two types.
  mlir::LogicalResult declareState(const mil::NamedValueType &input);
  /// The global of state `name` (declareState), or null.
  GlobalOp lookupState(llvm::StringRef name) const {
    return states.lookup(name);
  }

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
  /// State input name -> its mutable global (declareState).
  llvm::StringMap<GlobalOp> states;
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
  /// Whether the value bound to input `name` is declared an unsigned
  /// integer (a function input or op output of MIL type uint8...); false
  /// for absent inputs and tuples.
  bool isUnsignedInput(llvm::StringRef name);
  mlir::FailureOr<mlir::Value> optionalInput(llvm::StringRef name);
  /// All tensors bound to (variadic) parameter `name`.
  mlir::FailureOr<llvm::SmallVector<mlir::Value>> inputs(llvm::StringRef name);
  /// The single value bound to parameter `name`, a tensor or a list (a
  /// list's `value` is null while its element shape is unknown).
  mlir::FailureOr<NamedValue> namedInput(llvm::StringRef name);
  /// All values (tensors or lists) bound to (variadic) parameter `name`.
  mlir::FailureOr<llvm::SmallVector<NamedValue>>
  namedInputs(llvm::StringRef name);
  /// The compile-time value bound to `name` if it is one (an immediate or a
  /// `const` output), else null; never an error.
  const mil::Value *peekConstant(llvm::StringRef name) const;

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
  /// Binds output `i` to `value`, a tensor (as setResult) or a list (its
  /// declared type must then be a MIL list type).
  mlir::LogicalResult setNamedResult(unsigned i, const NamedValue &value);
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
  mlir::FailureOr<NamedValue>
  resolveNamed(const mil::Argument::Binding &binding, llvm::StringRef param);
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
/// ReductionOps.cpp: reduce_* (arg max/min and norms too), softmax.
void registerReductionOps(OpTable &table);
/// NormalizationOps.cpp: batch_norm, instance_norm, layer_norm, l2_norm,
/// local_response_norm.
void registerNormalizationOps(OpTable &table);
/// ContractionOps.cpp: matmul, linear, einsum, scaled_dot_product_attention.
void registerContractionOps(OpTable &table);
/// ConvOps.cpp: conv, conv_transpose.
void registerConvOps(OpTable &table);
/// RecurrentOps.cpp: lstm, gru, rnn.
void registerRecurrentOps(OpTable &table);
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
/// CompressionOps.cpp: the constexpr_* weight decompression ops of iOS16
/// and iOS18 (affine and blockwise dequantize, LUT, sparse, cast).
void registerCompressionOps(OpTable &table);
/// The element type of the MIL list type `type` (unknown dims dynamic); an
/// error when `type` is not a list of tensors. `what` names the value.
mlir::FailureOr<mlir::RankedTensorType>
convertListElementType(mlir::Location loc, mlir::MLIRContext *ctx,
                       const mil::ValueType &type, llvm::StringRef what);

/// `list` with its tensor made: a list whose element shape is still unknown
/// (ListInfo::pendingLength) gets zero elements of the static element type
/// that `declared` (a MIL list type, may be null) gives, else of `inferred`
/// (may be null); a located "unsupported" error when neither is static.
/// Other lists are returned as is.
mlir::FailureOr<NamedValue>
materializeList(OpContext &ctx, const NamedValue &list,
                const mil::ValueType *declared, llvm::StringRef what,
                mlir::RankedTensorType inferred = {});

/// ListOps.cpp: make_list, list_length, list_read, list_write, list_gather,
/// list_scatter.
void registerListOps(OpTable &table);
/// StateOps.cpp: read_state, coreml_update_state, write_state.
void registerStateOps(OpTable &table);

} // namespace mlprog::mil_import

#endif // MLPROG_LIB_IMPORT_MIL_IMPORTER_H
