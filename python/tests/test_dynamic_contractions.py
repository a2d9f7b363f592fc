"""Contractions whose extents are known only at run time
(--mlprog-tile-dynamic-contractions): a linear layer over a sequence of
unknown length, attention over an unknown number of keys, and a product
whose every extent is unknown, against numpy at lengths around the row
blocks (1, the 8-row register block, one past it, several blocks, and
around the 64-row bulk block)."""

import numpy as np
import pytest

import mlprog

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")

LENGTHS = [1, 3, 8, 9, 21, 64, 70, 137]


def _compile(nodes, inputs, outputs, initializers=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    return mlprog.compile(mlprog.import_onnx(model.SerializeToString()))


def _value(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def test_linear_layer_over_unknown_length():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((96, 200)).astype(np.float32)
    bias = rng.standard_normal(200).astype(np.float32)
    exe = _compile(
        [helper.make_node("MatMul", ["x", "w"], ["xw"]),
         helper.make_node("Add", ["xw", "bias"], ["y"])],
        [_value("x", [1, "seq", 96])], [_value("y", [1, "seq", 200])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(bias,
                                                                  "bias")])
    for n in LENGTHS:
        x = rng.standard_normal((1, n, 96)).astype(np.float32)
        np.testing.assert_allclose(exe(x), x @ w + bias, rtol=1e-4,
                                   atol=1e-4, err_msg="length %d" % n)


def test_attention_over_unknown_keys():
    rng = np.random.default_rng(1)
    exe = _compile(
        [helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 2, 1]),
         helper.make_node("MatMul", ["q", "kt"], ["s"]),
         helper.make_node("Softmax", ["s"], ["p"], axis=-1),
         helper.make_node("MatMul", ["p", "v"], ["o"])],
        [_value("q", [4, "s", 32]), _value("k", [4, "n", 32]),
         _value("v", [4, "n", 32])],
        [_value("o", [4, "s", 32])])
    for s, n in [(1, 1), (1, 300), (3, 65), (9, 257), (21, 40), (70, 70)]:
        q, k, v = (rng.standard_normal((4, m, 32)).astype(np.float32)
                   for m in (s, n, n))
        scores = q @ k.transpose(0, 2, 1)
        p = np.exp(scores - scores.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        np.testing.assert_allclose(exe(q, k, v), p @ v, rtol=1e-4,
                                   atol=1e-5, err_msg="s %d, n %d" % (s, n))


def test_every_extent_unknown():
    rng = np.random.default_rng(2)
    exe = _compile([helper.make_node("MatMul", ["a", "b"], ["c"])],
                   [_value("a", ["b", "m", "k"]), _value("b", ["k", "n"])],
                   [_value("c", ["b", "m", "n"])])
    for b, m, k, n in [(1, 1, 1, 1), (2, 9, 300, 70), (3, 21, 17, 5), (1, 130, 64, 33)]:
        x = rng.standard_normal((b, m, k)).astype(np.float32)
        y = rng.standard_normal((k, n)).astype(np.float32)
        np.testing.assert_allclose(exe(x, y), x @ y, rtol=1e-4, atol=1e-4,
                                   err_msg="%s" % ((b, m, k, n),))
