"""Writes ONNX models using sequences and optionals, with inputs and numpy
references, for the importer and execution tests.

usage: make_sequence_models.py NAME OUT_DIR

Writes OUT_DIR/model.onnx, OUT_DIR/input_<i>.npy and OUT_DIR/reference_<i>.npy
like make_graph_models.py. A sequence at the graph boundary is one stacked
tensor [n, element dims] when its element shape is declared static, else
two arrays, the elements zero padded to the largest extents and their int64
shapes [n, rank] (see `padded`); an optional is its element (an empty
optional sequence an empty one): docs/importers/onnx.md, "Sequences and
optionals".
NAME: see MODELS below.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL
rng = np.random.default_rng(0)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def seq_vi(name, dtype, shape):
    return helper.make_tensor_sequence_value_info(name, dtype, shape)


def padded(elements, dtype=np.float32, rank=None):
    """The boundary form of a ragged sequence: [data, shapes]."""
    rank = elements[0].ndim if elements else rank
    shapes = np.array([e.shape for e in elements], np.int64).reshape(
        len(elements), rank)
    extents = shapes.max(axis=0) if elements else [0] * rank
    data = np.zeros([len(elements)] + list(extents), dtype)
    for k, e in enumerate(elements):
        data[(k,) + tuple(slice(0, d) for d in e.shape)] = e
    return [data, shapes]


def model(nodes, inputs, outputs, opset=16):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def seq_ops():
    # [X, Y] -> insert Z at run-time position 1 -> [X, Z, Y]; erase the last
    # -> [X, Z]; length, concatenation, stacking, a negative SequenceAt.
    nodes = [
        helper.make_node("SequenceConstruct", ["x", "y"], ["s1"]),
        helper.make_node("SequenceInsert", ["s1", "z", "pos"], ["s2"]),
        helper.make_node("SequenceErase", ["s2"], ["s3"]),
        helper.make_node("SequenceLength", ["s2"], ["len"]),
        helper.make_node("ConcatFromSequence", ["s2"], ["cat"], axis=1),
        helper.make_node("ConcatFromSequence", ["s3"], ["stack"], axis=-1,
                         new_axis=1),
        helper.make_node("Constant", [], ["minus1"], value_int=-1),
        helper.make_node("SequenceAt", ["s2", "minus1"], ["last"]),
    ]
    m = model(nodes, [vi("x", F, [2, 3]), vi("y", F, [2, 3]),
                      vi("z", F, [2, 3]), vi("pos", I64, [])],
              [vi("len", I64, []), vi("cat", F, [2, 9]),
               vi("stack", F, [2, 3, 2]), vi("last", F, [2, 3]),
               seq_vi("s2", F, [2, 3])])
    x, y, z = (rng.standard_normal((2, 3)).astype(np.float32)
               for _ in range(3))
    s2 = np.stack([x, z, y])
    return m, [x, y, z, np.array(1, np.int64)], [
        np.array(3, np.int64), np.concatenate([x, z, y], axis=1),
        np.stack([x, z], axis=-1), y, s2]


def seq_loop():
    # SequenceEmpty (element shape unknown) carried through a Loop that
    # appends x + i each iteration: the sequence takes the body's element
    # shape and grows to [3, 4].
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Cast", ["i"], ["fi"], to=F),
         helper.make_node("Add", ["x", "fi"], ["e"]),
         helper.make_node("SequenceInsert", ["s_in", "e"], ["s_out"])],
        "body", [vi("i", I64, []), vi("c_in", B, []),
                 helper.make_tensor_sequence_value_info("s_in", F, None)],
        [vi("c_out", B, []),
         helper.make_tensor_sequence_value_info("s_out", F, None)])
    nodes = [
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
        helper.make_node("Constant", [], ["m"], value_int=3),
        helper.make_node("Constant", [], ["t"],
                         value=helper.make_tensor("t", B, [], [True])),
        helper.make_node("Loop", ["m", "t", "empty"], ["seq"], body=body),
    ]
    m = model(nodes, [vi("x", F, [4])], [seq_vi("seq", F, [4])])
    x = rng.standard_normal(4).astype(np.float32)
    return m, [x], [np.stack([x + i for i in range(3)])]


def split():
    # Pieces of 2 along axis 1, and unit pieces along axis 0 without their
    # axis.
    nodes = [
        helper.make_node("Constant", [], ["two"], value_int=2),
        helper.make_node("SplitToSequence", ["x", "two"], ["pieces"], axis=1),
        helper.make_node("Constant", [], ["one"], value_int=1),
        helper.make_node("SequenceAt", ["pieces", "one"], ["second"]),
        helper.make_node("SplitToSequence", ["x"], ["rows"], keepdims=0),
    ]
    m = model(nodes, [vi("x", F, [4, 6])],
              [seq_vi("pieces", F, [4, 2]), vi("second", F, [4, 2]),
               seq_vi("rows", F, [6])])
    x = rng.standard_normal((4, 6)).astype(np.float32)
    pieces = np.stack(np.split(x, 3, axis=1))
    return m, [x], [pieces, pieces[1], x]


def optional_if(cond):
    # An If whose branches give an empty optional sequence and a present
    # one; OptionalHasElement and the optional itself are outputs.
    seq_type = helper.make_sequence_type_proto(
        helper.make_tensor_type_proto(F, [3]))
    then_branch = helper.make_graph(
        [helper.make_node("Optional", [], ["none"], type=seq_type)], "then",
        [], [helper.make_value_info(
            "none", helper.make_optional_type_proto(seq_type))])
    else_branch = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["x", "x"], ["s"]),
         helper.make_node("Optional", ["s"], ["some"])], "else", [],
        [helper.make_value_info(
            "some", helper.make_optional_type_proto(seq_type))])
    nodes = [
        helper.make_node("If", ["c"], ["opt"], then_branch=then_branch,
                         else_branch=else_branch),
        helper.make_node("OptionalHasElement", ["opt"], ["has"]),
    ]
    m = model(nodes, [vi("c", B, []), vi("x", F, [3])],
              [vi("has", B, []),
               helper.make_value_info(
                   "opt", helper.make_optional_type_proto(seq_type))])
    x = rng.standard_normal(3).astype(np.float32)
    seq = np.zeros((0, 3), np.float32) if cond else np.stack([x, x])
    return m, [np.array(cond), x], [np.array(not cond), seq]


def ragged():
    # Elements of differing shapes: SequenceConstruct pads [2, 3] and [1, 3]
    # into data [2, 2, 3] plus shapes; insert [3, 3] at a run-time position,
    # read one back at a run-time position, erase one, concatenate.
    nodes = [helper.make_node("SequenceConstruct", ["x", "y"], ["s"]),
             helper.make_node("SequenceInsert", ["s", "z", "pos"], ["s2"]),
             helper.make_node("SequenceAt", ["s2", "at"], ["e"]),
             helper.make_node("SequenceErase", ["s2", "at"], ["s3"]),
             helper.make_node("ConcatFromSequence", ["s3"], ["c"], axis=0),
             helper.make_node("SequenceLength", ["s3"], ["n"]),
             helper.make_node("ConcatFromSequence", ["s"], ["c0"], axis=0)]
    m = model(nodes, [vi("x", F, [2, 3]), vi("y", F, [1, 3]),
                      vi("z", F, [3, 3]), vi("pos", I64, []),
                      vi("at", I64, [])],
              [vi("e", F, [None, 3]), vi("c", F, [None, 3]),
               vi("n", I64, []), vi("c0", F, [3, 3])])
    x, y, z = (rng.standard_normal(s).astype(np.float32)
               for s in [(2, 3), (1, 3), (3, 3)])
    s2 = [x, z, y]  # z inserted at 1
    s3 = [x, y]  # element 1 erased
    return m, [x, y, z, np.array(1, np.int64), np.array(-2, np.int64)], [
        s2[-2], np.concatenate(s3), np.array(2, np.int64),
        np.concatenate([x, y])]


def ragged_io():
    # A sequence input and output of symbolic element extents are ragged:
    # data and shapes. Insert t at the front, then split x by a run-time
    # split into a second ragged output.
    nodes = [helper.make_node("SequenceInsert", ["seq", "t", "zero"],
                              ["out"]),
             helper.make_node("SplitToSequence", ["x", "split"], ["pieces"],
                              axis=1)]
    m = model(nodes, [seq_vi("seq", F, ["N"]), vi("t", F, [3]),
                      vi("zero", I64, []), vi("x", F, [2, 5]),
                      vi("split", I64, [3])],
              [seq_vi("out", F, ["N"]), seq_vi("pieces", F, None)])
    seq = [rng.standard_normal(n).astype(np.float32) for n in (4, 1, 2)]
    t = rng.standard_normal(3).astype(np.float32)
    x = rng.standard_normal((2, 5)).astype(np.float32)
    split = np.array([1, 4, 0], np.int64)
    pieces = np.split(x, np.cumsum(split)[:-1], axis=1)
    return m, padded(seq) + [t, np.array(0, np.int64), x, split], (
        padded([t] + seq) + padded(pieces))


def ragged_loop():
    # SequenceEmpty carried through a Loop whose body inserts x[0:i+1]: the
    # body makes the sequence ragged, so the Loop carries data and shapes
    # from the first iteration; a scalar run-time split leaves a shorter
    # last piece.
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Constant", [], ["one"], value_ints=[1]),
         helper.make_node("Constant", [], ["zero"], value_ints=[0]),
         helper.make_node("Unsqueeze", ["i", "zero"], ["i1"]),
         helper.make_node("Add", ["i1", "one"], ["end"]),
         helper.make_node("Slice", ["x", "zero", "end"], ["e"]),
         helper.make_node("SequenceInsert", ["s_in", "e"], ["s_out"])],
        "body", [vi("i", I64, []), vi("c_in", B, []),
                 helper.make_tensor_sequence_value_info("s_in", F, None)],
        [vi("c_out", B, []),
         helper.make_tensor_sequence_value_info("s_out", F, None)])
    nodes = [
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=F),
        helper.make_node("Constant", [], ["t"],
                         value=helper.make_tensor("t", B, [], [True])),
        helper.make_node("Loop", ["m", "t", "empty"], ["seq"], body=body),
        helper.make_node("ConcatFromSequence", ["seq"], ["cat"], axis=0),
        helper.make_node("SplitToSequence", ["x", "chunk"], ["pieces"]),
        helper.make_node("SequenceLength", ["pieces"], ["n"]),
    ]
    m = model(nodes, [vi("x", F, [5]), vi("m", I64, []),
                      vi("chunk", I64, [])],
              [seq_vi("seq", F, None), vi("cat", F, [None]),
               vi("n", I64, [])])
    x = rng.standard_normal(5).astype(np.float32)
    seq = [x[:i + 1] for i in range(4)]
    return m, [x, np.array(4, np.int64), np.array(2, np.int64)], (
        padded(seq) + [np.concatenate(seq), np.array(3, np.int64)])


def at_untyped():
    nodes = [helper.make_node("SequenceEmpty", [], ["s"]),
             helper.make_node("Constant", [], ["zero"], value_int=0),
             helper.make_node("SequenceAt", ["s", "zero"], ["e"])]
    return model(nodes, [], [vi("e", F, [2])]), [], []


def ragged_if(cond):
    # An If whose then branch builds a ragged sequence ([2] and [3]) and
    # whose else branch a uniform one ([2] twice): the uniform side gets a
    # shapes table, and the If yields both tables as one more result.
    then_branch = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["x", "y"], ["a"])], "then",
        [], [seq_vi("a", F, None)])
    else_branch = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["x", "x"], ["b"])], "else",
        [], [seq_vi("b", F, None)])
    nodes = [helper.make_node("If", ["c"], ["s"], then_branch=then_branch,
                              else_branch=else_branch),
             helper.make_node("Constant", [], ["one"], value_int=1),
             helper.make_node("SequenceAt", ["s", "one"], ["e"])]
    m = model(nodes, [vi("c", B, []), vi("x", F, [2]), vi("y", F, [3])],
              [seq_vi("s", F, None), vi("e", F, [None])])
    x = rng.standard_normal(2).astype(np.float32)
    y = rng.standard_normal(3).astype(np.float32)
    seq = [x, y] if cond else [x, x]
    return m, [np.array(cond), x, y], padded(seq) + [seq[1]]


def uneven_split():
    nodes = [helper.make_node("Constant", [], ["split"],
                              value_ints=[1, 3]),
             helper.make_node("SplitToSequence", ["x", "split"], ["s"]),
             helper.make_node("SequenceLength", ["s"], ["n"]),
             helper.make_node("Constant", [], ["one"], value_int=1),
             helper.make_node("SequenceAt", ["s", "one"], ["e"])]
    x = rng.standard_normal(4).astype(np.float32)
    return model(nodes, [vi("x", F, [4])], [vi("n", I64, []),
                                             vi("e", F, [3])]), [x], [
        np.array(2, np.int64), x[1:]]


def insert_untyped(feed_shape=(2, 3)):
    # A sequence input declared without element shape: the tensor inserted
    # into it (through a SequenceErase) gives its elements' rank and data
    # type, [?] int64, and it is ragged (data and shapes) at the boundary.
    # s = erase(seq, 0); insert t at position 1 -> [seq[1], t, seq[2:]...].
    nodes = [helper.make_node("SequenceErase", ["seq", "zero"], ["e"]),
             helper.make_node("SequenceInsert", ["e", "t", "one"], ["out"]),
             helper.make_node("SequenceLength", ["out"], ["n"])]
    inputs = [seq_vi("seq", I64, None), vi("t", I64, [3]),
              vi("zero", I64, []), vi("one", I64, [])]
    seq = list(rng.integers(-9, 9, feed_shape).astype(np.int64))
    t = np.array([7, 8, 9], np.int64)
    out = seq[1:2] + [t] + seq[2:]
    return (model(nodes, inputs, [seq_vi("out", I64, None),
                                  vi("n", I64, [])]),
            padded(seq, np.int64) + [t, np.array(0, np.int64),
                                     np.array(1, np.int64)],
            padded(out, np.int64) + [np.array(len(out), np.int64)])


def insert_wrong_type():
    nodes = [helper.make_node("SequenceInsert", ["seq", "t"], ["out"])]
    return model(nodes, [seq_vi("seq", F, None), vi("t", I64, [3])],
                 [seq_vi("out", I64, None)]), [], []


def optional_input(present):
    # An optional tensor input is passed as its element and a presence flag.
    # Empty: the element is a placeholder (zeros) and only `has` is
    # defined.
    opt_type = helper.make_optional_type_proto(
        helper.make_tensor_type_proto(F, [2]))
    nodes = [helper.make_node("OptionalHasElement", ["opt"], ["has"]),
             helper.make_node("OptionalGetElement", ["opt"], ["e"])]
    m = model(nodes, [helper.make_value_info("opt", opt_type)],
              [vi("has", B, []), vi("e", F, [2])])
    x = rng.standard_normal(2).astype(np.float32)
    if not present:
        return m, [np.zeros(2, np.float32), np.array(False)], [
            np.array(False)]
    return m, [x, np.array(True)], [np.array(True), x]


MODELS = {
    "seq_ops": seq_ops,
    "seq_loop": seq_loop,
    "split": split,
    "optional_if_true": lambda: optional_if(True),
    "optional_if_false": lambda: optional_if(False),
    "ragged": ragged,
    "ragged_io": ragged_io,
    "ragged_loop": ragged_loop,
    "ragged_if_true": lambda: ragged_if(True),
    "ragged_if_false": lambda: ragged_if(False),
    "at_untyped": at_untyped,
    "uneven_split": uneven_split,
    "insert_untyped": insert_untyped,
    "insert_untyped_mismatch": lambda: insert_untyped((3, 4)),
    "insert_wrong_type": insert_wrong_type,
    "optional_input_present": lambda: optional_input(True),
    "optional_input_empty": lambda: optional_input(False),
}


def main():
    name, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    m, inputs, references = MODELS[name]()
    onnx.save(m, os.path.join(out_dir, "model.onnx"))
    for i, a in enumerate(inputs):
        np.save(os.path.join(out_dir, f"input_{i}.npy"), a)
    for i, a in enumerate(references):
        np.save(os.path.join(out_dir, f"reference_{i}.npy"), a)


if __name__ == "__main__":
    main()
