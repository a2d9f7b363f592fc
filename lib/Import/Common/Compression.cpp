//===- Compression.cpp - Compressed-weight builders -----------------------===//
//
// Bit unpacking and lookup tables are linalg.generic ops over the result
// that read the compressed tensors with tensor.extract (the positions are
// computed, not affine); sparse expansion and compaction walk the mask once
// with an scf.for carrying the count of set elements.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/Compression.h"
#include "Utils.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

/// A linalg.generic without inputs producing a tensor of static `shape` and
/// `elementType`; `body` computes an element from its indices.
static Value
generateTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
               Type elementType,
               function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : shape)
    sizes.push_back(b.getIndexAttr(d));
  Value init = createEmpty(b, loc, sizes, elementType);
  unsigned rank = shape.size();
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(rank, b.getContext())};
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange(), init, maps,
             parallelIterators(rank),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> idx;
               for (unsigned d = 0; d < rank; ++d)
                 idx.push_back(linalg::IndexOp::create(nb, nl, d));
               linalg::YieldOp::create(nb, nl, body(nb, nl, idx));
             })
      .getResult(0);
}

/// The row-major linear position of `idx` in `shape`.
static Value linearIndex(IndexMath &m, ValueRange idx,
                         ArrayRef<int64_t> shape) {
  Value k = m.c(0);
  for (auto [i, d] : llvm::zip(idx, shape))
    k = m.add(m.mul(k, m.c(d)), i);
  return k;
}

/// Checks that `v` is a ranked tensor of static shape, or fails naming it.
static FailureOr<RankedTensorType> staticType(Location loc, Value v,
                                              StringRef what) {
  FailureOr<RankedTensorType> t = getRankedType(loc, v, what);
  if (failed(t))
    return failure();
  if (!t->hasStaticShape())
    return emitError(loc) << what << ": expected a static shape, got "
                          << v.getType();
  return t;
}

FailureOr<Value> mlprog::buildUnpackBits(OpBuilder &b, Location loc,
                                         Value packed, unsigned bits,
                                         ArrayRef<int64_t> shape) {
  StringRef what = "unpack bits";
  FailureOr<RankedTensorType> pt = staticType(loc, packed, what);
  if (failed(pt))
    return failure();
  if (pt->getRank() != 1 || !pt->getElementType().isInteger(8))
    return emitError(loc) << what << ": packed data must be a 1-D i8 tensor, "
                          << "got " << packed.getType();
  if (bits < 1 || bits > 8)
    return emitError(loc) << what << ": unsupported width of " << bits
                          << " bits (1 to 8)";
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d && n > INT64_MAX / 8 / d))
      return emitError(loc) << what << ": invalid result shape";
    n *= d;
  }
  int64_t bytes = pt->getDimSize(0);
  if (bytes < (n * bits + 7) / 8)
    return emitError(loc) << what << ": " << bytes << " bytes cannot hold " << n
                          << " elements of " << bits << " bits";
  Type resultType = b.getIntegerType(bits);
  if (n == 0)
    return generateTensor(b, loc, shape, resultType,
                          [&](OpBuilder &nb, Location nl, ValueRange) {
                            return createScalar(nb, nl, resultType, 0);
                          });
  bool straddles = 8 % bits != 0;
  return generateTensor(
      b, loc, shape, resultType,
      [&](OpBuilder &nb, Location nl, ValueRange idx) -> Value {
        IndexMath m{nb, nl};
        Value bit = m.mul(linearIndex(m, idx, shape), m.c(bits));
        Value byte = arith::DivUIOp::create(nb, nl, bit, m.c(8));
        Value lo = tensor::ExtractOp::create(nb, nl, packed, byte);
        if (bits == 8)
          return lo;
        Type i16 = nb.getIntegerType(16);
        Value word = arith::ExtUIOp::create(nb, nl, i16, lo);
        if (straddles) {
          // The next byte, clamped: an element that ends in the last byte
          // reads it twice and uses only its own bits.
          Value next = m.min(m.add(byte, m.c(1)), m.c(bytes - 1));
          Value hi = arith::ExtUIOp::create(
              nb, nl, i16, tensor::ExtractOp::create(nb, nl, packed, next));
          hi = arith::ShLIOp::create(nb, nl, hi, createScalar(nb, nl, i16, 8));
          word = arith::OrIOp::create(nb, nl, word, hi);
        }
        Value shift = arith::IndexCastOp::create(
            nb, nl, i16, arith::RemUIOp::create(nb, nl, bit, m.c(8)));
        word = arith::ShRUIOp::create(nb, nl, word, shift);
        return arith::TruncIOp::create(nb, nl, resultType, word);
      });
}

FailureOr<Value> mlprog::buildLookupTable(OpBuilder &b, Location loc,
                                          Value indices, Value lut,
                                          std::optional<int64_t> vectorAxis) {
  StringRef what = "lookup table";
  FailureOr<RankedTensorType> it = staticType(loc, indices, what);
  FailureOr<RankedTensorType> lt = failed(it)
                                       ? FailureOr<RankedTensorType>(failure())
                                       : staticType(loc, lut, what);
  if (failed(lt))
    return failure();
  auto ie = dyn_cast<IntegerType>(it->getElementType());
  if (!ie || ie.getWidth() > 16)
    return emitError(loc) << what << ": indices must be integers of at most "
                          << "16 bits, got " << indices.getType();
  int64_t k = it->getRank();
  if (lt->getRank() != k + 2)
    return emitError(loc) << what << ": table " << lut.getType()
                          << " must have rank " << k + 2 << " (indices "
                          << indices.getType() << " plus palette and vector)";
  ArrayRef<int64_t> dShape = it->getShape(), lShape = lt->getShape();
  int64_t palette = lShape[k], vector = lShape[k + 1];
  if (palette < (int64_t(1) << ie.getWidth()))
    return emitError(loc) << what << ": " << palette << " entries cannot serve "
                          << ie.getWidth() << "-bit indices ("
                          << (1 << ie.getWidth()) << " needed)";
  SmallVector<int64_t> block;
  for (int64_t d = 0; d < k; ++d) {
    if (lShape[d] < 1 || dShape[d] % lShape[d] != 0)
      return emitError(loc)
             << what << ": " << lShape[d] << " tables do not divide the extent "
             << dShape[d] << " of dim " << d << " of the indices";
    block.push_back(dShape[d] / lShape[d]);
  }
  if (vector < 1 ||
      (vector > 1 && (!vectorAxis || *vectorAxis < 0 || *vectorAxis >= k)))
    return emitError(loc) << what << ": vectors of " << vector
                          << " elements need a vector axis in [0, " << k << ")";
  SmallVector<int64_t> shape(dShape);
  if (vector > 1)
    shape[*vectorAxis] *= vector;
  return generateTensor(
      b, loc, shape, lt->getElementType(),
      [&](OpBuilder &nb, Location nl, ValueRange idx) -> Value {
        IndexMath m{nb, nl};
        SmallVector<Value> at(idx), table;
        Value v = m.c(0);
        if (vector > 1) {
          Value j = at[*vectorAxis];
          at[*vectorAxis] = arith::DivUIOp::create(nb, nl, j, m.c(vector));
          v = arith::RemUIOp::create(nb, nl, j, m.c(vector));
        }
        for (int64_t d = 0; d < k; ++d)
          table.push_back(lShape[d] == 1 ? m.c(0)
                                         : arith::DivUIOp::create(nb, nl, at[d],
                                                                  m.c(block[d]))
                                               .getResult());
        Value index = tensor::ExtractOp::create(nb, nl, indices, at);
        table.push_back(
            arith::IndexCastUIOp::create(nb, nl, nb.getIndexType(), index));
        table.push_back(v);
        return tensor::ExtractOp::create(nb, nl, lut, table);
      });
}

/// Collapses the static tensor `x` to 1-D.
static FailureOr<Value> flatten(OpBuilder &b, Location loc, Value x) {
  auto t = cast<RankedTensorType>(x.getType());
  if (t.getRank() == 1)
    return x;
  return buildReshape(b, loc, x, {t.getNumElements()});
}

/// Checks that `mask` is a static i1 tensor.
static FailureOr<RankedTensorType> maskType(Location loc, Value mask,
                                            StringRef what) {
  FailureOr<RankedTensorType> t = staticType(loc, mask, what);
  if (failed(t))
    return failure();
  if (!t->getElementType().isInteger(1))
    return emitError(loc) << what << ": mask must be an i1 tensor, got "
                          << mask.getType();
  return t;
}

FailureOr<Value> mlprog::buildSparseToDense(OpBuilder &b, Location loc,
                                            Value mask, Value values) {
  StringRef what = "sparse to dense";
  FailureOr<RankedTensorType> mt = maskType(loc, mask, what);
  FailureOr<RankedTensorType> vt = failed(mt)
                                       ? FailureOr<RankedTensorType>(failure())
                                       : staticType(loc, values, what);
  if (failed(vt))
    return failure();
  if (vt->getRank() != 1)
    return emitError(loc) << what << ": values must be 1-D, got "
                          << values.getType();
  Type et = vt->getElementType();
  int64_t count = vt->getDimSize(0), n = mt->getNumElements();
  TypedAttr zero = b.getZeroAttr(et);
  if (!zero)
    return emitError(loc) << what << ": unsupported element type " << et;
  if (count == 0 || n == 0)
    return createFilled(
        b, loc, getAsIndexOpFoldResult(b.getContext(), mt->getShape()), zero);
  FailureOr<Value> flatMask = flatten(b, loc, mask);
  if (failed(flatMask))
    return failure();
  IndexMath m{b, loc};
  Value init = createEmpty(b, loc, {b.getIndexAttr(n)}, et);
  Value zeroValue = arith::ConstantOp::create(b, loc, zero);
  SmallVector<Value> results =
      loop(b, loc, m.c(0), m.c(n), {init, m.c(0)},
           [&](OpBuilder &nb, Location nl, Value i, ValueRange args) {
             IndexMath lm{nb, nl};
             Value bit = tensor::ExtractOp::create(nb, nl, *flatMask, i);
             Value from = lm.min(args[1], lm.c(count - 1));
             Value v = tensor::ExtractOp::create(nb, nl, values, from);
             v = arith::SelectOp::create(nb, nl, bit, v, zeroValue);
             Value out = tensor::InsertOp::create(nb, nl, v, args[0], i);
             Value next = lm.add(args[1], arith::IndexCastUIOp::create(
                                              nb, nl, nb.getIndexType(), bit));
             return SmallVector<Value>{out, next};
           });
  return buildReshape(b, loc, results[0], mt->getShape());
}

FailureOr<Value> mlprog::buildDenseToSparse(OpBuilder &b, Location loc,
                                            Value dense, Value mask,
                                            int64_t count) {
  StringRef what = "dense to sparse";
  FailureOr<RankedTensorType> mt = maskType(loc, mask, what);
  FailureOr<RankedTensorType> dt = failed(mt)
                                       ? FailureOr<RankedTensorType>(failure())
                                       : staticType(loc, dense, what);
  if (failed(dt))
    return failure();
  if (dt->getShape() != mt->getShape() || count < 1)
    return emitError(loc) << what << ": data " << dense.getType()
                          << " and mask " << mask.getType()
                          << " must have one shape, and " << count
                          << " elements must be kept";
  FailureOr<Value> flatMask = flatten(b, loc, mask);
  FailureOr<Value> flatDense =
      failed(flatMask) ? FailureOr<Value>(failure()) : flatten(b, loc, dense);
  if (failed(flatDense))
    return failure();
  IndexMath m{b, loc};
  Value init = createFilled(b, loc, {b.getIndexAttr(count)},
                            b.getZeroAttr(dt->getElementType()));
  SmallVector<Value> results =
      loop(b, loc, m.c(0), m.c(mt->getNumElements()), {init, m.c(0)},
           [&](OpBuilder &nb, Location nl, Value i, ValueRange args) {
             IndexMath lm{nb, nl};
             Value bit = tensor::ExtractOp::create(nb, nl, *flatMask, i);
             Value to = lm.min(args[1], lm.c(count - 1));
             Value v = tensor::ExtractOp::create(nb, nl, *flatDense, i);
             Value old = tensor::ExtractOp::create(nb, nl, args[0], to);
             v = arith::SelectOp::create(nb, nl, bit, v, old);
             Value out = tensor::InsertOp::create(nb, nl, v, args[0], to);
             Value next = lm.add(args[1], arith::IndexCastUIOp::create(
                                              nb, nl, nb.getIndexType(), bit));
             return SmallVector<Value>{out, next};
           });
  return results[0];
}

FailureOr<Value> mlprog::buildRepeat(OpBuilder &b, Location loc, Value x,
                                     int64_t axis, int64_t repeats) {
  StringRef what = "repeat";
  FailureOr<RankedTensorType> t = staticType(loc, x, what);
  if (failed(t))
    return failure();
  if (axis < 0 || axis >= t->getRank() || repeats < 1)
    return emitError(loc) << what << ": invalid axis " << axis << " or count "
                          << repeats << " for " << x.getType();
  if (repeats == 1)
    return x;
  // [.., D, ..] -> [.., D, 1, ..] -> [.., D, R, ..] -> [.., D * R, ..].
  SmallVector<int64_t> shape(t->getShape());
  shape.insert(shape.begin() + axis + 1, 1);
  FailureOr<Value> r = buildReshape(b, loc, x, shape);
  if (failed(r))
    return failure();
  shape[axis + 1] = repeats;
  FailureOr<Value> e = buildExpand(b, loc, *r, shape);
  if (failed(e))
    return failure();
  SmallVector<int64_t> result(t->getShape());
  result[axis] *= repeats;
  return buildReshape(b, loc, *e, result);
}
