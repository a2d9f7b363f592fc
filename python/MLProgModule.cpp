//===- MLProgModule.cpp - The mlprog._mlprog Python extension -------------===//
//
// pybind11 bindings over mlprog's C++ API: the importers, MLIR modules with
// pass pipelines, and the JIT runner. The pure-Python layer in
// python/mlprog/__init__.py is the public interface; names here are private.
//
// Every entry point that can fail runs under a `DiagnosticCapture`, which
// collects the MLIR diagnostics of the module's context and turns them into
// one `mlprog.Error` ("file:line:col: error: message" lines, notes included),
// so Python users see the same located messages the command-line tools print.
//
//===----------------------------------------------------------------------===//

#include "DiagnosticError.h"
#include "ExtensionSupport.h"
#include "NumpyConversion.h"

#include "mlprog/Dialect/MLProgram/Transforms/ExternalizeGlobals.h"
#include "mlprog/Formats/Npy.h"
#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/Pipelines.h"
#include "mlprog/Runtime/JitRunner.h"
#include "mlprog/Support/CompileProgress.h"
#include "mlprog/Support/ParseLimits.h"

#ifdef MLPROG_HAVE_ONNX
#include "mlprog/Import/ONNX/ImportONNX.h"
#endif
#ifdef MLPROG_HAVE_MIL
#include "mlprog/Import/MIL/ImportMIL.h"
#endif

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;
using namespace mlir;
using namespace mlprog;
using mlprog::python::createContext;
using mlprog::python::DiagnosticCapture;
using mlprog::python::DiagnosticError;
using mlprog::python::raiseError;
using mlprog::python::toHostTensor;
using mlprog::python::toNumpy;

namespace {

/// An MLIR module with the context that owns it. Each imported model gets
/// its own context, shared with the executables compiled from it.
struct PyModule {
  std::shared_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> module;
  /// Directory that relative external storage paths resolve against: that
  /// of the file the module was loaded from; empty: the current directory.
  std::string baseDirectory;

  PyModule(std::shared_ptr<MLIRContext> context, OwningOpRef<ModuleOp> module)
      : context(std::move(context)), module(std::move(module)) {}
};

/// Names of the public functions with a body, in module order.
static std::vector<std::string> getPublicFunctions(ModuleOp module) {
  std::vector<std::string> names;
  for (auto func : module.getOps<FunctionOpInterface>())
    if (!func.isExternal() && SymbolTable::getSymbolVisibility(func) ==
                                  SymbolTable::Visibility::Public)
      names.push_back(func.getName().str());
  return names;
}

static std::string printModule(PyModule &self, bool debugInfo, bool generic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  OpPrintingFlags flags;
  if (debugInfo)
    flags.enableDebugInfo();
  if (generic)
    flags.printGenericOpForm();
  self.module->print(os, flags);
  return text;
}

/// Parses MLIR text or bytecode held in `buffer`.
static std::unique_ptr<PyModule>
parseModule(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  std::shared_ptr<MLIRContext> ctx = createContext();
  DiagnosticCapture capture(ctx.get());
  OwningOpRef<ModuleOp> module;
  {
    py::gil_scoped_release release;
    auto sourceMgr = std::make_shared<llvm::SourceMgr>();
    sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    ParserConfig config(ctx.get());
    if (succeeded(mlprog::checkNestingDepth(*sourceMgr, ctx.get())))
      module = parseSourceFile<ModuleOp>(sourceMgr, config);
  }
  if (!module)
    capture.raise();
  capture.flush();
  return std::make_unique<PyModule>(ctx, std::move(module));
}

static std::unique_ptr<PyModule> parseText(const std::string &text,
                                           const std::string &name) {
  return parseModule(llvm::MemoryBuffer::getMemBufferCopy(text, name));
}

static std::unique_ptr<PyModule> loadFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buffer)
    throw DiagnosticError("error: cannot read " + path + ": " +
                          buffer.getError().message());
  std::unique_ptr<PyModule> module = parseModule(std::move(*buffer));
  module->baseDirectory = llvm::sys::path::parent_path(path).str();
  return module;
}

/// Runs a textual pass pipeline on a copy of the module and keeps the copy
/// only on success, so a failing pass leaves the module as it was. Accepts
/// "builtin.module(p1,p2)" or the bare list "p1,p2".
static void runPipeline(PyModule &self, const std::string &pipeline) {
  MLIRContext *ctx = self.context.get();
  DiagnosticCapture capture(ctx);
  StringRef text = StringRef(pipeline).trim();
  PassManager pm(ctx, ModuleOp::getOperationName());
  std::string parseErrors;
  llvm::raw_string_ostream errorStream(parseErrors);
  StringRef anchor = "builtin.module(";
  if (text.starts_with(anchor) && text.ends_with(")"))
    text = text.drop_front(anchor.size()).drop_back();
  if (failed(parsePassPipeline(text, pm, errorStream)))
    throw DiagnosticError("error: invalid pass pipeline '" + pipeline +
                          "': " + StringRef(parseErrors).trim().str());

  OwningOpRef<ModuleOp> copy = self.module->clone();
  LogicalResult result = failure();
  {
    py::gil_scoped_release release;
    result = pm.run(*copy);
  }
  if (failed(result))
    capture.raise("error: pass pipeline '" + pipeline + "' failed");
  self.module = std::move(copy);
  capture.flush();
}

static void verifyModule(PyModule &self) {
  DiagnosticCapture capture(self.context.get());
  if (failed(verify(*self.module)))
    capture.raise();
}

/// Writes the module to `path`: MLIR bytecode if the name ends in ".mlirbc",
/// text otherwise. Text moves initial values of at least `weightsThreshold`
/// bytes (when given) into the safetensors bundle `path` with the extension
/// ".safetensors" and names it by file name (mlprog-translate's default);
/// the module itself keeps its weights. Nothing is left behind on failure.
static void saveModule(PyModule &self, const std::string &path, bool debugInfo,
                       std::optional<uint64_t> weightsThreshold) {
  DiagnosticCapture capture(self.context.get());
  bool bytecode = StringRef(path).ends_with(".mlirbc");
  OwningOpRef<ModuleOp> copy;
  ModuleOp toWrite = *self.module;
  if (!bytecode && weightsThreshold) {
    copy = self.module->clone();
    llvm::SmallString<256> bundle(path);
    llvm::sys::path::replace_extension(bundle, "safetensors");
    if (failed(externalizeGlobals(*copy, bundle, *weightsThreshold)))
      capture.raise("error: cannot write the weights of " + path);
    toWrite = *copy;
  }
  std::string message;
  auto file = openOutputFile(path, &message);
  if (!file)
    throw DiagnosticError("error: " + message);
  if (bytecode) {
    if (failed(writeBytecodeToFile(toWrite, file->os())))
      throw DiagnosticError("error: cannot write bytecode to " + path);
  } else {
    OpPrintingFlags flags;
    if (debugInfo)
      flags.enableDebugInfo();
    toWrite.print(file->os(), flags);
  }
  file->os().flush();
  if (file->os().has_error())
    throw DiagnosticError("error: cannot write " + path + ": " +
                          file->os().error().message());
  file->keep();
  capture.flush();
}

//===----------------------------------------------------------------------===//
// Importers
//===----------------------------------------------------------------------===//

/// Runs `import(ctx)` under a diagnostic capture with the GIL released and
/// wraps the result; raises the diagnostics when it returns null.
template <typename ImportFn>
static std::unique_ptr<PyModule> runImport(ImportFn &&import,
                                           const std::string &what) {
  std::shared_ptr<MLIRContext> ctx = createContext();
  DiagnosticCapture capture(ctx.get());
  OwningOpRef<ModuleOp> module;
  {
    py::gil_scoped_release release;
    module = import(ctx.get());
  }
  if (!module)
    capture.raise("error: cannot import " + what);
  capture.flush();
  return std::make_unique<PyModule>(ctx, std::move(module));
}

#ifdef MLPROG_HAVE_ONNX
/// A state binding from Python: input, output, initial shape or None.
using PyStateBinding =
    std::tuple<std::string, std::string, std::optional<std::vector<int64_t>>>;

/// Input shapes from Python: lists of extents, None for an unknown one.
using PyShapes = std::vector<std::vector<std::optional<int64_t>>>;

/// The ONNX import options of `state` (the `--state` text), `bindings`,
/// `weightsDir` and `shapes` (`--input-shapes`).
using PyConstants = std::vector<std::pair<std::string, std::string>>;

static ONNXImportOptions
getONNXImportOptions(const std::string &state,
                     const std::vector<PyStateBinding> &bindings,
                     const std::string &weightsDir, const PyShapes &shapes,
                     const PyConstants &constants) {
  ONNXImportOptions options;
  options.constantInputs = constants;
  options.weightsDir = weightsDir;
  for (const auto &shape : shapes) {
    std::vector<int64_t> extents;
    for (std::optional<int64_t> extent : shape) {
      if (extent && *extent < 0)
        throw DiagnosticError("error: input_shapes: extent " +
                              std::to_string(*extent) + " is negative");
      extents.push_back(extent ? *extent : ShapedType::kDynamic);
    }
    options.inputShapes.push_back(std::move(extents));
  }
  if (llvm::Error error = parseONNXStateOption(state, options))
    throw DiagnosticError("error: " + llvm::toString(std::move(error)));
  for (const auto &[input, output, shape] : bindings)
    options.state.push_back({input, output, shape});
  return options;
}

static std::unique_ptr<PyModule>
importONNXFile(const std::string &path, const std::string &state,
               const std::vector<PyStateBinding> &bindings,
               const std::string &weightsDir, const PyShapes &shapes,
               const PyConstants &constants) {
  // importONNX reads stdin for "-"; Python callers always mean a file.
  std::string file = path == "-" ? "./-" : path;
  ONNXImportOptions options =
      getONNXImportOptions(state, bindings, weightsDir, shapes, constants);
  return runImport(
      [&](MLIRContext *ctx) { return mlprog::importONNX(file, ctx, options); },
      path);
}

static std::unique_ptr<PyModule> importONNXBytes(
    const py::bytes &data, const std::string &name, const std::string &state,
    const std::vector<PyStateBinding> &bindings, const std::string &weightsDir,
    const PyShapes &shapes, const PyConstants &constants) {
  std::string bytes = data; // Copied under the GIL.
  ONNXImportOptions options =
      getONNXImportOptions(state, bindings, weightsDir, shapes, constants);
  return runImport(
      [&](MLIRContext *ctx) {
        auto buffer = llvm::MemoryBuffer::getMemBuffer(bytes, name, false);
        return mlprog::importONNX(*buffer, ctx, options);
      },
      name);
}
#endif

#ifdef MLPROG_HAVE_MIL
static std::unique_ptr<PyModule> importMILFile(const std::string &path,
                                               const std::string &opset,
                                               const std::string &weightsDir) {
  MILImportOptions options;
  options.opset = opset;
  options.weightsDir = weightsDir;
  return runImport(
      [&](MLIRContext *ctx) { return mlprog::importMIL(path, ctx, options); },
      path);
}
#endif

//===----------------------------------------------------------------------===//
// Executables
//===----------------------------------------------------------------------===//

static std::string typeToString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// A module lowered once for the CPU and JIT-compiled once, on the first
/// call (or at creation for the default entry): every public function is a
/// `JitRunner` entry of that one engine, so they share the module's mutable
/// globals (a `reset` function clears the state `forward` keeps). Another
/// executable compiled from the same module has its own engine and state.
/// Members are destroyed in reverse order: runners, module, then context.
class PyExecutable {
public:
  PyExecutable(std::shared_ptr<MLIRContext> context,
               OwningOpRef<ModuleOp> lowered, unsigned optLevel,
               std::shared_ptr<ExternalStorage> storage)
      : context(std::move(context)), lowered(std::move(lowered)),
        optLevel(optLevel), storage(std::move(storage)) {
    for (auto func : this->lowered->getOps<LLVM::LLVMFuncOp>()) {
      auto signature = func->getAttrOfType<TypeAttr>(kSignatureAttrName);
      if (func.isExternal() || !signature)
        continue;
      functions.push_back(func.getName().str());
      signatures[func.getName()] = cast<FunctionType>(signature.getValue());
    }
  }

  const std::vector<std::string> &getFunctions() const { return functions; }

  FunctionType getSignature(const std::string &name) {
    auto it = signatures.find(name);
    if (it == signatures.end()) {
      std::string names;
      for (const std::string &function : functions)
        names += (names.empty() ? "@" : ", @") + function;
      throw DiagnosticError("error: no public function @" + name +
                            " (functions: " + (names.empty() ? "none" : names) +
                            ")");
    }
    return it->second;
  }

  /// The runner of `name`: the first one JIT-compiles the module (a phase
  /// of `progress` when given), the others are entries of the same engine.
  JitRunner &getRunner(const std::string &name,
                       CompileProgress *progress = nullptr) {
    getSignature(name);
    std::unique_ptr<JitRunner> &runner = runners[name];
    if (runner)
      return *runner;
    DiagnosticCapture capture(context.get());
    std::optional<llvm::Expected<std::unique_ptr<JitRunner>>> created;
    if (firstRunner) {
      created.emplace(firstRunner->getEntry(name));
    } else {
      JitRunnerOptions options;
      options.entry = name;
      options.optLevel = optLevel;
      options.mappedStorage = storage;
      options.progress = progress;
      // The lowered module is kept for the signatures; the engine compiles a
      // copy.
      OwningOpRef<ModuleOp> copy = lowered->clone();
      py::gil_scoped_release release;
      created.emplace(JitRunner::create(std::move(copy), options));
    }
    if (!*created)
      raiseError(capture, created->takeError());
    runner = std::move(**created);
    if (!firstRunner)
      firstRunner = runner.get();
    return *runner;
  }

  /// Calls `name` on `args` and returns its results as numpy arrays.
  py::list call(const std::string &name, const py::sequence &args) {
    JitRunner &runner = getRunner(name);
    std::vector<HostTensor> inputs;
    std::vector<py::array> keepAlive;
    for (size_t i = 0, e = py::len(args); i < e; ++i)
      inputs.push_back(toHostTensor(args[i], i, keepAlive));
    std::optional<llvm::Expected<std::vector<HostTensor>>> results;
    {
      py::gil_scoped_release release;
      results.emplace(runner.run(inputs));
    }
    if (!*results)
      throw DiagnosticError("error: @" + name + ": " +
                            llvm::toString(results->takeError()));
    py::list arrays;
    for (auto [i, tensor] : llvm::enumerate(**results))
      arrays.append(toNumpy(std::move(tensor), i));
    return arrays;
  }

private:
  std::shared_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> lowered;
  unsigned optLevel;
  /// The memory-mapped data of extern globals, bound in every runner.
  std::shared_ptr<ExternalStorage> storage;
  std::vector<std::string> functions;
  llvm::StringMap<FunctionType> signatures;
  llvm::StringMap<std::unique_ptr<JitRunner>> runners;
  /// The runner that created the engine (owned by `runners`).
  JitRunner *firstRunner = nullptr;
};

/// Whether every op in `module` is in the LLVM dialect (or OpenMP, which
/// the -O2 pipeline leaves for translation).
static bool isLLVMModule(ModuleOp module) {
  WalkResult result = module.getBody()->walk([](Operation *op) {
    return isa<LLVM::LLVMDialect>(op->getDialect()) ||
                   op->getDialect()->getNamespace() == "omp"
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Lowers a copy of `module` with --mlprog-lower-to-cpu and JIT-compiles its
/// default entry (@main, else @forward, else the only public function) if it
/// has one.
static std::unique_ptr<PyExecutable>
compileModule(PyModule &module, const std::string &target, int optLevel,
              const std::string &progressMode, bool timing) {
  if (target != "cpu")
    throw DiagnosticError("error: unsupported target '" + target +
                          "' (available: cpu)");
  if (optLevel < 0 || optLevel > 3)
    throw DiagnosticError("error: opt_level must be 0, 1, 2 or 3, got " +
                          std::to_string(optLevel));
  ProgressMode mode = progressMode == "always"  ? ProgressMode::Always
                      : progressMode == "never" ? ProgressMode::Never
                                                : ProgressMode::Auto;
  CompileProgress progress("mlprog.compile", mode, timing);
  MLIRContext *ctx = module.context.get();
  DiagnosticCapture capture(ctx);
  OwningOpRef<ModuleOp> lowered = module.module->clone();
  // A module already lowered (run_pipeline("mlprog-lower-to-cpu")) is used
  // as it is.
  LogicalResult result = success();
  std::shared_ptr<ExternalStorage> storage;
  if (!isLLVMModule(*lowered)) {
    // Map extern globals' files while the module still names them;
    // relative paths resolve against the directory of the file the module
    // was loaded from, else the current directory.
    ExternalStorageOptions options;
    options.baseDirectory = module.baseDirectory;
    auto mapped = ExternalStorage::resolve(*lowered, options);
    if (!mapped)
      throw DiagnosticError("error: " + llvm::toString(mapped.takeError()));
    storage = std::move(*mapped);
    storage->inlineConstants(*lowered, options.prepackLimit);
    py::gil_scoped_release release;
    PassManager pm = PassManager::on<ModuleOp>(ctx);
    // The lowering runs at the same level as the JIT, as in mlprog-run.
    LowerToCPUOptions cpu;
    cpu.optLevel = static_cast<unsigned>(optLevel);
    TimingScope &scope = progress.phase("lowering (--mlprog-lower-to-cpu, -O" +
                                        std::to_string(optLevel) + ")");
    if (progress.collectsTiming())
      pm.enableTiming(scope);
    buildLowerToCPUPipeline(pm, cpu);
    result = pm.run(*lowered);
  }
  if (failed(result))
    capture.raise("error: lowering to the LLVM dialect failed");
  capture.flush();

  auto executable = std::make_unique<PyExecutable>(
      module.context, std::move(lowered), static_cast<unsigned>(optLevel),
      std::move(storage));
  const std::vector<std::string> &names = executable->getFunctions();
  if (llvm::is_contained(names, "main"))
    executable->getRunner("main", &progress);
  else if (llvm::is_contained(names, "forward"))
    executable->getRunner("forward", &progress);
  else if (names.size() == 1)
    executable->getRunner(names.front(), &progress);
  progress.finish();
  return executable;
}

/// Type strings and numpy dtype names of `name`'s arguments and results.
static py::dict describeFunction(PyExecutable &self, const std::string &name) {
  FunctionType type = self.getSignature(name);
  auto describe = [](TypeRange types) {
    py::list list;
    for (Type type : types) {
      Type elementType = type;
      if (auto tensorType = dyn_cast<RankedTensorType>(type))
        elementType = tensorType.getElementType();
      std::optional<DType> dtype = getResultDType(elementType);
      py::object shape = py::none();
      if (auto tensorType = dyn_cast<RankedTensorType>(type)) {
        py::list extents;
        for (int64_t extent : tensorType.getShape())
          extents.append(ShapedType::isDynamic(extent) ? py::object(py::none())
                                                       : py::int_(extent));
        shape = py::tuple(extents);
      } else {
        shape = py::tuple();
      }
      py::dict entry;
      entry["type"] = typeToString(type);
      entry["shape"] = shape;
      entry["dtype"] =
          dtype ? py::object(py::str(getNumpyDTypeName(*dtype).str()))
                : py::object(py::none());
      list.append(entry);
    }
    return list;
  };
  py::dict result;
  result["inputs"] = describe(type.getInputs());
  result["results"] = describe(type.getResults());
  result["type"] = typeToString(type);
  return result;
}

} // namespace

//===----------------------------------------------------------------------===//
// The module
//===----------------------------------------------------------------------===//

PYBIND11_MODULE(_mlprog, m) {
  m.doc() = "mlprog C++ bindings (private; use the mlprog package)";
  registerMLProgPasses();

  // mlprog.Error, with the diagnostics also as a list.
  py::handle errorType = py::exception<DiagnosticError>(m, "Error").release();
  errorType.attr("__module__") = "mlprog";
  mlprog::python::registerErrorTranslator(errorType);

  py::class_<PyModule>(m, "Module")
      .def("to_string", &printModule, py::arg("debug_info") = false,
           py::arg("generic") = false)
      .def("run_pipeline", &runPipeline, py::arg("pipeline"))
      .def("verify", &verifyModule)
      .def("save", &saveModule, py::arg("path"), py::arg("debug_info") = false,
           py::arg("weights_threshold") = std::nullopt)
      .def("clone",
           [](PyModule &self) {
             auto copy = std::make_unique<PyModule>(
                 self.context, OwningOpRef<ModuleOp>(self.module->clone()));
             copy->baseDirectory = self.baseDirectory;
             return copy;
           })
      .def_property_readonly("functions", [](PyModule &self) {
        return getPublicFunctions(*self.module);
      });

  py::class_<PyExecutable>(m, "Executable")
      .def_property_readonly("functions", &PyExecutable::getFunctions)
      .def("describe", &describeFunction, py::arg("name"))
      .def("call", &PyExecutable::call, py::arg("name"), py::arg("args"));

  m.def("parse", &parseText, py::arg("text"), py::arg("name") = "<string>");
  m.def("load", &loadFile, py::arg("path"));
  m.def("compile", &compileModule, py::arg("module"), py::arg("target"),
        py::arg("opt_level"), py::arg("progress") = "auto",
        py::arg("timing") = false);

  m.attr("have_onnx") = false;
  m.attr("have_mil") = false;
#ifdef MLPROG_HAVE_ONNX
  m.attr("have_onnx") = true;
  m.def("import_onnx_file", &importONNXFile, py::arg("path"),
        py::arg("state") = "",
        py::arg("state_bindings") = std::vector<PyStateBinding>(),
        py::arg("weights_dir") = "", py::arg("input_shapes") = PyShapes(),
        py::arg("constant_inputs") = PyConstants());
  m.def("import_onnx_bytes", &importONNXBytes, py::arg("data"), py::arg("name"),
        py::arg("state") = "",
        py::arg("state_bindings") = std::vector<PyStateBinding>(),
        py::arg("weights_dir") = "", py::arg("input_shapes") = PyShapes(),
        py::arg("constant_inputs") = PyConstants());
#endif
#ifdef MLPROG_HAVE_MIL
  m.attr("have_mil") = true;
  m.def("import_mil_file", &importMILFile, py::arg("path"), py::arg("opset"),
        py::arg("weights_dir") = "");
#endif
}
