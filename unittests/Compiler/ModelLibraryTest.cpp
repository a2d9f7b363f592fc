//===- ModelLibraryTest.cpp - Tests of AOT libraries ----------------------===//

#include "mlprog/Compiler/ModelLibrary.h"
#include "Runtime/TestModules.h"
#include "mlprog/Compiler/AotCompiler.h"
#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/GPUPipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

#include <cstdlib>

using namespace mlprog;

namespace {

/// kAddModule (a constant global added to a dynamic batch; the input and
/// the global are also returned, so the library must hand out owned copies)
/// plus a function with a scalar argument and result.
const std::string kModule = (mlprog::testing::kAddModule + R"mlir(
ml_program.func @scale(%x: tensor<3xi32>, %k: i32) -> (tensor<3xi32>, i32) {
  %b = tensor.splat %k : tensor<3xi32>
  %r = arith.muli %x, %b : tensor<3xi32>
  ml_program.return %r, %k : tensor<3xi32>, i32
}
)mlir")
                                .str();

class ModelLibraryTest : public ::testing::Test {
protected:
  /// Compiles kModule for `target` into a temporary library.
  std::string compile(AotTarget target) {
    mlir::DialectRegistry registry;
    registerMLProgDialects(registry);
    registerGPUDialects(registry);
    mlir::MLIRContext context(registry);
    auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
    EXPECT_TRUE(module);
    llvm::SmallString<128> path;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("mlprog-unittest", "so", path));
    paths.push_back(path.str().str());
    AotOptions options;
    options.target = target;
    options.runtimeDir = MLPROG_RUNTIME_DIR;
    llvm::Error err = compileToSharedLibrary(*module, path, options);
    EXPECT_FALSE(bool(err)) << llvm::toString(std::move(err));
    return path.str().str();
  }
  ~ModelLibraryTest() override {
    for (const std::string &path : paths)
      llvm::sys::fs::remove(path);
  }
  std::vector<std::string> paths;
};

TEST_F(ModelLibraryTest, RunsCPULibrary) {
  auto library = ModelLibrary::load(compile(AotTarget::CPU));
  ASSERT_TRUE(bool(library)) << llvm::toString(library.takeError());
  EXPECT_EQ((*library)->getTarget(), 0);
  EXPECT_EQ((*library)->getEntryNames(),
            (std::vector<std::string>{"main", "scale"}));
  auto entry = (*library)->findEntry("");
  ASSERT_TRUE(bool(entry));
  EXPECT_EQ(*entry, 0);

  HostTensor x(DType::F32, {2, 4});
  for (auto [i, v] : llvm::enumerate(x.getValues<float>()))
    v = float(i);
  auto results = (*library)->run(*entry, {&x, 1}, /*repeat=*/3);
  ASSERT_TRUE(bool(results)) << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[0].getShape(), llvm::ArrayRef<int64_t>({2, 4}));
  EXPECT_EQ((*results)[0].getValues<float>()[5], 5.0f + 2.0f);
  EXPECT_NE((*results)[1].getData(), x.getData());
  EXPECT_EQ((*results)[1].getValues<float>()[7], 7.0f);
  EXPECT_EQ((*results)[2].getValues<float>()[3], 4.0f);

  // Scalars in and out; a signless i32 accepts uint32 arrays.
  auto scale = (*library)->findEntry("scale");
  ASSERT_TRUE(bool(scale));
  HostTensor v(DType::U32, {3}), k(DType::I32, {});
  v.getValues<uint32_t>()[2] = 5;
  k.getValues<int32_t>()[0] = -3;
  HostTensor inputs[] = {std::move(v), std::move(k)};
  auto scaled = (*library)->run(*scale, inputs);
  ASSERT_TRUE(bool(scaled)) << llvm::toString(scaled.takeError());
  EXPECT_EQ((*scaled)[0].getValues<int32_t>()[2], -15);
  EXPECT_EQ((*scaled)[1].getRank(), 0);
  EXPECT_EQ((*scaled)[1].getValues<int32_t>()[0], -3);
}

TEST_F(ModelLibraryTest, ReportsErrors) {
  auto library = ModelLibrary::load(compile(AotTarget::CPU));
  ASSERT_TRUE(bool(library)) << llvm::toString(library.takeError());
  HostTensor wrong(DType::F64, {2, 4});
  auto results = (*library)->run(0, {&wrong, 1});
  ASSERT_FALSE(bool(results));
  EXPECT_NE(llvm::toString(results.takeError()).find("input 0: expected"),
            std::string::npos);
  auto missing = (*library)->findEntry("nope");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("@main, @scale"),
            std::string::npos);
  auto notALibrary = ModelLibrary::load("/nonexistent/model.so");
  ASSERT_FALSE(bool(notALibrary));
  EXPECT_NE(llvm::toString(notALibrary.takeError()).find("cannot load"),
            std::string::npos);
}

TEST_F(ModelLibraryTest, CUDALibraryWithoutDriverFailsCleanly) {
  // The driver is looked up on first use, so this holds on GPU machines too.
  setenv("MLPROG_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  auto library = ModelLibrary::load(compile(AotTarget::CUDA));
  ASSERT_TRUE(bool(library)) << llvm::toString(library.takeError());
  EXPECT_EQ((*library)->getTarget(), 1);
  HostTensor x(DType::F32, {2, 4});
  auto results = (*library)->run(0, {&x, 1});
  ASSERT_FALSE(bool(results));
  EXPECT_NE(
      llvm::toString(results.takeError())
          .find("cannot load the CUDA driver (/nonexistent/libcuda.so.1)"),
      std::string::npos);
  unsetenv("MLPROG_CUDA_DRIVER");
}

} // namespace
