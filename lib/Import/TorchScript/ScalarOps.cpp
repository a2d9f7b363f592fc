//===- ScalarOps.cpp - Arithmetic on Python numbers -------------------===//
//
// TorchScript's arithmetic and comparisons on Python numbers
// (aten::add.int, aten::lt.float, aten::floordiv, math functions, ...):
// constant-folded when the operands are known at import time, emitted as
// arith/math ops on i64/f64/i1 otherwise (sizes of dynamic extents).
//
//===----------------------------------------------------------------------===//

#include "GraphImporter.h"

#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::torchscript;
using torch::jit::Node;
namespace jit = torch::jit;

LogicalResult Importer::importScalarOp(Node *node, bool &handled) {
  handled = false;
  if (node->outputs().size() != 1 || node->inputs().empty())
    return success();
  c10::TypeKind outKind = node->output()->type()->kind();
  if (outKind != c10::TypeKind::IntType &&
      outKind != c10::TypeKind::FloatType &&
      outKind != c10::TypeKind::BoolType &&
      outKind != c10::TypeKind::NumberType)
    return success();
  for (jit::Value *in : node->inputs())
    if (!get(in).isScalar())
      return success();
  std::string name = node->kind().toUnqualString();
  if (!node->kind().is_aten() &&
      !(node->kind().is_prim() &&
        (name == "min" || name == "max" || name == "abs")))
    return success();
  Location l = loc(node);
  std::vector<TSValue> ins;
  for (jit::Value *in : node->inputs())
    ins.push_back(get(in));
  bool anyFloat = llvm::any_of(
      ins, [](const TSValue &v) { return v.kind == TSValue::Kind::Float; });
  bool allBool = llvm::all_of(
      ins, [](const TSValue &v) { return v.kind == TSValue::Kind::Bool; });
  bool allConst =
      llvm::all_of(ins, [](const TSValue &v) { return v.isConstScalar(); });
  TSValue::Kind resultKind =
      outKind == c10::TypeKind::BoolType    ? TSValue::Kind::Bool
      : outKind == c10::TypeKind::FloatType ? TSValue::Kind::Float
      : outKind == c10::TypeKind::IntType   ? TSValue::Kind::Int
      : anyFloat                            ? TSValue::Kind::Float
                                            : TSValue::Kind::Int;

  // Conversions.
  if (name == "Int" || name == "Float" || name == "Bool" ||
      name == "ScalarImplicit" || name == "floor" || name == "ceil" ||
      name == "round" || name == "sqrt" || name == "neg" || name == "abs" ||
      name == "__not__" || name == "exp" || name == "log") {
    if (ins.size() != 1)
      return success();
    const TSValue &x = ins[0];
    handled = true;
    if (allConst) {
      double d = *x.asDouble();
      double r = d;
      if (name == "floor")
        r = std::floor(d);
      else if (name == "ceil")
        r = std::ceil(d);
      else if (name == "round")
        r = std::nearbyint(d);
      else if (name == "sqrt")
        r = std::sqrt(d);
      else if (name == "exp")
        r = std::exp(d);
      else if (name == "log")
        r = std::log(d);
      else if (name == "neg")
        r = -d;
      else if (name == "abs")
        r = std::fabs(d);
      else if (name == "__not__")
        r = d == 0;
      else if (name == "Int")
        r = std::trunc(d);
      if (resultKind == TSValue::Kind::Int)
        return set(node, 0,
                   TSValue::ofInt(x.intConst && (name == "neg" ||
                                                 name == "abs" || name == "Int")
                                      ? (name == "neg"   ? -*x.intConst
                                         : name == "abs" ? std::abs(*x.intConst)
                                                         : *x.intConst)
                                      : int64_t(r)));
      if (resultKind == TSValue::Kind::Bool)
        return set(node, 0, TSValue::ofBool(r != 0));
      return set(node, 0, TSValue::ofFloat(r));
    }
    Type rt = resultKind == TSValue::Kind::Int     ? Type(b.getI64Type())
              : resultKind == TSValue::Kind::Float ? Type(b.getF64Type())
                                                   : Type(b.getI1Type());
    Value v;
    if (name == "floor" || name == "ceil" || name == "round" ||
        name == "sqrt" || name == "exp" || name == "log") {
      Value f = scalarAs(x, b.getF64Type(), l);
      if (name == "floor")
        f = math::FloorOp::create(b, l, f);
      else if (name == "ceil")
        f = math::CeilOp::create(b, l, f);
      else if (name == "round")
        f = math::RoundEvenOp::create(b, l, f);
      else if (name == "sqrt")
        f = math::SqrtOp::create(b, l, f);
      else if (name == "exp")
        f = math::ExpOp::create(b, l, f);
      else
        f = math::LogOp::create(b, l, f);
      v = buildConvertScalar(b, l, f, rt);
    } else if (name == "neg" || name == "abs") {
      Value s = scalarAs(x, rt, l);
      if (isa<FloatType>(rt))
        v = name == "neg" ? arith::NegFOp::create(b, l, s).getResult()
                          : math::AbsFOp::create(b, l, s).getResult();
      else
        v = name == "neg"
                ? arith::SubIOp::create(
                      b, l,
                      arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0)),
                      s)
                      .getResult()
                : math::AbsIOp::create(b, l, s).getResult();
    } else if (name == "__not__") {
      v = arith::XOrIOp::create(
          b, l, scalarAs(x, b.getI1Type(), l),
          arith::ConstantOp::create(b, l, b.getBoolAttr(true)));
    } else {
      v = scalarAs(x, rt, l);
    }
    return set(node, 0, TSValue::scalar(resultKind, v));
  }

  if (ins.size() != 2)
    return success();
  enum Op {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Pow,
    Min,
    Max,
    Cmp,
    And,
    Or,
    Xor
  };
  std::optional<Op> op;
  std::optional<CompareKind> cmp;
  static const llvm::StringMap<Op> ops = {
      {"add", Add},       {"sub", Sub},     {"mul", Mul},
      {"div", Div},       {"truediv", Div}, {"floordiv", FloorDiv},
      {"remainder", Mod}, {"__mod__", Mod}, {"pow", Pow},
      {"min", Min},       {"max", Max},     {"__and__", And},
      {"__or__", Or},     {"__xor__", Xor}};
  static const llvm::StringMap<CompareKind> cmps = {
      {"eq", CompareKind::Equal},   {"ne", CompareKind::NotEqual},
      {"lt", CompareKind::Less},    {"le", CompareKind::LessEqual},
      {"gt", CompareKind::Greater}, {"ge", CompareKind::GreaterEqual}};
  if (auto it = ops.find(name); it != ops.end())
    op = it->second;
  else if (auto it2 = cmps.find(name); it2 != cmps.end()) {
    op = Cmp;
    cmp = it2->second;
  } else {
    return success();
  }
  handled = true;
  const TSValue &x = ins[0], &y = ins[1];
  if (*op == Div || *op == Pow)
    anyFloat = anyFloat || *op == Div;
  if (allConst) {
    if (!anyFloat && x.intConst.has_value() == true &&
        (allBool ? false : true)) {
      int64_t a = x.intConst ? *x.intConst : int64_t(*x.boolConst);
      int64_t c = y.intConst ? *y.intConst : int64_t(*y.boolConst);
      auto floorDiv = [](int64_t p, int64_t q) {
        int64_t d = p / q;
        return (p % q != 0 && ((p < 0) != (q < 0))) ? d - 1 : d;
      };
      if ((*op == FloorDiv || *op == Mod) && c == 0)
        return emitError(l) << "integer division by zero";
      switch (*op) {
      case Add:
        return set(node, 0, TSValue::ofInt(a + c));
      case Sub:
        return set(node, 0, TSValue::ofInt(a - c));
      case Mul:
        return set(node, 0, TSValue::ofInt(a * c));
      case FloorDiv:
        return set(node, 0, TSValue::ofInt(floorDiv(a, c)));
      case Mod:
        return set(node, 0, TSValue::ofInt(a - floorDiv(a, c) * c));
      case Pow:
        if (resultKind == TSValue::Kind::Float)
          return set(node, 0, TSValue::ofFloat(std::pow(double(a), double(c))));
        return set(node, 0,
                   TSValue::ofInt(int64_t(std::pow(double(a), double(c)))));
      case Min:
        return set(node, 0, TSValue::ofInt(std::min(a, c)));
      case Max:
        return set(node, 0, TSValue::ofInt(std::max(a, c)));
      case And:
        return set(node, 0, TSValue::ofInt(a & c));
      case Or:
        return set(node, 0, TSValue::ofInt(a | c));
      case Xor:
        return set(node, 0, TSValue::ofInt(a ^ c));
      default:
        break;
      }
    }
    double a = *x.asDouble(), c = *y.asDouble();
    double r = 0;
    switch (*op) {
    case Add:
      r = a + c;
      break;
    case Sub:
      r = a - c;
      break;
    case Mul:
      r = a * c;
      break;
    case Div:
      r = a / c;
      break;
    case FloorDiv:
      r = std::floor(a / c);
      break;
    case Mod:
      r = a - std::floor(a / c) * c;
      break;
    case Pow:
      r = std::pow(a, c);
      break;
    case Min:
      r = std::min(a, c);
      break;
    case Max:
      r = std::max(a, c);
      break;
    case And:
      r = double(bool(a) && bool(c));
      break;
    case Or:
      r = double(bool(a) || bool(c));
      break;
    case Xor:
      r = double(bool(a) != bool(c));
      break;
    case Cmp:
      switch (*cmp) {
      case CompareKind::Equal:
        r = a == c;
        break;
      case CompareKind::NotEqual:
        r = a != c;
        break;
      case CompareKind::Less:
        r = a < c;
        break;
      case CompareKind::LessEqual:
        r = a <= c;
        break;
      case CompareKind::Greater:
        r = a > c;
        break;
      case CompareKind::GreaterEqual:
        r = a >= c;
        break;
      }
      return set(node, 0, TSValue::ofBool(r != 0));
    }
    if (resultKind == TSValue::Kind::Bool)
      return set(node, 0, TSValue::ofBool(r != 0));
    if (resultKind == TSValue::Kind::Int)
      return set(node, 0, TSValue::ofInt(int64_t(r)));
    return set(node, 0, TSValue::ofFloat(r));
  }
  // Emit arith on i1 (bool logic), i64 or f64.
  Type ct = allBool    ? Type(b.getI1Type())
            : anyFloat ? Type(b.getF64Type())
                       : Type(b.getI64Type());
  if ((*op == Add || *op == Sub || *op == Mul || *op == Min || *op == Max ||
       *op == FloorDiv || *op == Mod) &&
      allBool)
    ct = b.getI64Type();
  Value a = scalarAs(x, ct, l), c = scalarAs(y, ct, l);
  bool isF = isa<FloatType>(ct);
  Value r;
  switch (*op) {
  case Add:
    r = isF ? arith::AddFOp::create(b, l, a, c).getResult()
            : arith::AddIOp::create(b, l, a, c).getResult();
    break;
  case Sub:
    r = isF ? arith::SubFOp::create(b, l, a, c).getResult()
            : arith::SubIOp::create(b, l, a, c).getResult();
    break;
  case Mul:
    r = isF ? arith::MulFOp::create(b, l, a, c).getResult()
            : arith::MulIOp::create(b, l, a, c).getResult();
    break;
  case Div:
    r = arith::DivFOp::create(b, l, a, c);
    break;
  case FloorDiv:
    r = buildScalarDivision(b, l, DivisionKind::FloorDivide, a, c);
    break;
  case Mod:
    r = buildScalarDivision(b, l, DivisionKind::Remainder, a, c);
    break;
  case Pow:
    if (!isF)
      return unsupported(node, "integer power of values unknown at import "
                               "time");
    r = math::PowFOp::create(b, l, a, c);
    break;
  case Min:
    r = isF ? arith::MinimumFOp::create(b, l, a, c).getResult()
            : arith::MinSIOp::create(b, l, a, c).getResult();
    break;
  case Max:
    r = isF ? arith::MaximumFOp::create(b, l, a, c).getResult()
            : arith::MaxSIOp::create(b, l, a, c).getResult();
    break;
  case And:
    r = arith::AndIOp::create(b, l, a, c);
    break;
  case Or:
    r = arith::OrIOp::create(b, l, a, c);
    break;
  case Xor:
    r = arith::XOrIOp::create(b, l, a, c);
    break;
  case Cmp:
    r = buildScalarCompare(b, l, *cmp, a, c);
    return set(node, 0, TSValue::scalar(TSValue::Kind::Bool, r));
  }
  Type rt = resultKind == TSValue::Kind::Int     ? Type(b.getI64Type())
            : resultKind == TSValue::Kind::Float ? Type(b.getF64Type())
                                                 : Type(b.getI1Type());
  return set(node, 0,
             TSValue::scalar(resultKind, buildConvertScalar(b, l, r, rt)));
}
