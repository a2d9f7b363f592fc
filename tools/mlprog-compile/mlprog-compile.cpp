//===- mlprog-compile.cpp - Compile an mlprog module to a shared library --===//
//
//   mlprog-compile FILE.mlir --target=cpu|cuda -o model.so
//
// See include/mlprog/Compiler/AotCompiler.h and include/mlprog-c/Model.h.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Compiler/AotCompiler.h"
#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Support/CompileProgress.h"
#include "mlprog/Support/ParseLimits.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

namespace cl = llvm::cl;

static constexpr const char *kOverview = R"(mlprog ahead-of-time compiler

Compiles an import-contract module (or one lowered by --mlprog-lower-to-cpu or
--mlprog-lower-to-gpu) into a shared library with the C ABI of
include/mlprog-c/Model.h. The library needs only libc and libm (and, for
--target=cuda, the NVIDIA driver libcuda.so.1, loaded at run time); run it
with `mlprog-run --library model.so --input x.npy ...` or from C.

Example:
  mlprog-compile model.mlir --target=cuda --gpu-chip=sm_90 -o model.so
)";

static int reportError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mlprog-compile") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlprog::registerResourceLimitOptions();
  cl::OptionCategory category("mlprog-compile options");
  cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                 cl::desc("FILE.mlir"), cl::cat(category));
  cl::opt<std::string> output("o", cl::Required, cl::value_desc("model.so"),
                              cl::cat(category),
                              cl::desc("Shared library to write"));
  cl::opt<std::string> target("target", cl::init("cpu"),
                              cl::value_desc("cpu|cuda"), cl::cat(category),
                              cl::desc("Where the model runs"));
  cl::opt<std::string> triple("mtriple", cl::cat(category),
                              cl::desc("Host target triple (default: this "
                                       "machine)"));
  cl::opt<std::string> cpu("mcpu", cl::cat(category),
                           cl::desc("Host CPU (default: this machine's)"));
  cl::opt<std::string> attrs("mattr", cl::cat(category),
                             cl::desc("Host CPU features (default: this "
                                      "machine's)"));
  cl::opt<unsigned> optLevel("O", cl::init(2), cl::Prefix, cl::cat(category),
                             cl::desc("Host optimization level (0-3)"));
  cl::opt<std::string> gpuChip("gpu-chip", cl::init("sm_80"), cl::cat(category),
                               cl::desc("GPU architecture (--target=cuda)"));
  cl::opt<std::string> gpuFeatures(
      "gpu-features", cl::init(""), cl::cat(category),
      cl::desc("PTX features (--target=cuda; default: the chip's oldest PTX "
               "version, e.g. +ptx78 for sm_90)"));
  cl::opt<std::string> runtimeDir(
      "runtime-dir", cl::cat(category),
      cl::desc("Directory of libmlprog_model_support.a and "
               "libmlprog_cuda_runtime.a (default: ../lib next to this "
               "executable)"));
  cl::opt<std::string> linker("linker", cl::init("cc"), cl::cat(category),
                              cl::desc("C compiler driver used to link"));
  cl::opt<uint64_t> poolThreshold(
      "constant-pool-threshold",
      cl::init(mlprog::kDefaultConstantPoolThreshold), cl::value_desc("BYTES"),
      cl::cat(category),
      cl::desc("Global initial values of at least this many bytes bypass "
               "LLVM and are copied into the library's data sections by the "
               "assembler (ELF; 18446744073709551615: none)"));
  mlprog::ExternalStorageCLOptions storageOptions(category);
  mlprog::CompileProgressCLOptions progressOptions(category);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(argc, argv, kOverview);

  mlprog::AotOptions options;
  if (target == "cpu")
    options.target = mlprog::AotTarget::CPU;
  else if (target == "cuda")
    options.target = mlprog::AotTarget::CUDA;
  else
    return reportError("unknown --target '" + target + "' (cpu or cuda)");
  options.triple = triple;
  options.cpu = cpu;
  options.features = attrs;
  options.optLevel = optLevel;
  options.gpuChip = gpuChip;
  options.gpuFeatures = gpuFeatures;
  options.linker = linker;
  options.constantPoolThreshold = poolThreshold;
  // Extern globals' data is embedded in the library.
  options.externalStorage = storageOptions.get(inputFile);
  if (runtimeDir.empty()) {
    static int anchor;
    std::string exe = llvm::sys::fs::getMainExecutable(argv[0], &anchor);
    llvm::SmallString<256> dir(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
    llvm::sys::path::append(dir, "lib");
    options.runtimeDir = dir.str().str();
  } else {
    options.runtimeDir = runtimeDir;
  }

  mlir::DialectRegistry registry;
  mlprog::registerMLProgDialects(registry);
  mlprog::registerGPUDialects(registry);
  mlir::MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlprog::CompileProgress progress("mlprog-compile", progressOptions.progress,
                                   progressOptions.timing);
  options.progress = &progress;
  progress.attachTo(context);
  progress.phase("parsing " + llvm::sys::path::filename(inputFile).str());
  std::string message;
  auto buffer = mlir::openInputFile(inputFile, &message);
  if (!buffer) {
    progress.fail();
    return reportError(inputFile + ": " + message);
  }
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  if (failed(mlprog::checkNestingDepth(sourceMgr, &context)))
    return 1;
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;
  progress.endPhase();
  if (llvm::Error err =
          mlprog::compileToSharedLibrary(*module, output, options)) {
    progress.fail();
    return reportError(inputFile + ": " + toString(std::move(err)));
  }
  progress.finish();
  return 0;
}
