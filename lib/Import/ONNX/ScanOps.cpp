//===- ScanOps.cpp - ONNX Scan --------------------------------------------===//
//
// Scan (opsets 8 and 9+) maps onto scf.for over the scanned axis, its body
// imported through the graph importer like If's and Loop's
// (ControlFlowOps.cpp); Scan-8's batch is an outer scf.for.
//
//===----------------------------------------------------------------------===//

#include "ControlFlowUtils.h"
#include "NodeContext.h"

#include "mlprog/Import/Common/Sequence.h"
#include "mlprog/Import/Common/Shape.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <functional>
#include <optional>

using namespace mlir;

namespace mlprog::onnx_import {
namespace {

using namespace controlflow;

//===--- Scan -------------------------------------------------------------===//

/// The outputs of one Scan body run (the next states, then one element per
/// scan output) from its inputs (the states, then one slice per scan
/// input).
using ScanBodyFn =
    llvm::function_ref<FailureOr<SmallVector<Value>>(ValueRange inputs)>;

/// One scan loop: `states` are carried, `scans` sliced along `inAxes`
/// (reversed where `inDirs` is 1) for `length` iterations; each of the
/// `outAxes.size()` scan outputs stacks its elements along its axis in
/// `outAxes` (not yet normalized: the element ranks are known only once the
/// body is imported), reversed where `outDirs` is 1, in `extent` rows
/// (static where known, so that statically shaped elements stack into a
/// static type). With `padded` (Scan-8's sequence_lens) `length` may be
/// shorter than `extent`: the rows past it are zeros.
struct ScanLoop {
  SmallVector<Value> states, scans;
  SmallVector<int64_t> inAxes, inDirs, outAxes, outDirs;
  Value length;
  OpFoldResult extent;
  bool padded = false;
  /// The extents, known before the loop, of scan output k's elements of
  /// run-time type `et` (or none): such outputs are preallocated rather
  /// than grown.
  std::function<std::optional<SmallVector<OpFoldResult>>(unsigned k,
                                                         RankedTensorType et)>
      elementSizes;
};

/// `acc` filled with zeros.
Value fillZeros(OpBuilder &b, Location loc, Value acc) {
  Type elementType = cast<RankedTensorType>(acc.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elementType));
  return linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{acc})
      .getResult(0);
}

/// Builds `loop` as an scf.for whose body `body` builds, and returns the
/// final states followed by the stacked scan outputs. Scan outputs whose
/// elements have a run-time shape (and no `elementSizes`) grow by one
/// element per iteration.
FailureOr<SmallVector<Value>>
buildScanLoop(NodeContext &ctx, const ScanLoop &loop, ScanBodyFn body) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  ArrayRef<Value> states = loop.states, scans = loop.scans;
  int numState = states.size();
  int numScanOut = loop.outAxes.size();
  Value length = loop.length;
  OpFoldResult extent = loop.extent;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, length, one);

  SmallVector<Type> stateTypes = typesOf(states);
  SmallVector<Type> scanTypes;
  SmallVector<int64_t> outAxes;
  bool haveScanTypes = numScanOut == 0;
  for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
    SmallVector<Value> inits;
    for (auto [v, t] : llvm::zip(states, stateTypes))
      inits.push_back(castTo(b, loc, v, t));
    SmallVector<bool> preallocated;
    if (haveScanTypes)
      for (auto [k, t, axis] : llvm::enumerate(scanTypes, outAxes)) {
        auto et = cast<RankedTensorType>(t);
        std::optional<SmallVector<OpFoldResult>> sizes;
        if (et.hasStaticShape())
          sizes = getAsIndexOpFoldResult(b.getContext(), et.getShape());
        else if (loop.elementSizes)
          sizes = loop.elementSizes(k, et);
        preallocated.push_back(sizes.has_value());
        if (sizes) {
          Value acc = emptyAccumulator(b, loc, et.getElementType(), *sizes,
                                       extent, axis);
          // Rows past a shorter length are defined as zeros.
          if (loop.padded)
            acc = fillZeros(b, loc, acc);
          inits.push_back(acc);
          continue;
        }
        if (loop.padded)
          return emitError(loc) << "unsupported Scan-8 with sequence_lens "
                                   "and a scan output of run-time shape "
                                << t;
        // Elements of run-time shape: a sequence [n, element dims] that
        // grows by one element per iteration, moved to `axis` at the end.
        FailureOr<Value> acc = emptyGrowable(b, loc, et);
        if (failed(acc))
          return failure();
        inits.push_back(*acc);
      }
    auto forOp = scf::ForOp::create(b, loc, zero, length, one, inits);
    auto buildBody = [&]() -> FailureOr<bool> {
      OpBuilder::InsertionGuard guard(b);
      Block *block = forOp.getBody();
      if (!block->empty())
        block->back().erase();
      b.setInsertionPointToEnd(block);
      Value iv = forOp.getInductionVar();
      Value reversed = arith::SubIOp::create(b, loc, last, iv);
      SmallVector<Value> bodyInputs;
      for (int i = 0; i < numState; ++i)
        bodyInputs.push_back(forOp.getRegionIterArg(i));
      for (auto [j, scan] : llvm::enumerate(scans)) {
        int64_t axis = loop.inAxes[j];
        auto type = cast<RankedTensorType>(scan.getType());
        int64_t rank = type.getRank();
        SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
        offsets[axis] = loop.inDirs[j] ? reversed : iv;
        SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, scan);
        sizes[axis] = b.getIndexAttr(1);
        SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
        SmallVector<int64_t> shape(type.getShape());
        shape.erase(shape.begin() + axis);
        auto sliceType = RankedTensorType::get(shape, type.getElementType());
        bodyInputs.push_back(tensor::ExtractSliceOp::create(
            b, loc, sliceType, scan, offsets, sizes, strides));
      }
      FailureOr<SmallVector<Value>> outputs = body(bodyInputs);
      if (failed(outputs))
        return failure();
      ArrayRef<Value> out = *outputs;
      ValueRange stateOut(out.take_front(numState));
      ValueRange scanOut(out.drop_front(numState));
      FailureOr<bool> changed =
          joinInto(ctx, stateTypes, TypeRange(stateOut), "Scan state value");
      if (failed(changed))
        return failure();
      for (auto [k, t] : llvm::enumerate(TypeRange(scanOut)))
        if (!isa<RankedTensorType>(t))
          return emitError(loc)
                 << "unsupported scan output " << k << " of type " << t;
      SmallVector<Type> observedScan = typesOf(scanOut);
      if (haveScanTypes && observedScan != scanTypes)
        return emitError(loc) << "unsupported Scan output whose type "
                                 "changes between iterations";
      if (*changed || !haveScanTypes) {
        scanTypes = observedScan;
        outAxes.clear();
        for (auto [axis, v] : llvm::zip(loop.outAxes, scanOut)) {
          FailureOr<int64_t> a = normalizeAxis(ctx, axis, rankOf(v) + 1);
          if (failed(a))
            return failure();
          outAxes.push_back(*a);
        }
        haveScanTypes = true;
        return false;
      }
      SmallVector<Value> yielded;
      for (auto [v, t] : llvm::zip(stateOut, stateTypes))
        yielded.push_back(castTo(b, loc, v, t));
      for (auto [k, element] : llvm::enumerate(scanOut)) {
        Value acc = forOp.getRegionIterArg(numState + k);
        if (preallocated[k]) {
          yielded.push_back(insertSlice(b, loc, element, acc,
                                        loop.outDirs[k] ? reversed : iv,
                                        outAxes[k]));
          continue;
        }
        // Reversed outputs are built front to back by inserting first.
        FailureOr<Value> grown = buildSequenceInsert(
            b, loc, acc, element,
            loop.outDirs[k] ? OpFoldResult(b.getIndexAttr(0)) : OpFoldResult());
        if (failed(grown))
          return failure();
        yielded.push_back(castTo(b, loc, *grown, acc.getType()));
      }
      scf::YieldOp::create(b, loc, yielded);
      return true;
    };
    FailureOr<bool> built = buildBody();
    if (failed(built) || !*built) {
      forOp.erase();
      if (failed(built))
        return failure();
      continue;
    }
    SmallVector<Value> results;
    for (unsigned i = 0; i < forOp.getNumResults(); ++i) {
      Value r = forOp.getResult(i);
      int k = int(i) - numState;
      if (k >= 0 && !preallocated[k] && outAxes[k] != 0) {
        // [n, element dims] -> n at the output axis.
        int64_t rank = rankOf(r);
        SmallVector<int64_t> perm;
        for (int64_t d = 1; d < rank; ++d) {
          if (d - 1 == outAxes[k])
            perm.push_back(0);
          perm.push_back(d);
        }
        if (int64_t(perm.size()) < rank)
          perm.push_back(0);
        FailureOr<Value> moved = buildTranspose(b, loc, r, perm);
        if (failed(moved))
          return failure();
        r = *moved;
      }
      results.push_back(r);
    }
    return results;
  }
  return emitError(loc) << "unsupported Scan: state types did not settle "
                           "after "
                        << kMaxAttempts << " attempts";
}

/// The `n` entries of Scan's integer list attribute `name` (all 0 when
/// absent); with `values`, each an axis normalized against the rank of its
/// value.
FailureOr<SmallVector<int64_t>> readScanInts(NodeContext &ctx, StringRef name,
                                             size_t n, ValueRange values = {}) {
  SmallVector<int64_t> ints = ctx.getInts(name);
  if (ints.empty())
    ints.assign(n, 0);
  if (ints.size() != n)
    return emitError(ctx.loc) << "Scan " << name << " needs " << n
                              << " entries, got " << ints.size();
  for (auto [axis, v] : llvm::zip(ints, values)) {
    FailureOr<int64_t> a = normalizeAxis(ctx, axis, rankOf(v));
    if (failed(a))
      return failure();
    axis = *a;
  }
  return ints;
}

/// The number of state variables of a Scan with `numInputs` inputs (past
/// Scan-8's sequence_lens), `numScanInputs` of them scanned: a located
/// error unless 1 <= num_scan_inputs <= inputs and the body takes every
/// input and returns at least the states.
FailureOr<int> getScanStateCount(NodeContext &ctx, const onnx::GraphProto &body,
                                 int numInputs, int64_t numScanInputs) {
  if (numScanInputs < 1 || numScanInputs > numInputs)
    return emitError(ctx.loc) << "Scan num_scan_inputs must be in [1, "
                              << numInputs << "], got " << numScanInputs;
  int numState = numInputs - int(numScanInputs);
  if (body.input_size() != numInputs || body.output_size() < numState)
    return emitError(ctx.loc)
           << "Scan body must take " << numInputs
           << " inputs and return at least " << numState << " outputs";
  return numState;
}

/// Scan-8: a batch of scans. Inputs are (sequence_lens?, initial states
/// [batch, ...], scan inputs [batch, sequence, ...]); batch b runs `body`
/// over the first sequence_lens[b] (default: all) slices of its scan inputs
/// along axis 1 (reversed per `directions`), and the node returns the
/// final states [batch, ...] and the scan outputs [batch, max sequence,
/// ...] (rows past a batch's length are zeros; the spec leaves them
/// undefined). Built as an outer scan over the batch whose body is the
/// inner scan; sequence lengths are clamped to [0, max sequence].
LogicalResult importScan8(NodeContext &ctx, const onnx::GraphProto &body,
                          int64_t numScanInputs) {
  OpBuilder &b = ctx.b;
  Location loc = ctx.loc;
  int numInputs = ctx.node.input_size() - 1;
  FailureOr<int> stateCount =
      getScanStateCount(ctx, body, numInputs, numScanInputs);
  if (failed(stateCount))
    return failure();
  int numState = *stateCount;
  int numScanOut = body.output_size() - numState;
  ScanLoop batch;
  for (int i = 0; i < numInputs; ++i) {
    FailureOr<Value> v = ctx.input(i + 1);
    if (failed(v))
      return failure();
    int64_t minRank = i < numState ? 1 : 2;
    if (rankOf(*v) < minRank)
      return emitError(loc) << "Scan-8 input " << i + 1 << " needs rank "
                            << minRank << " or more (a leading batch axis"
                            << (minRank == 2 ? " and a sequence axis" : "")
                            << "), got " << v->getType();
    batch.scans.push_back(*v);
  }
  FailureOr<SmallVector<int64_t>> directions =
      readScanInts(ctx, "directions", numScanInputs);
  if (failed(directions))
    return failure();
  Value lens = ctx.optionalInput(0);
  if (lens) {
    auto t = dyn_cast<RankedTensorType>(lens.getType());
    if (!t || t.getRank() != 1 || !t.getElementType().isInteger(64))
      return emitError(loc) << "Scan-8 sequence_lens must be a 1-D int64 "
                               "tensor, got "
                            << lens.getType();
    batch.scans.push_back(lens);
  }
  Value first = batch.scans[numState];
  batch.extent = tensor::getMixedSize(b, loc, first, 0);
  batch.length = getValueOrCreateConstantIndexOp(b, loc, batch.extent);
  OpFoldResult maxExtent = tensor::getMixedSize(b, loc, first, 1);
  Value maxLength = getValueOrCreateConstantIndexOp(b, loc, maxExtent);
  batch.inAxes.assign(batch.scans.size(), 0);
  batch.inDirs.assign(batch.scans.size(), 0);
  batch.outAxes.assign(numState + numScanOut, 0);
  batch.outDirs.assign(numState + numScanOut, 0);

  // A batch's scan outputs are [maximum sequence, element dims]: with
  // static element dims they are preallocated (growing them would leave an
  // accumulator whose empty initial type canonicalization folds into the
  // loop).
  batch.elementSizes =
      [&](unsigned k,
          RankedTensorType et) -> std::optional<SmallVector<OpFoldResult>> {
    if (int(k) < numState || et.getRank() < 1 ||
        llvm::any_of(et.getShape().drop_front(), ShapedType::isDynamic))
      return std::nullopt;
    SmallVector<OpFoldResult> sizes{maxExtent};
    for (int64_t d : et.getShape().drop_front())
      sizes.push_back(b.getIndexAttr(d));
    return sizes;
  };
  auto scanOneBatch = [&](ValueRange slices) -> FailureOr<SmallVector<Value>> {
    ScanLoop inner;
    inner.states.assign(slices.begin(), slices.begin() + numState);
    inner.scans.assign(slices.begin() + numState, slices.begin() + numInputs);
    inner.inAxes.assign(numScanInputs, 0);
    inner.inDirs = *directions;
    inner.outAxes.assign(numScanOut, 0);
    inner.outDirs.assign(numScanOut, 0);
    inner.length = maxLength;
    inner.extent = maxExtent;
    if (lens) {
      Value n = tensor::ExtractOp::create(b, loc, slices.back(), ValueRange{});
      n = arith::IndexCastOp::create(b, loc, b.getIndexType(), n);
      n = arith::MaxSIOp::create(b, loc, n,
                                 arith::ConstantIndexOp::create(b, loc, 0));
      inner.length = arith::MinSIOp::create(b, loc, n, maxLength);
      inner.padded = true;
    }
    return buildScanLoop(ctx, inner, [&](ValueRange inputs) {
      return importSubgraph(ctx, body, inputs);
    });
  };
  FailureOr<SmallVector<Value>> results =
      buildScanLoop(ctx, batch, scanOneBatch);
  if (failed(results))
    return failure();
  for (auto [i, r] : llvm::enumerate(*results))
    if (failed(ctx.setResult(i, r)))
      return failure();
  return success();
}

} // namespace

/// Scan (opset 9-16): iterates `body` over slices of the `num_scan_inputs`
/// last inputs along `scan_input_axes` (default 0; `scan_input_directions`
/// 1 = reverse), carrying the first inputs as state; the body returns the
/// next state and one element per scan output, which the node stacks along
/// `scan_output_axes` (reversed per `scan_output_directions`). Lowered to
/// scf.for over the sequence length (the extent of the first scan input).
/// Scan outputs whose elements have a run-time shape grow by one element
/// per iteration. Scan-8 (batched, with sequence_lens) is importScan8.
LogicalResult controlflow::importScan(NodeContext &ctx) {
  Location loc = ctx.loc;
  FailureOr<const onnx::GraphProto *> bodyOr = getGraph(ctx, "body");
  if (failed(bodyOr))
    return failure();
  const onnx::GraphProto &body = **bodyOr;
  int64_t numScanInputs = ctx.getInt("num_scan_inputs", 0);
  if (ctx.opset < 9)
    return importScan8(ctx, body, numScanInputs);
  int numInputs = ctx.node.input_size();
  FailureOr<int> stateCount =
      getScanStateCount(ctx, body, numInputs, numScanInputs);
  if (failed(stateCount))
    return failure();
  int numState = *stateCount;
  int numScanOut = body.output_size() - numState;
  ScanLoop loop;
  for (int i = 0; i < numInputs; ++i) {
    FailureOr<Value> v = ctx.input(i);
    if (failed(v))
      return failure();
    (i < numState ? loop.states : loop.scans).push_back(*v);
  }
  FailureOr<SmallVector<int64_t>> inAxes =
      readScanInts(ctx, "scan_input_axes", loop.scans.size(), loop.scans);
  FailureOr<SmallVector<int64_t>> inDirs =
      readScanInts(ctx, "scan_input_directions", loop.scans.size());
  FailureOr<SmallVector<int64_t>> outDirs =
      readScanInts(ctx, "scan_output_directions", numScanOut);
  // Output axes are normalized once the element ranks are known.
  FailureOr<SmallVector<int64_t>> outAxes =
      readScanInts(ctx, "scan_output_axes", numScanOut);
  if (failed(inAxes) || failed(inDirs) || failed(outDirs) || failed(outAxes))
    return failure();
  loop.inAxes = *inAxes;
  loop.inDirs = *inDirs;
  loop.outDirs = *outDirs;
  loop.outAxes = *outAxes;
  loop.extent = tensor::getMixedSize(ctx.b, loc, loop.scans[0], loop.inAxes[0]);
  loop.length = getValueOrCreateConstantIndexOp(ctx.b, loc, loop.extent);
  FailureOr<SmallVector<Value>> results =
      buildScanLoop(ctx, loop, [&](ValueRange inputs) {
        return importSubgraph(ctx, body, inputs);
      });
  if (failed(results))
    return failure();
  for (auto [i, r] : llvm::enumerate(*results))
    if (failed(ctx.setResult(i, r)))
      return failure();
  return success();
}

} // namespace mlprog::onnx_import
