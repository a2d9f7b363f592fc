//===- RunnerMain.cpp - The mlprog-run driver -----------------------------===//

#include "mlprog/Runtime/RunnerMain.h"
#include "mlprog/Formats/Npy.h"
#include "mlprog/Runtime/JitRunner.h"
#include "mlprog/Support/CompileProgress.h"
#include "mlprog/Support/ParseLimits.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
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
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlprog;
namespace cl = llvm::cl;

static constexpr const char *kOverview = R"(mlprog JIT runner

Compiles an mlprog module for the host CPU (--mlprog-lower-to-cpu, then
mlir::ExecutionEngine) and runs one function on NumPy .npy inputs.

FILE is an import-contract module (ml_program.func/global, linalg, tensor,
arith, math on tensors) or one mlprog-opt --mlprog-lower-to-cpu already lowered
to the LLVM dialect. Inputs bind positionally to the entry's arguments and are
checked against its types; a signless MLIR iN accepts intN and uintN arrays,
i1 accepts bool. Results are written as output_0.npy, output_1.npy, ... (iN
as signed intN, i1 as bool). Errors exit with status 1 and write no outputs.

Example:
  mlprog-run model.mlir --input x.npy --output-dir out --print
)";

/// Prints "mlprog-run: error: <message>" and returns the exit status 1.
static int reportError(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "mlprog-run") << message << "\n";
  return 1;
}

/// Prints result `index` with its shape and dtype, then its values.
static void printResult(size_t index, const HostTensor &tensor) {
  llvm::outs() << "output " << index << ": shape "
               << formatShape(tensor.getShape()) << " dtype "
               << getNumpyDTypeName(tensor.getDType()) << "\n";
  printTensor(llvm::outs(), tensor);
  llvm::outs() << "\n";
}

/// Writes DIR/output_i.npy for every result; on failure removes the files
/// already written.
static llvm::Error writeOutputs(llvm::StringRef dir,
                                llvm::ArrayRef<HostTensor> results) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(
        dir + ": cannot create directory: " + ec.message());
  // create_directories accepts an existing file of that name.
  if (!llvm::sys::fs::is_directory(dir))
    return llvm::createStringError(
        dir + ": cannot create directory: a file of that name exists");
  std::vector<std::string> written;
  for (auto [i, tensor] : llvm::enumerate(results)) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "output_" + llvm::Twine(i) + ".npy");
    if (llvm::Error err = writeNpy(path, tensor)) {
      for (const std::string &file : written)
        llvm::sys::fs::remove(file);
      return err;
    }
    written.push_back(path.str().str());
  }
  return llvm::Error::success();
}

/// Parses `file` into `context`; diagnostics go to stderr.
static OwningOpRef<ModuleOp> parseModule(llvm::StringRef file,
                                         MLIRContext &context,
                                         llvm::SourceMgr &sourceMgr,
                                         CompileProgress &progress) {
  std::string message;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(file, &message);
  if (!buffer) {
    progress.fail();
    reportError(file + ": " + message);
    return nullptr;
  }
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  if (failed(checkNestingDepth(sourceMgr, &context)))
    return nullptr;
  return parseSourceFile<ModuleOp>(sourceMgr, &context);
}

std::vector<char *>
mlprog::renameThreadsOption(int argc, char **argv,
                            std::vector<std::string> &storage) {
  storage.clear();
  storage.reserve(argc); // Pointers into it must stay valid.
  std::vector<char *> args(argv, argv + argc);
  for (char *&arg : args) {
    llvm::StringRef text(arg);
    for (llvm::StringRef prefix : {"--threads", "-threads"})
      if (text == prefix || text.starts_with((prefix + "=").str())) {
        storage.push_back("--num-threads" +
                          text.drop_front(prefix.size()).str());
        arg = storage.back().data();
      }
  }
  return args;
}

int mlprog::mlprogRunMain(int argc, char **argv, DialectRegistry &registry) {
  llvm::InitLLVM initLLVM(argc, argv);
  mlprog::registerResourceLimitOptions();
  cl::OptionCategory category("mlprog-run options");
  cl::opt<std::string> inputFile(cl::Positional, cl::Required,
                                 cl::desc("FILE.mlir"), cl::cat(category));
  cl::opt<std::string> entry(
      "entry", cl::value_desc("NAME"), cl::cat(category),
      cl::desc("Function to run (default: main, else the only public one)"));
  cl::list<std::string> inputs(
      "input", cl::value_desc("X.npy"), cl::cat(category),
      cl::desc("A .npy file per argument, in order (repeat the option)"));
  cl::opt<std::string> outputDir(
      "output-dir", cl::value_desc("DIR"), cl::cat(category),
      cl::desc("Write result i to DIR/output_i.npy (DIR is created)"));
  cl::opt<bool> print("print", cl::cat(category),
                      cl::desc("Print each result (shape, dtype, values)"));
  cl::opt<unsigned> repeat(
      "repeat", cl::init(1), cl::value_desc("N"), cl::cat(category),
      cl::desc("Run the entry N times in one engine (globals persist); "
               "outputs are those of the last run"));
  mlprog::ExternalStorageCLOptions storageOptions(category);
  cl::opt<unsigned> optLevel(
      "O", cl::Prefix, cl::init(2), cl::value_desc("N"), cl::cat(category),
      cl::desc("Optimization level 0-3 of the lowering and the JIT (-O2: "
               "tiled, vectorized, multi-threaded contractions)"));
  cl::opt<unsigned> threads(
      "num-threads", cl::init(0), cl::value_desc("N"), cl::cat(category),
      cl::desc("OpenMP threads, also spelled --threads (default: "
               "MLPROG_NUM_THREADS, else all cores)"));
  cl::opt<std::string> mcpu(
      "mcpu", cl::value_desc("CPU"), cl::cat(category),
      cl::desc("CPU to compile for (default: native, the host's)"));
  cl::opt<std::string> mattr(
      "mattr", cl::value_desc("+F1,-F2,..."), cl::cat(category),
      cl::desc("LLVM target features to compile for (default: the host's); "
               "the code runs here, so name only features the host has"));
  cl::opt<uint64_t> poolThreshold(
      "constant-pool-threshold", cl::init(kDefaultConstantPoolThreshold),
      cl::value_desc("BYTES"), cl::cat(category),
      cl::desc("Global initial values of at least this many bytes bypass "
               "LLVM and are bound to the JIT's code from one buffer "
               "(0: all; 18446744073709551615: none, all stay in the IR)"));
  CompileProgressCLOptions progressOptions(category);
  cl::HideUnrelatedOptions(category);
  std::vector<std::string> renamed;
  std::vector<char *> args = renameThreadsOption(argc, argv, renamed);
  cl::ParseCommandLineOptions(static_cast<int>(args.size()), args.data(),
                              kOverview);
  if (repeat == 0)
    return reportError("--repeat must be at least 1");
  if (optLevel > 3)
    return reportError("-O" + llvm::Twine(optLevel.getValue()) +
                       ": the optimization level must be 0, 1, 2 or 3");
  registry.insert<omp::OpenMPDialect>();

  MLIRContext context(registry);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  CompileProgress progress("mlprog-run", progressOptions.progress,
                           progressOptions.timing);
  progress.attachTo(context);
  progress.phase("parsing " + llvm::sys::path::filename(inputFile).str());
  OwningOpRef<ModuleOp> module =
      parseModule(inputFile, context, sourceMgr, progress);
  if (!module)
    return 1;
  progress.endPhase();

  std::vector<HostTensor> arrays;
  for (const std::string &path : inputs) {
    llvm::Expected<HostTensor> array = readNpy(path);
    if (!array)
      return reportError(toString(array.takeError()));
    arrays.push_back(std::move(*array));
  }

  JitRunnerOptions options;
  options.entry = entry;
  options.optLevel = optLevel;
  options.numThreads = threads;
  options.targetCPU = mcpu;
  options.targetFeatures = mattr;
  options.constantPoolThreshold = poolThreshold;
  options.externalStorage = storageOptions.get(inputFile);
  options.progress = &progress;
  auto runner = JitRunner::create(std::move(module), options);
  if (!runner) {
    progress.fail();
    return reportError(inputFile + ": " + toString(runner.takeError()));
  }
  progress.finish();
  auto results = (*runner)->run(arrays, repeat);
  if (!results)
    return reportError(inputFile + ": " + toString(results.takeError()));

  if (!outputDir.empty())
    if (llvm::Error err = writeOutputs(outputDir, *results))
      return reportError(toString(std::move(err)));
  if (print)
    for (auto [i, tensor] : llvm::enumerate(*results))
      printResult(i, tensor);
  return 0;
}
