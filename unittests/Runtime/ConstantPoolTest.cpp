//===- ConstantPoolTest.cpp - Tests of ConstantPool::extract --------------===//

#include "mlprog/Runtime/ConstantPool.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <cstring>

using namespace mlprog;
using namespace mlir;

namespace {

/// Globals of every kind extract() looks at, as --mlprog-lower-to-cpu
/// leaves them. Byte sizes: @weights 2x4xf32 = 32, @splat 16xf32 = 64,
/// @flags 40xi1 = 40, @halves 16xf16 = 32, @indices 4xindex = 32,
/// @state (mutable) 8xi32 = 32, @small 2xf32 = 8, @region 8xf32 = 32,
/// @mismatch: a 32-byte attribute on a struct type.
constexpr llvm::StringLiteral kModule = R"mlir(
llvm.mlir.global private constant @weights(dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>) {addr_space = 0 : i32, alignment = 64 : i64} : !llvm.array<2 x array<4 x f32>>
llvm.mlir.global private constant @splat(dense<1.5> : tensor<16xf32>) {addr_space = 0 : i32} : !llvm.array<16 x f32>
llvm.mlir.global private constant @flags(dense<[true, false, true, true, false, false, false, true, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, false, true, true]> : tensor<40xi1>) {addr_space = 0 : i32} : !llvm.array<40 x i1>
llvm.mlir.global private constant @halves(dense<2.0> : tensor<16xf16>) {addr_space = 0 : i32} : !llvm.array<16 x f16>
llvm.mlir.global private constant @indices(dense<[1, -2, 3, 4]> : tensor<4xindex>) {addr_space = 0 : i32} : !llvm.array<4 x i64>
llvm.mlir.global private @state(dense<[1, 2, 3, 4, 5, 6, 7, 8]> : tensor<8xi32>) {addr_space = 0 : i32, alignment = 128 : i64} : !llvm.array<8 x i32>
llvm.mlir.global private constant @small(dense<[1.0, 2.0]> : tensor<2xf32>) {addr_space = 0 : i32} : !llvm.array<2 x f32>
llvm.mlir.global private constant @region() {addr_space = 0 : i32} : !llvm.array<8 x f32> {
  %0 = llvm.mlir.zero : !llvm.array<8 x f32>
  llvm.return %0 : !llvm.array<8 x f32>
}
llvm.mlir.global private constant @mismatch(dense<1.0> : tensor<8xf32>) {addr_space = 0 : i32} : !llvm.struct<(array<8 x f32>)>
)mlir";

class ConstantPoolTest : public ::testing::Test {
protected:
  ConstantPoolTest() { context.loadDialect<LLVM::LLVMDialect>(); }

  OwningOpRef<ModuleOp> parse() {
    auto module = parseSourceString<ModuleOp>(kModule, &context);
    EXPECT_TRUE(module);
    return module;
  }

  std::unique_ptr<ConstantPool> extract(ModuleOp module, uint64_t threshold) {
    auto pool = ConstantPool::extract(module, threshold);
    if (!pool) {
      ADD_FAILURE() << llvm::toString(pool.takeError());
      return nullptr;
    }
    return std::move(*pool);
  }

  LLVM::GlobalOp lookup(ModuleOp module, StringRef name) {
    return module.lookupSymbol<LLVM::GlobalOp>(name);
  }

  MLIRContext context;
};

template <typename T>
std::vector<T> read(const ConstantPool &pool, StringRef name, size_t count) {
  std::vector<T> values(count);
  std::memcpy(values.data(), pool.getAddresses().lookup(name),
              count * sizeof(T));
  return values;
}

TEST_F(ConstantPoolTest, MovesLargeValuesAndDeclaresTheirGlobals) {
  OwningOpRef<ModuleOp> module = parse();
  std::unique_ptr<ConstantPool> pool = extract(*module, 32);
  ASSERT_TRUE(pool);
  std::vector<std::string> names;
  for (const ConstantPool::Entry &entry : pool->getEntries()) {
    names.push_back(entry.name);
    EXPECT_EQ(entry.offset % entry.alignment, 0u) << entry.name;
    EXPECT_GE(entry.alignment, 64u) << entry.name;
    void *address = pool->getAddresses().lookup(entry.name);
    EXPECT_EQ(address, pool->getBuffer().data() + entry.offset);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(address) % entry.alignment, 0u);
    // The global is now a declaration with the same type.
    LLVM::GlobalOp global = lookup(*module, entry.name);
    ASSERT_TRUE(global);
    EXPECT_FALSE(global.getValueOrNull()) << entry.name;
    EXPECT_EQ(global.getLinkage(), LLVM::Linkage::External);
    EXPECT_FALSE(global.getDsoLocal());
    EXPECT_EQ(global.getAlignment(), entry.alignment);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"weights", "splat", "flags",
                                             "halves", "indices", "state"}));

  EXPECT_EQ(read<float>(*pool, "weights", 8),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(read<float>(*pool, "splat", 16), std::vector<float>(16, 1.5f));
  std::vector<uint8_t> flags = read<uint8_t>(*pool, "flags", 40);
  EXPECT_EQ(flags[0], 1);
  EXPECT_EQ(flags[1], 0);
  EXPECT_EQ(flags[3], 1);
  EXPECT_EQ(flags[38], 1);
  EXPECT_EQ(flags[39], 1);
  EXPECT_EQ(read<uint16_t>(*pool, "halves", 16),
            std::vector<uint16_t>(16, 0x4000)); // 2.0 in IEEE half
  EXPECT_EQ(read<int64_t>(*pool, "indices", 4),
            (std::vector<int64_t>{1, -2, 3, 4}));
  EXPECT_EQ(read<int32_t>(*pool, "state", 8),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6, 7, 8}));

  const ConstantPool::Entry &state = pool->getEntries().back();
  EXPECT_FALSE(state.isConstant);
  EXPECT_EQ(state.alignment, 128u);
  EXPECT_TRUE(pool->getEntries().front().isConstant);

  // Left alone: under the threshold, an initializer region, a type whose
  // layout is not the attribute's.
  EXPECT_TRUE(lookup(*module, "small").getValueOrNull());
  EXPECT_FALSE(lookup(*module, "region").getInitializerRegion().empty());
  EXPECT_TRUE(lookup(*module, "mismatch").getValueOrNull());
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(ConstantPoolTest, ThresholdKeepsSmallerValues) {
  OwningOpRef<ModuleOp> module = parse();
  std::unique_ptr<ConstantPool> pool = extract(*module, 64);
  ASSERT_TRUE(pool);
  ASSERT_EQ(pool->getEntries().size(), 1u);
  EXPECT_EQ(pool->getEntries()[0].name, "splat");
  EXPECT_TRUE(lookup(*module, "weights").getValueOrNull());
}

TEST_F(ConstantPoolTest, NothingToMoveLeavesTheModuleUnchanged) {
  OwningOpRef<ModuleOp> module = parse();
  std::string before;
  llvm::raw_string_ostream(before) << *module;
  std::unique_ptr<ConstantPool> pool = extract(*module, UINT64_MAX);
  ASSERT_TRUE(pool);
  EXPECT_TRUE(pool->getEntries().empty());
  EXPECT_TRUE(pool->getBuffer().empty());
  std::string after;
  llvm::raw_string_ostream(after) << *module;
  EXPECT_EQ(before, after);
}

TEST_F(ConstantPoolTest, DefinesExternalDeclarationsFromTheirData) {
  auto module = parseSourceString<ModuleOp>(R"mlir(
llvm.mlir.global external constant @ext() {addr_space = 0 : i32} : !llvm.array<2 x array<2 x f32>>
llvm.mlir.global external @state() {addr_space = 0 : i32} : i64
llvm.mlir.global external constant @odd() {addr_space = 0 : i32} : !llvm.struct<(f32)>
llvm.mlir.global external constant @unknown() {addr_space = 0 : i32} : !llvm.array<2 x f32>
)mlir",
                                            &context);
  ASSERT_TRUE(module);
  float ext[4] = {1, 2, 3, 4};
  int64_t state = 42;
  float odd = 5;
  llvm::StringMap<void *> data;
  data["ext"] = ext;
  data["state"] = &state;
  data["odd"] = &odd;
  // External data moves whatever its size.
  auto pool = ConstantPool::extract(*module, UINT64_MAX, &data);
  ASSERT_TRUE(bool(pool)) << llvm::toString(pool.takeError());
  ASSERT_EQ((*pool)->getEntries().size(), 2u);
  EXPECT_EQ((*pool)->getEntries()[0].name, "ext");
  EXPECT_TRUE((*pool)->getEntries()[0].isConstant);
  EXPECT_EQ((*pool)->getEntries()[1].name, "state");
  EXPECT_FALSE((*pool)->getEntries()[1].isConstant);
  EXPECT_EQ(read<float>(**pool, "ext", 4), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(read<int64_t>(**pool, "state", 1), std::vector<int64_t>{42});
  // The copy is the pool's own.
  EXPECT_NE((*pool)->getAddresses().lookup("ext"), static_cast<void *>(ext));
  EXPECT_FALSE((*pool)->getAddresses().count("odd"));
  EXPECT_FALSE((*pool)->getAddresses().count("unknown"));
}

} // namespace
