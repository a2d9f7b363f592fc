//===- RawElements.cpp - Raw bytes of elements attributes -----------------===//

#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

uint64_t mlprog::getStoredElementSize(Type elementType) {
  return llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8);
}

FailureOr<ArrayRef<char>>
mlprog::getRawElementBytes(ElementsAttr value, std::vector<char> &storage) {
  auto type = cast<ShapedType>(value.getType());
  Type elementType = type.getElementType();
  if (!elementType.isIntOrFloat())
    return failure();
  uint64_t elementSize = getStoredElementSize(elementType);
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob || elementType.isInteger(1))
      return failure();
    ArrayRef<char> data = blob->getData();
    if (data.size() != type.getNumElements() * elementSize)
      return failure();
    return data;
  }
  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return failure();
  if (elementType.isInteger(1)) {
    for (bool bit : dense.getValues<bool>())
      storage.push_back(bit ? 1 : 0);
    return ArrayRef<char>(storage);
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat())
    return raw;
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
    storage.insert(storage.end(), raw.begin(), raw.begin() + elementSize);
  return ArrayRef<char>(storage);
}
