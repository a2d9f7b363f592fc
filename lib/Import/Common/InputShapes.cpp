//===- InputShapes.cpp - The --input-shapes option of the importers -------===//

#include "mlprog/Import/Common/InputShapes.h"

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/SmallVector.h"

using namespace mlprog;

std::optional<std::vector<std::vector<int64_t>>>
mlprog::parseInputShapes(llvm::StringRef text) {
  std::vector<std::vector<int64_t>> shapes;
  if (text.trim().empty())
    return shapes;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    item = item.trim();
    std::vector<int64_t> shape;
    if (item.empty() || item == "scalar") {
      shapes.push_back(shape);
      continue;
    }
    llvm::SmallVector<llvm::StringRef> dims;
    item.split(dims, 'x');
    for (llvm::StringRef d : dims) {
      d = d.trim();
      int64_t v;
      if (d == "?")
        shape.push_back(mlir::ShapedType::kDynamic);
      else if (!d.getAsInteger(10, v) && v >= 0)
        shape.push_back(v);
      else
        return std::nullopt;
    }
    shapes.push_back(shape);
  }
  return shapes;
}

llvm::cl::opt<std::string> &mlprog::importInputShapesOption() {
  static llvm::cl::opt<std::string> inputShapes(
      "input-shapes", llvm::cl::value_desc("SHAPE,..."),
      llvm::cl::desc(
          "Shapes of the model's inputs, pinned at import (--import-onnx: the "
          "graph inputs that are not initializers, in order; "
          "--import-torchscript: the method's tensor inputs), e.g. "
          "'1x3x224x224,?x10' ('?' keeps an extent unknown, 'scalar' is rank "
          "0)"),
      llvm::cl::init(""));
  return inputShapes;
}

std::optional<std::vector<std::pair<std::string, std::string>>>
mlprog::parseInputConstants(llvm::StringRef text) {
  std::vector<std::pair<std::string, std::string>> constants;
  if (text.trim().empty())
    return constants;
  llvm::SmallVector<llvm::StringRef> pairs;
  text.split(pairs, ',');
  for (llvm::StringRef pair : pairs) {
    auto [name, value] = pair.split('=');
    name = name.trim();
    value = value.trim();
    if (name.empty() || value.empty() || !pair.contains('='))
      return std::nullopt;
    constants.emplace_back(name.str(), value.str());
  }
  return constants;
}

llvm::cl::opt<std::string> &mlprog::importInputConstantsOption() {
  static llvm::cl::opt<std::string> inputConstants(
      "input-constants", llvm::cl::value_desc("NAME=VALUE,..."),
      llvm::cl::desc(
          "Inputs bound to a number at import time, e.g. 'sr=16000' "
          "(--import-onnx: scalar or one-element graph inputs; "
          "--import-torchscript: number parameters of the methods); the "
          "function has no argument for them and what they decide folds"),
      llvm::cl::init(""));
  return inputConstants;
}
