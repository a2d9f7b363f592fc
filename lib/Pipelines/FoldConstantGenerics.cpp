//===- FoldConstantGenerics.cpp - Evaluate small constant generics --------===//
//
// --mlprog-fold-constant-generics: an elementwise linalg.generic whose inputs
// are all small constants is evaluated at compile time, element by element,
// with the folders of the ops in its body; a small integer linalg.fill of a
// constant becomes a splat constant. Integer results only: this is for shape
// arithmetic, not data. A generic that reads a strided slice element by
// element, at indices that folded to constants, becomes tensor.extract_slice.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlprog {
#define GEN_PASS_DEF_FOLDCONSTANTGENERICSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;

/// Generics with more result elements than this are left alone: the pass is
/// for shape arithmetic, not for weights.
static constexpr int64_t kMaxFoldedElements = 4096;

/// The value of `op`'s result for the loop point `point` of an all-parallel
/// generic, or null when a body op does not fold to a constant.
static Attribute evaluateAt(linalg::GenericOp op,
                            ArrayRef<DenseElementsAttr> inputs,
                            ArrayRef<int64_t> point) {
  Block &body = op.getRegion().front();
  DenseMap<Value, Attribute> values;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    AffineMap map = op.getIndexingMapsArray()[index];
    SmallVector<uint64_t> position;
    for (AffineExpr expr : map.getResults()) {
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        position.push_back(point[dim.getPosition()]);
      else if (auto c = dyn_cast<AffineConstantExpr>(expr))
        position.push_back(c.getValue());
      else
        return {};
    }
    values[body.getArgument(index)] = input.getValues<Attribute>()[position];
  }
  for (Operation &inner : body.without_terminator()) {
    if (inner.getNumResults() != 1 || inner.getNumRegions() != 0)
      return {};
    SmallVector<Attribute> operands;
    for (Value operand : inner.getOperands()) {
      Attribute value = values.lookup(operand);
      if (!value && !matchPattern(operand, m_Constant(&value)))
        return {};
      operands.push_back(value);
    }
    SmallVector<OpFoldResult> results;
    if (failed(inner.fold(operands, results)) || results.size() != 1)
      return {};
    auto attr = dyn_cast<Attribute>(results[0]);
    if (!attr) {
      // Folded to one of its operands.
      attr = values.lookup(cast<Value>(results[0]));
      if (!attr && !matchPattern(cast<Value>(results[0]), m_Constant(&attr)))
        return {};
    }
    values[inner.getResult(0)] = attr;
  }
  Value yielded = body.getTerminator()->getOperand(0);
  Attribute result = values.lookup(yielded);
  if (!result)
    matchPattern(yielded, m_Constant(&result));
  return result;
}

/// Replaces `op` by a constant when it is an all-parallel generic with one
/// static integer or index result of at most kMaxFoldedElements elements, an
/// identity output map, dense constant inputs (no tensor of bytes widened)
/// and a body that folds at every point.
static LogicalResult foldGeneric(linalg::GenericOp op,
                                 PatternRewriter &rewriter) {
  if (op.getNumDpsInits() != 1 || !op.hasPureTensorSemantics() ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getIndexingMapsArray().back().isIdentity())
    return failure();
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements ||
      !type.getElementType().isIntOrIndex())
    return failure();
  // Bytes widened (a small quantized weight): the byte contractions
  // (--mlprog-integer-contractions-to-f32) read the bytes, and the wider
  // constant would only be larger.
  if (type.getElementType().getIntOrFloatBitWidth() > 8 &&
      llvm::any_of(op.getDpsInputs(), [](Value input) {
        auto inputType = dyn_cast<RankedTensorType>(input.getType());
        return inputType && inputType.getRank() > 0 &&
               inputType.getElementType().isInteger(8);
      }))
    return failure();
  SmallVector<DenseElementsAttr> inputs;
  for (Value input : op.getDpsInputs()) {
    DenseElementsAttr attr;
    if (!matchPattern(input, m_Constant(&attr)))
      return failure();
    inputs.push_back(attr);
  }
  SmallVector<Attribute> elements;
  elements.reserve(type.getNumElements());
  SmallVector<int64_t> point(type.getRank(), 0);
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    int64_t rest = i;
    for (int64_t d = type.getRank() - 1; d >= 0; --d) {
      point[d] = rest % type.getDimSize(d);
      rest /= type.getDimSize(d);
    }
    Attribute value = evaluateAt(op, inputs, point);
    auto typed = dyn_cast_if_present<TypedAttr>(value);
    if (!isa_and_present<IntegerAttr, FloatAttr>(value) ||
        typed.getType() != type.getElementType())
      return failure();
    elements.push_back(value);
  }
  rewriter.replaceOpWithNewOp<arith::ConstantOp>(
      op, DenseElementsAttr::get(type, elements));
  return success();
}

/// Replaces a `linalg.fill` of a constant into a small static integer or
/// index tensor by a splat constant. (Float fills stay: they are the inits
/// of contractions, which the code generation fuses into their tiles.)
static LogicalResult foldFill(linalg::FillOp op, PatternRewriter &rewriter) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  Attribute value;
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() > kMaxFoldedElements ||
      !type.getElementType().isIntOrIndex() ||
      !matchPattern(op.getInputs()[0], m_Constant(&value)) ||
      !isa<IntegerAttr, FloatAttr>(value) ||
      cast<TypedAttr>(value).getType() != type.getElementType())
    return failure();
  rewriter.replaceOpWithNewOp<arith::ConstantOp>(
      op, DenseElementsAttr::get(type, value));
  return success();
}

namespace {
namespace {
/// An index of a tensor.extract in a generic's body as `offset + stride *
/// linalg.index(dim)`, or the constant `offset` (dim -1, stride 0).
struct StridedIndex {
  int64_t offset = 0, stride = 0, dim = -1;
};
} // namespace

/// `value` (an index computed in a generic's body) as a StridedIndex:
/// constants, linalg.index, and their sums and products with constants.
static std::optional<StridedIndex> matchStridedIndex(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return StridedIndex{constant.getSExtValue(), 0, -1};
  Operation *op = value.getDefiningOp();
  if (auto index = dyn_cast_or_null<linalg::IndexOp>(op))
    return StridedIndex{0, 1, static_cast<int64_t>(index.getDim())};
  if (!isa_and_nonnull<arith::AddIOp, arith::MulIOp>(op))
    return std::nullopt;
  std::optional<StridedIndex> lhs = matchStridedIndex(op->getOperand(0));
  std::optional<StridedIndex> rhs = matchStridedIndex(op->getOperand(1));
  if (!lhs || !rhs)
    return std::nullopt;
  if (isa<arith::AddIOp>(op)) {
    if (lhs->dim >= 0 && rhs->dim >= 0)
      return std::nullopt;
    return StridedIndex{lhs->offset + rhs->offset, lhs->stride + rhs->stride,
                        std::max(lhs->dim, rhs->dim)};
  }
  // A product: one side must be a constant.
  if (lhs->dim >= 0)
    std::swap(lhs, rhs);
  if (lhs->dim >= 0)
    return std::nullopt;
  return StridedIndex{lhs->offset * rhs->offset, lhs->offset * rhs->stride,
                      rhs->dim};
}

/// Replaces a generic without inputs whose body yields `tensor.extract
/// %source[o0 + s0 * index(0), o1 + s1 * index(1), ...]` (constant offsets
/// and positive strides, each index along its own loop, or a constant where
/// the loop has one iteration) by `tensor.extract_slice %source[o][sizes][s]`:
/// the strided slices of ONNX Slice, aten::slice and MIL slice_by_index whose
/// bounds were computed at run time until the shape arithmetic folded. The
/// loop lowering would read them one scalar at a time; a slice is a copy.
static LogicalResult raiseGatherToSlice(linalg::GenericOp op,
                                        PatternRewriter &rewriter) {
  if (op.getNumDpsInputs() != 0 || op.getNumDpsInits() != 1 ||
      !op.hasPureTensorSemantics() ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getIndexingMapsArray()[0].isIdentity())
    return failure();
  auto resultType = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  if (!resultType || !resultType.hasStaticShape())
    return failure();
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  auto extract = yield.getOperand(0).getDefiningOp<tensor::ExtractOp>();
  if (!extract || extract->getBlock() != op.getBlock() ||
      !extract.getTensor().getParentRegion()->isProperAncestor(&op.getRegion()))
    return failure();
  auto sourceType = cast<RankedTensorType>(extract.getTensor().getType());
  int64_t rank = resultType.getRank();
  if (sourceType.getRank() != rank)
    return failure();
  SmallVector<int64_t> offsets, strides;
  for (auto [dim, index] : llvm::enumerate(extract.getIndices())) {
    std::optional<StridedIndex> strided = matchStridedIndex(index);
    int64_t size = resultType.getDimSize(dim);
    if (!strided || strided->offset < 0)
      return failure();
    if (strided->dim == -1 || strided->stride == 0) {
      if (size != 1) // a broadcast, not a slice
        return failure();
      strided->stride = 1;
    } else if (strided->dim != static_cast<int64_t>(dim) ||
               strided->stride < 1) {
      return failure();
    }
    int64_t last = strided->offset + strided->stride * (size - 1);
    if (!sourceType.isDynamicDim(dim) && last >= sourceType.getDimSize(dim))
      return failure();
    offsets.push_back(strided->offset);
    strides.push_back(strided->stride);
  }
  SmallVector<int64_t> sizes(resultType.getShape());
  rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(
      op, resultType, extract.getTensor(), ValueRange(), ValueRange(),
      ValueRange(), offsets, sizes, strides);
  return success();
}

/// Evaluates elementwise generics (see the pass description in Passes.td)
/// together with the canonicalization patterns of every loaded dialect and
/// op, to a fixed point: shape arithmetic that folds to constants makes
/// tensor.dim and tensor.extract constant, which makes the next generic's
/// inputs constant.
struct FoldConstantGenericsPass
    : public mlprog::impl::FoldConstantGenericsPassBase<
          FoldConstantGenericsPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet owning(context);
    owning.add(foldGeneric);
    owning.add(foldFill);
    owning.add(raiseGatherToSlice);
    for (Dialect *dialect : context->getLoadedDialects())
      dialect->getCanonicalizationPatterns(owning);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      op.getCanonicalizationPatterns(owning, context);
    patterns = std::make_shared<FrozenRewritePatternSet>(std::move(owning));
    return success();
  }

  void runOnOperation() override {
    if (failed(applyPatternsGreedily(getOperation(), *patterns)))
      return signalPassFailure();
  }

  std::shared_ptr<const FrozenRewritePatternSet> patterns;
};
} // namespace
