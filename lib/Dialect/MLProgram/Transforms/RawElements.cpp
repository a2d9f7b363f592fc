//===- RawElements.cpp - Raw bytes of elements attributes -----------------===//

#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <cstring>

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

std::vector<char> mlprog::transposeRawElements(ArrayRef<char> bytes,
                                               ArrayRef<int64_t> shape,
                                               ArrayRef<int64_t> permutation,
                                               uint64_t elementSize) {
  size_t rank = shape.size();
  SmallVector<int64_t> inputStrides(rank, 1);
  for (size_t i = rank; i-- > 1;)
    inputStrides[i - 1] = inputStrides[i] * shape[i];
  // Walk the result in C order; `offset` follows the input element.
  SmallVector<int64_t> resultShape, strides;
  for (int64_t dim : permutation) {
    resultShape.push_back(shape[dim]);
    strides.push_back(inputStrides[dim]);
  }
  std::vector<char> result(bytes.size());
  SmallVector<int64_t> index(rank, 0);
  int64_t offset = 0;
  for (size_t out = 0; out < result.size(); out += elementSize) {
    std::memcpy(result.data() + out, bytes.data() + offset * elementSize,
                elementSize);
    for (size_t d = rank; d-- > 0;) {
      offset += strides[d];
      if (++index[d] < resultShape[d])
        break;
      offset -= strides[d] * resultShape[d];
      index[d] = 0;
    }
  }
  return result;
}

std::vector<char> mlprog::sliceRawElements(ArrayRef<char> bytes,
                                           ArrayRef<int64_t> shape,
                                           ArrayRef<int64_t> offsets,
                                           ArrayRef<int64_t> sizes,
                                           uint64_t elementSize) {
  size_t rank = shape.size();
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  std::vector<char> result(count * elementSize);
  if (count == 0)
    return result;
  if (rank == 0) {
    std::memcpy(result.data(), bytes.data(), elementSize);
    return result;
  }
  SmallVector<int64_t> strides(rank, 1);
  for (size_t i = rank; i-- > 1;)
    strides[i - 1] = strides[i] * shape[i];
  // One memcpy per row of the innermost dimension; `index` walks the outer
  // dimensions of the block in C order.
  uint64_t rowBytes = sizes[rank - 1] * elementSize;
  SmallVector<int64_t> index(rank, 0);
  for (size_t out = 0; out < result.size(); out += rowBytes) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d)
      offset += (offsets[d] + index[d]) * strides[d];
    std::memcpy(result.data() + out, bytes.data() + offset * elementSize,
                rowBytes);
    for (size_t d = rank - 1; d-- > 0;) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
  return result;
}
