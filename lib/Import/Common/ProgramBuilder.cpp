//===- ProgramBuilder.cpp - Symbols, weight globals, signatures -----------===//
//
// Shared by the ONNX, TorchScript and MIL importers.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/ProgramBuilder.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlprog;

std::string ProgramBuilder::uniqueSymbol(StringRef name) {
  std::string base;
  for (char c : name)
    base += llvm::isAlnum(c) || c == '_' || c == '.' || (keepDollar && c == '$')
                ? c
                : '_';
  if (base.empty() || llvm::isDigit(base[0]) || base[0] == '$' ||
      base[0] == '.')
    base = "_" + base;
  std::string symbol = base;
  for (unsigned i = 1; !symbols.insert(symbol).second; ++i)
    symbol = base + "_" + std::to_string(i);
  return symbol;
}

GlobalOp ProgramBuilder::createGlobal(OpBuilder &b, Location loc,
                                      StringRef name, Type type,
                                      Attribute value, bool isMutable) {
  return GlobalOp::create(b, loc, uniqueSymbol(name), type, isMutable, value,
                          b.getStringAttr("private"));
}

Value ProgramBuilder::loadConstGlobal(OpBuilder &b, Location loc, Type type,
                                      StringRef symbol) {
  return GlobalLoadConstOp::create(
      b, loc, type, FlatSymbolRefAttr::get(b.getContext(), symbol));
}

FuncOp ProgramBuilder::createFunc(OpBuilder &b, Location loc, StringRef name,
                                  FunctionType type) {
  return FuncOp::create(b, loc, name, type, /*arg_attrs=*/nullptr,
                        /*res_attrs=*/nullptr, /*sym_visibility=*/nullptr);
}

void ProgramBuilder::setResultTypes(FuncOp func, TypeRange results) {
  func.setFunctionTypeAttr(TypeAttr::get(FunctionType::get(
      func.getContext(), func.getFunctionType().getInputs(), results)));
}

void ProgramBuilder::markUnsigned(FuncOp func, ArrayRef<bool> arguments,
                                  ArrayRef<bool> results) {
  auto marker = UnitAttr::get(func.getContext());
  for (auto [index, isUnsigned] : llvm::enumerate(arguments))
    if (isUnsigned)
      func.setArgAttr(index, kUnsignedAttrName, marker);
  for (auto [index, isUnsigned] : llvm::enumerate(results))
    if (isUnsigned)
      func.setResultAttr(index, kUnsignedAttrName, marker);
}
