//===- MemRefCalls.cpp - Host tensors in and out of compiled code ---------===//
//
// See MemRefCalls.h, and JitRunner.h for the calling convention and the
// ownership rules.
//
//===----------------------------------------------------------------------===//

#include "MemRefCalls.h"
#include "mlprog/Runtime/JitRunner.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>
#include <memory>

using namespace mlir;
using namespace mlprog;
using namespace mlprog::memref_calls;
using llvm::Error;
using llvm::Expected;
using llvm::Twine;

/// The allocated pointer memref.get_global puts in descriptors of globals
/// (MemRefToLLVM's GetGlobalMemrefOpLowering); it must never be freed.
static constexpr uintptr_t kGlobalSentinel = 0xdeadbeef;

std::string memref_calls::typeToString(Type type) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << type;
  return result;
}

Type memref_calls::getElementType(Type type) {
  if (auto tensorType = dyn_cast<RankedTensorType>(type))
    return tensorType.getElementType();
  return type;
}

int64_t memref_calls::getRank(Type type) {
  if (auto tensorType = dyn_cast<RankedTensorType>(type))
    return tensorType.getRank();
  return 0;
}

//===----------------------------------------------------------------------===//
// Binding inputs
//===----------------------------------------------------------------------===//

void memref_calls::appendArgument(std::vector<uint64_t> &slots, Type type,
                                  const HostTensor &tensor) {
  if (!isa<RankedTensorType>(type)) {
    uint64_t slot = 0;
    std::memcpy(&slot, tensor.getData(), getDTypeSize(tensor.getDType()));
    slots.push_back(slot);
    return;
  }
  auto data = reinterpret_cast<uintptr_t>(tensor.getData());
  slots.push_back(data);
  slots.push_back(data);
  slots.push_back(0);
  ArrayRef<int64_t> shape = tensor.getShape();
  llvm::append_range(slots, shape);
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  llvm::append_range(slots, strides);
}

//===----------------------------------------------------------------------===//
// Reading results
//===----------------------------------------------------------------------===//

namespace {
/// A memref descriptor as returned by the compiled code.
struct Descriptor {
  uintptr_t allocated;
  const uint8_t *aligned;
  int64_t offset;
  ArrayRef<int64_t> sizes;
  ArrayRef<int64_t> strides;
};
} // namespace

SmallVector<ResultField> memref_calls::layoutResults(ArrayRef<Type> types,
                                                     size_t &size) {
  SmallVector<ResultField> fields;
  size = 0;
  for (Type type : types) {
    DType dtype = *getResultDType(getElementType(type));
    bool isTensor = isa<RankedTensorType>(type);
    size_t fieldSize =
        isTensor ? 8 * (3 + 2 * getRank(type)) : getDTypeSize(dtype);
    size_t align = isTensor ? 8 : getDTypeSize(dtype);
    size = llvm::alignTo(size, align);
    fields.push_back({type, dtype, size});
    size += fieldSize;
  }
  return fields;
}

static Descriptor readDescriptor(const uint8_t *bytes, int64_t rank) {
  const int64_t *words = reinterpret_cast<const int64_t *>(bytes);
  return {static_cast<uintptr_t>(words[0]),
          reinterpret_cast<const uint8_t *>(words[1]), words[2],
          ArrayRef<int64_t>(words + 3, rank),
          ArrayRef<int64_t>(words + 3 + rank, rank)};
}

/// Whether the elements `desc` describes are C-ordered and dense.
static bool isContiguous(const Descriptor &desc) {
  // Dimensions of extent 1 may carry any stride.
  for (int64_t d = desc.sizes.size() - 1, expected = 1; d >= 0; --d) {
    if (desc.sizes[d] != 1 && desc.strides[d] != expected)
      return false;
    expected *= desc.sizes[d];
  }
  return true;
}

/// Copies the elements `desc` describes, honouring offset and strides, into
/// the C-ordered `tensor` of the same shape: one memcpy when the layout is
/// already C-ordered (the usual case), element by element otherwise.
static void copyStrided(const Descriptor &desc, HostTensor &tensor) {
  size_t elementSize = getDTypeSize(tensor.getDType());
  int64_t rank = tensor.getRank();
  int64_t count = tensor.getNumElements();
  uint8_t *out = tensor.getData();
  if (count == 0)
    return;
  const uint8_t *in = desc.aligned + desc.offset * elementSize;
  if (isContiguous(desc)) {
    std::memcpy(out, in, count * elementSize);
    return;
  }
  // Element by element (the pipeline's identity-layout function boundaries
  // make this path rare).
  SmallVector<int64_t> index(rank, 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t position = 0;
    for (int64_t d = 0; d < rank; ++d)
      position += index[d] * desc.strides[d];
    std::memcpy(out + n * elementSize, in + position * elementSize,
                elementSize);
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == desc.sizes[d]; --d)
      index[d] = 0;
  }
}

/// Converts the descriptor of result `index` to a host tensor, checking its
/// runtime sizes against the static type. A dense result whose buffer is in
/// `owners` (buffers the call allocated and hands over) becomes a tensor
/// over that buffer, without a copy; any other is copied.
static Expected<HostTensor> readTensorResult(
    const Descriptor &desc, const ResultField &field, size_t index,
    const llvm::DenseMap<uintptr_t, std::shared_ptr<void>> &owners) {
  auto type = cast<RankedTensorType>(field.type);
  for (auto [want, have] : llvm::zip(type.getShape(), desc.sizes))
    if (have < 0 || (!ShapedType::isDynamic(want) && want != have))
      return llvm::createStringError(
          "result " + Twine(index) + ": the compiled code returned shape " +
          formatShape(desc.sizes) + " for " + typeToString(type));
  auto owner = owners.find(desc.allocated);
  if (owner != owners.end() && field.dtype != DType::Str && isContiguous(desc))
    return HostTensor::wrap(field.dtype, desc.sizes,
                            const_cast<uint8_t *>(desc.aligned) +
                                desc.offset * getDTypeSize(field.dtype),
                            owner->second);
  Expected<HostTensor> tensor = HostTensor::create(field.dtype, desc.sizes);
  if (!tensor)
    return llvm::createStringError("result " + Twine(index) + ": " +
                                   toString(tensor.takeError()));
  copyStrided(desc, *tensor);
  // A string result points at runtime-owned strings or into an input's:
  // the tensor takes copies, so that it outlives the inputs.
  if (field.dtype == DType::Str)
    for (int64_t i = 0; i < tensor->getNumElements(); ++i)
      tensor->setString(i, tensor->getString(i));
  return tensor;
}

/// The distinct buffers one call returned and allocated (see JitRunner.h:
/// never an input's buffer or a global's sentinel), each once.
static SmallVector<void *> getOwnedResults(ArrayRef<ResultField> fields,
                                           const uint8_t *results,
                                           ArrayRef<HostTensor> inputs) {
  llvm::SmallPtrSet<void *, 8> skip, seen;
  for (const HostTensor &input : inputs)
    skip.insert(const_cast<uint8_t *>(input.getData()));
  skip.insert(nullptr);
  skip.insert(reinterpret_cast<void *>(kGlobalSentinel));
  SmallVector<void *> owned;
  for (const ResultField &field : fields) {
    if (!isa<RankedTensorType>(field.type))
      continue;
    auto *allocated = reinterpret_cast<void *>(
        readDescriptor(results + field.offset, 0).allocated);
    if (!skip.contains(allocated) && seen.insert(allocated).second)
      owned.push_back(allocated);
  }
  return owned;
}

void memref_calls::freeResults(ArrayRef<ResultField> fields,
                               const uint8_t *results,
                               ArrayRef<HostTensor> inputs) {
  for (void *allocated : getOwnedResults(fields, results, inputs))
    std::free(allocated);
}

Expected<std::vector<HostTensor>>
memref_calls::takeResults(ArrayRef<ResultField> fields, const uint8_t *results,
                          ArrayRef<HostTensor> inputs) {
  llvm::DenseMap<uintptr_t, std::shared_ptr<void>> owners;
  for (void *allocated : getOwnedResults(fields, results, inputs))
    owners[reinterpret_cast<uintptr_t>(allocated)] =
        std::shared_ptr<void>(allocated, std::free);
  std::vector<HostTensor> tensors;
  for (auto [i, field] : llvm::enumerate(fields)) {
    const uint8_t *bytes = results + field.offset;
    if (!isa<RankedTensorType>(field.type)) {
      HostTensor scalar(field.dtype, {});
      std::memcpy(scalar.getData(), bytes, getDTypeSize(field.dtype));
      clearPaddingBits(scalar);
      tensors.push_back(std::move(scalar));
      continue;
    }
    Descriptor desc = readDescriptor(bytes, getRank(field.type));
    Expected<HostTensor> tensor = readTensorResult(desc, field, i, owners);
    if (!tensor)
      return tensor.takeError();
    clearPaddingBits(*tensor);
    tensors.push_back(std::move(*tensor));
  }
  return tensors;
}
