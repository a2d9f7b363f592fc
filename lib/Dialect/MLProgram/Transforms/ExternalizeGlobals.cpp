//===- ExternalizeGlobals.cpp - Move initial values to/from bundles -------===//
//
// --mlprog-externalize-globals writes large inline initial values to a
// safetensors bundle and references them with #ml_program.extern;
// --mlprog-internalize-globals reads them back (DESIGN.md rule 3: weights
// live in a bundle beside the IR, not in its text).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/Transforms/ExternalizeGlobals.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"
#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"
#include "mlprog/Formats/SafeTensors.h"
#include "mlprog/Support/ModelPath.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <deque>

namespace mlprog {
#define GEN_PASS_DEF_EXTERNALIZEGLOBALS
#define GEN_PASS_DEF_INTERNALIZEGLOBALS
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

FailureOr<unsigned> mlprog::externalizeGlobals(ModuleOp module,
                                               StringRef bundlePath,
                                               uint64_t threshold,
                                               StringRef storagePath) {
  std::deque<std::vector<char>> storage;
  std::vector<SafeTensorsWriteEntry> entries;
  SmallVector<GlobalOp> moved;
  for (GlobalOp global : module.getOps<GlobalOp>()) {
    auto value = dyn_cast_if_present<ElementsAttr>(global.getValueAttr());
    // State (mutable globals) keeps its initial value inline: the CPU
    // lowering updates a cache in place and model instances copy it, which
    // neither can do with storage in a file.
    if (!value || global.getIsMutable())
      continue;
    auto type = cast<ShapedType>(value.getType());
    std::optional<SafeTensorsDType> dtype =
        getSafeTensorsDType(type.getElementType());
    if (!dtype) {
      // Only a value that would have moved is worth a remark.
      if (type.getElementType().isIntOrFloat() &&
          uint64_t(type.getNumElements()) *
                  llvm::divideCeil(
                      type.getElementType().getIntOrFloatBitWidth(), 8) >=
              threshold)
        global.emitRemark() << "stays inline: a bundle cannot hold "
                            << type.getElementType() << " elements";
      continue;
    }
    uint64_t size = type.getNumElements() * getSafeTensorsDTypeSize(*dtype);
    if (size < threshold)
      continue;
    storage.emplace_back();
    FailureOr<ArrayRef<char>> bytes = getRawElementBytes(value, storage.back());
    if (failed(bytes)) {
      global.emitRemark("stays inline: its initial value has no raw data");
      continue;
    }
    entries.push_back({global.getSymName().str(), *dtype,
                       llvm::to_vector(type.getShape()), *bytes});
    moved.push_back(global);
  }
  if (moved.empty())
    return 0u;
  if (llvm::Error err = writeSafeTensors(bundlePath, entries))
    return module.emitError() << llvm::toString(std::move(err));
  StringRef file =
      storagePath.empty() ? llvm::sys::path::filename(bundlePath) : storagePath;
  MLIRContext *ctx = module.getContext();
  for (GlobalOp global : moved) {
    Type type = cast<TypedAttr>(global.getValueAttr()).getType();
    global.setValueAttr(ExternAttr::get(ctx, type));
    global->setAttr(
        ExternalStorageAttr::getAttrName(),
        ExternalStorageAttr::get(ctx, StringAttr::get(ctx, file),
                                 StringAttr::get(ctx, global.getSymName()),
                                 std::nullopt, std::nullopt));
  }
  return unsigned(moved.size());
}

namespace {
struct ExternalizeGlobalsPass
    : mlprog::impl::ExternalizeGlobalsBase<ExternalizeGlobalsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (bundle.empty()) {
      module.emitError("--mlprog-externalize-globals needs a bundle path "
                       "(bundle=FILE.safetensors)");
      return signalPassFailure();
    }
    if (failed(externalizeGlobals(module, bundle, threshold, storagePath)))
      signalPassFailure();
  }
};

struct InternalizeGlobalsPass
    : mlprog::impl::InternalizeGlobalsBase<InternalizeGlobalsPass> {
  using Base::Base;

  /// Resolves a storage path against `weights-dir` (default: the current
  /// directory) with the model-path resolver: a relative path stays inside
  /// it; an absolute one is taken as an importer wrote it (ModelPath.h).
  FailureOr<std::string> resolvePath(GlobalOp global, StringRef path) const {
    ModelPathOptions options;
    options.allowAbsolute = true;
    FailureOr<ModelFile> file = resolveModelPath(
        global.getLoc(), weightsDir, path,
        "external storage of global @" + global.getSymName(), options);
    if (failed(file))
      return failure();
    return std::move(file->path);
  }

  /// Opens a bundle once per path.
  FailureOr<const SafeTensorsFile *> openBundle(GlobalOp global,
                                                const std::string &path) {
    auto it = bundles->find(path);
    if (it != bundles->end())
      return it->second.get();
    auto file = SafeTensorsFile::open(path);
    if (!file) {
      global.emitOpError() << llvm::toString(file.takeError());
      return failure();
    }
    const SafeTensorsFile *result = file->get();
    (*bundles)[path] = std::move(*file);
    return result;
  }

  /// The bytes of `global`'s value, or failure with an error at it.
  FailureOr<std::string> readBytes(GlobalOp global, RankedTensorType type,
                                   ExternalStorageAttr storage) {
    uint64_t size =
        type.getNumElements() * getStoredElementSize(type.getElementType());
    if (storage && storage.getOffset()) {
      FailureOr<std::string> resolved =
          resolvePath(global, storage.getFile().getValue());
      if (failed(resolved))
        return failure();
      std::string path = std::move(*resolved);
      uint64_t fileSize = 0, end = 0;
      if (!llvm::sys::fs::file_size(path, fileSize) &&
          (__builtin_add_overflow(*storage.getOffset(), size, &end) ||
           end > fileSize)) {
        global.emitOpError()
            << path << " holds fewer than the " << size
            << " bytes of its type at offset " << *storage.getOffset();
        return failure();
      }
      auto buffer = llvm::MemoryBuffer::getFileSlice(
          path, size, *storage.getOffset(), /*IsVolatile=*/false);
      if (!buffer) {
        global.emitOpError() << "cannot read " << size << " bytes at offset "
                             << *storage.getOffset() << " of " << path << ": "
                             << buffer.getError().message();
        return failure();
      }
      if ((*buffer)->getBufferSize() != size ||
          (storage.getLength() && *storage.getLength() != size)) {
        global.emitOpError()
            << path << " holds fewer than the " << size
            << " bytes of its type at offset " << *storage.getOffset();
        return failure();
      }
      return (*buffer)->getBuffer().str();
    }
    std::string path = bundle.getValue();
    if (storage) {
      FailureOr<std::string> resolved =
          resolvePath(global, storage.getFile().getValue());
      if (failed(resolved))
        return failure();
      path = std::move(*resolved);
    }
    StringRef key = storage ? storage.getKey().getValue() : global.getSymName();
    FailureOr<const SafeTensorsFile *> file = openBundle(global, path);
    if (failed(file))
      return failure();
    const SafeTensorsEntry *entry = (*file)->lookup(key);
    if (!entry) {
      global.emitOpError() << "no tensor '" << key << "' in " << path;
      return failure();
    }
    if (getMLIRElementType(entry->dtype, &getContext()) !=
            type.getElementType() ||
        ArrayRef(entry->shape) != type.getShape()) {
      global.emitOpError() << "tensor '" << key << "' in " << path << " ("
                           << getSafeTensorsDTypeName(entry->dtype)
                           << ") does not match " << type;
      return failure();
    }
    return (*file)->getData(*entry).str();
  }

  void runOnOperation() override {
    // Bundles stay mapped while the pass runs (passes must be copyable, so
    // the map is not a member).
    llvm::StringMap<std::unique_ptr<SafeTensorsFile>> openBundles;
    bundles = &openBundles;
    for (GlobalOp global : getOperation().getOps<GlobalOp>()) {
      auto ext = dyn_cast_if_present<ExternAttr>(global.getValueAttr());
      if (!ext)
        continue;
      auto storage = global->getAttrOfType<ExternalStorageAttr>(
          ExternalStorageAttr::getAttrName());
      if (!storage && bundle.empty())
        continue;
      auto type = dyn_cast<RankedTensorType>(ext.getType());
      if (!type || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat()) {
        global.emitOpError()
            << "cannot internalize a value of type " << ext.getType();
        return signalPassFailure();
      }
      FailureOr<std::string> bytes = readBytes(global, type, storage);
      if (failed(bytes))
        return signalPassFailure();
      DenseElementsAttr value;
      if (type.getElementType().isInteger(1)) {
        SmallVector<bool> bits;
        for (char byte : *bytes)
          bits.push_back(byte != 0);
        value = DenseElementsAttr::get(type, bits);
      } else {
        value = DenseElementsAttr::getFromRawBuffer(
            type, ArrayRef<char>(bytes->data(), bytes->size()));
      }
      global.setValueAttr(value);
      global->removeAttr(ExternalStorageAttr::getAttrName());
    }
  }

  llvm::StringMap<std::unique_ptr<SafeTensorsFile>> *bundles = nullptr;
};
} // namespace
