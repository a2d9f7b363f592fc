#!/usr/bin/env python3
"""Writes an ONNX model whose sizes are computed from constants by ordinary
ops, as torchvision's detection transform does: ReduceMax over constant
image sizes, Cast to float, Div, Ceil, Cast back, Mul, then Sub against
the input's Shape and a Pad by the result, plus a ConstantOfShape of a
computed size. With every input of those nodes constant, the importer
evaluates them and the padded extents are static.

Usage: make_constant_code_model.py OUT_DIR
Writes OUT_DIR/model.onnx, OUT_DIR/in_0.npy and the numpy results
OUT_DIR/ref_0.npy (x padded to a multiple of 32) and OUT_DIR/ref_1.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    c = lambda name, v: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(np.asarray(v)))
    nodes = [
        c("sizes", np.array([[3, 40, 50], [3, 45, 33]], np.int64)),
        c("axes0", np.array([0], np.int64)),
        helper.make_node("ReduceMax", ["sizes"], ["max"], axes=[0], keepdims=0),
        helper.make_node("Cast", ["max"], ["maxf"], to=TensorProto.FLOAT),
        c("stride", np.array(32.0, np.float32)),
        helper.make_node("Div", ["maxf", "stride"], ["q"]),
        helper.make_node("Ceil", ["q"], ["qc"]),
        helper.make_node("Cast", ["qc"], ["qi"], to=TensorProto.INT64),
        c("stride_i", np.array(32, np.int64)),
        helper.make_node("Mul", ["qi", "stride_i"], ["padded"]),  # [32, 64, 64]
        helper.make_node("Shape", ["x"], ["xshape"]),
        helper.make_node("Sub", ["padded", "xshape"], ["extra"]),
        c("zeros3", np.zeros(3, np.int64)),
        helper.make_node("Concat", ["zeros3", "extra"], ["pads"], axis=0),
        helper.make_node("Pad", ["x", "pads"], ["y"]),
        c("stride_i1", np.array([1], np.int64)),
        helper.make_node("Slice", ["padded", "axes0", "stride_i1", "axes0"],
                         ["first"]),
        helper.make_node("ConstantOfShape", ["first"], ["z"],
                         value=numpy_helper.from_array(
                             np.array([7], np.int64))),
    ]
    graph = helper.make_graph(
        nodes, "constant_code",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 40, 50])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       [None, None, None]),
         helper.make_tensor_value_info("z", TensorProto.INT64, [None])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    x = np.random.default_rng(0).standard_normal((3, 40, 50)).astype(
        np.float32)
    np.save(os.path.join(out, "in_0.npy"), x)
    np.save(os.path.join(out, "ref_0.npy"),
            np.pad(x, [(0, 29), (0, 24), (0, 14)]))
    np.save(os.path.join(out, "ref_1.npy"), np.full(32, 7, np.int64))


if __name__ == "__main__":
    main()
