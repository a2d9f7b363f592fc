//===- FoldConstantGenerics.cpp - Evaluate small constant generics --------===//
//
// --mlprog-fold-constant-generics: an elementwise linalg.generic whose inputs
// are all small constants is evaluated at compile time, element by element,
// with the folders of the ops in its body; a small integer linalg.fill of a
// constant becomes a splat constant. Integer results only: this is for shape
// arithmetic, not data.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
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
/// identity output map, dense constant inputs and a body that folds at every
/// point.
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
