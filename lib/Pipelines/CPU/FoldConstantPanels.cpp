//===- FoldConstantPanels.cpp - Weight panels made at compile time --------===//
//
// --mlprog-fold-constant-panels: the register-block panels of a weight (see
// cpu::pack) are a linalg.transpose of a tensor.expand_shape of a constant
// memref.global, or of a static block of one; this pass computes them once,
// at compile time, into a global of their own, so a model does not copy its
// weights on every call.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"
#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"
#include "mlprog/Pipelines/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlprog {
#define GEN_PASS_DEF_FOLDCONSTANTPANELSPASS
#include "mlprog/Pipelines/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

namespace {
/// A linalg.transpose whose input is a constant memref.global's value or a
/// static block of one (cpu::getStaticSliceSource), possibly reshaped by
/// tensor.expand_shape and tensor.collapse_shape ops, which keep the
/// elements in their row-major order.
struct ConstantTranspose {
  linalg::TransposeOp op;
  memref::GlobalOp global;
  ElementsAttr value;
  /// The shape the permutation applies to (the transpose's input shape).
  SmallVector<int64_t> shape;
  /// The block read: its offsets (empty for all of the global) and sizes in
  /// `blockOf`, the shape of the tensor it is a block of (the global's
  /// elements in row-major order).
  SmallVector<int64_t> offsets, sizes, blockOf;
};
} // namespace

/// Matches `op` (see ConstantTranspose).
static std::optional<ConstantTranspose>
matchConstantTranspose(linalg::TransposeOp op, SymbolTable &symbols) {
  if (!op.hasPureTensorSemantics())
    return std::nullopt;
  Value input = op.getInput();
  auto inputType = dyn_cast<RankedTensorType>(input.getType());
  if (!inputType || !inputType.hasStaticShape())
    return std::nullopt;
  input = cpu::stripReshapes(input);
  SmallVector<int64_t> sizes(
      cast<RankedTensorType>(input.getType()).getShape());
  SmallVector<int64_t> offsets;
  input = cpu::getStaticSliceSource(input, &offsets);
  SmallVector<int64_t> blockOf(
      cast<RankedTensorType>(input.getType()).getShape());
  if (!offsets.empty() &&
      !cast<RankedTensorType>(input.getType()).hasStaticShape())
    return std::nullopt;
  input = cpu::stripReshapes(input);
  auto toTensor = input.getDefiningOp<bufferization::ToTensorOp>();
  if (!toTensor)
    return std::nullopt;
  auto getGlobal = toTensor.getBuffer().getDefiningOp<memref::GetGlobalOp>();
  if (!getGlobal)
    return std::nullopt;
  auto global = symbols.lookup<memref::GlobalOp>(getGlobal.getName());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return std::nullopt;
  auto value = dyn_cast<ElementsAttr>(*global.getInitialValue());
  Type element = inputType.getElementType();
  if (!value || !isa<FloatType, IntegerType>(element) || element.isInteger(1) ||
      value.getElementType() != element ||
      value.getNumElements() !=
          cast<RankedTensorType>(input.getType()).getNumElements())
    return std::nullopt;
  return ConstantTranspose{
      op,      global, value,  llvm::to_vector(inputType.getShape()),
      offsets, sizes,  blockOf};
}

namespace {
/// Folds transposes of weights into globals (see the .td description).
struct FoldConstantPanelsPass
    : public mlprog::impl::FoldConstantPanelsPassBase<FoldConstantPanelsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // One folded global per (global, shape, permutation): the three
    // contractions of a shared weight read the same panels.
    llvm::MapVector<std::pair<Operation *, Attribute>, memref::GlobalOp> folded;
    // Rounds until nothing matches: the panels of a transposed weight (a
    // convolution's filter read as [C*Fh*Fw, F]) transpose the result of
    // the first round.
    for (;;) {
      SmallVector<ConstantTranspose, 4> matches;
      module.walk([&](linalg::TransposeOp op) {
        if (std::optional<ConstantTranspose> match =
                matchConstantTranspose(op, symbols))
          matches.push_back(*match);
      });
      // A transpose whose data cannot be read stays, and matches again.
      if (foldTransposes(matches, symbols, folded) == 0)
        break;
    }
    // Globals nobody reads any more (private globals only), each once: a
    // weight can have several panels (the column blocks of a split
    // contraction).
    llvm::SetVector<Operation *> weights;
    for (auto &entry : folded)
      weights.insert(entry.first.first);
    for (Operation *op : weights) {
      auto global = cast<memref::GlobalOp>(op);
      if (global.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    }
  }

  /// Replaces each of `matches` by a global of its result, one per key of
  /// `folded`. Returns how many it replaced.
  int64_t foldTransposes(MutableArrayRef<ConstantTranspose> matches,
                         SymbolTable &symbols,
                         llvm::MapVector<std::pair<Operation *, Attribute>,
                                         memref::GlobalOp> &folded) {
    int64_t replaced = 0;
    for (ConstantTranspose &match : matches) {
      auto resultType =
          cast<RankedTensorType>(match.op.getResult()[0].getType());
      Attribute key = ArrayAttr::get(
          &getContext(),
          {DenseI64ArrayAttr::get(&getContext(), match.shape),
           DenseI64ArrayAttr::get(&getContext(), match.op.getPermutation()),
           DenseI64ArrayAttr::get(&getContext(), match.offsets),
           DenseI64ArrayAttr::get(&getContext(), match.sizes),
           DenseI64ArrayAttr::get(&getContext(), match.blockOf)});
      memref::GlobalOp &panels = folded[{match.global.getOperation(), key}];
      if (!panels) {
        std::vector<char> storage;
        FailureOr<ArrayRef<char>> bytes =
            getRawElementBytes(match.value, storage);
        if (failed(bytes))
          continue;
        uint64_t elementSize =
            getStoredElementSize(resultType.getElementType());
        std::vector<char> block;
        if (!match.offsets.empty()) {
          block = sliceRawElements(*bytes, match.blockOf, match.offsets,
                                   match.sizes, elementSize);
          bytes = ArrayRef<char>(block);
        }
        std::vector<char> data = transposeRawElements(
            *bytes, match.shape, match.op.getPermutation(), elementSize);
        std::string name = (match.global.getSymName() + "_panels").str();
        // Cache-line aligned, like the vector loads that read it.
        auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(data), /*align=*/64);
        auto attr =
            DenseResourceElementsAttr::get(resultType, name, std::move(blob));
        OpBuilder builder(match.global);
        builder.setInsertionPointAfter(match.global);
        panels = memref::GlobalOp::create(
            builder, match.global.getLoc(), builder.getStringAttr(name),
            builder.getStringAttr("private"),
            MemRefType::get(resultType.getShape(), resultType.getElementType()),
            attr, /*constant=*/true, builder.getI64IntegerAttr(64));
        symbols.insert(panels); // Renames it when the name is taken.
      }
      OpBuilder builder(match.op);
      Location loc = match.op.getLoc();
      Value buffer = memref::GetGlobalOp::create(builder, loc, panels.getType(),
                                                 panels.getSymName());
      Value tensor = bufferization::ToTensorOp::create(
          builder, loc, resultType, buffer, /*restrict=*/true,
          /*writable=*/false);
      match.op.getResult()[0].replaceAllUsesWith(tensor);
      ++replaced;
      // The transpose, then the reads of the weight that only it used.
      Operation *dead = match.op;
      while (dead && dead->use_empty()) {
        Value input = dead->getNumOperands() ? dead->getOperand(0) : Value();
        dead->erase();
        dead = input ? input.getDefiningOp() : nullptr;
      }
    }
    return replaced;
  }
};
} // namespace
