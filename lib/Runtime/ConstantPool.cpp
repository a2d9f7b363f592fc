//===- ConstantPool.cpp - Large global initializers kept out of LLVM ------===//
//
// See ConstantPool.h.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Runtime/ConstantPool.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>
#include <new>

using namespace mlir;
using namespace mlprog;

ConstantPool::~ConstantPool() = default;

namespace {
/// A global whose initial value moves into the pool, and how to write it.
struct Candidate {
  LLVM::GlobalOp global;
  Attribute value;
  /// Bytes of one element in memory (i1: one byte).
  uint64_t elementBytes;
  uint64_t numElements;
  uint64_t alignment;
  /// The bytes of an external declaration's data; null for initial values.
  const char *external = nullptr;
};
} // namespace

/// The leaf element type and element count of a (nested) `!llvm.array`
/// type, or a null type when `type` is not an array of scalars.
static Type getArrayElementType(Type type, uint64_t &numElements) {
  numElements = 1;
  while (auto array = dyn_cast<LLVM::LLVMArrayType>(type)) {
    if (array.getNumElements() != 0 &&
        numElements > UINT64_MAX / array.getNumElements())
      return nullptr;
    numElements *= array.getNumElements();
    type = array.getElementType();
  }
  return isa<IntegerType, FloatType>(type) ? type : nullptr;
}

/// Bytes one element of `type` occupies in an LLVM array (its alloc size),
/// for the types whose memory image is their attribute's raw data; 0 for
/// the others (i4, f80, ...).
static uint64_t getElementBytes(Type type) {
  unsigned bits = type.getIntOrFloatBitWidth();
  if (type.isInteger(1))
    return 1;
  if (bits < 8 || !llvm::isPowerOf2_32(bits) || bits > 64)
    return 0;
  return bits / 8;
}

/// Whether `name` can be spelled as a quoted symbol in assembly (the AOT
/// compiler defines pool symbols there).
static bool isPlainSymbolName(StringRef name) {
  return !name.empty() && llvm::none_of(name, [](char c) {
    return c == '"' || c == '\\' || c == '\n' || c == '\0';
  });
}

/// Checks whether `global`, an external declaration whose data is at
/// `data`, can be defined by the pool.
static std::optional<Candidate> getExternalCandidate(LLVM::GlobalOp global,
                                                     const char *data) {
  if (global.getValueOrNull() || !global.getInitializerRegion().empty() ||
      global.getLinkage() != LLVM::Linkage::External ||
      global.getThreadLocal_() || global.getSection() || global.getComdat() ||
      global.getAddrSpace() != 0 || !isPlainSymbolName(global.getSymName()))
    return std::nullopt;
  uint64_t numElements;
  Type leaf = getArrayElementType(global.getGlobalType(), numElements);
  uint64_t elementBytes = leaf ? getElementBytes(leaf) : 0;
  if (elementBytes == 0 || numElements > UINT64_MAX / elementBytes)
    return std::nullopt;
  uint64_t alignment =
      std::max<uint64_t>(64, global.getAlignment().value_or(1));
  if (!llvm::isPowerOf2_64(alignment))
    return std::nullopt;
  return Candidate{global, nullptr, elementBytes, numElements, alignment, data};
}

/// Checks whether `global`'s initial value can move to the pool.
static std::optional<Candidate> getCandidate(LLVM::GlobalOp global,
                                             uint64_t threshold) {
  Attribute value = global.getValueOrNull();
  if (!value || !global.getInitializerRegion().empty() ||
      global.getThreadLocal_() || global.getSection() || global.getComdat() ||
      global.getAddrSpace() != 0 || !isPlainSymbolName(global.getSymName()))
    return std::nullopt;
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements ||
      !isa<DenseIntOrFPElementsAttr, DenseResourceElementsAttr>(elements))
    return std::nullopt;
  uint64_t numElements;
  Type leaf = getArrayElementType(global.getGlobalType(), numElements);
  if (!leaf)
    return std::nullopt;
  Type attrElement = elements.getElementType();
  // Index values are stored as i64 after lowering.
  if (attrElement.isIndex())
    attrElement = IntegerType::get(global.getContext(), 64);
  if (attrElement != leaf || uint64_t(elements.getNumElements()) != numElements)
    return std::nullopt;
  uint64_t elementBytes = getElementBytes(leaf);
  if (elementBytes == 0 || numElements > UINT64_MAX / elementBytes ||
      numElements * elementBytes < threshold)
    return std::nullopt;
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (leaf.isInteger(1) || !blob ||
        blob->getData().size() != numElements * elementBytes)
      return std::nullopt;
  }
  uint64_t alignment =
      std::max<uint64_t>(64, global.getAlignment().value_or(1));
  if (!llvm::isPowerOf2_64(alignment))
    return std::nullopt;
  return Candidate{global, value, elementBytes, numElements, alignment};
}

/// Writes the memory image of `candidate`'s initial value to `out`.
static void writeValue(const Candidate &candidate, char *out) {
  uint64_t bytes = candidate.elementBytes * candidate.numElements;
  if (candidate.external) {
    std::memcpy(out, candidate.external, bytes);
    return;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(candidate.value)) {
    std::memcpy(out, resource.getRawHandle().getBlob()->getData().data(),
                bytes);
    return;
  }
  auto dense = cast<DenseIntOrFPElementsAttr>(candidate.value);
  if (dense.getElementType().isInteger(1)) {
    for (auto [i, bit] : llvm::enumerate(dense.getValues<bool>()))
      out[i] = bit ? 1 : 0;
    return;
  }
  ArrayRef<char> raw = dense.getRawData();
  if (!dense.isSplat()) {
    std::memcpy(out, raw.data(), bytes);
    return;
  }
  for (uint64_t i = 0; i < candidate.numElements; ++i)
    std::memcpy(out + i * candidate.elementBytes, raw.data(),
                candidate.elementBytes);
}

llvm::Expected<std::unique_ptr<ConstantPool>>
ConstantPool::extract(ModuleOp module, uint64_t threshold,
                      const llvm::StringMap<void *> *externalData) {
  std::unique_ptr<ConstantPool> pool(new ConstantPool());
  SmallVector<Candidate> candidates;
  uint64_t size = 0;
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    void *external =
        externalData ? externalData->lookup(global.getSymName()) : nullptr;
    std::optional<Candidate> candidate =
        external ? getExternalCandidate(global, static_cast<char *>(external))
                 : getCandidate(global, threshold);
    if (!candidate)
      continue;
    uint64_t offset = llvm::alignTo(size, candidate->alignment);
    uint64_t bytes = candidate->elementBytes * candidate->numElements;
    size = offset + bytes;
    pool->entries.push_back({global.getSymName().str(), offset, bytes,
                             candidate->alignment, global.getConstant()});
    candidates.push_back(*candidate);
  }
  if (candidates.empty())
    return pool;

  uint64_t maxAlignment = 64;
  for (const Entry &entry : pool->entries)
    maxAlignment = std::max(maxAlignment, entry.alignment);
  pool->storage.reset(new (std::nothrow) char[size + maxAlignment]);
  if (!pool->storage)
    return llvm::createStringError("cannot allocate " + Twine(size) +
                                   " bytes for the initial values of the "
                                   "module's globals");
  pool->data = reinterpret_cast<char *>(llvm::alignTo(
      reinterpret_cast<uintptr_t>(pool->storage.get()), maxAlignment));
  pool->size = size;
  // Padding between entries is zeroed so that the AOT image is reproducible.
  std::memset(pool->data, 0, size);

  for (auto [candidate, entry] : llvm::zip(candidates, pool->entries)) {
    char *address = pool->data + entry.offset;
    writeValue(candidate, address);
    pool->addresses[entry.name] = address;
    // An external declaration of the same type: the runner supplies the
    // definition. It must not be dso_local, so that the JIT reaches data
    // outside the code's +-2 GiB through the GOT.
    LLVM::GlobalOp global = candidate.global;
    global.removeValueAttr();
    global.setLinkage(LLVM::Linkage::External);
    global.setDsoLocal(false);
    global.setUnnamedAddr(std::nullopt);
    global.setAlignment(entry.alignment);
  }
  return pool;
}
