#!/usr/bin/env python3
"""Writes small ONNX models whose inputs are fed back from their outputs
(a cache and a step counter) for the `--state` lit tests.

Usage: make_state_models.py NAME OUTDIR
writes OUTDIR/model.onnx and, for `cache`, OUTDIR/in_0.npy (the step's new
row) and OUTDIR/ref_<i>.npy (the results after three steps on the same
input, the cache and the counter kept in globals).

Models (opset 17, IR 8: onnx 1.12 checks them):
  cache     k [1,2,1,4] + past [1,2,L,4] -> present = Concat(past, k, axis 2),
            out = ReduceSum(present, axis 2); count [1] -> count_next =
            count + 1, steps = Identity(count_next). Results: out, present,
            steps, count_next.
  kv        past_key_values.0.{key,value} [1,2,L,4] -> present.0.{key,value}
            (the names --state=auto pairs), y = ReduceSum(present.0.value).
  kv_batch  like kv with a dynamic batch extent.
  kv_missing  like kv without the present.0.value output.
  mismatch  a [2] f32 and w [2] f32 (also an initializer) -> as_int [2]
            i64, as_rank2 [2,1] f32, longer [3] f32: no valid pairs.
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def const(name, array):
    return helper.make_node("Constant", [], [name],
                            value=numpy_helper.from_array(array, name))


def model(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "step", inputs, outputs,
                              initializer=list(initializers))
    m = helper.make_model(graph, producer_name="lit",
                          opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def cache(out):
    nodes = [
        helper.make_node("Concat", ["past", "k"], ["present"], axis=2),
        const("axes", np.array([2], np.int64)),
        helper.make_node("ReduceSum", ["present", "axes"], ["out"],
                         keepdims=0),
        const("one", np.array([1], np.int64)),
        helper.make_node("Add", ["count", "one"], ["count_next"]),
        helper.make_node("Identity", ["count_next"], ["steps"]),
    ]
    m = model(nodes,
              [vi("k", F, [1, 2, 1, 4]), vi("past", F, [1, 2, "L", 4]),
               vi("count", I64, [1])],
              [vi("out", F, [1, 2, 4]), vi("present", F, [1, 2, "L1", 4]),
               vi("steps", I64, [1]), vi("count_next", I64, [1])])
    k = np.arange(8, dtype=np.float32).reshape(1, 2, 1, 4) / 8
    np.save(os.path.join(out, "in_0.npy"), k)
    # Three steps on the same row: the cache holds it three times.
    np.save(os.path.join(out, "ref_0.npy"), 3 * k[:, :, 0, :])
    np.save(os.path.join(out, "ref_1.npy"), np.array([3], np.int64))
    return m


def kv(out, batch=1, missing=False):
    names = ["past_key_values.0.key", "past_key_values.0.value"]
    present = ["present.0.key", "present.0.value"]
    nodes = [
        const("new", np.ones((1, 2, 1, 4), np.float32)),
        helper.make_node("Concat", [names[0], "new"], [present[0]], axis=2),
        helper.make_node("Concat", [names[1], "x"], [present[1]], axis=2),
        const("axes", np.array([2], np.int64)),
        helper.make_node("ReduceSum", [present[1], "axes"], ["y"],
                         keepdims=0),
    ]
    shape = [batch, 2, "past", 4]
    outputs = [vi("y", F, [batch, 2, 4]), vi(present[0], F, shape)]
    if not missing:
        outputs.append(vi(present[1], F, shape))
    return model(nodes,
                 [vi("x", F, [1, 2, 1, 4])] +
                 [vi(n, F, shape) for n in names], outputs)


def mismatch(out):
    nodes = [
        helper.make_node("Add", ["a", "w"], ["sum"]),
        helper.make_node("Cast", ["sum"], ["as_int"], to=I64),
        const("axis", np.array([1], np.int64)),
        helper.make_node("Unsqueeze", ["sum", "axis"], ["as_rank2"]),
        helper.make_node("Concat", ["sum", "sum1"], ["longer"], axis=0),
        const("sum1", np.zeros(1, np.float32)),
    ]
    w = numpy_helper.from_array(np.ones(2, np.float32), "w")
    return model(nodes, [vi("a", F, [2]), vi("w", F, [2])],
                 [vi("as_int", I64, [2]), vi("as_rank2", F, [2, 1]),
                  vi("longer", F, [3])], initializers=[w])


MODELS = {
    "cache": cache,
    "kv": kv,
    "kv_batch": lambda out: kv(out, batch="batch"),
    "kv_missing": lambda out: kv(out, missing=True),
    "mismatch": mismatch,
}


def main():
    name, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    m = MODELS[name](out)
    with open(os.path.join(out, "model.onnx"), "wb") as f:
        f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
