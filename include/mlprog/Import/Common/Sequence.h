//===- Sequence.h - Tensor sequences (lists, tensor arrays) -----*- C++ -*-===//
//
// Format-independent builders for sequences of tensors that share one
// element type and one shape (MIL lists, TensorFlow TensorArrays/TensorLists,
// ONNX sequences of uniform tensors). A sequence of n elements of shape
// [D...] is held as ONE ranked tensor [n, D...]: reading an element is a
// rank-reducing tensor.extract_slice, writing one a tensor.insert_slice, so a
// sequence carried through scf.while/scf.if is an ordinary loop-carried
// tensor and one-shot bufferization updates it in place. Extent 0 is static
// when the length is known at import time, dynamic otherwise (a sequence that
// may grow).
//
// Elements never written read as zero (the formats leave them undefined).
//
//===----------------------------------------------------------------------===//

#ifndef MLPROG_IMPORT_COMMON_SEQUENCE_H
#define MLPROG_IMPORT_COMMON_SEQUENCE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"

#include <optional>

namespace mlprog {

/// The tensor type of a sequence of `length` (ShapedType::kDynamic when not
/// known at import time) elements of type `element`: [length, element dims].
mlir::RankedTensorType getSequenceType(mlir::RankedTensorType element,
                                       int64_t length);

/// A sequence of `length` (an attribute or an index Value, >= 0) zero
/// elements of type `element` (its dims may be dynamic only if `elementSizes`
/// gives them: one OpFoldResult per element dim, or empty for a static
/// element shape).
/// Errors: a negative static length, dynamic element dims without sizes.
/// Spec: MIL make_list (iOS15); ONNX SequenceEmpty (length 0);
/// tf.TensorArray(size=n) / TensorListReserve.
mlir::FailureOr<mlir::Value>
buildSequenceEmpty(mlir::OpBuilder &b, mlir::Location loc,
                   mlir::RankedTensorType element, mlir::OpFoldResult length,
                   llvm::ArrayRef<mlir::OpFoldResult> elementSizes = {});

/// The number of elements of `seq`, an index (a constant when static).
/// Spec: MIL list_length; ONNX SequenceLength; TensorListLength.
mlir::Value buildSequenceLength(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::Value seq);

/// Element `index` of `seq` (an attribute or an index Value). A static index
/// must be in [-n, n) when n is static (negative counts from the end); a
/// run-time index is wrapped the same way and then clamped into [0, n) so
/// that a bad index never reads outside the sequence (a sequence of run-time
/// length that is empty reads as zeros).
/// Errors: a static index out of range, a non-sequence `seq` (rank 0).
/// Spec: MIL list_read; ONNX SequenceAt; TensorListGetItem.
mlir::FailureOr<mlir::Value> buildSequenceAt(mlir::OpBuilder &b,
                                             mlir::Location loc,
                                             mlir::Value seq,
                                             mlir::OpFoldResult index);

/// `seq` with element `index` (in [0, n)) replaced by `element`, whose type
/// must match the sequence's element type (dynamic dims are compatible with
/// any extent). When `growable`, a write at index >= n first extends the
/// sequence to index + 1 elements (the new ones zero); otherwise a write
/// outside [0, n) is skipped (a static one is an error). A negative index is
/// always an error when static, and skipped at run time.
/// The result has a dynamic extent 0 unless the new length is static.
/// Note: ONNX SequenceInsert inserts (shifting later elements); this
/// overwrites.
/// Errors: element type or shape mismatch; a static index out of range.
/// Spec: MIL list_write (dynamic_length selects `growable`);
/// TensorListSetItem / TensorArray.write.
mlir::FailureOr<mlir::Value>
buildSequenceSet(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seq,
                 mlir::OpFoldResult index, mlir::Value element, bool growable);

/// The elements at `indices` (1-D signless integer tensor [k]) stacked into
/// one tensor [k, element dims] (buildGather along dim 0: negative indices
/// count from the end, out-of-range ones clamp).
/// Spec: MIL list_gather; TensorListGather / TensorArray.gather / stack.
mlir::FailureOr<mlir::Value> buildSequenceGather(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 mlir::Value seq,
                                                 mlir::Value indices);

/// `seq` with element indices[j] replaced by elements[j] for every j
/// (`indices` 1-D signless integer [k], `elements` [k, element dims] of the
/// sequence's element type; later duplicates win). When `growable`, the
/// sequence is first extended to max(indices) + 1 elements if that is longer
/// (from the static indices when `indices` is a constant, otherwise at run
/// time); positions still out of range are skipped (buildScatterND).
/// Errors: rank, shape or element type mismatches.
/// Spec: MIL list_scatter (dynamic_length selects `growable`);
/// TensorListScatter / TensorArray.scatter / unstack.
mlir::FailureOr<mlir::Value>
buildSequenceScatter(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seq,
                     mlir::Value indices, mlir::Value elements, bool growable);

/// The sequence [k, element dims] of `elements` (at least one; same rank and
/// element type; a dim static in some element gives the result that static
/// extent, the others are assumed to match at run time).
/// Errors: no elements; differing element types; "unsupported sequence
/// whose elements differ in shape" for differing ranks or static extents.
/// Spec: ONNX SequenceConstruct-11; MIL make_list with initial elements.
mlir::FailureOr<mlir::Value> buildSequenceConstruct(mlir::OpBuilder &b,
                                                    mlir::Location loc,
                                                    mlir::ValueRange elements);

/// `seq` [n, E] with `element` inserted before position `position` (an
/// attribute or an index Value in [-n, n], negative counting from the end;
/// null appends), later elements shifting back: the result is [n + 1, E'],
/// E' the join of E and the element's extents (the element's run-time
/// extents size the result, so an empty sequence of any extents takes the
/// element's). A run-time position is wrapped once and clamped into [0, n].
/// Errors: element type mismatch; a static position out of range;
/// "unsupported sequence whose elements differ in shape" for a rank or
/// static extent mismatch.
/// Spec: ONNX SequenceInsert-11; TensorListPushBack (position null).
mlir::FailureOr<mlir::Value>
buildSequenceInsert(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seq,
                    mlir::Value element, mlir::OpFoldResult position);

/// `seq` [n, E] without element `position` (an attribute or an index Value
/// in [-n, n), negative counting from the end; null removes the last):
/// [n - 1, E]. A run-time position is wrapped once and clamped into
/// [0, n - 1]; erasing from a sequence that is empty at run time gives an
/// empty sequence.
/// Errors: a static position out of range (including any position into a
/// statically empty sequence).
/// Spec: ONNX SequenceErase-11; TensorListPopBack (position null).
mlir::FailureOr<mlir::Value> buildSequenceErase(mlir::OpBuilder &b,
                                                mlir::Location loc,
                                                mlir::Value seq,
                                                mlir::OpFoldResult position);

/// The elements of `seq` [n, D0..Dr-1] joined into one tensor: with
/// `newAxis`, stacked along a new dim `axis` in [-(r+1), r] (result
/// [D0..D(axis-1), n, Daxis..]); otherwise concatenated along `axis` in
/// [-r, r) (result extent n * Daxis there; elements of rank >= 1).
/// Errors: an axis out of range; concatenation of rank-0 elements.
/// Spec: ONNX ConcatFromSequence-11; TensorListStack / TensorArray.concat.
mlir::FailureOr<mlir::Value>
buildConcatFromSequence(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seq,
                        int64_t axis, bool newAxis);

/// `x` split along `axis` (in [-rank, rank), rank >= 1) into a sequence of
/// pieces of `chunk` extent each ([Daxis / chunk, x dims with Daxis ->
/// chunk]); without a chunk, into the Daxis pieces of extent 1, whose
/// unit dim is dropped unless `keepDims` ([Daxis, x dims without axis]).
/// Pieces of differing extents (a chunk that does not divide the extent)
/// cannot be one sequence tensor.
/// Errors: an axis out of range, chunk <= 0; "unsupported sequence whose
/// elements differ in shape" when chunk does not divide a static Daxis or
/// Daxis is dynamic (chunk != 1).
/// Spec: ONNX SplitToSequence-11 (split a scalar, or absent);
/// TensorListSplit with equal lengths.
mlir::FailureOr<mlir::Value>
buildSplitToSequence(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                     int64_t axis, std::optional<int64_t> chunk, bool keepDims);

//===--- Ragged sequences -------------------------------------------------===//
//
// A sequence whose elements may differ in shape (one rank r and one element
// type) is held as TWO tensors: `data` [n, M0..Mr-1], element k zero padded
// to the largest extents M in its leading corner (an extent every element
// shares keeps its static value in the type), and `shapes`
// tensor<n x r x i64>, element k's extents in row k. Both are ordinary
// tensors, so a ragged sequence is carried through scf.while/scf.if as two
// values; every builder applies the same positions to both, so row k of
// `shapes` always describes element k of `data`. Importers choose this form
// only where the uniform one above cannot be proved right (elements of
// differing or run-time extents).

/// A sequence of elements that may differ in shape: see above.
struct RaggedSequence {
  /// [n, M...]: the elements, zero padded to the largest extents.
  mlir::Value data;
  /// tensor<n x r x i64>: each element's extents.
  mlir::Value shapes;
};

/// The i64 tensor [r] of the extents of `element` (rank r).
mlir::Value buildShapeRow(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value element);

/// The ragged form of the uniform sequence `seq` [n, D...]: `seq` itself and
/// n copies of the row D.
/// Errors: a non-sequence `seq` (rank 0).
mlir::FailureOr<RaggedSequence>
buildRaggedFromUniform(mlir::OpBuilder &b, mlir::Location loc, mlir::Value seq);

/// An empty ragged sequence that will hold elements of type `element` (its
/// rank and element type; its dims may be dynamic): data [0, E] typed with
/// a dynamic length and `element`'s static extents (E is each static extent,
/// else 0), shapes [0, rank]. The static extents are what every element
/// inserted later must share for them to stay static in the data type (so
/// that a sequence of [b, 1, 1, C] and [b, 1, L, C] keeps C, as the class
/// token split of torchvision's mvit_v2_s needs); a dynamic dim of the data
/// type never constrains an element.
RaggedSequence buildRaggedEmpty(mlir::OpBuilder &b, mlir::Location loc,
                                mlir::RankedTensorType element);

/// The uniform sequence [n, element dims] of `seq`, whose elements the
/// caller knows to share one shape: `seq.data` cut to the extents of
/// `element` (static where `element` says, else the padded extents).
/// Spec: the stacked form of a sequence output declared with a static
/// element shape (docs/importers/onnx.md, "Sequences and optionals").
mlir::Value buildUniformFromRagged(mlir::OpBuilder &b, mlir::Location loc,
                                   const RaggedSequence &seq,
                                   mlir::RankedTensorType element);

/// Element `index` of `seq`, cut from its padding to its own extents
/// (dynamic in the result type where the elements may differ). Index rules
/// and errors as buildSequenceAt.
/// Spec: ONNX SequenceAt-11.
mlir::FailureOr<mlir::Value> buildRaggedAt(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           const RaggedSequence &seq,
                                           mlir::OpFoldResult index);

/// `seq` with `element` inserted before `position` (null appends), the data
/// re-padded to the larger of its extents and the element's. Position rules
/// as buildSequenceInsert.
/// Errors: element type mismatch; "unsupported sequence whose elements
/// differ in rank"; a static position out of range.
/// Spec: ONNX SequenceInsert-11.
mlir::FailureOr<RaggedSequence> buildRaggedInsert(mlir::OpBuilder &b,
                                                  mlir::Location loc,
                                                  const RaggedSequence &seq,
                                                  mlir::Value element,
                                                  mlir::OpFoldResult position);

/// `seq` without element `position` (null removes the last); position rules
/// and errors as buildSequenceErase.
/// Spec: ONNX SequenceErase-11.
mlir::FailureOr<RaggedSequence> buildRaggedErase(mlir::OpBuilder &b,
                                                 mlir::Location loc,
                                                 const RaggedSequence &seq,
                                                 mlir::OpFoldResult position);

/// The ragged sequence of `elements` (at least one; one rank and element
/// type; any extents).
/// Errors: no elements; differing element types; "unsupported sequence
/// whose elements differ in rank".
/// Spec: ONNX SequenceConstruct-11.
mlir::FailureOr<RaggedSequence> buildRaggedConstruct(mlir::OpBuilder &b,
                                                     mlir::Location loc,
                                                     mlir::ValueRange elements);

/// The elements of `seq` joined into one tensor: with `newAxis`, stacked
/// along a new dim `axis` (the elements must share the extents of element
/// 0, as the spec requires); otherwise concatenated along `axis` (extents
/// there summed; the other extents are element 0's). Axis rules and errors
/// as buildConcatFromSequence.
/// Spec: ONNX ConcatFromSequence-11.
mlir::FailureOr<mlir::Value>
buildRaggedConcatFromSequence(mlir::OpBuilder &b, mlir::Location loc,
                              const RaggedSequence &seq, int64_t axis,
                              bool newAxis);

/// `x` split along `axis` (in [-rank, rank), rank >= 1) by `split`, a
/// signless integer tensor known only at run time (or constant): 1-D, the
/// length of each piece (lengths past the extent are cut short, negative
/// ones are 0); 0-D, one length for every piece but the last, which takes
/// the remainder (ceil(D / split) pieces; a split below 1 counts as 1).
/// Errors: an axis out of range; a `split` of rank above 1 or not integer.
/// Spec: ONNX SplitToSequence-11 (split given).
mlir::FailureOr<RaggedSequence>
buildRaggedSplitToSequence(mlir::OpBuilder &b, mlir::Location loc,
                           mlir::Value x, int64_t axis, mlir::Value split);

} // namespace mlprog

#endif // MLPROG_IMPORT_COMMON_SEQUENCE_H
