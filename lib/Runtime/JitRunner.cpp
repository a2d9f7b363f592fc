//===- JitRunner.cpp - JIT-compile and run an mlprog module ---------------===//
//
// See JitRunner.h for the calling convention and the ownership rules.
//
//===----------------------------------------------------------------------===//

#include "mlprog/Runtime/JitRunner.h"
#include "MemRefCalls.h"
#include "mlprog-c/Strings.h"
#include "mlprog/Conversion/MLProgramToMemRef/MLProgramToMemRef.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Pipelines/Pipelines.h"
#include "mlprog/Support/ResourceLimits.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace mlir;
using namespace mlprog;
using llvm::Error;
using llvm::Expected;
using namespace mlprog::memref_calls;

/// Checks that the runner can pass or return values of `type`.
static Error checkSupported(Type type, StringRef what, size_t index) {
  bool isValue = isa<RankedTensorType, IntegerType, FloatType, IndexType>(type);
  if (isValue && getResultDType(getElementType(type)))
    return Error::success();
  return llvm::createStringError(
      what + " " + Twine(index) + " has type " + typeToString(type) +
      ", which the runner does not support (ranked tensors or scalars of "
      "i1/i2/i4/i8/i16/i32/i64/index/f16/bf16/f32/f64 and the 8- and 4-bit "
      "floats; ranked tensors of strings)");
}

//===----------------------------------------------------------------------===//
// Entry selection and lowering
//===----------------------------------------------------------------------===//

/// Whether every op in `module` is already in the LLVM dialect (or the
/// OpenMP dialect, which translates to LLVM IR directly).
static bool isLLVMModule(ModuleOp module) {
  WalkResult result = module.getBody()->walk([](Operation *op) {
    return isa<LLVM::LLVMDialect, omp::OpenMPDialect>(op->getDialect())
               ? WalkResult::advance()
               : WalkResult::interrupt();
  });
  return !result.wasInterrupted();
}

/// Whether `module` has OpenMP constructs, i.e. needs libomp at run time.
static bool usesOpenMP(ModuleOp module) {
  return module.getBody()
      ->walk([](Operation *op) {
        return isa<omp::OpenMPDialect>(op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The thread count `requested` (0: MLPROG_NUM_THREADS when it is 1 to
/// kMaxNumThreads, else all cores).
static unsigned getNumThreads(unsigned requested) {
  if (requested > 0)
    return requested;
  if (const char *env = std::getenv("MLPROG_NUM_THREADS")) {
    unsigned value = 0;
    if (!StringRef(env).getAsInteger(10, value) && value > 0 &&
        value <= kMaxNumThreads)
      return value;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

/// Loads the OpenMP runtime the lowered code calls (__kmpc_*) into the
/// process, where the JIT resolves symbols, and sets its thread count.
static Error loadOpenMPRuntime(unsigned numThreads) {
  // Idle threads spin for 1 ms, not libomp's default 200 ms, unless the
  // user chose: from one parallel loop of a call to the next, not between
  // calls (as the AOT library's mlprog_model_run does). libomp reads it
  // when it starts. Spinning threads yield their core (KMP_USE_YIELD=2,
  // unless the user chose), as the AOT library's: see setNumThreads in
  // ModelSupport.c.
  if (!std::getenv("KMP_BLOCKTIME") && !std::getenv("OMP_WAIT_POLICY"))
    ::setenv("KMP_BLOCKTIME", "1", /*overwrite=*/0);
  ::setenv("KMP_USE_YIELD", "2", /*overwrite=*/0);
  std::string message;
  auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
      MLPROG_LIBOMP_PATH, &message);
  if (!library.isValid())
    return llvm::createStringError("cannot load the OpenMP runtime " +
                                   Twine(MLPROG_LIBOMP_PATH) + ": " + message);
  auto *setNumThreads = reinterpret_cast<void (*)(int)>(
      library.getAddressOfSymbol("omp_set_num_threads"));
  if (setNumThreads)
    setNumThreads(static_cast<int>(getNumThreads(numThreads)));
  return Error::success();
}

/// Makes the compiler runtime's helper functions visible to the JIT's symbol
/// lookup: LLVM lowers some conversions to calls (f64 -> f16 truncation is
/// `__truncdfhf2` on x86 without AVX512-FP16), which the process provides
/// through libgcc_s. An executable links it in the global scope; a Python
/// extension module does not, so `mlprog.compile` could not find them.
static void loadCompilerRuntime() {
#ifdef __linux__
  static bool loaded = [] {
    std::string message;
    return llvm::sys::DynamicLibrary::getPermanentLibrary("libgcc_s.so.1",
                                                          &message)
        .isValid();
  }();
  (void)loaded;
#endif
}

/// Finds the entry function (see JitRunnerOptions::entry).
static Expected<FunctionOpInterface> findEntry(ModuleOp module,
                                               StringRef requested) {
  SmallVector<FunctionOpInterface> defined, publicOnes;
  for (auto func : module.getOps<FunctionOpInterface>()) {
    if (func.isExternal())
      continue;
    defined.push_back(func);
    if (SymbolTable::getSymbolVisibility(func) ==
        SymbolTable::Visibility::Public)
      publicOnes.push_back(func);
  }
  auto names = [](ArrayRef<FunctionOpInterface> funcs) {
    std::string result;
    for (auto func : funcs)
      result += (result.empty() ? "@" : ", @") + func.getName().str();
    return result.empty() ? std::string("none") : result;
  };
  StringRef name = requested.empty() ? StringRef("main") : requested;
  for (auto func : defined)
    if (func.getName() == name)
      return func;
  if (!requested.empty())
    return llvm::createStringError(
        "no function @" + requested +
        " with a body (functions: " + names(defined) + ")");
  if (publicOnes.size() == 1)
    return publicOnes.front();
  return llvm::createStringError(
      "cannot choose the entry function: no @main and " +
      Twine(publicOnes.size()) + " public functions (" + names(publicOnes) +
      "); pass --entry");
}

/// The tensor-level signature of `func` as the host sees it: its own type
/// with the values marked `ml_program.unsigned` spelled uiN
/// (getHostSignature), or for an llvm.func the `mlprog.signature` that
/// --mlprog-lower-to-cpu recorded the same way.
static Expected<FunctionType> getSignature(FunctionOpInterface func) {
  if (!isa<LLVM::LLVMFuncOp>(func)) {
    if (FunctionType type = getHostSignature(func))
      return type;
    return llvm::createStringError("@" + func.getName() +
                                   " does not have a builtin function type");
  }
  auto attr = func->getAttrOfType<TypeAttr>(kSignatureAttrName);
  if (attr && isa<FunctionType>(attr.getValue()))
    return cast<FunctionType>(attr.getValue());
  return llvm::createStringError(
      "llvm.func @" + func.getName() + " has no '" + kSignatureAttrName +
      "' attribute, so its tensor types are unknown; run the module before "
      "lowering, or lower it with mlprog-opt --mlprog-lower-to-cpu");
}

/// Lowers `module` to the LLVM dialect with the CPU pipeline.
static Error lowerToLLVM(ModuleOp module, const JitRunnerOptions &options) {
  PassManager pm = PassManager::on<ModuleOp>(module.getContext());
  if (options.progress) {
    mlir::TimingScope &scope = options.progress->phase(
        "lowering (--mlprog-lower-to-cpu, -O" +
        Twine(std::min(options.optLevel, 3u)).str() + ")");
    if (options.progress->collectsTiming())
      pm.enableTiming(scope);
  }
  LowerToCPUOptions pipeline;
  pipeline.optLevel = std::min(options.optLevel, 3u);
  pipeline.targetCPU = options.targetCPU;
  pipeline.targetFeatures = options.targetFeatures;
  buildLowerToCPUPipeline(pm, pipeline);
  if (failed(pm.run(module)))
    return llvm::createStringError("lowering to the LLVM dialect failed");
  if (!isLLVMModule(module))
    return llvm::createStringError(
        "lowering to the LLVM dialect left non-LLVM operations behind");
  return Error::success();
}

/// JIT-compiles an LLVM-dialect module for the host CPU (or the CPU and
/// features of `options`): LLVM's optimizer gets the target machine, so its
/// cost models and vectorizers see the real vector units.
static Expected<std::unique_ptr<ExecutionEngine>>
createEngine(ModuleOp module, const JitRunnerOptions &runnerOptions) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  registerOpenMPDialectTranslation(*module.getContext());

  unsigned optLevel = std::min(runnerOptions.optLevel, 3u);
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return llvm::createStringError("cannot describe the host CPU: " +
                                   toString(builder.takeError()));
  if (!runnerOptions.targetCPU.empty() && runnerOptions.targetCPU != "native")
    builder->setCPU(runnerOptions.targetCPU);
  if (!runnerOptions.targetFeatures.empty()) {
    builder->getFeatures() =
        llvm::SubtargetFeatures(runnerOptions.targetFeatures);
  }
  builder->setCodeGenOptLevel(static_cast<llvm::CodeGenOptLevel>(optLevel));
  auto targetMachine = builder->createTargetMachine();
  if (!targetMachine)
    return llvm::createStringError("cannot create a target machine: " +
                                   toString(targetMachine.takeError()));
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               targetMachine->get());
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = static_cast<llvm::CodeGenOptLevel>(optLevel);
  options.enableGDBNotificationListener = false;
  // MLPROG_PERF_JIT=1 registers the JIT's code with `perf` (perf record
  // -k 1, then perf inject --jit), for profiling compiled models.
  options.enablePerfNotificationListener =
      llvm::StringRef(getenv("MLPROG_PERF_JIT") ? getenv("MLPROG_PERF_JIT")
                                                : "") == "1";
  if (usesOpenMP(module))
    if (Error err = loadOpenMPRuntime(runnerOptions.numThreads))
      return std::move(err);
  loadCompilerRuntime();
  auto engine = ExecutionEngine::create(module, options);
  if (!engine)
    return llvm::createStringError("JIT compilation failed: " +
                                   toString(engine.takeError()));
  // memref.copy of non-contiguous memrefs calls memrefCopy from
  // libmlir_c_runner_utils; resolve it from our own link rather than a path.
  // String tensors call the string runtime (include/mlprog-c/Strings.h,
  // linked into this library), resolved the same way.
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](StringRef name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("memrefCopy", &memrefCopy);
    add("mlprog_string_from_float", &mlprog_string_from_float);
    add("mlprog_string_from_i64", &mlprog_string_from_i64);
    add("mlprog_string_from_u64", &mlprog_string_from_u64);
    add("mlprog_string_from_bool", &mlprog_string_from_bool);
    add("mlprog_string_to_f32", &mlprog_string_to_f32);
    add("mlprog_string_to_f64", &mlprog_string_to_f64);
    add("mlprog_string_to_i64", &mlprog_string_to_i64);
    add("mlprog_string_to_u64", &mlprog_string_to_u64);
    add("mlprog_string_to_bool", &mlprog_string_to_bool);
    add("mlprog_string_lower", &mlprog_string_lower);
    add("mlprog_string_upper", &mlprog_string_upper);
    add("mlprog_string_concat", &mlprog_string_concat);
    add("mlprog_string_split_count", &mlprog_string_split_count);
    add("mlprog_string_split_part", &mlprog_string_split_part);
    add("mlprog_string_equal", &mlprog_string_equal);
    return symbols;
  });
  return engine;
}

/// Refuses a module holding a statically shaped tensor or memref (a value,
/// or a global's type) whose byte size overflows int64 or exceeds
/// getMaxTensorBytes(): compiling it would build or allocate that much.
static Error checkTensorSizes(ModuleOp module) {
  auto check = [](Operation *op, Type type) -> Error {
    auto shaped = dyn_cast<ShapedType>(type);
    if (!shaped || !shaped.hasRank() ||
        !isa<RankedTensorType, MemRefType>(shaped))
      return Error::success();
    Type element = shaped.getElementType();
    uint64_t bits = element.isIntOrIndexOrFloat()
                        ? (element.isIndex()
                               ? 64
                               : std::max(8u, element.getIntOrFloatBitWidth()))
                        : 64;
    SmallVector<int64_t> shape;
    for (int64_t extent : shaped.getShape())
      shape.push_back(ShapedType::isDynamic(extent) ? 0 : extent);
    std::string what;
    llvm::raw_string_ostream os(what);
    if (auto fileLoc = op->getLoc()->findInstanceOf<FileLineColLoc>())
      os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
         << fileLoc.getColumn();
    else
      op->getLoc().print(os);
    os << ": '" << op->getName() << "' " << type;
    if (Expected<uint64_t> bytes = checkTensorByteSize(shape, bits, what);
        !bytes)
      return bytes.takeError();
    return Error::success();
  };
  Error result = Error::success();
  module.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (Error err = check(op, type)) {
        result = std::move(err);
        return WalkResult::interrupt();
      }
    if (isa<SymbolOpInterface>(op))
      for (NamedAttribute attr : op->getAttrs())
        if (auto typeAttr = dyn_cast<TypeAttr>(attr.getValue()))
          if (Error err = check(op, typeAttr.getValue())) {
            result = std::move(err);
            return WalkResult::interrupt();
          }
    return WalkResult::advance();
  });
  return result;
}

/// The compiled code mallocs and frees its activations on every call. With
/// glibc's defaults (a 128 KiB mmap threshold, raised only after a large
/// block is freed, and then to 32 MiB at most) every large buffer is a fresh
/// mmap whose pages fault in again on each call: a quarter of a resnet18
/// batch-1 run, and 95 ms a call for the 206 MB logits of GPT-2 at batch 8
/// (6 ms when the heap's memory is reused). Serve buffers up to 1 GiB from
/// the heap and keep up to 1 GiB of freed memory, unless the user tuned
/// malloc through the environment. Process-wide, once; the same as
/// libmlprog_model_support does for AOT libraries.
static void tuneAllocator() {
#if defined(__GLIBC__)
  static std::once_flag once;
  std::call_once(once, [] {
    if (std::getenv("GLIBC_TUNABLES") ||
        std::getenv("MALLOC_MMAP_THRESHOLD_") ||
        std::getenv("MALLOC_TRIM_THRESHOLD_"))
      return;
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
  });
#endif
}

/// Whether the runner can pass and return the values of `type`.
static Error checkSignature(FunctionType type) {
  for (auto [i, input] : llvm::enumerate(type.getInputs()))
    if (Error err = checkSupported(input, "argument", i))
      return err;
  for (auto [i, result] : llvm::enumerate(type.getResults()))
    if (Error err = checkSupported(result, "result", i))
      return err;
  return Error::success();
}

struct JitRunner::Engine {
  std::shared_ptr<ExternalStorage> externalStorage;
  /// Declared before `engine`, so that the code goes away first.
  std::unique_ptr<ConstantPool> constants;
  std::unique_ptr<ExecutionEngine> engine;
  /// Public functions of the lowered module with their `mlprog.signature`,
  /// in module order.
  std::vector<std::string> names;
  llvm::StringMap<FunctionType> signatures;

  ~Engine() {
    // Free the heap buffers of dynamic mutable globals before the code that
    // manages them goes away (see kReleaseGlobalsFunction).
    if (!engine)
      return;
    auto release = engine->lookupPacked(kReleaseGlobalsFunction);
    if (!release) {
      llvm::consumeError(release.takeError());
      return;
    }
    (*release)(nullptr);
  }
};

Expected<std::unique_ptr<JitRunner>>
JitRunner::bind(std::shared_ptr<Engine> engine, StringRef name,
                FunctionType type) {
  if (Error err = checkSignature(type))
    return std::move(err);
  auto entry = engine->engine->lookupPacked(name);
  if (!entry)
    return llvm::createStringError(
        "cannot find @" + name + " in the JIT: " + toString(entry.takeError()));
  std::unique_ptr<JitRunner> runner(new JitRunner());
  runner->engine = std::move(engine);
  runner->entryName = name.str();
  runner->inputTypes.assign(type.getInputs().begin(), type.getInputs().end());
  runner->resultTypes.assign(type.getResults().begin(),
                             type.getResults().end());
  runner->entry = *entry;
  return runner;
}

/// Registers `addresses` as symbols of `engine`'s JIT.
static void registerAddresses(ExecutionEngine &engine,
                              const llvm::StringMap<void *> &addresses) {
  engine.registerSymbols([&](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const auto &item : addresses)
      symbols[interner(item.getKey())] = {
          llvm::orc::ExecutorAddr::fromPtr(item.getValue()),
          llvm::JITSymbolFlags::Exported};
    return symbols;
  });
}

Expected<std::unique_ptr<JitRunner>>
JitRunner::create(OwningOpRef<ModuleOp> module,
                  const JitRunnerOptions &options) {
  if (!module)
    return llvm::createStringError("no module to run");
  tuneAllocator();
  if (options.numThreads > kMaxNumThreads)
    return llvm::createStringError("--num-threads " +
                                   Twine(options.numThreads) + ": at most " +
                                   Twine(kMaxNumThreads) + " threads");
  if (Error err = CPUTarget::verify(options.targetCPU, options.targetFeatures,
                                    /*triple=*/""))
    return std::move(err);
  if (Error err = verifyTargetAttrs(*module))
    return std::move(err);
  if (Error err = checkTensorSizes(*module))
    return std::move(err);
  bool isLowered = isLLVMModule(*module);
  Expected<FunctionOpInterface> func = findEntry(*module, options.entry);
  if (!func)
    return func.takeError();
  Expected<FunctionType> signature = getSignature(*func);
  if (!signature)
    return signature.takeError();
  if (Error err = checkSignature(*signature))
    return std::move(err);
  std::string entryName = func->getName().str();

  auto shared = std::make_shared<Engine>();
  shared->externalStorage = options.mappedStorage;
  if (!isLowered) {
    // Extern globals are bound by symbol to their mapped data once the
    // lowering has turned them into external declarations.
    if (!shared->externalStorage) {
      auto storage = ExternalStorage::resolve(*module, options.externalStorage);
      if (!storage)
        return storage.takeError();
      (*storage)->inlineConstants(*module,
                                  options.externalStorage.prepackLimit);
      shared->externalStorage = std::move(*storage);
    }
    // A private entry would get internal linkage and vanish from the JIT.
    SymbolTable::setSymbolVisibility(*func, SymbolTable::Visibility::Public);
    if (Error err = lowerToLLVM(*module, options))
      return std::move(err);
  }
  for (auto llvmFunc : module->getOps<LLVM::LLVMFuncOp>()) {
    auto attr = llvmFunc->getAttrOfType<TypeAttr>(kSignatureAttrName);
    if (llvmFunc.isExternal() || !attr || !isa<FunctionType>(attr.getValue()))
      continue;
    shared->names.push_back(llvmFunc.getName().str());
    shared->signatures[llvmFunc.getName()] =
        cast<FunctionType>(attr.getValue());
  }

  // Weights go around LLVM (see ConstantPool.h).
  auto constants =
      ConstantPool::extract(*module, options.constantPoolThreshold);
  if (!constants)
    return constants.takeError();
  shared->constants = std::move(*constants);

  if (options.progress)
    options.progress->phase("JIT compilation (LLVM -O" +
                            Twine(std::min(options.optLevel, 3u)).str() + ")");
  auto engine = createEngine(*module, options);
  if (!engine)
    return engine.takeError();
  shared->engine = std::move(*engine);
  if (!shared->constants->getEntries().empty())
    registerAddresses(*shared->engine, shared->constants->getAddresses());
  if (shared->externalStorage)
    registerAddresses(*shared->engine, shared->externalStorage->getAddresses());
  return bind(std::move(shared), entryName, *signature);
}

JitRunner::~JitRunner() = default;

Expected<std::unique_ptr<JitRunner>> JitRunner::getEntry(StringRef name) const {
  auto it = engine->signatures.find(name);
  if (it == engine->signatures.end()) {
    std::string names;
    for (const std::string &entry : engine->names)
      names += (names.empty() ? "@" : ", @") + entry;
    return llvm::createStringError(
        "no public function @" + name +
        " (functions: " + (names.empty() ? "none" : names) + ")");
  }
  return bind(engine, name, it->second);
}

ArrayRef<std::string> JitRunner::getEntryNames() const { return engine->names; }

//===----------------------------------------------------------------------===//
// Binding inputs
//===----------------------------------------------------------------------===//

Error JitRunner::checkInputs(ArrayRef<HostTensor> inputs) const {
  if (inputs.size() != inputTypes.size())
    return llvm::createStringError("@" + entryName + " expects " +
                                   Twine(inputTypes.size()) +
                                   " input(s), got " + Twine(inputs.size()));
  for (auto [i, pair] : llvm::enumerate(llvm::zip(inputTypes, inputs))) {
    auto [type, tensor] = pair;
    auto tensorType = dyn_cast<RankedTensorType>(type);
    ArrayRef<int64_t> expected =
        tensorType ? tensorType.getShape() : ArrayRef<int64_t>();
    bool matches = isCompatible(getElementType(type), tensor.getDType()) &&
                   expected.size() == tensor.getShape().size();
    for (auto [want, have] : llvm::zip(expected, tensor.getShape()))
      matches &= ShapedType::isDynamic(want) || want == have;
    if (!matches)
      return llvm::createStringError(
          "input " + Twine(i) + ": expected " + typeToString(type) + ", got " +
          getDTypeName(tensor.getDType()) + " array of shape " +
          formatShape(tensor.getShape()));
  }
  return Error::success();
}

Expected<std::vector<HostTensor>> JitRunner::run(ArrayRef<HostTensor> inputs,
                                                 unsigned repeat) {
  if (Error err = checkInputs(inputs))
    return std::move(err);
  std::vector<uint64_t> slots;
  for (auto [type, tensor] : llvm::zip(inputTypes, inputs))
    appendArgument(slots, type, tensor);

  size_t resultSize;
  SmallVector<ResultField> fields = layoutResults(resultTypes, resultSize);
  std::vector<uint64_t> resultStorage(llvm::divideCeil(resultSize, 8) + 1);
  auto *results = reinterpret_cast<uint8_t *>(resultStorage.data());

  // The packed wrapper reads argument i from *packed[i] and stores the
  // result (struct) to *packed.back().
  std::vector<void *> packed;
  for (uint64_t &slot : slots)
    packed.push_back(&slot);
  if (!fields.empty())
    packed.push_back(results);

  for (unsigned i = 1; i < repeat; ++i) {
    entry(packed.data());
    freeResults(fields, results, inputs);
  }
  entry(packed.data());
  return takeResults(fields, results, inputs);
}
