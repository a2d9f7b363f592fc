//===- ByteProductEpilogues.cpp - Epilogues in VNNI register blocks ------===//
//
// The elementwise epilogue of a byte product (a QDQ convolution's
// requantization) as emitU8S8Contraction (DotProducts.cpp) computes it in
// its register blocks: matched through the slice of the product's real
// columns and the expand_shape to the convolution's layout, its inputs
// viewed in 2-D, and read 16 columns at a time.
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

std::optional<ByteProductEpilogue>
cpu::matchByteProductEpilogue(linalg::LinalgOp op) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  Value value = op->getResult(0);
  auto type = cast<RankedTensorType>(value.getType());
  ByteProductEpilogue result{};
  result.columns = type.getDimSize(1);
  if (!value.hasOneUse())
    return std::nullopt;
  if (auto slice =
          dyn_cast<tensor::ExtractSliceOp>(*value.getUsers().begin())) {
    if (!slice.hasUnitStride() || slice.getResultType().getRank() != 2 ||
        !llvm::all_of(slice.getStaticOffsets(),
                      [](int64_t offset) { return offset == 0; }) ||
        slice.getStaticSizes()[0] != type.getDimSize(0) ||
        ShapedType::isDynamic(slice.getStaticSizes()[1]))
      return std::nullopt;
    result.slice = slice;
    result.columns = slice.getStaticSizes()[1];
    value = slice.getResult();
    if (!value.hasOneUse())
      return std::nullopt;
  }
  result.expand = dyn_cast<tensor::ExpandShapeOp>(*value.getUsers().begin());
  if (!result.expand || result.expand.getReassociationIndices().size() != 2 ||
      !result.expand->hasOneUse())
    return std::nullopt;
  Value expanded = result.expand.getResult();
  auto generic =
      dyn_cast<linalg::GenericOp>(*result.expand->getUsers().begin());
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic->getNumResults() != 1 || !linalg::isElementwise(generic) ||
      generic.hasIndexSemantics() || generic->getBlock() != op->getBlock() ||
      cast<RankedTensorType>(generic->getResult(0).getType()).getShape() !=
          result.expand.getResultType().getShape() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)) ||
      !appliesToVectors(generic))
    return std::nullopt;
  ReassociationIndices rowsGroup = result.expand.getReassociationIndices()[0];
  ArrayRef<int64_t> shape = result.expand.getResultType().getShape();
  int reads = 0;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    if (input->get() == expanded) {
      if (!map.isIdentity())
        return std::nullopt;
      ++reads;
      continue;
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
  if (reads != 1)
    return std::nullopt;
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
    } else if (map.getNumResults() == 0) {
      operands.push_back({ByteEpilogueOperand::Scalar, value});
    } else if (map.isIdentity()) {
      operands.push_back({ByteEpilogueOperand::Element,
                          tensor::CollapseShapeOp::create(
                              rewriter, loc, value,
                              epilogue.expand.getReassociationIndices())});
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
                                   Value sums, Value row, Value column,
                                   bool mayOverrun) {
  if (operand.kind == ByteEpilogueOperand::Product)
    return sums;
  Type element = getElementTypeOrSelf(operand.view.getType());
  auto vectorType = VectorType::get({kByteLanes}, element);
  if (operand.kind == ByteEpilogueOperand::Element) {
    Value pad =
        arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
    return vector::TransferReadOp::create(b, loc, vectorType, operand.view,
                                          ValueRange{row, column}, pad,
                                          ArrayRef<bool>{!mayOverrun});
  }
  SmallVector<Value> indices;
  if (operand.kind == ByteEpilogueOperand::Row)
    indices.push_back(row);
  return vector::BroadcastOp::create(
      b, loc, vectorType,
      tensor::ExtractOp::create(b, loc, operand.view, indices));
}
