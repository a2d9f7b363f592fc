//===- SequenceOps.cpp - ONNX sequences and optionals ---------------------===//
//
// Handlers for the Sequence* ops, ConcatFromSequence, SplitToSequence and
// the Optional ops. A sequence is one tensor [n, element dims] while its
// elements provably share one shape, else a ragged sequence: padded data
// plus a shapes table recorded against it (mlprog/Import/Common/Sequence.h,
// GraphState::raggedShapes); an optional is its element's value plus
// an i1 presence flag kept by the graph state (NodeContext.h). SequenceMap
// has no handler: its ONNX function body (a Loop over SequenceAt and
// SequenceInsert) is expanded instead.
//
// Handlers only read operands and attributes (with the ONNX operator spec's
// defaults for the model's opset) and call the shared builders in
// mlprog/Import/Common; semantics belong in the builders.
//
//===----------------------------------------------------------------------===//

#include "HandlerUtils.h"
#include "NodeContext.h"
#include "TensorConversion.h"

#include "mlprog/Import/Common/Sequence.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mlprog::onnx_import {

namespace {

/// A 0-d tensor holding scalar `v`.
Value scalarTensor(NodeContext &ctx, Value v) {
  return tensor::FromElementsOp::create(
      ctx.b, ctx.loc, RankedTensorType::get({}, v.getType()), ValueRange{v});
}

/// Input `i`, a sequence. An empty sequence whose element type is not known
/// yet (SequenceEmpty) takes the extents of `element` when one is given,
/// and is an "unsupported" error otherwise.
FailureOr<Value> sequenceInput(NodeContext &ctx, unsigned i,
                               Value element = {}) {
  FailureOr<Value> seq = ctx.input(i);
  if (failed(seq) || !ctx.isUntypedSequence(*seq))
    return seq;
  if (!element)
    return emitError(ctx.loc) << "unsupported " << ctx.node.op_type()
                              << " of an empty sequence whose element type "
                                 "is not known";
  auto et = cast<RankedTensorType>(element.getType());
  SmallVector<int64_t> shape(et.getRank(), ShapedType::kDynamic);
  return buildSequenceEmpty(
      ctx.b, ctx.loc,
      RankedTensorType::get(
          shape, cast<RankedTensorType>(seq->getType()).getElementType()),
      ctx.b.getIndexAttr(0), tensor::getMixedSizes(ctx.b, ctx.loc, element));
}

/// The position input `i` (a one-element integer tensor): an attribute when
/// it is a constant, else the run-time index; null when absent.
FailureOr<OpFoldResult> positionInput(NodeContext &ctx, unsigned i) {
  if (!ctx.hasInput(i))
    return OpFoldResult();
  if (std::optional<SmallVector<int64_t>> c = constantInts(ctx, i);
      c && c->size() == 1)
    return OpFoldResult(ctx.b.getIndexAttr((*c)[0]));
  FailureOr<Value> v = scalarIndexInput(ctx, i, "position", false);
  if (failed(v))
    return failure();
  return OpFoldResult(*v);
}

/// The ragged form of sequence `seq`: its recorded shapes table, or one
/// made from its uniform extents.
FailureOr<RaggedSequence> asRagged(NodeContext &ctx, Value seq) {
  if (Value shapes = ctx.raggedShapes(seq))
    return RaggedSequence{seq, shapes};
  return buildRaggedFromUniform(ctx.b, ctx.loc, seq);
}

/// Binds output `i` to the ragged sequence `seq`.
LogicalResult setRaggedResult(NodeContext &ctx, unsigned i,
                              FailureOr<RaggedSequence> seq) {
  if (failed(seq))
    return failure();
  ctx.setRaggedShapes(seq->data, seq->shapes);
  return ctx.setResult(i, seq->data);
}

/// Whether a sequence of element type `held` that takes an element of
/// type `added` stays uniform: only when both are the same static shape
/// (run-time extents may differ at run time).
bool staysUniform(Type held, Type added) {
  auto t = dyn_cast<RankedTensorType>(held);
  return t && t == added && t.hasStaticShape();
}

/// SequenceEmpty-11: an empty sequence of `dtype` (default float) elements.
/// The element shape is taken from the first element inserted.
LogicalResult importSequenceEmpty(NodeContext &ctx) {
  FailureOr<Type> et = convertElementType(
      ctx.loc, ctx.getInt("dtype", onnx::TensorProto::FLOAT));
  if (failed(et))
    return failure();
  FailureOr<Value> seq = buildSequenceEmpty(
      ctx.b, ctx.loc, RankedTensorType::get({}, *et), ctx.b.getIndexAttr(0));
  if (failed(seq))
    return failure();
  ctx.markUntypedSequence(*seq);
  return ctx.setResult(0, *seq);
}

/// SequenceConstruct-11: the sequence of the inputs, uniform when they
/// share one static shape, else ragged.
LogicalResult importSequenceConstruct(NodeContext &ctx) {
  FailureOr<SmallVector<Value>> elements = allInputs(ctx);
  if (failed(elements))
    return failure();
  if (llvm::all_of(*elements, [&](Value e) {
        return staysUniform(elements->front().getType(), e.getType());
      }))
    return ctx.setResult(0, buildSequenceConstruct(ctx.b, ctx.loc, *elements));
  return setRaggedResult(ctx, 0,
                         buildRaggedConstruct(ctx.b, ctx.loc, *elements));
}

/// SequenceAt-11: element `position` (negative from the end).
LogicalResult importSequenceAt(NodeContext &ctx) {
  FailureOr<Value> seq = sequenceInput(ctx, 0);
  if (failed(seq))
    return failure();
  if (!ctx.hasInput(1))
    return emitError(ctx.loc) << "SequenceAt needs a position";
  FailureOr<OpFoldResult> pos = positionInput(ctx, 1);
  if (failed(pos))
    return failure();
  if (Value shapes = ctx.raggedShapes(*seq))
    return ctx.setResult(
        0, buildRaggedAt(ctx.b, ctx.loc, RaggedSequence{*seq, shapes}, *pos));
  return ctx.setResult(0, buildSequenceAt(ctx.b, ctx.loc, *seq, *pos));
}

/// SequenceInsert-11: `tensor` inserted before `position` (default: at the
/// end). The result is ragged when the sequence is, or when the tensor's
/// shape is not the sequence's static element shape (an empty sequence of
/// unknown element type takes a static tensor's shape).
LogicalResult importSequenceInsert(NodeContext &ctx) {
  FailureOr<Value> element = ctx.input(1);
  if (failed(element))
    return failure();
  FailureOr<Value> seq = ctx.input(0);
  FailureOr<OpFoldResult> pos = positionInput(ctx, 2);
  if (failed(seq) || failed(pos))
    return failure();
  auto et = dyn_cast<RankedTensorType>(element->getType());
  if (!et)
    return emitError(ctx.loc) << "SequenceInsert of a non-tensor";
  bool untyped = ctx.isUntypedSequence(*seq);
  if (!ctx.raggedShapes(*seq)) {
    if (untyped && et.hasStaticShape()) {
      FailureOr<Value> typed = sequenceInput(ctx, 0, *element);
      if (failed(typed))
        return failure();
      return ctx.setResult(
          0, buildSequenceInsert(ctx.b, ctx.loc, *typed, *element, *pos));
    }
    auto st = dyn_cast<RankedTensorType>(seq->getType());
    if (!untyped && st && st.getRank() >= 1 &&
        staysUniform(RankedTensorType::get(st.getShape().drop_front(),
                                           st.getElementType()),
                     et))
      return ctx.setResult(
          0, buildSequenceInsert(ctx.b, ctx.loc, *seq, *element, *pos));
  }
  FailureOr<RaggedSequence> ragged =
      untyped
          ? FailureOr<RaggedSequence>(buildRaggedEmpty(
                ctx.b, ctx.loc,
                RankedTensorType::get(
                    et.getShape(),
                    cast<RankedTensorType>(seq->getType()).getElementType())))
          : asRagged(ctx, *seq);
  if (failed(ragged))
    return failure();
  return setRaggedResult(
      ctx, 0, buildRaggedInsert(ctx.b, ctx.loc, *ragged, *element, *pos));
}

/// SequenceErase-11: the sequence without element `position` (default: the
/// last).
LogicalResult importSequenceErase(NodeContext &ctx) {
  FailureOr<Value> seq = sequenceInput(ctx, 0);
  FailureOr<OpFoldResult> pos = positionInput(ctx, 1);
  if (failed(seq) || failed(pos))
    return failure();
  if (Value shapes = ctx.raggedShapes(*seq))
    return setRaggedResult(
        ctx, 0,
        buildRaggedErase(ctx.b, ctx.loc, RaggedSequence{*seq, shapes}, *pos));
  return ctx.setResult(0, buildSequenceErase(ctx.b, ctx.loc, *seq, *pos));
}

/// SequenceLength-11: the number of elements, an int64 scalar.
LogicalResult importSequenceLength(NodeContext &ctx) {
  FailureOr<Value> seq = ctx.input(0);
  if (failed(seq))
    return failure();
  Value n = buildSequenceLength(ctx.b, ctx.loc, *seq);
  n = arith::IndexCastOp::create(ctx.b, ctx.loc, ctx.b.getI64Type(), n);
  return ctx.setResult(0, scalarTensor(ctx, n));
}

/// ConcatFromSequence-11: the elements concatenated along `axis`
/// (required), or stacked along a new one when `new_axis` (default 0).
LogicalResult importConcatFromSequence(NodeContext &ctx) {
  if (!ctx.attribute("axis"))
    return emitError(ctx.loc) << "ConcatFromSequence needs an axis";
  FailureOr<Value> seq = sequenceInput(ctx, 0);
  if (failed(seq))
    return failure();
  int64_t axis = ctx.getInt("axis", 0);
  bool newAxis = ctx.getInt("new_axis", 0) != 0;
  if (Value shapes = ctx.raggedShapes(*seq))
    return ctx.setResult(
        0, buildRaggedConcatFromSequence(
               ctx.b, ctx.loc, RaggedSequence{*seq, shapes}, axis, newAxis));
  return ctx.setResult(
      0, buildConcatFromSequence(ctx.b, ctx.loc, *seq, axis, newAxis));
}

/// SplitToSequence-11: `input` split along `axis` (default 0) into pieces
/// of the scalar `split`, or of the 1-D `split`'s lengths, or into unit
/// pieces whose axis is dropped unless `keepdims` (default 1). The pieces
/// are a uniform sequence when a constant split makes them one shape, else
/// a ragged one (unequal or run-time lengths, a remainder piece).
LogicalResult importSplitToSequence(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  int64_t axis = ctx.getInt("axis", 0);
  bool keepDims = ctx.getInt("keepdims", 1) != 0;
  if (!ctx.hasInput(1))
    return ctx.setResult(0, buildSplitToSequence(ctx.b, ctx.loc, *x, axis,
                                                 std::nullopt, keepDims));
  auto xt = cast<RankedTensorType>(x->getType());
  FailureOr<int64_t> a = normalizeAxis(ctx, axis, xt.getRank());
  if (failed(a))
    return failure();
  int64_t d = xt.getDimSize(*a);
  if (std::optional<SmallVector<int64_t>> split = constantInts(ctx, 1)) {
    if (split->empty())
      return emitError(ctx.loc) << "SplitToSequence split is empty";
    int64_t chunk = split->front();
    bool scalar = rankOf(ctx.optionalInput(1)) == 0;
    if (scalar && chunk <= 0)
      return emitError(ctx.loc)
             << "split length " << chunk << " must be positive";
    int64_t sum = 0;
    for (int64_t s : *split) {
      if (s < 0)
        return emitError(ctx.loc) << "negative SplitToSequence split " << s;
      sum += s;
    }
    if (!scalar && !ShapedType::isDynamic(d) && sum != d)
      return emitError(ctx.loc) << "SplitToSequence split lengths sum to "
                                << sum << ", not the extent " << d;
    bool equal = llvm::all_of(*split, [&](int64_t s) { return s == chunk; }) &&
                 (chunk == 1 || (!ShapedType::isDynamic(d) && d % chunk == 0));
    if (equal)
      return ctx.setResult(
          0, buildSplitToSequence(ctx.b, ctx.loc, *x, axis, chunk, keepDims));
  }
  FailureOr<Value> split = ctx.input(1);
  if (failed(split))
    return failure();
  return setRaggedResult(
      ctx, 0, buildRaggedSplitToSequence(ctx.b, ctx.loc, *x, axis, *split));
}

/// Optional-15: an optional holding the input, or an empty one of the
/// `type` attribute (a tensor or a sequence of tensors; extents the type
/// leaves unknown are 0 in the placeholder value).
LogicalResult importOptional(NodeContext &ctx) {
  OpBuilder &b = ctx.b;
  if (ctx.hasInput(0)) {
    FailureOr<Value> x = ctx.input(0);
    if (failed(ctx.setResult(0, x)))
      return failure();
    ctx.setOutputPresence(
        0, arith::ConstantIntOp::create(b, ctx.loc, b.getI1Type(), 1));
    return success();
  }
  const onnx::AttributeProto *attr = ctx.attribute("type");
  if (!attr || !attr->has_tp())
    return emitError(ctx.loc) << "Optional without input needs a type";
  const onnx::TypeProto *type = &attr->tp();
  bool sequence = type->has_sequence_type();
  if (sequence)
    type = &type->sequence_type().elem_type();
  if (!type->has_tensor_type())
    return emitError(ctx.loc) << "unsupported Optional of a type other than "
                                 "a tensor or a sequence of tensors";
  FailureOr<RankedTensorType> t =
      convertTensorType(ctx.loc, ctx.node.output(0), *type);
  if (failed(t))
    return failure();
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : t->getShape())
    sizes.push_back(b.getIndexAttr(ShapedType::isDynamic(d) ? 0 : d));
  FailureOr<Value> empty = buildSequenceEmpty(
      b, ctx.loc, *t, b.getIndexAttr(sequence ? 0 : 1), sizes);
  if (failed(empty))
    return failure();
  Value value = *empty;
  if (!sequence) {
    // The placeholder of an empty optional tensor: zeros of its shape.
    FailureOr<Value> element =
        buildSequenceAt(b, ctx.loc, value, b.getIndexAttr(0));
    if (failed(element))
      return failure();
    value = *element;
  }
  if (failed(ctx.setResult(0, value)))
    return failure();
  ctx.setOutputPresence(
      0, arith::ConstantIntOp::create(b, ctx.loc, b.getI1Type(), 0));
  return success();
}

/// OptionalHasElement-15/18: whether the optional holds an element (a
/// tensor or sequence input counts as present; no input, as absent).
LogicalResult importOptionalHasElement(NodeContext &ctx) {
  Value flag = ctx.inputPresence(0);
  if (!flag) {
    if (ctx.hasInput(0) && failed(ctx.input(0)))
      return failure();
    flag = arith::ConstantIntOp::create(ctx.b, ctx.loc, ctx.b.getI1Type(),
                                        ctx.hasInput(0) ? 1 : 0);
  }
  return ctx.setResult(0, scalarTensor(ctx, flag));
}

/// OptionalGetElement-15/18: the optional's element (a tensor or sequence
/// input is its own element). An empty optional gives its placeholder
/// value (ONNX makes this an error at run time).
LogicalResult importOptionalGetElement(NodeContext &ctx) {
  FailureOr<Value> x = ctx.input(0);
  if (failed(x))
    return failure();
  return ctx.setResult(0, *x);
}

} // namespace

void registerSequenceOps(OpTable &table) {
  table.add({
      {"SequenceEmpty", importSequenceEmpty},
      {"SequenceConstruct", importSequenceConstruct},
      {"SequenceAt", importSequenceAt},
      {"SequenceInsert", importSequenceInsert},
      {"SequenceErase", importSequenceErase},
      {"SequenceLength", importSequenceLength},
      {"ConcatFromSequence", importConcatFromSequence},
      {"SplitToSequence", importSplitToSequence},
      {"Optional", importOptional},
      {"OptionalHasElement", importOptionalHasElement},
      {"OptionalGetElement", importOptionalGetElement},
  });
}

} // namespace mlprog::onnx_import
