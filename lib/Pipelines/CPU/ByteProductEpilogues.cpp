//===- ByteProductEpilogues.cpp - Epilogues in VNNI register blocks ------===//
//
// The elementwise epilogue of a byte product (a QDQ convolution's
// requantization) as emitU8S8Contraction (DotProducts.cpp) computes it in
// its register blocks: matched through the views of the product in the
// convolution's layout (the slice of its real columns, per image in a
// batch, and the expand_shape to [N, F, OH, OW]), its inputs viewed in 2-D
// (3-D in a batch), and read 16 columns at a time.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// The one user of `value` if it is a T; null otherwise.
template <typename T> static T soleUser(Value value) {
  if (!value.hasOneUse())
    return nullptr;
  return dyn_cast<T>(*value.getUsers().begin());
}

/// Whether `slice` starts at 0 with unit strides and static sizes.
static bool isLeadingSlice(tensor::ExtractSliceOp slice) {
  return slice.hasUnitStride() &&
         llvm::all_of(slice.getStaticOffsets(),
                      [](int64_t offset) { return offset == 0; }) &&
         llvm::none_of(slice.getStaticSizes(), ShapedType::isDynamic);
}

/// The groups [[0], [1], [2, ..., rank - 1]].
static SmallVector<ReassociationIndices> imageGroups(int64_t rank) {
  SmallVector<ReassociationIndices> groups = {{0}, {1}, {}};
  for (int64_t d = 2; d < rank; ++d)
    groups.back().push_back(d);
  return groups;
}

/// The contraction whose result `value` is through views equal to `views`
/// (the same ops and attributes, each with one user), of the same type as
/// `op`'s result and not `op`, with those views in `otherViews`; null
/// otherwise.
static linalg::LinalgOp
matchSameViews(Value value, ArrayRef<Operation *> views, linalg::LinalgOp op,
               SmallVector<Operation *, 3> &otherViews) {
  otherViews.clear();
  for (Operation *view : llvm::reverse(views)) {
    Operation *def = value.getDefiningOp();
    if (!def || def->getName() != view->getName() ||
        def->getAttrDictionary() != view->getAttrDictionary() ||
        def->getResultTypes() != view->getResultTypes() ||
        def->getNumOperands() != 1 || !value.hasOneUse())
      return nullptr;
    otherViews.insert(otherViews.begin(), def);
    value = def->getOperand(0);
  }
  auto other = value.getDefiningOp<linalg::LinalgOp>();
  if (!other || other == op || other->getNumResults() != 1 ||
      !value.hasOneUse() || value.getType() != op->getResult(0).getType() ||
      other.getNumReductionLoops() != 1)
    return nullptr;
  return other;
}

std::optional<ByteProductEpilogue>
cpu::matchByteProductEpilogue(linalg::LinalgOp op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Value value = op->getResult(0);
  auto type = cast<RankedTensorType>(value.getType());
  int64_t m = type.getDimSize(0);
  ByteProductEpilogue result{};
  result.columns = result.imageColumns = type.getDimSize(1);
  if (auto slice = soleUser<tensor::ExtractSliceOp>(value)) {
    // One image's real columns.
    if (!isLeadingSlice(slice) || slice.getResultType().getRank() != 2 ||
        slice.getStaticSizes()[0] != m)
      return std::nullopt;
    result.slice = slice;
    result.columns = slice.getStaticSizes()[1];
    result.views.push_back(slice);
    value = slice.getResult();
  } else if (auto split = soleUser<tensor::ExpandShapeOp>(value);
             split && split.getResultType().getRank() == 3 &&
             split.getReassociationIndices() ==
                 SmallVector<ReassociationIndices>{{0}, {1, 2}}) {
    // A batch's images, each padded to imageColumns: their real columns.
    auto slice = soleUser<tensor::ExtractSliceOp>(split.getResult());
    if (!slice || !isLeadingSlice(slice) ||
        slice.getResultType().getRank() != 3 ||
        slice.getStaticSizes()[0] != m ||
        slice.getStaticSizes()[1] != split.getResultType().getDimSize(1))
      return std::nullopt;
    result.images = split.getResultType().getDimSize(1);
    result.imageColumns = split.getResultType().getDimSize(2);
    result.columns = slice.getStaticSizes()[2];
    result.views.append({split, slice});
    value = slice.getResult();
  }
  result.expand = soleUser<tensor::ExpandShapeOp>(value);
  if (!result.expand || !result.expand->hasOneUse())
    return std::nullopt;
  result.views.push_back(result.expand);
  Value expanded = result.expand.getResult();
  ArrayRef<int64_t> expandedShape = result.expand.getResultType().getShape();
  int64_t rank = expandedShape.size();
  SmallVector<ReassociationIndices> groups =
      result.expand.getReassociationIndices();
  auto generic =
      dyn_cast<linalg::GenericOp>(*result.expand->getUsers().begin());
  if (!generic || generic->getNumResults() != 1 ||
      generic.getNumLoops() != rank)
    return std::nullopt;
  // A batch: the generic reads the product [M, images, ...] transposed.
  SmallVector<int64_t> swapped;
  for (int64_t d = 0; d < rank; ++d)
    swapped.push_back(d < 2 ? 1 - d : d);
  AffineMap transposed =
      AffineMap::getPermutationMap(swapped, generic.getContext());
  OpOperand *productInput = nullptr;
  for (OpOperand *input : generic.getDpsInputOperands())
    if (input->get() == expanded) {
      if (productInput)
        return std::nullopt;
      productInput = input;
    }
  if (!productInput)
    return std::nullopt;
  bool batched = generic.getMatchingIndexingMap(productInput) == transposed;
  if (batched && result.images == 1 && groups.size() == 2 &&
      groups[0].size() == 1 && groups[1].size() > 1 && expandedShape[1] > 1) {
    // A batch without padding: [M, images * columns] -> [M, images, ...],
    // or with columns of padding after the batch's, sliced off first.
    result.images = expandedShape[1];
    result.columns = result.imageColumns = result.columns / result.images;
  } else if (batched != (result.images > 1) ||
             (batched ? groups != imageGroups(rank)
                      : groups.size() != 2 ||
                            !generic.getMatchingIndexingMap(productInput)
                                 .isIdentity())) {
    return std::nullopt;
  }
  // The generic's result: the expanded shape, the first two dimensions
  // swapped for a batch.
  SmallVector<int64_t> shape(expandedShape);
  if (batched)
    std::swap(shape[0], shape[1]);
  if (!generic.hasPureTensorSemantics() || !linalg::isElementwise(generic) ||
      generic.hasIndexSemantics() || generic->getBlock() != op->getBlock() ||
      cast<RankedTensorType>(generic->getResult(0).getType()).getShape() !=
          ArrayRef<int64_t>(shape) ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)) ||
      !appliesToVectors(generic))
    return std::nullopt;
  // The generic's dimensions that index the product's rows.
  ReassociationIndices rowsGroup =
      batched ? ReassociationIndices{1} : groups[0];
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (input == productInput)
      continue;
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (!result.other && map == generic.getMatchingIndexingMap(productInput)) {
      SmallVector<Operation *, 3> views;
      if (linalg::LinalgOp other =
              matchSameViews(input->get(), result.views, op, views)) {
        result.other = other;
        result.otherViews = std::move(views);
        continue;
      }
    }
    auto inputType = dyn_cast<RankedTensorType>(input->get().getType());
    if (!inputType || !inputType.hasStaticShape())
      return std::nullopt;
    if (map.isIdentity() || map.getNumResults() == 0)
      continue;
    // Dimensions of the rows' group, in order, the others of extent 1.
    int64_t last = -1;
    for (AffineExpr expr : map.getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      if (!dim || !llvm::is_contained(rowsGroup, dim.getPosition()) ||
          int64_t(dim.getPosition()) <= last)
        return std::nullopt;
      last = dim.getPosition();
    }
    for (int64_t d : rowsGroup)
      if (shape[d] != 1 && !map.isFunctionOfDim(d))
        return std::nullopt;
  }
  result.generic = generic;
  Operation *yielded =
      generic.getBody()->getTerminator()->getOperand(0).getDefiningOp();
  if (isa_and_present<arith::ExtUIOp, arith::ExtSIOp>(yielded) &&
      yielded->getOperand(0).getType().isInteger(8) &&
      yielded->getResult(0).getType().isInteger(32))
    result.widening = yielded;
  return result;
}

SmallVector<ByteEpilogueOperand>
cpu::viewByteEpilogueOperands(RewriterBase &rewriter,
                              ByteProductEpilogue epilogue) {
  SmallVector<ByteEpilogueOperand> operands;
  Location loc = epilogue.generic.getLoc();
  for (OpOperand *input : epilogue.generic.getDpsInputOperands()) {
    Value value = input->get();
    AffineMap map = epilogue.generic.getMatchingIndexingMap(input);
    if (value == epilogue.expand.getResult()) {
      operands.push_back({ByteEpilogueOperand::Product, Value()});
    } else if (!epilogue.otherViews.empty() &&
               value == epilogue.otherViews.back()->getResult(0)) {
      operands.push_back({ByteEpilogueOperand::OtherProduct, Value()});
    } else if (map.getNumResults() == 0) {
      operands.push_back({ByteEpilogueOperand::Scalar, value});
    } else if (map.isIdentity()) {
      // [M, columns], or [images, M, columns] for a batch.
      int64_t rank = cast<RankedTensorType>(value.getType()).getRank();
      SmallVector<ReassociationIndices> groups = imageGroups(rank);
      if (epilogue.images == 1)
        groups = epilogue.expand.getReassociationIndices();
      if (groups.size() != size_t(rank))
        value = tensor::CollapseShapeOp::create(rewriter, loc, value, groups);
      operands.push_back({ByteEpilogueOperand::Element, value});
    } else {
      auto type = cast<RankedTensorType>(value.getType());
      if (type.getRank() != 1) {
        ReassociationIndices all;
        for (int64_t d = 0; d < type.getRank(); ++d)
          all.push_back(d);
        value = tensor::CollapseShapeOp::create(
            rewriter, loc, value, SmallVector<ReassociationIndices>{all});
      }
      operands.push_back({ByteEpilogueOperand::Row, value});
    }
  }
  return operands;
}

Value cpu::readByteEpilogueOperand(OpBuilder &b, Location loc,
                                   const ByteEpilogueOperand &operand,
                                   Value sums, Value otherSums, Value image,
                                   Value row, Value column, bool mayOverrun) {
  if (operand.kind == ByteEpilogueOperand::Product)
    return sums;
  if (operand.kind == ByteEpilogueOperand::OtherProduct)
    return otherSums;
  Type element = getElementTypeOrSelf(operand.view.getType());
  auto vectorType = VectorType::get({kByteLanes}, element);
  if (operand.kind == ByteEpilogueOperand::Element) {
    Value pad =
        arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
    SmallVector<Value> indices = {row, column};
    if (image)
      indices.insert(indices.begin(), image);
    return vector::TransferReadOp::create(b, loc, vectorType, operand.view,
                                          indices, pad,
                                          ArrayRef<bool>{!mayOverrun});
  }
  SmallVector<Value> indices;
  if (operand.kind == ByteEpilogueOperand::Row)
    indices.push_back(row);
  return vector::BroadcastOp::create(
      b, loc, vectorType,
      tensor::ExtractOp::create(b, loc, operand.view, indices));
}
