//===- WeightsBundle.cpp - Imported weights beside the IR -----------------===//

#include "mlprog/Import/Common/WeightsBundle.h"
#include "mlprog/Dialect/MLProgram/Transforms/ExternalizeGlobals.h"
#include "mlprog/Support/AtomicOutput.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace mlprog;

namespace {
struct WeightsCLOptions {
  llvm::cl::opt<std::string> bundle{
      "weights-bundle", llvm::cl::value_desc("FILE.safetensors"),
      llvm::cl::desc("Safetensors bundle that the imported model's large "
                     "initializers are written to (default: the -o file with "
                     "the extension .safetensors; with output on stdout, "
                     "weights stay in the IR unless this is given)"),
      llvm::cl::init("")};
  llvm::cl::opt<uint64_t> threshold{
      "weights-threshold", llvm::cl::value_desc("BYTES"),
      llvm::cl::desc("Smallest initializer, in bytes, that leaves the IR for "
                     "the weights bundle"),
      llvm::cl::init(kDefaultWeightsThreshold)};
  llvm::cl::opt<bool> inlineWeights{
      "inline-weights",
      llvm::cl::desc("Keep every initializer in the IR text (no weights "
                     "bundle)"),
      llvm::cl::init(false)};
};
} // namespace

static WeightsCLOptions &getCLOptions() {
  static WeightsCLOptions options;
  return options;
}

void mlprog::registerImportWeightsOptions() { (void)getCLOptions(); }

/// The canonical directory of `path` (which need not exist yet), or the
/// directory as written when it cannot be resolved.
static std::string getCanonicalDirectory(StringRef path) {
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(path));
  if (dir.empty())
    dir = ".";
  llvm::SmallString<256> real;
  if (!llvm::sys::fs::real_path(dir, real))
    return std::string(real);
  (void)llvm::sys::fs::make_absolute(dir);
  return std::string(dir);
}

ImportWeightsOptions mlprog::getImportWeightsOptions(StringRef outputPath) {
  WeightsCLOptions &cl = getCLOptions();
  ImportWeightsOptions options;
  options.threshold = cl.threshold;
  if (cl.inlineWeights)
    return options;
  bool toFile = !outputPath.empty() && outputPath != "-";
  if (!cl.bundle.empty()) {
    options.bundlePath = cl.bundle;
  } else if (toFile) {
    llvm::SmallString<256> bundle(outputPath);
    llvm::sys::path::replace_extension(bundle, "safetensors");
    // An output itself named *.safetensors keeps its name for the IR.
    if (bundle == outputPath)
      bundle += ".weights.safetensors";
    options.bundlePath = std::string(bundle);
  } else {
    return options;
  }
  std::string bundleDir = getCanonicalDirectory(options.bundlePath);
  if (toFile && bundleDir == getCanonicalDirectory(outputPath)) {
    options.storagePath = llvm::sys::path::filename(options.bundlePath).str();
  } else {
    llvm::SmallString<256> absolute(bundleDir);
    llvm::sys::path::append(absolute,
                            llvm::sys::path::filename(options.bundlePath));
    options.storagePath = std::string(absolute);
  }
  return options;
}

LogicalResult
mlprog::writeImportedWeights(ModuleOp module,
                             const ImportWeightsOptions &options) {
  if (options.bundlePath.empty())
    return success();
  return externalizeGlobals(module, options.bundlePath, options.threshold,
                            options.storagePath);
}

OwningOpRef<Operation *>
mlprog::writeTranslatedWeights(OwningOpRef<Operation *> module) {
  auto moduleOp = dyn_cast_if_present<ModuleOp>(module.get());
  if (!moduleOp)
    return module;
  if (failed(writeImportedWeights(
          moduleOp, getImportWeightsOptions(getAtomicOutputPath()))))
    return nullptr;
  return module;
}
