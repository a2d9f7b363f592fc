//===- ExpandNarrowFloatCastsTest.cpp - f8/f4 casts against APFloat -------===//
//
// Compiles arith.truncf/extf between f32 and each 8- and 4-bit float with
// the CPU pipeline (--mlprog-expand-narrow-float-casts) at -O0 and -O2 (the
// vectorized form), runs them, and compares every result bit for bit with
// llvm::APFloat's conversion (round to nearest even): every code of each
// type, the midpoints between neighbouring codes (ties) and one f32 ulp
// either side, and special values.
//
//===----------------------------------------------------------------------===//

#include "mlprog/InitAll.h"
#include "mlprog/Runtime/JitRunner.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/bit.h"
#include "gtest/gtest.h"

#include <cmath>
#include <limits>
#include <string>

using namespace mlprog;
using llvm::APFloat;
using llvm::APInt;

namespace {

/// One narrow float type: its MLIR spelling, host dtype and semantics.
struct NarrowType {
  const char *mlir;
  DType dtype;
  const llvm::fltSemantics &(*semantics)();
  unsigned bits;
};

const NarrowType kTypes[] = {
    {"f8E4M3FN", DType::F8E4M3FN, APFloat::Float8E4M3FN, 8},
    {"f8E4M3FNUZ", DType::F8E4M3FNUZ, APFloat::Float8E4M3FNUZ, 8},
    {"f8E5M2", DType::F8E5M2, APFloat::Float8E5M2, 8},
    {"f8E5M2FNUZ", DType::F8E5M2FNUZ, APFloat::Float8E5M2FNUZ, 8},
    {"f4E2M1FN", DType::F4E2M1FN, APFloat::Float4E2M1FN, 4},
};

/// `@trunc` (f32 -> T) and `@ext` (T -> f32) over 1-D tensors.
std::string castModule(llvm::StringRef type) {
  std::string source = R"mlir(
#id = affine_map<(i) -> (i)>
func.func @trunc(%x: tensor<?xf32>) -> tensor<?xT> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xT>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xT>) {
  ^bb0(%a: f32, %o: T):
    %t = arith.truncf %a : f32 to T
    linalg.yield %t : T
  } -> tensor<?xT>
  return %r : tensor<?xT>
}
func.func @ext(%x: tensor<?xT>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xT>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xT>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: T, %o: f32):
    %t = arith.extf %a : T to f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
)mlir";
  std::string out;
  for (char c : source) {
    if (c == 'T')
      out += type.str();
    else
      out += c;
  }
  return out;
}

/// The f32 `x` converted to `t` by APFloat, as bits; out-of-range values
/// (APFloat overflow) saturate in f4E2M1FN, which has no infinity or NaN,
/// and NaN becomes the zero of opposite sign there (ml_dtypes' rule, which
/// the ONNX reference uses).
uint8_t expectedTrunc(const NarrowType &t, float x) {
  if (std::isnan(x) && t.bits == 4)
    return std::signbit(x) ? 0x0 : 0x8;
  APFloat v(x);
  bool losesInfo;
  APFloat::opStatus status =
      v.convert(t.semantics(), APFloat::rmNearestTiesToEven, &losesInfo);
  if (t.bits == 4 && (status & APFloat::opOverflow || std::isinf(x)))
    v = APFloat::getLargest(t.semantics(), std::signbit(x));
  return uint8_t(v.bitcastToAPInt().getZExtValue());
}

/// `v` (exact in f32) as a float.
float toFloat(APFloat v) {
  bool losesInfo;
  v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
  return v.convertToFloat();
}

/// The f32 value of the code `bits` of `t`.
float valueOf(const NarrowType &t, unsigned bits) {
  return toFloat(APFloat(t.semantics(), APInt(t.bits, bits)));
}

/// Every code's value, the midpoints between neighbouring finite codes of
/// one sign and one f32 ulp either side, and special values.
std::vector<float> truncInputs(const NarrowType &t) {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1e-30f,
                               -1e-30f,
                               1e-45f,
                               1e30f,
                               -1e30f,
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN(),
                               -std::numeric_limits<float>::quiet_NaN()};
  unsigned half = 1u << (t.bits - 1);
  for (unsigned sign : {0u, half}) {
    for (unsigned code = 0; code + 1 < half; ++code) {
      float lo = valueOf(t, sign | code), hi = valueOf(t, sign | (code + 1));
      if (!std::isfinite(lo))
        continue;
      values.push_back(lo);
      if (!std::isfinite(hi))
        continue;
      float mid = lo + (hi - lo) / 2;
      values.push_back(mid);
      values.push_back(std::nextafter(mid, 0.0f));
      values.push_back(std::nextafter(mid, 1e30f));
      values.push_back(std::nextafter(mid, -1e30f));
    }
    // Just past the largest finite value: rounds down, ties up, overflows.
    APFloat top = APFloat::getLargest(t.semantics(), sign != 0);
    APFloat below = top;
    below.next(/*nextDown=*/sign == 0);
    float largest = toFloat(top), step = std::fabs(largest - toFloat(below));
    for (float f : {0.25f, 0.5f, 0.75f, 1.0f, 4.0f})
      values.push_back(largest + std::copysign(step * f, largest));
  }
  return values;
}

class ExpandNarrowFloatCastsTest : public ::testing::TestWithParam<unsigned> {
protected:
  ExpandNarrowFloatCastsTest() {
    mlir::DialectRegistry registry;
    registerMLProgDialects(registry);
    context.appendDialectRegistry(registry);
  }

  /// Runs `entry` of the cast module of `t` on `input`.
  HostTensor run(const NarrowType &t, llvm::StringRef entry, HostTensor input) {
    JitRunnerOptions options;
    options.entry = entry.str();
    options.optLevel = GetParam();
    auto runner = JitRunner::create(
        mlir::parseSourceString<mlir::ModuleOp>(castModule(t.mlir), &context),
        options);
    if (!runner) {
      ADD_FAILURE() << llvm::toString(runner.takeError());
      return HostTensor(DType::F32, {0});
    }
    std::vector<HostTensor> inputs;
    inputs.push_back(std::move(input));
    auto results = (*runner)->run(inputs);
    if (!results) {
      ADD_FAILURE() << llvm::toString(results.takeError());
      return HostTensor(DType::F32, {0});
    }
    return std::move(results->front());
  }

  mlir::MLIRContext context;
};

TEST_P(ExpandNarrowFloatCastsTest, ExtendsEveryCodeExactly) {
  for (const NarrowType &t : kTypes) {
    int64_t count = int64_t(1) << t.bits;
    HostTensor codes(t.dtype, {count});
    for (int64_t i = 0; i < count; ++i)
      codes.getValues<uint8_t>()[i] = uint8_t(i);
    HostTensor wide = run(t, "ext", std::move(codes));
    ASSERT_EQ(wide.getNumElements(), count) << t.mlir;
    for (int64_t i = 0; i < count; ++i) {
      float got = wide.getValues<float>()[i], want = valueOf(t, unsigned(i));
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(got)) << t.mlir << " code " << i;
      else
        EXPECT_EQ(llvm::bit_cast<uint32_t>(got), llvm::bit_cast<uint32_t>(want))
            << t.mlir << " code " << i << ": got " << got << ", want " << want;
    }
  }
}

TEST_P(ExpandNarrowFloatCastsTest, TruncatesToNearestEven) {
  for (const NarrowType &t : kTypes) {
    std::vector<float> values = truncInputs(t);
    HostTensor input(DType::F32, {int64_t(values.size())});
    llvm::copy(values, input.getValues<float>().begin());
    HostTensor narrow = run(t, "trunc", std::move(input));
    ASSERT_EQ(narrow.getNumElements(), int64_t(values.size())) << t.mlir;
    for (auto [i, x] : llvm::enumerate(values))
      EXPECT_EQ(unsigned(narrow.getValues<uint8_t>()[i]),
                unsigned(expectedTrunc(t, x)))
          << t.mlir << " of " << x;
  }
}

INSTANTIATE_TEST_SUITE_P(OptLevels, ExpandNarrowFloatCastsTest,
                         ::testing::Values(0u, 2u));

} // namespace
