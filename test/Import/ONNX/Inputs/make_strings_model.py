#!/usr/bin/env python3
"""Writes a model of ONNX string ops and numpy/Python references:
Cast float32 [2, 4] -> STRING (numpy >= 2's str of each float: shortest
round trip, scientific outside [1e-4, 1e6) for float32), Cast float16 [4] ->
STRING (its own cutoff, 1e3), Cast int32 [3] -> STRING, StringNormalizer
(case-insensitive stopwords "the" and "ÄRGER", UPPER, non-ASCII text), and
Cast STRING [4] -> FLOAT ("-INF", exponents, leading space),
StringConcat of s and a STRING initializer ["!"] (broadcast), and Equal of
s and a Constant value_strings ["quick"], and StringSplit of n at "e"
(parts padded with "" to the widest, and their counts).

Usage: make_strings_model.py OUT_DIR
Writes OUT_DIR/model.onnx, OUT_DIR/in_<i>.npy (strings as numpy '<U') and
the references OUT_DIR/ref_<i>.npy.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    S = TensorProto.STRING
    nodes = [
        helper.make_node("Cast", ["x"], ["y0"], to=S),
        helper.make_node("Cast", ["h"], ["y1"], to=S),
        helper.make_node("Cast", ["i"], ["y2"], to=S),
        helper.make_node("StringNormalizer", ["s"], ["y3"],
                         case_change_action="UPPER", is_case_sensitive=0,
                         stopwords=["the", "ÄRGER"]),
        helper.make_node("Cast", ["n"], ["y4"], to=TensorProto.FLOAT),
        helper.make_node("StringConcat", ["s", "bang"], ["y5"]),
        helper.make_node("Constant", [], ["quick"],
                         value_strings=["quick"]),
        helper.make_node("Equal", ["s", "quick"], ["y6"]),
        helper.make_node("StringSplit", ["n"], ["y7", "y8"], delimiter="e"),
    ]
    graph = helper.make_graph(
        nodes, "strings",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT16, [4]),
         helper.make_tensor_value_info("i", TensorProto.INT32, [3]),
         helper.make_tensor_value_info("s", S, [5]),
         helper.make_tensor_value_info("n", S, [4])],
        [helper.make_tensor_value_info("y0", S, [2, 4]),
         helper.make_tensor_value_info("y1", S, [4]),
         helper.make_tensor_value_info("y2", S, [3]),
         helper.make_tensor_value_info("y3", S, [None]),
         helper.make_tensor_value_info("y4", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("y5", S, [5]),
         helper.make_tensor_value_info("y6", TensorProto.BOOL, [5]),
         helper.make_tensor_value_info("y7", S, [4, None]),
         helper.make_tensor_value_info("y8", TensorProto.INT64, [4])],
        [helper.make_tensor("bang", S, [1], [b"!"])])
    # Opset 20 (StringConcat); not checked, so that onnx 1.12 can write it.
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 20)])
    onnx.save(model, os.path.join(out, "model.onnx"))

    x = np.array([[0.9767611, 1e-5, -0.0, 3.0],
                  [1e20, np.nan, 123456789.0, 0.1]], np.float32)
    h = np.array([0.1, 1000.0, 65504.0, 0.0001], np.float16)
    i = np.array([-5, 0, 2147483647], np.int32)
    s = np.array(["The", "ärger", "αβγ", "quick", "Fox"])
    n = np.array(["1.5", "-2e3", " 7", "-INF"])
    stop = {w.lower() for w in ["the", "ÄRGER"]}
    # numpy >= 2 (the project's .venv; onnx's reference Cast is
    # x.astype(np.str_)): float32 is positional for 1e-4 <= |x| < 1e6,
    # float16 below 1e3. numpy 1.x printed both positionally up to 1e16
    # ('123456790.0'), so these are spelled out.
    x_str = np.array([["0.9767611", "1e-05", "-0.0", "3.0"],
                      ["1e+20", "nan", "1.2345679e+08", "0.1"]])
    h_str = np.array(["0.1", "1e+03", "6.55e+04", "0.0001"])
    refs = [x_str, h_str, i.astype(str),
            np.array([w.upper() for w in s if w.lower() not in stop]),
            n.astype(np.float32), np.char.add(s, "!"), s == "quick"]
    parts = [str(v).split("e") for v in n]
    width = max(len(p) for p in parts)
    refs += [np.array([p + [""] * (width - len(p)) for p in parts]),
             np.array([len(p) for p in parts], np.int64)]
    for k, value in enumerate([x, h, i, s, n]):
        np.save(os.path.join(out, f"in_{k}.npy"), value)
    for k, value in enumerate(refs):
        np.save(os.path.join(out, f"ref_{k}.npy"), value)


if __name__ == "__main__":
    main()
