//===- ConstantEvaluation.cpp - Import-time values of constant code -------===//

#include "mlprog/Import/Common/ConstantEvaluation.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlprog;

namespace {

/// A memoized evaluator of one value's dependencies.
class Evaluator {
public:
  explicit Evaluator(int64_t maxElements) : maxElements(maxElements) {}

  /// The constant (an elements attribute for tensors, a scalar attribute
  /// otherwise) of `v`, or null.
  Attribute evaluate(Value v, unsigned depth = 0);

private:
  bool isSmall(Type type) const {
    auto shaped = dyn_cast<RankedTensorType>(type);
    return !shaped ||
           (shaped.hasStaticShape() && shaped.getNumElements() <= maxElements);
  }
  Attribute evaluateOp(Operation *op, unsigned result, unsigned depth);
  Attribute evaluateLinalg(linalg::LinalgOp op, unsigned result,
                           unsigned depth);
  Attribute evaluateExtractSlice(tensor::ExtractSliceOp op, unsigned depth);
  Attribute evaluateConcat(tensor::ConcatOp op, unsigned depth);

  int64_t maxElements;
  llvm::DenseMap<Value, Attribute> known;
};

/// Deep chains of constant code are not what exporters write; a bound keeps
/// the recursion's stack small.
constexpr unsigned kMaxDepth = 256;

/// The elements of `attr` (a dense elements attribute) in row-major order.
std::vector<Attribute> elementsOf(Attribute attr) {
  auto dense = cast<DenseElementsAttr>(attr);
  return std::vector<Attribute>(dense.getValues<Attribute>().begin(),
                                dense.getValues<Attribute>().end());
}

/// Row-major strides of `shape`.
SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

} // namespace

Attribute Evaluator::evaluate(Value v, unsigned depth) {
  if (depth > kMaxDepth || !isSmall(v.getType()))
    return {};
  auto it = known.find(v);
  if (it != known.end())
    return it->second;
  Attribute result;
  if (auto opResult = dyn_cast<OpResult>(v))
    result =
        evaluateOp(opResult.getOwner(), opResult.getResultNumber(), depth + 1);
  known[v] = result;
  return result;
}

Attribute Evaluator::evaluateOp(Operation *op, unsigned result,
                                unsigned depth) {
  Type type = op->getResult(result).getType();
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return constant.getValue();
  if (auto load = dyn_cast<GlobalLoadConstOp>(op)) {
    auto global = SymbolTable::lookupNearestSymbolFrom<GlobalOp>(
        op, load.getGlobalAttr());
    return global
               ? dyn_cast_if_present<DenseElementsAttr>(global.getValueAttr())
               : Attribute();
  }
  if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
    // Its contents are undefined: whatever reads them may read zeros.
    auto t = cast<RankedTensorType>(empty.getType());
    if (!t.getElementType().isIntOrIndexOrFloat())
      return {};
    Attribute zero = OpBuilder(op).getZeroAttr(t.getElementType());
    return zero ? DenseElementsAttr::get(t, zero) : Attribute();
  }
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return evaluateLinalg(linalgOp, result, depth);
  if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
    return evaluateExtractSlice(slice, depth);
  if (auto concat = dyn_cast<tensor::ConcatOp>(op))
    return evaluateConcat(concat, depth);
  if (op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return {};
  // Any other op: its folder, given constant operands.
  SmallVector<Attribute> operands;
  for (Value operand : op->getOperands()) {
    Attribute value = evaluate(operand, depth);
    if (!value)
      return {};
    operands.push_back(value);
  }
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(operands, folded)) ||
      folded.size() != op->getNumResults())
    return {};
  if (auto attr = dyn_cast<Attribute>(folded[result])) {
    // A splat folded from a scalar: make it an elements attribute.
    if (auto t = dyn_cast<RankedTensorType>(type))
      if (!isa<DenseElementsAttr>(attr))
        return isa<TypedAttr>(attr) ? DenseElementsAttr::get(t, attr)
                                    : Attribute();
    return attr;
  }
  return evaluate(cast<Value>(folded[result]), depth);
}

Attribute Evaluator::evaluateLinalg(linalg::LinalgOp op, unsigned result,
                                    unsigned depth) {
  if (!op.hasPureTensorSemantics() || !op.getBlock())
    return {};
  // Loop extents from the operand shapes (none when the indexing maps do
  // not determine them).
  AffineMap shapesToLoops = op.getShapesToLoopsMap();
  if (!shapesToLoops)
    return {};
  SmallVector<int64_t> ranges =
      shapesToLoops.compose(op.createFlatListOfOperandStaticDims());
  int64_t total = 1;
  for (int64_t r : ranges) {
    if (ShapedType::isDynamic(r) || r < 0)
      return {};
    // No multiplication that could overflow: r is bounded first.
    if (r != 0 && total > maxElements / r)
      return {};
    total *= r;
  }
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  // Operands (inputs, then inits) as element lists with their strides.
  struct Operand {
    std::vector<Attribute> elements;
    SmallVector<int64_t> strides;
    AffineMap map;
    bool scalar = false;
    Attribute scalarValue;
  };
  SmallVector<Operand> operands;
  for (OpOperand &operand : op->getOpOperands()) {
    Attribute value = evaluate(operand.get(), depth);
    if (!value)
      return {};
    Operand entry;
    entry.map = maps[operand.getOperandNumber()];
    if (auto t = dyn_cast<RankedTensorType>(operand.get().getType())) {
      entry.elements = elementsOf(value);
      entry.strides = stridesOf(t.getShape());
    } else {
      entry.scalar = true;
      entry.scalarValue = value;
    }
    operands.push_back(std::move(entry));
  }
  Block &body = *op.getBlock();
  unsigned numInputs = op.getNumDpsInputs();
  SmallVector<int64_t> point(ranges.size(), 0);
  auto positionOf = [&](const Operand &operand) -> int64_t {
    int64_t position = 0;
    for (auto [i, expr] : llvm::enumerate(operand.map.getResults())) {
      int64_t index;
      if (auto dim = dyn_cast<AffineDimExpr>(expr))
        index = point[dim.getPosition()];
      else if (auto c = dyn_cast<AffineConstantExpr>(expr))
        index = c.getValue();
      else
        return -1;
      position += index * operand.strides[i];
    }
    return position;
  };
  for (int64_t step = 0; step < total; ++step) {
    llvm::DenseMap<Value, Attribute> values;
    for (auto [i, operand] : llvm::enumerate(operands)) {
      if (operand.scalar) {
        values[body.getArgument(i)] = operand.scalarValue;
        continue;
      }
      int64_t position = positionOf(operand);
      if (position < 0 || position >= int64_t(operand.elements.size()))
        return {};
      values[body.getArgument(i)] = operand.elements[position];
    }
    for (Operation &inner : body.without_terminator()) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
        values[index.getResult()] =
            IntegerAttr::get(index.getType(), point[index.getDim()]);
        continue;
      }
      if (inner.getNumResults() != 1 || inner.getNumRegions() != 0 ||
          !isMemoryEffectFree(&inner))
        return {};
      SmallVector<Attribute> args;
      for (Value operand : inner.getOperands()) {
        Attribute value = values.lookup(operand);
        if (!value) {
          // Defined outside the body: a constant (or constant code).
          if (operand.getParentBlock() == &body)
            return {};
          value = evaluate(operand, depth);
        }
        if (!value)
          return {};
        args.push_back(value);
      }
      SmallVector<OpFoldResult> folded;
      if (failed(inner.fold(args, folded)) || folded.size() != 1)
        return {};
      Attribute value = dyn_cast<Attribute>(folded[0]);
      if (!value)
        value = values.lookup(cast<Value>(folded[0]));
      if (!value)
        return {};
      values[inner.getResult(0)] = value;
    }
    auto yield = cast<linalg::YieldOp>(body.getTerminator());
    for (auto [k, yielded] : llvm::enumerate(yield.getValues())) {
      Attribute value = values.lookup(yielded);
      if (!value)
        value = evaluate(yielded, depth);
      if (!value)
        return {};
      Operand &init = operands[numInputs + k];
      int64_t position = positionOf(init);
      if (position < 0 || position >= int64_t(init.elements.size()))
        return {};
      init.elements[position] = value;
    }
    // The next point, row-major.
    for (int64_t d = int64_t(point.size()) - 1; d >= 0; --d) {
      if (++point[d] < ranges[d])
        break;
      point[d] = 0;
    }
  }
  auto type = cast<RankedTensorType>(op->getResult(result).getType());
  Operand &init = operands[numInputs + result];
  if (init.scalar)
    return {};
  return DenseElementsAttr::get(type, init.elements);
}

Attribute Evaluator::evaluateExtractSlice(tensor::ExtractSliceOp op,
                                          unsigned depth) {
  if (!op.getOffsets().empty() || !op.getSizes().empty() ||
      !op.getStrides().empty())
    return {};
  Attribute source = evaluate(op.getSource(), depth);
  auto sourceType = cast<RankedTensorType>(op.getSourceType());
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!source || !resultType.hasStaticShape())
    return {};
  std::vector<Attribute> in = elementsOf(source), out;
  SmallVector<int64_t> sourceStrides = stridesOf(sourceType.getShape());
  ArrayRef<int64_t> offsets = op.getStaticOffsets(),
                    sizes = op.getStaticSizes(), steps = op.getStaticStrides();
  int64_t total = 1;
  for (int64_t s : sizes)
    total *= s;
  SmallVector<int64_t> index(sizes.size(), 0);
  for (int64_t n = 0; n < total; ++n) {
    int64_t position = 0;
    for (size_t d = 0; d < sizes.size(); ++d)
      position += (offsets[d] + index[d] * steps[d]) * sourceStrides[d];
    if (position < 0 || position >= int64_t(in.size()))
      return {};
    out.push_back(in[position]);
    for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return DenseElementsAttr::get(resultType, out);
}

Attribute Evaluator::evaluateConcat(tensor::ConcatOp op, unsigned depth) {
  auto resultType = cast<RankedTensorType>(op.getType());
  if (!resultType.hasStaticShape())
    return {};
  int64_t axis = op.getDim();
  ArrayRef<int64_t> shape = resultType.getShape();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  SmallVector<std::vector<Attribute>> inputs;
  SmallVector<int64_t> extents;
  for (Value input : op.getInputs()) {
    Attribute value = evaluate(input, depth);
    auto t = cast<RankedTensorType>(input.getType());
    if (!value || !t.hasStaticShape())
      return {};
    inputs.push_back(elementsOf(value));
    extents.push_back(t.getDimSize(axis));
  }
  std::vector<Attribute> out;
  for (int64_t o = 0; o < outer; ++o)
    for (auto [elements, extent] : llvm::zip(inputs, extents))
      for (int64_t i = 0; i < extent * inner; ++i)
        out.push_back(elements[o * extent * inner + i]);
  return DenseElementsAttr::get(resultType, out);
}

DenseElementsAttr mlprog::evaluateConstantTensor(Value v, int64_t maxElements) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() > maxElements)
    return {};
  Evaluator evaluator(maxElements);
  return dyn_cast_if_present<DenseElementsAttr>(evaluator.evaluate(v));
}
