#!/usr/bin/env python3
"""Writes small ONNX models of opsets 18-28 (IR version 10), with their
inputs and numpy references. Debian's onnx 1.12 knows neither these opsets
nor the newer ops, so the nodes are made by hand and not checked here.

Usage: make_opset_models.py NAME OUT_DIR
  reduce_runtime  ReduceSum-18 (keepdims) and ReduceMean-18 (no keepdims) of
                  x [?, 3, 4] over run-time axes [0, -1]; ReduceMax-20 of a
                  bool tensor over axis 1.
  elementwise_28  BitwiseAnd/BitwiseNot-18 (int32), BitShift-28 RIGHT on
                  int8 (arithmetic, amounts -1..9), Gelu-20 tanh, SwiGLU-28
                  (alpha 1.5), CumProd-26 (exclusive, reverse) and
                  SpaceToDepth-28 CRD.
  nll_22          NegativeLogLikelihoodLoss-22 (mean over [3, 4] log
                  probabilities, int64 targets): expanded from libonnx
                  1.12's body, as opset 22 only added bfloat16.
Writes OUT_DIR/model.onnx, the inputs OUT_DIR/in_<i>.npy and the numpy
results OUT_DIR/ref_<i>.npy.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper

F, B, I64 = TensorProto.FLOAT, TensorProto.BOOL, TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def save(out, nodes, inputs, outputs, feeds, refs, opset, inits=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs,
                              initializer=list(inits))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 10
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    for i, a in enumerate(feeds):
        np.save(os.path.join(out, f"in_{i}.npy"), a)
    for i, a in enumerate(refs):
        np.save(os.path.join(out, f"ref_{i}.npy"), a)


def reduce_runtime(out):
    x = np.random.RandomState(0).randn(2, 3, 4).astype(np.float32)
    axes = np.array([0, -1], np.int64)
    flags = np.array([[True, False, True], [False, False, False]])
    ax1 = helper.make_tensor("ax1", I64, [1], [1])
    save(out,
         [helper.make_node("ReduceSum", ["x", "axes"], ["s"], keepdims=1),
          helper.make_node("ReduceMean", ["x", "axes"], ["m"], keepdims=0),
          helper.make_node("ReduceMax", ["b", "ax1"], ["any"], keepdims=0)],
         [vi("x", F, ["n", 3, 4]), vi("axes", I64, [2]), vi("b", B, [2, 3])],
         [vi("s", F, [1, 3, 1]), vi("m", F, [3]), vi("any", B, [2])],
         [x, axes, flags],
         [x.sum(axis=(0, 2), keepdims=True), x.mean(axis=(0, 2)),
          flags.max(axis=1)], 20, [ax1])


def elementwise_28(out):
    rs = np.random.RandomState(1)
    a = rs.randint(-100, 100, (2, 3)).astype(np.int32)
    c = rs.randint(-100, 100, (3,)).astype(np.int32)
    s8 = np.array([-128, -7, 5, 127, -1, 64], np.int8)
    n8 = np.array([1, 2, -1, 9, 8, 7], np.int8)
    x = rs.randn(2, 3).astype(np.float32)
    g = rs.randn(2, 3).astype(np.float32)
    p = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    img = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    gelu = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    swiglu = x * (1 / (1 + np.exp(-1.5 * x))) * g
    cp = np.flip(np.cumprod(np.flip(p, 1), 1), 1)
    cp = np.concatenate([cp[:, 1:], np.ones((2, 1), np.float32)], 1)
    sh = np.where((n8 < 0) | (n8 >= 8), np.where(s8 < 0, -1, 0),
                  s8 >> np.clip(n8, 0, 7)).astype(np.int8)
    s2d = img.reshape(1, 1, 2, 2, 2, 2).transpose(0, 1, 3, 5, 2, 4)
    ax = helper.make_tensor("ax", TensorProto.INT32, [], [1])
    save(out,
         [helper.make_node("BitwiseAnd", ["a", "c"], ["and"]),
          helper.make_node("BitwiseNot", ["a"], ["not"]),
          helper.make_node("BitShift", ["s8", "n8"], ["shr"],
                           direction="RIGHT"),
          helper.make_node("Gelu", ["x"], ["gelu"], approximate="tanh"),
          helper.make_node("SwiGLU", ["x", "g"], ["swiglu"], alpha=1.5),
          helper.make_node("CumProd", ["p", "ax"], ["cp"], exclusive=1,
                           reverse=1),
          helper.make_node("SpaceToDepth", ["img"], ["s2d"], blocksize=2,
                           mode="CRD")],
         [vi("a", TensorProto.INT32, [2, 3]), vi("c", TensorProto.INT32, [3]),
          vi("s8", TensorProto.INT8, [6]), vi("n8", TensorProto.INT8, [6]),
          vi("x", F, [2, 3]), vi("g", F, [2, 3]), vi("p", F, [2, 3]),
          vi("img", F, [1, 1, 4, 4])],
         [vi("and", TensorProto.INT32, [2, 3]),
          vi("not", TensorProto.INT32, [2, 3]),
          vi("shr", TensorProto.INT8, [6]), vi("gelu", F, [2, 3]),
          vi("swiglu", F, [2, 3]), vi("cp", F, [2, 3]),
          vi("s2d", F, [1, 4, 2, 2])],
         [a, c, s8, n8, x, g, p, img],
         [a & c, ~a, sh, gelu, swiglu, cp, s2d.reshape(1, 4, 2, 2)], 28,
         [ax])


def nll_22(out):
    lp = np.log(np.random.RandomState(2).dirichlet(np.ones(4), 3)).astype(
        np.float32)
    t = np.array([0, 3, 1], np.int64)
    save(out, [helper.make_node("NegativeLogLikelihoodLoss", ["lp", "t"],
                                ["loss"], reduction="mean")],
         [vi("lp", F, [3, 4]), vi("t", I64, [3])], [vi("loss", F, [])],
         [lp, t], [np.float32(-lp[np.arange(3), t].mean())], 22)


MODELS = {
    "nll_22": nll_22,
    "elementwise_28": elementwise_28,
    "reduce_runtime": reduce_runtime,
}

if __name__ == "__main__":
    os.makedirs(sys.argv[2], exist_ok=True)
    MODELS[sys.argv[1]](sys.argv[2])
