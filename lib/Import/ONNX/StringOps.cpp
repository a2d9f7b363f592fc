//===- StringOps.cpp - ONNX ops on string tensors -------------------------===//
//
// Handlers for the ONNX ops whose inputs are STRING tensors; the semantics
// are in mlprog/Import/Common/Strings.h (Cast and CastLike to and from
// STRING go through buildConvertElementType in ElementwiseOps.cpp).
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"
#include "mlprog/Import/Common/Strings.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// StringNormalizer (opset 10): `case_change_action` (NONE, LOWER, UPPER;
/// default NONE), `is_case_sensitive` (default 0), `stopwords` (default
/// none), `locale` (accepted; case mapping is locale independent, see
/// buildStringNormalize).
LogicalResult importStringNormalizer(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::string action = ctx.getString("case_change_action", "NONE");
  std::optional<StringCaseChange> caseChange =
      llvm::StringSwitch<std::optional<StringCaseChange>>(action)
          .Case("NONE", StringCaseChange::None)
          .Case("LOWER", StringCaseChange::Lower)
          .Case("UPPER", StringCaseChange::Upper)
          .Default(std::nullopt);
  if (!caseChange)
    return emitError(ctx.loc) << "StringNormalizer: unsupported "
                                 "case_change_action '"
                              << action << "' (NONE, LOWER or UPPER)";
  SmallVector<std::string> stopwords;
  if (const onnx::AttributeProto *attr = ctx.attribute("stopwords"))
    for (const std::string &word : attr->strings())
      stopwords.push_back(word);
  return ctx.setResult(
      0,
      buildStringNormalize(ctx.b, ctx.loc, *x, *caseChange,
                           ctx.getInt("is_case_sensitive", 0) != 0, stopwords));
}

/// StringConcat (opset 20): X + Y elementwise with broadcasting.
LogicalResult importStringConcat(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0), y = ctx.input(1);
  if (failed(x) || failed(y))
    return failure();
  return ctx.setResult(0, buildStringConcat(ctx.b, ctx.loc, *x, *y));
}

/// StringSplit (opset 20): `delimiter` (default: white space), `maxsplit`
/// (default: unlimited); outputs the padded parts and their counts.
LogicalResult importStringSplit(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  FailureOr<std::pair<Value, Value>> split =
      buildStringSplit(ctx.b, ctx.loc, *x, ctx.getString("delimiter", ""),
                       ctx.getInt("maxsplit", -1));
  if (failed(split))
    return failure();
  if (failed(ctx.setResult(0, split->first)))
    return failure();
  return ctx.setResult(1, split->second);
}

} // namespace

void registerStringOps(OpTable &table) {
  table.add({
      {"StringConcat", importStringConcat},
      {"StringSplit", importStringSplit},
      {"StringNormalizer", importStringNormalizer},
  });
}

} // namespace mlprog::onnx_import
