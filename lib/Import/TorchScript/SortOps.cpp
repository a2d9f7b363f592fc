//===- SortOps.cpp - aten sorting and searching ---------------------------===//
//
// sort, argsort, msort, topk, searchsorted and bucketize.
//
// One handler per aten op (overloads told apart by the node's schema): it
// reads the arguments at the schema's positions, applies torch's type
// promotion, and calls the shared builders in mlprog/Import/Common.
// Semantics belong in the builders, not here.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"
#include "HandlerUtils.h"

#include "mlprog/Import/Common/Creation.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;

namespace {

using Im = Importer;

/// The named int/bool argument of `n`'s schema, or `def` when the schema
/// has no such argument or it is None.
template <typename T>
FailureOr<T> namedArg(Im &im, Node *n, const char *name, T def) {
  std::optional<int> i = n->schema().argumentIndexWithName(name);
  if (!i || im.isNoneInput(n, *i))
    return def;
  if constexpr (std::is_same_v<T, bool>)
    return im.boolInput(n, *i);
  else
    return im.intInput(n, *i);
}

/// The values and int64 indices of the `k` smallest (largest with
/// `largest`) elements of `x` along `dim`, in order; ties keep the lower
/// index first (a stable sort). A 0-d `x` is its own sort, at index 0.
FailureOr<std::pair<Value, Value>> sorted(Im &im, Node *n, Value x, int64_t d,
                                          std::optional<OpFoldResult> k,
                                          bool largest) {
  Location l = im.loc(n);
  FailureOr<int64_t> dim = normDim(im, n, d, rankOf(x));
  if (failed(dim))
    return failure();
  if (rankOf(x) == 0) {
    if (k && getConstantIntValue(*k) != std::optional<int64_t>(1))
      return emitError(l) << "topk: k must be 1 for a 0-d tensor";
    Value zero = arith::ConstantOp::create(im.b, l, im.b.getI64IntegerAttr(0));
    FailureOr<Value> index = buildFull(im.b, l, {}, im.b.getI64Type(), zero);
    if (failed(index))
      return failure();
    return std::make_pair(x, *index);
  }
  int64_t extent = cast<RankedTensorType>(x.getType()).getDimSize(*dim);
  if (!k) {
    if (ShapedType::isDynamic(extent))
      return im.unsupported(n, "sort along a dynamic extent");
    return buildTopK(im.b, l, x, extent, *dim, largest);
  }
  if (std::optional<int64_t> c = getConstantIntValue(*k))
    return buildTopK(im.b, l, x, *c, *dim, largest);
  return buildTopKDynamic(im.b, l, x, *k, *dim, largest);
}

/// sort(self, dim, descending), sort.stable(self, *, stable, dim,
/// descending), argsort (the indices) and msort (sort along dim 0).
LogicalResult sort(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  std::string name = n->kind().toUnqualString();
  FailureOr<int64_t> dim = name == "msort"
                               ? FailureOr<int64_t>(0)
                               : namedArg<int64_t>(im, n, "dim", -1);
  FailureOr<bool> descending = namedArg<bool>(im, n, "descending", false);
  if (failed(x) || failed(dim) || failed(descending))
    return failure();
  FailureOr<std::pair<Value, Value>> r =
      sorted(im, n, *x, *dim, std::nullopt, *descending);
  if (failed(r))
    return failure();
  if (name == "argsort")
    return im.setTensor(n, 0, r->second);
  if (name == "msort")
    return im.setTensor(n, 0, r->first);
  if (failed(im.setTensor(n, 0, r->first)))
    return failure();
  return im.setTensor(n, 1, r->second);
}

/// topk(self, k, dim, largest, sorted): the result is always sorted.
LogicalResult topk(Im &im, Node *n) {
  FailureOr<Value> x = im.tensorInput(n, 0);
  FailureOr<OpFoldResult> k = indexInput(im, n, 1);
  FailureOr<int64_t> dim = im.intInput(n, 2);
  FailureOr<bool> largest = im.boolInput(n, 3);
  if (failed(x) || failed(k) || failed(dim) || failed(largest))
    return failure();
  FailureOr<std::pair<Value, Value>> r = sorted(im, n, *x, *dim, *k, *largest);
  if (failed(r) || failed(im.setTensor(n, 0, r->first)))
    return failure();
  return im.setTensor(n, 1, r->second);
}

/// The insertion points of `values` in `seq` (both promoted to one dtype),
/// int64 or int32 (`out_int32`); the right ones when `right` or side is
/// "right". A `sorter` (int64, seq's shape) reorders `seq` first.
LogicalResult insertionPoints(Im &im, Node *n, const TSValue &seqV,
                              const TSValue &valuesV, Value sorter) {
  Location l = im.loc(n);
  Type et = im.promote({&seqV, &valuesV});
  FailureOr<Value> seq = im.tensorOf(seqV, et, l),
                   values = im.tensorOf(valuesV, et, l);
  FailureOr<bool> outInt32 = namedArg<bool>(im, n, "out_int32", false),
                  right = namedArg<bool>(im, n, "right", false);
  if (failed(seq) || failed(values) || failed(outInt32) || failed(right))
    return failure();
  if (std::optional<int> si = n->schema().argumentIndexWithName("side")) {
    const TSValue &side = im.get(n->input(*si));
    if (side.kind == TSValue::Kind::Str)
      *right = side.str == "right";
  }
  if (sorter) {
    FailureOr<Value> s =
        buildGatherAlongAxis(im.b, l, *seq, sorter, rankOf(*seq) - 1);
    if (failed(s))
      return failure();
    seq = *s;
  }
  Type rt = *outInt32 ? im.b.getI32Type() : im.b.getI64Type();
  return im.setTensor(n, 0,
                      buildSearchSorted(im.b, l, *seq, *values, *right, rt));
}

/// searchsorted(sorted_sequence, self | scalar, *, out_int32, right, side,
/// sorter).
LogicalResult searchsorted(Im &im, Node *n) {
  Value sorter;
  if (std::optional<int> si = n->schema().argumentIndexWithName("sorter");
      si && !im.isNoneInput(n, *si)) {
    FailureOr<Value> s = im.tensorInput(n, *si);
    if (failed(s))
      return failure();
    sorter = *s;
  }
  return insertionPoints(im, n, im.get(n->input(0)), im.get(n->input(1)),
                         sorter);
}

/// bucketize(self | scalar, boundaries, *, out_int32, right).
LogicalResult bucketize(Im &im, Node *n) {
  FailureOr<Value> boundaries = im.tensorInput(n, 1);
  if (failed(boundaries))
    return failure();
  if (rankOf(*boundaries) != 1)
    return emitError(im.loc(n)) << "bucketize: boundaries must be 1-D, got "
                                << boundaries->getType();
  return insertionPoints(im, n, im.get(n->input(1)), im.get(n->input(0)),
                         Value());
}

} // namespace

void mlprog::torchscript::registerSortOps(OpTable &table) {
  table.add({
      {"aten::sort", sort},
      {"aten::argsort", sort},
      {"aten::msort", sort},
      {"aten::topk", topk},
      {"aten::searchsorted", searchsorted},
      {"aten::bucketize", bucketize},
  });
}
