//===- ExternalStorageTest.cpp - Tests of ExternalStorage -----------------===//

#include "mlprog/Runtime/ExternalStorage.h"
#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/InitAll.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <cstring>
#include <vector>

using namespace mlprog;
using namespace mlir;

namespace {

/// Extern globals over one raw blob file `w.bin`: @w 2x4xf32 at offset 0
/// (32 bytes), @h 4xf16 at 32 (8 bytes), @state (mutable) 2xi32 at 40,
/// @mask 4xi1 at 48 (one byte each). Immutable whole-byte tensors: 40 bytes.
constexpr llvm::StringLiteral kModule = R"mlir(
ml_program.global private @w(#ml_program.extern : tensor<2x4xf32>) : tensor<2x4xf32> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin", offset = 0>}
ml_program.global private @h(#ml_program.extern : tensor<4xf16>) : tensor<4xf16> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin", offset = 32>}
ml_program.global private mutable @state(#ml_program.extern : tensor<2xi32>) : tensor<2xi32> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin", offset = 40>}
ml_program.global private @mask(#ml_program.extern : tensor<4xi1>) : tensor<4xi1> {ml_program.external_storage = #ml_program.external_storage<file = "w.bin", offset = 48>}
)mlir";

class ExternalStorageTest : public ::testing::Test {
protected:
  void SetUp() override {
    DialectRegistry registry;
    registerMLProgDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("mlprog-storage", dir));
    // f32 1..8, f16 1.0 (0x3c00) x4, i32 {7, -7}, bools 1 0 1 1.
    std::vector<char> bytes(52, 0);
    for (int i = 0; i < 8; ++i) {
      float v = float(i + 1);
      std::memcpy(bytes.data() + 4 * i, &v, 4);
    }
    for (int i = 0; i < 4; ++i) {
      uint16_t one = 0x3c00;
      std::memcpy(bytes.data() + 32 + 2 * i, &one, 2);
    }
    int32_t state[2] = {7, -7};
    std::memcpy(bytes.data() + 40, state, 8);
    bytes[48] = 1, bytes[49] = 0, bytes[50] = 1, bytes[51] = 1;
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, "w.bin");
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os.write(bytes.data(), bytes.size());
  }

  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  /// The parsed module and its storage, resolved against the blob's folder.
  std::pair<OwningOpRef<ModuleOp>, std::unique_ptr<ExternalStorage>> load() {
    auto module = parseSourceString<ModuleOp>(kModule, &context);
    EXPECT_TRUE(module);
    ExternalStorageOptions options;
    options.baseDirectory = std::string(dir);
    auto storage = ExternalStorage::resolve(*module, options);
    if (!storage) {
      ADD_FAILURE() << llvm::toString(storage.takeError());
      return {std::move(module), nullptr};
    }
    return {std::move(module), std::move(*storage)};
  }

  static GlobalOp lookup(ModuleOp module, StringRef name) {
    return module.lookupSymbol<GlobalOp>(name);
  }

  MLIRContext context;
  llvm::SmallString<256> dir;
};

TEST_F(ExternalStorageTest, InlinesImmutableWeightsWithinTheLimit) {
  auto [module, storage] = load();
  ASSERT_TRUE(storage);
  EXPECT_EQ(storage->getAddresses().size(), 4u);
  EXPECT_EQ(storage->inlineConstants(*module, 40), 40u);

  auto w = dyn_cast<DenseElementsAttr>(lookup(*module, "w").getValueAttr());
  ASSERT_TRUE(w);
  std::vector<float> values(w.getValues<float>().begin(),
                            w.getValues<float>().end());
  EXPECT_EQ(values, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_FALSE(
      lookup(*module, "w")->hasAttr(ExternalStorageAttr::getAttrName()));
  auto h = dyn_cast<DenseElementsAttr>(lookup(*module, "h").getValueAttr());
  ASSERT_TRUE(h);
  EXPECT_EQ(h.getType().getElementType(), Float16Type::get(&context));
  for (APFloat v : h.getValues<APFloat>())
    EXPECT_EQ(v.convertToDouble(), 1.0);

  // Mutable state and i1 stay mapped, with their addresses.
  EXPECT_TRUE(isa<ExternAttr>(lookup(*module, "state").getValueAttr()));
  EXPECT_TRUE(isa<ExternAttr>(lookup(*module, "mask").getValueAttr()));
  EXPECT_EQ(storage->getAddresses().size(), 2u);
  EXPECT_TRUE(storage->getAddresses().count("state"));
  EXPECT_TRUE(storage->getAddresses().count("mask"));
}

TEST_F(ExternalStorageTest, LeavesEverythingMappedAboveTheLimit) {
  auto [module, storage] = load();
  ASSERT_TRUE(storage);
  EXPECT_EQ(storage->inlineConstants(*module, 39), 0u);
  for (StringRef name : {"w", "h", "state", "mask"}) {
    EXPECT_TRUE(isa<ExternAttr>(lookup(*module, name).getValueAttr()))
        << name.str();
    EXPECT_TRUE(
        lookup(*module, name)->hasAttr(ExternalStorageAttr::getAttrName()));
  }
  EXPECT_EQ(storage->getAddresses().size(), 4u);
}

} // namespace
