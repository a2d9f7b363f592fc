//===- Strings.cpp - String tensors ---------------------------------------===//

#include "mlprog/Import/Common/Strings.h"
#include "Utils.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::detail;

bool mlprog::isStringType(Type type) {
  return isa<StringType>(getElementTypeOrSelf(type));
}

FailureOr<Value> mlprog::buildStringTensor(OpBuilder &b, Location loc,
                                           ArrayRef<int64_t> shape,
                                           ArrayRef<std::string> values) {
  int64_t count = 1;
  for (int64_t extent : shape)
    count *= extent;
  if (count != int64_t(values.size()))
    return emitError(loc) << "string tensor of shape "
                          << "[" << llvm::make_range(shape.begin(), shape.end())
                          << "] given " << values.size() << " strings";
  SmallVector<Value> elements;
  for (const std::string &value : values) {
    if (value.find('\0') != std::string::npos)
      return emitError(loc) << "unsupported string holding a NUL byte";
    elements.push_back(StringConstantOp::create(
        b, loc, StringType::get(b.getContext()), b.getStringAttr(value)));
  }
  auto type = RankedTensorType::get(shape, StringType::get(b.getContext()));
  if (elements.empty())
    return tensor::EmptyOp::create(b, loc, shape, type.getElementType())
        .getResult();
  return tensor::FromElementsOp::create(b, loc, type, elements).getResult();
}

/// The number type `string_from_number` formats `type` as: itself where the
/// runtime formats it, else f32 for floats and i64 for integers.
static Type getFormattedType(Type type) {
  MLIRContext *ctx = type.getContext();
  if (isa<Float16Type, BFloat16Type, Float32Type, Float64Type>(type))
    return type;
  if (isa<FloatType>(type))
    return Float32Type::get(ctx);
  if (llvm::is_contained({1u, 8u, 16u, 32u, 64u}, type.getIntOrFloatBitWidth()))
    return type;
  return IntegerType::get(ctx, 64);
}

FailureOr<Value> mlprog::buildStringCast(OpBuilder &b, Location loc, Value x,
                                         Type elementType, bool srcUnsigned,
                                         bool dstUnsigned) {
  FailureOr<RankedTensorType> type = getRankedType(loc, x, "cast");
  if (failed(type))
    return failure();
  Type from = type->getElementType();
  if (from == elementType)
    return x;
  auto isNumber = [](Type t) {
    return isa<FloatType>(t) || t.isSignlessInteger();
  };
  if (isa<StringType>(from) && isNumber(elementType)) {
    // Parse at a type the runtime reads, then convert as numbers do.
    Type parsed = getFormattedType(elementType);
    if (isa<BFloat16Type, Float16Type>(parsed))
      parsed = elementType;
    return buildBroadcastedGeneric(
        b, loc, x, elementType, [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value number =
              StringToNumberOp::create(nb, nl, parsed, a[0], dstUnsigned);
          return buildConvertScalar(nb, nl, number, elementType, dstUnsigned,
                                    dstUnsigned);
        });
  }
  if (isNumber(from) && isa<StringType>(elementType)) {
    Type formatted = getFormattedType(from);
    return buildBroadcastedGeneric(
        b, loc, x, elementType, [&](OpBuilder &nb, Location nl, ValueRange a) {
          Value number = buildConvertScalar(nb, nl, a[0], formatted,
                                            srcUnsigned, srcUnsigned);
          return StringFromNumberOp::create(nb, nl, elementType, number,
                                            srcUnsigned)
              .getResult();
        });
  }
  return emitError(loc) << "unsupported cast from " << from << " to "
                        << elementType;
}

/// Checks that `lhs` and `rhs` are ranked string tensors for `what`.
static LogicalResult checkStringOperands(Location loc, Value lhs, Value rhs,
                                         StringRef what) {
  auto isStrings = [](Value v) {
    return isa<RankedTensorType>(v.getType()) && isStringType(v.getType());
  };
  if (isStrings(lhs) && isStrings(rhs))
    return success();
  return emitError(loc) << what << " needs ranked string tensors, got "
                        << lhs.getType() << " and " << rhs.getType();
}

FailureOr<Value> mlprog::buildStringEqual(OpBuilder &b, Location loc, Value lhs,
                                          Value rhs, bool negate) {
  if (failed(checkStringOperands(loc, lhs, rhs, "string comparison")))
    return failure();
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, b.getI1Type(),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        Value equal = StringEqualOp::create(nb, nl, nb.getI1Type(), a[0], a[1]);
        if (!negate)
          return equal;
        return arith::XOrIOp::create(
            nb, nl, equal, arith::ConstantIntOp::create(nb, nl, 1, 1));
      });
}

FailureOr<Value> mlprog::buildStringConcat(OpBuilder &b, Location loc,
                                           Value lhs, Value rhs) {
  if (failed(checkStringOperands(loc, lhs, rhs, "string concatenation")))
    return failure();
  return buildBroadcastedGeneric(
      b, loc, {lhs, rhs}, StringType::get(b.getContext()),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return StringConcatOp::create(nb, nl, a[0].getType(), a[0], a[1]);
      });
}

FailureOr<std::pair<Value, Value>>
mlprog::buildStringSplit(OpBuilder &b, Location loc, Value x,
                         StringRef delimiter, int64_t maxsplit) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<StringType>(type.getElementType()))
    return emitError(loc) << "string split: input must be a ranked string "
                             "tensor, got "
                          << x.getType();
  if (delimiter.contains('\0'))
    return emitError(loc) << "unsupported delimiter holding a NUL byte";
  Type i64 = b.getI64Type();
  StringAttr delimiterAttr = b.getStringAttr(delimiter);
  IntegerAttr maxsplitAttr = b.getI64IntegerAttr(maxsplit);
  FailureOr<Value> lengths = buildBroadcastedGeneric(
      b, loc, x, i64, [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        return StringSplitCountOp::create(nb, nl, i64, a[0], delimiterAttr,
                                          maxsplitAttr);
      });
  if (failed(lengths))
    return failure();

  // The widest element: the largest count over every element.
  int64_t rank = type.getRank();
  Value flat = *lengths;
  if (rank == 0) {
    flat = insertUnitDim(b, loc, flat, 0);
  } else if (rank > 1) {
    SmallVector<ReassociationIndices> all(1);
    for (int64_t d = 0; d < rank; ++d)
      all[0].push_back(d);
    flat = tensor::CollapseShapeOp::create(b, loc, flat, all);
  }
  Value count = tensor::DimOp::create(b, loc, flat, 0);
  Value zero = arith::ConstantIntOp::create(b, loc, i64, 0);
  Value widest =
      loop(b, loc, cIndex(b, loc, 0), count, zero,
           [&](OpBuilder &nb, Location nl, Value k,
               ValueRange acc) -> SmallVector<Value> {
             Value n = tensor::ExtractOp::create(nb, nl, flat, k);
             return {arith::MaxSIOp::create(nb, nl, acc[0], n).getResult()};
           })[0];
  Value width =
      arith::IndexCastOp::create(b, loc, b.getIndexType(), widest).getResult();

  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, x);
  sizes.push_back(width);
  Value init = createEmpty(b, loc, sizes, type.getElementType());
  MLIRContext *ctx = b.getContext();
  auto outMap = AffineMap::getMultiDimIdentityMap(rank + 1, ctx);
  auto inMap =
      AffineMap::get(rank + 1, 0, outMap.getResults().drop_back(), ctx);
  auto parts = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{x}, ValueRange{init},
      ArrayRef<AffineMap>{inMap, outMap}, parallelIterators(rank + 1),
      [&](OpBuilder &nb, Location nl, ValueRange a) {
        Value k = linalg::IndexOp::create(nb, nl, rank);
        Value index = arith::IndexCastOp::create(nb, nl, i64, k);
        Value part = StringSplitPartOp::create(
            nb, nl, a[0].getType(), a[0], index, delimiterAttr, maxsplitAttr);
        linalg::YieldOp::create(nb, nl, part);
      });
  return std::make_pair(parts.getResult(0), *lengths);
}

/// `x` with each element mapped by `caseChange`.
static FailureOr<Value> changeCase(OpBuilder &b, Location loc, Value x,
                                   StringCaseChange caseChange) {
  if (caseChange == StringCaseChange::None)
    return x;
  return buildBroadcastedGeneric(
      b, loc, x, StringType::get(b.getContext()),
      [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
        if (caseChange == StringCaseChange::Lower)
          return StringLowerOp::create(nb, nl, a[0].getType(), a[0]);
        return StringUpperOp::create(nb, nl, a[0].getType(), a[0]);
      });
}

FailureOr<Value> mlprog::buildStringNormalize(OpBuilder &b, Location loc,
                                              Value x,
                                              StringCaseChange caseChange,
                                              bool caseSensitive,
                                              ArrayRef<std::string> stopwords) {
  auto type = dyn_cast<RankedTensorType>(x.getType());
  if (!type || !isa<StringType>(type.getElementType()) || type.getRank() < 1 ||
      type.getRank() > 2 || (type.getRank() == 2 && type.getDimSize(0) != 1))
    return emitError(loc) << "string normalizer: input must be strings of "
                             "shape [C] or [1, C], got "
                          << x.getType();
  bool twoDim = type.getRank() == 2;
  Value flat = twoDim ? dropUnitDim(b, loc, x, 0) : x;
  Type stringType = type.getElementType();
  for (const std::string &word : stopwords)
    if (word.find('\0') != std::string::npos)
      return emitError(loc) << "unsupported stopword holding a NUL byte";

  Value kept = flat;
  if (!stopwords.empty()) {
    FailureOr<Value> keep = buildBroadcastedGeneric(
        b, loc, flat, b.getI1Type(),
        [&](OpBuilder &nb, Location nl, ValueRange a) -> Value {
          Value text = a[0];
          if (!caseSensitive)
            text = StringLowerOp::create(nb, nl, stringType, text);
          Value result = arith::ConstantIntOp::create(nb, nl, 1, 1);
          for (const std::string &word : stopwords) {
            Value stop = StringConstantOp::create(nb, nl, stringType, word);
            if (!caseSensitive)
              stop = StringLowerOp::create(nb, nl, stringType, stop);
            Value equal =
                StringEqualOp::create(nb, nl, nb.getI1Type(), text, stop);
            Value differ = arith::XOrIOp::create(
                nb, nl, equal, arith::ConstantIntOp::create(nb, nl, 1, 1));
            result = arith::AndIOp::create(nb, nl, result, differ);
          }
          return result;
        });
    if (failed(keep))
      return failure();
    FailureOr<Value> compressed = buildCompress(b, loc, flat, *keep, 0);
    if (failed(compressed))
      return failure();
    kept = *compressed;
  }

  // Nothing left (all stopwords, or an empty input): [""].
  int64_t keptCount = cast<RankedTensorType>(kept.getType()).getDimSize(0);
  if (keptCount == 0 || ShapedType::isDynamic(keptCount)) {
    auto dynamicType =
        RankedTensorType::get({ShapedType::kDynamic}, stringType);
    Value count = tensor::DimOp::create(b, loc, kept, 0);
    Value isEmpty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                          count, cIndex(b, loc, 0));
    kept = ifElse(
        b, loc, isEmpty,
        [&](OpBuilder &tb, Location tl) -> SmallVector<Value> {
          Value empty = StringConstantOp::create(tb, tl, stringType, "");
          Value one = tensor::FromElementsOp::create(
              tb, tl, RankedTensorType::get({1}, stringType), empty);
          return {tensor::CastOp::create(tb, tl, dynamicType, one)};
        },
        [&](OpBuilder &eb, Location el) -> SmallVector<Value> {
          if (kept.getType() == dynamicType)
            return {kept};
          return {tensor::CastOp::create(eb, el, dynamicType, kept)};
        })[0];
  }

  FailureOr<Value> result = changeCase(b, loc, kept, caseChange);
  if (failed(result))
    return failure();
  return twoDim ? insertUnitDim(b, loc, *result, 0) : *result;
}
