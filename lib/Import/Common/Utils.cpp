//===- Utils.cpp - Helpers shared by the tensor op builders ---------------===//

#include "Utils.h"
#include "mlprog/Import/Common/Conv.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;

namespace mlprog::detail {

FailureOr<RankedTensorType> getRankedType(Location loc, Value v,
                                          StringRef what) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return emitError(loc) << what << ": expected a ranked tensor, got "
                          << v.getType();
  return type;
}

FailureOr<BroadcastPlan> planBroadcast(Location loc,
                                       ArrayRef<ArrayRef<int64_t>> shapes) {
  BroadcastPlan plan;
  size_t rank = 0;
  for (ArrayRef<int64_t> s : shapes)
    rank = std::max(rank, s.size());
  plan.shape.assign(rank, 1);
  plan.dynamicSource.assign(rank, {0, 0});
  for (size_t d = 0; d < rank; ++d) {
    std::optional<std::pair<unsigned, unsigned>> dynamicFrom;
    for (auto [i, s] : llvm::enumerate(shapes)) {
      if (d + s.size() < rank)
        continue;
      unsigned od = d + s.size() - rank;
      int64_t extent = s[od];
      if (ShapedType::isDynamic(extent)) {
        if (!dynamicFrom)
          dynamicFrom = {unsigned(i), od};
        continue;
      }
      if (extent == 1)
        continue;
      if (plan.shape[d] != 1 && plan.shape[d] != extent)
        return emitError(loc)
               << "cannot broadcast extents " << plan.shape[d] << " and "
               << extent << " (result dim " << d << ")";
      plan.shape[d] = extent;
    }
    // A static extent > 1 decides the result; a dynamic one is assumed to
    // match it at run time.
    if (plan.shape[d] == 1 && dynamicFrom) {
      plan.shape[d] = ShapedType::kDynamic;
      plan.dynamicSource[d] = *dynamicFrom;
    }
  }
  // Dims in which more than one operand has a dynamic extent.
  SmallVector<unsigned> numDynamic(rank, 0);
  for (ArrayRef<int64_t> s : shapes)
    for (auto [od, extent] : llvm::enumerate(s))
      numDynamic[od + rank - s.size()] += ShapedType::isDynamic(extent);
  for (ArrayRef<int64_t> s : shapes) {
    SmallVector<bool> stretched, maybe;
    for (auto [od, extent] : llvm::enumerate(s)) {
      int64_t result = plan.shape[od + rank - s.size()];
      stretched.push_back(extent == 1 && result != 1);
      maybe.push_back(ShapedType::isDynamic(extent) &&
                      (!ShapedType::isDynamic(result) ||
                       numDynamic[od + rank - s.size()] > 1));
    }
    plan.stretched.push_back(std::move(stretched));
    plan.maybeStretched.push_back(std::move(maybe));
  }
  return plan;
}

/// Where the extent of `dim` of `v` comes from, followed back through ops
/// whose result extents are those of their destination (linalg ops,
/// tensor.empty's size operands, tensor.dim, tensor.cast, one-dim groups of
/// collapse/expand_shape): a static extent, an index Value (dim -1), or the
/// first (tensor, dim) the walk cannot see through. Two extents with the
/// same origin are equal.
using ExtentOrigin = std::pair<PointerUnion<Value, Attribute>, int64_t>;
static ExtentOrigin originOfExtent(Value v, int64_t dim) {
  for (int steps = 0; steps < 256; ++steps) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || dim < 0 || dim >= type.getRank())
      break;
    if (!type.isDynamicDim(dim))
      return {Builder(v.getContext()).getIndexAttr(type.getDimSize(dim)), -1};
    Operation *op = v.getDefiningOp();
    if (!op)
      break;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op)) {
      v = dps.getDpsInits()[cast<OpResult>(v).getResultNumber()];
      continue;
    }
    if (auto cast = dyn_cast<tensor::CastOp>(op)) {
      v = cast.getSource();
      continue;
    }
    if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      Value size = empty.getDynamicSize(dim);
      auto dimOp = size.getDefiningOp<tensor::DimOp>();
      std::optional<int64_t> index =
          dimOp ? dimOp.getConstantIndex() : std::nullopt;
      if (!index)
        return {size, -1};
      v = dimOp.getSource();
      dim = *index;
      continue;
    }
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      ReassociationIndices group = collapse.getReassociationIndices()[dim];
      if (group.size() != 1)
        break;
      v = collapse.getSrc();
      dim = group[0];
      continue;
    }
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      std::optional<int64_t> from;
      for (auto [i, group] : llvm::enumerate(expand.getReassociationIndices()))
        if (llvm::is_contained(group, dim))
          from = group.size() == 1 ? std::optional<int64_t>(i) : std::nullopt;
      if (!from)
        break;
      v = expand.getSrc();
      dim = *from;
      continue;
    }
    break;
  }
  return {v, dim};
}

void proveBroadcastExtents(BroadcastPlan &plan, ValueRange operands) {
  unsigned rank = plan.shape.size();
  for (unsigned d = 0; d < rank; ++d) {
    // The operands (and their dims) with a maybe-stretched extent in d.
    SmallVector<std::pair<unsigned, int64_t>> maybe;
    for (auto [i, flags] : llvm::enumerate(plan.maybeStretched))
      if (d + flags.size() >= rank && flags[d + flags.size() - rank])
        maybe.push_back({unsigned(i), int64_t(d + flags.size() - rank)});
    if (maybe.empty())
      continue;
    // Provably equal when every one has the same origin; with a static
    // result extent, when that origin is that static extent.
    ExtentOrigin first =
        originOfExtent(operands[maybe[0].first], maybe[0].second);
    bool proved = llvm::all_of(maybe, [&](auto m) {
      return originOfExtent(operands[m.first], m.second) == first;
    });
    if (!ShapedType::isDynamic(plan.shape[d]))
      proved &= first.second == -1 && isa<Attribute>(first.first) &&
                cast<IntegerAttr>(cast<Attribute>(first.first)).getInt() ==
                    plan.shape[d];
    if (!proved)
      continue;
    for (auto [i, od] : maybe)
      plan.maybeStretched[i][od] = false;
  }
}

AffineMap broadcastMap(MLIRContext *ctx, unsigned numLoops, unsigned firstDim,
                       unsigned resultRank, ArrayRef<bool> stretched,
                       ArrayRef<AffineExpr> trailing) {
  SmallVector<AffineExpr> exprs;
  unsigned offset = firstDim + resultRank - stretched.size();
  for (auto [i, s] : llvm::enumerate(stretched))
    exprs.push_back(s ? getAffineConstantExpr(0, ctx)
                      : getAffineDimExpr(offset + i, ctx));
  llvm::append_range(exprs, trailing);
  return AffineMap::get(numLoops, 0, exprs, ctx);
}

SmallVector<OpFoldResult> broadcastSizes(OpBuilder &b, Location loc,
                                         const BroadcastPlan &plan,
                                         ValueRange operands) {
  unsigned rank = plan.shape.size();
  SmallVector<OpFoldResult> sizes;
  for (auto [d, extent] : llvm::enumerate(plan.shape)) {
    if (!ShapedType::isDynamic(extent)) {
      sizes.push_back(b.getIndexAttr(extent));
      continue;
    }
    auto [operand, dim] = plan.dynamicSource[d];
    Value size = tensor::DimOp::create(b, loc, operands[operand], dim);
    // Several dynamic extents: the one that is not 1 (ONNX and numpy allow
    // only equal extents or 1), so [?] + [?] is 4 for 1 + 4 and 4 + 1.
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    for (auto [i, maybe] : llvm::enumerate(plan.maybeStretched)) {
      unsigned opRank = maybe.size();
      if (i == operand || d + opRank < rank || !maybe[d + opRank - rank])
        continue;
      Value other =
          tensor::DimOp::create(b, loc, operands[i], d + opRank - rank);
      Value isOne =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, one);
      size = arith::SelectOp::create(b, loc, isOne, other, size);
    }
    sizes.push_back(size);
  }
  return sizes;
}

/// A copy of `operand` whose dims `maybe` take the extents `sizes` (by
/// operand dim), reading index 0 of those whose extent is 1.
static Value stretchAtRunTime(OpBuilder &b, Location loc, Value operand,
                              ArrayRef<bool> maybe,
                              ArrayRef<OpFoldResult> sizes) {
  auto type = cast<RankedTensorType>(operand.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> copySizes;
  for (int64_t d = 0; d < rank; ++d)
    copySizes.push_back(maybe[d] ? sizes[d]
                                 : tensor::getMixedSize(b, loc, operand, d));
  Value init =
      tensor::EmptyOp::create(b, loc, copySizes, type.getElementType());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  SmallVector<Value> isOne;
  for (int64_t d = 0; d < rank; ++d)
    isOne.push_back(maybe[d]
                        ? arith::CmpIOp::create(
                              b, loc, arith::CmpIPredicate::eq,
                              tensor::DimOp::create(b, loc, operand, d), one)
                              .getResult()
                        : Value());
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{}, init,
      AffineMap::getMultiDimIdentityMap(rank, b.getContext()),
      parallelIterators(rank), [&](OpBuilder &nb, Location nl, ValueRange) {
        SmallVector<Value> indices;
        for (int64_t d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, nl, d);
          if (maybe[d])
            i = arith::SelectOp::create(nb, nl, isOne[d], zero, i);
          indices.push_back(i);
        }
        Value v = tensor::ExtractOp::create(nb, nl, operand, indices);
        linalg::YieldOp::create(nb, nl, v);
      });
  Value copy = generic.getResult(0);
  if (copy.getType() != type)
    copy = tensor::CastOp::create(b, loc, type, copy);
  return copy;
}

SmallVector<Value> materializeRuntimeBroadcasts(OpBuilder &b, Location loc,
                                                const BroadcastPlan &plan,
                                                ValueRange operands,
                                                ArrayRef<OpFoldResult> sizes,
                                                unsigned trailing) {
  unsigned rank = plan.shape.size();
  SmallVector<Value> result(operands);
  for (auto [i, maybeInPlan] : llvm::enumerate(plan.maybeStretched)) {
    if (llvm::none_of(maybeInPlan, [](bool m) { return m; }))
      continue;
    Value operand = operands[i];
    // Per operand dim: maybe-stretched flags and the result extents.
    unsigned planRank = maybeInPlan.size();
    SmallVector<bool> maybe(maybeInPlan);
    maybe.append(trailing, false);
    SmallVector<OpFoldResult> target;
    for (unsigned od = 0; od < planRank; ++od)
      target.push_back(sizes[od + rank - planRank]);
    target.append(trailing, b.getIndexAttr(1)); // not read
    Value same = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
    for (unsigned od = 0; od < planRank; ++od) {
      if (!maybe[od])
        continue;
      Value extent = tensor::DimOp::create(b, loc, operand, od);
      Value want = getValueOrCreateConstantIndexOp(b, loc, target[od]);
      Value eq =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, extent, want);
      same = arith::AndIOp::create(b, loc, same, eq);
    }
    auto ifOp = scf::IfOp::create(
        b, loc, same,
        [&](OpBuilder &tb, Location tl) {
          scf::YieldOp::create(tb, tl, operand);
        },
        [&](OpBuilder &eb, Location el) {
          scf::YieldOp::create(
              eb, el, stretchAtRunTime(eb, el, operand, maybe, target));
        });
    result[i] = ifOp.getResult(0);
  }
  return result;
}

Value createEmpty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

Value createFilled(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                   TypedAttr value) {
  Value empty = createEmpty(b, loc, sizes, value.getType());
  Value scalar = arith::ConstantOp::create(b, loc, value);
  return linalg::FillOp::create(b, loc, ValueRange{scalar}, ValueRange{empty})
      .getResult(0);
}

TypedAttr getLowestAttr(Type elementType) {
  if (auto ft = dyn_cast<FloatType>(elementType))
    return FloatAttr::get(ft, APFloat::getInf(ft.getFloatSemantics(),
                                              /*Negative=*/true));
  unsigned width = elementType.getIntOrFloatBitWidth();
  return IntegerAttr::get(elementType, APInt::getSignedMinValue(width));
}

Value createScalar(OpBuilder &b, Location loc, Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, int64_t(value)));
}

SmallVector<utils::IteratorType> parallelIterators(unsigned n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

Value insertUnitDim(OpBuilder &b, Location loc, Value x, unsigned pos) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + pos, 1);
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), x,
                                         ArrayRef<ReassociationIndices>{});
  // The unit dim joins the group of its right neighbour (left one at the end).
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    groups.push_back({i + (i >= int64_t(pos))});
  if (pos < groups.size())
    groups[pos].insert(groups[pos].begin(), pos);
  else
    groups.back().push_back(pos);
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), x, groups);
}

Value dropUnitDim(OpBuilder &b, Location loc, Value x, unsigned pos) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + pos);
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0, e = shape.size(); i < e; ++i)
    groups.push_back({i + (i >= int64_t(pos))});
  if (!groups.empty() && pos < groups.size())
    groups[pos].insert(groups[pos].begin(), pos);
  else if (!groups.empty())
    groups.back().push_back(pos);
  return tensor::CollapseShapeOp::create(b, loc, type.clone(shape), x, groups);
}

Value splitDim(OpBuilder &b, Location loc, Value x, unsigned pos,
               int64_t outer) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  if (ShapedType::isDynamic(shape[pos])) {
    Value extent = getValueOrCreateConstantIndexOp(b, loc, sizes[pos]);
    sizes[pos] = arith::DivUIOp::create(b, loc, extent, cIndex(b, loc, outer))
                     .getResult();
  } else {
    shape[pos] /= outer;
    sizes[pos] = b.getIndexAttr(shape[pos]);
  }
  shape.insert(shape.begin() + pos, outer);
  sizes.insert(sizes.begin() + pos, b.getIndexAttr(outer));
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    groups.push_back({i + (i > int64_t(pos))});
  groups[pos].push_back(pos + 1);
  return tensor::ExpandShapeOp::create(b, loc, type.clone(shape), x, groups,
                                       sizes);
}

Value mergeDims(OpBuilder &b, Location loc, Value x, unsigned pos) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<ReassociationIndices> groups;
  for (int64_t i = 0, e = type.getRank() - 1; i < e; ++i)
    groups.push_back({i + (i > int64_t(pos))});
  groups[pos].push_back(pos + 1);
  return tensor::CollapseShapeOp::create(b, loc, x, groups);
}

Value padStatic(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> low,
                ArrayRef<int64_t> high, TypedAttr value) {
  if (llvm::all_of(low, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(high, [](int64_t p) { return p == 0; }))
    return x;
  // Nothing of an empty input survives: the result is all padding. (A
  // tensor.pad of it would bufferize into a subview at offset 0 of a zero
  // extent, which the memref verifier rejects.)
  auto type = cast<RankedTensorType>(x.getType());
  if (llvm::is_contained(type.getShape(), 0)) {
    SmallVector<OpFoldResult> sizes;
    for (auto [d, e] : llvm::enumerate(type.getShape())) {
      if (ShapedType::isDynamic(e)) {
        Value padValue = arith::ConstantOp::create(b, loc, value);
        return tensor::PadOp::create(
            b, loc, Type(), x, getAsIndexOpFoldResult(b.getContext(), low),
            getAsIndexOpFoldResult(b.getContext(), high), padValue);
      }
      sizes.push_back(b.getIndexAttr(e + low[d] + high[d]));
    }
    return createFilled(b, loc, sizes, value);
  }
  Value padValue = arith::ConstantOp::create(b, loc, value);
  return tensor::PadOp::create(
      b, loc, Type(), x, getAsIndexOpFoldResult(b.getContext(), low),
      getAsIndexOpFoldResult(b.getContext(), high), padValue);
}

Value cIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

SmallVector<Value> loop(OpBuilder &b, Location loc, Value lb, Value ub,
                        ValueRange init, ForBody body) {
  auto forOp = scf::ForOp::create(
      b, loc, lb, ub, cIndex(b, loc, 1), init,
      [&](OpBuilder &nb, Location nl, Value iv, ValueRange args) {
        scf::YieldOp::create(nb, nl, body(nb, nl, iv, args));
      });
  return SmallVector<Value>(forOp.getResults());
}

SmallVector<Value> ifElse(OpBuilder &b, Location loc, Value cond,
                          BranchBody thenFn, BranchBody elseFn) {
  auto ifOp = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &nb, Location nl) {
        scf::YieldOp::create(nb, nl, thenFn(nb, nl));
      },
      [&](OpBuilder &nb, Location nl) {
        scf::YieldOp::create(nb, nl, elseFn(nb, nl));
      });
  return SmallVector<Value>(ifOp.getResults());
}

} // namespace mlprog::detail

/// Checks `params` against `n` spatial dims and computes output extents.
FailureOr<mlprog::detail::Window> mlprog::detail::resolveWindow(
    Location loc, StringRef what, ArrayRef<int64_t> inputSpatial,
    ArrayRef<int64_t> kernel, const WindowParams &params, bool ceilMode,
    bool allowDynamic) {
  size_t n = inputSpatial.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  auto fill = [&](ArrayRef<int64_t> given, int64_t dflt,
                  SmallVector<int64_t> &out, StringRef name) -> LogicalResult {
    if (given.empty())
      out.assign(n, dflt);
    else if (given.size() == n)
      out.assign(given.begin(), given.end());
    else
      return emitError(loc) << what << ": expected " << n << " " << name
                            << ", got " << given.size();
    return success();
  };
  if (kernel.size() != n)
    return emitError(loc) << what << ": kernel has " << kernel.size()
                          << " dims, input has " << n << " spatial dims";
  if (failed(fill(params.strides, 1, w.strides, "strides")) ||
      failed(fill(params.dilations, 1, w.dilations, "dilations")) ||
      failed(fill(params.padsBegin, 0, w.padsBegin, "begin pads")) ||
      failed(fill(params.padsEnd, 0, w.padsEnd, "end pads")))
    return failure();
  for (size_t i = 0; i < n; ++i) {
    bool dynamic = ShapedType::isDynamic(inputSpatial[i]);
    if (dynamic && (!allowDynamic || ceilMode))
      return emitError(loc)
             << "unsupported " << what << " with dynamic spatial extents"
             << (ceilMode ? " in ceil mode" : "");
    if (w.strides[i] < 1 || w.dilations[i] < 1 || w.padsBegin[i] < 0 ||
        w.padsEnd[i] < 0 || kernel[i] < 1)
      return emitError(loc) << what << ": invalid window geometry";
    if (dynamic) {
      // Floor mode never reads past the padded input.
      w.outputSpatial.push_back(ShapedType::kDynamic);
      w.ceilExtra.push_back(0);
      continue;
    }
    int64_t padded = inputSpatial[i] + w.padsBegin[i] + w.padsEnd[i];
    int64_t span = padded - (w.dilations[i] * (kernel[i] - 1) + 1);
    if (span < 0)
      return emitError(loc) << what << ": window larger than padded input";
    int64_t out = (ceilMode ? llvm::divideCeil(span, w.strides[i])
                            : span / w.strides[i]) +
                  1;
    // A ceil-mode window must start inside the input or its begin padding.
    if (ceilMode &&
        (out - 1) * w.strides[i] >= inputSpatial[i] + w.padsBegin[i])
      --out;
    w.outputSpatial.push_back(out);
    int64_t needed =
        (out - 1) * w.strides[i] + w.dilations[i] * (kernel[i] - 1) + 1;
    w.ceilExtra.push_back(std::max<int64_t>(0, needed - padded));
  }
  return w;
}

/// Pads the spatial dims of `x` by the window's pads (+ ceil-mode extra).
Value mlprog::detail::padSpatial(OpBuilder &b, Location loc, Value x,
                                 const Window &w, TypedAttr value) {
  SmallVector<int64_t> low = {0, 0}, high = {0, 0};
  for (size_t i = 0; i < w.padsBegin.size(); ++i) {
    low.push_back(w.padsBegin[i]);
    high.push_back(w.padsEnd[i] + w.ceilExtra[i]);
  }
  return padStatic(b, loc, x, low, high, value);
}

/// [N, C, outputSpatial...] sizes with N read from `x`.
SmallVector<OpFoldResult> mlprog::detail::outputSizes(OpBuilder &b,
                                                      Location loc, Value x,
                                                      OpFoldResult channels,
                                                      const Window &w) {
  SmallVector<OpFoldResult> sizes = {tensor::getMixedSize(b, loc, x, 0),
                                     channels};
  for (auto [i, o] : llvm::enumerate(w.outputSpatial)) {
    if (!ShapedType::isDynamic(o)) {
      sizes.push_back(b.getIndexAttr(o));
      continue;
    }
    IndexMath m{b, loc};
    Value extent = tensor::DimOp::create(b, loc, x, 2 + i);
    int64_t span = w.dilations[i] * (w.kernel[i] - 1) + 1;
    Value shifted =
        m.add(extent, m.c(w.padsBegin[i] + w.padsEnd[i] - span + w.strides[i]));
    Value clamped = m.max(shifted, m.c(0));
    sizes.push_back(w.strides[i] == 1 ? clamped
                                      : arith::DivUIOp::create(
                                            b, loc, clamped, m.c(w.strides[i]))
                                            .getResult());
  }
  return sizes;
}

/// Affine exprs of the input position O_i * stride_i + K_i * dilation_i for
/// every spatial dim, with output dims starting at loop `outDim` and kernel
/// dims at loop `kernelDim`.
SmallVector<AffineExpr> mlprog::detail::windowExprs(MLIRContext *ctx,
                                                    const Window &w,
                                                    unsigned outDim,
                                                    unsigned kernelDim) {
  SmallVector<AffineExpr> exprs;
  for (size_t i = 0; i < w.strides.size(); ++i)
    exprs.push_back(getAffineDimExpr(outDim + i, ctx) * w.strides[i] +
                    getAffineDimExpr(kernelDim + i, ctx) * w.dilations[i]);
  return exprs;
}

Value mlprog::detail::toIndex(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex())
    return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// The entries of the 1-D integer tensor `t` (static length) as indices.
SmallVector<Value> mlprog::detail::readIndices(IndexMath &m, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  SmallVector<Value> out;
  for (int64_t i = 0; i < type.getDimSize(0); ++i)
    out.push_back(
        m.index(tensor::ExtractOp::create(m.b, m.loc, t, ValueRange{m.c(i)})));
  return out;
}

/// Checks that `axes` is a 1-D signless-integer tensor of static length.
LogicalResult mlprog::detail::checkAxesTensor(Location loc, Value axes,
                                              StringRef what) {
  auto t = dyn_cast<RankedTensorType>(axes.getType());
  if (!t || t.getRank() != 1 || t.isDynamicDim(0) ||
      !t.getElementType().isSignlessInteger())
    return emitError(loc) << what
                          << ": axes must be a 1-D integer tensor of static "
                             "length, got "
                          << axes.getType();
  return success();
}

/// `x` reshaped to the run-time `extents` (index values, same element
/// count), typed with `hint` where it has static extents.
Value mlprog::detail::reshapeToExtents(OpBuilder &b, Location loc, Value x,
                                       ArrayRef<Value> extents,
                                       ArrayRef<int64_t> hint) {
  int64_t r = extents.size();
  Value shape = tensor::FromElementsOp::create(
      b, loc, RankedTensorType::get({r}, b.getIndexType()), extents);
  Type et = cast<RankedTensorType>(x.getType()).getElementType();
  SmallVector<int64_t> dyn(r, ShapedType::kDynamic);
  Value result = tensor::ReshapeOp::create(
      b, loc, RankedTensorType::get(dyn, et), x, shape);
  return refineToShape(b, loc, result, hint);
}

Type mlprog::detail::elementTypeOf(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t ? t.getElementType() : Type();
}

Value mlprog::detail::binaryOrNull(OpBuilder &b, Location loc,
                                   BinaryOpKind kind, Value l, Value r) {
  FailureOr<Value> v = buildElementwiseBinary(b, loc, kind, l, r);
  return succeeded(v) ? *v : Value();
}

Value mlprog::detail::unaryOrNull(OpBuilder &b, Location loc, UnaryOpKind kind,
                                  Value x) {
  FailureOr<Value> v = buildElementwiseUnary(b, loc, kind, x);
  return succeeded(v) ? *v : Value();
}

FailureOr<Value> mlprog::detail::accumulateInF32(
    OpBuilder &b, Location loc, ArrayRef<Value> operands,
    function_ref<FailureOr<Value>(ArrayRef<Value>)> build) {
  auto narrow = [](Value v) {
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : nullptr;
    return t && (t.getElementType().isF16() || t.getElementType().isBF16());
  };
  Value first = operands.empty() ? Value() : operands.front();
  if (!narrow(first))
    return build(operands);
  Type narrowType = cast<RankedTensorType>(first.getType()).getElementType();
  SmallVector<Value> wide;
  for (Value v : operands) {
    if (!narrow(v)) {
      wide.push_back(v);
      continue;
    }
    FailureOr<Value> w = buildConvertElementType(b, loc, v, b.getF32Type());
    if (failed(w))
      return failure();
    wide.push_back(*w);
  }
  FailureOr<Value> r = build(wide);
  if (failed(r))
    return failure();
  return buildConvertElementType(b, loc, *r, narrowType);
}
