//===- Epilogues.cpp - Elementwise epilogues of contractions --------------===//
//
// An activation after a convolution or a matmul (ReLU, Clip, SiLU, GELU, a
// residual add) is an elementwise linalg.generic that reads the
// contraction's result once more from memory and writes its own. Computed in
// the contraction's register blocks instead, it applies to the accumulator
// while it is in vector registers and the contraction's result is never
// stored (see tileAndVectorize). This file finds such an epilogue and puts
// it in the contraction's shape.
//
//===----------------------------------------------------------------------===//

#include "CPUCodegen.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlprog;
using namespace mlprog::cpu;

/// The input operand of `generic` that reads `value`, when exactly one does
/// and through the identity map; null otherwise.
static OpOperand *getIdentityInput(linalg::GenericOp generic, Value value) {
  OpOperand *found = nullptr;
  for (OpOperand &operand : generic->getOpOperands()) {
    if (operand.get() != value)
      continue;
    if (found || !generic.isDpsInput(&operand) ||
        !generic.getMatchingIndexingMap(&operand).isIdentity())
      return nullptr;
    found = &operand;
  }
  return found;
}

linalg::GenericOp cpu::prepareEpilogue(RewriterBase &rewriter,
                                       linalg::LinalgOp contraction) {
  if (contraction->getNumResults() != 1)
    return {};
  Value result = contraction->getResult(0);
  if (!result.hasOneUse())
    return {};
  Operation *user = *result.getUsers().begin();
  auto expand = dyn_cast<tensor::ExpandShapeOp>(user);
  if (expand) {
    if (!expand->hasOneUse())
      return {};
    user = *expand->getUsers().begin();
  }
  auto generic = dyn_cast<linalg::GenericOp>(user);
  // Maps with constant results (a mask broadcast as (0, 0, d2, d3)) are
  // left alone: upstream's collapseOpIterationDims crashes on them.
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInits() != 1 || !linalg::isElementwise(generic) ||
      generic.hasIndexSemantics() ||
      !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
           .isIdentity() ||
      !llvm::all_of(generic.getIndexingMapsArray(), [](AffineMap map) {
        return map.isProjectedPermutation(/*allowZeroInResults=*/false);
      }))
    return {};
  // The epilogue's loops must run where the contraction's do: it is tiled in
  // its place with the contraction fused into its loops.
  if (generic->getBlock() != contraction->getBlock())
    return {};
  Value read = expand ? expand.getResult() : result;
  OpOperand *input = getIdentityInput(generic, read);
  // The epilogue's other operands are computed before it; the contraction's
  // tiles move into its loops, so they must not depend on its result.
  if (!input || generic.getDpsInitOperand(0)->get() == read)
    return {};
  if (!expand)
    return generic;

  // Loop groups as the expand_shape groups the contraction's dimensions
  // ([F, H*W] -> [1, F, H, W]): the collapsed epilogue reads the
  // contraction's result itself.
  // Everything is checked before the generic is rewritten: a null result
  // leaves the IR as it was.
  SmallVector<ReassociationIndices> groups = expand.getReassociationIndices();
  if (!linalg::areDimSequencesPreserved(generic.getIndexingMapsArray(),
                                        groups) ||
      tensor::CollapseShapeOp::inferCollapsedType(expand.getResultType(),
                                                  groups) != result.getType())
    return {};
  rewriter.setInsertionPoint(generic);
  FailureOr<linalg::CollapseResult> collapsed =
      linalg::collapseOpIterationDims(generic, groups, rewriter);
  if (failed(collapsed))
    return {};
  // A generic collapses into a generic whose operand `index` is
  // collapse_shape(read) by `groups`, of the contraction result's type
  // (checked above).
  auto collapsedGeneric =
      cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
  rewriter.replaceOp(generic, collapsed->results);
  unsigned index = input->getOperandNumber();
  OpOperand &collapsedInput = collapsedGeneric->getOpOperand(index);
  auto collapse = collapsedInput.get().getDefiningOp<tensor::CollapseShapeOp>();
  if (!collapse || collapse.getSrc() != read)
    return {}; // Not upstream's form; the IR is equivalent, not fused.
  rewriter.modifyOpInPlace(collapsedGeneric,
                           [&] { collapsedInput.set(result); });
  if (collapse->use_empty())
    rewriter.eraseOp(collapse);
  if (expand->use_empty())
    rewriter.eraseOp(expand);
  return collapsedGeneric;
}

linalg::GenericOp cpu::getUnaryEpilogue(Value value) {
  if (!value.hasOneUse())
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(*value.getUsers().begin());
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      !linalg::isElementwise(generic) || generic.hasIndexSemantics() ||
      generic->getResult(0).getType() != value.getType())
    return {};
  OpOperand *init = generic.getDpsInitOperand(0);
  OpOperand *input = generic.getDpsInputOperand(0);
  if (input->get() != value ||
      !generic.getMatchingIndexingMap(input).isIdentity() ||
      !generic.getMatchingIndexingMap(init).isIdentity() ||
      generic.payloadUsesValueFromOperand(init))
    return {};
  return generic;
}

linalg::GenericOp cpu::getElementwiseEpilogue(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !value.hasOneUse())
    return {};
  auto generic = dyn_cast<linalg::GenericOp>(*value.getUsers().begin());
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInits() != 1 || generic->getNumResults() != 1 ||
      !linalg::isElementwise(generic) || generic.hasIndexSemantics() ||
      generic->getBlock() != value.getParentBlock() ||
      generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
    return {};
  int reads = 0;
  for (OpOperand &operand : generic->getOpOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.get().getType());
    if (!operandType || operandType.getShape() != type.getShape() ||
        !generic.getMatchingIndexingMap(&operand).isIdentity())
      return {};
    if (operand.get() == value)
      reads += generic.isDpsInput(&operand) ? 1 : 2;
  }
  return reads == 1 ? generic : linalg::GenericOp();
}

linalg::GenericOp cpu::getConvolutionEpilogue(linalg::Conv2DNchwFchwOp conv) {
  linalg::GenericOp epilogue = getElementwiseEpilogue(conv.getResult(0));
  if (epilogue && llvm::any_of(epilogue->getUsers(), [](Operation *user) {
        return isa<tensor::PadOp>(user) &&
               llvm::any_of(user->getUsers(), [](Operation *pool) {
                 return isa<linalg::PoolingNchwMaxOp>(pool);
               });
      }))
    return {};
  return epilogue;
}

linalg::GenericOp cpu::cloneEpilogue(RewriterBase &rewriter,
                                     linalg::GenericOp epilogue,
                                     ValueRange inputs, Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  AffineMap identity = rewriter.getMultiDimIdentityMap(type.getRank());
  auto clone = linalg::GenericOp::create(
      rewriter, epilogue.getLoc(), TypeRange{type}, inputs, ValueRange{init},
      SmallVector<AffineMap>(inputs.size() + 1, identity),
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel));
  // The payload takes (inputs..., out) scalars either way.
  rewriter.cloneRegionBefore(epilogue.getRegion(), clone.getRegion(),
                             clone.getRegion().end());
  return clone;
}

linalg::GenericOp cpu::cloneUnaryEpilogue(RewriterBase &rewriter,
                                          linalg::GenericOp epilogue,
                                          Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  Value empty = tensor::EmptyOp::create(rewriter, epilogue.getLoc(),
                                        type.getShape(), type.getElementType());
  return cloneEpilogue(rewriter, epilogue, input, empty);
}

void cpu::replaceWithEpilogue(RewriterBase &rewriter, Operation *op,
                              linalg::GenericOp epilogue, Value result) {
  if (!epilogue) {
    rewriter.replaceOp(op, result);
    return;
  }
  rewriter.replaceOp(epilogue, result);
  rewriter.eraseOp(op);
}

/// Whether `op` of a unary epilogue's payload can be applied to vectors: an
/// elementwise-mappable arith or math op on scalars.
static bool isVectorMappable(Operation &op) {
  if (isa<linalg::YieldOp>(op))
    return true;
  if (!OpTrait::hasElementwiseMappableTraits(&op) || op.getNumRegions() != 0)
    return false;
  return llvm::all_of(op.getOperandTypes(),
                      [](Type type) { return type.isIntOrIndexOrFloat(); });
}

bool cpu::appliesToVectors(linalg::GenericOp epilogue) {
  return llvm::all_of(epilogue.getBody()->getOperations(), isVectorMappable);
}

Value cpu::applyToVector(OpBuilder &b, Location loc, linalg::GenericOp epilogue,
                         Value vector) {
  return applyToVectors(b, loc, epilogue, vector);
}

Value cpu::applyToVectors(OpBuilder &b, Location loc,
                          linalg::GenericOp epilogue, ValueRange vectors,
                          Value payloadValue) {
  auto vectorType = cast<VectorType>(vectors.front().getType());
  Block *body = epilogue.getBody();
  IRMapping mapping;
  for (auto [argument, vector] : llvm::zip(body->getArguments(), vectors))
    mapping.map(argument, vector);
  auto vectorOf = [&](Value value) -> Value {
    if (Value mapped = mapping.lookupOrNull(value))
      return mapped;
    // Defined above the payload (a constant bound): broadcast it.
    return vector::BroadcastOp::create(
        b, loc, vectorType.clone(value.getType()), value);
  };
  for (Operation &op : body->without_terminator()) {
    SmallVector<Value> operands;
    for (Value operand : op.getOperands())
      operands.push_back(vectorOf(operand));
    SmallVector<Type> types;
    for (Type type : op.getResultTypes())
      types.push_back(vectorType.clone(type));
    Operation *clone = b.create(loc, op.getName().getIdentifier(), operands,
                                types, op.getAttrs());
    mapping.map(op.getResults(), clone->getResults());
  }
  return vectorOf(payloadValue ? payloadValue
                               : body->getTerminator()->getOperand(0));
}
