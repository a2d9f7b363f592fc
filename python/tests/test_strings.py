"""String tensors (ONNX STRING) through the Python package: numpy str and
object arrays in, '<U' arrays out (docs/strings.md)."""

import numpy as np
import pytest

import mlprog

pytestmark = pytest.mark.skipif(not mlprog.HAVE_ONNX,
                                reason="built without the ONNX importer")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def string_model():
    """y = StringNormalizer(s) (stopword "b", LOWER); z = Cast(x, STRING);
    w = Cast(n, FLOAT)."""
    S = TensorProto.STRING
    graph = helper.make_graph(
        [helper.make_node("StringNormalizer", ["s"], ["y"],
                          case_change_action="LOWER", stopwords=["b"]),
         helper.make_node("Cast", ["x"], ["z"], to=S),
         helper.make_node("Cast", ["n"], ["w"], to=TensorProto.FLOAT)],
        "strings",
        [helper.make_tensor_value_info("s", S, [3]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("n", S, [2])],
        [helper.make_tensor_value_info("y", S, [None]),
         helper.make_tensor_value_info("z", S, [2]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 13)])
    return model.SerializeToString()


def test_string_arrays_in_and_out():
    exe = mlprog.compile(mlprog.import_onnx(string_model(),
                                            name="strings.onnx"))
    assert exe.main.signature["inputs"][0]["dtype"] == "str"
    y, z, w = exe.main(np.array(["Ä", "B", "Straße"]),
                       np.array([0.5, 1e-7], np.float32),
                       np.array(["2.5", "-1e3"], dtype=object))
    assert y.dtype.kind == "U" and y.tolist() == ["ä", "straße"]
    assert z.tolist() == ["0.5", "1e-07"]
    np.testing.assert_array_equal(w, np.array([2.5, -1000.0], np.float32))


def test_non_str_element_is_an_error():
    exe = mlprog.compile(mlprog.import_onnx(string_model(),
                                            name="strings.onnx"))
    with pytest.raises(Exception, match="element 1 of a string array"):
        exe.main(np.array(["a", 3], dtype=object),
                 np.zeros(2, np.float32), np.array(["1", "2"]))
