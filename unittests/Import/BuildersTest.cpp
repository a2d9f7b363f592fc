//===- BuildersTest.cpp - Tensor op builder tests -------------------------===//
//
// Builds IR with the format-independent builders of Import/Common and checks
// what they emit where one builder replaced several (comparisons on bool,
// casts, layer norm, band masks, slices of dynamic extents, log-softmax,
// gathers) and the transformer blocks (attention, rotary embeddings, RMS and
// group norms).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Import/Common/Attention.h"
#include "mlprog/Import/Common/Elementwise.h"
#include "mlprog/Import/Common/Logic.h"
#include "mlprog/Import/Common/Normalization.h"
#include "mlprog/Import/Common/Reduction.h"
#include "mlprog/Import/Common/Shape.h"
#include "mlprog/Import/Common/SliceGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlprog;

namespace {

/// A module holding one function whose arguments are the test's inputs; the
/// builder inserts before its return.
class BuildersTest : public ::testing::Test {
protected:
  BuildersTest() : b(&ctx) {
    ctx.loadDialect<arith::ArithDialect, func::FuncDialect,
                    linalg::LinalgDialect, math::MathDialect,
                    tensor::TensorDialect>();
    loc = b.getUnknownLoc();
    module = ModuleOp::create(loc);
  }

  /// Starts a function with arguments of `types`; returns its arguments.
  ValueRange begin(TypeRange types) {
    b.setInsertionPointToEnd(module->getBody());
    auto fn = func::FuncOp::create(b, loc, "f", b.getFunctionType(types, {}));
    Block *entry = fn.addEntryBlock();
    b.setInsertionPointToEnd(entry);
    auto ret = func::ReturnOp::create(b, loc);
    b.setInsertionPoint(ret);
    return entry->getArguments();
  }

  /// The predicates of every arith.cmpi in the module, in order.
  SmallVector<arith::CmpIPredicate> cmpiPredicates() {
    SmallVector<arith::CmpIPredicate> r;
    module->walk([&](arith::CmpIOp op) { r.push_back(op.getPredicate()); });
    return r;
  }

  template <typename OpT> int count() {
    int n = 0;
    module->walk([&](OpT) { ++n; });
    return n;
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Type et) {
    return RankedTensorType::get(shape, et);
  }

  bool verifies() { return succeeded(verify(*module)); }

  MLIRContext ctx;
  OpBuilder b;
  Location loc = UnknownLoc::get(&ctx);
  OwningOpRef<ModuleOp> module;
};

// Booleans order false < true (numpy, PyTorch, onnxruntime): an i1 compare
// is unsigned even when the caller does not ask for it. The MIL and ONNX
// importers used a builder that compared i1 signed (true = -1 < false).
TEST_F(BuildersTest, BoolComparisonIsUnsigned) {
  Type i1t = tensor({4}, b.getI1Type());
  ValueRange args = begin({i1t, i1t});
  ASSERT_TRUE(
      succeeded(buildCompare(b, loc, CompareKind::Less, args[0], args[1])));
  ASSERT_TRUE(succeeded(
      buildCompare(b, loc, CompareKind::GreaterEqual, args[0], args[1])));
  EXPECT_EQ(cmpiPredicates(),
            (SmallVector<arith::CmpIPredicate>{arith::CmpIPredicate::ult,
                                               arith::CmpIPredicate::uge}));
  EXPECT_TRUE(verifies());
}

TEST_F(BuildersTest, IntegerComparisonSignedness) {
  Type i32t = tensor({4}, b.getI32Type());
  ValueRange args = begin({i32t, i32t});
  ASSERT_TRUE(
      succeeded(buildCompare(b, loc, CompareKind::Less, args[0], args[1])));
  ASSERT_TRUE(succeeded(buildCompare(b, loc, CompareKind::Less, args[0],
                                     args[1], /*isUnsigned=*/true)));
  EXPECT_EQ(cmpiPredicates(),
            (SmallVector<arith::CmpIPredicate>{arith::CmpIPredicate::slt,
                                               arith::CmpIPredicate::ult}));
}

TEST_F(BuildersTest, ScalarComparisonOfBools) {
  ValueRange args = begin({b.getI1Type(), b.getI1Type()});
  Value r = buildScalarCompare(b, loc, CompareKind::Greater, args[0], args[1]);
  ASSERT_TRUE(r);
  EXPECT_EQ(cmpiPredicates(),
            SmallVector<arith::CmpIPredicate>{arith::CmpIPredicate::ugt});
}

// f16 <-> bf16 have one width: the cast goes through f32 (a direct
// arith.truncf between them does not verify).
TEST_F(BuildersTest, ConvertBetweenHalfFloats) {
  ValueRange args = begin({tensor({2}, b.getF16Type())});
  FailureOr<Value> r =
      buildConvertElementType(b, loc, args[0], b.getBF16Type());
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(count<arith::ExtFOp>(), 1);
  EXPECT_EQ(count<arith::TruncFOp>(), 1);
  EXPECT_TRUE(verifies());
}

TEST_F(BuildersTest, ConvertToUnsigned) {
  ValueRange args = begin({tensor({2}, b.getF32Type())});
  ASSERT_TRUE(succeeded(buildConvertElementType(b, loc, args[0],
                                                b.getIntegerType(8), false,
                                                /*dstUnsigned=*/true)));
  EXPECT_EQ(count<arith::FPToUIOp>(), 1);
  EXPECT_EQ(count<arith::FPToSIOp>(), 0);
}

TEST_F(BuildersTest, ConvertRejectsNonNumbers) {
  ValueRange args = begin({tensor({2}, b.getIndexType())});
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(buildConvertElementType(b, loc, args[0], b.getF32Type())));
}

// One layer norm for the three importers: statistics keep the normalized
// dims as 1s (ONNX Mean/InvStdDev outputs).
TEST_F(BuildersTest, LayerNormTrailingAxesWithStats) {
  Type f32 = b.getF32Type();
  ValueRange args = begin({tensor({2, 3, 4}, f32), tensor({3, 4}, f32)});
  FailureOr<LayerNormResult> r =
      buildLayerNorm(b, loc, args[0], {-2, -1}, args[1], Value(), 1e-5);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->y.getType(), tensor({2, 3, 4}, f32));
  EXPECT_EQ(r->mean.getType(), tensor({2, 1, 1}, f32));
  EXPECT_EQ(r->invStdDev.getType(), tensor({2, 1, 1}, f32));
  EXPECT_TRUE(verifies());
}

// MIL layer_norm over a leading axis: gamma [D0] spreads to [D0, 1, 1].
TEST_F(BuildersTest, LayerNormLeadingAxisSpreadsGamma) {
  Type f32 = b.getF32Type();
  ValueRange args = begin({tensor({2, 3, 4}, f32), tensor({2}, f32)});
  FailureOr<LayerNormResult> r =
      buildLayerNorm(b, loc, args[0], {0}, args[1], args[1], 1e-5);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->y.getType(), tensor({2, 3, 4}, f32));
  EXPECT_TRUE(verifies());
}

TEST_F(BuildersTest, LayerNormRejectsBadAxis) {
  ValueRange args = begin({tensor({2, 3}, b.getF32Type())});
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  EXPECT_TRUE(
      failed(buildLayerNorm(b, loc, args[0], {2}, Value(), Value(), 1e-5)));
}

// ONNX Trilu(upper) is one bound; MIL band_part two.
TEST_F(BuildersTest, BandPartBounds) {
  ValueRange args = begin({tensor({3, 3}, b.getF32Type())});
  ASSERT_TRUE(succeeded(
      buildBandPart(b, loc, args[0], b.getIndexAttr(1), OpFoldResult())));
  EXPECT_EQ(cmpiPredicates(),
            SmallVector<arith::CmpIPredicate>{arith::CmpIPredicate::sge});
  ASSERT_TRUE(succeeded(
      buildBandPart(b, loc, args[0], b.getIndexAttr(-1), b.getIndexAttr(2))));
  EXPECT_EQ(cmpiPredicates(),
            (SmallVector<arith::CmpIPredicate>{arith::CmpIPredicate::sge,
                                               arith::CmpIPredicate::sge,
                                               arith::CmpIPredicate::sle}));
  EXPECT_TRUE(verifies());
}

// aten::slice on a dynamic extent (x[1:], x[:n]) with non-negative bounds;
// bounds counted from the end (x[-1:], x[::-1]) are resolved at run time.
TEST_F(BuildersTest, SliceOfDynamicExtent) {
  ValueRange args = begin({tensor({ShapedType::kDynamic, 4}, b.getF32Type())});
  SmallVector<SliceDim> dims(2);
  dims[0] = {1, std::nullopt, 2};
  FailureOr<Value> r = buildSlice(b, loc, args[0], dims);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->getType(), tensor({ShapedType::kDynamic, 4}, b.getF32Type()));
  dims[0] = {0, 3, 1};
  ASSERT_TRUE(succeeded(buildSlice(b, loc, args[0], dims)));
  dims[0] = {-1, std::nullopt, 1};
  dims[1] = {1, 3, 1};
  r = buildSlice(b, loc, args[0], dims);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->getType(), tensor({ShapedType::kDynamic, 2}, b.getF32Type()));
  dims[0] = {std::nullopt, std::nullopt, -1};
  dims[1] = {};
  r = buildSlice(b, loc, args[0], dims);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->getType(), tensor({ShapedType::kDynamic, 4}, b.getF32Type()));
  EXPECT_TRUE(verifies());
}

TEST_F(BuildersTest, ResolveSliceIsPythonSliceIndices) {
  ResolvedSlice r = resolveSlice({-3, std::nullopt, 1}, 10);
  EXPECT_EQ(r.start, 7);
  EXPECT_EQ(r.size, 3);
  r = resolveSlice({std::nullopt, std::nullopt, -2}, 5);
  EXPECT_EQ(r.start, 4);
  EXPECT_EQ(r.size, 3);
  r = resolveSlice({8, 2, 1}, 10);
  EXPECT_EQ(r.size, 0);
}

TEST_F(BuildersTest, LogSoftmaxOverAxes) {
  Type f32 = b.getF32Type();
  ValueRange args = begin({tensor({2, 3, 4}, f32)});
  FailureOr<Value> r = buildLogSoftmax(b, loc, args[0], {1, 2});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->getType(), tensor({2, 3, 4}, f32));
  EXPECT_TRUE(verifies());
}

// aten::index_select and aten::embedding are numpy take.
TEST_F(BuildersTest, GatherShapes) {
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  ValueRange args = begin({tensor({5, 3}, f32), tensor({2, 7}, i64)});
  FailureOr<Value> r = buildGather(b, loc, args[0], args[1], 0);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->getType(), tensor({2, 7, 3}, f32));
  EXPECT_TRUE(verifies());
}

// Grouped-query attention with a past cache: 4 query heads read 2 key/value
// heads; the present cache holds past ++ new keys; the probabilities are
// [B, Hq, Sq, P + Skv].
TEST_F(BuildersTest, AttentionGroupedQueryWithPast) {
  Type f32 = b.getF32Type();
  ValueRange args =
      begin({tensor({2, 4, 3, 8}, f32), tensor({2, 2, 5, 8}, f32),
             tensor({2, 2, 5, 6}, f32), tensor({3, 6}, b.getI1Type()),
             tensor({2, 2, 1, 8}, f32), tensor({2, 2, 1, 6}, f32)});
  AttentionOptions options;
  options.isCausal = true;
  options.scoresKind = AttentionScoresKind::Softmax;
  FailureOr<AttentionResult> r =
      buildAttention(b, loc, args[0], args[1], args[2], args[3], args[4],
                     args[5], Value(), options);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->output.getType(), tensor({2, 4, 3, 6}, f32));
  EXPECT_EQ(r->presentKey.getType(), tensor({2, 2, 6, 8}, f32));
  EXPECT_EQ(r->presentValue.getType(), tensor({2, 2, 6, 6}, f32));
  EXPECT_EQ(r->scores.getType(), tensor({2, 4, 3, 6}, f32));
  EXPECT_TRUE(verifies());
}

// Half-precision products accumulate in f32 (numpy's float16 matmul).
TEST_F(BuildersTest, AttentionHalfMatmulsInF32) {
  Type f16 = b.getF16Type();
  ValueRange args =
      begin({tensor({1, 2, 3, 4}, f16), tensor({1, 2, 3, 4}, f16)});
  FailureOr<AttentionResult> r =
      buildAttention(b, loc, args[0], args[1], args[1], Value(), Value(),
                     Value(), Value(), AttentionOptions());
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->output.getType(), tensor({1, 2, 3, 4}, f16));
  int matmuls = 0;
  module->walk([&](linalg::BatchMatmulOp op) {
    ++matmuls;
    EXPECT_TRUE(
        cast<ShapedType>(op.getResultTypes()[0]).getElementType().isF32());
  });
  EXPECT_EQ(matmuls, 2);
  EXPECT_TRUE(verifies());
}

TEST_F(BuildersTest, AttentionRejectsBadOperands) {
  Type f32 = b.getF32Type();
  ValueRange args = begin({tensor({1, 3, 2, 4}, f32), tensor({1, 2, 2, 4}, f32),
                           tensor({1, 3, 1, 4}, f32)});
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // 3 query heads over 2 key/value heads.
  EXPECT_TRUE(
      failed(buildAttention(b, loc, args[0], args[1], args[1], Value(), Value(),
                            Value(), Value(), AttentionOptions())));
  // A past key without a past value.
  EXPECT_TRUE(
      failed(buildAttention(b, loc, args[0], args[0], args[0], Value(), args[2],
                            Value(), Value(), AttentionOptions())));
}

TEST_F(BuildersTest, RotaryEmbeddingShapes) {
  Type f32 = b.getF32Type();
  ValueRange args = begin({tensor({1, 3, 16}, f32), tensor({1, 3, 2}, f32),
                           tensor({1, 2, 3, 8}, f32)});
  FailureOr<Value> r = buildRotaryEmbedding(b, loc, args[0], args[1], args[1],
                                            Value(), false, 4, 2);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->getType(), tensor({1, 3, 16}, f32));
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  // An odd rotary dim.
  EXPECT_TRUE(failed(buildRotaryEmbedding(b, loc, args[2], args[1], args[1],
                                          Value(), true, 3, 0)));
  EXPECT_TRUE(verifies());
}

// stash_type: the statistics of an f16 input are taken in f32; the result
// has the scale's type.
TEST_F(BuildersTest, RMSNormComputesInStashType) {
  Type f16 = b.getF16Type(), f32 = b.getF32Type();
  ValueRange args = begin({tensor({2, 3}, f16), tensor({3}, f16)});
  FailureOr<Value> r = buildRMSNorm(b, loc, args[0], {1}, args[1], 1e-5, f32);
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(r->getType(), tensor({2, 3}, f16));
  EXPECT_EQ(count<math::SqrtOp>(), 1);
  module->walk([&](math::SqrtOp op) { EXPECT_TRUE(op.getType().isF32()); });
  EXPECT_TRUE(verifies());
}

// Per-channel (ONNX 21) and per-group (ONNX 18) parameters.
TEST_F(BuildersTest, GroupNormParameters) {
  Type f32 = b.getF32Type();
  ValueRange args = begin({tensor({2, 6, 5}, f32), tensor({6}, f32),
                           tensor({3}, f32), tensor({4}, f32)});
  for (Value p : {args[1], args[2]}) {
    FailureOr<Value> r = buildGroupNorm(b, loc, args[0], 3, p, p, 1e-5);
    ASSERT_TRUE(succeeded(r));
    EXPECT_EQ(r->getType(), tensor({2, 6, 5}, f32));
  }
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  EXPECT_TRUE(
      failed(buildGroupNorm(b, loc, args[0], 4, args[1], args[1], 1e-5)));
  EXPECT_TRUE(
      failed(buildGroupNorm(b, loc, args[0], 3, args[3], args[3], 1e-5)));
  EXPECT_TRUE(verifies());
}

} // namespace
