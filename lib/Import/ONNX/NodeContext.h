//===- NodeContext.h - What an ONNX op handler sees -------------*- C++ -*-===//
//
// Private to MLProgImportONNX. The graph importer owns a GraphState (named
// values, constants, initializer globals); each node's handler gets a
// NodeContext with its operands, attributes (with spec defaults supplied by
// the handler) and a place to put its results.
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_ONNX_NODECONTEXT_H
#define MLPROG_LIB_IMPORT_ONNX_NODECONTEXT_H

#include "mlprog/Import/Common/OpTable.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"

#include "onnx/onnx_pb.h"

namespace mlprog {
struct WindowParams;
} // namespace mlprog

namespace mlprog::onnx_import {

/// The named values of a graph under import.
class GraphState {
public:
  explicit GraphState(mlir::OpBuilder &builder) : builder(builder) {}

  /// Returns the value of `name`, reading an initializer's global (once, at
  /// the current insertion point) on first use; null if `name` is unknown.
  mlir::Value lookup(llvm::StringRef name, mlir::Location loc);
  /// Returns the compile-time value of `name` (initializer or Constant
  /// output), or null.
  /// Strings are never compile-time values: no builder folds them.
  mlir::DenseElementsAttr lookupConstant(llvm::StringRef name) const {
    mlir::DenseElementsAttr value = constants.lookup(name);
    return llvm::isa_and_nonnull<mlir::DenseStringElementsAttr>(value)
               ? mlir::DenseElementsAttr()
               : value;
  }
  void define(llvm::StringRef name, mlir::Value value) { values[name] = value; }
  void defineConstant(llvm::StringRef name, mlir::DenseElementsAttr value) {
    constants[name] = value;
  }
  /// Records an initializer held by global `symbol`.
  void addInitializer(llvm::StringRef name, mlir::DenseElementsAttr value,
                      llvm::StringRef symbol) {
    constants[name] = value;
    initializerSymbols[name] = symbol.str();
  }
  /// Records an initializer whose value is stored outside the model (no
  /// compile-time value) and held by global `symbol` of type `type`.
  void addExternalInitializer(llvm::StringRef name, mlir::Type type,
                              llvm::StringRef symbol) {
    initializerSymbols[name] = symbol.str();
    externalTypes[name] = type;
  }
  bool isInitializer(llvm::StringRef name) const {
    return initializerSymbols.count(name);
  }
  /// ONNX data type of `name` from the graph's value infos, 0 if unknown.
  int32_t dataType(llvm::StringRef name) const {
    return dataTypes.lookup(name);
  }
  void recordDataType(llvm::StringRef name, int32_t type) {
    dataTypes[name] = type;
  }
  /// Records the declared (or inferred) type of a graph value.
  void recordValueInfo(const onnx::ValueInfoProto &info);
  /// The declared (or inferred) type of `name` (a tensor, sequence or
  /// optional type), or null.
  const onnx::TypeProto *declaredType(llvm::StringRef name) const {
    return declaredTypes.lookup(name);
  }
  /// The static shape declared for `name`, if every extent is known.
  std::optional<llvm::SmallVector<int64_t>>
  staticShape(llvm::StringRef name) const;
  /// The elements of `name`, a 0-D or 1-D integer tensor (a shape an
  /// exporter computes), that are known at import time, kDynamic where not:
  /// all of a small integer constant's, else what propagateKnownElements
  /// recorded (the static extents a Shape reads, carried through Gather,
  /// Slice, Concat, ...). Nothing when the value is not tracked.
  std::optional<llvm::SmallVector<int64_t>>
  knownElements(llvm::StringRef name) const;
  void recordKnownElements(llvm::StringRef name,
                           llvm::SmallVector<int64_t> elements) {
    knownShapeElements[name] = std::move(elements);
  }
  /// The block of the graph function: initializer reads requested from a
  /// nested region (If branch, Loop body) are placed before that region's
  /// ancestor op in this block, so they dominate every later use.
  void setEntryBlock(mlir::Block *block) { entryBlock = block; }

  /// Optional values (docs/importers/onnx.md, "Sequences and optionals"):
  /// an optional is its element's value (a placeholder when empty) plus an
  /// i1 flag, recorded here, that says whether it holds the element. Values
  /// without a flag are not optionals (or are known to be present).
  mlir::Value presence(llvm::StringRef name) const {
    return presenceFlags.lookup(name);
  }
  void setPresence(llvm::StringRef name, mlir::Value flag) {
    presenceFlags[name] = flag;
  }
  /// Empty sequences whose element type is not known yet (SequenceEmpty
  /// gives only the element data type): held as [0] tensors of scalars,
  /// they take the shape of the first element inserted, and a loop-carried
  /// or If-produced one takes the other side's shape.
  bool isUntypedSequence(mlir::Value v) const {
    return untypedSequences.contains(v);
  }
  void markUntypedSequence(mlir::Value v) { untypedSequences.insert(v); }

  /// Ragged sequences (mlprog/Import/Common/Sequence.h, docs/importers/
  /// onnx.md "Sequences and optionals"): a sequence whose elements may
  /// differ in shape is its padded data tensor, the value bound to its name,
  /// plus an i64 shapes table recorded here against that data value (so it
  /// follows the value through Identity, OptionalGetElement and subgraph
  /// reads). Null for uniform sequences and other values.
  mlir::Value raggedShapes(mlir::Value data) const {
    return raggedShapesOf.lookup(data);
  }
  void setRaggedShapes(mlir::Value data, mlir::Value shapes) {
    raggedShapesOf[data] = shapes;
  }

private:
  mlir::OpBuilder &builder;
  mlir::Block *entryBlock = nullptr;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<mlir::DenseElementsAttr> constants;
  llvm::StringMap<std::string> initializerSymbols;
  llvm::StringMap<mlir::Type> externalTypes;
  llvm::StringMap<int32_t> dataTypes;
  llvm::StringMap<const onnx::TypeProto *> declaredTypes;
  llvm::StringMap<mlir::Value> presenceFlags;
  llvm::StringMap<llvm::SmallVector<int64_t>> knownShapeElements;
  llvm::DenseSet<mlir::Value> untypedSequences;
  llvm::DenseMap<mlir::Value, mlir::Value> raggedShapesOf;
};

/// Records GraphState::knownElements for the outputs of `node` that are
/// shape arithmetic on partly known values: Shape (the static extents of
/// its input, whose value `state` holds), Gather and Slice with constant
/// indices, Squeeze, Unsqueeze, Identity, integer Cast, Concat, and
/// elementwise Add, Sub, Mul and Div of integers. A Reshape to such a
/// computed shape (`[-1, seq, hidden]` of GPT-2's exports) then keeps the
/// extents that are static. An output whose every element is known (a
/// channel count read from a [batch, C, H, W] activation, halved) becomes
/// an `arith.constant` built with `builder`, so that the nodes reading it
/// fold as they would on a model exported with a static batch.
void propagateKnownElements(GraphState &state, mlir::OpBuilder &builder,
                            const onnx::NodeProto &node, mlir::Location loc);

/// Imports the nodes of an ONNX subgraph (an If branch, a Loop or Scan body)
/// at the builder's insertion point: binds the graph's inputs to `inputs`
/// (in order), lets its nodes read values of the enclosing graphs, and
/// returns the values of its outputs. Errors are emitted and fail.
using SubgraphImporter =
    llvm::function_ref<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(
        const onnx::GraphProto &graph, mlir::ValueRange inputs)>;

/// One node under import.
class NodeContext {
public:
  NodeContext(GraphState &graph, const onnx::NodeProto &node,
              mlir::OpBuilder &builder, mlir::Location loc, int64_t opset)
      : b(builder), loc(loc), opset(opset), node(node), graph(graph) {}

  mlir::OpBuilder &b;
  mlir::Location loc;
  /// Version of the default ("ai.onnx") domain imported by the model.
  int64_t opset;
  const onnx::NodeProto &node;

  /// Whether input `i` is present (ONNX omits optional inputs with "").
  bool hasInput(unsigned i) const {
    return int(i) < node.input_size() && !node.input(i).empty();
  }
  /// Input `i`; an error if it is absent or undefined.
  mlir::FailureOr<mlir::Value> input(unsigned i);
  /// Input `i`, or null if absent.
  mlir::Value optionalInput(unsigned i);
  /// Compile-time value of input `i`; an error if it is not a constant.
  mlir::FailureOr<mlir::DenseElementsAttr> constantInput(unsigned i);
  /// Compile-time value of input `i`, or null if absent or not constant.
  mlir::DenseElementsAttr optionalConstantInput(unsigned i) const {
    return hasInput(i) ? graph.lookupConstant(node.input(i))
                       : mlir::DenseElementsAttr();
  }
  /// Whether input `i` has an unsigned ONNX element type.
  bool isUnsignedInput(unsigned i) const;

  bool hasOutput(unsigned i) const {
    return int(i) < node.output_size() && !node.output(i).empty();
  }
  /// The static shape ONNX shape inference (or the model) gives output `i`.
  std::optional<llvm::SmallVector<int64_t>>
  staticOutputShape(unsigned i) const {
    if (!hasOutput(i))
      return std::nullopt;
    return graph.staticShape(node.output(i));
  }

  /// Attribute `name`, or null.
  const onnx::AttributeProto *attribute(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t dflt) const;
  double getFloat(llvm::StringRef name, double dflt) const;
  std::string getString(llvm::StringRef name, llvm::StringRef dflt) const;
  /// INTS attribute `name`; empty if absent.
  llvm::SmallVector<int64_t> getInts(llvm::StringRef name) const;
  /// GRAPH attribute `name`, or null.
  const onnx::GraphProto *getGraph(llvm::StringRef name) const {
    const onnx::AttributeProto *attr = attribute(name);
    return attr && attr->has_g() ? &attr->g() : nullptr;
  }
  /// Imports subgraphs (set by the graph importer; see SubgraphImporter).
  std::optional<SubgraphImporter> importSubgraph;

  /// Binds output `i` to `value` (ignored if the output is unnamed).
  mlir::LogicalResult setResult(unsigned i, mlir::FailureOr<mlir::Value> value);
  /// Binds output `i` to `value` and records its compile-time value.
  void setConstantResult(unsigned i, mlir::Value value,
                         mlir::DenseElementsAttr constant);
  /// Records the ONNX data type of output `i` when the model declares none
  /// (values inside expanded function bodies), so that consumers can tell
  /// unsigned from signed integers.
  void setOutputDataType(unsigned i, int32_t dataType) {
    if (hasOutput(i) && !graph.dataType(node.output(i)))
      graph.recordDataType(node.output(i), dataType);
  }

  /// The known elements of input `i` (GraphState::knownElements).
  std::optional<llvm::SmallVector<int64_t>>
  knownInputElements(unsigned i) const {
    return hasInput(i) ? graph.knownElements(node.input(i)) : std::nullopt;
  }

  /// The presence flag (i1) of input `i` when it is an optional value,
  /// else null (a tensor or sequence, or an optional known to be present).
  mlir::Value inputPresence(unsigned i) const {
    return hasInput(i) ? graph.presence(node.input(i)) : mlir::Value();
  }
  /// The presence flag of the value named `name` (a subgraph output), or
  /// null.
  mlir::Value presenceOf(llvm::StringRef name) const {
    return graph.presence(name);
  }
  /// Records output `i` as an optional whose presence is the i1 `flag`
  /// (nothing when `flag` is null).
  void setOutputPresence(unsigned i, mlir::Value flag) {
    if (flag && hasOutput(i))
      graph.setPresence(node.output(i), flag);
  }
  /// Records the presence flag of the value named `name` (a subgraph input).
  void setPresenceOf(llvm::StringRef name, mlir::Value flag) {
    if (flag)
      graph.setPresence(name, flag);
  }
  /// See GraphState::isUntypedSequence.
  bool isUntypedSequence(mlir::Value v) const {
    return graph.isUntypedSequence(v);
  }
  void markUntypedSequence(mlir::Value v) { graph.markUntypedSequence(v); }
  /// See GraphState::raggedShapes: the shapes table of the ragged sequence
  /// whose data is `data`, or null.
  mlir::Value raggedShapes(mlir::Value data) const {
    return graph.raggedShapes(data);
  }
  void setRaggedShapes(mlir::Value data, mlir::Value shapes) {
    graph.setRaggedShapes(data, shapes);
  }

private:
  GraphState &graph;
};

/// Imports one node; emits diagnostics at `ctx.loc` and fails on error.
using OpHandler = mlir::LogicalResult (*)(NodeContext &ctx);

/// The ONNX op type -> handler table (default domain). Each op family
/// lives in its own source file, whose register function adds its handlers.
using OpTable = mlprog::OpTable<OpHandler>;

/// The table of every family, assembled once (OpTable.cpp).
const OpTable &getOpTable();

/// ElementwiseOps.cpp: arithmetic, unary math, casts, activations, Dropout,
/// Identity.
void registerElementwiseOps(OpTable &table);
/// LogicOps.cpp: comparisons, And/Or/Xor/Not, Where, IsNaN, IsInf.
void registerLogicOps(OpTable &table);
/// ReductionOps.cpp: Reduce*, ArgMax/ArgMin, CumSum, Softmax, LogSoftmax,
/// Hardmax.
void registerReductionOps(OpTable &table);
/// NormalizationOps.cpp: BatchNormalization, LayerNormalization,
/// InstanceNormalization, GroupNormalization, RMSNormalization, LRN,
/// LpNormalization, MeanVarianceNormalization.
void registerNormalizationOps(OpTable &table);
/// ContractionOps.cpp: MatMul, Gemm, Einsum, Det.
void registerContractionOps(OpTable &table);
/// AttentionOps.cpp: Attention, RotaryEmbedding.
void registerAttentionOps(OpTable &table);
/// ConvOps.cpp: Conv, ConvTranspose.
void registerConvOps(OpTable &table);
/// PoolOps.cpp: MaxPool, AveragePool, LpPool, GlobalAveragePool, GlobalMaxPool,
/// MaxUnpool.
void registerPoolOps(OpTable &table);
/// ShapeOps.cpp: Shape, Size, Reshape, Flatten, (Un)Squeeze, Transpose,
/// Concat, Expand, Tile, DepthToSpace, SpaceToDepth, Pad.
void registerShapeOps(OpTable &table);
/// SliceGatherOps.cpp: Slice, Split, Gather*, Scatter*, NonZero, Compress,
/// TopK, ReverseSequence, NonMaxSuppression.
void registerSliceGatherOps(OpTable &table);
/// CreationOps.cpp: Constant, ConstantOfShape, Range, EyeLike, OneHot, Trilu.
void registerCreationOps(OpTable &table);
/// ResampleOps.cpp: Resize, Upsample, GridSample, RoiAlign (interpolation
/// with ONNX's coordinate transformation modes).
void registerResampleOps(OpTable &table);
/// RecurrentOps.cpp: RNN, GRU, LSTM lowered to scf.for over the sequence.
void registerRecurrentOps(OpTable &table);
/// QuantizationOps.cpp: QuantizeLinear, DequantizeLinear, QLinearMatMul,
/// QLinearConv, MatMulInteger, ConvInteger.
void registerQuantizationOps(OpTable &table);
/// SignalOps.cpp: DFT, STFT (direct Fourier sums), MelWeightMatrix.
void registerSignalOps(OpTable &table);
/// ControlFlowOps.cpp: If, Loop, Scan (ops that carry subgraphs; Scan is in
/// ScanOps.cpp, their shared helpers in ControlFlowUtils.h).
void registerControlFlowOps(OpTable &table);
/// SequenceOps.cpp: Sequence*, ConcatFromSequence, SplitToSequence,
/// Optional, OptionalHasElement, OptionalGetElement (SequenceMap expands to
/// its ONNX function body, a Loop).
void registerSequenceOps(OpTable &table);
/// TrainingOps.cpp: Adagrad, Momentum, Adam (ai.onnx.preview.training).
void registerTrainingOps(OpTable &table);
/// ClassicalMLOps.cpp: Binarizer, ArrayFeatureExtractor (ai.onnx.ml).
void registerClassicalMLOps(OpTable &table);
/// StringOps.cpp: StringNormalizer, StringConcat, StringSplit (Cast to and
/// from STRING is elementwise, Equal on strings a comparison).
void registerStringOps(OpTable &table);

/// Normalizes a possibly negative `axis` against `rank` (ONNX allows
/// [-rank, rank) since opset 11 for most ops, [-rank, rank] for Flatten when
/// `inclusiveEnd`); a located error when out of range.
mlir::FailureOr<int64_t> normalizeAxis(NodeContext &ctx, int64_t axis,
                                       int64_t rank, bool inclusiveEnd = false);

/// Normalizes each of `axes` with normalizeAxis; a located error
/// "<op type>: repeated axis A" when two name the same dim.
mlir::FailureOr<llvm::SmallVector<int64_t>>
normalizeDistinctAxes(NodeContext &ctx, llvm::ArrayRef<int64_t> axes,
                      int64_t rank);
/// Rank of a ranked tensor value.
int64_t rankOf(mlir::Value v);

/// Strides, dilations and pads of Conv/MaxPool/AveragePool (and their
/// integer/quantized variants) for a window of extents `kernel` over
/// `input`; `auto_pad` (NOTSET, VALID, SAME_UPPER, SAME_LOWER) overrides
/// `pads`, which lists all begins then all ends. Located errors on
/// malformed attributes.
mlir::FailureOr<WindowParams> getWindowParams(NodeContext &ctx,
                                              mlir::Value input,
                                              llvm::ArrayRef<int64_t> kernel);

} // namespace mlprog::onnx_import

#endif // MLPROG_LIB_IMPORT_ONNX_NODECONTEXT_H
