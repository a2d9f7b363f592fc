//===- GraphImporter.h - TorchScript graph -> ml_program --------*- C++ -*-===//
//
// Private to MLProgImportTorchScript. Includes libtorch headers: the
// translation units that include this file are compiled with RTTI (libtorch
// needs it) and must not define subclasses of LLVM/MLIR polymorphic classes
// (whose typeinfo libLLVM/libMLIR, built without RTTI, do not export).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_LIB_IMPORT_TORCHSCRIPT_GRAPHIMPORTER_H
#define MLPROG_LIB_IMPORT_TORCHSCRIPT_GRAPHIMPORTER_H

#include "mlprog/Import/Common/OpTable.h"
#include "mlprog/Import/Common/ProgramBuilder.h"
#include "mlprog/Import/TorchScript/ImportTorchScript.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/ir/ir.h>

#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace mlprog::torchscript {

/// What a TorchScript value is during import. Tensors and scalars carry an
/// MLIR value (scalars: i64 for int, f64 for float, i1 for bool) and, when
/// known at import time, the constant; lists and tuples are import-time
/// sequences (a list is shared, so `append` through one torch value is seen
/// through every alias); objects are module instances.
struct TSValue {
  enum class Kind {
    None,
    Tensor,
    Int,
    Float,
    Bool,
    Str,
    List,
    Tuple,
    Object,
    Device,
    Other
  };
  Kind kind = Kind::None;
  mlir::Value value;
  std::optional<int64_t> intConst;
  std::optional<double> floatConst;
  std::optional<bool> boolConst;
  std::string str;
  std::shared_ptr<std::vector<TSValue>> elems;
  c10::intrusive_ptr<c10::ivalue::Object> object;
  std::string path; ///< attribute path of an object ("" for the root)
  /// Tensor made from a Python number (prim::NumToTensor): promotes like a
  /// scalar (torch "wrapped number").
  bool wrappedNumber = false;

  bool isTensor() const { return kind == Kind::Tensor; }
  bool isScalar() const {
    return kind == Kind::Int || kind == Kind::Float || kind == Kind::Bool;
  }
  bool isNone() const { return kind == Kind::None; }
  /// True when the scalar's value is known at import time.
  bool isConstScalar() const {
    return intConst.has_value() || floatConst.has_value() ||
           boolConst.has_value();
  }
  /// The known scalar value as a double.
  std::optional<double> asDouble() const {
    if (intConst)
      return double(*intConst);
    if (floatConst)
      return *floatConst;
    if (boolConst)
      return double(*boolConst);
    return std::nullopt;
  }

  static TSValue none() { return TSValue(); }
  static TSValue tensor(mlir::Value v) {
    TSValue t;
    t.kind = Kind::Tensor;
    t.value = v;
    return t;
  }
  static TSValue ofInt(int64_t i) {
    TSValue t;
    t.kind = Kind::Int;
    t.intConst = i;
    return t;
  }
  static TSValue ofFloat(double f) {
    TSValue t;
    t.kind = Kind::Float;
    t.floatConst = f;
    return t;
  }
  static TSValue ofBool(bool b) {
    TSValue t;
    t.kind = Kind::Bool;
    t.boolConst = b;
    return t;
  }
  static TSValue scalar(Kind kind, mlir::Value v) {
    TSValue t;
    t.kind = kind;
    t.value = v;
    return t;
  }
  static TSValue list(std::vector<TSValue> elems, Kind kind = Kind::List) {
    TSValue t;
    t.kind = kind;
    t.elems = std::make_shared<std::vector<TSValue>>(std::move(elems));
    return t;
  }
};

class Importer;

/// Imports one node; returns failure after emitting a diagnostic.
using OpHandler = mlir::LogicalResult (*)(Importer &, torch::jit::Node *);

/// The aten handler table, keyed by `ns::name.overload` (checked first) and
/// `ns::name`. Each op family lives in its own source file, whose register
/// function adds its handlers.
using OpTable = mlprog::OpTable<OpHandler>;

/// The table of every family, assembled once (OpTable.cpp).
const OpTable &getOpTable();

/// ElementwiseOps.cpp: arithmetic, unary math, activations, dtype casts.
void registerElementwiseOps(OpTable &table);
/// MathOps.cpp: trigonometric/hyperbolic and special functions, float
/// classification, C99 binary functions, lerp/addcmul/isclose, identities of
/// real tensors, parameterized activations (shrink, threshold, glu, prelu).
void registerMathOps(OpTable &table);
/// SpecialOps.cpp: torch.special orthogonal polynomials, mvlgamma,
/// polygamma, zeta, igamma/igammac, ndtri, spherical_bessel_j0.
void registerSpecialOps(OpTable &table);
/// LogicOps.cpp: comparisons, logical/bitwise ops, where, masked_fill.
void registerLogicOps(OpTable &table);
/// ReductionOps.cpp: sum/mean/prod, amax/amin, max/min, arg max/min,
/// var/std (and _mean), softmax, log_softmax, norms, logsumexp, all/any,
/// order statistics (median, mode, kthvalue), cumulative extremes, diff,
/// distances.
void registerReductionOps(OpTable &table);
/// NormalizationOps.cpp: batch_norm (and the native/_legit/_with_update
/// forms), layer_norm, group_norm, instance_norm, rms_norm, renorm.
void registerNormalizationOps(OpTable &table);
/// ContractionOps.cpp: matmul/mm/bmm, linear, addmm, t, dot/vdot/mv/outer/
/// inner and their add* forms, tensordot, einsum, multi_dot, matrix_power,
/// cross, bilinear.
void registerContractionOps(OpTable &table);
/// ConvOps.cpp: conv{1,2,3}d, convolution, _convolution, _convolution_mode,
/// transposed convolution.
void registerConvOps(OpTable &table);
/// PoolOps.cpp: max pooling (with indices), average pooling, adaptive
/// average and max pooling, max unpooling, embedding_bag.
void registerPoolOps(OpTable &table);
/// ShapeOps.cpp: view/reshape, flatten, permute/transpose, (un)squeeze,
/// cat/stack, expand, copy (the value of copy_), pad.
void registerShapeOps(OpTable &table);
/// RearrangeOps.cpp: tril/triu, flips/rot90/roll, repeat/tile, meshgrid,
/// kron/block_diag, shuffles, unfold/im2col, the diagonal family.
void registerRearrangeOps(OpTable &table);
/// StridedOps.cpp: as_strided(_copy, _scatter), repeat_interleave,
/// combinations, _chunk_cat, masked_scatter.
void registerStridedOps(OpTable &table);
/// StatisticsOps.cpp: cov, corrcoef, quantile, nanquantile, histc, isin.
void registerStatisticsOps(OpTable &table);
/// GradientOps.cpp: _softmax_backward_data, _safe_softmax, sum_to_size.
void registerGradientOps(OpTable &table);
/// SliceGatherOps.cpp: chunk, split, unbind, slice, select, index_select,
/// gather, embedding, index_copy.
void registerSliceGatherOps(OpTable &table);
/// IndexingOps.cpp: index.Tensor, index_put, masked_select, take,
/// take_along_dim, nonzero/argwhere/nonzero_numpy/nonzero_static.
void registerIndexingOps(OpTable &table);
/// ScatterOps.cpp: scatter, scatter_add, scatter_reduce, index_add,
/// index_fill, index_reduce, put.
void registerScatterOps(OpTable &table);
/// SortOps.cpp: sort, argsort, msort, topk, searchsorted, bucketize.
void registerSortOps(OpTable &table);
/// CreationOps.cpp: zeros/ones/full/empty (and _like), arange, tensor,
/// zero and fill (the values of zero_ and fill_).
void registerCreationOps(OpTable &table);
/// ResampleOps.cpp: upsample_{nearest,linear,bilinear,trilinear,bicubic}*,
/// _upsample_nearest_exact*, the antialiased _upsample_*_aa, grid_sampler.
void registerResampleOps(OpTable &table);
/// RecurrentOps.cpp: lstm, gru, rnn_tanh, rnn_relu and their _cell ops.
void registerRecurrentOps(OpTable &table);
/// AttentionOps.cpp: scaled_dot_product_attention,
/// _native_multi_head_attention.
void registerAttentionOps(OpTable &table);
/// LinalgOps.cpp: LU, Cholesky and QR factorizations, solves, inverses,
/// determinants, SVD-based functions (pinv, rank, svdvals, eigvalsh, cond),
/// lstsq, tensorinv/tensorsolve, matrix_exp.
void registerLinalgOps(OpTable &table);
/// IntegrationOps.cpp: trapezoid, trapz, cumulative_trapezoid.
void registerIntegrationOps(OpTable &table);
/// LossOps.cpp: regression, classification, ranking and embedding losses,
/// broadcast_tensors.
void registerLossOps(OpTable &table);

/// Registers, once per process, a JIT operator (not executable) for
/// each aten op that has a handler reading its arguments by position but no
/// operator in the linked libtorch (scaled_dot_product_attention in torch
/// 1.13), so that IR text using it passes the schema check and libtorch's
/// graph passes. Ops the linked libtorch knows are left alone.
void registerPositionalOps();

/// Converts a torch dtype to an MLIR element type (null if unsupported).
mlir::Type convertScalarType(mlir::MLIRContext *ctx, c10::ScalarType type);

/// Converts a float/int/bool element type back to the torch dtype.
std::optional<c10::ScalarType> toScalarType(mlir::Type type);

/// The MLIR type of a scalar of `kind`: i64 for Int, f64 for Float, i1 for
/// Bool; null for any other kind.
mlir::Type scalarMLIRType(mlir::MLIRContext *ctx, TSValue::Kind kind);

/// True when output 0 of `node` aliases one of its inputs without writing
/// it (a view: slice, select, view, transpose, ...), from its schema.
bool isViewNode(torch::jit::Node *node);

/// Maps a torch graph onto one `ml_program.func` in a module.
class Importer {
public:
  Importer(mlir::ModuleOp module, const TorchScriptImportOptions &options,
           llvm::StringRef fileName);

  /// Bounding types of mutable tensor attributes whose stores do not all
  /// have the attribute's initial shape (by attribute path, e.g.
  /// `_context`). An import that finds such a store records the join in
  /// `widenedGlobals` and must be repeated with it here (see
  /// joinStateTypes): every read of the attribute then has the bounding
  /// type, so that sizes read from it are run-time values.
  std::map<std::string, mlir::RankedTensorType> globalBoundingTypes;
  /// What this import found: attributes to re-import with a wider bounding
  /// type (empty when none).
  std::map<std::string, mlir::RankedTensorType> widenedGlobals;

  /// Records the module attributes `graph` writes (see collectWrites), so
  /// that their globals are mutable. Called for every method of a module
  /// before any is imported: a global read by `forward` is mutable when
  /// `reset` writes it.
  void collectGraphWrites(torch::jit::Graph &graph,
                          c10::intrusive_ptr<c10::ivalue::Object> self);

  /// Imports `graph` (already inlined and cleaned up) as public function
  /// `name`. `self` is the module object bound to a leading class-typed
  /// input, if any. `useInputOptions`: the options' input shapes and dtypes
  /// describe this graph's inputs (else the IR annotations do).
  mlir::LogicalResult importGraph(torch::jit::Graph &graph,
                                  llvm::StringRef name,
                                  c10::intrusive_ptr<c10::ivalue::Object> self,
                                  bool useInputOptions = true);

  //===--- Interface for the op handlers ----------------------------------===//

  mlir::OpBuilder b;
  mlir::MLIRContext *ctx;

  /// Location of `node`: its source range, else its first output's name.
  mlir::Location loc(torch::jit::Node *node);
  /// The import-time value of `v`.
  TSValue &get(torch::jit::Value *v);
  /// Binds output `i` of `node`.
  mlir::LogicalResult set(torch::jit::Node *node, unsigned i, TSValue value);
  mlir::LogicalResult setTensor(torch::jit::Node *node, unsigned i,
                                mlir::FailureOr<mlir::Value> value);

  /// Input `i` as a ranked tensor (a scalar becomes a 0-d tensor of its
  /// natural dtype: int64, float32 for Python floats promoted later, bool).
  mlir::FailureOr<mlir::Value> tensorInput(torch::jit::Node *node, unsigned i);
  /// Input `i` as a known int / float / bool / int list, or an error naming
  /// the argument.
  mlir::FailureOr<int64_t> intInput(torch::jit::Node *node, unsigned i);
  mlir::FailureOr<double> numberInput(torch::jit::Node *node, unsigned i);
  mlir::FailureOr<bool> boolInput(torch::jit::Node *node, unsigned i);
  mlir::FailureOr<llvm::SmallVector<int64_t>>
  intListInput(torch::jit::Node *node, unsigned i);
  /// Input `i` if it is a list or tuple (of anything).
  mlir::FailureOr<std::vector<TSValue>> listInput(torch::jit::Node *node,
                                                  unsigned i);
  bool isNoneInput(torch::jit::Node *node, unsigned i);
  /// Optional dtype argument (an int ScalarType); null Type when None.
  mlir::FailureOr<mlir::Type> dtypeInput(torch::jit::Node *node, unsigned i);

  /// Materializes a scalar TSValue as an MLIR scalar of its kind.
  mlir::Value scalarValue(const TSValue &v, mlir::Location loc);
  /// Materializes a scalar as MLIR scalar of `type` (converted).
  mlir::Value scalarAs(const TSValue &v, mlir::Type type, mlir::Location loc);
  /// Converts any TSValue that is a tensor or scalar to a tensor value.
  mlir::FailureOr<mlir::Value> asTensor(const TSValue &v, mlir::Location loc);

  /// The torch result dtype of combining `operands` (tensors and scalars)
  /// with torch's type promotion (dimensioned tensors, then zero-dim
  /// tensors, then scalars, by category bool < int < float).
  mlir::Type promote(llvm::ArrayRef<const TSValue *> operands);
  /// Converts `v` (tensor or scalar) to a tensor of element type `et`.
  mlir::FailureOr<mlir::Value> tensorOf(const TSValue &v, mlir::Type et,
                                        mlir::Location loc);

  /// uint8 tensors are kept as signless i8 (MLIR's builtin tensors have no
  /// unsigned integers): the values known to hold one. Set by arguments,
  /// constants and conversions, inherited through the ops that only move
  /// elements (see GraphImporter.cpp); results among them are marked
  /// unsigned.
  llvm::DenseSet<mlir::Value> unsignedValues;
  /// Whether `v` is a uint8 tensor: its value is in unsignedValues or its
  /// JIT type says so (traced graphs that were not reloaded).
  bool isUint8(torch::jit::Value *v);

  /// Reports an unsupported construct at `node`.
  mlir::LogicalResult unsupported(torch::jit::Node *node,
                                  const llvm::Twine &what);

  /// Records that the tensor attribute read by GetAttr output `v` was
  /// replaced by `newValue` (in-place update of a buffer): stores it to the
  /// attribute's global. No-op for values not read from attributes.
  mlir::LogicalResult writeBack(torch::jit::Value *v, mlir::Value newValue,
                                mlir::Location loc);
  /// True when `v` was read from a module attribute.
  bool isAttributeRead(torch::jit::Value *v) const {
    return attrOfValue.count(v) != 0;
  }

  /// Imports the nodes of `block` in order.
  mlir::LogicalResult importBlock(torch::jit::Block *block);

private:
  struct GlobalInfo {
    std::string symbol;
    mlir::RankedTensorType type;
    bool isMutable = false;
    TSValue::Kind kind = TSValue::Kind::Tensor; ///< Int/Float/Bool: 0-d
  };
  using AttrKey = std::pair<c10::ivalue::Object *, std::string>;

  mlir::LogicalResult importNode(torch::jit::Node *node);
  mlir::LogicalResult importConstant(torch::jit::Node *node);
  mlir::FailureOr<TSValue>
  importIValue(const c10::IValue &iv, mlir::Location loc, llvm::StringRef name);
  mlir::LogicalResult importGetAttr(torch::jit::Node *node);
  mlir::LogicalResult importSetAttr(torch::jit::Node *node);
  mlir::LogicalResult importIf(torch::jit::Node *node);
  mlir::LogicalResult importLoop(torch::jit::Node *node);
  mlir::LogicalResult unrollLoop(torch::jit::Node *node, int64_t tripCount);
  mlir::LogicalResult importPrim(torch::jit::Node *node, bool &handled);
  mlir::LogicalResult importScalarOp(torch::jit::Node *node, bool &handled);
  /// Runs an aten node whose inputs are all known at import time and whose
  /// tensors are zero-dim (size arithmetic of traced graphs) with libtorch's
  /// kernel; its results become constants (ConstantFolding.cpp).
  mlir::LogicalResult foldZeroDimNode(torch::jit::Node *node, bool &handled);
  mlir::LogicalResult importInPlace(torch::jit::Node *node, OpHandler handler);
  mlir::FailureOr<std::vector<TSValue>>
  importSubBlock(torch::jit::Block *block, llvm::ArrayRef<TSValue> args);
  mlir::FailureOr<GlobalInfo *> globalFor(const AttrKey &key,
                                          const c10::IValue &value,
                                          const std::string &path,
                                          mlir::Location loc);
  mlir::FailureOr<TSValue>
  tensorConstant(const at::Tensor &t, mlir::Location loc, llvm::StringRef name);
  void collectWrites(torch::jit::Block *block);
  TSValue argumentValue(const c10::TypePtr &type, mlir::Value arg);
  mlir::FailureOr<mlir::Type>
  inputType(torch::jit::Value *input, const c10::TypePtr &type, unsigned index);
  /// Flattens tensors/scalars (recursing into tuples) for function results
  /// and loop-carried values.
  mlir::LogicalResult flatten(const TSValue &v,
                              llvm::SmallVectorImpl<mlir::Value> &out,
                              mlir::Location loc);

  mlir::ModuleOp module;
  const TorchScriptImportOptions &options;
  std::string fileName;
  mlir::Location fileLoc;
  std::unordered_map<torch::jit::Value *, TSValue> values;
  std::map<AttrKey, GlobalInfo> globals;
  std::unordered_map<torch::jit::Value *, AttrKey> attrOfValue;
  std::set<AttrKey> writtenAttrs;
  /// Symbols of the methods and globals ('$' is not kept).
  ProgramBuilder programBuilder{/*keepDollar=*/false};
  unsigned tensorInputIndex = 0;
  /// Per function argument: a uint8 tensor (kept as i8, marked unsigned).
  llvm::SmallVector<bool> unsignedArgs;
  /// Whether the options' input shapes and dtypes apply to the graph being
  /// imported.
  bool inputOptions = true;
  /// Objects bound to class-typed values while collecting writes.
  std::unordered_map<torch::jit::Value *,
                     c10::intrusive_ptr<c10::ivalue::Object>>
      objectOf;
};

} // namespace mlprog::torchscript

#endif // MLPROG_LIB_IMPORT_TORCHSCRIPT_GRAPHIMPORTER_H
