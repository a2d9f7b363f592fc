#!/usr/bin/env python3
"""Writes the ONNX form of torch.tensor_split(x, (1,), dim=2) that the
legacy torch.onnx exporter (opset 17) gives torchvision's mvit_v2_s pooling
(its class token split from the other tokens): a SequenceEmpty, a Loop of
one iteration that inserts x[:, :, 0:1] into it, a SequenceInsert of
x[:, :, 1:], and SequenceAt 0 and 1. The two elements differ in shape
([b, 1, 1, 4] and [b, 1, 18, 4]). As mvit's pooling does next, the tokens
are transposed, reshaped to [b * 1, C, 3, 6] with C read from their Shape,
and pooled by a depthwise Conv (group 4, kernel 3, pads 1, strides 1x2):
the Conv needs C static.

Usage: make_tensor_split_sequence_model.py OUT_DIR
Writes OUT_DIR/model.onnx, in.npy (b = 3) and numpy's results ref_0.npy
(x[:, :, 0:1]), ref_1.npy (x[:, :, 1:]) and ref_2.npy (the pooled tokens).
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def const(name, value):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(np.asarray(value)))


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    f = TensorProto.FLOAT
    body = helper.make_graph(
        [const("bounds", np.array([0, 1], np.int64)),
         const("one", np.array(1, np.int64)),
         helper.make_node("Gather", ["bounds", "i"], ["start"], axis=0),
         helper.make_node("Add", ["i", "one"], ["i1"]),
         helper.make_node("Gather", ["bounds", "i1"], ["end"], axis=0),
         helper.make_node("Slice", ["x", "start", "end", "axis2"], ["piece"]),
         helper.make_node("SequenceInsert", ["seq_in", "piece"], ["seq_out"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, [1]),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_in", f,
                                                [None] * 4)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_sequence_value_info("seq_out", f, [None] * 4)])
    nodes = [
        const("axis2", np.array([2], np.int64)),
        const("trips", np.array(1, np.int64)),
        const("true", np.array(True)),
        const("from1", np.array([1], np.int64)),
        const("to19", np.array([19], np.int64)),
        const("at0", np.array(0, np.int64)),
        const("at1", np.array(1, np.int64)),
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=f),
        helper.make_node("Loop", ["trips", "true", "empty"], ["seq1"],
                         body=body),
        helper.make_node("Slice", ["x", "from1", "to19", "axis2"], ["rest"]),
        helper.make_node("SequenceInsert", ["seq1", "rest"], ["seq2"]),
        helper.make_node("SequenceAt", ["seq2", "at0"], ["cls"]),
        helper.make_node("SequenceAt", ["seq2", "at1"], ["tokens"]),
        helper.make_node("Transpose", ["tokens"], ["tokens_t"],
                         perm=[0, 1, 3, 2]),
        helper.make_node("Shape", ["tokens_t"], ["shape"]),
        const("d0", np.array(0, np.int64)),
        const("d1", np.array(1, np.int64)),
        const("d2", np.array(2, np.int64)),
        const("zero1", np.array([0], np.int64)),
        const("thw", np.array([3, 6], np.int64)),
        helper.make_node("Gather", ["shape", "d0"], ["b"], axis=0),
        helper.make_node("Gather", ["shape", "d1"], ["n"], axis=0),
        helper.make_node("Gather", ["shape", "d2"], ["c"], axis=0),
        helper.make_node("Mul", ["b", "n"], ["bn"]),
        helper.make_node("Unsqueeze", ["bn", "zero1"], ["bn1"]),
        helper.make_node("Unsqueeze", ["c", "zero1"], ["c1"]),
        helper.make_node("Concat", ["bn1", "c1", "thw"], ["target"], axis=0),
        helper.make_node("Reshape", ["tokens_t", "target"], ["grid"]),
        helper.make_node("Conv", ["grid", "w"], ["pooled"], group=4,
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                         strides=[1, 2]),
    ]
    w = np.random.default_rng(1).standard_normal((4, 1, 3, 3)).astype(
        np.float32)
    graph = helper.make_graph(
        nodes, "tensor_split_sequence",
        [helper.make_tensor_value_info("x", f, ["b", 1, 19, 4])],
        # Symbolic output extents, as torch.onnx declares them where it
        # cannot infer them: the importer's own shapes are not checked
        # against the spec's.
        [helper.make_tensor_value_info(name, f, [name + str(d)
                                                 for d in range(4)])
         for name in ("cls", "tokens", "pooled")],
        [numpy_helper.from_array(w, "w")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    x = np.random.default_rng(0).standard_normal((3, 1, 19, 4)).astype(
        np.float32)
    np.save(os.path.join(out, "in.npy"), x)
    np.save(os.path.join(out, "ref_0.npy"), x[:, :, 0:1])
    np.save(os.path.join(out, "ref_1.npy"), x[:, :, 1:])
    grid = np.pad(x[:, :, 1:].transpose(0, 1, 3, 2).reshape(3, 4, 3, 6),
                  [(0, 0), (0, 0), (1, 1), (1, 1)])
    pooled = np.zeros((3, 4, 3, 3), np.float32)
    for i in range(3):
        for j in range(3):
            window = grid[:, :, i:i + 3, 2 * j:2 * j + 3]
            pooled[:, :, i, j] = (window * w[None, :, 0]).sum(axis=(2, 3))
    np.save(os.path.join(out, "ref_2.npy"), pooled)


if __name__ == "__main__":
    main()
