//===- LowerDotProductsToVNNI.cpp - u8 x s8 dot products as vpdpbusd -----===//
//
// --mlprog-lower-dot-products-to-vnni: the dot products of unsigned and
// signed bytes that the integer contractions compute (DotProducts.cpp),
//
//   %a4 = vector.shape_cast %a : vector<64xi8> to vector<16x4xi8>
//   %b4 = vector.shape_cast %b : vector<64xi8> to vector<16x4xi8>
//   %p  = arith.muli (arith.extui %a4), (arith.extsi %b4) : vector<16x4xi32>
//   %r  = vector.multi_reduction <add>, %p, %acc [1]
//             : vector<16x4xi32> to vector<16xi32>
//
// become one AVX-512 VNNI instruction, `llvm.call_intrinsic
// "llvm.x86.avx512.vpdpbusd.512"(%acc, %a, %b)`, which computes exactly
// this (no saturation: four products of 8-bit values fit in i32); so does
// the vector.contract the contraction code generation's vector patterns
// make of it, and a splat of a byte value for either side. It runs
// after bufferization and deallocation, which reject ops of unknown memory
// effects such as llvm.call_intrinsic; without VNNI in the target features
// it changes nothing, and the vector arithmetic stays.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlprog {
#define GEN_PASS_DEF_LOWERDOTPRODUCTSTOVNNIPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

/// The vector<64xi8> whose bytes `value` (vector<16x4xi32>) holds widened
/// by `Ext`: a shape_cast to vector<16x4xi8>, widened, or a splat constant
/// of a byte value (created at the rewriter's insertion point); null
/// otherwise.
template <typename Ext>
static Value matchWidenedBytes(PatternRewriter &rewriter, Location loc,
                               Value value) {
  auto bytesType = VectorType::get({64}, rewriter.getI8Type());
  SplatElementsAttr splat;
  if (matchPattern(value, m_Constant(&splat))) {
    int64_t v = splat.getSplatValue<APInt>().getSExtValue();
    bool isSigned = std::is_same_v<Ext, arith::ExtSIOp>;
    if (v < (isSigned ? -128 : 0) || v > (isSigned ? 127 : 255))
      return Value();
    return arith::ConstantOp::create(
        rewriter, loc,
        DenseElementsAttr::get(bytesType, rewriter.getI8IntegerAttr(v)));
  }
  auto ext = value.getDefiningOp<Ext>();
  if (!ext)
    return Value();
  auto cast = ext.getIn().template getDefiningOp<vector::ShapeCastOp>();
  if (!cast || cast.getSource().getType() != bytesType)
    return Value();
  return cast.getSource();
}

/// Replaces `op`, acc + the sums over the inner dimension of lhs * rhs
/// (vector<16x4xi32> each, acc vector<16xi32>), with `vpdpbusd` when one
/// factor is unsigned bytes and the other signed bytes.
static LogicalResult rewriteAsVNNI(PatternRewriter &rewriter, Operation *op,
                                   Value lhs, Value rhs, Value acc) {
  auto type = dyn_cast<VectorType>(lhs.getType());
  if (!type || type.getShape() != ArrayRef<int64_t>{16, 4} ||
      !type.getElementType().isInteger(32) ||
      acc.getType() != VectorType::get({16}, type.getElementType()))
    return failure();
  Location loc = op->getLoc();
  for (auto [u, s] : {std::pair(lhs, rhs), std::pair(rhs, lhs)}) {
    Value a = matchWidenedBytes<arith::ExtUIOp>(rewriter, loc, u);
    Value b = a ? matchWidenedBytes<arith::ExtSIOp>(rewriter, loc, s) : Value();
    if (a && b) {
      rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
          op, acc.getType(),
          rewriter.getStringAttr("llvm.x86.avx512.vpdpbusd.512"),
          ValueRange{acc, a, b});
      return success();
    }
  }
  return failure();
}

namespace {
/// The products and sums as DotProducts.cpp writes them.
struct ReductionToVNNI : OpRewritePattern<vector::MultiDimReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::MultiDimReductionOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getKind() != vector::CombiningKind::ADD ||
        op.getReductionDims() != ArrayRef<int64_t>{1})
      return failure();
    if (auto mul = op.getSource().getDefiningOp<arith::MulIOp>())
      return rewriteAsVNNI(rewriter, op, mul.getLhs(), mul.getRhs(),
                           op.getAcc());
    // Sums of bytes alone (canonicalization folds the product of the
    // column sums' all-ones bytes): the product with ones.
    auto type = dyn_cast<VectorType>(op.getSource().getType());
    if (!type)
      return failure();
    Value ones = arith::ConstantOp::create(
        rewriter, op.getLoc(),
        DenseElementsAttr::get(
            type, rewriter.getIntegerAttr(type.getElementType(), 1)));
    if (failed(
            rewriteAsVNNI(rewriter, op, ones, op.getSource(), op.getAcc()))) {
      rewriter.eraseOp(ones.getDefiningOp());
      return failure();
    }
    return success();
  }
};

/// The same once the contraction code generation's vector patterns made it
/// a vector.contract (`populateVectorReductionToContractPatterns`).
struct ContractToVNNI : OpRewritePattern<vector::ContractionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ContractionOp op,
                                PatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
    AffineMap rows = AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx);
    if (op.getKind() != vector::CombiningKind::ADD ||
        op.getIndexingMapsArray() !=
            ArrayRef<AffineMap>{identity, identity, rows})
      return failure();
    return rewriteAsVNNI(rewriter, op, op.getLhs(), op.getRhs(), op.getAcc());
  }
};

struct LowerDotProductsToVNNIPass
    : public mlprog::impl::LowerDotProductsToVNNIPassBase<
          LowerDotProductsToVNNIPass> {
  using Base::Base;

  void runOnOperation() override {
    if (!CPUTarget::getForFeatures(targetFeatures).hasAVX512VNNI())
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<ReductionToVNNI, ContractToVNNI>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
