//===- AotCompiler.cpp - Compile a module to a shared library -------------===//
//
// See AotCompiler.h. The library is the compiled module, a packed wrapper per
// entry point (the calling convention of ExecutionEngine's `_mlir_<name>`,
// documented in ModelSupport.c), a table `__mlprog_model` describing the
// entry points, and two static archives built with mlprog: the C ABI
// (libmlprog_model_support.a) and, for CUDA, the mgpu* runtime
// (libmlprog_cuda_runtime.a).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Compiler/AotCompiler.h"
#include "mlprog/Conversion/MLProgramToMemRef/MLProgramToMemRef.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Pipelines/CPU/CPUTarget.h"
#include "mlprog/Pipelines/GPUPipeline.h"
#include "mlprog/Pipelines/Passes.h"
#include "mlprog/Pipelines/Pipelines.h"
#include "mlprog/Runtime/ConstantPool.h"
#include "mlprog/Runtime/JitRunner.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace mlprog;
using llvm::Error;

/// The ABI version of include/mlprog-c/Model.h.
static constexpr int32_t kAbiVersion = 2;
/// mlprog_value_type flags.
static constexpr int32_t kValueTensor = 1, kValueSignless = 2;

static std::string typeToString(Type type) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << type;
  return result;
}

/// Whether `module` is already lowered (LLVM dialect plus GPU binaries).
static bool isLowered(ModuleOp module) {
  for (Operation &op : module.getBody()->getOperations())
    if (!isa<LLVM::LLVMDialect>(op.getDialect()) &&
        !isa<gpu::BinaryOp, gpu::GPUModuleOp>(op))
      return false;
  return true;
}

/// Whether `module` has OpenMP constructs (the -O2 CPU pipeline's parallel
/// loops), i.e. the library needs libomp.
static bool usesOpenMP(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<omp::OpenMPDialect>(op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Starts phase `name` of `options.progress`, if any.
static void startPhase(const AotOptions &options, const Twine &name) {
  if (options.progress)
    options.progress->phase(name.str());
}

static Error lower(ModuleOp module, const AotOptions &options) {
  PassManager pm = PassManager::on<ModuleOp>(module.getContext());
  if (options.progress) {
    std::string name =
        options.target == AotTarget::CPU
            ? "lowering (--mlprog-lower-to-cpu, -O" +
                  std::to_string(std::min(options.optLevel, 3u)) + ")"
            : "lowering (--mlprog-lower-to-gpu, " + options.gpuChip + ")";
    mlir::TimingScope &scope = options.progress->phase(name);
    if (options.progress->collectsTiming())
      pm.enableTiming(scope);
  }
  if (options.target == AotTarget::CPU) {
    // Register tiles are sized for the CPU the library is compiled for.
    LowerToCPUOptions cpu;
    cpu.optLevel = std::min(options.optLevel, 3u);
    cpu.targetCPU = options.cpu;
    cpu.targetFeatures = options.features;
    buildLowerToCPUPipeline(pm, cpu);
  } else {
    LowerToGPUOptions gpu;
    gpu.chip = options.gpuChip;
    gpu.features = options.gpuFeatures;
    if (Error error = resolveGPUTarget(gpu))
      return error;
    buildLowerToGPUPipeline(pm, gpu);
  }
  if (failed(pm.run(module)))
    return llvm::createStringError("lowering failed");
  if (!isLowered(module))
    return llvm::createStringError("lowering left non-LLVM operations behind");
  return Error::success();
}

namespace {
/// What the table records about one entry point.
struct EntryInfo {
  std::string name;
  FunctionType signature;
};
} // namespace

namespace {
/// One global of the state table (see --mlprog-per-instance-state).
struct StateInfo {
  std::string global, slot, initial;
};
} // namespace

/// Runs --mlprog-per-instance-state on the lowered CPU `module` and returns
/// what it recorded: the per-instance globals and the number of shared ones.
static llvm::Expected<std::pair<std::vector<StateInfo>, int32_t>>
indirectState(ModuleOp module) {
  PassManager pm = PassManager::on<ModuleOp>(module.getContext());
  pm.addPass(createPerInstanceStatePass());
  if (failed(pm.run(module)))
    return llvm::createStringError("--mlprog-per-instance-state failed");
  std::vector<StateInfo> state;
  auto name = [](DictionaryAttr entry, StringRef key) {
    auto ref = entry.getAs<FlatSymbolRefAttr>(key);
    return ref ? ref.getValue().str() : std::string();
  };
  if (auto entries = module->getAttrOfType<ArrayAttr>(kInstanceStateAttrName))
    for (auto entry : entries.getAsRange<DictionaryAttr>())
      state.push_back(
          {name(entry, "global"), name(entry, "slot"), name(entry, "initial")});
  auto shared = module->getAttrOfType<ArrayAttr>(kSharedStateAttrName);
  return std::make_pair(std::move(state),
                        shared ? int32_t(shared.size()) : int32_t(0));
}

/// Public functions with a recorded tensor signature, checked against what
/// the C ABI can pass.
static llvm::Expected<std::vector<EntryInfo>> collectEntries(ModuleOp module) {
  std::vector<EntryInfo> entries;
  for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
    if (func.isExternal() || func.getLinkage() != LLVM::Linkage::External)
      continue;
    auto attr = func->getAttrOfType<TypeAttr>(kSignatureAttrName);
    if (!attr || !isa<FunctionType>(attr.getValue()))
      continue;
    auto signature = cast<FunctionType>(attr.getValue());
    auto check = [&](Type type, StringRef what, size_t i) -> Error {
      Type element = type;
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        element = tensor.getElementType();
      else if (!isa<IntegerType, FloatType, IndexType>(type))
        element = nullptr;
      if (isa_and_present<StringType>(element))
        return llvm::createStringError(
            "@" + func.getName() + ": " + what + " " + Twine(i) +
            " is a tensor of strings (" + typeToString(type) +
            "), which the C ABI does not support yet; run the model with "
            "mlprog-run or the Python package");
      if (element && getResultDType(element))
        return Error::success();
      return llvm::createStringError(
          "@" + func.getName() + ": " + what + " " + Twine(i) + " has type " +
          typeToString(type) +
          ", which the C ABI does not support (ranked tensors or scalars of "
          "i1/i2/i4/i8/i16/i32/i64/index/f16/bf16/f32/f64 and the 8- and "
          "4-bit floats)");
    };
    for (auto [i, type] : llvm::enumerate(signature.getInputs()))
      if (Error err = check(type, "argument", i))
        return std::move(err);
    for (auto [i, type] : llvm::enumerate(signature.getResults()))
      if (Error err = check(type, "result", i))
        return std::move(err);
    entries.push_back({func.getName().str(), signature});
  }
  if (entries.empty())
    return llvm::createStringError(
        "the module has no public function to export");
  return entries;
}

/// Refuses external globals that nothing defines: the library must carry
/// the data of every global (`pool` defines those it holds).
static Error checkExternalGlobals(ModuleOp module, const ConstantPool *pool) {
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    if (global.getLinkage() != LLVM::Linkage::External ||
        global.getValueOrNull() || !global.getInitializerRegion().empty() ||
        (pool && pool->getAddresses().count(global.getSymName())))
      continue;
    return llvm::createStringError(
        "global @" + global.getSymName() +
        " is external and its data cannot be embedded (an extern global of "
        "a module lowered elsewhere, one that is not a statically shaped "
        "array of int/float elements, or a non-ELF target); use mlprog-run, "
        "or compile the import-contract module");
  }
  return Error::success();
}

/// `void __mlprog_packed_<name>(void **args)`: loads each LLVM argument of
/// `func` from *args[i], calls it and stores the result to *args[n].
static llvm::Function *createPackedWrapper(llvm::Function *func) {
  llvm::Module &module = *func->getParent();
  llvm::LLVMContext &context = module.getContext();
  auto *ptrType = llvm::PointerType::getUnqual(context);
  auto *wrapper = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {ptrType}, false),
      llvm::GlobalValue::InternalLinkage, "__mlprog_packed_" + func->getName(),
      module);
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(context, "entry", wrapper));
  llvm::Value *packed = wrapper->getArg(0);
  SmallVector<llvm::Value *> args;
  for (auto [i, arg] : llvm::enumerate(func->args())) {
    llvm::Value *slot = builder.CreateLoad(
        ptrType, builder.CreateConstGEP1_64(ptrType, packed, i));
    args.push_back(builder.CreateLoad(arg.getType(), slot));
  }
  llvm::Value *result = builder.CreateCall(func, args);
  if (!result->getType()->isVoidTy()) {
    llvm::Value *slot = builder.CreateLoad(
        ptrType, builder.CreateConstGEP1_64(ptrType, packed, func->arg_size()));
    builder.CreateStore(result, slot);
  }
  builder.CreateRetVoid();
  return wrapper;
}

namespace {
/// Builds the constant table ModelSupport.c reads (layouts as in its
/// mlprog_internal_* structs).
class TableBuilder {
public:
  explicit TableBuilder(llvm::Module &module)
      : module(module), context(module.getContext()),
        i32(llvm::Type::getInt32Ty(context)),
        i64(llvm::Type::getInt64Ty(context)),
        ptr(llvm::PointerType::getUnqual(context)),
        valueType(llvm::StructType::get(context, {i32, i32, i32, i32, ptr})),
        entryType(
            llvm::StructType::get(context, {ptr, i32, i32, ptr, ptr, ptr})),
        stateType(llvm::StructType::get(context, {ptr, ptr, ptr, i64, i64})),
        modelType(
            llvm::StructType::get(context, {i32, i32, i32, i32, ptr, ptr, ptr,
                                            ptr, ptr, ptr, i32, i32})) {}

  llvm::Constant *privateConstant(llvm::Constant *init, const Twine &name) {
    return new llvm::GlobalVariable(
        module, init->getType(), /*isConstant=*/true,
        llvm::GlobalValue::PrivateLinkage, init, name);
  }

  llvm::Constant *valueTypes(ArrayRef<Type> types, const Twine &name) {
    if (types.empty())
      return llvm::ConstantPointerNull::get(ptr);
    SmallVector<llvm::Constant *> values;
    for (auto [i, type] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      Type element = tensor ? tensor.getElementType() : type;
      int32_t flags = tensor ? kValueTensor : 0;
      auto intType = dyn_cast<IntegerType>(element);
      if (intType && intType.isSignless() && intType.getWidth() != 1)
        flags |= kValueSignless;
      llvm::Constant *shape = llvm::ConstantPointerNull::get(ptr);
      if (tensor && tensor.getRank() > 0) {
        SmallVector<uint64_t> sizes;
        for (int64_t size : tensor.getShape())
          sizes.push_back(ShapedType::isDynamic(size) ? uint64_t(-1) : size);
        shape = privateConstant(llvm::ConstantDataArray::get(context, sizes),
                                name + "_shape" + Twine(i));
      }
      values.push_back(llvm::ConstantStruct::get(
          valueType,
          {llvm::ConstantInt::get(i32, int(*getResultDType(element))),
           llvm::ConstantInt::get(i32, tensor ? tensor.getRank() : 0),
           llvm::ConstantInt::get(i32, flags), llvm::ConstantInt::get(i32, 0),
           shape}));
    }
    return privateConstant(
        llvm::ConstantArray::get(llvm::ArrayType::get(valueType, values.size()),
                                 values),
        name);
  }

  llvm::Constant *function(StringRef name, llvm::Type *result,
                           ArrayRef<llvm::Type *> params) {
    return llvm::cast<llvm::Constant>(
        module
            .getOrInsertFunction(name,
                                 llvm::FunctionType::get(result, params, false))
            .getCallee());
  }

  /// The state table (mlprog_internal_state in ModelSupport.c): per
  /// global, its slot, its initial bytes (null: zeros), its own storage
  /// (the library's default instance), its size and alignment in bytes.
  llvm::Expected<llvm::Constant *> stateTable(ArrayRef<StateInfo> state) {
    if (state.empty())
      return llvm::ConstantPointerNull::get(ptr);
    SmallVector<llvm::Constant *> values;
    for (const StateInfo &info : state) {
      llvm::GlobalVariable *global = module.getNamedGlobal(info.global);
      llvm::GlobalVariable *slot = module.getNamedGlobal(info.slot);
      llvm::GlobalVariable *initial =
          info.initial.empty() ? nullptr : module.getNamedGlobal(info.initial);
      if (!global || !slot || (!info.initial.empty() && !initial))
        return llvm::createStringError("state global @" + info.global +
                                       " vanished in the translation");
      uint64_t alignment =
          std::max<uint64_t>(global->getAlign().valueOrOne().value(), 16);
      values.push_back(llvm::ConstantStruct::get(
          stateType,
          {slot,
           initial ? static_cast<llvm::Constant *>(initial)
                   : llvm::ConstantPointerNull::get(ptr),
           global, llvm::ConstantExpr::getSizeOf(global->getValueType()),
           llvm::ConstantInt::get(i64, alignment)}));
    }
    return privateConstant(
        llvm::ConstantArray::get(llvm::ArrayType::get(stateType, values.size()),
                                 values),
        "__mlprog_state");
  }

  llvm::Error emit(ArrayRef<EntryInfo> entries,
                   ArrayRef<llvm::Function *> wrappers, AotTarget target,
                   ArrayRef<StateInfo> state, int32_t numSharedState) {
    SmallVector<llvm::Constant *> values;
    for (auto [i, entry] : llvm::enumerate(entries)) {
      std::string prefix = "__mlprog_entry" + std::to_string(i);
      llvm::Constant *name = privateConstant(
          llvm::ConstantDataArray::getString(context, entry.name),
          prefix + "_name");
      values.push_back(llvm::ConstantStruct::get(
          entryType,
          {name, llvm::ConstantInt::get(i32, entry.signature.getNumInputs()),
           llvm::ConstantInt::get(i32, entry.signature.getNumResults()),
           valueTypes(entry.signature.getInputs(), prefix + "_inputs"),
           valueTypes(entry.signature.getResults(), prefix + "_results"),
           wrappers[i]}));
    }
    llvm::Constant *table = privateConstant(
        llvm::ConstantArray::get(llvm::ArrayType::get(entryType, values.size()),
                                 values),
        "__mlprog_entries");
    llvm::Constant *null = llvm::ConstantPointerNull::get(ptr);
    llvm::Constant *prepare = null, *alloc = null, *release = null;
    if (target == AotTarget::CUDA) {
      auto *sizeType = i64;
      prepare = function("mlprog_cuda_prepare", i32, {ptr, sizeType});
      alloc = function("mlprog_cuda_alloc_shared", ptr, {sizeType});
      release =
          function("mlprog_cuda_free", llvm::Type::getVoidTy(context), {ptr});
    }
    auto stateArray = stateTable(state);
    if (!stateArray)
      return stateArray.takeError();
    llvm::Constant *releaseState = null;
    if (llvm::Function *func = module.getFunction(kReleaseGlobalsFunction))
      releaseState = func;
    auto *model = new llvm::GlobalVariable(
        module, modelType, /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage,
        llvm::ConstantStruct::get(
            modelType,
            {llvm::ConstantInt::get(i32, kAbiVersion),
             llvm::ConstantInt::get(i32, target == AotTarget::CUDA ? 1 : 0),
             llvm::ConstantInt::get(i32, entries.size()),
             llvm::ConstantInt::get(i32, 0), table, prepare, alloc, release,
             *stateArray, releaseState,
             llvm::ConstantInt::get(i32, state.size()),
             llvm::ConstantInt::get(i32, numSharedState)}),
        "__mlprog_model");
    model->setVisibility(llvm::GlobalValue::HiddenVisibility);
    return llvm::Error::success();
  }

private:
  llvm::Module &module;
  llvm::LLVMContext &context;
  llvm::Type *i32, *i64;
  llvm::PointerType *ptr;
  llvm::StructType *valueType, *entryType, *stateType, *modelType;
};
} // namespace

/// Defines the globals of `pool` in `module`. The constant globals and the
/// writable ones each go to a temporary file of their own (their paths are
/// appended to `poolPaths`, for the caller to remove), laid out at offsets
/// that keep each global's alignment, and module-level assembly copies each
/// file with ONE `.incbin` into a read-only or writable section, defining
/// every global as a symbol at its offset there. The assembler copies the
/// bytes as a block, where LLVM would have built and emitted a constant per
/// element; one `.incbin` per file matters because the assembler keeps a
/// copy of the whole file per directive (one per global took BERT-base's
/// compilation past 23 GB). The declarations become hidden and dso_local:
/// they are defined in the same object, and not exported.
static Error addPoolSections(llvm::Module &module, const ConstantPool &pool,
                             SmallVectorImpl<SmallString<256>> &poolPaths) {
  std::string text;
  llvm::raw_string_ostream os(text);
  ArrayRef<char> buffer = pool.getBuffer();
  for (bool constant : {true, false}) {
    SmallVector<const ConstantPool::Entry *> entries;
    uint64_t maxAlignment = 1;
    for (const ConstantPool::Entry &entry : pool.getEntries()) {
      if (entry.isConstant != constant)
        continue;
      entries.push_back(&entry);
      maxAlignment = std::max<uint64_t>(maxAlignment, entry.alignment);
    }
    if (entries.empty())
      continue;
    SmallString<256> &path = poolPaths.emplace_back();
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "mlprog-weights", "bin", fd, path))
      return llvm::createStringError("cannot create a temporary file: " +
                                     ec.message());
    if (StringRef(path).contains('\\') || StringRef(path).contains('"'))
      return llvm::createStringError("temporary file name " + path +
                                     " cannot be quoted in assembly");
    StringRef section = constant ? ".rodata" : ".data";
    std::string label =
        (Twine(".Lmlprog_weights") + (constant ? "_ro" : "_rw")).str();
    os << "\t.section\t" << section << ".mlprog_weights,\""
       << (constant ? "a" : "aw") << "\"\n"
       << "\t.p2align\t" << llvm::Log2_64(maxAlignment) << "\n"
       << label << ":\n"
       << "\t.incbin\t\"" << path << "\"\n";
    llvm::raw_fd_ostream file(fd, /*shouldClose=*/true);
    uint64_t offset = 0;
    for (const ConstantPool::Entry *entry : entries) {
      llvm::GlobalVariable *global = module.getGlobalVariable(entry->name);
      if (!global || !global->isDeclaration())
        return llvm::createStringError("global @" + entry->name +
                                       " vanished in the translation");
      global->setVisibility(llvm::GlobalValue::HiddenVisibility);
      global->setDSOLocal(true);
      uint64_t aligned = llvm::alignTo(offset, entry->alignment);
      file.write_zeros(aligned - offset);
      file.write(buffer.data() + entry->offset, entry->size);
      offset = aligned + entry->size;
      os << "\t.globl\t\"" << entry->name << "\"\n"
         << "\t.hidden\t\"" << entry->name << "\"\n"
         << "\t.type\t\"" << entry->name << "\",@object\n"
         << "\t.set\t\"" << entry->name << "\", " << label << " + " << aligned
         << "\n"
         << "\t.size\t\"" << entry->name << "\", " << entry->size << "\n";
    }
    file.close();
    if (file.has_error())
      return llvm::createStringError(path + ": " + file.error().message());
  }
  os << "\t.text\n";
  module.appendModuleInlineAsm(text);
  return Error::success();
}

/// Emits `module` as a position-independent object file at `path`.
static Error emitObject(llvm::Module &module, StringRef path,
                        const AotOptions &options) {
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  // Module-level assembly (addPoolSections) is parsed by the target.
  llvm::InitializeAllAsmParsers();
  llvm::Triple triple(options.triple.empty()
                          ? llvm::sys::getDefaultTargetTriple()
                          : options.triple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError("target triple '" + triple.str() +
                                   "': " + error);
  std::string cpu = options.cpu, features = options.features;
  if (options.triple.empty() && (cpu.empty() || features.empty())) {
    CPUTarget host = CPUTarget::getHost();
    if (cpu.empty())
      cpu = host.cpu;
    if (features.empty())
      features = host.features;
  }
  unsigned optLevel = std::min(options.optLevel, 3u);
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, llvm::TargetOptions(), llvm::Reloc::PIC_,
      std::nullopt, static_cast<llvm::CodeGenOptLevel>(optLevel)));
  if (!machine)
    return llvm::createStringError("cannot create a target machine for " +
                                   triple.str());
  module.setTargetTriple(triple);
  module.setDataLayout(machine->createDataLayout());
  auto optimize = makeOptimizingTransformer(optLevel, 0, machine.get());
  if (Error err = optimize(&module))
    return err;

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(path + ": " + ec.message());
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the target cannot emit object files");
  pm.run(module);
  os.close();
  if (os.has_error())
    return llvm::createStringError(path + ": " + os.error().message());
  return Error::success();
}

/// Links `object` with the runtime archives (and libomp when `openMP`) into
/// `output`.
static Error link(StringRef object, StringRef output, const AotOptions &options,
                  bool openMP) {
  auto linker = llvm::sys::findProgramByName(options.linker);
  if (!linker)
    return llvm::createStringError("cannot find the linker driver '" +
                                   options.linker +
                                   "' (a C compiler, e.g. gcc) in PATH");
  auto archive = [&](StringRef name) {
    SmallString<256> path(options.runtimeDir);
    llvm::sys::path::append(path, name);
    return path.str().str();
  };
  std::vector<std::string> archives = {archive("libmlprog_model_support.a")};
  if (options.target == AotTarget::CUDA)
    archives.push_back(archive("libmlprog_cuda_runtime.a"));
  for (const std::string &path : archives)
    if (!llvm::sys::fs::exists(path))
      return llvm::createStringError(
          "runtime archive " + path +
          " not found; pass --runtime-dir with mlprog's lib directory");

  // The C ABI's archive is needed whole: nothing in the object calls it.
  std::vector<std::string> args = {*linker,      "-shared",
                                   "-o",         output.str(),
                                   object.str(), "-Wl,--whole-archive",
                                   archives[0],  "-Wl,--no-whole-archive"};
  args.insert(args.end(), archives.begin() + 1, archives.end());
  if (openMP)
    args.push_back(MLPROG_LIBOMP_PATH);
  for (const char *arg :
       {"-Wl,--as-needed", "-lm", "-ldl", "-lpthread", "-Wl,-z,noexecstack"})
    args.push_back(arg);
  // Export the C ABI (mlprog_*) and nothing else. An exported symbol is
  // looked up in the process first: a model function named like one of the
  // process's (libc's `step` or `index`, libm's `exp`) would call that one.
  SmallString<128> exportsPath;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "mlprog-exports", "map", exportsPath))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  llvm::FileRemover removeExports(exportsPath);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(exportsPath, ec, llvm::sys::fs::OF_None);
    if (!ec)
      os << "{ global: mlprog_*; local: *; };\n";
    os.close();
    if (ec || os.has_error())
      return llvm::createStringError(exportsPath + ": " +
                                     (ec ? ec : os.error()).message());
  }
  args.push_back(("-Wl,--version-script=" + exportsPath).str());
  SmallVector<StringRef> argRefs(args.begin(), args.end());

  SmallString<128> logPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("mlprog-link", "log", logPath))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string message;
  int status = llvm::sys::ExecuteAndWait(*linker, argRefs, std::nullopt,
                                         redirects, 0, 0, &message);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(logPath);
  if (status != 0)
    return llvm::createStringError("linking with " + *linker + " failed" +
                                   (message.empty() ? "" : ": " + message) +
                                   (log.empty() ? "" : "\n" + log));
  return Error::success();
}

Error mlprog::compileToSharedLibrary(ModuleOp module, StringRef outputPath,
                                     const AotOptions &options) {
  if (options.optLevel > 3)
    return llvm::createStringError("-O" + llvm::Twine(options.optLevel) +
                                   ": the optimization level must be 0, 1, 2 "
                                   "or 3");
  // The host CPU options apply to the host code of CUDA libraries too.
  if (Error err =
          CPUTarget::verify(options.cpu, options.features, options.triple))
    return err;
  if (Error err = verifyTargetAttrs(module))
    return err;
  // The data of extern globals is read while the module still names its
  // files, and embedded like other weights below.
  std::unique_ptr<ExternalStorage> storage;
  if (!isLowered(module)) {
    auto resolved = ExternalStorage::resolve(module, options.externalStorage);
    if (!resolved)
      return resolved.takeError();
    storage = std::move(*resolved);
    storage->inlineConstants(module, options.externalStorage.prepackLimit);
    if (Error err = lower(module, options))
      return err;
  }
  auto entries = collectEntries(module);
  if (!entries)
    return entries.takeError();
  bool openMP = usesOpenMP(module);
  // Model instances (mlprog_instance_create) each get a copy of the state;
  // CUDA libraries keep one state, in the library.
  std::vector<StateInfo> state;
  int32_t numSharedState = 0;
  if (options.target == AotTarget::CPU) {
    auto indirect = indirectState(module);
    if (!indirect)
      return indirect.takeError();
    std::tie(state, numSharedState) = std::move(*indirect);
  }

  // Weights go around LLVM into a data section the assembler copies from a
  // file (see ConstantPool.h); ELF only, as that is what `link` makes.
  std::unique_ptr<ConstantPool> pool;
  llvm::Triple triple(options.triple.empty()
                          ? llvm::sys::getDefaultTargetTriple()
                          : options.triple);
  if (triple.isOSBinFormatELF()) {
    auto extracted =
        ConstantPool::extract(module, options.constantPoolThreshold,
                              storage ? &storage->getAddresses() : nullptr);
    if (!extracted)
      return extracted.takeError();
    pool = std::move(*extracted);
  }
  if (Error err = checkExternalGlobals(module, pool.get()))
    return err;

  MLIRContext *context = module.getContext();
  registerBuiltinDialectTranslation(*context);
  registerLLVMDialectTranslation(*context);
  registerOpenMPDialectTranslation(*context);
  registerGPUDialectTranslation(*context);
  registerNVVMDialectTranslation(*context);
  startPhase(options, "translating to LLVM IR");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "mlprog_model");
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");

  SmallVector<llvm::Function *> wrappers;
  for (const EntryInfo &entry : *entries) {
    llvm::Function *func = llvmModule->getFunction(entry.name);
    if (!func)
      return llvm::createStringError("@" + entry.name +
                                     " vanished in the translation");
    wrappers.push_back(createPackedWrapper(func));
  }
  if (Error err =
          TableBuilder(*llvmModule)
              .emit(*entries, wrappers, options.target, state, numSharedState))
    return err;

  // Object and library go to temporaries next to the output, renamed last.
  SmallString<256> objectPath, libraryPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("mlprog-model", "o", objectPath))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  libraryPath = outputPath;
  libraryPath += ".tmp";
  SmallVector<SmallString<256>, 2> poolPaths;
  llvm::scope_exit cleanup([&] {
    llvm::sys::fs::remove(objectPath);
    llvm::sys::fs::remove(libraryPath);
    for (const SmallString<256> &path : poolPaths)
      llvm::sys::fs::remove(path);
  });
  if (pool && !pool->getEntries().empty())
    if (Error err = addPoolSections(*llvmModule, *pool, poolPaths))
      return err;
  startPhase(options, "generating code (LLVM -O" +
                          Twine(std::min(options.optLevel, 3u)) + ")");
  if (Error err = emitObject(*llvmModule, objectPath, options))
    return err;
  startPhase(options, "linking " + llvm::sys::path::filename(outputPath));
  if (Error err = link(objectPath, libraryPath, options, openMP))
    return err;
  if (std::error_code ec = llvm::sys::fs::rename(libraryPath, outputPath))
    return llvm::createStringError(outputPath + ": " + ec.message());
  return Error::success();
}
