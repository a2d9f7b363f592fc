//===- StateAllocationTest.cpp - Heap allocations of decode steps ---------===//
//
// docs/state.md, "Fast updates": a decode step that writes one position of a
// KV cache held in a mutable global writes that row into the global's one
// buffer. These tests count the heap allocations of each call (the compiled
// code's memref.alloc lowers to malloc; CountingMalloc.c counts them) and
// check that the count and the bytes of a step stay the same from the second
// call to the thirtieth, and that no step allocates a buffer the size of the
// cache: a copy of the cache per step fails them.
//
//===----------------------------------------------------------------------===//

#include "Runtime/CountingMalloc.h"
#include "mlprog-c/Model.h"
#include "mlprog/Compiler/AotCompiler.h"
#include "mlprog/Compiler/ModelLibrary.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/InitAll.h"
#include "mlprog/Runtime/JitRunner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>

using namespace mlprog;

namespace {

/// A decode step: writes the row `k` into a 128 KiB cache [1, 512, 64] f32
/// at the position a counter global holds, advances the counter, and returns
/// the sum of the cache's rows (which reads the whole cache after the
/// write). As in test/Conversion/MLProgramToMemRef/in-place-state.mlir.
constexpr llvm::StringLiteral kDecodeStep = R"mlir(
ml_program.global private mutable @cache(dense<0.0> : tensor<1x512x64xf32>) : tensor<1x512x64xf32>
ml_program.global private mutable @pos(dense<0> : tensor<i64>) : tensor<i64>
ml_program.func @step(%k: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %pos = ml_program.global_load @pos : tensor<i64>
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %cache = ml_program.global_load @cache : tensor<1x512x64xf32>
  %new = tensor.insert_slice %k into %cache[0, %i, 0] [1, 1, 64] [1, 1, 1] : tensor<1x64xf32> into tensor<1x512x64xf32>
  ml_program.global_store @cache = %new : tensor<1x512x64xf32>
  %one = arith.constant 1 : i64
  %p1 = arith.addi %p, %one : i64
  %t = tensor.from_elements %p1 : tensor<i64>
  ml_program.global_store @pos = %t : tensor<i64>
  %c = ml_program.global_load @cache : tensor<1x512x64xf32>
  %e = tensor.empty() : tensor<1x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.reduce ins(%c : tensor<1x512x64xf32>) outs(%f : tensor<1x64xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  ml_program.return %r : tensor<1x64xf32>
}
)mlir";

/// The same step summing the cache as it was *before* the write: the old
/// value is still needed after the store, so the lowering must copy the
/// cache on every call (docs/state.md). The control that shows the counts
/// see the compiled code's allocations.
constexpr llvm::StringLiteral kCopyingStep = R"mlir(
ml_program.global private mutable @cache(dense<0.0> : tensor<1x512x64xf32>) : tensor<1x512x64xf32>
ml_program.global private mutable @pos(dense<0> : tensor<i64>) : tensor<i64>
ml_program.func @step(%k: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %pos = ml_program.global_load @pos : tensor<i64>
  %p = tensor.extract %pos[] : tensor<i64>
  %i = arith.index_cast %p : i64 to index
  %cache = ml_program.global_load @cache : tensor<1x512x64xf32>
  %new = tensor.insert_slice %k into %cache[0, %i, 0] [1, 1, 64] [1, 1, 1] : tensor<1x64xf32> into tensor<1x512x64xf32>
  ml_program.global_store @cache = %new : tensor<1x512x64xf32>
  %one = arith.constant 1 : i64
  %p1 = arith.addi %p, %one : i64
  %t = tensor.from_elements %p1 : tensor<i64>
  ml_program.global_store @pos = %t : tensor<i64>
  %e = tensor.empty() : tensor<1x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64xf32>) -> tensor<1x64xf32>
  %r = linalg.reduce ins(%cache : tensor<1x512x64xf32>) outs(%f : tensor<1x64xf32>) dimensions = [1]
    (%in: f32, %out: f32) {
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    }
  ml_program.return %r : tensor<1x64xf32>
}
)mlir";

constexpr uint64_t kCacheBytes = 512 * 64 * sizeof(float);
constexpr unsigned kSteps = 30;

/// Runs one call; returns false (after reporting a failure) on errors.
using StepFn = llvm::function_ref<bool(unsigned step)>;

/// The allocations of each of `steps` calls of `step` (1-based steps).
std::vector<mlprog_allocation_counts> countSteps(unsigned steps, StepFn step) {
  std::vector<mlprog_allocation_counts> counts;
  for (unsigned i = 1; i <= steps; ++i) {
    mlprog_start_counting_allocations();
    bool ok = step(i);
    counts.push_back(mlprog_stop_counting_allocations());
    if (!ok)
      break;
  }
  return counts;
}

/// Prints the figures of steps 1, 2 and the last (docs/state.md quotes
/// them); nothing when a step failed before the last.
void report(llvm::StringRef what,
            llvm::ArrayRef<mlprog_allocation_counts> counts) {
  if (counts.size() != kSteps)
    return;
  for (size_t i : {size_t(0), size_t(1), counts.size() - 1})
    std::printf("%s: step %zu: %llu allocations, %llu bytes, largest %llu\n",
                what.str().c_str(), i + 1, (unsigned long long)counts[i].count,
                (unsigned long long)counts[i].bytes,
                (unsigned long long)counts[i].largest);
}

/// Every step from the second on allocates as many buffers and bytes as the
/// second, and none as large as `cacheBytes`.
void expectFlat(llvm::ArrayRef<mlprog_allocation_counts> counts,
                uint64_t cacheBytes) {
  ASSERT_EQ(counts.size(), kSteps);
  for (size_t i = 1; i < counts.size(); ++i) {
    EXPECT_EQ(counts[i].count, counts[1].count) << "step " << i + 1;
    EXPECT_EQ(counts[i].bytes, counts[1].bytes) << "step " << i + 1;
    EXPECT_LT(counts[i].largest, cacheBytes) << "step " << i + 1;
  }
}

/// The row `k` of step `step`: [1, 64] f32, every element `step`.
HostTensor rowOf(unsigned step) {
  HostTensor k(DType::F32, {1, 64});
  for (float &v : k.getValues<float>())
    v = float(step);
  return k;
}
/// Whether every column of the sum a step returns is 1 + ... + `step`
/// (`beforeWrite`: 1 + ... + `step` - 1), the rows of steps 1..`step`
/// written so far; reports a failure otherwise.
bool checkSum(unsigned step, llvm::ArrayRef<HostTensor> results,
              bool beforeWrite) {
  unsigned last = beforeWrite ? step - 1 : step;
  float expected = float(last * (last + 1) / 2);
  for (float v : results[0].getValues<float>())
    if (v != expected) {
      ADD_FAILURE() << "step " << step << ": sum " << v << ", expected "
                    << expected;
      return false;
    }
  return true;
}

class StateAllocationTest : public ::testing::Test {
protected:
  StateAllocationTest() {
    mlir::DialectRegistry registry;
    registerMLProgDialects(registry);
    context.appendDialectRegistry(registry);
  }
  ~StateAllocationTest() override {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef source) {
    return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  }

  /// The allocations of kSteps JIT calls of `source`'s @step.
  std::vector<mlprog_allocation_counts> countJit(llvm::StringRef source,
                                                 bool beforeWrite) {
    auto runner = JitRunner::create(parse(source));
    if (!runner) {
      ADD_FAILURE() << llvm::toString(runner.takeError());
      return {};
    }
    return countSteps(kSteps, [&](unsigned step) {
      HostTensor k = rowOf(step);
      auto results = (*runner)->run({&k, 1});
      if (!results) {
        ADD_FAILURE() << llvm::toString(results.takeError());
        return false;
      }
      return checkSum(step, *results, beforeWrite);
    });
  }

  /// The allocations of kSteps calls of `source`'s @step compiled by
  /// mlprog-compile's driver into a shared library (the C ABI's
  /// mlprog_model_run).
  std::vector<mlprog_allocation_counts> countAot(llvm::StringRef source,
                                                 bool beforeWrite) {
    std::string path = compileLibrary(source);
    if (path.empty())
      return {};
    auto library = ModelLibrary::load(path);
    if (!library) {
      ADD_FAILURE() << llvm::toString(library.takeError());
      return {};
    }
    return countSteps(kSteps, [&](unsigned step) {
      HostTensor k = rowOf(step);
      auto results = (*library)->run(0, {&k, 1});
      if (!results) {
        ADD_FAILURE() << llvm::toString(results.takeError());
        return false;
      }
      return checkSum(step, *results, beforeWrite);
    });
  }

  /// Compiles `source` into a temporary shared library (mlprog-compile's
  /// driver); returns its path, or "" after reporting a failure.
  std::string compileLibrary(llvm::StringRef source) {
    llvm::SmallString<128> path;
    if (llvm::sys::fs::createTemporaryFile("mlprog-alloc", "so", path)) {
      ADD_FAILURE() << "cannot create a temporary file";
      return "";
    }
    paths.push_back(path.str().str());
    AotOptions options;
    options.runtimeDir = MLPROG_RUNTIME_DIR;
    auto module = parse(source);
    if (llvm::Error err = compileToSharedLibrary(*module, path, options)) {
      ADD_FAILURE() << llvm::toString(std::move(err));
      return "";
    }
    return path.str().str();
  }

  mlir::MLIRContext context;
  std::vector<std::string> paths;
};

TEST_F(StateAllocationTest, JitDecodeStepAllocatesNoCache) {
  auto counts = countJit(kDecodeStep, /*beforeWrite=*/false);
  report("jit", counts);
  expectFlat(counts, kCacheBytes);
}

TEST_F(StateAllocationTest, AotDecodeStepAllocatesNoCache) {
  auto counts = countAot(kDecodeStep, /*beforeWrite=*/false);
  report("aot", counts);
  expectFlat(counts, kCacheBytes);
}

// Two instances of one library (the C ABI's mlprog_instance_*), stepped in
// turn, keep separate caches, and a step of either allocates no cache.
TEST_F(StateAllocationTest, AotInstancesKeepSeparateCachesWithoutAllocating) {
  std::string path = compileLibrary(kDecodeStep);
  ASSERT_FALSE(path.empty());
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(handle) << dlerror();
  auto create = reinterpret_cast<decltype(&mlprog_instance_create)>(
      dlsym(handle, "mlprog_instance_create"));
  auto run = reinterpret_cast<decltype(&mlprog_instance_run)>(
      dlsym(handle, "mlprog_instance_run"));
  auto destroy = reinterpret_cast<decltype(&mlprog_instance_destroy)>(
      dlsym(handle, "mlprog_instance_destroy"));
  auto release = reinterpret_cast<decltype(&mlprog_tensor_release)>(
      dlsym(handle, "mlprog_tensor_release"));
  ASSERT_TRUE(create && run && destroy && release);
  char error[256] = "";
  mlprog_instance *instances[2] = {create(error, sizeof(error)),
                                   create(error, sizeof(error))};
  ASSERT_TRUE(instances[0] && instances[1]) << error;
  // Instance 0 gets the row `step`, instance 1 the row 2 * `step`: after n
  // steps their sums are n (n + 1) / 2 and n (n + 1).
  auto counts = countSteps(kSteps, [&](unsigned step) {
    for (int which : {0, 1}) {
      HostTensor k = rowOf(step * (which + 1));
      int64_t shape[] = {1, 64};
      mlprog_tensor input = {k.getData(), shape, 2, MLPROG_DTYPE_F32};
      mlprog_tensor result = {};
      if (run(instances[which], 0, &input, 1, &result, 1, error,
              sizeof(error)) != 0) {
        ADD_FAILURE() << error;
        return false;
      }
      float expected = float(step * (step + 1) / 2 * (which + 1));
      float sum = static_cast<float *>(result.data)[0];
      release(&result);
      if (sum != expected) {
        ADD_FAILURE() << "instance " << which << ", step " << step << ": sum "
                      << sum << ", expected " << expected;
        return false;
      }
    }
    return true;
  });
  destroy(instances[0]);
  destroy(instances[1]);
  dlclose(handle);
  report("aot, two instances", counts);
  expectFlat(counts, kCacheBytes);
}

// The counts see the compiled code: a step that must copy the cache shows a
// cache-sized allocation in every call, in the JIT and in a library.
TEST_F(StateAllocationTest, CopyOfTheCacheIsCounted) {
  for (bool aot : {false, true}) {
    auto counts = aot ? countAot(kCopyingStep, /*beforeWrite=*/true)
                      : countJit(kCopyingStep, /*beforeWrite=*/true);
    report(aot ? "aot copying" : "jit copying", counts);
    ASSERT_EQ(counts.size(), kSteps);
    for (size_t i = 0; i < counts.size(); ++i)
      EXPECT_GE(counts[i].largest, kCacheBytes) << "step " << i + 1;
  }
}

/// Bytes of the largest statically shaped mutable global of `module`.
uint64_t largestStateBytes(mlir::ModuleOp module) {
  uint64_t largest = 0;
  module.walk([&](GlobalOp global) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(global.getType());
    if (!global.getIsMutable() || !type || !type.hasStaticShape())
      return;
    uint64_t bits = type.getElementTypeBitWidth();
    largest =
        std::max<uint64_t>(largest, type.getNumElements() * ((bits + 7) / 8));
  });
  return largest;
}

// A module given by the environment (python/tests/test_state_allocations.py
// passes transformers' GPT-2 and LLaMA as decoders.py's CachedDecoder):
//   MLPROG_ALLOCATION_TEST_MODULE  the .mlir file (weights beside it)
//   MLPROG_ALLOCATION_TEST_ENTRY   the entry (JitRunnerOptions::entry)
//   MLPROG_ALLOCATION_TEST_GROWTH  most bytes a step may allocate more than
//                                  the step before it (default 0)
// Each call gets zeros, dynamic extents 1 (one token per step). The count
// of allocations of every step from the second on must equal the second's,
// no step may allocate a buffer as large as the largest static mutable
// global (the cache), and the bytes may grow by at most GROWTH a step (the
// attention's scores grow with the context).
TEST_F(StateAllocationTest, ModuleFromEnvironment) {
  const char *file = std::getenv("MLPROG_ALLOCATION_TEST_MODULE");
  if (!file)
    GTEST_SKIP() << "MLPROG_ALLOCATION_TEST_MODULE is not set";
  auto module = mlir::parseSourceFile<mlir::ModuleOp>(file, &context);
  ASSERT_TRUE(module) << "cannot parse " << file;
  uint64_t cacheBytes = largestStateBytes(*module);
  ASSERT_GT(cacheBytes, 0u) << "no statically shaped mutable global";
  JitRunnerOptions options;
  if (const char *entry = std::getenv("MLPROG_ALLOCATION_TEST_ENTRY"))
    options.entry = entry;
  options.externalStorage.baseDirectory =
      llvm::sys::path::parent_path(file).str();
  uint64_t growth = 0;
  if (const char *text = std::getenv("MLPROG_ALLOCATION_TEST_GROWTH"))
    growth = std::strtoull(text, nullptr, 10);
  auto runner = JitRunner::create(std::move(module), options);
  ASSERT_TRUE(bool(runner)) << llvm::toString(runner.takeError());
  std::vector<HostTensor> inputs;
  for (mlir::Type type : (*runner)->getInputTypes()) {
    auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
    ASSERT_TRUE(tensor) << "only tensor inputs";
    std::optional<DType> dtype = getResultDType(tensor.getElementType());
    ASSERT_TRUE(dtype.has_value());
    llvm::SmallVector<int64_t> shape(tensor.getShape());
    for (int64_t &extent : shape)
      if (mlir::ShapedType::isDynamic(extent))
        extent = 1;
    inputs.emplace_back(*dtype, shape);
  }
  auto counts = countSteps(kSteps, [&](unsigned) {
    auto results = (*runner)->run(inputs);
    if (!results)
      ADD_FAILURE() << llvm::toString(results.takeError());
    return bool(results);
  });
  std::printf("cache (largest mutable global): %llu bytes\n",
              (unsigned long long)cacheBytes);
  report(llvm::sys::path::filename(file), counts);
  ASSERT_EQ(counts.size(), kSteps);
  for (size_t i = 1; i < counts.size(); ++i) {
    EXPECT_EQ(counts[i].count, counts[1].count) << "step " << i + 1;
    EXPECT_LT(counts[i].largest, cacheBytes) << "step " << i + 1;
    if (i >= 2) {
      EXPECT_LE(counts[i].bytes, counts[i - 1].bytes + growth)
          << "step " << i + 1;
    }
  }
}

} // namespace
