"""Writes ONNX models exercising graph-level importer features, with inputs
and numpy references, for the importer and execution tests.

usage: make_graph_models.py NAME OUT_DIR

Writes OUT_DIR/model.onnx, OUT_DIR/input_<i>.npy (one per graph input) and
OUT_DIR/reference_<i>.npy (one per graph output, computed with numpy from
the ONNX operator definitions). NAME: see MODELS below.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT
I64 = TensorProto.INT64
B = TensorProto.BOOL
rng = np.random.default_rng(0)


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=13, functions=(),
          extra_opsets=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    opsets = [helper.make_opsetid("", opset)] + list(extra_opsets)
    m = helper.make_model(graph, opset_imports=opsets,
                          functions=list(functions))
    if opset < 7:
        m.ir_version = 3
    return m


def local_function():
    # A model-local function ScaledAddRelu(x, y; scale) = relu((x + y) *
    # scale) in domain "custom", called twice with different attributes,
    # the second call through a nested call of another local function.
    body = [
        helper.make_node("Add", ["x", "y"], ["t"]),
        helper.make_node("Constant", [], ["c"], value_float=0.0),
        helper.make_node("Constant", [], ["s"]),
        helper.make_node("Mul", ["t", "s"], ["u"]),
        helper.make_node("Relu", ["u"], ["z"]),
    ]
    # The Constant's value comes from the caller's `scale` attribute.
    body[2].attribute.append(onnx.AttributeProto(
        name="value_float", ref_attr_name="scale",
        type=onnx.AttributeProto.FLOAT))
    f = helper.make_function("custom", "ScaledAddRelu", ["x", "y"], ["z"],
                             body, [helper.make_opsetid("", 13)], ["scale"])
    twice = helper.make_function(
        "custom", "Twice", ["a"], ["b"],
        [helper.make_node("ScaledAddRelu", ["a", "a"], ["b"],
                          domain="custom", scale=1.5)],
        [helper.make_opsetid("", 13), helper.make_opsetid("custom", 1)])
    nodes = [helper.make_node("ScaledAddRelu", ["x", "y"], ["z0"],
                              name="call0", domain="custom", scale=2.0),
             helper.make_node("Twice", ["z0"], ["z"], name="call1",
                              domain="custom")]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = rng.standard_normal((2, 3)).astype(np.float32)
    z0 = np.maximum((x + y) * 2.0, 0)
    z = np.maximum((z0 + z0) * 1.5, 0)
    m = model(nodes, [vi("x", F, [2, 3]), vi("y", F, [2, 3])],
              [vi("z", F, [2, 3])], functions=[f, twice],
              extra_opsets=[helper.make_opsetid("custom", 1)])
    return m, [x, y], [z]


def schema_function():
    # Celu (opset 12) has no handler of its own: its schema's function body
    # (Div, Elu, Mul) is expanded.
    nodes = [helper.make_node("Celu", ["x"], ["y"], name="celu0", alpha=2.0)]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = np.maximum(0, x) + np.minimum(0, 2.0 * (np.exp(x / 2.0) - 1))
    return model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])]), [x], [y]


def nll_loss():
    # NegativeLogLikelihoodLoss has a context-dependent function body.
    nodes = [helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"],
                              name="nll0", reduction="mean")]
    x = rng.standard_normal((3, 5)).astype(np.float32)
    t = np.array([1, 0, 4], np.int64)
    y = np.array(-np.mean(x[np.arange(3), t]), np.float32)
    return (model(nodes, [vi("x", F, [3, 5]), vi("t", I64, [3])],
                  [vi("y", F, [])]), [x, t], [y])


def if_model(cond):
    # y = cond ? x + w : v * v, reading initializers w ([3]) and v ([1, 3])
    # of the outer graph. The branches produce [2, 3] and [1, 3], so the
    # result type joins to [?, 3].
    w = numpy_helper.from_array(np.array([1, 2, 3], np.float32), "w")
    v = numpy_helper.from_array(np.array([[4, 5, 6]], np.float32), "v")
    then_g = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["a"])], "then", [],
        [vi("a", F, [2, 3])])
    else_g = helper.make_graph(
        [helper.make_node("Mul", ["v", "v"], ["m"])], "else", [],
        [vi("m", F, [1, 3])])
    nodes = [helper.make_node("If", ["cond"], ["y"], name="if0",
                              then_branch=then_g, else_branch=else_g)]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    y = x + np.array([1, 2, 3], np.float32) if cond else np.array(
        [[16, 25, 36]], np.float32)
    return (model(nodes, [vi("cond", B, []), vi("x", F, [2, 3])],
                  [vi("y", F, [None, 3])], [w, v]),
            [np.array(cond), x], [y])


def loop_model():
    # for i in range(M): y = y + x (x read from the outer graph); scan out
    # y. The condition stays true.
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["x"], ["xi"]),
         helper.make_node("Add", ["y_in", "xi"], ["y_out"]),
         helper.make_node("Identity", ["y_out"], ["scan"])],
        "body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("y_in", F, [3])],
        [vi("cond_out", B, []), vi("y_out", F, [3]), vi("scan", F, [3])])
    nodes = [helper.make_node("Loop", ["M", "cond", "y0"], ["y", "ys"],
                              name="loop0", body=body)]
    x = rng.standard_normal(3).astype(np.float32)
    y0 = rng.standard_normal(3).astype(np.float32)
    M = np.array(4, np.int64)
    cond = np.array(True)
    ys = []
    y = y0
    for _ in range(4):
        y = y + x
        ys.append(y)
    return (model(nodes, [vi("M", I64, []), vi("cond", B, []),
                          vi("y0", F, [3]), vi("x", F, [3])],
                  [vi("y", F, [3]), vi("ys", F, [None, 3])]),
            [M, cond, y0, x], [y, np.stack(ys)])


def loop_growing():
    # A loop-carried tensor that grows every iteration (Concat), so its type
    # relaxes to dynamic: y = concat(y, x) three times.
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Concat", ["y_in", "x"], ["y_out"], axis=0)],
        "body",
        [vi("i", I64, []), vi("cond_in", B, []), vi("y_in", F, [None])],
        [vi("cond_out", B, []), vi("y_out", F, [None])])
    three = numpy_helper.from_array(np.array(3, np.int64), "three")
    nodes = [helper.make_node("Loop", ["three", "", "x"], ["y"],
                              name="loop0", body=body)]
    x = rng.standard_normal(2).astype(np.float32)
    y = np.concatenate([x] * 4)
    return (model(nodes, [vi("x", F, [2])], [vi("y", F, [None])], [three]),
            [x], [y])


def scan_model():
    # Scan over axis 1 of x ([2, 4]) in reverse, state s ([2]):
    # s = s + x[:, t]; scan output s, stacked along axis 0.
    body = helper.make_graph(
        [helper.make_node("Add", ["s_in", "xt"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["o"])],
        "body", [vi("s_in", F, [2]), vi("xt", F, [2])],
        [vi("s_out", F, [2]), vi("o", F, [2])])
    nodes = [helper.make_node("Scan", ["s0", "x"], ["s", "os"], name="scan0",
                              body=body, num_scan_inputs=1,
                              scan_input_axes=[1], scan_input_directions=[1])]
    s0 = rng.standard_normal(2).astype(np.float32)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    s, outs = s0, []
    for t in reversed(range(4)):
        s = s + x[:, t]
        outs.append(s)
    return (model(nodes, [vi("s0", F, [2]), vi("x", F, [2, 4])],
                  [vi("s", F, [2]), vi("os", F, [4, 2])]),
            [s0, x], [s, np.stack(outs)])


def scan8_model():
    # Scan-8 (batched): batch 3, maximum sequence 4, sequence_lens [4, 2, 3];
    # state s ([batch, 2]); scan inputs x (forward) and z (reverse), both
    # [batch, 4, 2]. Body: s = s + x_t * z_t; scan output s. Rows past a
    # batch's length are zeros.
    body = helper.make_graph(
        [helper.make_node("Mul", ["xt", "zt"], ["p"]),
         helper.make_node("Add", ["s_in", "p"], ["s_out"]),
         helper.make_node("Identity", ["s_out"], ["o"])],
        "body", [vi("s_in", F, [2]), vi("xt", F, [2]), vi("zt", F, [2])],
        [vi("s_out", F, [2]), vi("o", F, [2])])
    nodes = [helper.make_node("Scan", ["lens", "s0", "x", "z"], ["s", "os"],
                              name="scan8", body=body, num_scan_inputs=2,
                              directions=[0, 1])]
    lens = np.array([4, 2, 3], np.int64)
    s0 = rng.standard_normal((3, 2)).astype(np.float32)
    x = rng.standard_normal((3, 4, 2)).astype(np.float32)
    z = rng.standard_normal((3, 4, 2)).astype(np.float32)
    s_all, outs = s0.copy(), np.zeros((3, 4, 2), np.float32)
    for b in range(3):
        s, n = s0[b], lens[b]
        for t in range(n):
            s = s + x[b, t] * z[b, n - 1 - t]
            outs[b, t] = s
        s_all[b] = s
    return (model(nodes, [vi("lens", I64, [3]), vi("s0", F, [3, 2]),
                          vi("x", F, [3, 4, 2]), vi("z", F, [3, 4, 2])],
                  [vi("s", F, [3, 2]), vi("os", F, [3, 4, 2])], opset=8),
            [lens, s0, x, z], [s_all, outs])


def scan8_dynamic_model():
    # scan8_model with the batch and sequence extents declared symbolic, as
    # exporters write them: the scan outputs are still preallocated.
    m, inputs, refs = scan8_model()
    for v in list(m.graph.input) + list(m.graph.output):
        dims = v.type.tensor_type.shape.dim
        dims[0].dim_param = "batch"
        if len(dims) == 3:
            dims[1].dim_param = "sequence"
    return m, inputs, refs


def old_opset():
    # Opset 6 Add with the legacy `broadcast` attribute: upgraded to opset 7
    # (numpy broadcasting) by the version converter.
    nodes = [helper.make_node("Add", ["x", "b"], ["y"], name="add0",
                              broadcast=1)]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    return (model(nodes, [vi("x", F, [2, 3]), vi("b", F, [3])],
                  [vi("y", F, [2, 3])], opset=6), [x, b], [x + b])


def external_data(out_dir):
    # Two initializers stored in one external file at different offsets;
    # y = x * w + b.
    w = rng.standard_normal((2, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    pad = b"\0" * 16
    with open(os.path.join(out_dir, "weights.bin"), "wb") as f:
        f.write(pad + w.tobytes() + b.tobytes())
    inits = []
    for name, arr, offset in (("w", w, 16), ("b", b, 16 + w.nbytes)):
        t = TensorProto(name=name, data_type=F, dims=arr.shape)
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", "weights.bin"), ("offset", str(offset)),
                     ("length", str(arr.nbytes))):
            t.external_data.add(key=k, value=v)
        inits.append(t)
    nodes = [helper.make_node("Mul", ["x", "w"], ["m"], name="mul0"),
             helper.make_node("Add", ["m", "b"], ["y"], name="add0")]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    return (model(nodes, [vi("x", F, [2, 3])], [vi("y", F, [2, 3])], inits),
            [x], [x * w + b])


def loop_unbounded():
    # Neither a trip count nor a condition: an unbounded loop.
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["y_in"], ["y_out"])],
        "body", [vi("i", I64, []), vi("cond_in", B, []), vi("y_in", F, [2])],
        [vi("cond_out", B, []), vi("y_out", F, [2])])
    nodes = [helper.make_node("Loop", ["", "", "x"], ["y"], name="loop0",
                              body=body)]
    x = np.zeros(2, np.float32)
    return model(nodes, [vi("x", F, [2])], [vi("y", F, [2])]), [x], [x]


def if_rank_mismatch():
    # The branches produce tensors of different ranks.
    then_g = helper.make_graph([helper.make_node("Identity", ["x"], ["a"])],
                               "then", [], [vi("a", F, [2, 3])])
    else_g = helper.make_graph([helper.make_node("Identity", ["w"], ["b"])],
                               "else", [], [vi("b", F, [3])])
    w = numpy_helper.from_array(np.ones(3, np.float32), "w")
    nodes = [helper.make_node("If", ["cond"], ["y"], name="if0",
                              then_branch=then_g, else_branch=else_g)]
    x = np.zeros((2, 3), np.float32)
    return (model(nodes, [vi("cond", B, []), vi("x", F, [2, 3])],
                  [vi("y", F, [2, 3])], [w]), [np.array(True), x], [x])


def large_external(out_dir):
    # A 200 MB float initializer in an external (sparse) file: y = x + w.
    n = 50 * 1000 * 1000
    with open(os.path.join(out_dir, "big.bin"), "wb") as f:
        f.truncate(4 * n)
    w = TensorProto(name="w", data_type=F, dims=[n])
    w.data_location = TensorProto.EXTERNAL
    w.external_data.add(key="location", value="big.bin")
    nodes = [helper.make_node("Add", ["x", "w"], ["y"], name="add0")]
    return (model(nodes, [vi("x", F, [n])], [vi("y", F, [n])], [w]), [], [])


MODELS = {
    "loop_unbounded": loop_unbounded,
    "if_rank_mismatch": if_rank_mismatch,
    "local_function": local_function,
    "schema_function": schema_function,
    "nll_loss": nll_loss,
    "if_true": lambda: if_model(True),
    "if_false": lambda: if_model(False),
    "loop": loop_model,
    "loop_growing": loop_growing,
    "scan": scan_model,
    "scan8": scan8_model,
    "scan8_dynamic": scan8_dynamic_model,
    "old_opset": old_opset,
    "external_data": external_data,
    "large_external": large_external,
}


def main():
    name, out_dir = sys.argv[1], sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    make = MODELS[name]
    if name in ("external_data", "large_external"):
        m, inputs, refs = make(out_dir)
    else:
        m, inputs, refs = make()
    onnx.save(m, os.path.join(out_dir, "model.onnx"))
    for i, a in enumerate(inputs):
        np.save(os.path.join(out_dir, f"input_{i}.npy"), a)
    for i, a in enumerate(refs):
        np.save(os.path.join(out_dir, f"reference_{i}.npy"),
                np.asarray(a, dtype=a.dtype))


if __name__ == "__main__":
    main()
