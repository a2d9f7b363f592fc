//===- JitRunnerTest.cpp - Tests of the JIT runner ------------------------===//

#include "mlprog/Runtime/JitRunner.h"
#include "TestModules.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/InitAll.h"
#include "mlprog/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

using namespace mlprog;
using mlprog::testing::kAddModule;

namespace {

/// A mutable counter incremented on every call.
constexpr llvm::StringLiteral kCounterModule = R"mlir(
ml_program.global private mutable @c(dense<0.0> : tensor<1xf32>) : tensor<1xf32>
ml_program.func @main() -> tensor<1xf32> {
  %c = ml_program.global_load @c : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %e = tensor.empty() : tensor<1xf32>
  %r = linalg.add ins(%c, %one : tensor<1xf32>, tensor<1xf32>) outs(%e : tensor<1xf32>) -> tensor<1xf32>
  ml_program.global_store @c = %r : tensor<1xf32>
  ml_program.return %r : tensor<1xf32>
}
)mlir";

/// Scalars in and out, and a 0-d tensor.
constexpr llvm::StringLiteral kScalarModule = R"mlir(
func.func @scale(%x: tensor<f64>, %k: f64, %n: i32) -> (f64, i32, tensor<f64>) {
  %v = tensor.extract %x[] : tensor<f64>
  %m = arith.mulf %v, %k : f64
  %t = tensor.from_elements %m : tensor<f64>
  return %m, %n, %t : f64, i32, tensor<f64>
}
)mlir";

class JitRunnerTest : public ::testing::Test {
protected:
  JitRunnerTest() {
    mlir::DialectRegistry registry;
    registerMLProgDialects(registry);
    context.appendDialectRegistry(registry);
  }

  mlir::OwningOpRef<mlir::ModuleOp> parse(llvm::StringRef source) {
    return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  }

  /// Parses and compiles `source`; fails the test on errors.
  std::unique_ptr<JitRunner> compile(llvm::StringRef source,
                                     JitRunnerOptions options = {}) {
    auto runner = JitRunner::create(parse(source), options);
    if (!runner) {
      ADD_FAILURE() << llvm::toString(runner.takeError());
      return nullptr;
    }
    return std::move(*runner);
  }

  /// The error `create` reports for `source`.
  std::string createError(mlir::OwningOpRef<mlir::ModuleOp> module,
                          JitRunnerOptions options = {}) {
    auto runner = JitRunner::create(std::move(module), options);
    if (runner)
      return "";
    return llvm::toString(runner.takeError());
  }

  mlir::MLIRContext context;
};

HostTensor makeF32(llvm::ArrayRef<int64_t> shape) {
  HostTensor tensor(DType::F32, shape);
  for (auto [i, value] : llvm::enumerate(tensor.getValues<float>()))
    value = float(i);
  return tensor;
}

TEST_F(JitRunnerTest, AddsGlobalAndReturnsInputAndGlobal) {
  auto runner = compile(kAddModule);
  ASSERT_TRUE(runner);
  EXPECT_EQ(runner->getEntryName(), "main");
  std::vector<HostTensor> inputs;
  inputs.push_back(makeF32({3, 4}));
  auto results = runner->run(inputs);
  ASSERT_TRUE(static_cast<bool>(results))
      << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[0].getShape(), llvm::ArrayRef<int64_t>({3, 4}));
  for (int64_t i = 0; i < 12; ++i) {
    EXPECT_EQ((*results)[0].getValues<float>()[i], float(i + 1 + i % 4));
    EXPECT_EQ((*results)[1].getValues<float>()[i], float(i));
  }
  EXPECT_EQ((*results)[2].getValues<float>()[3], 4.0f);
  // Inputs are read-only to the compiled code.
  EXPECT_EQ(inputs[0].getValues<float>()[5], 5.0f);
}

TEST_F(JitRunnerTest, InPlaceUpdatesNeverWriteInputs) {
  auto runner = compile(R"mlir(
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
)mlir");
  ASSERT_TRUE(runner);
  std::vector<HostTensor> inputs;
  inputs.push_back(makeF32({4}));
  auto results = runner->run(inputs, /*repeat=*/2);
  ASSERT_TRUE(static_cast<bool>(results));
  EXPECT_EQ((*results)[0].getValues<float>()[3], 6.0f);
  EXPECT_EQ(inputs[0].getValues<float>()[3], 3.0f);
}

TEST_F(JitRunnerTest, StridedResultsAreCopiedInOrder) {
  // Views of the input: every column of a 4x6 input with stride 2, a block
  // of rows 1..2 and columns 1..4, and a transpose, whatever layout the
  // lowering gives them at the function boundary.
  auto runner = compile(R"mlir(
func.func @main(%a: tensor<4x6xf32>) -> (tensor<4x3xf32>, tensor<2x4xf32>, tensor<6x4xf32>) {
  %s = tensor.extract_slice %a[0, 1] [4, 3] [1, 2] : tensor<4x6xf32> to tensor<4x3xf32>
  %b = tensor.extract_slice %a[1, 1] [2, 4] [1, 1] : tensor<4x6xf32> to tensor<2x4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x6xf32>) outs(%e : tensor<6x4xf32>) permutation = [1, 0]
  return %s, %b, %t : tensor<4x3xf32>, tensor<2x4xf32>, tensor<6x4xf32>
}
)mlir");
  ASSERT_TRUE(runner);
  std::vector<HostTensor> inputs;
  inputs.push_back(makeF32({4, 6}));
  auto results = runner->run(inputs);
  ASSERT_TRUE(static_cast<bool>(results))
      << llvm::toString(results.takeError());
  ASSERT_EQ(results->size(), 3u);
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j)
      EXPECT_EQ((*results)[0].getValues<float>()[i * 3 + j],
                float(i * 6 + 1 + 2 * j));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ((*results)[1].getValues<float>()[i * 4 + j],
                float((i + 1) * 6 + j + 1));
  for (int64_t i = 0; i < 6; ++i)
    for (int64_t j = 0; j < 4; ++j)
      EXPECT_EQ((*results)[2].getValues<float>()[i * 4 + j], float(j * 6 + i));
}

TEST_F(JitRunnerTest, BorrowedInputsAndResultsWithoutCopies) {
  // One buffer returned twice, and a second one: each dense result is a
  // tensor over the buffer the call allocated, shared by both results that
  // return it, and outlives the runner.
  auto runner = compile(R"mlir(
func.func @main(%a: tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>) {
  %e = tensor.empty() : tensor<2x8xf32>
  %d = linalg.add ins(%a, %a : tensor<2x8xf32>, tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %f = tensor.empty() : tensor<2x8xf32>
  %s = linalg.mul ins(%a, %a : tensor<2x8xf32>, tensor<2x8xf32>) outs(%f : tensor<2x8xf32>) -> tensor<2x8xf32>
  return %d, %d, %s : tensor<2x8xf32>, tensor<2x8xf32>, tensor<2x8xf32>
}
)mlir");
  ASSERT_TRUE(runner);
  // The input is a view one float into a vector: aligned to 4 bytes only.
  std::vector<float> storage(17);
  for (int i = 0; i < 16; ++i)
    storage[i + 1] = float(i);
  std::vector<HostTensor> inputs;
  inputs.push_back(HostTensor::wrap(
      DType::F32, {2, 8}, reinterpret_cast<uint8_t *>(storage.data() + 1),
      nullptr));
  auto results = runner->run(inputs, /*repeat=*/3);
  ASSERT_TRUE(static_cast<bool>(results))
      << llvm::toString(results.takeError());
  runner.reset();
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[0].getData(), (*results)[1].getData());
  EXPECT_NE((*results)[0].getData(), (*results)[2].getData());
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ((*results)[1].getValues<float>()[i], 2.0f * i);
    EXPECT_EQ((*results)[2].getValues<float>()[i], float(i) * i);
  }
  results->erase(results->begin());
  EXPECT_EQ((*results)[0].getValues<float>()[15], 30.0f);
  EXPECT_EQ(storage[16], 15.0f);
}

TEST_F(JitRunnerTest, RepeatKeepsGlobalsAcrossCalls) {
  auto runner = compile(kCounterModule);
  ASSERT_TRUE(runner);
  auto first = runner->run({}, 3);
  ASSERT_TRUE(static_cast<bool>(first));
  EXPECT_EQ((*first)[0].getValues<float>()[0], 3.0f);
  auto second = runner->run({});
  ASSERT_TRUE(static_cast<bool>(second));
  EXPECT_EQ((*second)[0].getValues<float>()[0], 4.0f);
}

/// A counter with an entry that advances it and one that resets it.
constexpr llvm::StringLiteral kStepResetModule = R"mlir(
ml_program.global private mutable @n(dense<0> : tensor<i64>) : tensor<i64>
ml_program.func @step() -> tensor<i64> {
  %n = ml_program.global_load @n : tensor<i64>
  %one = arith.constant dense<1> : tensor<i64>
  %r = arith.addi %n, %one : tensor<i64>
  ml_program.global_store @n = %r : tensor<i64>
  ml_program.return %r : tensor<i64>
}
ml_program.func @reset() {
  %zero = arith.constant dense<0> : tensor<i64>
  ml_program.global_store @n = %zero : tensor<i64>
  ml_program.return
}
)mlir";

TEST_F(JitRunnerTest, EntriesOfOneEngineShareGlobals) {
  JitRunnerOptions options;
  options.entry = "step";
  auto step = compile(kStepResetModule, options);
  ASSERT_TRUE(step);
  EXPECT_EQ(step->getEntryNames(),
            llvm::ArrayRef<std::string>({"step", "reset"}));
  auto reset = step->getEntry("reset");
  ASSERT_TRUE(static_cast<bool>(reset)) << llvm::toString(reset.takeError());
  EXPECT_EQ((*reset)->getEntryName(), "reset");
  EXPECT_TRUE((*reset)->getResultTypes().empty());
  auto count = [](JitRunner &runner, unsigned repeat) -> int64_t {
    auto results = runner.run({}, repeat);
    if (!results) {
      ADD_FAILURE() << llvm::toString(results.takeError());
      return -1;
    }
    return (*results)[0].getValues<int64_t>()[0];
  };
  EXPECT_EQ(count(*step, 3), 3);
  ASSERT_TRUE(static_cast<bool>((*reset)->run({})));
  EXPECT_EQ(count(*step, 1), 1);
  // The globals outlive the runner that compiled them.
  step.reset();
  auto again = (*reset)->getEntry("step");
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(count(**again, 1), 2);
  // Another engine of the same module starts from the initial values.
  auto other = compile(kStepResetModule, options);
  ASSERT_TRUE(other);
  EXPECT_EQ(count(*other, 1), 1);
  EXPECT_EQ(count(**again, 1), 3);
  auto missing = (*reset)->getEntry("predict");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_EQ(llvm::toString(missing.takeError()),
            "no public function @predict (functions: @step, @reset)");
}

TEST_F(JitRunnerTest, ScalarsAndZeroDimensionalTensors) {
  auto runner = compile(kScalarModule);
  ASSERT_TRUE(runner);
  std::vector<HostTensor> inputs;
  inputs.emplace_back(DType::F64, llvm::ArrayRef<int64_t>{});
  inputs.back().getValues<double>()[0] = 1.5;
  inputs.emplace_back(DType::F64, llvm::ArrayRef<int64_t>{});
  inputs.back().getValues<double>()[0] = 4.0;
  inputs.emplace_back(DType::I32, llvm::ArrayRef<int64_t>{});
  inputs.back().getValues<int32_t>()[0] = -7;
  auto results = runner->run(inputs);
  ASSERT_TRUE(static_cast<bool>(results))
      << llvm::toString(results.takeError());
  EXPECT_EQ((*results)[0].getValues<double>()[0], 6.0);
  EXPECT_EQ((*results)[1].getValues<int32_t>()[0], -7);
  EXPECT_EQ((*results)[2].getRank(), 0);
  EXPECT_EQ((*results)[2].getValues<double>()[0], 6.0);
}

TEST_F(JitRunnerTest, RunsModulesLoweredByThePipeline) {
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(kAddModule);
  mlir::PassManager pm = mlir::PassManager::on<mlir::ModuleOp>(&context);
  buildLowerToCPUPipeline(pm, LowerToCPUOptions());
  ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
  auto runner = JitRunner::create(std::move(module));
  ASSERT_TRUE(static_cast<bool>(runner)) << llvm::toString(runner.takeError());
  std::vector<HostTensor> inputs;
  inputs.push_back(makeF32({1, 4}));
  auto results = (*runner)->run(inputs);
  ASSERT_TRUE(static_cast<bool>(results));
  EXPECT_EQ((*results)[0].getValues<float>()[3], 7.0f);
}

TEST_F(JitRunnerTest, LoweredModuleWithoutSignatureIsAnError) {
  std::string error = createError(parse(R"mlir(
llvm.func @main() {
  llvm.return
}
)mlir"));
  EXPECT_NE(error.find("has no 'mlprog.signature' attribute"),
            std::string::npos)
      << error;
}

TEST_F(JitRunnerTest, InputMismatchesAreErrors) {
  auto runner = compile(kAddModule);
  ASSERT_TRUE(runner);
  auto errorFor = [&](HostTensor tensor) {
    std::vector<HostTensor> inputs;
    inputs.push_back(std::move(tensor));
    auto results = runner->run(inputs);
    return results ? std::string() : llvm::toString(results.takeError());
  };
  EXPECT_EQ(errorFor(HostTensor(DType::F64, {2, 4})),
            "input 0: expected tensor<?x4xf32>, got f64 array of shape (2,4)");
  EXPECT_EQ(errorFor(HostTensor(DType::F32, {2, 5})),
            "input 0: expected tensor<?x4xf32>, got f32 array of shape (2,5)");
  EXPECT_EQ(errorFor(HostTensor(DType::F32, {4})),
            "input 0: expected tensor<?x4xf32>, got f32 array of shape (4,)");
  auto results = runner->run({});
  ASSERT_FALSE(static_cast<bool>(results));
  EXPECT_EQ(llvm::toString(results.takeError()),
            "@main expects 1 input(s), got 0");
}

TEST_F(JitRunnerTest, EntrySelection) {
  constexpr llvm::StringLiteral twoFuncs = R"mlir(
func.func @a(%x: tensor<2xi32>) -> tensor<2xi32> { return %x : tensor<2xi32> }
func.func @b(%x: tensor<2xi32>) -> tensor<2xi32> { return %x : tensor<2xi32> }
)mlir";
  EXPECT_NE(createError(parse(twoFuncs)).find("cannot choose the entry"),
            std::string::npos);
  JitRunnerOptions options;
  options.entry = "nope";
  EXPECT_NE(createError(parse(twoFuncs), options).find("no function @nope"),
            std::string::npos);
  options.entry = "b";
  auto runner = compile(twoFuncs, options);
  ASSERT_TRUE(runner);
  std::vector<HostTensor> inputs;
  inputs.emplace_back(DType::U32, llvm::ArrayRef<int64_t>{2});
  inputs.back().getValues<uint32_t>()[1] = 9;
  auto results = runner->run(inputs);
  ASSERT_TRUE(static_cast<bool>(results));
  // Signless results come back signed.
  EXPECT_EQ((*results)[0].getDType(), DType::I32);
  EXPECT_EQ((*results)[0].getValues<int32_t>()[1], 9);
}

TEST_F(JitRunnerTest, LoweringFailureIsAnError) {
  std::string diagnostics;
  mlir::ScopedDiagnosticHandler capture(&context, [&](mlir::Diagnostic &diag) {
    diagnostics += diag.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module = parse(R"mlir(
ml_program.global private mutable @g : tensor<*xf32>
ml_program.func @main() -> tensor<2xf32> {
  %g = ml_program.global_load @g : tensor<*xf32>
  %r = tensor.cast %g : tensor<*xf32> to tensor<2xf32>
  ml_program.return %r : tensor<2xf32>
}
)mlir");
  ASSERT_TRUE(module);
  EXPECT_EQ(createError(std::move(module)),
            "lowering to the LLVM dialect failed");
  EXPECT_NE(diagnostics.find("must be a ranked tensor or a scalar"),
            std::string::npos)
      << diagnostics;
}

TEST_F(JitRunnerTest, NullModuleIsAnError) {
  EXPECT_EQ(createError(nullptr), "no module to run");
}

TEST(ElementTypes, Compatibility) {
  mlir::MLIRContext context;
  mlir::Builder b(&context);
  EXPECT_TRUE(isCompatible(b.getI8Type(), DType::I8));
  EXPECT_TRUE(isCompatible(b.getI8Type(), DType::U8));
  EXPECT_FALSE(isCompatible(b.getI8Type(), DType::I16));
  EXPECT_FALSE(isCompatible(b.getI8Type(), DType::Bool));
  EXPECT_TRUE(isCompatible(b.getI1Type(), DType::Bool));
  EXPECT_FALSE(isCompatible(b.getI1Type(), DType::U8));
  EXPECT_TRUE(
      isCompatible(b.getIntegerType(16, /*isSigned=*/false), DType::U16));
  EXPECT_FALSE(
      isCompatible(b.getIntegerType(16, /*isSigned=*/false), DType::I16));
  EXPECT_TRUE(isCompatible(b.getIndexType(), DType::I64));
  EXPECT_TRUE(isCompatible(b.getBF16Type(), DType::BF16));
  EXPECT_FALSE(isCompatible(b.getF16Type(), DType::BF16));
  EXPECT_FALSE(isCompatible(b.getF32Type(), DType::F64));
  EXPECT_EQ(getResultDType(b.getI8Type()), DType::I8);
  EXPECT_EQ(getResultDType(b.getIntegerType(8, false)), DType::U8);
  EXPECT_EQ(getResultDType(b.getI1Type()), DType::Bool);
  EXPECT_EQ(getResultDType(b.getF16Type()), DType::F16);
  EXPECT_EQ(getResultDType(b.getIntegerType(3)), std::nullopt);
}

} // namespace

/// A uint8 input and result (as the ONNX importer marks them) beside a
/// plain i8 result.
constexpr llvm::StringLiteral kUnsignedModule = R"mlir(
ml_program.func @main(%a: tensor<2xi8> {ml_program.unsigned})
    -> (tensor<2xi8> {ml_program.unsigned}, tensor<2xi8>) {
  %r = arith.addi %a, %a : tensor<2xi8>
  ml_program.return %r, %r : tensor<2xi8>, tensor<2xi8>
}
)mlir";

TEST_F(JitRunnerTest, HostSignatureSpellsMarkedValuesUnsigned) {
  auto module = parse(kUnsignedModule);
  ASSERT_TRUE(module);
  auto func = *module->getOps<mlir::FunctionOpInterface>().begin();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << getHostSignature(func);
  EXPECT_EQ(text, "(tensor<2xui8>) -> (tensor<2xui8>, tensor<2xi8>)");
}

TEST_F(JitRunnerTest, UnsignedValuesComeBackUnsignedBeforeAndAfterLowering) {
  for (bool lowerFirst : {false, true}) {
    auto module = parse(kUnsignedModule);
    ASSERT_TRUE(module);
    if (lowerFirst) {
      mlir::PassManager pm = mlir::PassManager::on<mlir::ModuleOp>(&context);
      buildLowerToCPUPipeline(pm, LowerToCPUOptions());
      ASSERT_TRUE(mlir::succeeded(pm.run(*module)));
    }
    auto runner = JitRunner::create(std::move(module));
    ASSERT_TRUE(static_cast<bool>(runner))
        << llvm::toString(runner.takeError());
    std::vector<HostTensor> inputs;
    inputs.emplace_back(DType::U8, llvm::ArrayRef<int64_t>{2});
    inputs[0].getValues<uint8_t>()[0] = 100;
    inputs[0].getValues<uint8_t>()[1] = 200;
    auto results = (*runner)->run(inputs);
    ASSERT_TRUE(static_cast<bool>(results))
        << llvm::toString(results.takeError());
    EXPECT_EQ((*results)[0].getDType(), DType::U8);
    EXPECT_EQ((*results)[0].getValues<uint8_t>()[0], 200);
    EXPECT_EQ((*results)[1].getDType(), DType::I8);
    EXPECT_EQ((*results)[1].getValues<int8_t>()[0], -56);
    // An int8 array for the uint8 input is refused.
    std::vector<HostTensor> signedInputs;
    signedInputs.emplace_back(DType::I8, llvm::ArrayRef<int64_t>{2});
    llvm::Error error = (*runner)->checkInputs(signedInputs);
    EXPECT_EQ(llvm::toString(std::move(error)),
              "input 0: expected tensor<2xui8>, got i8 array of shape (2,)");
  }
}
