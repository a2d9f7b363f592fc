//===- LowerStridedCopies.cpp - Vector loops for strided copies -----------===//
//
// --mlprog-lower-strided-copies: memory copies that bufferization leaves
// behind (into padded buffers, out of column blocks of matrices). MLIR lowers
// a copy whose operands are not both contiguous to a call to `memrefCopy`, a
// generic element-by-element loop over a strided index; here such copies
// become loops over rows moved with full-width vector loads and stores.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlprog {
#define GEN_PASS_DEF_LOWERSTRIDEDCOPIESPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// Copies above this size get an scf.parallel over their outer dimensions
/// (below, forking OpenMP threads costs about as much as the copy).
static constexpr int64_t kMinParallelCopyBytes = 256 * 1024;

/// Whether `type` is a memref of ints or floats with a known layout and a
/// static innermost extent (outer extents may be dynamic: a KV cache that
/// grows by a row each step).
static bool isVectorCopyable(MemRefType type) {
  if (type.getRank() == 0 || type.isDynamicDim(type.getRank() - 1))
    return false;
  Type element = type.getElementType();
  if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset));
}

/// Whether the innermost dimension of `type` has a unit stride (vector.load
/// and vector.store need it).
static bool hasUnitInnerStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         strides.back() == 1;
}

/// Groups of adjacent dimensions that are contiguous in both `a` and `b`
/// (unit dimensions join any group), so both can be collapsed with them.
static SmallVector<ReassociationIndices> getContiguousGroups(MemRefType a,
                                                             MemRefType b) {
  SmallVector<int64_t> aStrides, bStrides;
  int64_t offset;
  ArrayRef<int64_t> shape = a.getShape();
  bool strided = succeeded(a.getStridesAndOffset(aStrides, offset)) &&
                 succeeded(b.getStridesAndOffset(bStrides, offset));
  // Strides (and sizes) not known at compile time never join a group.
  auto follows = [](ArrayRef<int64_t> strides, ArrayRef<int64_t> shape,
                    int64_t outer, int64_t inner) {
    return !ShapedType::isDynamic(strides[outer]) &&
           !ShapedType::isDynamic(strides[inner]) &&
           !ShapedType::isDynamic(shape[inner]) &&
           strides[outer] == strides[inner] * shape[inner];
  };
  SmallVector<ReassociationIndices> groups;
  groups.push_back({0});
  for (int64_t i = 1, e = shape.size(); i < e; ++i) {
    int64_t prev = groups.back().back();
    bool contiguous = shape[prev] == 1 || shape[i] == 1 ||
                      (strided && follows(aStrides, shape, prev, i) &&
                       follows(bStrides, shape, prev, i));
    if (contiguous)
      groups.back().push_back(i);
    else
      groups.push_back({i});
  }
  return groups;
}

/// Copies row `outer` (indices of all but the last dimension) of `src` into
/// `dst`: full vectors of `lanes` elements, then one narrower remainder.
static void emitRowCopy(OpBuilder &b, Location loc, Value src, Value dst,
                        ValueRange outer, int64_t n, int64_t lanes) {
  Type element = cast<MemRefType>(src.getType()).getElementType();
  auto moveVector = [&](OpBuilder &builder, Value column, int64_t length) {
    SmallVector<Value> indices(outer);
    indices.push_back(column);
    auto type = VectorType::get({length}, element);
    Value v = vector::LoadOp::create(builder, loc, type, src, indices);
    vector::StoreOp::create(builder, loc, v, dst, indices);
  };
  int64_t full = n / lanes, rest = n % lanes;
  if (full > kMaxUnrolledVectors) {
    Value lb = arith::ConstantIndexOp::create(b, loc, 0);
    Value ub = arith::ConstantIndexOp::create(b, loc, full * lanes);
    Value step = arith::ConstantIndexOp::create(b, loc, lanes);
    scf::ForOp::create(
        b, loc, lb, ub, step, ValueRange{},
        [&](OpBuilder &builder, Location, Value column, ValueRange) {
          moveVector(builder, column, lanes);
          scf::YieldOp::create(builder, loc);
        });
  } else {
    for (int64_t i = 0; i < full; ++i)
      moveVector(b, arith::ConstantIndexOp::create(b, loc, i * lanes), lanes);
  }
  if (rest != 0)
    moveVector(b, arith::ConstantIndexOp::create(b, loc, full * lanes), rest);
}

/// Rewrites `copy` into vector loops (see LowerStridedCopiesPass); leaves it
/// alone when both operands are contiguous or the innermost extent is not
/// static.
static LogicalResult lowerCopy(RewriterBase &rewriter, memref::CopyOp copy,
                               int64_t vectorBits, bool parallel) {
  auto srcType = dyn_cast<MemRefType>(copy.getSource().getType());
  auto dstType = dyn_cast<MemRefType>(copy.getTarget().getType());
  if (!srcType || !dstType || !isVectorCopyable(srcType) ||
      !isVectorCopyable(dstType) || srcType.getShape() != dstType.getShape() ||
      srcType.getElementType() != dstType.getElementType())
    return failure();
  auto contiguous = [](MemRefType type) {
    return type.getLayout().isIdentity() ||
           memref::isStaticShapeAndContiguousRowMajor(type);
  };
  if (contiguous(srcType) && contiguous(dstType))
    return failure(); // memcpy.
  if (srcType.hasStaticShape() && srcType.getNumElements() == 0) {
    rewriter.eraseOp(copy);
    return success();
  }

  SmallVector<ReassociationIndices> groups =
      getContiguousGroups(srcType, dstType);
  bool collapse =
      groups.size() < static_cast<size_t>(srcType.getRank()) &&
      memref::CollapseShapeOp::isGuaranteedCollapsible(srcType, groups) &&
      memref::CollapseShapeOp::isGuaranteedCollapsible(dstType, groups);
  // A dynamic extent collapsed into the rows would make their length
  // dynamic: keep the rows as they are then.
  if (collapse && memref::CollapseShapeOp::computeCollapsedType(srcType, groups)
                      .isDynamicDim(groups.size() - 1))
    collapse = false;
  MemRefType rowSrcType =
      collapse ? memref::CollapseShapeOp::computeCollapsedType(srcType, groups)
               : srcType;
  MemRefType rowDstType =
      collapse ? memref::CollapseShapeOp::computeCollapsedType(dstType, groups)
               : dstType;
  // Rows must be contiguous (a column [.., n, 1] of a wider tensor is not).
  if (!hasUnitInnerStride(rowSrcType) || !hasUnitInnerStride(rowDstType))
    return failure();

  Location loc = copy.getLoc();
  rewriter.setInsertionPoint(copy);
  Value src = copy.getSource(), dst = copy.getTarget();
  if (collapse) {
    src = memref::CollapseShapeOp::create(rewriter, loc, src, groups);
    dst = memref::CollapseShapeOp::create(rewriter, loc, dst, groups);
  }
  auto type = cast<MemRefType>(src.getType());
  ArrayRef<int64_t> shape = type.getShape();
  int64_t n = shape.back();
  int64_t lanes = getLanes(type.getElementType(), vectorBits);
  if (shape.size() == 1) {
    emitRowCopy(rewriter, loc, src, dst, ValueRange{}, n, lanes);
    rewriter.eraseOp(copy);
    return success();
  }

  SmallVector<Value> lbs, ubs, steps;
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
  for (auto [d, size] : llvm::enumerate(shape.drop_back())) {
    lbs.push_back(zero);
    ubs.push_back(
        ShapedType::isDynamic(size)
            ? memref::DimOp::create(rewriter, loc, src, d).getResult()
            : arith::ConstantIndexOp::create(rewriter, loc, size).getResult());
    steps.push_back(one);
  }
  // Dynamic extents: parallel when the rows alone make a large copy.
  int64_t bytes = (type.hasStaticShape() ? type.getNumElements() : n) *
                  type.getElementType().getIntOrFloatBitWidth() / 8;
  auto body = [&](OpBuilder &b, Location l, ValueRange ivs) {
    emitRowCopy(b, l, src, dst, ivs, n, lanes);
  };
  // Copies inside a parallel loop already run on its threads.
  bool nested = copy->getParentOfType<scf::ParallelOp>() ||
                copy->getParentOfType<scf::ForallOp>();
  if (parallel && !nested && bytes >= kMinParallelCopyBytes)
    scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps, body);
  else
    scf::buildLoopNest(rewriter, loc, lbs, ubs, steps, body);
  rewriter.eraseOp(copy);
  return success();
}

namespace {
/// Lowers memref.copy ops that are not contiguous to vector loops.
struct LowerStridedCopiesPass
    : public mlprog::impl::LowerStridedCopiesPassBase<LowerStridedCopiesPass> {
  using Base::Base;
  void runOnOperation() override {
    int64_t vectorBits =
        CPUTarget::getForFeatures(targetFeatures).getVectorBits();
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies)
      (void)lowerCopy(rewriter, copy, vectorBits, parallel);
  }
};
} // namespace
