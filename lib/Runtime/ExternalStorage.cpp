//===- ExternalStorage.cpp - Memory-mapped extern globals -----------------===//

#include "mlprog/Runtime/ExternalStorage.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Formats/SafeTensors.h"
#include "mlprog/Support/ModelPath.h"
#include "mlprog/Support/ResourceLimits.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;
using namespace mlprog;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

struct ExternalStorage::BlobFile {
  std::unique_ptr<llvm::sys::fs::mapped_file_region> mapping;
  StringRef bytes;
};

ExternalStorage::~ExternalStorage() = default;

/// Bytes per element as the LLVM lowering stores them (i1 in a byte).
static uint64_t getElementByteSize(mlir::Type type) {
  if (type.isIndex())
    return 8;
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

Expected<const SafeTensorsFile *> ExternalStorage::openBundle(StringRef path) {
  auto it = bundles.find(path);
  if (it != bundles.end())
    return it->second.get();
  auto file = SafeTensorsFile::open(path, /*copyOnWrite=*/true);
  if (!file)
    return file.takeError();
  const SafeTensorsFile *result = file->get();
  bundles[path] = std::move(*file);
  return result;
}

Expected<StringRef> ExternalStorage::openBlobFile(StringRef path) {
  auto it = blobFiles.find(path);
  if (it != blobFiles.end())
    return it->second->bytes;
  Expected<llvm::sys::fs::file_t> fd =
      llvm::sys::fs::openNativeFileForRead(path);
  if (!fd)
    return llvm::createStringError(
        path + ": cannot open: " + toString(fd.takeError()));
  auto closeFile =
      llvm::make_scope_exit([&] { llvm::sys::fs::closeFile(*fd); });
  llvm::sys::fs::file_status status;
  if (std::error_code ec = llvm::sys::fs::status(*fd, status))
    return llvm::createStringError(path + ": cannot stat: " + ec.message());
  auto blob = std::make_unique<BlobFile>();
  if (status.getSize() > 0) {
    std::error_code ec;
    blob->mapping = std::make_unique<llvm::sys::fs::mapped_file_region>(
        *fd, llvm::sys::fs::mapped_file_region::priv, status.getSize(), 0, ec);
    if (ec)
      return llvm::createStringError(path +
                                     ": cannot memory-map: " + ec.message());
    blob->bytes = StringRef(blob->mapping->data(), status.getSize());
  }
  StringRef bytes = blob->bytes;
  blobFiles[path] = std::move(blob);
  return bytes;
}

Expected<void *>
ExternalStorage::resolveGlobal(mlir::Operation *op,
                               const ExternalStorageOptions &options) {
  auto global = cast<GlobalOp>(op);
  auto fail = [&](const llvm::Twine &message) {
    return llvm::createStringError("global @" + global.getSymName() + ": " +
                                   message);
  };
  auto type = dyn_cast<mlir::RankedTensorType>(
      cast<ExternAttr>(global.getValueAttr()).getType());
  mlir::Type elementType =
      type ? type.getElementType()
           : cast<ExternAttr>(global.getValueAttr()).getType();
  if (type && !type.hasStaticShape())
    return fail("extern value type " + llvm::Twine("must be statically "
                                                   "shaped to be loaded"));
  if (!elementType.isIntOrIndexOrFloat())
    return fail("extern values of this element type cannot be loaded");
  Expected<uint64_t> checkedSize =
      checkTensorByteSize(type ? type.getShape() : llvm::ArrayRef<int64_t>(),
                          8 * getElementByteSize(elementType), "its value");
  if (!checkedSize)
    return fail(toString(checkedSize.takeError()));
  uint64_t byteSize = *checkedSize;

  auto storage = global->getAttrOfType<ExternalStorageAttr>(
      ExternalStorageAttr::getAttrName());
  std::string path = storage ? storage.getFile().str() : options.defaultBundle;
  if (path.empty())
    return fail("is #ml_program.extern but has no ml_program.external_storage "
                "and no default bundle was given (mlprog-run --bundle)");
  // The default bundle comes from the command line: relative to the
  // current directory, not to the IR file, and not confined. A path the IR
  // names goes through the model-path resolver: a relative one stays inside
  // the base directory; an absolute one is what an importer wrote after
  // confining it (the IR is a program, trusted as such; docs/reliability.md).
  if (storage) {
    ModelPathOptions pathOptions;
    pathOptions.allowAbsolute = true;
    Expected<ModelFile> file =
        resolveModelPath(options.baseDirectory, path, pathOptions);
    if (!file)
      return fail("external storage " + toString(file.takeError()));
    path = std::move(file->path);
  }

  char *data;
  if (!storage || storage.getKey()) {
    StringRef key = storage ? storage.getKey().getValue() : global.getSymName();
    Expected<const SafeTensorsFile *> bundle = openBundle(path);
    if (!bundle)
      return fail(toString(bundle.takeError()));
    const SafeTensorsEntry *entry = (*bundle)->lookup(key);
    if (!entry)
      return fail("no tensor '" + key + "' in " + path);
    mlir::Type entryType =
        getMLIRElementType(entry->dtype, global->getContext());
    llvm::ArrayRef<int64_t> shape =
        type ? type.getShape() : llvm::ArrayRef<int64_t>();
    if (entryType != elementType || llvm::ArrayRef(entry->shape) != shape)
      return fail("tensor '" + key + "' in " + path + " is " +
                  getSafeTensorsDTypeName(entry->dtype) +
                  " with a different element type or shape than the global");
    data = (*bundle)->getMutableData(*entry);
  } else {
    uint64_t offset = *storage.getOffset();
    if (storage.getLength() && *storage.getLength() != byteSize)
      return fail("length " + llvm::Twine(*storage.getLength()) +
                  " differs from the " + llvm::Twine(byteSize) +
                  " bytes of its type");
    Expected<StringRef> bytes = openBlobFile(path);
    if (!bytes)
      return fail(toString(bytes.takeError()));
    uint64_t end;
    if (__builtin_add_overflow(offset, byteSize, &end) || end > bytes->size())
      return fail("bytes [" + llvm::Twine(offset) + ", " + llvm::Twine(offset) +
                  " + " + llvm::Twine(byteSize) + ") lie past the end of " +
                  path + " (" + llvm::Twine(bytes->size()) + " bytes)");
    data = const_cast<char *>(bytes->data()) + offset;
  }
  uint64_t alignment = getElementByteSize(elementType);
  if (reinterpret_cast<uintptr_t>(data) % alignment == 0)
    return data;
  // Misaligned data (a packed bundle): copy it once into aligned memory.
  auto copy = std::make_unique<char[]>(byteSize + 64);
  char *aligned = reinterpret_cast<char *>(
      llvm::alignTo(reinterpret_cast<uintptr_t>(copy.get()), 64));
  std::memcpy(aligned, data, byteSize);
  alignedCopies.push_back(std::move(copy));
  return aligned;
}

Expected<std::unique_ptr<ExternalStorage>>
ExternalStorage::resolve(mlir::ModuleOp module,
                         const ExternalStorageOptions &options) {
  std::unique_ptr<ExternalStorage> storage(new ExternalStorage());
  for (auto global : module.getOps<GlobalOp>()) {
    if (!isa_and_nonnull<ExternAttr>(global.getValueAttr()))
      continue;
    Expected<void *> address = storage->resolveGlobal(global, options);
    if (!address)
      return address.takeError();
    storage->addresses[global.getSymName()] = *address;
  }
  return storage;
}

uint64_t ExternalStorage::inlineConstants(mlir::ModuleOp module,
                                          uint64_t limit) {
  llvm::SmallVector<std::pair<GlobalOp, mlir::RankedTensorType>> globals;
  uint64_t total = 0;
  for (auto global : module.getOps<GlobalOp>()) {
    auto value = dyn_cast_if_present<ExternAttr>(global.getValueAttr());
    if (!value || global.getIsMutable() ||
        !addresses.count(global.getSymName()))
      continue;
    auto type = dyn_cast<mlir::RankedTensorType>(value.getType());
    if (!type || !type.hasStaticShape() ||
        !type.getElementType().isIntOrFloat() ||
        type.getElementType().getIntOrFloatBitWidth() % 8 != 0)
      continue;
    // resolveGlobal checked the size against overflow.
    total += type.getNumElements() * getElementByteSize(type.getElementType());
    globals.push_back({global, type});
  }
  if (globals.empty() || total > limit)
    return 0;
  for (auto [global, type] : globals) {
    auto it = addresses.find(global.getSymName());
    uint64_t size =
        type.getNumElements() * getElementByteSize(type.getElementType());
    llvm::ArrayRef<char> bytes(static_cast<const char *>(it->second), size);
    global.setValueAttr(mlir::DenseElementsAttr::getFromRawBuffer(type, bytes));
    global->removeAttr(ExternalStorageAttr::getAttrName());
    addresses.erase(it);
  }
  return total;
}

ExternalStorageCLOptions::ExternalStorageCLOptions(
    llvm::cl::OptionCategory &category)
    : bundle("bundle", llvm::cl::value_desc("FILE.safetensors"),
             llvm::cl::cat(category),
             llvm::cl::desc("Weights bundle holding #ml_program.extern "
                            "globals that have no "
                            "ml_program.external_storage, by symbol name")),
      weightsDir("weights-dir", llvm::cl::value_desc("DIR"),
                 llvm::cl::cat(category),
                 llvm::cl::desc("Directory against which relative external "
                                "storage paths resolve (default: the "
                                "directory of FILE.mlir)")),
      prepackLimitMiB(
          "prepack-weights-limit", llvm::cl::value_desc("MiB"),
          llvm::cl::cat(category),
          llvm::cl::desc(
              "Weights read from files (bundles, ONNX external data) are "
              "copied into the compiler and pre-packed for the kernels when "
              "they total at most this many MiB; larger ones are used in "
              "place from the memory-mapped file"),
          llvm::cl::init(ExternalStorageOptions::kDefaultPrepackLimit >> 20)) {}

ExternalStorageOptions
ExternalStorageCLOptions::get(llvm::StringRef inputFile) const {
  ExternalStorageOptions options;
  options.defaultBundle = bundle;
  options.prepackLimit = prepackLimitMiB >= (uint64_t(1) << 44)
                             ? UINT64_MAX
                             : uint64_t(prepackLimitMiB) << 20;
  options.baseDirectory = weightsDir.empty()
                              ? llvm::sys::path::parent_path(inputFile).str()
                              : weightsDir.getValue();
  return options;
}
