//===- FoldConstantTransposes.cpp - Transpose constant weights once -------===//
//
// --mlprog-fold-constant-transposes: a `linalg.transpose` of an immutable
// global's inline value (the weight of ONNX Gemm with transB, of a
// TorchScript aten::linear, ...) reads a new global that holds the
// transposed data, so the model does not transpose its weights on every
// call (mobilenet_v2's 1000x1280 classifier: about 1.5 ms of a 30 ms run).
//
//===----------------------------------------------------------------------===//

#include "mlprog/Dialect/MLProgram/IR/MLProgram.h"
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h"
#include "mlprog/Dialect/MLProgram/Transforms/RawElements.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"

namespace mlprog {
#define GEN_PASS_DEF_FOLDCONSTANTTRANSPOSES
#include "mlprog/Dialect/MLProgram/Transforms/Passes.h.inc"
} // namespace mlprog

using namespace mlir;
using namespace mlprog;

namespace {
struct FoldConstantTransposesPass
    : mlprog::impl::FoldConstantTransposesBase<FoldConstantTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // One transposed global per (global, permutation).
    llvm::MapVector<std::pair<Operation *, Attribute>, GlobalOp> folded;
    SmallVector<linalg::TransposeOp> transposes;
    module.walk([&](linalg::TransposeOp op) {
      if (op.hasPureTensorSemantics())
        transposes.push_back(op);
    });
    for (linalg::TransposeOp op : transposes) {
      auto load = op.getInput().getDefiningOp<GlobalLoadConstOp>();
      if (!load)
        continue;
      auto global = symbols.lookup<GlobalOp>(
          load.getGlobal().getLeafReference().getValue());
      if (!global || global.getIsMutable() || !global.getValue())
        continue;
      auto value = dyn_cast<ElementsAttr>(*global.getValue());
      auto type = dyn_cast<RankedTensorType>(op.getInput().getType());
      if (!value || !type || !type.hasStaticShape() ||
          value.getType() != type ||
          !isa<FloatType, IntegerType>(type.getElementType()) ||
          type.getElementType().isInteger(1))
        continue;
      auto resultType = cast<RankedTensorType>(op.getResult()[0].getType());
      Attribute key =
          DenseI64ArrayAttr::get(&getContext(), op.getPermutation());
      GlobalOp &transposed = folded[{global.getOperation(), key}];
      if (!transposed) {
        std::vector<char> storage;
        FailureOr<ArrayRef<char>> bytes = getRawElementBytes(value, storage);
        if (failed(bytes))
          continue;
        std::vector<char> data =
            transposeRawElements(*bytes, type.getShape(), op.getPermutation(),
                                 getStoredElementSize(type.getElementType()));
        std::string name = (global.getSymName() + "_transposed").str();
        // Cache-line aligned, like the vector loads that read it.
        auto blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
            ArrayRef<char>(data), /*align=*/64);
        auto attr =
            DenseResourceElementsAttr::get(resultType, name, std::move(blob));
        OpBuilder builder(global);
        builder.setInsertionPointAfter(global);
        transposed = GlobalOp::create(
            builder, global.getLoc(), builder.getStringAttr(name),
            TypeAttr::get(resultType), /*is_mutable=*/nullptr, attr,
            builder.getStringAttr("private"));
        symbols.insert(transposed); // Renames it when the name is taken.
      }
      OpBuilder builder(op);
      Value result = GlobalLoadConstOp::create(
          builder, load.getLoc(), resultType,
          FlatSymbolRefAttr::get(transposed.getSymNameAttr()));
      op.getResult()[0].replaceAllUsesWith(result);
      op.erase();
      if (load->use_empty())
        load.erase();
    }
    // Globals nobody reads any more (private ones only).
    for (auto &[key, transposed] : folded) {
      auto global = cast<GlobalOp>(key.first);
      if (global.isPrivate() &&
          SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    }
  }
};
} // namespace
