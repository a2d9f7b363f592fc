//===- PrimOps.cpp - prim:: ops, lists, tuples and size queries ----------===//
//
// The TorchScript ops that exist only at import time (lists, tuples, None,
// attribute and shape queries, tensor <-> number conversions). The
// arithmetic on Python numbers is in ScalarOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/CheckedArithmetic.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;
namespace jit = torch::jit;

/// Size of dim `d` of a tensor as an int TSValue (constant when static).
static TSValue dimSize(Importer &im, Value t, int64_t d, Location l) {
  auto type = cast<RankedTensorType>(t.getType());
  if (!type.isDynamicDim(d))
    return TSValue::ofInt(type.getDimSize(d));
  Value idx = tensor::DimOp::create(im.b, l, t, d);
  Value i = arith::IndexCastOp::create(im.b, l, im.b.getI64Type(), idx);
  return TSValue::scalar(TSValue::Kind::Int, i);
}

/// True when `node` mutates the import-time list `list` from inside a
/// branch or loop body emitted as an scf region (its condition or trip
/// count known only at run time) while the list was made outside that
/// body: the mutation would wrongly apply on every path.
static bool mutatesOuterListAtRunTime(Importer &im, Node *node,
                                      jit::Value *list) {
  Operation *parent = im.b.getInsertionBlock()->getParentOp();
  bool inRegion = parent && parent->getDialect() &&
                  parent->getDialect()->getNamespace() == "scf";
  return inRegion && list->node()->owningBlock() != node->owningBlock();
}

LogicalResult Importer::importPrim(Node *node, bool &handled) {
  handled = true;
  Location l = loc(node);
  c10::Symbol kind = node->kind();
  std::string name = kind.toQualString();
  auto inputs = node->inputs();

  if (kind == c10::prim::ListConstruct || kind == c10::prim::TupleConstruct) {
    std::vector<TSValue> elems;
    for (jit::Value *v : inputs)
      elems.push_back(get(v));
    return set(node, 0,
               TSValue::list(std::move(elems), kind == c10::prim::ListConstruct
                                                   ? TSValue::Kind::List
                                                   : TSValue::Kind::Tuple));
  }
  if (kind == c10::prim::DictConstruct) {
    // A dict returned by the program (torchvision's segmentation models
    // return {"out": ..., "aux": ...}): its values, in insertion order, are
    // the results. Dicts used otherwise are not supported.
    for (const jit::Use &use : node->output()->uses())
      if (use.user->kind() != c10::prim::Return)
        return unsupported(node, "prim::DictConstruct of a dict used other "
                                 "than as the result");
    std::vector<TSValue> values;
    for (size_t i = 1; i < inputs.size(); i += 2)
      values.push_back(get(inputs[i]));
    return set(node, 0, TSValue::list(std::move(values), TSValue::Kind::Tuple));
  }
  if (kind == c10::prim::ListUnpack || kind == c10::prim::TupleUnpack) {
    TSValue &v = get(inputs[0]);
    if (!v.elems || v.elems->size() != node->outputs().size())
      return emitError(l) << "unsupported " << name << " of a sequence whose "
                          << "length is unknown or differs from "
                          << node->outputs().size();
    std::vector<TSValue> elems = *v.elems;
    for (auto [i, e] : llvm::enumerate(elems))
      set(node, i, e);
    return success();
  }
  if (kind == c10::prim::TupleIndex || name == "aten::__getitem__") {
    TSValue &v = get(inputs[0]);
    if (!v.elems)
      return emitError(l) << "unsupported " << name << " on a non-sequence";
    TSValue &idx = get(inputs[1]);
    if (!idx.intConst)
      return emitError(l) << "unsupported " << name << " with an index "
                          << "unknown at import time";
    int64_t i = *idx.intConst, n = v.elems->size();
    if (i < 0)
      i += n;
    if (i < 0 || i >= n)
      return emitError(l) << name << ": index " << *idx.intConst
                          << " out of range for length " << n;
    return set(node, 0, (*v.elems)[i]);
  }
  // Equality and membership over lists of numbers or strings
  // (eq/ne.int_list, __contains__.int_list/str_list: the shape checks of
  // nn.RNN, nn.LSTM and F.interpolate, `x.size() != [b, h, d]`, `sr in
  // rates`): folded where both sides are known, else the and (eq) / or
  // (in) of run-time number comparisons. Other values fall through to the
  // unsupported-op error.
  bool isEqNe = name == "aten::eq" || name == "aten::ne";
  bool isContains = name == "aten::__contains__";
  if ((isEqNe && inputs.size() == 2 && get(inputs[0]).elems &&
       get(inputs[1]).elems) ||
      (isContains && inputs.size() == 2 && get(inputs[0]).elems)) {
    // One element test: a known bool, a run-time i1, or failure for values
    // that are neither numbers nor known strings.
    auto equal = [&](const TSValue &x, const TSValue &y) -> FailureOr<TSValue> {
      bool xStr = x.kind == TSValue::Kind::Str,
           yStr = y.kind == TSValue::Kind::Str;
      if (xStr || yStr)
        return xStr && yStr ? TSValue::ofBool(x.str == y.str)
                            : TSValue::ofBool(false);
      if (!x.isScalar() || !y.isScalar())
        return failure();
      if (x.isConstScalar() && y.isConstScalar())
        return TSValue::ofBool(*x.asDouble() == *y.asDouble());
      Type ct = x.kind == TSValue::Kind::Float || y.kind == TSValue::Kind::Float
                    ? Type(b.getF64Type())
                    : Type(b.getI64Type());
      return TSValue::scalar(TSValue::Kind::Bool,
                             buildScalarCompare(b, l, CompareKind::Equal,
                                                scalarAs(x, ct, l),
                                                scalarAs(y, ct, l)));
    };
    // Folds the tests with and (`all`) or or: a known deciding test ends it.
    auto combine =
        [&](ArrayRef<std::pair<const TSValue *, const TSValue *>> pairs,
            bool all) -> FailureOr<TSValue> {
      Value acc;
      for (auto [x, y] : pairs) {
        FailureOr<TSValue> t = equal(*x, *y);
        if (failed(t))
          return failure();
        if (t->isConstScalar()) {
          if (bool(*t->asDouble()) != all)
            return TSValue::ofBool(!all);
          continue;
        }
        acc = !acc  ? t->value
              : all ? arith::AndIOp::create(b, l, acc, t->value).getResult()
                    : arith::OrIOp::create(b, l, acc, t->value).getResult();
      }
      if (!acc)
        return TSValue::ofBool(all);
      return TSValue::scalar(TSValue::Kind::Bool, acc);
    };
    SmallVector<std::pair<const TSValue *, const TSValue *>> pairs;
    const std::vector<TSValue> &list = *get(inputs[0]).elems;
    FailureOr<TSValue> result = failure();
    if (isContains) {
      for (const TSValue &e : list)
        pairs.push_back({&get(inputs[1]), &e});
      result = combine(pairs, /*all=*/false);
    } else {
      const std::vector<TSValue> &other = *get(inputs[1]).elems;
      if (list.size() != other.size()) {
        result = TSValue::ofBool(false);
      } else {
        for (auto [x, y] : llvm::zip(list, other))
          pairs.push_back({&x, &y});
        result = combine(pairs, /*all=*/true);
      }
      if (succeeded(result) && name == "aten::ne") {
        if (result->isConstScalar())
          result = TSValue::ofBool(!bool(*result->asDouble()));
        else
          result = TSValue::scalar(
              TSValue::Kind::Bool,
              arith::XOrIOp::create(
                  b, l, result->value,
                  arith::ConstantOp::create(b, l, b.getBoolAttr(true))));
      }
    }
    if (failed(result))
      return unsupported(node, "comparison of lists other than of numbers "
                               "or strings");
    return set(node, 0, *result);
  }
  if (kind == c10::prim::NumToTensor || name == "aten::scalar_tensor") {
    TSValue &v = get(inputs[0]);
    FailureOr<Value> t = asTensor(v, l);
    if (failed(t))
      return failure();
    TSValue r = TSValue::tensor(*t);
    r.wrappedNumber = kind == c10::prim::NumToTensor;
    return set(node, 0, r);
  }
  if (kind == c10::prim::RaiseException)
    return emitError(l) << "unsupported: the program raises an exception "
                           "here unconditionally";
  if (kind == c10::prim::Uninitialized || name == "prim::Print" ||
      name == "aten::warn") {
    for (unsigned i = 0; i < node->outputs().size(); ++i)
      set(node, i, TSValue::none());
    return success();
  }
  // dropout(input, p, train) and its feature/alpha variants, in place or
  // not: the identity when `train` is false (in place, `self` is left as
  // it is).
  bool isDropout = llvm::is_contained(
      {"aten::dropout", "aten::feature_dropout", "aten::alpha_dropout",
       "aten::feature_alpha_dropout", "aten::dropout_",
       "aten::feature_dropout_", "aten::alpha_dropout_",
       "aten::feature_alpha_dropout_"},
      name);
  if (kind == c10::prim::unchecked_cast || name == "aten::list" ||
      name == "aten::detach" || name == "prim::data" ||
      name == "aten::contiguous" || name == "aten::clone" ||
      name == "aten::alias" || isDropout || name == "aten::lift_fresh" ||
      name == "aten::lift" || name == "aten::requires_grad_" ||
      name == "aten::cpu") {
    if (isDropout) {
      FailureOr<bool> train = boolInput(node, 2);
      if (failed(train))
        return failure();
      if (*train)
        return unsupported(node, name + " in training mode (random); "
                                        "call model.eval() before scripting");
    }
    TSValue v = get(inputs[0]);
    if (name == "aten::list" && v.elems)
      v = TSValue::list(*v.elems);
    return set(node, 0, v);
  }
  if (kind == c10::prim::dtype) {
    TSValue &v = get(inputs[0]);
    if (!v.isTensor())
      return unsupported(node, "prim::dtype of a non-tensor");
    std::optional<c10::ScalarType> st =
        toScalarType(getElementTypeOrSelf(v.value.getType()));
    if (!st)
      return unsupported(node, "dtype");
    return set(node, 0, TSValue::ofInt(int64_t(*st)));
  }
  if (kind == c10::prim::device || name == "prim::layout" ||
      name == "prim::requires_grad" || name == "prim::is_cuda" ||
      name == "aten::is_autocast_enabled") {
    // Imported programs run without autocast, on the CPU, for inference.
    if (name != "prim::layout" && kind != c10::prim::device)
      return set(node, 0, TSValue::ofBool(false));
    TSValue t;
    t.kind = TSValue::Kind::Device;
    t.str = "cpu";
    return set(node, 0, t);
  }
  if (name == "aten::size" || name == "prim::shape" || name == "aten::dim" ||
      name == "aten::numel" || name == "aten::len") {
    TSValue &v = get(inputs[0]);
    if ((name == "aten::len") && v.elems)
      return set(node, 0, TSValue::ofInt(int64_t(v.elems->size())));
    if (!v.isTensor())
      return emitError(l) << "unsupported " << name << " of a non-tensor";
    auto type = cast<RankedTensorType>(v.value.getType());
    int64_t rank = type.getRank();
    if (name == "aten::dim")
      return set(node, 0, TSValue::ofInt(rank));
    if (name == "aten::len") {
      if (rank == 0)
        return emitError(l) << "len() of a 0-d tensor";
      return set(node, 0, dimSize(*this, v.value, 0, l));
    }
    if (name == "aten::numel") {
      if (type.hasStaticShape())
        return set(node, 0, TSValue::ofInt(type.getNumElements()));
      // The product of the extents, the dynamic ones read at run time.
      Value count = arith::ConstantOp::create(b, l, b.getI64IntegerAttr(1));
      for (int64_t d = 0; d < rank; ++d)
        count = arith::MulIOp::create(
            b, l, count, scalarValue(dimSize(*this, v.value, d, l), l));
      return set(node, 0, TSValue::scalar(TSValue::Kind::Int, count));
    }
    if (inputs.size() == 1) {
      std::vector<TSValue> dims;
      for (int64_t d = 0; d < rank; ++d)
        dims.push_back(dimSize(*this, v.value, d, l));
      return set(node, 0, TSValue::list(std::move(dims)));
    }
    FailureOr<int64_t> d = intInput(node, 1);
    if (failed(d))
      return failure();
    if (*d < -rank || *d >= rank)
      return emitError(l) << "size: dim " << *d << " out of range for rank "
                          << rank;
    return set(node, 0, dimSize(*this, v.value, (*d + rank) % rank, l));
  }
  if (name == "aten::slice" && get(inputs[0]).elems) {
    // l[start:end:step] of a list (x.size()[:-1]): bounds known at import
    // time, Python semantics.
    const std::vector<TSValue> &elems = *get(inputs[0]).elems;
    int64_t n = elems.size();
    auto bound = [&](unsigned i, std::optional<int64_t> &out) {
      if (isNoneInput(node, i))
        return success();
      FailureOr<int64_t> v = intInput(node, i);
      if (failed(v))
        return failure();
      out = *v;
      return success();
    };
    std::optional<int64_t> start, end, step;
    if (failed(bound(1, start)) || failed(bound(2, end)) ||
        failed(bound(3, step)))
      return failure();
    int64_t st = step.value_or(1);
    if (st == 0)
      return emitError(l) << "slice step cannot be zero";
    auto clampBound = [&](std::optional<int64_t> v, int64_t def) {
      if (!v)
        return def;
      int64_t x = *v < 0 ? *v + n : *v;
      return st > 0 ? std::clamp<int64_t>(x, 0, n)
                    : std::clamp<int64_t>(x, -1, n - 1);
    };
    int64_t lo = clampBound(start, st > 0 ? 0 : n - 1);
    int64_t hi = clampBound(end, st > 0 ? n : -1);
    std::vector<TSValue> out;
    for (int64_t i = lo; st > 0 ? i < hi : i > hi; i += st)
      out.push_back(elems[i]);
    return set(node, 0, TSValue::list(std::move(out)));
  }
  if (name == "aten::add" && get(inputs[0]).elems && get(inputs[1]).elems) {
    // list + list (x.size()[:-1] + (h, d)): concatenation.
    std::vector<TSValue> out = *get(inputs[0]).elems;
    llvm::append_range(out, *get(inputs[1]).elems);
    return set(node, 0, TSValue::list(std::move(out)));
  }
  if (name == "aten::copy" && get(inputs[0]).elems) {
    // list.copy(): a new list with the same elements.
    return set(node, 0, TSValue::list(*get(inputs[0]).elems));
  }
  if (name == "aten::_set_item" && get(inputs[0]).elems) {
    // l[i] = v on a list, with i known at import time.
    TSValue &list = get(inputs[0]);
    if (mutatesOuterListAtRunTime(*this, node, inputs[0]))
      return unsupported(node, "list item assignment under a condition or "
                               "loop known only at run time");
    FailureOr<int64_t> i = intInput(node, 1);
    if (failed(i))
      return failure();
    int64_t n = list.elems->size(), at = *i < 0 ? *i + n : *i;
    if (at < 0 || at >= n)
      return emitError(l) << "list index " << *i << " out of range for length "
                          << n;
    (*list.elems)[at] = get(inputs[2]);
    return set(node, 0, list);
  }
  if (name == "aten::sum" && get(inputs[0]).elems) {
    // sum(int list): folded when known, else a chain of arith.addi.
    int64_t known = 0;
    Value acc;
    for (const TSValue &e : *get(inputs[0]).elems) {
      if (e.kind != TSValue::Kind::Int && e.kind != TSValue::Kind::Bool)
        return unsupported(node, "sum of a list of non-ints");
      if (e.intConst || e.boolConst) {
        known += e.intConst ? *e.intConst : int64_t(*e.boolConst);
        continue;
      }
      Value v = scalarAs(e, b.getI64Type(), l);
      acc = acc ? arith::AddIOp::create(b, l, acc, v).getResult() : v;
    }
    if (!acc)
      return set(node, 0, TSValue::ofInt(known));
    if (known)
      acc = arith::AddIOp::create(
          b, l, acc,
          arith::ConstantOp::create(b, l, b.getI64IntegerAttr(known)));
    return set(node, 0, TSValue::scalar(TSValue::Kind::Int, acc));
  }
  if (name == "aten::append") {
    TSValue &list = get(inputs[0]);
    if (!list.elems)
      return unsupported(node, "append to a non-list");
    if (mutatesOuterListAtRunTime(*this, node, inputs[0]))
      return unsupported(node, "append under a condition or loop known only "
                               "at run time");
    list.elems->push_back(get(inputs[1]));
    return set(node, 0, list);
  }
  if (name == "aten::__is__" || name == "aten::__isnot__") {
    TSValue &a = get(inputs[0]), &bv = get(inputs[1]);
    // `x is x` (torch's MultiheadAttention fast-path checks) is known; other
    // pairs of non-None values are not.
    bool sameValue = inputs[0] == inputs[1] ||
                     (a.isTensor() && bv.isTensor() && a.value == bv.value);
    if (!a.isNone() && !bv.isNone() && !sameValue)
      return unsupported(node, "identity comparison of two non-None values");
    bool same = sameValue || (a.isNone() && bv.isNone());
    return set(node, 0, TSValue::ofBool(name == "aten::__is__" ? same : !same));
  }
  if (name == "aten::__range_length") {
    FailureOr<int64_t> lo = intInput(node, 0), hi = intInput(node, 1),
                       st = intInput(node, 2);
    if (failed(lo) || failed(hi) || failed(st))
      return failure();
    if (*st == 0)
      return emitError(l) << "range() step must not be zero";
    // In 128 bits: the bounds of a program may be any int64.
    __int128 low = *lo, high = *hi, step = *st;
    __int128 n = step > 0 ? (high - low + step - 1) / step
                          : (low - high - step - 1) / -step;
    n = std::clamp<__int128>(n, 0, std::numeric_limits<int64_t>::max());
    return set(node, 0, TSValue::ofInt(int64_t(n)));
  }
  if (name == "aten::__derive_index") {
    TSValue &idx = get(inputs[0]);
    FailureOr<int64_t> start = intInput(node, 1), step = intInput(node, 2);
    if (failed(start) || failed(step))
      return failure();
    if (idx.intConst) {
      std::optional<int64_t> derived =
          llvm::checkedMulAdd(*idx.intConst, *step, *start);
      if (!derived)
        return emitError(l) << "range index overflows int64";
      return set(node, 0, TSValue::ofInt(*derived));
    }
    Value i = scalarValue(idx, l);
    Value r = arith::AddIOp::create(
        b, l, arith::ConstantOp::create(b, l, b.getI64IntegerAttr(*start)),
        arith::MulIOp::create(
            b, l, i,
            arith::ConstantOp::create(b, l, b.getI64IntegerAttr(*step))));
    return set(node, 0, TSValue::scalar(TSValue::Kind::Int, r));
  }
  if (name == "aten::format" || name == "aten::str") {
    TSValue t;
    t.kind = TSValue::Kind::Str;
    return set(node, 0, t);
  }
  // Tensor -> Python number.
  if ((name == "aten::Int" || name == "aten::Float" || name == "aten::Bool" ||
       name == "aten::ScalarImplicit" || name == "aten::item") &&
      get(inputs[0]).isTensor()) {
    Value t = get(inputs[0]).value;
    auto type = cast<RankedTensorType>(t.getType());
    if (!type.hasStaticShape() || type.getNumElements() != 1)
      return emitError(l) << name << " needs a one-element tensor, got "
                          << type;
    // A number wrapped at import time (a traced graph's size ->
    // NumToTensor -> Int chain) stays a constant.
    Value source = t;
    if (auto fromElements = source.getDefiningOp<tensor::FromElementsOp>())
      source = fromElements.getElements()[0];
    Attribute constant;
    if (name == "aten::Int" && matchPattern(source, m_Constant(&constant))) {
      if (auto dense = dyn_cast<DenseIntElementsAttr>(constant))
        return set(node, 0, TSValue::ofInt((*dense.begin()).getSExtValue()));
      if (auto integer = dyn_cast<IntegerAttr>(constant))
        if (!integer.getType().isInteger(1))
          return set(node, 0, TSValue::ofInt(integer.getInt()));
    }
    SmallVector<Value> zeros(type.getRank(),
                             arith::ConstantIndexOp::create(b, l, 0));
    Value s = tensor::ExtractOp::create(b, l, t, zeros);
    TSValue::Kind k = name == "aten::Int"     ? TSValue::Kind::Int
                      : name == "aten::Float" ? TSValue::Kind::Float
                      : name == "aten::Bool"  ? TSValue::Kind::Bool
                      : isa<FloatType>(type.getElementType())
                          ? TSValue::Kind::Float
                      : type.getElementType().isInteger(1) ? TSValue::Kind::Bool
                                                           : TSValue::Kind::Int;
    Type target = k == TSValue::Kind::Int     ? Type(b.getI64Type())
                  : k == TSValue::Kind::Float ? Type(b.getF64Type())
                                              : Type(b.getI1Type());
    return set(node, 0,
               TSValue::scalar(k, buildConvertScalar(b, l, s, target)));
  }
  handled = false;
  return success();
}
