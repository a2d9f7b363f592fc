//===- ModelLibrary.cpp - Run a library made by mlprog-compile ------------===//

#include "mlprog/Compiler/ModelLibrary.h"
#include "mlprog-c/Model.h"
#include "mlprog/Compiler/AotCompiler.h"
#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Runtime/JitRunner.h"
#include "mlprog/Runtime/RunnerMain.h"
#include "mlprog/Support/ParseLimits.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

using namespace mlprog;
using llvm::Error;
using llvm::Expected;

struct ModelLibrary::Api {
  int32_t (*abiVersion)(void);
  int32_t (*target)(void);
  int32_t (*numEntries)(void);
  const mlprog_entry_info *(*entry)(int32_t);
  int32_t (*run)(int32_t, const mlprog_tensor *, int32_t, mlprog_tensor *,
                 int32_t, char *, size_t);
  void (*release)(mlprog_tensor *);
};

Expected<std::unique_ptr<ModelLibrary>>
ModelLibrary::load(llvm::StringRef path) {
  std::string file = path.str();
  // dlopen searches the library path for names without a slash.
  if (!llvm::StringRef(file).contains('/'))
    file = "./" + file;
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return llvm::createStringError(llvm::Twine("cannot load ") + path + ": " +
                                   dlerror());
  std::unique_ptr<ModelLibrary> library(new ModelLibrary());
  library->handle = handle;
  library->api = std::make_unique<Api>();
  auto lookup = [&](const char *name, auto &pointer) -> Error {
    pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(
        dlsym(handle, name));
    if (pointer)
      return Error::success();
    return llvm::createStringError(
        path + ": not an mlprog-compile library (no " + name + ")");
  };
  Api &api = *library->api;
  if (Error err = lookup("mlprog_model_abi_version", api.abiVersion))
    return std::move(err);
  if (Error err = lookup("mlprog_model_target", api.target))
    return std::move(err);
  if (Error err = lookup("mlprog_model_num_entries", api.numEntries))
    return std::move(err);
  if (Error err = lookup("mlprog_model_entry", api.entry))
    return std::move(err);
  if (Error err = lookup("mlprog_model_run", api.run))
    return std::move(err);
  if (Error err = lookup("mlprog_tensor_release", api.release))
    return std::move(err);
  // Version 2 only added functions (model instances): version 1 libraries
  // run the same way.
  if (api.abiVersion() < 1 || api.abiVersion() > MLPROG_MODEL_ABI_VERSION)
    return llvm::createStringError(
        path + ": ABI version " + llvm::Twine(api.abiVersion()) +
        ", this runner supports 1 to " + llvm::Twine(MLPROG_MODEL_ABI_VERSION));
  return library;
}

ModelLibrary::~ModelLibrary() {
  if (handle)
    dlclose(handle);
}

std::vector<std::string> ModelLibrary::getEntryNames() const {
  std::vector<std::string> names;
  for (int32_t i = 0, e = api->numEntries(); i < e; ++i)
    names.push_back(api->entry(i)->name);
  return names;
}

int ModelLibrary::getTarget() const { return api->target(); }

Expected<int> ModelLibrary::findEntry(llvm::StringRef name) const {
  std::vector<std::string> names = getEntryNames();
  llvm::StringRef wanted = name.empty() ? "main" : name;
  for (auto [i, entry] : llvm::enumerate(names))
    if (entry == wanted)
      return int(i);
  if (name.empty() && names.size() == 1)
    return 0;
  std::string list;
  for (const std::string &entry : names)
    list += (list.empty() ? "@" : ", @") + entry;
  if (!name.empty())
    return llvm::createStringError("no entry point @" + name +
                                   " (entry points: " + list + ")");
  return llvm::createStringError("cannot choose the entry point: no @main "
                                 "and several entry points (" +
                                 list + "); pass --entry");
}

Expected<std::vector<HostTensor>>
ModelLibrary::run(int index, llvm::ArrayRef<HostTensor> inputs,
                  unsigned repeat) {
  const mlprog_entry_info *info = api->entry(index);
  if (!info)
    return llvm::createStringError("no entry point " + llvm::Twine(index));
  std::vector<mlprog_tensor> args;
  for (const HostTensor &input : inputs)
    args.push_back({const_cast<uint8_t *>(input.getData()),
                    const_cast<int64_t *>(input.getShape().data()),
                    static_cast<int32_t>(input.getRank()),
                    static_cast<int32_t>(input.getDType())});
  std::vector<mlprog_tensor> results(info->num_results);
  char error[4096] = "";
  std::vector<HostTensor> tensors;
  for (unsigned i = 0, e = std::max(repeat, 1u); i < e; ++i) {
    if (api->run(index, args.data(), args.size(), results.data(),
                 results.size(), error, sizeof(error)))
      return llvm::createStringError(error);
    if (i + 1 == e) {
      for (mlprog_tensor &result : results) {
        HostTensor tensor(static_cast<DType>(result.dtype),
                          llvm::ArrayRef<int64_t>(result.shape, result.rank));
        std::memcpy(tensor.getData(), result.data, tensor.getNumBytes());
        tensors.push_back(std::move(tensor));
      }
    }
    for (mlprog_tensor &result : results)
      api->release(&result);
  }
  return tensors;
}

//===----------------------------------------------------------------------===//
// mlprog-run --library / --target=cuda
//===----------------------------------------------------------------------===//

bool mlprog::isLibraryRunCommandLine(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg = argv[i];
    if (arg == "--") // positional arguments follow
      break;
    arg.consume_front("-");
    arg.consume_front("-");
    if (arg == "library" || arg.starts_with("library="))
      return true;
    if (arg.starts_with("target=") && arg != "target=cpu")
      return true;
    if (arg == "target" && i + 1 < argc &&
        llvm::StringRef(argv[i + 1]) != "cpu")
      return true;
  }
  return false;
}

static constexpr const char *kOverview = R"(mlprog runner for compiled libraries

  mlprog-run --library model.so [--entry NAME] [--input X.npy]...
             [--output-dir DIR] [--print] [--repeat N] [--threads N]
  mlprog-run --target=cuda FILE.mlir [--gpu-chip sm_90 [--gpu-features +ptx80]]
             [--entry NAME] [--input X.npy]... [--output-dir DIR] ...

--library runs a shared library made by mlprog-compile (CPU or CUDA).
--target=cuda compiles FILE.mlir with --mlprog-lower-to-gpu into a temporary
library (mlprog-compile --target=cuda) and runs it; it needs the NVIDIA driver
(libcuda.so.1) and a GPU, and fails with status 1 otherwise. Inputs, outputs
and errors are those of the JIT runner (mlprog-run --help without --library).
)";

static int reportError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mlprog-run") << message << "\n";
  return 1;
}

/// Writes DIR/output_i.npy, removing what was written on failure.
static Error writeOutputs(llvm::StringRef dir,
                          llvm::ArrayRef<HostTensor> results) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(
        dir + ": cannot create directory: " + ec.message());
  std::vector<std::string> written;
  for (auto [i, tensor] : llvm::enumerate(results)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "output_" + llvm::Twine(i) + ".npy");
    if (Error err = writeNpy(path, tensor)) {
      for (const std::string &file : written)
        llvm::sys::fs::remove(file);
      return err;
    }
    written.push_back(path.str().str());
  }
  return Error::success();
}

/// lib/ next to the bin/ directory of this executable.
static std::string getDefaultRuntimeDir(const char *argv0) {
  static int anchor;
  std::string exe = llvm::sys::fs::getMainExecutable(argv0, &anchor);
  llvm::SmallString<256> dir(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(dir, "lib");
  return dir.str().str();
}

int mlprog::mlprogRunLibraryMain(int argc, char **argv,
                                 mlir::DialectRegistry &registry) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlprog::registerResourceLimitOptions();
  namespace cl = llvm::cl;
  cl::OptionCategory category("mlprog-run library options");
  cl::opt<std::string> inputFile(cl::Positional, cl::desc("[FILE.mlir]"),
                                 cl::cat(category));
  cl::opt<std::string> library("library", cl::value_desc("model.so"),
                               cl::cat(category),
                               cl::desc("Run a library from mlprog-compile"));
  cl::opt<std::string> target(
      "target", cl::init("cpu"), cl::value_desc("cpu|cuda"), cl::cat(category),
      cl::desc("cuda: compile FILE.mlir for the GPU and run it"));
  cl::opt<std::string> gpuChip("gpu-chip", cl::init("sm_80"), cl::cat(category),
                               cl::desc("GPU architecture for --target=cuda"));
  cl::opt<std::string> gpuFeatures(
      "gpu-features", cl::init(""), cl::cat(category),
      cl::desc("PTX features for --target=cuda (default: the chip's oldest "
               "PTX version)"));
  cl::opt<std::string> runtimeDir(
      "runtime-dir", cl::cat(category),
      cl::desc("Directory of mlprog's runtime archives (default: ../lib "
               "next to this executable)"));
  cl::opt<std::string> entry("entry", cl::value_desc("NAME"), cl::cat(category),
                             cl::desc("Entry point to run"));
  cl::list<std::string> inputs("input", cl::value_desc("X.npy"),
                               cl::cat(category),
                               cl::desc("A .npy file per argument, in order"));
  cl::opt<std::string> outputDir("output-dir", cl::value_desc("DIR"),
                                 cl::cat(category),
                                 cl::desc("Write DIR/output_i.npy"));
  cl::opt<bool> print("print", cl::cat(category),
                      cl::desc("Print each result"));
  cl::opt<unsigned> repeat("repeat", cl::init(1), cl::value_desc("N"),
                           cl::cat(category),
                           cl::desc("Run the entry N times"));
  cl::opt<unsigned> numThreads(
      "num-threads", cl::init(0), cl::value_desc("N"), cl::cat(category),
      cl::desc("OpenMP threads of a CPU library, also spelled --threads "
               "(default: MLPROG_NUM_THREADS, else OMP_NUM_THREADS, else all "
               "cores)"));

  cl::HideUnrelatedOptions(category);
  std::vector<std::string> renamed;
  std::vector<char *> args = renameThreadsOption(argc, argv, renamed);
  cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                              kOverview);
  if (repeat == 0)
    return reportError("--repeat must be at least 1");
  if (numThreads > kMaxNumThreads)
    return reportError("--num-threads " + llvm::Twine(numThreads) +
                       ": at most " + llvm::Twine(kMaxNumThreads) + " threads");
  // The library reads it at every call (see mlprog_model_run).
  if (numThreads > 0)
    ::setenv("MLPROG_NUM_THREADS", std::to_string(numThreads).c_str(),
             /*overwrite=*/1);
  if (target != "cpu" && target != "cuda")
    return reportError("unknown --target '" + target + "' (cpu or cuda)");
  if (library.empty() == inputFile.empty())
    return reportError("pass either --library model.so or FILE.mlir with "
                       "--target=cuda");

  std::vector<HostTensor> arrays;
  for (const std::string &path : inputs) {
    Expected<HostTensor> array = readNpy(path);
    if (!array)
      return reportError(toString(array.takeError()));
    arrays.push_back(std::move(*array));
  }

  // --target=cuda FILE.mlir: compile to a temporary library first.
  std::string libraryPath = library;
  llvm::SmallString<128> temporary;
  llvm::scope_exit removeTemporary([&] {
    if (!temporary.empty())
      llvm::sys::fs::remove(temporary);
  });
  if (!inputFile.empty()) {
    mlir::MLIRContext context(registry);
    llvm::SourceMgr sourceMgr;
    mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
    std::string message;
    auto buffer = mlir::openInputFile(inputFile, &message);
    if (!buffer)
      return reportError(inputFile + ": " + message);
    sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    if (failed(mlprog::checkNestingDepth(sourceMgr, &context)))
      return 1;
    auto module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
    if (!module)
      return 1;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("mlprog-run", "so", temporary))
      return reportError("cannot create a temporary file: " + ec.message());
    AotOptions options;
    options.target = AotTarget::CUDA;
    options.gpuChip = gpuChip;
    options.gpuFeatures = gpuFeatures;
    options.runtimeDir =
        runtimeDir.empty() ? getDefaultRuntimeDir(argv[0]) : runtimeDir;
    if (Error err = compileToSharedLibrary(*module, temporary, options))
      return reportError(inputFile + ": " + toString(std::move(err)));
    libraryPath = temporary.str().str();
  }

  llvm::StringRef name =
      library.empty() ? llvm::StringRef(inputFile) : llvm::StringRef(library);
  auto model = ModelLibrary::load(libraryPath);
  if (!model)
    return reportError(toString(model.takeError()));
  Expected<int> index = (*model)->findEntry(entry);
  if (!index)
    return reportError(name + ": " + toString(index.takeError()));
  auto results = (*model)->run(*index, arrays, repeat);
  if (!results)
    return reportError(name + ": " + toString(results.takeError()));
  if (!outputDir.empty())
    if (Error err = writeOutputs(outputDir, *results))
      return reportError(toString(std::move(err)));
  if (print)
    for (auto [i, tensor] : llvm::enumerate(*results)) {
      llvm::outs() << "output " << i << ": shape "
                   << formatShape(tensor.getShape()) << " dtype "
                   << getNumpyDTypeName(tensor.getDType()) << "\n";
      printTensor(llvm::outs(), tensor);
      llvm::outs() << "\n";
    }
  return 0;
}
