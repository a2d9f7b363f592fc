//===- SignalOps.cpp - ONNX signal and text features ----------------------===//
//
// Handlers for ONNX's feature extraction ops: signal processing (DFT, STFT,
// MelWeightMatrix; the transforms are built by Common/Signal.h) and
// bag-of-n-grams text features (TfIdfVectorizer, Common/Statistics.h).
//
//===----------------------------------------------------------------------===//

#include "NodeContext.h"

#include "mlprog/Import/Common/Signal.h"
#include "mlprog/Import/Common/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringSwitch.h"

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

/// The value of the one-element integer input `i` as an index: a constant
/// when it is known at compile time, else read with tensor.extract.
FailureOr<Value> scalarIndexInput(NodeContext &ctx, unsigned i,
                                  StringRef what) {
  if (DenseElementsAttr c = ctx.optionalConstantInput(i)) {
    if (c.getNumElements() != 1 || !c.getElementType().isInteger())
      return emitError(ctx.loc) << ctx.node.op_type() << ": " << what
                                << " must be a one-element integer tensor";
    return arith::ConstantIndexOp::create(
               ctx.b, ctx.loc, (*c.getValues<APInt>().begin()).getSExtValue())
        .getResult();
  }
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto type = dyn_cast<RankedTensorType>(v->getType());
  if (!type || !type.getElementType().isSignlessInteger() ||
      !type.hasStaticShape() || type.getNumElements() != 1)
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what
           << " must be a one-element integer tensor, got " << v->getType();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  Value elem = tensor::ExtractOp::create(ctx.b, ctx.loc, *v, indices);
  return arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getIndexType(), elem)
      .getResult();
}

/// Casts `v` to the static output shape shape inference gives output 0, if
/// there is one and `v` is less static.
Value refineToOutputShape(NodeContext &ctx, Value v) {
  std::optional<SmallVector<int64_t>> out = ctx.staticOutputShape(0);
  auto type = cast<RankedTensorType>(v.getType());
  if (!out || int64_t(out->size()) != type.getRank() || type.hasStaticShape())
    return v;
  return tensor::CastOp::create(ctx.b, ctx.loc, type.clone(*out), v);
}

/// DFT-20 along an axis known only at run time (a one-element integer
/// tensor): the transform along every axis in [0, rank - 1), chosen by an
/// scf.index_switch on the normalized axis; extents that differ between the
/// candidates are dynamic in the result. Only the axes `valid` accepts are
/// candidates; any other axis transforms along the last of them (-2 when it
/// is valid).
FailureOr<Value>
dftAlongRuntimeAxis(NodeContext &ctx, Value axis, int64_t rank,
                    function_ref<bool(int64_t)> valid,
                    function_ref<FailureOr<Value>(OpBuilder &, int64_t)> fn) {
  auto at = dyn_cast<RankedTensorType>(axis.getType());
  if (!at || !at.hasStaticShape() || at.getNumElements() != 1 ||
      !at.getElementType().isSignlessInteger())
    return emitError(ctx.loc)
           << "DFT: axis must be a one-element integer tensor, got "
           << axis.getType();
  if (rank < 2)
    return emitError(ctx.loc)
           << "DFT: input of rank " << rank << " has no axis to transform";
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  // The normalized axis as an index.
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
  SmallVector<Value> zeros(at.getRank(), c0);
  Value a = arith::IndexCastOp::create(
      b, loc, b.getIndexType(), tensor::ExtractOp::create(b, loc, axis, zeros));
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, a, c0);
  a = arith::SelectOp::create(
      b, loc, negative,
      arith::AddIOp::create(b, loc, a,
                            arith::ConstantIndexOp::create(b, loc, rank)),
      a);
  // Build every candidate in the regions of a result-less switch, then move
  // them into one whose result type joins theirs.
  SmallVector<int64_t> cases;
  for (int64_t c = 0; c < rank - 1; ++c)
    if (valid(c))
      cases.push_back(c);
  if (cases.empty())
    return emitError(ctx.loc) << "DFT: no axis of the input can be transformed";
  int64_t fallback = cases.back();
  cases.pop_back();
  auto probe =
      scf::IndexSwitchOp::create(b, loc, TypeRange{}, a, cases, cases.size());
  SmallVector<Value> results;
  SmallVector<Region *> regions = llvm::to_vector(
      llvm::map_range(probe.getCaseRegions(), [](Region &r) { return &r; }));
  regions.push_back(&probe.getDefaultRegion());
  for (auto [i, region] : llvm::enumerate(regions)) {
    OpBuilder::InsertionGuard guard(b);
    b.createBlock(region);
    FailureOr<Value> v = fn(b, i < cases.size() ? cases[i] : fallback);
    if (failed(v)) {
      probe.erase();
      return failure();
    }
    results.push_back(*v);
  }
  auto first = cast<RankedTensorType>(results[0].getType());
  SmallVector<int64_t> shape(first.getShape());
  for (Value v : results)
    for (auto [d, extent] :
         llvm::enumerate(cast<RankedTensorType>(v.getType()).getShape()))
      if (extent != shape[d])
        shape[d] = ShapedType::kDynamic;
  auto joint = RankedTensorType::get(shape, first.getElementType());
  auto sw = scf::IndexSwitchOp::create(b, loc, TypeRange{joint}, a, cases,
                                       cases.size());
  SmallVector<Region *> targets = llvm::to_vector(
      llvm::map_range(sw.getCaseRegions(), [](Region &r) { return &r; }));
  targets.push_back(&sw.getDefaultRegion());
  for (auto [i, region] : llvm::enumerate(targets)) {
    region->takeBody(*regions[i]);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToEnd(&region->front());
    Value out = results[i];
    if (out.getType() != joint)
      out = tensor::CastOp::create(b, loc, joint, out);
    scf::YieldOp::create(b, loc, out);
  }
  probe.erase();
  return sw.getResult(0);
}

/// DFT (opset 17: attribute axis, default 1; opset 20: input 2, a constant,
/// default -2): attributes inverse and onesided; both set is the inverse of
/// a one-sided spectrum (a real signal, numpy.fft.irfft). The optional
/// dft_length input must be a compile-time constant (else unsupported), as
/// must the extent along `axis`.
LogicalResult importDFT(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  std::optional<int64_t> length;
  if (ctx.hasInput(1)) {
    DenseElementsAttr c = ctx.optionalConstantInput(1);
    if (!c)
      return emitError(ctx.loc) << "unsupported DFT with a run-time dft_length";
    if (c.getNumElements() != 1 || !c.getElementType().isInteger())
      return emitError(ctx.loc)
             << "DFT: dft_length must be a one-element integer tensor";
    length = (*c.getValues<APInt>().begin()).getSExtValue();
  }
  int64_t rank = rankOf(*x);
  int64_t axis = ctx.getInt("axis", 1);
  bool inverse = ctx.getInt("inverse", 0) != 0;
  bool onesided = ctx.getInt("onesided", 0) != 0;
  auto transform = [&](OpBuilder &b, int64_t a) -> FailureOr<Value> {
    // Accepted: [-rank, -2] and [0, rank - 2]; the trailing [1 or 2] dim
    // cannot be transformed (the builder rejects it).
    if (a < 0)
      a += rank;
    if (inverse && onesided)
      return buildInverseRealDFT(b, ctx.loc, *x, a, length);
    return buildDFT(b, ctx.loc, *x, a, length, inverse, onesided);
  };
  if (ctx.opset >= 20 && ctx.hasInput(2)) {
    DenseElementsAttr c = ctx.optionalConstantInput(2);
    if (!c) {
      FailureOr<Value> a = ctx.input(2);
      if (failed(a))
        return failure();
      // Axes whose extent is unknown, or too short for an inverse of a
      // one-sided spectrum of default length, cannot be candidates.
      auto valid = [&](int64_t c) {
        int64_t extent = cast<RankedTensorType>(x->getType()).getDimSize(c);
        return !ShapedType::isDynamic(extent) &&
               (length || !(inverse && onesided) || extent >= 2);
      };
      return ctx.setResult(
          0, dftAlongRuntimeAxis(ctx, *a, rank, valid, transform));
    }
    if (c.getNumElements() != 1 || !c.getElementType().isInteger())
      return emitError(ctx.loc)
             << "DFT: axis must be a one-element integer tensor";
    axis = (*c.getValues<APInt>().begin()).getSExtValue();
  } else if (ctx.opset >= 20) {
    axis = -2;
  }
  return ctx.setResult(0, transform(ctx.b, axis));
}

/// STFT (opset 17): inputs signal, frame_step, window (optional),
/// frame_length (optional; the window's length when absent); attribute
/// onesided (default 1). frame_step and frame_length may be run-time
/// values.
LogicalResult importSTFT(NodeContext &ctx) {
  FailureOr<Value> signal = ctx.input(0);
  FailureOr<Value> step = scalarIndexInput(ctx, 1, "frame_step");
  if (failed(signal) || failed(step))
    return failure();
  Value window = ctx.optionalInput(2);
  Value frameLength;
  if (ctx.hasInput(3)) {
    FailureOr<Value> fl = scalarIndexInput(ctx, 3, "frame_length");
    if (failed(fl))
      return failure();
    frameLength = *fl;
  } else if (window) {
    auto wt = dyn_cast<RankedTensorType>(window.getType());
    if (!wt || wt.getRank() != 1)
      return emitError(ctx.loc)
             << "STFT: window must be 1-D, got " << window.getType();
    frameLength = tensor::DimOp::create(ctx.b, ctx.loc, window, 0);
  } else {
    return emitError(ctx.loc) << "STFT: needs a window or a frame_length input";
  }
  FailureOr<Value> result =
      buildSTFT(ctx.b, ctx.loc, *signal, *step, window, frameLength,
                ctx.getInt("onesided", 1) != 0);
  if (failed(result))
    return failure();
  return ctx.setResult(0, refineToOutputShape(ctx, *result));
}

/// The one-element numeric input `i` as an f64 value.
FailureOr<Value> scalarF64Input(NodeContext &ctx, unsigned i, StringRef what) {
  FailureOr<Value> v = ctx.input(i);
  if (failed(v))
    return failure();
  auto type = dyn_cast<RankedTensorType>(v->getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() != 1 ||
      !(isa<FloatType>(type.getElementType()) ||
        type.getElementType().isSignlessInteger()))
    return emitError(ctx.loc)
           << ctx.node.op_type() << ": " << what
           << " must be a one-element numeric tensor, got " << v->getType();
  Value zero = arith::ConstantIndexOp::create(ctx.b, ctx.loc, 0);
  SmallVector<Value> indices(type.getRank(), zero);
  Value elem = tensor::ExtractOp::create(ctx.b, ctx.loc, *v, indices);
  Type f64 = ctx.b.getF64Type();
  if (isa<IntegerType>(elem.getType()))
    return arith::SIToFPOp::create(ctx.b, ctx.loc, f64, elem).getResult();
  if (elem.getType() != f64)
    return arith::ExtFOp::create(ctx.b, ctx.loc, f64, elem).getResult();
  return elem;
}

/// MelWeightMatrix (opset 17): all five inputs may be run-time scalars;
/// output_datatype FLOAT, FLOAT16 or DOUBLE (others unsupported).
LogicalResult importMelWeightMatrix(NodeContext &ctx) {
  int64_t dtype = ctx.getInt("output_datatype", onnx::TensorProto::FLOAT);
  Type elt;
  if (dtype == onnx::TensorProto::FLOAT)
    elt = ctx.b.getF32Type();
  else if (dtype == onnx::TensorProto::DOUBLE)
    elt = ctx.b.getF64Type();
  else if (dtype == onnx::TensorProto::FLOAT16)
    elt = ctx.b.getF16Type();
  else
    return emitError(ctx.loc)
           << "unsupported MelWeightMatrix output_datatype " << dtype;
  FailureOr<Value> bins = scalarIndexInput(ctx, 0, "num_mel_bins");
  FailureOr<Value> length = scalarIndexInput(ctx, 1, "dft_length");
  FailureOr<Value> rate = scalarF64Input(ctx, 2, "sample_rate");
  FailureOr<Value> lower = scalarF64Input(ctx, 3, "lower_edge_hertz");
  FailureOr<Value> upper = scalarF64Input(ctx, 4, "upper_edge_hertz");
  if (failed(bins) || failed(length) || failed(rate) || failed(lower) ||
      failed(upper))
    return failure();
  FailureOr<Value> result = buildMelWeightMatrix(ctx.b, ctx.loc, *bins, *length,
                                                 *rate, *lower, *upper, elt);
  if (failed(result))
    return failure();
  return ctx.setResult(0, refineToOutputShape(ctx, *result));
}

/// TfIdfVectorizer (opset 9) with an integer pool (`pool_int64s`):
/// ngram_counts gives where the n-grams of each length n = 1, 2, ... start
/// in the pool, ngram_indexes the feature of each n-gram, mode TF / IDF /
/// TFIDF with optional `weights`.
/// Unsupported: string pools and inputs.
LogicalResult importTfIdfVectorizer(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  const onnx::AttributeProto *strings = ctx.attribute("pool_strings");
  if (strings && strings->strings_size() > 0)
    return emitError(ctx.loc)
           << "unsupported TfIdfVectorizer with a string pool";
  std::string mode = ctx.getString("mode", "");
  std::optional<NGramWeighting> weighting =
      llvm::StringSwitch<std::optional<NGramWeighting>>(mode)
          .Case("TF", NGramWeighting::TF)
          .Case("IDF", NGramWeighting::IDF)
          .Case("TFIDF", NGramWeighting::TFIDF)
          .Default(std::nullopt);
  if (!weighting)
    return emitError(ctx.loc)
           << "TfIdfVectorizer: mode must be TF, IDF or TFIDF, got '" << mode
           << "'";
  NGramVocabulary vocab;
  vocab.minLength = ctx.getInt("min_gram_length", 1);
  vocab.maxLength = ctx.getInt("max_gram_length", 1);
  vocab.maxSkip = ctx.getInt("max_skip_count", 0);
  if (vocab.minLength < 1 || vocab.maxLength < vocab.minLength ||
      vocab.maxSkip < 0)
    return emitError(ctx.loc) << "TfIdfVectorizer: invalid gram lengths ["
                              << vocab.minLength << ", " << vocab.maxLength
                              << "] or max_skip_count " << vocab.maxSkip;
  SmallVector<int64_t> pool = ctx.getInts("pool_int64s");
  SmallVector<int64_t> starts = ctx.getInts("ngram_counts");
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t n = i + 1, begin = starts[i];
    int64_t end = i + 1 < starts.size() ? starts[i + 1] : pool.size();
    if (begin < 0 || end < begin || end > int64_t(pool.size()) ||
        (end - begin) % n != 0)
      return emitError(ctx.loc)
             << "TfIdfVectorizer: ngram_counts entry " << i
             << " does not split the pool into " << n << "-grams";
    for (int64_t g = begin; g < end; g += n)
      vocab.grams.emplace_back(pool.begin() + g, pool.begin() + g + n);
  }
  vocab.featureIndices = ctx.getInts("ngram_indexes");
  if (const onnx::AttributeProto *w = ctx.attribute("weights"))
    vocab.weights.assign(w->floats().begin(), w->floats().end());
  return ctx.setResult(
      0, buildNGramFeatures(ctx.b, ctx.loc, *x, vocab, *weighting));
}

} // namespace

void registerSignalOps(OpTable &table) {
  table.add({
      {"DFT", importDFT},
      {"STFT", importSTFT},
      {"MelWeightMatrix", importMelWeightMatrix},
      {"TfIdfVectorizer", importTfIdfVectorizer},
  });
}

} // namespace mlprog::onnx_import
