"""Writes an ONNX model whose one initializer is stored externally at a
location, offset and length given on the command line, for the tests of
external data confinement (external-data-confinement.test).

usage: make_external_model.py OUT.onnx LOCATION [--offset N] [--length N]
                              [--data FILE]

The model computes y = w + w for w: float32[2] (no graph inputs). --data
FILE also writes FILE holding w = [1, 2] at byte 0 (8 bytes), so that a
test can place the data where it means the location to lead. LOCATION is
stored byte for byte: no path or URL decoding happens here.
"""
import argparse
import struct

from onnx import TensorProto, helper

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("location")
p.add_argument("--offset")
p.add_argument("--length")
p.add_argument("--data")
a = p.parse_args()

w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[2])
w.data_location = TensorProto.EXTERNAL
w.external_data.add(key="location", value=a.location)
if a.offset is not None:
    w.external_data.add(key="offset", value=a.offset)
if a.length is not None:
    w.external_data.add(key="length", value=a.length)
graph = helper.make_graph(
    [helper.make_node("Add", ["w", "w"], ["y"], name="add")], "g", [],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])], [w])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
with open(a.out, "wb") as f:
    f.write(model.SerializeToString())
if a.data:
    with open(a.data, "wb") as f:
        f.write(struct.pack("<2f", 1.0, 2.0))
