#!/usr/bin/env python3
"""Writes an ONNX model with a dynamic batch whose shape arithmetic mixes
the run-time batch with extents known at import time, as torch.onnx
exports torchvision's shufflenet_v2, swin_t and lraspp_mobilenet_v3:

- y: a channel shuffle (Reshape of x [batch, 8, 4, 4] to
  Concat(batch, [2], C / 2, H, W), Transpose, Reshape back), then its
  second half, Slice(y0, (C + 1) / 2, 2 * ((C + 1) / 2), axis 1), with C
  read by Shape/Gather: y is [batch, 4, 4, 4];
- z: Slice(ConstantOfShape(Concat(H, W)), 0, -1, axis 0) (swin's
  attention mask): [3, 4] ones;
- u: Resize(x, sizes=Concat(Slice(Shape(x), 0, 2), [8, 8])), nearest:
  [batch, 8, 8, 8];
- v: x[-2:] and w: x[::-1] (Slices whose bounds count from the end of the
  dynamic batch);
- q: x[:, (C - 15) / 2:], the integer division truncated as onnxruntime
  does ((8 - 15) / 2 = -3): [batch, 3, 4, 4];
- e: Expand(k [1, 8, 1, 1], Concat(batch, [8, 4, 4])): [batch, 8, 4, 4];
- f: ConstantOfShape(Concat(batch, [2])) of 2.0: [batch, 2].

Usage: make_dynamic_batch_shapes_model.py OUT_DIR
Writes OUT_DIR/model.onnx, inputs in_b1.npy and in_b3.npy (batch 1 and
3), and numpy's results ref_b{1,3}_{0..7}.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)

    def c(name, value):
        return helper.make_node("Constant", [], [name],
                                value=numpy_helper.from_array(
                                    np.asarray(value)))

    def n(op, inputs, outputs, **attrs):
        return helper.make_node(op, inputs, outputs, **attrs)

    nodes = [
        c("i0", np.array(0, np.int64)), c("i1", np.array(1, np.int64)),
        c("i2", np.array(2, np.int64)), c("i3", np.array(3, np.int64)),
        c("one", np.array([1], np.int64)), c("two", np.array([2], np.int64)),
        c("ax0", np.array([0], np.int64)), c("ax1", np.array([1], np.int64)),
        c("zero", np.array([0], np.int64)),
        c("minus1", np.array([-1], np.int64)),
        c("minus2", np.array([-2], np.int64)),
        c("max", np.array([2**63 - 1], np.int64)),
        c("min", np.array([-2**63], np.int64)),
        c("eight8", np.array([8, 8], np.int64)),
        c("fifteen", np.array([15], np.int64)),
        c("chw", np.array([8, 4, 4], np.int64)),
        c("k", np.arange(8, dtype=np.float32).reshape(1, 8, 1, 1)),
        # Channel shuffle.
        n("Shape", ["x"], ["s"]),
        n("Gather", ["s", "i0"], ["b"]), n("Gather", ["s", "i1"], ["ch"]),
        n("Gather", ["s", "i2"], ["h"]), n("Gather", ["s", "i3"], ["w_"]),
        n("Div", ["ch", "i2"], ["half"]),
        n("Unsqueeze", ["b", "ax0"], ["b1"]),
        n("Unsqueeze", ["ch", "ax0"], ["c1"]),
        n("Unsqueeze", ["half", "ax0"], ["half1"]),
        n("Unsqueeze", ["h", "ax0"], ["h1"]),
        n("Unsqueeze", ["w_", "ax0"], ["w1"]),
        n("Concat", ["b1", "two", "half1", "h1", "w1"], ["shape5"], axis=0),
        n("Reshape", ["x", "shape5"], ["r5"]),
        n("Transpose", ["r5"], ["t5"], perm=[0, 2, 1, 3, 4]),
        n("Concat", ["b1", "c1", "h1", "w1"], ["shape4"], axis=0),
        n("Reshape", ["t5", "shape4"], ["y0"]),
        n("Shape", ["y0"], ["s2"]),
        n("Gather", ["s2", "ax1"], ["c2"]),
        n("Add", ["c2", "one"], ["c2p1"]),
        n("Div", ["c2p1", "two"], ["mid"]),
        n("Mul", ["mid", "two"], ["end"]),
        n("Slice", ["y0", "mid", "end", "ax1"], ["y"]),
        # A mask made from known extents.
        n("Concat", ["h1", "w1"], ["hw"], axis=0),
        n("ConstantOfShape", ["hw"], ["ones"],
          value=numpy_helper.from_array(np.array([1.0], np.float32))),
        n("Slice", ["ones", "zero", "minus1", "ax0"], ["z"]),
        # Resize to a computed size.
        n("Slice", ["s", "zero", "two", "ax0"], ["nc"]),
        n("Concat", ["nc", "eight8"], ["sizes"], axis=0),
        n("Resize", ["x", "", "", "sizes"], ["u"], mode="nearest",
          coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        # Slices counted from the end of the batch.
        n("Slice", ["x", "minus2", "max", "ax0"], ["v"]),
        n("Slice", ["x", "minus1", "min", "ax0", "minus1"], ["w"]),
        # Truncated integer division of a known extent.
        n("Sub", ["c1", "fifteen"], ["c_minus_15"]),
        n("Div", ["c_minus_15", "two"], ["from_end"]),
        n("Slice", ["x", "from_end", "max", "ax1"], ["q"]),
        # Expand and ConstantOfShape to a batch and known extents.
        n("Concat", ["b1", "chw"], ["bchw"], axis=0),
        n("Expand", ["k", "bchw"], ["e"]),
        n("Concat", ["b1", "two"], ["b2"], axis=0),
        n("ConstantOfShape", ["b2"], ["f"],
          value=numpy_helper.from_array(np.array([2.0], np.float32))),
    ]
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "dynamic_batch_shapes",
        [helper.make_tensor_value_info("x", f, ["batch", 8, 4, 4])],
        [helper.make_tensor_value_info(name, f, [name + str(d)
                                                 for d in range(rank)])
         for name, rank in [("y", 4), ("z", 2), ("u", 4), ("v", 4),
                            ("w", 4), ("q", 4), ("e", 4), ("f", 2)]])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, "model.onnx"))
    rng = np.random.default_rng(0)
    for batch in (1, 3):
        x = rng.standard_normal((batch, 8, 4, 4)).astype(np.float32)
        np.save(os.path.join(out, "in_b%d.npy" % batch), x)
        shuffled = x.reshape(batch, 2, 4, 4, 4).transpose(0, 2, 1, 3, 4)
        refs = [shuffled.reshape(batch, 8, 4, 4)[:, 4:8],
                np.ones((3, 4), np.float32),
                x.repeat(2, axis=2).repeat(2, axis=3),
                x[-2:], x[::-1], x[:, -3:],
                np.broadcast_to(np.arange(8, dtype=np.float32).reshape(
                    1, 8, 1, 1), (batch, 8, 4, 4)),
                np.full((batch, 2), 2.0, np.float32)]
        for i, r in enumerate(refs):
            np.save(os.path.join(out, "ref_b%d_%d.npy" % (batch, i)),
                    np.ascontiguousarray(r))


if __name__ == "__main__":
    main()
